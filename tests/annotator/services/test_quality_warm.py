"""The quality page's numbers are computed in the background once documents are finished."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache

from annotator import tasks
from annotator.models import DocumentStatus, SpanStatus
from annotator.selectors import quality
from annotator.services.quality import project_quality, quality_warm, quality_warm_request
from annotator.services.spans import document_status_set
from tests.conftest import Team
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    cache.clear()


def test_finishing_documents_queues_one_computation_for_a_burst(
    team: Team, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    queued: list[tuple[Any, Any]] = []
    monkeypatch.setattr(
        tasks.quality_warm, "apply_async", lambda args, countdown: queued.append((args, countdown))
    )
    documents = DocumentFactory.create_batch(3, project=team.project, language="en")
    with django_capture_on_commit_callbacks(execute=True):
        for document in documents:
            document_status_set(document=document, actor=team.annotator_en,
                                status=DocumentStatus.DONE)  # fmt: skip
    assert queued == [([team.project.pk], 60)]
    # Reopening a document is no new gold: nothing queued.
    with django_capture_on_commit_callbacks(execute=True):
        document_status_set(document=documents[0], actor=team.annotator_en,
                            status=DocumentStatus.IN_PROGRESS)  # fmt: skip
    assert len(queued) == 1


def test_the_computation_fills_the_cache_the_page_reads(team: Team, monkeypatch: Any) -> None:
    calls: list[int] = []
    real = quality._measure

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(quality, "_measure", counted)
    document = DocumentFactory(project=team.project, language="en", status=DocumentStatus.DONE)
    SpanFactory(document=document, status=SpanStatus.ACCEPTED)
    assert quality_warm(team.project.pk) is True
    project_quality(team.project)  # what the page asks for first: already there
    assert calls == [1]
    assert quality_warm(10**9) is False  # a project deleted meanwhile


def test_a_request_while_one_waits_queues_nothing(team: Team) -> None:
    assert quality_warm_request(team.project) is True
    assert quality_warm_request(team.project) is False
