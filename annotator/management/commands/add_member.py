from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotator.errors import DomainError
from annotator.models import Project, Role
from annotator.services.projects import membership_set


class Command(BaseCommand):
    help = (
        "Add a user to a project (creating the user when --password is given) or change their role."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=Role.values)
        parser.add_argument("--languages", default="", help="comma-separated; annotators need one")
        parser.add_argument("--password", default=None)
        parser.add_argument("--email", default="")

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(slug=options["slug"]).first()
        if project is None:
            raise CommandError(f"no project {options['slug']!r}")
        languages = [lang.strip() for lang in options["languages"].split(",") if lang.strip()]
        try:
            membership = membership_set(
                project=project,
                username=options["username"],
                role=options["role"],
                languages=languages,
                password=options["password"],
                password_resets=True,
                email=options["email"],
            )
        except DomainError as error:
            raise CommandError(str(error)) from None
        scope = f" for {', '.join(membership.languages)}" if membership.languages else ""
        self.stdout.write(
            f"{membership.user.username} is {membership.role} of {project.slug}{scope}."
        )
