"""Fail the jobs whose worker stopped, and the queued ones no worker took, and delete the
uploads no job needs (beat does it too)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from annotator.services.jobs import jobs_reap


class Command(BaseCommand):
    help = (
        "Fail running imports, runs, releases and trainings whose worker stopped reporting, "
        "queue the unfinished batches of such runs again (resume them with preannotate "
        "--resume), send again the work of queued jobs that no worker took while the workers "
        "were idle (its message lost from the broker) and fail those it was sent again for in "
        "vain, and delete uploads that no queued or running import needs."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than",
            type=int,
            default=settings.CLOAK_JOB_STALE_AFTER,
            metavar="SECONDS",
            help="a running job silent this long is taken for dead, and workers with no job "
            "this long for idle (default: CLOAK_JOB_STALE_AFTER, %(default)s)",
        )
        parser.add_argument(
            "--queued-older-than",
            type=int,
            default=settings.CLOAK_JOB_QUEUED_TIMEOUT,
            metavar="SECONDS",
            help="a job queued this long that no worker took, while the workers are idle, "
            "is sent again, and failed when as long passes again "
            "(default: CLOAK_JOB_QUEUED_TIMEOUT, %(default)s)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        counts = jobs_reap(
            older_than=timedelta(seconds=options["older_than"]),
            queued_older_than=timedelta(seconds=options["queued_older_than"]),
        )
        self.stdout.write(", ".join(f"{name.replace('_', ' ')}: {n}" for name, n in counts.items()))
