from __future__ import annotations

import shutil
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from annotator.errors import DomainError
from annotator.models import JobStatus, Project, ReleaseFormat
from annotator.selectors.release_pages import release_leak_rows
from annotator.services.releases.build import release_build
from annotator.services.releases.create import release_create
from annotator.services.releases.files import release_data_path
from pseudonymizer.strategies import Strategy


class Command(BaseCommand):
    help = (
        "Cut a release of a project's finished documents under a substitution strategy, here "
        "in this process (NER included): render, check for leaks and for what detection finds "
        "that no person decided on, publish. Exits non-zero when the release is refused (each "
        "finding is listed by document and offset, never its text) or fails."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--strategy", required=True, choices=[s.value for s in Strategy])
        parser.add_argument("--format", required=True, choices=ReleaseFormat.values)
        parser.add_argument("--language", default="", help="only the documents of this language")
        parser.add_argument("--out", default=None, help="copy the data file here as well")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(slug=options["slug"]).first()
        if project is None:
            raise CommandError(f"no project {options['slug']!r}")
        try:
            release = release_create(
                project=project,
                strategy=options["strategy"],
                format=options["format"],
                language=options["language"],
                dispatch=False,
            )
        except DomainError as error:
            raise CommandError(str(error)) from None
        bar = tqdm(
            unit=" docs",
            desc=f"release {release.version}",
            disable=options["no_progress"] or None,  # None: only on a terminal
            file=self.stderr._out,
        )

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        try:
            # In this process, NER included (as `preannotate --here`): no worker, no queue.
            release = release_build(release.pk, progress=progress, ner_here=True)
        finally:
            bar.close()
        if release.status == JobStatus.REFUSED:
            for row in release_leak_rows(release).iterator(chunk_size=500):
                for finding in row.findings:
                    self.stderr.write(
                        f"{finding['kind']}: document {row.document_id} ({row.external_id}) "
                        f"[{finding['document_start']}, {finding['document_end']}) "
                        f"{finding['label']} ({finding['source']})"
                    )
                more = row.leaks + row.hits - len(row.findings)
                if more > 0:
                    self.stderr.write(f"… and {more} more in document {row.document_id}")
            raise CommandError(
                f"release {release.version} of {project.slug} refused: {release.error}"
            )
        if release.status != JobStatus.DONE:
            raise CommandError(
                f"release {release.version} of {project.slug} {release.status}: {release.error}"
            )
        data = release_data_path(release)
        counts = release.manifest.get("counts", {})
        self.stdout.write(
            f"Release {release.version} of {project.slug}: {counts.get('documents_released', 0)} "
            f"document(s) released, {counts.get('documents_left_out', 0)} left out "
            f"(see the manifest); {data} (sha256 {release.sha256})."
        )
        if options["out"]:
            out = Path(options["out"])
            try:
                shutil.copyfile(data, out)
            except OSError as error:
                raise CommandError(f"could not copy the release to {out}: {error}") from None
            self.stdout.write(f"Copied to {out}.")
