"""What one action on the document page costs the database (issue 33): the htmx request the
page's script sends for an accept or a reject (with what the page shows, `known`), from a
signed-in annotator whose session exists, counted over every database (the keys' too, when
they have one of their own), the session, the sign-in, BEGIN and COMMIT (here SAVEPOINT and
RELEASE: the test runs in a transaction) included.

An annotator accepts proposals one after another all day long: most of them name a surface
the project decided already (a name repeated in the document), which is the common case.
What an accept costs, query by query (14):

- the request: the session, the user, the project with the person's membership;
- BEGIN; the document, checked and locked; the span and those around it, locked;
- the table's choice for the surface (SAVEPOINT, the surface locked with its choice,
  RELEASE: `annotator.keys.surfaces.surface_decide`);
- the span written; every span of the document read once, for the undo step and the
  answer; the undo step written; COMMIT;
- the table's pseudonyms of the surfaces the page shows (what changed meanwhile, the rows).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from django.db import connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator.models import Document, DocumentStatus, Span, SpanSource, SpanStatus, UndoStep
from annotator.routers import keys_alias
from annotator.services.table import surface_choice
from annotator.services.undo import PRUNE_EVERY
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

TEXT = "Met Moshe Chaya 👋 at Rue Alphonse Metayer. Moshe Chaya waved."
# An action on one span, as the page sends it.
AT_MOST = 14
# The first change to a document moves it to "in progress": its row is written too.
FIRST = 1
# An accept of a surface new to the table: the table's own work on top of an accept of a
# decided one (`annotator.keys.surfaces.surface_decide`, all of it in the keys): the
# pseudonym the worker drew ahead for it taken (none here, so one drawn and checked: taken by
# another surface? an original somewhere? its words in the corpus, then the documents that
# hold them), the entity, the alias and its words written (a savepoint of their own, which
# guards the draw's retry), the aliases of its words and theirs, the choice read back; and
# propagation's pending row.
NEW_SURFACE = 18


@pytest.fixture
def document(team: Team) -> Document:
    document = DocumentFactory(
        project=team.project, language="en", text=TEXT, assignee=team.annotator_en,
        status=DocumentStatus.PREANNOTATED,
    )  # fmt: skip
    for start, surface, label in [
        (TEXT.index("Moshe Chaya"), "Moshe Chaya", "PER"),
        (TEXT.index("Rue Alphonse Metayer"), "Rue Alphonse Metayer", "ADDRESS"),
        (TEXT.rindex("Moshe Chaya"), "Moshe Chaya", "PER"),
    ]:
        Span.objects.create(document=document, start=start, end=start + len(surface),
                            label=label, source=SpanSource.NER, score=0.9)  # fmt: skip
    return document


@pytest.fixture
def annotator(team: Team, document: Document) -> Client:
    """The annotator's browser, the page open: signed in, its session saved."""
    client = client_for(team.annotator_en)
    shown(client, team, document)
    return client


