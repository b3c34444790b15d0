"""Proposals an earlier Cloak rejected as a side effect are rejected by nobody (issue 29).

Until then, a person's span over part of a proposal (adding "Ottoline" inside NER's "Ottoline
Postlethwaite", or accepting it, or accepting everything) rejected the proposal in the same
write, in that person's name: the release counted it as seen by a person, and published what
reached beyond the span ("… Postlethwaite"). Now such a proposal keeps what reaches beyond the
span, and one set aside is rejected by nobody (`decided_by` empty), which a release counts as
nobody's decision (`annotator.models.PERSONS_SPANS`).

This migration finds the rejections of the old way and gives them the new meaning: a machine
or imported proposal rejected by the same person, within `WINDOW` of their accepting a span
that overlaps it in the same document (one write: the old `_make_room` rejected it a moment
after, or before, the accepted span's own time). No person rejects a proposal and accepts an
overlapping one in the same second by hand; the page's "accept all" did it in one request,
which is the side effect itself. Once migrated, what such a proposal held beyond the accepted
span is a finding of the next release, named, for a person to decide.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import migrations
from django.db.models import Exists, OuterRef

WINDOW = timedelta(seconds=2)


def forget_side_effects(apps: Any, schema_editor: Any) -> None:
    Span = apps.get_model("annotator", "Span")
    database = schema_editor.connection.alias
    accepted = Span.objects.using(database).filter(
        document_id=OuterRef("document_id"),
        status="accepted",
        decided_by_id=OuterRef("decided_by_id"),
        start__lt=OuterRef("end"),
        end__gt=OuterRef("start"),
        decided_at__gte=OuterRef("decided_at") - WINDOW,
        decided_at__lte=OuterRef("decided_at") + WINDOW,
    )
    (
        Span.objects.using(database)
        .filter(status="rejected", decided_by__isnull=False, decided_at__isnull=False)
        .exclude(source="human")
        .filter(Exists(accepted))
        .update(decided_by=None)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0018_job_resent_at"),
    ]

    operations = [
        migrations.RunPython(forget_side_effects, migrations.RunPython.noop, elidable=True),
    ]
