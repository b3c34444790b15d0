from __future__ import annotations

import importlib.util
import os
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = (
        "Fetch the NER models named in settings (CLOAK_NER_MODEL_<LANG>) into the Hugging Face "
        "cache (HF_HOME), once, on a host that reaches the hub; workers then load them offline."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--language", action="append", help="only these (repeatable)")

    def handle(self, *args: Any, **options: Any) -> None:
        models: dict[str, str] = settings.CLOAK_NER_MODELS
        languages = options["language"] or sorted(models)
        unknown = [language for language in languages if language not in models]
        if unknown:
            raise CommandError(f"no model setting for {', '.join(unknown)}")
        failures = []
        for language in languages:
            spec = models[language]
            try:
                self.stdout.write(f"{language}: {self.fetch(spec)}")
            except Exception as error:  # one bad model must not hide the others' results
                failures.append(language)
                self.stderr.write(f"{language}: {spec!r} could not be fetched: {error}")
        if failures:
            raise CommandError(f"failed for {', '.join(failures)}")

    def fetch(self, spec: str) -> str:
        if not spec:
            return "no NER model configured (regex and known entities only)"
        if spec.startswith("spacy:"):
            package = spec.removeprefix("spacy:")
            if importlib.util.find_spec(package) is None:
                raise RuntimeError(f"spaCy package {package!r} is not installed (pip install it)")
            return f"spaCy package {package} is installed"
        if Path(spec).exists():
            return f"{spec} is a local folder; nothing to fetch"
        if os.environ.get("HF_HUB_OFFLINE") == "1":
            raise RuntimeError("HF_HUB_OFFLINE=1 forbids downloads; unset it for this command")
        from transformers import AutoModelForTokenClassification, AutoTokenizer

        AutoTokenizer.from_pretrained(spec)
        AutoModelForTokenClassification.from_pretrained(spec)
        return f"{spec} is in the cache ({os.environ.get('HF_HOME', '~/.cache/huggingface')})"
