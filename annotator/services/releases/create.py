"""Cutting a release: check what is asked, number it after the project's last one, cut its
documents into NER batches and queue them (or the build); and the audit of what becomes
of a release.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max

from annotator.audit import audit_record
from annotator.errors import ConflictError, DomainError
from annotator.models import (
    AuditAction,
    JobStatus,
    Project,
    Release,
    ReleaseBatch,
    ReleaseFormat,
)
from annotator.permissions import acting_user
from annotator.selectors.releases import ner_documents
from annotator.services.jobs import job_dispatch, task
from pseudonymizer.detection import Detector, uses_ner
from pseudonymizer.strategies import Strategy


def _check(project: Project, strategy: str, format: str, language: str) -> None:
    if strategy not in Strategy.__members__.values():
        raise DomainError(
            f"unknown strategy {strategy!r}; strategies are {', '.join(s.value for s in Strategy)}"
        )
    if format not in ReleaseFormat.values:
        raise DomainError(f"unknown format {format!r}; formats are {', '.join(ReleaseFormat)}")
    if language and language not in project.languages:
        raise DomainError(
            f"language {language!r} is not one of the project's "
            f"({', '.join(project.languages)}); leave it empty for all of them"
        )


def _ner_models(project: Project, language: str) -> dict[str, str]:
    """The NER model of each language the release covers, and of the languages that read
    their stretches in another script, as settings name them now."""
    detector = Detector(ner_models=settings.CLOAK_NER_MODELS)
    return detector.ner_specs([language] if language else project.languages)


def release_create(
    *,
    project: Project,
    strategy: str,
    format: str,
    language: str = "",
    actor: Any = None,
    ip_address: str | None = None,
    dispatch: bool = True,
) -> Release:
    """A new release of `project`, numbered after the last one, QUEUED. Once the transaction
    commits, the finished documents of the languages with a NER model go to the `ner` queue in
    batches, whose last one sends the build; without any, the build is sent at once.
    `dispatch=False` sends nothing: the caller runs `release_build(..., ner_here=True)`.

    DomainError, with nothing created, for an unknown strategy, format or language.
    """
    strategy = str(strategy or "")
    format = str(format or "")
    language = str(language or "")
    _check(project, strategy, format, language)
    user = acting_user(actor)
    ner_models = _ner_models(project, language)
    for attempt in range(3):
        try:
            with transaction.atomic():
                # One release numbered at a time per project; the unique constraint backs it.
                Project.objects.select_for_update().filter(pk=project.pk).exists()
                last = Release.objects.filter(project=project).aggregate(last=Max("version"))
                release = Release.objects.create(
                    project=project,
                    version=(last["last"] or 0) + 1,
                    strategy=strategy,
                    format=format,
                    language=language,
                    ner_models=ner_models,
                    created_by=user,
                )
                batches = _ner_batches(release) if dispatch else []
                audit_record(
                    action=AuditAction.RELEASE,
                    actor=user,
                    project=project,
                    target=f"release:{release.pk}",
                    detail={
                        "event": "requested",
                        "version": release.version,
                        "strategy": strategy,
                        "format": format,
                        "language": language or "all",
                        "ner_batches": len(batches),
                    },
                    ip_address=ip_address,
                )
                if dispatch:
                    job_dispatch(release, partial(_dispatch, release.pk, batches))
            return release
        except IntegrityError:
            if attempt == 2:
                raise ConflictError(
                    "another release was numbered at the same time: try again"
                ) from None
    raise AssertionError("unreachable")  # pragma: no cover


def _ner_batches(release: Release) -> list[int]:
    """Cut the finished documents of the languages with a NER model into batches; their ids."""
    languages = {code for code in release.ner_models if uses_ner(release.ner_models, code)}
    rows = ner_documents(release.project, release.language, languages)
    size = max(1, settings.CLOAK_RUN_BATCH_SIZE)
    batches: list[ReleaseBatch] = []
    for start in range(0, len(rows), size):
        chunk = rows[start : start + size]
        # Rows come by language, then id: a chunk that spans two languages is cut in two.
        for code in dict.fromkeys(code for code, _ in chunk):
            ids = [pk for lang, pk in chunk if lang == code]
            batches.append(
                ReleaseBatch(
                    release=release, number=len(batches) + 1, language=code, document_ids=ids
                )
            )
    return [batch.pk for batch in ReleaseBatch.objects.bulk_create(batches)]


def _dispatch(release_id: int, batches: Sequence[int]) -> None:
    """Send the NER batches to the `ner` queue, or the build at once when there are none. A
    broker error goes up to `job_dispatch`, which fails the release."""
    if not batches:
        task("release_build").delay(release_id)
        return
    for batch_id in batches:
        task("release_ner").delay(batch_id)


def release_resend(release: Release) -> Callable[[], None]:
    """What sends a queued release's work again, its messages lost from the broker: its NER
    batches still queued, or its build when none is left to do."""
    queued = ReleaseBatch.objects.filter(release=release, status=JobStatus.QUEUED)
    return partial(_dispatch, release.pk, sorted(queued.values_list("pk", flat=True)))


def release_outcome_audit(release: Release, event: str, detail: dict[str, Any]) -> None:
    audit_record(
        action=AuditAction.RELEASE,
        actor=release.created_by,
        project=release.project,
        target=f"release:{release.pk}",
        detail={"event": event, "version": release.version, **detail},
    )
