from __future__ import annotations

import json
import secrets
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from annotator.models import Project, Role
from annotator.services.imports import documents_import
from annotator.services.projects import membership_set, project_create

CORPUS = Path(__file__).resolve().parents[2] / "demo" / "corpus.jsonl"
SLUG = "demo"
LANGUAGES = ["en", "fr", "ar"]
# (username, role, languages)
USERS = [
    ("demo-admin", Role.ADMIN, []),
    ("demo-lead", Role.LEAD, []),
    ("demo-annotator-en", Role.ANNOTATOR, ["en"]),
    ("demo-annotator-fr", Role.ANNOTATOR, ["fr"]),
    ("demo-annotator-ar", Role.ANNOTATOR, ["ar"]),
]


class Command(BaseCommand):
    help = "Load the demo project (our own fictional en/fr/ar corpus) and a user for each role."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--quiet-passwords", action="store_true", help="do not print them")

    def handle(self, *args: Any, **options: Any) -> None:
        credentials_path = Path(settings.VAR_DIR) / "demo-credentials.json"
        credentials: dict[str, str] = {}
        if credentials_path.is_file():
            credentials = json.loads(credentials_path.read_text())
        user_model = get_user_model()
        with transaction.atomic():
            project = Project.objects.filter(slug=SLUG).first()
            if project is None:
                project = project_create(
                    slug=SLUG,
                    languages=LANGUAGES,
                    schema="cloaked",
                    name="Demo: radicalization posts (fictional)",
                    description="A small fictional trilingual corpus to try Cloak on.",
                )
            for username, role, languages in USERS:
                exists = user_model.objects.filter(username=username).exists()
                password = None
                if not exists or username not in credentials:
                    # A third longer than CLOAK_PASSWORD_MIN_LENGTH: membership_set validates
                    # these as it validates every password.
                    length = max(12, settings.CLOAK_PASSWORD_MIN_LENGTH)
                    password = credentials[username] = secrets.token_urlsafe(length)
                membership_set(
                    project=project,
                    username=username,
                    role=role,
                    languages=languages,
                    password=password,
                    password_resets=True,
                )
            # The demo admin may also use Django's admin site.
            user_model.objects.filter(username="demo-admin").update(
                is_staff=True, is_superuser=True
            )
            if not project.documents.exists():
                summary = documents_import(project=project, path=CORPUS, fmt="jsonl")
                self.stdout.write(
                    f"Imported {summary.documents} demo documents with {summary.spans} spans."
                )
        credentials_path.parent.mkdir(parents=True, exist_ok=True)
        credentials_path.write_text(json.dumps(credentials, indent=2))
        credentials_path.chmod(0o600)
        self.stdout.write(f"Demo project {SLUG!r} is ready. Users (saved in {credentials_path}):")
        for username, role, languages in USERS:
            password = "(hidden)" if options["quiet_passwords"] else credentials[username]
            scope = f" ({', '.join(languages)})" if languages else ""
            self.stdout.write(f"  {role:<9} {username:<18} password: {password}{scope}")
