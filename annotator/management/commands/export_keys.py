"""`manage.py export_keys SLUG --out PATH`: a project's correspondence table as an encrypted
key file (`pseudonymizer.keyfile`), for `python -m pseudonymizer pseudonymize --keys PATH`.

The passphrase comes from the environment variable `--passphrase-env` names, or is asked for
twice without echo; never from the command line, where `ps` and the shell's history keep it.
"""

from __future__ import annotations

import getpass
import os
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotator.errors import DomainError
from annotator.models import Project
from annotator.services.table import check_export_passphrase, keys_export


def read_passphrase(variable: str | None, *, confirm: bool) -> str:
    """The passphrase from `variable`, or typed (twice when `confirm`)."""
    if variable:
        passphrase = os.environ.get(variable, "")
        if not passphrase:
            raise CommandError(f"the environment variable {variable} is empty or unset")
        return passphrase
    try:
        passphrase = getpass.getpass("Passphrase: ")
        if confirm and getpass.getpass("Passphrase again: ") != passphrase:
            raise CommandError("the two passphrases differ")
    except EOFError:
        raise CommandError("no passphrase: give --passphrase-env VAR or type one") from None
    return passphrase


def project_named(slug: str) -> Project:
    project = Project.objects.filter(slug=slug).first()
    if project is None:
        raise CommandError(f"no project {slug!r}")
    return project


class Command(BaseCommand):
    help = "Export a project's correspondence table as an encrypted key file."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--out", required=True, help="the key file to write")
        parser.add_argument(
            "--passphrase-env",
            metavar="VAR",
            help="read the passphrase from this environment variable (default: ask for it)",
        )
        parser.add_argument(
            "--force", action="store_true", help="replace the file at --out if there is one"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        project = project_named(options["slug"])
        out = Path(options["out"])
        if out.exists() and not options["force"]:
            raise CommandError(f"{out} exists: give --force to replace it")
        passphrase = read_passphrase(options["passphrase_env"], confirm=True)
        try:
            check_export_passphrase(passphrase)
            data, count = keys_export(project=project, passphrase=passphrase)
        except DomainError as error:
            raise CommandError(str(error)) from None
        # Readable by its owner only, as the engine writes its own key files.
        try:
            descriptor = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
            os.chmod(out, 0o600)
        except OSError as error:
            raise CommandError(f"cannot write {out}: {error.strerror}") from None
        self.stdout.write(f"Exported {count} aliases of {project.slug} to {out}.")
