from __future__ import annotations

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotator.errors import DomainError
from annotator.services.projects import project_create
from pseudonymizer.schemas import PRESETS


class Command(BaseCommand):
    help = "Create a project with its languages and label schema."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--languages", required=True, help="comma-separated, e.g. en,fr,ar")
        parser.add_argument(
            "--schema",
            default="cloaked",
            help=f"a preset ({', '.join(PRESETS)}) or the path of a JSON schema file",
        )
        parser.add_argument("--name", default="")
        parser.add_argument("--description", default="")

    def handle(self, *args: Any, **options: Any) -> None:
        schema: str | dict[str, Any] = options["schema"]
        if schema not in PRESETS:
            path = Path(options["schema"])
            if not path.is_file():
                raise CommandError(
                    f"--schema {schema!r} is neither a preset ({', '.join(PRESETS)}) nor a file"
                )
            try:
                schema = json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as error:
                raise CommandError(f"{path}: not valid JSON: {error}") from None
        try:
            project = project_create(
                slug=options["slug"],
                languages=options["languages"].split(","),
                schema=schema,
                name=options["name"],
                description=options["description"],
            )
        except DomainError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"Created project {project.slug} ({', '.join(project.languages)}), "
            f"{len(project.labels)} labels."
        )
