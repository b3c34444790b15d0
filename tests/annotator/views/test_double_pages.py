"""The double annotation pages: an admin gives a sample to a second annotator and follows the
pairs; the second annotator works on the replica in the normal workspace, blind to the
first annotator's choices."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from annotator.models import AuditAction, AuditEvent, Document, Role, Span, SpanSource
from annotator.services.double_annotation import double_assign
from annotator.services.spans import SpanChange, span_update
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, MembershipFactory, SpanFactory

pytestmark = pytest.mark.django_db

TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."


@pytest.fixture
def second(team: Team) -> Any:
    return MembershipFactory(project=team.project, role=Role.ANNOTATOR, languages=["en"]).user


@pytest.fixture
def decided(team: Team) -> Document:
    """An English document whose first annotator chose "Raj Avrom" for "Moshe Chaya"."""
    document = DocumentFactory(
        project=team.project, language="en", text=TEXT, external_id="post-7",
        assignee=team.annotator_en,
    )  # fmt: skip
    span = SpanFactory(document=document, start=12, end=23, label="PER", source=SpanSource.NER,
                       proposed_start=12, proposed_end=23, proposed_label="PER")  # fmt: skip
    span_update(document=document, span_id=span.pk, actor=team.annotator_en, version=1,
                change=SpanChange(replacement="Raj Avrom"))  # fmt: skip
    return document


def replica_of(team: Team, second: Any) -> Document:
    outcome = double_assign(
        project=team.project, language="en", percentage=100, annotator=second, actor=team.admin
    )
    return Document.objects.get(pk=outcome.pairs[0][1])


def test_an_admin_assigns_a_sample_from_the_form(team: Team, second: Any) -> None:
    for n in range(4):
        DocumentFactory(project=team.project, language="en", external_id=f"d{n}",
                        assignee=team.annotator_en)  # fmt: skip
    url = reverse("double_assign", args=[team.project.slug])
    admin = client_for(team.admin)
    page = admin.get(url).content.decode()
    assert 'name="percentage"' in page and second.username in page

    response = admin.post(url, {"language": "en", "percentage": "50", "annotator": second.username},
                          follow=True)  # fmt: skip
    assert response.redirect_chain[-1][0] == reverse("double_list", args=[team.project.slug])
    page = response.content.decode()
    assert "2 documents in English (en) given to" in page
    replicas = list(Document.objects.replicas().select_related("replica_of"))
    assert len(replicas) == 2 and all(r.assignee == second for r in replicas)
    for replica in replicas:  # the list shows both halves of each pair and both annotators
        assert replica.external_id in page and replica.replica_of.external_id in page
    assert team.annotator_en.username in page and second.username in page
    assert AuditEvent.objects.filter(action=AuditAction.DOUBLE_ASSIGN, actor=team.admin).exists()


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"language": "en", "percentage": "0", "annotator": "?"}, "greater than or equal"),
        ({"language": "en", "percentage": "150", "annotator": "?"}, "less than or equal"),
        ({"language": "de", "percentage": "10", "annotator": "?"}, "not one of the available"),
        ({"language": "fr", "percentage": "10", "annotator": "?"}, "does not work on fr"),
        ({"language": "en", "percentage": "10", "annotator": "?"}, "no document in en is left"),
    ],
)
def test_a_refused_form_says_why_and_assigns_nothing(
    team: Team, second: Any, data: dict[str, str], says: str
) -> None:
    DocumentFactory(project=team.project, language="en", assignee=second)
    data = {**data, "annotator": second.username}
    response = client_for(team.admin).post(reverse("double_assign", args=[team.project.slug]), data)
    assert response.status_code == 400
    assert says in response.content.decode()
    assert not Document.objects.replicas().exists()


def test_the_list_filters_by_language(team: Team, second: Any, decided: Document) -> None:
    replica = replica_of(team, second)
    url = reverse("double_list", args=[team.project.slug])
    admin = client_for(team.admin)
    assert replica.external_id in admin.get(url, {"language": "en"}).content.decode()
    assert replica.external_id not in admin.get(url, {"language": "fr"}).content.decode()


def test_the_replica_opens_in_the_workspace_without_the_first_annotators_choice(
    team: Team, second: Any, decided: Document
) -> None:
    replica = replica_of(team, second)
    span = Span.objects.get(document=replica)
    slug = team.project.slug
    client = client_for(second)
    on_span = [slug, replica.pk, span.pk]
    for url in (
        reverse("document_detail", args=[slug, replica.pk]),
        reverse("document_preview", args=[slug, replica.pk]),
        reverse("span_editor", args=on_span),
        reverse("span_suggestions", args=on_span),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "Raj Avrom" not in response.content.decode(), url
    # The first annotator's document shows it, and is not the second annotator's to open.
    assert (
        "Raj Avrom"
        in client_for(team.annotator_en)
        .get(reverse("document_detail", args=[slug, decided.pk]))
        .content.decode()
    )
    assert client.get(reverse("document_detail", args=[slug, decided.pk])).status_code == 404
    assert (
        client_for(team.annotator_en)
        .get(reverse("document_detail", args=[slug, replica.pk]))
        .status_code
        == 404
    )
    # Their queue leads to the replica.
    response = client.get(reverse("next_document", args=[slug]))
    assert response["Location"] == reverse("document_detail", args=[slug, replica.pk])


def test_accepting_on_the_replica_page_keeps_the_decision_on_the_replica(
    team: Team, second: Any, decided: Document
) -> None:
    replica = replica_of(team, second)
    span = Span.objects.get(document=replica)
    url = reverse("span_action", args=[team.project.slug, replica.pk, span.pk])
    response = client_for(second).post(
        url, {"version": span.version, "action": "decide", "decision": "keep",
              "keep_reason": "a public figure"},
    )  # fmt: skip
    assert response.status_code == 302
    span.refresh_from_db()
    assert (span.status, span.decision, span.entity_id) == ("accepted", "keep", None)
    original = Span.objects.get(document=decided)
    assert original.decision == "pseudonymize" and original.entity_id is not None
