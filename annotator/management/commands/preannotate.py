from __future__ import annotations

import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from annotator.errors import DomainError
from annotator.models import JobStatus, PreannotationRun, Project
from annotator.services.runs import ACTIVE, run_create, run_execute, run_resume
from pseudonymizer.vocabulary import DEFAULT_PROFILE, PROFILES

POLL_S = 0.5
# A run still queued after this long has probably no worker to go to: say so, once.
NO_WORKER_HINT_S = 15.0


class Command(BaseCommand):
    help = (
        "Pre-annotate a project's documents: regular expressions, known entities and NER, "
        "run by the workers (or here, with --here). Never touches a span a person decided."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--language", default=None, help="only the documents of this language")
        parser.add_argument("--profile", default=DEFAULT_PROFILE, choices=PROFILES)
        parser.add_argument(
            "--no-ner", action="store_true", help="regular expressions and known entities only"
        )
        parser.add_argument(
            "--resume", type=int, default=None, metavar="RUN_ID",
            help="send again the batches of this run that are not done",
        )  # fmt: skip
        parser.add_argument(
            "--wait", action="store_true", help="follow the run to its end; fail if it fails"
        )
        parser.add_argument(
            "--here", action="store_true",
            help="run the batches in this process instead of sending them to workers",
        )  # fmt: skip
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(slug=options["slug"]).first()
        if project is None:
            raise CommandError(f"no project {options['slug']!r}")
        dispatch = not options["here"]
        try:
            if options["resume"] is not None:
                run = PreannotationRun.objects.filter(project=project, pk=options["resume"]).first()
                if run is None:
                    raise CommandError(f"no run {options['resume']} in project {project.slug}")
                run = run_resume(run=run, dispatch=dispatch)
                verb = "Resumed"
            else:
                run = run_create(
                    project=project,
                    actor=None,
                    language=options["language"],
                    profile=options["profile"],
                    use_ner=not options["no_ner"],
                    dispatch=dispatch,
                )
                verb = "Started"
        except DomainError as error:
            raise CommandError(str(error)) from None
        models = ", ".join(f"{lang}: {spec or 'none'}" for lang, spec in run.models_used.items())
        self.stdout.write(
            f"{verb} run {run.pk} of {project.slug}: {run.documents_total} documents, "
            f"profile {run.profile}, NER models {models or 'none'}."
        )
        if not (options["wait"] or options["here"]):
            self.stdout.write(
                f"Follow it with `python manage.py preannotate {project.slug} --resume {run.pk} "
                "--wait`, or on its page."
            )
            return
        bar = tqdm(
            total=run.documents_total,
            initial=run.documents_done,
            unit=" docs",
            desc=f"run {run.pk}",
            disable=options["no_progress"] or None,  # None: only on a terminal
            file=self.stderr._out,
        )

        def progress(current: PreannotationRun) -> None:
            bar.update(current.documents_done - bar.n)
            bar.set_postfix(spans=current.spans_created)

        try:
            if options["here"]:
                run = run_execute(run=run, progress=progress)
            run = self._follow(run, progress)
        finally:
            bar.close()
        self._report(run)

    def _follow(self, run: PreannotationRun, progress: Any) -> PreannotationRun:
        waited = 0.0
        hinted = False
        while True:
            run.refresh_from_db()
            progress(run)
            if run.status not in ACTIVE:
                return run
            if run.status == JobStatus.QUEUED and waited > NO_WORKER_HINT_S and not hinted:
                hinted = True
                self.stderr.write(
                    "The run waits for a worker: is one running "
                    "(`celery -A annotator worker -Q default,ner`)? Or use --here."
                )
            time.sleep(POLL_S)
            waited += POLL_S

    def _report(self, run: PreannotationRun) -> None:
        for warning in run.warnings:
            where = f"{warning.get('recognizer', '')} ({warning.get('language', '')})"
            self.stderr.write(f"warning: {where}: {warning.get('reason', '')}")
        summary = (
            f"Run {run.pk} {run.get_status_display().lower()}: {run.documents_done} of "
            f"{run.documents_total} documents, {run.spans_created} spans proposed."
        )
        if run.status != JobStatus.DONE:
            reason = f" {run.error}" if run.error else ""
            raise CommandError(f"{summary}{reason}")
        self.stdout.write(summary)
