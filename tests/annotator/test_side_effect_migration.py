"""Migration 0019: the proposals an earlier Cloak rejected as a side effect of a person's span
become rejected by nobody, so that a release names what they held beyond that span."""

from __future__ import annotations

from datetime import timedelta
from importlib import import_module
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.utils import timezone

from annotator.models import Span, SpanSource, SpanStatus
from tests.factories import DocumentFactory, SpanFactory, UserFactory

migration = import_module("annotator.migrations.0019_side_effect_rejections")
TEXT = "Yesterday the gardener met Ottoline Postlethwaite at the station."


def run() -> None:
    with connection.schema_editor() as editor:
        migration.forget_side_effects(apps, editor)


@pytest.mark.django_db
def test_a_rejection_made_with_an_overlapping_acceptance_is_nobodys(db: Any) -> None:
    person, other = UserFactory(), UserFactory()
    document = DocumentFactory(text=TEXT)
    start = TEXT.index("Ottoline")
    now = timezone.now()

    def span(s: int, e: int, status: str, by: Any, at: Any, source: str = SpanSource.NER) -> Span:
        return SpanFactory(document=document, start=s, end=e, status=status, source=source,
                           decided_by=by, decided_at=at)  # fmt: skip

    span(start, start + 8, SpanStatus.ACCEPTED, person, now, SpanSource.HUMAN)  # "Ottoline"
    wider = span(start, start + 22, SpanStatus.REJECTED, person, now + timedelta(milliseconds=3))
    chosen = span(0, 9, SpanStatus.REJECTED, person, now - timedelta(hours=1))  # by hand
    theirs = span(start, start + 22, SpanStatus.REJECTED, other, now)  # another person's
    far = span(50, 52, SpanStatus.REJECTED, person, now)  # "at": no overlap

    run()

    by = dict(Span.objects.filter(document=document).values_list("pk", "decided_by_id"))
    assert by[wider.pk] is None
    assert by[chosen.pk] == person.pk and by[far.pk] == person.pk
    assert by[theirs.pk] == other.pk
    run()  # twice changes nothing more
    assert Span.objects.filter(document=document, decided_by__isnull=True).count() == 1