def shown(client: Client, team: Team, document: Document) -> dict[str, str]:
    """The page, opened: what its script says it shows with each action (`known`: each row's
    span, stamp and place; `known_document`: the status bar's stamp)."""
    response = client.get(reverse("document_detail", args=[team.project.slug, document.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    rows = re.findall(
        r'<tr id="span-\d+" data-span-id="(\d+)" data-version="\d+" '
        r'data-order="(\d+) (\d+) \d+" data-stamp="([^"]+)"',
        page,
    )
    assert len(rows) == page.count('<tr id="span-') > 0
    stamp = re.search(r'id="workspace-status" data-document-stamp="([^"]*)"', page)
    assert stamp is not None
    return {
        "known": " ".join(f"{pk}:{mark}:{start}:{end}" for pk, start, end, mark in rows),
        "known_document": stamp[1],
    }


@contextmanager
def counted() -> Iterator[list[dict[str, Any]]]:
    """The queries run inside, on every database."""
    queries: list[dict[str, Any]] = []
    with ExitStack() as stack:
        captures = [
            stack.enter_context(CaptureQueriesContext(connections[alias]))
            for alias in sorted({"default", keys_alias()})
        ]
        yield queries
    queries.extend(query for capture in captures for query in capture.captured_queries)


def spans(document: Document) -> list[Span]:
    return list(Span.objects.filter(document=document).order_by("start"))


def act(client: Client, team: Team, span: Span, action: str) -> tuple[str, int]:
    """The page's request for `action` on `span`, as its script sends it: the answer, and the
    queries it cost, less the one that every PRUNE_EVERY-th step of a person's undo stack
    costs to cut the stack back (`annotator.services.undo._keep`)."""
    page = shown(client, team, span.document)
    url = reverse("span_action", args=[team.project.slug, span.document_id, span.pk])
    with counted() as queries:
        response = client.post(
            url, {"action": action, "version": span.version, **page}, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200
    step = UndoStep.objects.order_by("-pk").first()
    assert step is not None and step.spans[0]["id"] == span.pk  # the step was kept
    pruned = step.pk % PRUNE_EVERY == 0
    return response.content.decode(), len(queries) - pruned


def test_an_accept_of_a_surface_the_project_decided_costs_at_most_fifteen_queries(
    team: Team, document: Document, annotator: Client
) -> None:
    first, _, again = spans(document)
    act(annotator, team, first, "accept")  # the name's first occurrence
    choice = surface_choice(team.project, "Moshe Chaya")
    assert choice is not None
    fragment, queries = act(annotator, team, Span.objects.get(pk=again.pk), "accept")
    assert queries <= AT_MOST
    accepted = Span.objects.get(pk=again.pk)
    assert accepted.status == SpanStatus.ACCEPTED and accepted.entity_id == choice.entity_id
    # Only what changed: the row accepted, the status bar, the text around it.
    assert re.findall(r'<tr id="span-(\d+)"', fragment) == [str(again.pk)]
    assert choice.replacement in fragment and "1 proposal left to decide" in fragment


def test_a_first_accept_of_a_decided_surface_writes_the_documents_status_too(
    team: Team, document: Document, annotator: Client
) -> None:
    first, _, _ = spans(document)
    other = DocumentFactory(project=team.project, language="en", text="Moshe Chaya.")
    Span.objects.create(document=other, start=0, end=11, label="PER", source=SpanSource.NER)
    act(annotator, team, Span.objects.get(document=other), "accept")
    _, queries = act(annotator, team, first, "accept")
    assert queries <= AT_MOST + FIRST
    assert Document.objects.get(pk=document.pk).status == DocumentStatus.IN_PROGRESS


def test_an_accept_of_a_new_surface_costs_only_the_tables_work_more(
    team: Team, document: Document, annotator: Client
) -> None:
    first, _, again = spans(document)
    fragment, queries = act(annotator, team, first, "accept")
    assert queries <= AT_MOST + FIRST + NEW_SURFACE
    choice = surface_choice(team.project, "Moshe Chaya")
    assert choice is not None and choice.replacement in fragment
    assert Span.objects.get(pk=first.pk).status == SpanStatus.ACCEPTED
    # The other "Moshe Chaya" shows the pseudonym its surface has now: its row comes too.
    assert set(re.findall(r'<tr id="span-(\d+)"', fragment)) == {str(first.pk), str(again.pk)}


def test_a_reject_costs_at_most_fifteen_queries(
    team: Team, document: Document, annotator: Client
) -> None:
    first, street, _ = spans(document)
    act(annotator, team, first, "reject")
    fragment, queries = act(annotator, team, Span.objects.get(pk=street.pk), "reject")
    assert queries <= AT_MOST
    assert Span.objects.get(pk=street.pk).status == SpanStatus.REJECTED
    assert "1 proposal left to decide" in fragment
