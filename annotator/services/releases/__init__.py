"""Releases: an immutable, numbered rendering of a project's finished documents in which no
identifier leaves unless a person decided on it.

`release_create` validates, numbers and queues a release; its documents' names are then found
on the `ner` queue, and `release_build` (the `release_build` task, or `manage.py release` in
process) renders and checks it. The work is the engine's release pipeline
(`pseudonymizer.release`); this module streams documents into it from the database and writes
the files, the manifest and the report.

- Documents: the project's original documents (never a replica) of the release's language
  (or all), in id order, streamed a chunk at a time, so memory stays flat whatever the corpus
  size. Released: documents marked done or reviewed (`RELEASED_STATUSES`). Left out, each with
  its reason in the manifest: any other status, a document with proposals no one decided, one
  that cannot be rendered, and one whose names the `ner` queue did not look for (finished after
  the release was cut, or its text changed since).
- NER: the model of each language (`Release.ner_models`, recorded when the release is cut)
  never runs in the default queue's process. `release_create` cuts the finished documents of
  the languages that have one into batches (`ReleaseBatch`, CLOAK_RUN_BATCH_SIZE documents),
  which the `ner` queue's workers claim and run (`release_batch_ner`), storing offsets and
  labels (`ReleaseNerHits`); the last batch to finish sends the build to the default queue.
  A release waits for them queued; a batch whose worker died fails the release (the reaper).
  `manage.py release` runs the model in its own process instead (`ner_here`).
- The check, before anything is published: the rendered text holds no original of an entity
  that is not kept (`release_aliases`) and no pattern hit outside the rendered spans; and every
  detector of the project (the `recall` profile's patterns and lexicons, the known entities of
  the table, the newest ready learned model, NER), run over each document as stored, finds
  nothing that a person did not decide on (a span accepted or rejected there). A hit a lead or
  admin judged harmless is dismissed (`release_hit_dismiss`, audited) and listed in the next
  manifest. Anything else refuses the release: the data file is deleted, and every leaking
  document gets a row (`ReleaseLeak`: counts and its first findings, by offset, never text).
- Files: `MEDIA_ROOT/releases/<slug>/<version>/`, the data written to a part file that only
  the worker's user may read (0600: until the checks pass it may hold originals), renamed to
  the data file with the usual mode (0666 less the umask) once they passed, and deleted at
  once otherwise, refused, failed or interrupted (the reaper deletes those of a worker killed
  outright); `manifest.json` beside it. A finished release is never rewritten; building it
  again does nothing.

Where each part lives: `create` numbers a release and queues it (and audits what becomes of
it); `ner` is the `ner` queue's batches; `build` the pass through the engine's pipeline and
its outcome; `manifest` what the manifest says; `files` where the files are, their names and
writers; `dismissals` a hit judged harmless. This package registers the release's kinds of
job (`annotator.apps` imports it).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from django.db.models import Max

from annotator.models import JobStatus, Release, ReleaseBatch
from annotator.services.jobs import Counts, JobKind, job_fail, job_kind_register
from annotator.services.releases.create import release_resend
from annotator.services.releases.files import release_discard_partial
from annotator.services.releases.ner import release_batch_fail

logger = logging.getLogger(__name__)

RELEASE_REAPED = "The worker stopped while writing this release; nothing was released."
# A release's NER batch whose worker died: the release fails with it (its error says so).
RELEASE_NER_REAPED = "its worker on the ner queue stopped"


def _release_reap(release: Release) -> Counts:
    if not job_fail(Release, release.pk, RELEASE_REAPED):
        return {}
    release_discard_partial(release)
    return {"releases_failed": 1}


def _release_batch_reap(batch: ReleaseBatch) -> Counts:
    """Fail a NER batch whose worker died, and its release (nothing is released without its
    names looked for); the release counts when it failed here."""
    if not release_batch_fail(
        batch_id=batch.pk, reason=RELEASE_NER_REAPED, claimed_at=batch.started_at
    ):
        return {}
    logger.warning("release batch %s reaped: its worker stopped", batch.pk)
    failed = Release.objects.filter(pk=batch.release_id, status=JobStatus.FAILED).exists()
    return {"releases_failed": int(failed)}


def _release_batches_seen(release: Release) -> Iterable[datetime | None]:
    # A release waits queued while the `ner` queue finds its documents' names.
    batches = ReleaseBatch.objects.filter(release=release)
    return batches.aggregate(started=Max("started_at"), finished=Max("finished_at")).values()


RELEASES = job_kind_register(
    JobKind(
        model=Release,
        task="release_build",
        counters=("releases_failed",),
        unit="documents",
        start_again="Nothing was released: cut the release again.",
        reap=_release_reap,
        signs_of_life=_release_batches_seen,
        resend=release_resend,
    )
)
RELEASE_BATCHES = job_kind_register(
    JobKind(
        model=ReleaseBatch,
        task="release_ner",
        reap=_release_batch_reap,
        waiting=None,
        fail=lambda batch_id, reason, claimed_at: release_batch_fail(
            batch_id=batch_id, reason=reason, claimed_at=claimed_at
        ),
    )
)
