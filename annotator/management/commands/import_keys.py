"""`manage.py import_keys SLUG PATH`: add a key file's aliases to a project's table, all or
nothing (see `annotator.services.table.keys_import`). The passphrase comes as for
`export_keys`."""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotator.errors import DomainError
from annotator.management.commands.export_keys import project_named, read_passphrase
from annotator.services.table import MAX_FILE_BYTES, ImportConflicts, keys_import


class Command(BaseCommand):
    help = "Import an encrypted key file into a project's correspondence table."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("path", help="the key file to read")
        parser.add_argument(
            "--passphrase-env",
            metavar="VAR",
            help="read the passphrase from this environment variable (default: ask for it)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        project = project_named(options["slug"])
        path = Path(options["path"])
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise CommandError(f"{path} is too large to be a key file")
            data = path.read_bytes()
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from None
        passphrase = read_passphrase(options["passphrase_env"], confirm=False)
        try:
            counts = keys_import(project=project, data=data, passphrase=passphrase)
        except ImportConflicts as error:
            for conflict in error.conflicts:
                self.stderr.write(
                    f"alias {conflict.row} (entity {conflict.entity}, {conflict.language}, "
                    f"{conflict.label}): {conflict.reason}"
                )
            raise CommandError(str(error)) from None
        except DomainError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"Imported into {project.slug}: {counts.added} aliases added, {counts.present} "
            f"already there, {counts.entities} new entities."
        )
