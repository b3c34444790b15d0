"""A release's names on the `ner` queue: the detector a release runs, a batch's claim, its
model over the batch's documents, the hits stored (offsets and labels, never text), and
a failed batch failing its release.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q

from annotator.models import (
    Document,
    JobStatus,
    Release,
    ReleaseBatch,
    ReleaseNerHits,
)
from annotator.services.jobs import job_claim, job_dispatch, job_fail, job_finish
from annotator.services.releases.create import release_outcome_audit
from annotator.services.releases.files import release_discard_partial
from pseudonymizer.detection import Detector, NerSpecError
from pseudonymizer.vocabulary import DEFAULT_PROFILE

# The detection a release runs over the stored documents: the widest profile, whatever the
# runs used, so that what a narrower run never proposed is found before it leaves.
RELEASE_PROFILE = DEFAULT_PROFILE


def ner_detector(ner_models: dict[str, str]) -> Detector:
    return Detector(
        profile=RELEASE_PROFILE,
        ner_models=ner_models,
        device=settings.CLOAK_NER_DEVICE,
        batch_size=settings.CLOAK_NER_BATCH_SIZE,
    )


def _of_queued_release() -> Q:
    # A subquery, not `release__status`: the claim's update must stay on the batch's own table
    # (annotator.services.jobs.job_claim).
    return Q(release_id__in=Release.objects.filter(status=JobStatus.QUEUED).values("pk"))


def text_digest(text: str) -> str:
    """What a stored NER result holds to: the text the model read."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def release_batch_ner(*, batch_id: int, retried: bool = False) -> bool:
    """The `ner` queue's work for a release: claim a batch, run its language's model over its
    documents, store what it found (offsets and labels, never text), and let the last batch
    send the build. False when the batch is not this worker's to do (done, another's, or its
    release ended: no GPU time is spent on it). A model that cannot run fails the release."""
    stale_after = timedelta(0) if retried else timedelta(seconds=settings.CLOAK_JOB_STALE_AFTER)
    if not job_claim(ReleaseBatch, batch_id, stale_after=stale_after, where=_of_queued_release()):
        return False
    ReleaseBatch.objects.filter(pk=batch_id).update(attempts=F("attempts") + 1)
    batch = ReleaseBatch.objects.select_related("release__project").filter(pk=batch_id).first()
    if batch is None or batch.started_at is None:
        return False
    release, claimed_at = batch.release, batch.started_at
    rows = list(
        Document.objects.filter(pk__in=batch.document_ids, project_id=release.project_id)
        .order_by("pk")
        .values_list("pk", "text")
    )
    texts = [text for _, text in rows]
    try:
        detection = ner_detector(release.ner_models).ner(texts, batch.language)
        errors = dict(detection.errors)
    except NerSpecError as error:
        errors = {"ner": str(error)}
    if errors:
        reasons = "; ".join(f"{name}: {why}" for name, why in sorted(errors.items()))
        release_batch_fail(
            batch_id=batch_id,
            claimed_at=claimed_at,
            reason=f"the NER model for {batch.language!r} could not run ({reasons})",
        )
        return False
    found = {
        pk: (text_digest(text), [[s.start, s.end, s.label] for s in spans])
        for (pk, text), spans in zip(rows, detection.spans, strict=True)
    }
    return _batch_store(batch_id, claimed_at, found)


@transaction.atomic
def _batch_store(
    batch_id: int, claimed_at: datetime, found: dict[int, tuple[str, list[list[Any]]]]
) -> bool:
    # The batch, then its release: the order in which the reaper locks them too.
    batch = ReleaseBatch.objects.select_for_update().filter(pk=batch_id).first()
    if batch is None or batch.status != JobStatus.RUNNING or batch.started_at != claimed_at:
        return False
    release = Release.objects.select_for_update().get(pk=batch.release_id)
    if release.status != JobStatus.QUEUED:
        # Failed meanwhile (another batch's model, the reaper): nothing of this one counts.
        job_fail(ReleaseBatch, batch_id, "its release ended", claimed_at=claimed_at)
        return False
    ReleaseNerHits.objects.filter(release=release, document_id__in=list(found)).delete()
    ReleaseNerHits.objects.bulk_create(
        ReleaseNerHits(release=release, document_id=pk, digest=digest, spans=spans)
        for pk, (digest, spans) in found.items()
    )
    job_finish(ReleaseBatch, batch_id, claimed_at=claimed_at)
    left = ReleaseBatch.objects.filter(release=release).exclude(status=JobStatus.DONE)
    if not left.exists():
        # The last batch to finish, under the release's lock: exactly one sends the build.
        job_dispatch(release)
    return True


def release_batch_fail(*, batch_id: int, reason: str, claimed_at: datetime | None = None) -> bool:
    """Fail a NER batch and its release (nothing is released without its names looked for):
    `reason` is shown to admins, never an original. False when the batch was not failable."""
    with transaction.atomic():
        batch = ReleaseBatch.objects.select_for_update().filter(pk=batch_id).first()
        if batch is None or not job_fail(ReleaseBatch, batch_id, reason, claimed_at=claimed_at):
            return False
        release = Release.objects.select_for_update().get(pk=batch.release_id)
        failed = job_fail(
            Release,
            release.pk,
            f"NER batch {batch.number} failed: {reason}. Nothing was released; cut the "
            "release again.",
            unclaimed=True,
        )
    if failed:
        release_discard_partial(release)
        release_outcome_audit(release, "failed", {"ner_batch": batch.number})
    return True
