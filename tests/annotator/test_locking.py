"""Every page and endpoint whose service locks rows, called as production calls it: in
autocommit, with no test transaction around the request (`transaction=True`).

On PostgreSQL a `SELECT … FOR UPDATE` outside a transaction is an error; every other test
runs inside one, which hid a "Mark done" that answered 500 on every real request. Each
service that locks is atomic itself, so each call here must succeed (or refuse with a 4xx
that names the reason), never 500.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from annotator.models import (
    Document,
    DocumentStatus,
    PreannotationRun,
    ReviewItem,
    ReviewKind,
    Span,
    SpanSource,
    SpanStatus,
)
from annotator.services.table import surface_decide
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, MembershipFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not str(settings.DATABASES["default"]["ENGINE"]).endswith("postgresql"),
        reason="row locks are PostgreSQL's; SQLite ignores them",
    ),
]

TEXT = "Moshe Chaya met Sarah Levi in Lyon 👋🏽 and Paris."


def _api(team: Team, name: str, **kwargs: Any) -> str:
    return reverse(name, kwargs={"slug": team.project.slug, **kwargs})


def _page(team: Team, name: str, *args: Any) -> str:
    return reverse(name, args=[team.project.slug, *args])


def _json(client: Client, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    call = getattr(client, method)
    return call(path, json.dumps(body or {}), content_type="application/json")


def _proposed(team: Team, *surfaces: str) -> Document:
    document = DocumentFactory(
        project=team.project, language="en", text=TEXT, assignee=team.annotator_en,
        status=DocumentStatus.PREANNOTATED,
    )  # fmt: skip
    for surface in surfaces:
        start = TEXT.index(surface)
        Span.objects.create(document=document, start=start, end=start + len(surface),
                            label="PER", source=SpanSource.NER, score=0.9)  # fmt: skip
    return document


def _span(document: Document, surface: str) -> Span:
    return Span.objects.get(document=document, start=TEXT.index(surface))


def test_the_annotators_api_writes_outside_a_transaction(team: Team) -> None:
    document = _proposed(team, "Moshe Chaya", "Sarah Levi", "Lyon", "Paris")
    client = client_for(team.annotator_en)
    spans = _api(team, "api-span-list", pk=document.pk)

    moshe = _span(document, "Moshe Chaya")
    accepted = _json(client, "patch", f"{spans}{moshe.pk}/",
                     {"version": moshe.version, "status": "accepted"})  # fmt: skip
    assert accepted.status_code == 200, accepted.content
    added = _json(client, "post", spans, {"start": 42, "end": 47, "label": "LOC"})
    assert added.status_code == 201, added.content
    lyon = _span(document, "Lyon")
    deleted = client.delete(f"{spans}{lyon.pk}/?version={lyon.version}")
    assert deleted.status_code == 204, deleted.content
    bulk = _json(client, "post", _api(team, "api-spans-bulk", pk=document.pk),
                 {"status": "accepted", "label": "PER"})  # fmt: skip
    assert bulk.status_code == 200, bulk.content

    document.refresh_from_db()
    done = _json(client, "patch", _api(team, "api-document-detail", pk=document.pk),
                 {"status": "done", "version": document.version})  # fmt: skip
    assert done.status_code == 200, done.content
    assert Document.objects.get(pk=document.pk).status == DocumentStatus.DONE


def test_the_workspace_pages_write_outside_a_transaction(team: Team) -> None:
    document = _proposed(team, "Moshe Chaya", "Sarah Levi", "Lyon")
    following = DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
    client = client_for(team.annotator_en)  # one session: undo lives in it
    moshe = _span(document, "Moshe Chaya")

    action = client.post(_page(team, "span_action", document.pk, moshe.pk),
                         {"version": moshe.version, "action": "accept"})  # fmt: skip
    assert action.status_code == 302
    assert _span(document, "Moshe Chaya").status == SpanStatus.ACCEPTED
    undone = client.post(_page(team, "span_undo", document.pk))
    assert undone.status_code == 302
    assert _span(document, "Moshe Chaya").status == SpanStatus.PROPOSED
    start = TEXT.index("Paris")
    added = client.post(_page(team, "span_add", document.pk),
                        {"start": start, "end": start + 5, "label": "LOC"})  # fmt: skip
    assert added.status_code == 302
    assert Span.objects.filter(document=document, source=SpanSource.HUMAN).count() == 1
    bulk = client.post(_page(team, "spans_bulk", document.pk),
                       {"status": "accepted", "label": "PER"})  # fmt: skip
    assert bulk.status_code == 302
    lyon = _span(document, "Lyon")
    client.post(_page(team, "span_action", document.pk, lyon.pk),
                {"version": lyon.version, "action": "reject"})  # fmt: skip

    done = client.post(_page(team, "document_done", document.pk))
    assert done.status_code == 302
    assert done["Location"] == _page(team, "document_detail", following.pk)
    assert Document.objects.get(pk=document.pk).status == DocumentStatus.DONE


def test_the_leads_and_admins_writes_outside_a_transaction(team: Team) -> None:
    document = _proposed(team, "Moshe Chaya", "Sarah Levi")
    moshe = _span(document, "Moshe Chaya")
    change = {"version": moshe.version, "status": "accepted", "flag": "Public figure?"}
    path = f"{_api(team, 'api-span-list', pk=document.pk)}{moshe.pk}/"
    flag = _json(client_for(team.annotator_en), "patch", path, change)
    assert flag.status_code == 200, flag.content
    lead, admin = client_for(team.lead), client_for(team.admin)

    item = ReviewItem.objects.get(kind=ReviewKind.FLAG)
    resolved = _json(lead, "post", _api(team, "api-review-resolve", pk=item.pk),
                     {"action": "resolve", "decision": "keep", "keep_reason": "a minister",
                      "rationale": "He is a public figure."})  # fmt: skip
    assert resolved.status_code == 200, resolved.content
    other = surface_decide(project=team.project, surface="Sarah Levi", language="en",
                           label="PER", decision="pseudonymize")  # fmt: skip
    entity = _api(team, "api-entity-detail", pk=other.entity_id)
    edited = _json(lead, "patch", entity, {"version": 1, "decision": "delete"})
    assert edited.status_code == 200, edited.content

    run = _json(admin, "post", _api(team, "api-run-list"), {"language": "en"})
    assert run.status_code == 202, run.content
    second = MembershipFactory(project=team.project, role="annotator", languages=["en"]).user
    double = _json(admin, "post", _api(team, "api-double-list"),
                   {"language": "en", "percentage": 100, "annotator": second.username})  # fmt: skip
    assert double.status_code == 201, double.content
    learned = _json(admin, "post", _api(team, "api-learned-list"), {"language": "en"})
    assert learned.status_code in (202, 400), learned.content  # 400: too few decisions yet
    release = _json(admin, "post", _api(team, "api-release-list"),
                    {"strategy": "S2", "format": "jsonl"})  # fmt: skip
    assert release.status_code == 202, release.content
    resumed = admin.post(_api(team, "api-run-resume", pk=PreannotationRun.objects.get().pk))
    assert resumed.status_code in (200, 202, 400), resumed.content  # 400: nothing to resume
