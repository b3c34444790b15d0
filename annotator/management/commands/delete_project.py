"""Delete a project with everything of it, its keys and release files included."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.errors import DomainError
from annotator.models import Project
from annotator.services.projects import project_delete


class Command(BaseCommand):
    help = (
        "Delete a project: its documents, spans, imports, runs, review items, releases (rows "
        "and files) and its correspondence table. Cannot be undone; asks for --yes."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--yes", action="store_true", help="really delete it")

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(slug=options["slug"]).first()
        if project is None:
            raise CommandError(f"no project {options['slug']!r}")
        if not options["yes"]:
            raise CommandError(
                f"this deletes project {project.slug}, its keys and its releases for good: "
                "run again with --yes"
            )
        documents = project.documents.count()
        try:
            project_delete(project)
        except DomainError as error:  # ConflictError too: a job is running
            raise CommandError(str(error)) from None
        self.stdout.write(f"deleted project {options['slug']} ({documents} documents)")
