"""The rules about who acts and who may open what, each in its one home
(`annotator.permissions`, `Document.is_blind`), as every role meets them."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import Http404

from annotator.models import Document, Span
from annotator.permissions import acting_user, acting_user_id, document_or_404
from tests.conftest import Team
from tests.factories import DocumentFactory, SpanFactory, UserFactory

pytestmark = pytest.mark.django_db

# Who opens the English document of the team's project (`tests.conftest.team`).
OPENS_ENGLISH = {"admin": True, "lead": True, "annotator_en": True, "annotator_fr": False,
                 "outsider": False}  # fmt: skip


def test_the_person_who_acts_is_a_signed_in_user_or_no_one(team: Team) -> None:
    assert acting_user(team.lead) == team.lead
    assert acting_user_id(team.lead) == team.lead.pk
    for nobody in (None, AnonymousUser()):
        assert acting_user(nobody) is None
        assert acting_user_id(nobody) is None


@pytest.mark.parametrize(("role", "opens"), OPENS_ENGLISH.items())
def test_a_document_opens_for_whoever_may_see_it_and_is_404_for_the_rest(
    team: Team, role: str, opens: bool
) -> None:
    user = team.by_role()[role]
    document = DocumentFactory(project=team.project, language="en")
    if opens:
        found = document_or_404(user, team.project, document.pk)
        assert found == document and found.project == team.project
    else:
        with pytest.raises(Http404):
            document_or_404(user, team.project, document.pk)


@pytest.mark.parametrize("role", OPENS_ENGLISH)
def test_a_document_of_another_project_or_none_at_all_is_404_for_everyone(
    team: Team, role: str
) -> None:
    user = team.by_role()[role]
    elsewhere = DocumentFactory(language="en")
    for pk in (elsewhere.pk, elsewhere.pk + 1000):
        with pytest.raises(Http404):
            document_or_404(user, team.project, pk)


def test_a_document_is_read_from_the_queryset_given(team: Team) -> None:
    document = DocumentFactory(project=team.project, language="en")
    documents = Document.objects.defer("search_text")
    found = document_or_404(team.annotator_en, team.project, document.pk, documents)
    assert "search_text" in found.get_deferred_fields()


@pytest.mark.parametrize("role", ["lead", "admin", "annotator_en", "second"])
def test_a_replica_is_blind_and_opens_only_for_its_annotator_and_those_who_see_all(
    team: Team, role: str
) -> None:
    second = UserFactory()
    team.project.memberships.create(user=second, role="annotator", languages=["en"])
    original = DocumentFactory(project=team.project, assignee=team.annotator_en)
    replica = DocumentFactory(
        project=team.project, text=original.text, replica_of=original, assignee=second
    )
    user: Any = second if role == "second" else team.by_role()[role]
    assert replica.is_blind and not original.is_blind
    opens = {"lead": (True, True), "admin": (True, True), "annotator_en": (True, False),
             "second": (False, True)}[role]  # fmt: skip
    for document, may in zip((original, replica), opens, strict=True):
        if may:
            assert document_or_404(user, team.project, document.pk) == document
        else:
            with pytest.raises(Http404):
                document_or_404(user, team.project, document.pk)


def test_the_spans_of_the_corpus_leave_out_every_replica(team: Team) -> None:
    original = DocumentFactory(project=team.project)
    replica = DocumentFactory(project=team.project, text=original.text, replica_of=original)
    mine = SpanFactory(document=original)
    SpanFactory(document=replica)
    assert list(Span.objects.on_originals()) == [mine]
    assert list(Document.objects.filter(project=team.project).originals()) == [original]
