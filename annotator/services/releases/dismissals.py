"""The detection check's dismissals: a finding of a refused release that a lead or admin
judged harmless, audited, and not counted by the next release while the document stays
as it was checked.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from annotator.audit import audit_record
from annotator.errors import ConflictError, DomainError, NotFoundError
from annotator.models import (
    AuditAction,
    Document,
    HitDismissal,
    JobStatus,
    Release,
    ReleaseLeak,
    Span,
)
from annotator.permissions import acting_user
from pseudonymizer.release import LEAK, DecidedSpan, Finding, document_fingerprint

REASON_MAX = 2000


def release_hit_dismiss(
    *,
    release: Release,
    document_id: int,
    start: int,
    end: int,
    detector: str,
    reason: str,
    actor: Any,
    ip_address: str | None = None,
) -> HitDismissal:
    """Judge a finding of a refused release harmless: what `detector` found at `start`:`end`
    of a document (or a pattern left in its rendering). The next release does not count it
    while the document's text and the decisions over that stretch stay as they were when it
    was checked (a change elsewhere in the document keeps it), and lists it in its manifest;
    the dismissal is audited.

    DomainError without a reason, for a release that is not refused, or for an original of
    the table (fix the document instead); NotFoundError for a finding the release did not
    list; ConflictError when it is dismissed already.
    """
    reason = _reason_checked(reason)
    _check_refused(release)
    row, finding = _finding_listed(release, document_id, start, end, detector)
    _check_dismissible(finding)
    document = Document.objects.filter(pk=document_id, project=release.project).first()
    if document is None:
        raise NotFoundError(f"document {document_id} is gone")
    return _dismissal_write(
        release=release,
        document=document,
        document_id=document_id,
        checked=row.fingerprint,
        start=start,
        end=end,
        detector=detector,
        label=str(finding.get("label") or ""),
        reason=reason,
        user=acting_user(actor),
        ip_address=ip_address,
    )


def _reason_checked(reason: str) -> str:
    """`reason` stripped; DomainError when it is empty or longer than `REASON_MAX`."""
    reason = str(reason or "").strip()
    if not reason:
        raise DomainError("say why this is harmless: a dismissal needs a reason")
    if len(reason) > REASON_MAX:
        raise DomainError(f"the reason is too long: {REASON_MAX} characters at most")
    return reason


def _check_refused(release: Release) -> None:
    """DomainError unless `release` was refused: only its findings can be dismissed."""
    if release.status != JobStatus.REFUSED:
        raise DomainError(
            f"release {release.version} is {release.status}: only a refused release's "
            "findings can be dismissed"
        )


def _finding_listed(
    release: Release, document_id: int, start: int, end: int, detector: str
) -> tuple[ReleaseLeak, dict[str, Any]]:
    """The release's report row for the document, and the finding of `detector` at
    `start`:`end` in it; NotFoundError when the release listed neither."""
    row = ReleaseLeak.objects.filter(release=release, document_id=document_id).first()
    if row is None:
        raise NotFoundError(f"document {document_id} is not in the report of this release")
    finding = next(
        (
            entry
            for entry in row.findings
            if (entry.get("document_start"), entry.get("document_end"), entry.get("source"))
            == (start, end, detector)
        ),
        None,
    )
    if finding is None:
        raise NotFoundError(
            f"release {release.version} lists nothing found by {detector!r} at "
            f"[{start}, {end}) of document {document_id}"
        )
    return row, finding


def _check_dismissible(finding: dict[str, Any]) -> None:
    """DomainError for an original of the table left in the output: a leak to fix, never a
    judgement to dismiss."""
    if not Finding(**_finding_fields(finding)).dismissible:
        raise DomainError(
            "an original of the correspondence table left in the output is a leak, not a "
            "judgement: fix the document (pseudonymize the surface there), then cut again"
        )


def _dismissal_write(
    *,
    release: Release,
    document: Document,
    document_id: int,
    checked: str,
    start: int,
    end: int,
    detector: str,
    label: str,
    reason: str,
    user: Any,
    ip_address: str | None,
) -> HitDismissal:
    """The dismissal and its audit row, in one transaction; the dismissal holds to the
    document as the release checked it (`checked`, its fingerprint then: `_held_to`).
    ConflictError when the finding is dismissed already."""
    try:
        with transaction.atomic():
            dismissal = HitDismissal.objects.create(
                project=release.project,
                document=document,
                start=start,
                end=end,
                detector=detector,
                label=label,
                fingerprint=_held_to(document, checked, start, end),
                reason=reason,
                release=release,
                dismissed_by=user,
            )
            audit_record(
                action=AuditAction.HIT_DISMISS,
                actor=user,
                project=release.project,
                target=f"document:{document_id}",
                # Where and what found it, never the text there nor the reason (a person
                # may quote the name in it): the reason stays with the dismissal.
                detail={
                    "release": release.version,
                    "document_id": document_id,
                    "start": start,
                    "end": end,
                    "detector": detector,
                    "label": dismissal.label,
                    "dismissal": dismissal.pk,
                },
                ip_address=ip_address,
            )
    except IntegrityError:
        raise ConflictError(
            "this finding is dismissed already for the document as it was checked"
        ) from None
    return dismissal


def _held_to(document: Document, checked: str, start: int, end: int) -> str:
    """What a dismissal of [start, end) holds to: the text and the spans over that stretch
    (`document_fingerprint`), as they were when the release checked the document. When the
    document changed since (`checked`, its whole fingerprint then, no longer matches), the
    stretch as it was is unknown: the dismissal holds to the document as checked, and counts
    only if it goes back to that."""
    spans = [
        DecidedSpan(span.start, span.end, span.label, span.status, span.decision)
        for span in Span.objects.filter(document=document).only(
            "start", "end", "label", "status", "decision"
        )
    ]
    if document_fingerprint(document.text, spans) != checked:
        return checked
    return document_fingerprint(document.text, spans, (start, end))


def _finding_fields(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": str(entry.get("kind") or LEAK),
        "document_start": int(entry.get("document_start") or 0),
        "document_end": int(entry.get("document_end") or 0),
        "label": str(entry.get("label") or ""),
        "source": str(entry.get("source") or ""),
    }
