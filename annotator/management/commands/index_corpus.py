"""Add to the projects' vocabulary the words of the documents an import did not write."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.models import Project
from annotator.services.corpus_words import corpus_words_catch_up


class Command(BaseCommand):
    help = (
        "Add to the vocabulary (the digests of the words of a project's documents, which tell "
        "whether a pseudonym can occur in them without reading them) the words of the "
        "documents no import wrote: those from before Cloak kept one, or written by a script. "
        "Beat does it too, every CLOAK_CORPUS_WORDS_EVERY seconds."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", nargs="?", help="one project (default: every project)")

    def handle(self, *args: Any, **options: Any) -> None:
        project_id = None
        if options["slug"]:
            project = Project.objects.filter(slug=options["slug"]).first()
            if project is None:
                raise CommandError(f"no project {options['slug']!r}")
            project_id = project.pk
        done = corpus_words_catch_up(project_id=project_id)
        self.stdout.write(f"documents whose words were added: {done}")
