"""The quality selectors read and score; keeping their numbers in the cache is the service's
(`annotator.services.quality`): calling every selector leaves the cache as it was."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import caches

from annotator.models import DocumentStatus, SpanStatus
from annotator.selectors import quality
from annotator.services.quality import project_quality
from tests.factories import DocumentFactory, ProjectFactory, SpanFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def local_cache(settings: Any) -> dict[str, Any]:
    """A cache of the test's own (the settings change gives a fresh one), and what it holds."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": "quality-reads-only"}}  # fmt: skip
    held: dict[str, Any] = caches["default"]._cache  # type: ignore[attr-defined]
    held.clear()
    return held


def test_the_selectors_leave_the_cache_untouched(local_cache: dict[str, Any]) -> None:
    project = ProjectFactory(languages=["en"])
    original = DocumentFactory(project=project, status=DocumentStatus.DONE)
    replica = DocumentFactory(project=project, status=DocumentStatus.DONE, replica_of=original)
    for document in (original, replica):
        SpanFactory(document=document, status=SpanStatus.ACCEPTED)
    SpanFactory(document=original, status=SpanStatus.REJECTED, source="ner", start=0, end=8)

    blocks = quality.preannotation_blocks(project)
    counts = [quality.preannotation_counts(project, block) for block in blocks]
    pairs = quality.agreement_pairs(project)
    read = {
        "preannotation": quality.preannotation_of(counts),
        "agreement": quality.agreement_of(pairs),
        "state": quality.quality_state(project),
        "full": quality.preannotation_quality(project),
        "pairs": quality.agreement(project),
        "learned": quality.learned_proposals(project),
    }

    assert local_cache == {}
    assert read["preannotation"] == read["full"] and read["agreement"] == read["pairs"]
    assert read["agreement"].pairs == 1 and read["preannotation"].documents == 1
    # The service keeps them: the whole, its blocks and its pairs.
    assert project_quality(project).preannotation == read["full"]
    kept = sorted(key.partition("cloak:quality:")[2].split(":")[0] for key in local_cache)
    assert kept == ["agreement", "block", "v4"]
