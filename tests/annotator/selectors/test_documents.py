"""The document list that the page and the API both read."""

from __future__ import annotations

import pytest

from annotator import selectors
from annotator.models import DocumentStatus
from tests.conftest import Team
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db


def test_it_lists_what_the_user_may_open_in_id_order_with_span_counts(team: Team) -> None:
    english = DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
    french = DocumentFactory(project=team.project, language="fr")
    DocumentFactory(language="en")  # another project
    SpanFactory.create_batch(2, document=english)

    rows = list(selectors.document_list(team.lead, team.project))
    assert [(row.pk, row.span_count) for row in rows] == [(english.pk, 2), (french.pk, 0)]
    assert rows[0].assignee == team.annotator_en
    mine = selectors.document_list(team.annotator_fr, team.project)
    assert [row.pk for row in mine] == [french.pk]
    assert not selectors.document_list(team.outsider, team.project).exists()


def test_it_filters_by_language_status_and_part_of_the_external_id(team: Team) -> None:
    DocumentFactory(project=team.project, language="en", external_id="Tweet-1")
    done = DocumentFactory(
        project=team.project, language="en", external_id="tweet-2", status=DocumentStatus.DONE
    )
    DocumentFactory(project=team.project, language="fr", external_id="post-3")

    def ids(**filters: str) -> list[str]:
        documents = selectors.document_list(team.lead, team.project, **filters)
        return [row.external_id for row in documents]

    assert ids(language="en") == ["Tweet-1", "tweet-2"]
    assert ids(status=DocumentStatus.DONE) == [done.external_id]
    assert ids(q="tweet", language="en", status=DocumentStatus.NEW) == ["Tweet-1"]
    assert ids(language=None, status=None, q=None) == ["Tweet-1", "tweet-2", "post-3"]
