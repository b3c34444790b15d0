"""Fail the jobs whose worker stopped and delete the uploads no job needs (beat does it too)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from annotator.services.jobs import jobs_reap


class Command(BaseCommand):
    help = (
        "Fail running imports, runs and releases whose worker stopped reporting, queue the "
        "unfinished batches of such runs again (resume them with preannotate --resume), and "
        "delete uploads that no queued or running import needs."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than",
            type=int,
            default=settings.CLOAK_JOB_STALE_AFTER,
            metavar="SECONDS",
            help="a running job silent this long is taken for dead "
            "(default: CLOAK_JOB_STALE_AFTER, %(default)s)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        counts = jobs_reap(older_than=timedelta(seconds=options["older_than"]))
        self.stdout.write(", ".join(f"{name.replace('_', ' ')}: {n}" for name, n in counts.items()))
