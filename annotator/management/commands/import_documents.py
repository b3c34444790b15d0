from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from annotator.errors import DomainError
from annotator.models import Project
from annotator.services.imports import documents_import
from pseudonymizer.formats import FORMATS


class Command(BaseCommand):
    help = "Import documents (and the spans they carry) into a project; all or nothing."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("file", type=Path)
        parser.add_argument("--format", default="auto", choices=("auto", *FORMATS))
        parser.add_argument("--language", default=None, help="for documents that name none")
        parser.add_argument("--text-column", default="text", help="CSV: the column of the text")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(slug=options["slug"]).first()
        if project is None:
            raise CommandError(f"no project {options['slug']!r}")
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        bar = tqdm(
            unit=" docs",
            desc=f"importing {path.name}",
            disable=options["no_progress"] or None,  # None: only on a terminal
            file=self.stderr._out,
        )

        def progress(documents: int, spans: int) -> None:
            bar.update(documents - bar.n)
            bar.set_postfix(spans=spans)

        try:
            summary = documents_import(
                project=project,
                path=path,
                fmt=options["format"],
                language=options["language"],
                text_column=options["text_column"],
                progress=progress,
            )
        except DomainError as error:
            bar.close()
            raise CommandError(f"import refused, nothing was written: {error}") from None
        bar.close()
        languages = ", ".join(f"{lang}: {n}" for lang, n in sorted(summary.languages.items()))
        self.stdout.write(
            f"Imported {summary.documents} documents and {summary.spans} spans into "
            f"{project.slug} ({languages})."
        )
