"""The document page as a workspace: each action on a span goes through the span service, an
htmx request gets the workspace fragment back, and a stale form changes nothing."""

from __future__ import annotations

import html
import importlib
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotator import tasks
from annotator.keys.models import UndoNote
from annotator.models import (
    AuditAction,
    AuditEvent,
    Document,
    DocumentStatus,
    ReviewItem,
    ReviewKind,
    ReviewStatus,
    Span,
    SpanSource,
    SpanStatus,
    UndoStep,
)
from annotator.services import runs
from annotator.services.review.resolve import review_resolve
from annotator.services.spans import document_status_set
from annotator.services.table import EntityChange, entity_update, surface_choice, surface_decide
from annotator.views import workspace as workspace_views
from pseudonymizer.spans import Span as EngineSpan
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

TEXT = "Met Moshe Chaya 👋 at Rue Alphonse Metayer."


@pytest.fixture
def document(team: Team) -> Document:
    document = DocumentFactory(
        project=team.project, language="en", text=TEXT, assignee=team.annotator_en,
        status=DocumentStatus.PREANNOTATED,
    )  # fmt: skip
    for surface, label in [("Moshe Chaya", "PER"), ("Rue Alphonse Metayer", "ADDRESS")]:
        start = TEXT.index(surface)
        Span.objects.create(document=document, start=start, end=start + len(surface),
                            label=label, source=SpanSource.NER, score=0.9)  # fmt: skip
    return document


# One browser for the annotator in each test: the undo stack lives in its session.
_annotators: dict[int, Client] = {}


@pytest.fixture(autouse=True)
def _fresh_annotators() -> None:
    _annotators.clear()


def annotator_of(team: Team) -> Client:
    user = team.annotator_en
    if user.pk not in _annotators:
        _annotators[user.pk] = client_for(user)
    return _annotators[user.pk]


def span_of(document: Document, surface: str) -> Span:
    return Span.objects.get(document=document, start=TEXT.index(surface))


def act(team: Team, span: Span, htmx: bool = True, **data: str) -> str:
    url = reverse("span_action", args=[team.project.slug, span.document_id, span.pk])
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = annotator_of(team).post(url, {"version": span.version, **data}, **headers)
    assert response.status_code == (200 if htmx else 302)
    return response.content.decode()


def test_the_page_offers_an_action_for_each_span(team: Team, document: Document) -> None:
    url = reverse("document_detail", args=[team.project.slug, document.pk])
    page = client_for(team.annotator_en).get(url).content.decode()
    assert page.count('value="accept"') == 2 and "Mark done, next document" in page
    assert "2 proposals left to decide" in page
    # A row's buttons and version, no form or token of its own; its editor on demand.
    assert page.count("data-version=") == 2 and 'name="version"' not in page
    span = span_of(document, "Moshe Chaya")
    editor = client_for(team.annotator_en).get(
        reverse("span_editor", args=[team.project.slug, document.pk, span.pk])
    )
    fragment = editor.content.decode()
    for action in ("label", "decide", "flag"):
        assert f'value="{action}"' in fragment
    assert fragment.count("data-suggestion=") == 5 and "<html" not in fragment


def test_accepting_records_a_pseudonym_and_answers_the_fragment(
    team: Team, document: Document
) -> None:
    fragment = act(team, span_of(document, "Moshe Chaya"), action="accept")
    span = span_of(document, "Moshe Chaya")
    assert span.status == SpanStatus.ACCEPTED and span.decided_by == team.annotator_en
    choice = surface_choice(team.project, "Moshe Chaya")
    assert choice is not None and choice.replacement in fragment
    assert "<html" not in fragment and 'id="workspace"' not in fragment  # a patch, not the page
    assert "1 proposal left to decide" in fragment


def test_relabel_decide_keep_and_flag(team: Team, document: Document) -> None:
    act(team, span_of(document, "Rue Alphonse"), action="label", label="LOC")
    assert span_of(document, "Rue Alphonse").label == "LOC"
    act(team, span_of(document, "Rue Alphonse"), action="decide", decision="keep",
        keep_reason="a public place")  # fmt: skip
    kept = span_of(document, "Rue Alphonse")
    assert (kept.decision, kept.keep_reason, kept.status) == ("keep", "a public place", "accepted")
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Raj Avrom")  # fmt: skip
    assert surface_choice(team.project, "moshe chaya").replacement == "Raj Avrom"  # type: ignore[union-attr]
    act(team, span_of(document, "Moshe Chaya"), action="flag", comment="Is he a public figure?")
    assert ReviewItem.objects.filter(span=span_of(document, "Moshe Chaya")).exists()


def test_a_stale_form_changes_nothing_and_shows_the_span_as_it_is(
    team: Team, document: Document
) -> None:
    span = span_of(document, "Moshe Chaya")
    act(team, span, action="reject")  # the form of another tab, now stale:
    fragment = act(team, span, action="accept")
    assert "changed since you opened it" in fragment
    assert span_of(document, "Moshe Chaya").status == SpanStatus.REJECTED


def test_a_refused_action_says_why(team: Team, document: Document) -> None:
    fragment = act(team, span_of(document, "Moshe Chaya"), action="decide", decision="keep")
    assert "say why the span is kept" in fragment
    fragment = act(team, span_of(document, "Moshe Chaya"), action="label", label="NOPE")
    assert "NOPE" in fragment and span_of(document, "Moshe Chaya").label == "PER"


def test_without_htmx_an_action_comes_back_to_the_span(team: Team, document: Document) -> None:
    span = span_of(document, "Moshe Chaya")
    url = reverse("span_action", args=[team.project.slug, document.pk, span.pk])
    response = client_for(team.annotator_en).post(
        url, {"version": span.version, "action": "reject"}
    )
    detail = reverse("document_detail", args=[team.project.slug, document.pk])
    assert response["Location"] == f"{detail}#span-{span.pk}"
    assert span_of(document, "Moshe Chaya").status == SpanStatus.REJECTED


def test_done_needs_every_proposal_decided_then_opens_the_next(
    team: Team, document: Document
) -> None:
    following = DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
    annotator = client_for(team.annotator_en)
    done_url = reverse("document_done", args=[team.project.slug, document.pk])
    refused = annotator.post(done_url)
    # Back on the page, at the first proposal left (Moshe Chaya).
    detail = reverse("document_detail", args=[team.project.slug, document.pk])
    assert refused["Location"] == f"{detail}#span-{span_of(document, 'Moshe Chaya').pk}"
    assert Document.objects.get(pk=document.pk).status != DocumentStatus.DONE
    for surface in ("Moshe Chaya", "Rue Alphonse"):
        act(team, span_of(document, surface), action="reject")
    response = annotator.post(done_url)
    assert Document.objects.get(pk=document.pk).status == DocumentStatus.DONE
    assert response["Location"] == reverse(
        "document_detail", args=[team.project.slug, following.pk]
    )


def test_the_page_costs_the_same_queries_for_two_spans_or_forty(team: Team) -> None:
    def queries(spans: int) -> int:
        text = " ".join(f"Name{n} Surname{n}" for n in range(spans))
        document = DocumentFactory(project=team.project, language="en", text=text)
        for n in range(spans):
            start = text.index(f"Name{n} ")
            status = SpanStatus.ACCEPTED if n % 2 else SpanStatus.PROPOSED
            Span.objects.create(
                document=document, start=start, end=start + len(f"Name{n}"), label="PER",
                source=SpanSource.NER, status=status,
            )  # fmt: skip
        url = reverse("document_detail", args=[team.project.slug, document.pk])
        client = client_for(team.annotator_en)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured.captured_queries)

    assert queries(2) == queries(40)


def test_accept_all_of_a_label_and_reject_all_of_a_source(team: Team, document: Document) -> None:
    extra = TEXT.index("Met")
    Span.objects.create(document=document, start=extra, end=extra + 3, label="PER",
                        source=SpanSource.REGEX)  # fmt: skip
    url = reverse("spans_bulk", args=[team.project.slug, document.pk])
    annotator = client_for(team.annotator_en)
    fragment = annotator.post(
        url, {"status": "accepted", "label": "PER"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "2 proposals accepted." in fragment
    statuses = dict(Span.objects.filter(document=document).values_list("start", "status"))
    assert statuses == {extra: "accepted", TEXT.index("Moshe"): "accepted",
                        TEXT.index("Rue"): "proposed"}  # fmt: skip
    fragment = annotator.post(
        url, {"status": "rejected", "source": "ner"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "1 proposal rejected." in fragment
    assert span_of(document, "Rue Alphonse").status == SpanStatus.REJECTED
    refused = annotator.post(url, {"status": "accepted"}, HTTP_HX_REQUEST="true").content.decode()
    assert "choose a label or a source" in refused


def test_accept_all_leaves_a_proposal_whose_surface_was_decided_otherwise(
    team: Team, document: Document
) -> None:
    surface_decide(project=team.project, surface="Moshe Chaya", language="en", label="PER",
                   decision="keep", keep_reason="a public figure")  # fmt: skip
    url = reverse("spans_bulk", args=[team.project.slug, document.pk])
    fragment = (
        client_for(team.annotator_en)
        .post(url, {"status": "accepted", "label": "PER"}, HTTP_HX_REQUEST="true")
        .content.decode()
    )
    assert "0 proposals accepted. 1 left" in fragment
    assert span_of(document, "Moshe Chaya").status == SpanStatus.PROPOSED


def test_suggestions_offer_the_chosen_pseudonym_first_and_save_one(
    team: Team, document: Document
) -> None:
    surface_decide(project=team.project, surface="Moshe Chaya", language="en", label="PER",
                   decision="pseudonymize", replacement="Raj Avrom")  # fmt: skip
    span = span_of(document, "Moshe Chaya")
    url = reverse("span_suggestions", args=[team.project.slug, document.pk, span.pk])
    fragment = client_for(team.annotator_en).get(url).content.decode()
    assert fragment.count("data-suggestion=") == 5
    assert fragment.index("Raj Avrom") < fragment.index('data-suggestion="2"')
    assert "Moshe Chaya" not in fragment


def test_an_edge_moves_by_a_word_and_by_a_whole_character(team: Team, document: Document) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="move", edge="start", unit="word",
        extend="on")  # fmt: skip
    span = Span.objects.get(document=document, label="PER")
    assert TEXT[span.start : span.end] == "Met Moshe Chaya"
    act(team, span, action="move", edge="end", unit="char", extend="on")
    span.refresh_from_db()
    assert TEXT[span.start : span.end] == "Met Moshe Chaya 👋"
    editor = client_for(team.annotator_en).get(
        reverse("span_editor", args=[team.project.slug, document.pk, span.pk])
    )
    assert editor.content.decode().count('name="action" value="move"') == 8


def undo(team: Team, document: Document) -> str:
    url = reverse("span_undo", args=[team.project.slug, document.pk])
    response = annotator_of(team).post(url, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return response.content.decode()


def patch_of(fragment: str) -> tuple[list[str], tuple[int, int] | None]:
    """The span ids of the rows a patch carries, and the stretch of text it re-renders."""
    rows = re.findall(r'<tr id="span-(\d+)"', fragment)
    text = re.search(r'data-patch="text" data-from="(\d+)" data-to="(\d+)"', fragment)
    return rows, (int(text[1]), int(text[2])) if text else None


def test_an_action_answers_with_only_what_changed(team: Team, document: Document) -> None:
    moshe, rue = span_of(document, "Moshe Chaya"), span_of(document, "Rue Alphonse")
    fragment = act(team, moshe, action="label", label="LOC")
    assert patch_of(fragment) == ([str(moshe.pk)], (moshe.start, moshe.end))
    assert str(rue.pk) not in fragment and "Rue Alphonse" not in fragment
    assert 'id="workspace-status"' in fragment and "2 proposals left" in fragment
    assert "Undo the new label" in fragment


def test_a_move_patches_the_text_over_the_old_and_the_new_edges(
    team: Team, document: Document
) -> None:
    moshe = span_of(document, "Moshe Chaya")
    fragment = act(team, moshe, action="move", edge="start", unit="word", extend="on")
    assert patch_of(fragment) == ([str(moshe.pk)], (0, moshe.end))
    assert '<mark class="hl c0 hl-proposed" data-start="0" data-end="15"' in fragment


def test_an_added_span_trims_the_proposal_it_overlaps_and_undo_brings_it_back_whole(
    team: Team, document: Document
) -> None:
    rue = span_of(document, "Rue Alphonse")
    start = TEXT.index("Alphonse")
    url = reverse("span_add", args=[team.project.slug, document.pk])
    response = annotator_of(team).post(
        url, {"start": start, "end": start + len("Alphonse"), "label": "PER"},
        HTTP_HX_REQUEST="true",
    )  # fmt: skip
    added = Span.objects.get(document=document, source=SpanSource.HUMAN)
    # What the person's span leaves of the address on either side stays proposed, in view.
    left, right = Span.objects.filter(document=document, source=SpanSource.NER,
                                      start__gte=rue.start).order_by("start")  # fmt: skip
    assert [(TEXT[s.start : s.end], s.status) for s in (left, right)] == [
        ("Rue", SpanStatus.PROPOSED), ("Metayer", SpanStatus.PROPOSED)
    ]  # fmt: skip
    assert left.pk == rue.pk
    rows, window = patch_of(response.content.decode())
    assert sorted(rows) == sorted([str(rue.pk), str(right.pk), str(added.pk)])
    assert window == (rue.start, rue.end)

    fragment = undo(team, document)
    assert not Span.objects.filter(pk__in=[added.pk, right.pk]).exists()
    back = Span.objects.get(pk=rue.pk)
    assert (back.start, back.end) == (rue.start, rue.end)
    assert back.status == SpanStatus.PROPOSED and back.version > rue.version
    removed = sorted([added.pk, right.pk])
    assert f'data-removed="{removed[0]} {removed[1]}"' in fragment
    assert "Undone: the span added." in fragment


@pytest.mark.parametrize(
    "action",
    [
        {"action": "accept"},
        {"action": "reject"},
        {"action": "label", "label": "LOC"},
        {"action": "move", "edge": "end", "unit": "char", "extend": "on"},
        {"action": "decide", "decision": "keep", "keep_reason": "a public figure"},
        {"action": "flag", "comment": "Is he a public figure?"},
    ],
    ids=lambda action: action["action"],
)
def test_undo_puts_a_span_back_as_it_was(
    team: Team, document: Document, action: dict[str, str]
) -> None:
    fields = ("start", "end", "label", "status", "decision", "keep_reason", "entity_id")
    span = span_of(document, "Moshe Chaya")
    before = {name: getattr(span, name) for name in fields}
    act(team, span, **action)
    assert (
        Span.objects.filter(pk=span.pk).values(*fields).get() != before
        or action["action"] == "flag"
    )
    undo(team, document)
    assert Span.objects.filter(pk=span.pk).values(*fields).get() == before
    assert not ReviewItem.objects.filter(span=span).exists()
    assert "Nothing to undo" in undo(team, document)


def test_undo_brings_back_the_pseudonym_chosen_before(team: Team, document: Document) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Raj Avrom")  # fmt: skip
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Ilan Peretz")  # fmt: skip
    assert surface_choice(team.project, "Moshe Chaya").replacement == "Ilan Peretz"  # type: ignore[union-attr]
    fragment = undo(team, document)
    assert surface_choice(team.project, "Moshe Chaya").replacement == "Raj Avrom"  # type: ignore[union-attr]
    assert "Raj Avrom" in fragment and "Moshe Chaya" in fragment  # its row, for its annotator


def test_undo_keeps_no_pseudonym_where_the_web_role_reads(
    team: Team, document: Document, django_capture_on_commit_callbacks: Any
) -> None:
    """Issue 32: the stack lived in the session (`django_session`, read by the web role),
    pairing each span's offsets with its pseudonym. Steps keep ids, offsets and versions;
    the pseudonyms go to the keys, and leave them with the step."""
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Raj Avrom")  # fmt: skip
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Ilan Peretz")  # fmt: skip
    session = annotator_of(team).session
    assert "Raj Avrom" not in repr(dict(session.items()))
    steps = UndoStep.objects.filter(user=team.annotator_en, document=document)
    assert steps.count() == 2
    assert not any("Raj Avrom" in repr(step.spans) for step in steps)
    (kept,) = [note.pseudonyms for note in UndoNote.objects.filter(step_id=steps.last().pk)]
    assert list(kept.values()) == ["Raj Avrom"]
    with django_capture_on_commit_callbacks(execute=True):
        assert "Undone: the decision." in undo(team, document)
    assert steps.all().count() == 1
    assert not UndoNote.objects.filter(pseudonyms__icontains="Raj").exists()


def test_a_stack_keeps_its_last_steps_cut_back_now_and_then(team: Team, document: Document) -> None:
    """The stack is cut back to UNDO_DEPTH every PRUNE_EVERY-th step, not on each (which cost
    every action a query and a delete: bench/workspace_bench.py's p95 went from 40 to 60-90
    ms); it never holds more than UNDO_DEPTH + PRUNE_EVERY steps, and undo still works."""
    from annotator.services.undo import PRUNE_EVERY, UNDO_DEPTH

    steps = UndoStep.objects.filter(user=team.annotator_en, document=document)
    for n in range(UNDO_DEPTH + 2 * PRUNE_EVERY + 3):
        act(team, span_of(document, "Moshe Chaya"), action="reject" if n % 2 else "accept")
        assert steps.all().count() <= UNDO_DEPTH + PRUNE_EVERY
    assert steps.all().count() > UNDO_DEPTH - 1
    assert "Undone: the" in undo(team, document)


def test_a_sign_out_takes_the_undo_stack_and_its_pseudonyms_with_it(
    team: Team, document: Document
) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Raj Avrom")  # fmt: skip
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Ilan Peretz")  # fmt: skip
    assert UndoNote.objects.exists()
    annotator_of(team).post(reverse("logout"))
    assert not UndoStep.objects.filter(user=team.annotator_en).exists()
    assert not UndoNote.objects.exists()


def test_undo_steps_as_old_as_a_session_go_with_the_expired_sessions(
    team: Team, document: Document, settings: Any
) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Raj Avrom")  # fmt: skip
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Ilan Peretz")  # fmt: skip
    recent = UndoStep.objects.latest("pk")
    old = timezone.now() - timedelta(seconds=settings.SESSION_COOKIE_AGE + 60)
    UndoStep.objects.exclude(pk=recent.pk).update(created_at=old)
    UndoNote.objects.exclude(step_id=recent.pk).update(created_at=old)
    assert tasks.sessions_clear() >= 1
    assert list(UndoStep.objects.values_list("pk", flat=True)) == [recent.pk]
    assert set(UndoNote.objects.values_list("step_id", flat=True)) <= {recent.pk}


def test_the_stacks_sessions_held_before_are_dropped_from_them(team: Team) -> None:
    """The migration that moved the stacks out of the session strips the ones it finds."""
    from django.apps import apps
    from django.contrib.sessions.backends.db import SessionStore

    migration = importlib.import_module("annotator.migrations.0022_undo_steps")
    store = SessionStore()
    store["cloak_undo"] = {"7": [{"what": "decide", "spans": [{"before": {"replacement": "X"}}]}]}
    store["kept"] = 1
    store.create()
    migration.drop_session_stacks(apps, SimpleNamespace(connection=connection))
    data = SessionStore(session_key=store.session_key).load()
    assert data == {"kept": 1}


def test_undo_of_accept_all_puts_every_proposal_back(team: Team, document: Document) -> None:
    url = reverse("spans_bulk", args=[team.project.slug, document.pk])
    annotator_of(team).post(url, {"status": "rejected", "source": "ner"}, HTTP_HX_REQUEST="true")
    assert not Span.objects.filter(document=document, status=SpanStatus.PROPOSED).exists()
    assert "Undone: reject all." in undo(team, document)
    assert Span.objects.filter(document=document, status=SpanStatus.PROPOSED).count() == 2


def test_undo_never_takes_back_what_someone_changed_since(team: Team, document: Document) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="accept")
    span = span_of(document, "Moshe Chaya")
    lead = client_for(team.lead)  # the lead relabels it meanwhile
    lead.post(
        reverse("span_action", args=[team.project.slug, document.pk, span.pk]),
        {"version": span.version, "action": "label", "label": "LOC"},
    )
    fragment = undo(team, document)
    assert "nothing was undone" in fragment
    after = span_of(document, "Moshe Chaya")
    assert (after.status, after.label) == (SpanStatus.ACCEPTED, "LOC")


def test_an_action_costs_the_same_queries_for_two_spans_or_forty(team: Team) -> None:
    def queries(spans: int) -> int:
        text = " ".join(f"Name{n} Surname{n}" for n in range(spans))
        document = DocumentFactory(project=team.project, language="en", text=text)
        for n in range(spans):
            start = text.index(f"Name{n} ")
            Span.objects.create(
                document=document, start=start, end=start + len(f"Name{n}"), label="PER",
                source=SpanSource.NER,
            )  # fmt: skip
        span = Span.objects.filter(document=document).order_by("start")[spans // 2]
        url = reverse("span_action", args=[team.project.slug, document.pk, span.pk])
        client = client_for(team.annotator_en)
        with CaptureQueriesContext(connection) as captured:
            response = client.post(
                url, {"version": span.version, "action": "label", "label": "LOC"},
                HTTP_HX_REQUEST="true",
            )  # fmt: skip
        assert response.status_code == 200 and patch_of(response.content.decode())[0] == [
            str(span.pk)
        ]
        return len(captured.captured_queries)

    assert queries(2) == queries(40)


def test_the_page_is_never_stored_by_the_browser(team: Team, document: Document) -> None:
    url = reverse("document_detail", args=[team.project.slug, document.pk])
    response = client_for(team.annotator_en).get(url)
    assert "no-store" in response["Cache-Control"]
    page = response.content.decode()
    assert 'id="workspace-patch"' in page and "Undo" not in page.split('id="keys-legend"')[0]


def preview(team: Team, document: Document, strategy: str = "") -> str:
    url = reverse("document_preview", args=[team.project.slug, document.pk])
    response = annotator_of(team).get(
        url, {"strategy": strategy} if strategy else {}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    return response.content.decode()


def released_text(fragment: str) -> str:
    body = fragment.split('class="doc-text doc-released"')[1].split(">", 1)[1]
    return html.unescape(re.sub(r"<[^>]+>", "", body.rsplit("</div>", 2)[0]))


def test_the_preview_renders_the_decisions_under_each_strategy(
    team: Team, document: Document
) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Raj Avrom")  # fmt: skip
    fragment = preview(team, document)  # the project's strategy: realistic
    assert released_text(fragment) == "Met Raj Avrom 👋 at Rue Alphonse Metayer."
    assert "1 proposal not decided yet stays as written" in fragment
    act(team, span_of(document, "Rue Alphonse"), action="decide", decision="delete")
    assert released_text(preview(team, document, "S3")) == "Met PER_1 👋 at ."
    assert released_text(preview(team, document, "S2")) == "Met PER 👋 at ."
    assert released_text(preview(team, document, "S0")) == "Met  👋 at ."
    assert "<html" not in preview(team, document, "S1")


def test_the_preview_says_why_a_document_cannot_be_released(team: Team, document: Document) -> None:
    # Two accepted spans across each other, as data imported from another tool may hold.
    start = TEXT.index("Chaya")
    Span.objects.create(document=document, start=start, end=TEXT.index("👋") + 1, label="PER",
                        source=SpanSource.IMPORT, status=SpanStatus.ACCEPTED)  # fmt: skip
    Span.objects.filter(pk=span_of(document, "Moshe Chaya").pk).update(status=SpanStatus.ACCEPTED)
    fragment = preview(team, document)
    assert "cannot be released as it is" in fragment and "overlap" in fragment
    assert "Moshe" not in fragment.split("cannot be released")[1]
    url = reverse("document_preview", args=[team.project.slug, document.pk])
    assert annotator_of(team).get(url, {"strategy": "S9"}).status_code == 400


def test_accepting_a_proposal_rejects_the_proposals_across_it(
    team: Team, document: Document
) -> None:
    start = TEXT.index("Chaya")  # a machine alternative across "Moshe Chaya"
    other = Span.objects.create(document=document, start=start, end=TEXT.index("👋") + 1,
                                label="PER", source=SpanSource.REGEX)  # fmt: skip
    fragment = act(team, span_of(document, "Moshe Chaya"), action="accept")
    assert Span.objects.get(pk=other.pk).status == SpanStatus.REJECTED
    assert f'<tr id="span-{other.pk}"' in fragment  # its row is patched too
    other.refresh_from_db()
    refused = act(team, other, action="accept")  # now across a person's span: refused
    assert "which a person decided" in refused
    assert Span.objects.get(pk=other.pk).status == SpanStatus.REJECTED
    undo(team, document)
    assert Span.objects.get(pk=other.pk).status == SpanStatus.PROPOSED


# --- The page knows what changed ------------------------------------------------------------

ROW = re.compile(r'<tr id="span-(\d+)".*?</tr>', re.DOTALL)
PIECE = re.compile(r'<(span|mark)([^>]*) data-start="(\d+)" data-end="(\d+)"([^>]*)>')


def open_page(team: Team, document: Document) -> str:
    url = reverse("document_detail", args=[team.project.slug, document.pk])
    return annotator_of(team).get(url).content.decode()


def shown_by(page: str) -> dict[str, str]:
    """What the page's script says the page shows, read from the markup as it reads it."""
    rows = re.findall(
        r'<tr id="span-\d+" data-span-id="(\d+)" data-version="\d+" '
        r'data-order="(\d+) (\d+) \d+" data-stamp="([^"]+)"',
        page,
    )
    assert len(rows) == page.count('<tr id="span-')  # every row read
    stamp = re.search(r'id="workspace-status" data-document-stamp="([^"]*)"', page)
    assert stamp is not None
    return {
        "known": " ".join(f"{pk}:{mark}:{start}:{end}" for pk, start, end, mark in rows),
        "known_document": stamp[1],
    }


def check(team: Team, document: Document, shown: dict[str, str]) -> Any:
    url = reverse("document_changes", args=[team.project.slug, document.pk])
    return annotator_of(team).post(url, shown, HTTP_HX_REQUEST="true")


def rows_of(fragment: str) -> dict[int, str]:
    """Each span row of a page or patch by span id, without its CSRF token (masked anew on
    every answer)."""
    return {
        int(match[1]): re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", match[0])
        for match in ROW.finditer(fragment)
    }


def highlights(fragment: str) -> dict[int, str]:
    """How the text shows each code point it holds: the element and attributes of its
    piece, offsets aside."""
    shown: dict[int, str] = {}
    for tag, before, start, end, after in PIECE.findall(fragment):
        for point in range(int(start), int(end)):
            shown[point] = f"{tag}{before}{after}"
    return shown


def text_of(page: str) -> str:
    return page.split('class="doc-text"', 1)[1].split("</div>", 1)[0]


def assert_patch_makes(before: str, patch: str, after: str) -> None:
    """`patch` turns the page `before` into the page `after`: it carries the row of every
    span whose row changed or came, removes those that went, and re-renders the text wherever
    it changed (the pieces it carries are the new page's)."""
    old, new, carried = rows_of(before), rows_of(after), rows_of(patch)
    assert carried == {pk: row for pk, row in new.items() if old.get(pk) != row}
    removed = re.search(r'data-removed="([^"]*)"', patch)
    assert removed is not None
    assert set(map(int, removed[1].split())) == set(old) - set(new)
    windows = re.findall(r'data-patch="text" data-from="(\d+)" data-to="(\d+)">(.*?)</div>', patch)
    text = highlights(text_of(before))
    reach = 0
    for low, high, shown_html in ((int(a), int(b), markup) for a, b, markup in windows):
        assert reach <= low < high, "the stretches come in order and never meet"
        reach = high
        text = {p: shown for p, shown in text.items() if not low <= p < high}
        text.update(highlights(shown_html))
    assert text == highlights(text_of(after))


def _propagation(team: Team, document: Document) -> Iterator[None]:
    other = DocumentFactory(project=team.project, language="en", assignee=team.annotator_en,
                            text="Moshe Chaya wrote back.")  # fmt: skip
    span = Span.objects.create(document=other, start=0, end=11, label="PER", source="ner")
    yield
    act(team, span, action="decide", decision="keep", keep_reason="a public figure")


def _another_person(team: Team, document: Document) -> Iterator[None]:
    yield
    rue = span_of(document, "Rue Alphonse")
    response = client_for(team.lead).post(
        reverse("span_action", args=[team.project.slug, document.pk, rue.pk]),
        {"version": rue.version, "action": "label", "label": "LOC"},
    )
    assert response.status_code == 302


def _run(team: Team, found: list[EngineSpan]) -> None:
    run = runs.run_create(project=team.project, actor=None, dispatch=False)
    batch = run.batches.get()
    claimed_at = runs.run_batch_claim(batch_id=batch.pk)
    assert claimed_at is not None
    document_id = batch.document_ids[0]
    assert runs.run_batch_write(
        batch_id=batch.pk, claimed_at=claimed_at, spans_by_document={document_id: found}
    )


def _a_run(team: Team, document: Document) -> Iterator[None]:
    _run(team, [EngineSpan(0, 3, "PER", 0.8, source="ner")])
    yield
    # Run again, it deletes its untouched proposals and writes what it finds now.
    _run(team, [EngineSpan(0, 3, "ORG", 0.7, source="ner")])


def _undo_in_another_tab(team: Team, document: Document) -> Iterator[None]:
    start = TEXT.index("Met")
    url = reverse("span_add", args=[team.project.slug, document.pk])
    annotator_of(team).post(url, {"start": start, "end": start + 3, "label": "PER"})
    yield
    undo(team, document)  # the span added goes


def _review(team: Team, document: Document) -> Iterator[None]:
    act(team, span_of(document, "Moshe Chaya"), action="flag", comment="A public figure?")
    yield
    review_resolve(item=ReviewItem.objects.get(span__document=document), actor=team.lead,
                   rationale="He is one.", decision="keep")  # fmt: skip


def _keys_decision(team: Team, document: Document) -> Iterator[None]:
    act(team, span_of(document, "Moshe Chaya"), action="accept")
    yield
    choice = surface_choice(team.project, "Moshe Chaya")
    assert choice is not None
    entity_update(project=team.project, entity_id=choice.entity_id, actor=team.lead,
                  version=None, change=EntityChange(decision="invalidate"))  # fmt: skip


def _keys_pseudonym(team: Team, document: Document) -> Iterator[None]:
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Raj Avrom")  # fmt: skip
    yield
    choice = surface_choice(team.project, "Moshe Chaya")
    assert choice is not None
    change = EntityChange(replacements={choice.alias_id: "Ilan Peretz"})
    entity_update(project=team.project, entity_id=choice.entity_id, actor=team.lead,
                  version=None, change=change)  # fmt: skip


@pytest.mark.parametrize(
    "writer",
    [
        _propagation,
        _another_person,
        _a_run,
        _undo_in_another_tab,
        _review,
        _keys_decision,
        _keys_pseudonym,
    ],  # fmt: skip
    ids=lambda writer: writer.__name__.strip("_"),
)
def test_a_check_brings_what_each_writer_changed_behind_the_page(
    team: Team,
    document: Document,
    writer: Callable[[Team, Document], Iterator[None]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    steps = writer(team, document)
    with django_capture_on_commit_callbacks(execute=True):
        next(steps)
    before = open_page(team, document)
    with django_capture_on_commit_callbacks(execute=True):
        next(steps, None)
    response = check(team, document, shown_by(before))
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    patch = response.content.decode()
    after = open_page(team, document)
    assert rows_of(before) != rows_of(after)  # the writer changed what the page shows
    assert_patch_makes(before, patch, after)
    assert "Changed meanwhile" in patch and "the list is up to date" in patch
    # The page so patched shows the document as it is: nothing more to bring.
    assert check(team, document, shown_by(after)).status_code == 204


def test_a_check_answers_204_when_nothing_changed_at_the_same_cost_for_any_length(
    team: Team,
) -> None:
    def queries(spans: int) -> int:
        text = " ".join(f"Name{n} Surname{n}" for n in range(spans))
        document = DocumentFactory(project=team.project, language="en", text=text)
        for n in range(spans):
            start = text.index(f"Name{n} ")
            Span.objects.create(
                document=document, start=start, end=start + len(f"Name{n}"), label="PER",
                source=SpanSource.NER, status=SpanStatus.ACCEPTED if n % 2 else "proposed",
            )  # fmt: skip
        shown = shown_by(open_page(team, document))
        with CaptureQueriesContext(connection) as captured:
            assert check(team, document, shown).status_code == 204
        return len(captured.captured_queries)

    assert queries(2) == queries(40)


def test_a_check_sees_a_span_removed_and_the_document_status_changed(
    team: Team, document: Document
) -> None:
    before = open_page(team, document)
    gone = span_of(document, "Rue Alphonse")
    Span.objects.filter(pk=gone.pk).delete()
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.IN_PROGRESS)
    patch = check(team, document, shown_by(before)).content.decode()
    assert f'data-removed="{gone.pk}"' in patch and "1 span removed" in patch
    assert_patch_makes(before, patch, open_page(team, document))
    assert "In progress" in patch  # the status bar, as it is now


def test_a_check_needs_what_the_page_shows(team: Team, document: Document) -> None:
    url = reverse("document_changes", args=[team.project.slug, document.pk])
    annotator = annotator_of(team)
    missing = annotator.post(url, {}, HTTP_HX_REQUEST="true")
    assert missing.status_code == 400 and "known" in missing.content.decode()
    bad = annotator.post(url, {"known": "12:three:0:4"}, HTTP_HX_REQUEST="true")
    assert bad.status_code == 400 and "'12:three:0:4' is not one" in bad.content.decode()
    assert annotator.get(url).status_code == 405


def test_an_action_brings_what_else_changed_meanwhile(team: Team, document: Document) -> None:
    before = open_page(team, document)
    shown = shown_by(before)
    rue = span_of(document, "Rue Alphonse")
    client_for(team.lead).post(  # another person, meanwhile
        reverse("span_action", args=[team.project.slug, document.pk, rue.pk]),
        {"version": rue.version, "action": "reject"},
    )
    fragment = act(team, span_of(document, "Moshe Chaya"), action="label", label="LOC", **shown)
    assert sorted(patch_of(fragment)[0]) == sorted(
        [str(rue.pk), str(span_of(document, "Moshe").pk)]
    )
    assert "Changed meanwhile (by a run, propagation or another person): 1 span changed" in fragment
    assert_patch_makes(before, fragment, open_page(team, document))


def test_an_action_with_an_unreadable_page_state_gets_the_whole_workspace(
    team: Team, document: Document
) -> None:
    fragment = act(team, span_of(document, "Moshe Chaya"), action="accept", known="nonsense")
    assert 'id="workspace"' in fragment
    assert span_of(document, "Moshe Chaya").status == SpanStatus.ACCEPTED


def test_an_action_on_a_span_gone_removes_its_row_and_says_so(
    team: Team, document: Document
) -> None:
    gone = span_of(document, "Rue Alphonse")
    Span.objects.filter(pk=gone.pk).delete()  # a run replaced it, say
    fragment = act(team, gone, action="accept")
    assert f'data-removed="{gone.pk}"' in fragment
    assert "This span is no longer in the document" in fragment and "alert-error" in fragment
    assert not Span.objects.filter(document=document, status=SpanStatus.ACCEPTED).exists()

    url = reverse("span_action", args=[team.project.slug, document.pk, gone.pk])
    response = client_for(team.annotator_en).post(url, {"version": 1, "action": "accept"})
    assert response["Location"] == reverse("document_detail", args=[team.project.slug, document.pk])


@pytest.mark.parametrize("name", ["span_editor", "span_suggestions"])
def test_opening_the_editor_of_a_span_gone_removes_its_row_and_says_so(
    team: Team, document: Document, name: str
) -> None:
    gone = span_of(document, "Rue Alphonse")
    Span.objects.filter(pk=gone.pk).delete()
    url = reverse(name, args=[team.project.slug, document.pk, gone.pk])
    response = annotator_of(team).get(url, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and response["HX-Retarget"] == "#workspace-patch"
    fragment = response.content.decode()
    assert f'data-removed="{gone.pk}"' in fragment and "no longer in the document" in fragment
    assert annotator_of(team).get(url).status_code == 404  # without the page's script


# What opening the page asks of the database (besides the keys' table), however many spans:
# the session, the user, the project and the membership, the document, its spans and their
# counts, the lead's resolutions. Nothing a span.
PAGE_QUERIES = 10


def test_a_document_with_many_spans_opens_in_a_bounded_number_of_queries(
    team: Team, django_assert_max_num_queries: Any
) -> None:
    names = [f"Name{n}" for n in range(300)]
    text = " ".join(f"{name} Surname" for name in names)
    document = DocumentFactory(project=team.project, language="en", text=text)
    Span.objects.bulk_create(
        Span(
            document=document, start=text.index(f"{name} "), end=text.index(f"{name} ") + len(name),
            label="PER", source=SpanSource.NER,
            status=SpanStatus.ACCEPTED if n % 3 else SpanStatus.PROPOSED,
        )
        for n, name in enumerate(names)
    )  # fmt: skip
    for name in names[1:60:3]:
        surface_decide(project=team.project, surface=name, language="en", label="PER",
                       decision="pseudonymize", replacement=f"Other {name}")  # fmt: skip
    client = client_for(team.annotator_en)
    url = reverse("document_detail", args=[team.project.slug, document.pk])
    with django_assert_max_num_queries(PAGE_QUERIES):
        page = client.get(url).content.decode()
    assert page.count("data-version=") == 300
    assert "Other Name1<" in page and "Other Name58<" in page


def test_the_legend_shows_each_key_once_and_the_picker_offers_every_label(
    team: Team, document: Document
) -> None:
    url = reverse("document_detail", args=[team.project.slug, document.pk])
    page = client_for(team.annotator_en).get(url).content.decode()
    # "1 PER — …", not the list's own number before the key ("1. 1 PER").
    assert '<ol class="label-keys"' not in page
    assert '<kbd>1</kbd> <span class="label-name">PER</span>' in page
    assert '<kbd>9</kbd> <span class="label-name">ORG</span>' in page
    assert '<span class="label-name">DATE</span>' not in page  # no key: in the picker only
    listbox = page[page.index('role="listbox"') : page.index("</ul>", page.index('role="listbox"'))]
    offered = re.findall(r'role="option" id="label-option-\d+" data-label="([^"]+)"', listbox)
    assert offered == team.project.labels and "DATE" in offered and "OTH:CONSPI" in offered
    assert 'aria-controls="label-picker-list"' in page and 'id="selection-label"' in page


def test_a_label_without_a_key_is_added_at_code_points_after_an_emoji(
    team: Team, document: Document
) -> None:
    url = reverse("span_add", args=[team.project.slug, document.pk])
    start = TEXT.index("at Rue")  # after "👋": one code point, two UTF-16 units
    response = annotator_of(team).post(
        url, {"start": start, "end": start + 2, "label": "DATE"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    added = Span.objects.get(document=document, source=SpanSource.HUMAN)
    assert (TEXT[added.start : added.end], added.label) == ("at", "DATE")
    refused = annotator_of(team).post(
        url, {"start": 0, "end": 3, "label": "NOPE"}, HTTP_HX_REQUEST="true"
    )
    assert "NOPE" in refused.content.decode()
    assert not Span.objects.filter(document=document, label="NOPE").exists()


def test_a_flag_shows_on_its_row_with_the_lead_s_answer_once_resolved(
    team: Team, document: Document
) -> None:
    fragment = act(team, span_of(document, "Moshe Chaya"), action="flag",
                   comment="Is he a <public> figure?")  # fmt: skip
    moshe = span_of(document, "Moshe Chaya")
    assert "Flagged" in rows_of(fragment)[moshe.pk]
    assert "Is he a &lt;public&gt; figure?" in rows_of(fragment)[moshe.pk]
    url = reverse("document_detail", args=[team.project.slug, document.pk])
    page = client_for(team.annotator_en).get(url).content.decode()
    assert "Is he a &lt;public&gt; figure?" in rows_of(page)[moshe.pk]  # after a reload too
    other = span_of(document, "Rue Alphonse")
    assert "Flagged" not in rows_of(page)[other.pk]
    review_resolve(
        item=ReviewItem.objects.get(span=moshe), actor=team.lead, rationale="He is a minister.",
        decision="keep", keep_reason="public",
    )  # fmt: skip
    page = client_for(team.annotator_en).get(url).content.decode()
    row = rows_of(page)[moshe.pk]
    assert "The lead: Keep" in row and "He is a minister." in row and "(resolved)" in row


def test_the_flags_cost_no_query_a_row(team: Team) -> None:
    def queries(spans: int) -> int:
        text = " ".join(f"Name{n} Surname{n}" for n in range(spans))
        document = DocumentFactory(project=team.project, language="en", text=text)
        for n in range(spans):
            start = text.index(f"Name{n} ")
            span = Span.objects.create(
                document=document, start=start, end=start + len(f"Name{n}"), label="PER",
                source=SpanSource.NER,
            )  # fmt: skip
            act(team, span, action="flag", comment=f"Who is {n}?")
        url = reverse("document_detail", args=[team.project.slug, document.pk])
        client = client_for(team.annotator_en)
        with CaptureQueriesContext(connection) as captured:
            page = client.get(url).content.decode()
        assert page.count("Flagged") == spans
        return len(captured.captured_queries)

    assert queries(2) == queries(12)


def test_done_refused_names_the_proposals_by_their_text_and_opens_on_the_first(
    team: Team, document: Document
) -> None:
    annotator = client_for(team.annotator_en)
    done_url = reverse("document_done", args=[team.project.slug, document.pk])
    refused = annotator.post(done_url)
    moshe = span_of(document, "Moshe Chaya")
    detail = reverse("document_detail", args=[team.project.slug, document.pk])
    assert refused["Location"] == f"{detail}#span-{moshe.pk}"
    page = annotator.get(refused["Location"]).content.decode()
    assert f'<a href="#span-{moshe.pk}"><q dir="auto">Moshe Chaya</q></a>' in page
    assert "Rue Alphonse Metayer" in page and "2 proposals are still undecided" in page
    assert f"span {moshe.pk}" not in page


def test_a_snippet_is_cut_between_whole_characters() -> None:
    from annotator.views.span_actions import snippet

    assert snippet("Moshe") == "Moshe"
    assert snippet("ab👍🏽cd", limit=3) == "ab👍🏽…"  # the emoji keeps its skin tone
    assert snippet("abe\u0301cd", limit=3) == "abe\u0301…"  # the letter keeps its accent
    assert snippet("مرحبا بكم", limit=5) == "مرحبا…"


def test_an_edge_moves_by_a_word_past_punctuation(team: Team) -> None:
    text = "Met Dr. Lina Haddad, Jr. today."
    document = DocumentFactory(project=team.project, language="en", text=text,
                               assignee=team.annotator_en)  # fmt: skip
    start = text.index("Dr.")
    span = Span.objects.create(document=document, start=start, end=text.index(", Jr"),
                               label="PER", source=SpanSource.NER)  # fmt: skip
    act(team, span, action="move", edge="start", unit="word")
    span.refresh_from_db()
    assert text[span.start : span.end] == "Lina Haddad"
    act(team, span, action="move", edge="start", unit="word", extend="on")
    span.refresh_from_db()
    assert text[span.start : span.end] == "Dr. Lina Haddad"
    editor = (
        annotator_of(team)
        .get(reverse("span_editor", args=[team.project.slug, document.pk, span.pk]))
        .content.decode()
    )
    assert "Start one word later (drops it)" in editor and "End one word later (adds it)" in editor


def test_a_label_waits_for_the_end_of_a_word_its_span_ends_inside(team: Team) -> None:
    """A box between two letters breaks their joining: the label of "مكتب" in "مكتبة" comes
    after the word, on a piece of its own; a patch re-renders the whole word with it."""
    text = "👋🏽 ذهبت إلى مكتبة المدينة، وسارة"
    document = DocumentFactory(project=team.project, language="ar", text=text)
    start = text.index("مكتب")
    span = Span.objects.create(document=document, start=start, end=start + 4, label="LOC",
                               source=SpanSource.NER)  # fmt: skip
    at_end = text.index("المدينة")
    Span.objects.create(document=document, start=at_end, end=at_end + len("المدينة"),
                        label="PER", source=SpanSource.NER)  # fmt: skip
    lead = client_for(team.lead)
    page = lead.get(reverse("document_detail", args=[team.project.slug, document.pk]))
    body = text_of(page.content.decode())
    assert f'data-spans="{span.pk}" title="LOC (proposed)">مكتب</mark>' in body  # no label inside
    assert f'<span data-start="{start + 4}" data-end="{start + 5}" data-label="LOC">ة</span>' in (
        body
    )
    # A span that ends where its word does keeps its label on its own piece.
    assert 'data-label="PER" title="PER (proposed)">المدينة</mark>' in body
    assert html.unescape(re.sub(r"<[^>]+>", "", body.split(">", 1)[1])) == text

    url = reverse("span_action", args=[team.project.slug, document.pk, span.pk])
    patch = lead.post(
        url, {"version": span.version, "action": "label", "label": "DATE"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    _, window = patch_of(patch)
    assert window is not None and window[0] <= start and window[1] >= start + 5
    assert f'data-end="{start + 5}" data-label="DATE">ة</span>' in patch


def test_a_span_with_any_label_is_added_only_by_who_annotates_the_document(
    team: Team, document: Document
) -> None:
    url = reverse("span_add", args=[team.project.slug, document.pk])
    start = TEXT.index("at Rue")
    data = {"start": start, "end": start + 2, "label": "OTH:EVENT"}
    for user in (team.annotator_fr, team.outsider):  # another language; not in the project
        assert client_for(user).post(url, data, HTTP_HX_REQUEST="true").status_code == 404
    assert not Span.objects.filter(document=document, source=SpanSource.HUMAN).exists()
    assert client_for(team.lead).post(url, data, HTTP_HX_REQUEST="true").status_code == 200
    assert Span.objects.get(document=document, source=SpanSource.HUMAN).label == "OTH:EVENT"


# --- The text is rendered once for what its spans are ------------------------------------------


@pytest.fixture
def renders(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A cache of this test's own (the process's one outlives a test), and how many times the
    whole text has been rendered since: one entry a render, its length."""
    settings.CACHES = {
        **settings.CACHES,
        "rendered": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                     "LOCATION": "workspace-text-test"},
    }  # fmt: skip
    made: list[int] = []
    render = workspace_views._text

    def counted(*args: Any, **kwargs: Any) -> str:
        html = render(*args, **kwargs)
        if len(args) < 4 and "window" not in kwargs:  # the whole text, not a patch's stretch
            made.append(len(html))
        return html

    monkeypatch.setattr(workspace_views, "_text", counted)
    return made


def test_the_text_is_rendered_once_until_a_span_write_changes_what_it_shows(
    team: Team, document: Document, renders: list[int]
) -> None:
    first = open_page(team, document)
    assert text_of(open_page(team, document)) == text_of(first)
    assert len(renders) == 1  # every open since was served the same rendering
    # An accept changes the text (a proposal is dashed, an accepted span underlined): the
    # next open renders it again.
    act(team, span_of(document, "Moshe Chaya"), action="accept")
    accepted = open_page(team, document)
    assert len(renders) == 2 and text_of(accepted) != text_of(first)
    assert "hl-accepted" in text_of(accepted)
    # A pseudonym changes what its row shows, not the text: still two renderings.
    act(team, span_of(document, "Moshe Chaya"), action="decide", decision="pseudonymize",
        replacement="Raj Avrom")  # fmt: skip
    page = open_page(team, document)
    assert len(renders) == 2 and text_of(page) == text_of(accepted)
    assert "Raj Avrom" in page
    # A label changes the text: the next open renders it again, and shows the new label.
    act(team, span_of(document, "Moshe Chaya"), action="label", label="LOC")
    page = open_page(team, document)
    assert len(renders) == 3 and text_of(page) != text_of(accepted)
    assert 'data-label="LOC"' in text_of(page)


def _accept(team: Team, document: Document) -> None:
    act(team, span_of(document, "Rue Alphonse"), action="accept")


def _reject(team: Team, document: Document) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="reject")


def _relabel(team: Team, document: Document) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="label", label="LOC")


def _add(team: Team, document: Document) -> None:
    url = reverse("span_add", args=[team.project.slug, document.pk])
    response = annotator_of(team).post(url, {"start": 0, "end": 3, "label": "PER"})
    assert response.status_code == 302


def _move(team: Team, document: Document) -> None:
    act(team, span_of(document, "Moshe Chaya"), action="move", edge="end", unit="char",
        extend="on")  # fmt: skip


def _the_lead_behind(team: Team, document: Document) -> None:
    rue = span_of(document, "Rue Alphonse")
    response = client_for(team.lead).post(
        reverse("span_action", args=[team.project.slug, document.pk, rue.pk]),
        {"version": rue.version, "action": "reject"},
    )
    assert response.status_code == 302


@pytest.mark.parametrize(
    "write", [_accept, _reject, _relabel, _add, _move, _the_lead_behind],
    ids=["accept", "reject", "relabel", "add", "move", "another person"],
)  # fmt: skip
def test_the_next_open_shows_the_spans_as_they_are_after_each_write(
    team: Team, document: Document, renders: list[int], write: Callable[[Team, Document], None]
) -> None:
    """After a write, the page opened again is the page rendered from nothing: the rows and
    the text (marks, labels, colours) as the spans are now, never the cached marks of
    before."""
    before = open_page(team, document)
    open_page(team, document)
    write(team, document)
    after = open_page(team, document)
    cache.clear()
    fresh = open_page(team, document)
    assert text_of(after) == text_of(fresh)
    assert rows_of(after) == rows_of(fresh)
    assert rows_of(after) != rows_of(before)
    # Each of these writes changes what the text shows, an accept too (the text marks a
    # proposal, an accepted span and a rejected one apart).
    assert text_of(after) != text_of(before)


def test_a_span_s_urls_are_the_workspace_s_and_its_id(team: Team, document: Document) -> None:
    """A row carries no URL: the page's script makes a span's from the workspace's
    data-add-url and the span's id (workspace.js, spanUrl), which must stay the routes'."""
    page = open_page(team, document)
    base = re.search(r'data-add-url="([^"]+)"', page)
    assert base is not None
    span = span_of(document, "Moshe Chaya")
    args = [team.project.slug, document.pk, span.pk]
    assert f"{base[1]}{span.pk}/" == reverse("span_action", args=args)
    assert f"{base[1]}{span.pk}/editor/" == reverse("span_editor", args=args)
    assert f"{base[1]}{span.pk}/suggestions/" == reverse("span_suggestions", args=args)
    assert f'data-span-id="{span.pk}"' in page and "data-action-url" not in page


def test_adding_less_than_a_word_asks_for_confirmation_from_the_notice(
    team: Team, document: Document
) -> None:
    """Issue 29, 4: the refusal offers to send the same add again, confirmed."""
    url = reverse("span_add", args=[team.project.slug, document.pk])
    start = TEXT.index("Moshe")
    asked = {"start": start, "end": start + 3, "label": "PER"}  # "Mos"
    client = annotator_of(team)
    refused = client.post(url, asked, HTTP_HX_REQUEST="true").content.decode()
    assert "is part of a word" in refused and "Decide it as it is" in refused
    assert f'hx-post="{url}"' in refused
    for name, value in asked.items():
        assert f'<input type="hidden" name="{name}" value="{value}">' in refused
    assert not Span.objects.filter(document=document, source=SpanSource.HUMAN).exists()

    client.post(url, {**asked, "confirm": "on"}, HTTP_HX_REQUEST="true")
    added = Span.objects.get(document=document, source=SpanSource.HUMAN)
    assert TEXT[added.start : added.end] == "Mos"


def test_moving_an_accepted_edge_into_a_word_asks_to_confirm_then_moves(
    team: Team, document: Document
) -> None:
    moshe = span_of(document, "Moshe Chaya")
    act(team, moshe, action="accept")
    moshe.refresh_from_db()
    move = {"action": "move", "edge": "end", "unit": "char"}
    refused = act(team, moshe, **move)
    assert "is part of a word" in refused and "Decide it as it is" in refused
    assert Span.objects.get(pk=moshe.pk).end == moshe.end
    act(team, moshe, **move, confirm="on")
    assert TEXT[: Span.objects.get(pk=moshe.pk).end].endswith("Moshe Chay")


def test_undo_of_an_edge_move_takes_the_surface_it_made_out_of_the_table(
    team: Team, document: Document
) -> None:
    """Issue 31, trap 2: an edge moved and undone left "Met Moshe Chaya" in the table with no
    span, an undecided known entity that refused every release holding it."""
    act(team, span_of(document, "Moshe Chaya"), action="accept")
    act(team, span_of(document, "Moshe Chaya"), action="move", edge="start", unit="word",
        extend="on")  # fmt: skip
    assert surface_choice(team.project, "Met Moshe Chaya") is not None
    undo(team, document)
    span = span_of(document, "Moshe Chaya")
    assert span.status == SpanStatus.ACCEPTED and span.entity_id is not None
    assert surface_choice(team.project, "Met Moshe Chaya") is None
    assert surface_choice(team.project, "Moshe Chaya") is not None
    # Both withdrawals are audited: "Moshe Chaya" when the edge moved off it (it comes back
    # with the undo), "Met Moshe Chaya" with the undo.
    withdrawn = AuditEvent.objects.filter(project=team.project, action=AuditAction.KEY_EDIT,
                                          detail__change="withdrawn")  # fmt: skip
    assert withdrawn.count() == 2


def test_undo_of_an_added_span_takes_its_surface_out_of_the_table(
    team: Team, document: Document
) -> None:
    start = TEXT.index("Alphonse")
    url = reverse("span_add", args=[team.project.slug, document.pk])
    annotator_of(team).post(url, {"start": start, "end": start + len("Alphonse"), "label": "PER"},
                            HTTP_HX_REQUEST="true")  # fmt: skip
    assert surface_choice(team.project, "Alphonse") is not None
    undo(team, document)
    assert surface_choice(team.project, "Alphonse") is None


def test_undo_keeps_in_the_table_what_another_span_relies_on(
    team: Team, document: Document
) -> None:
    other = DocumentFactory(project=team.project, language="en", text="Alphonse came.")
    Span.objects.create(document=other, start=0, end=8, label="PER", source=SpanSource.HUMAN,
                        status=SpanStatus.PROPOSED)  # fmt: skip
    start = TEXT.index("Alphonse")
    url = reverse("span_add", args=[team.project.slug, document.pk])
    annotator_of(team).post(url, {"start": start, "end": start + len("Alphonse"), "label": "PER"},
                            HTTP_HX_REQUEST="true")  # fmt: skip
    choice = surface_choice(team.project, "Alphonse")
    assert choice is not None
    Span.objects.filter(document=other).update(entity_id=choice.entity_id)
    undo(team, document)
    assert surface_choice(team.project, "Alphonse") is not None


def test_a_decided_change_keeps_a_finished_document_finished_and_a_reopening_says_so(
    team: Team, document: Document
) -> None:
    """Issue 31, trap 1: an edge moved in a finished document sent it back to "in progress"
    without a word, and the next release left it out."""
    act(team, span_of(document, "Moshe Chaya"), action="accept")
    act(team, span_of(document, "Rue Alphonse"), action="reject")
    document_status_set(document=document, actor=team.annotator_en, status=DocumentStatus.DONE)
    fragment = act(team, span_of(document, "Moshe Chaya"), action="move", edge="end",
                   unit="char", extend="on")  # fmt: skip
    document.refresh_from_db()
    assert document.status == DocumentStatus.DONE
    assert "in progress again" not in fragment
    undo(team, document)  # the move: decided again, still finished
    document.refresh_from_db()
    assert document.status == DocumentStatus.DONE
    fragment = undo(team, document)  # the rejection: a proposal undecided again
    document.refresh_from_db()
    assert document.status == DocumentStatus.IN_PROGRESS
    assert "This document was done" in html.unescape(fragment)


def test_a_relabel_that_spans_elsewhere_follow_is_asked_from_the_notice(
    team: Team, document: Document
) -> None:
    """Issue 31, 3: a relabel of a decided span whose entity another document holds asks
    first, with a button that says what confirming does; confirmed, it goes through."""
    moshe = span_of(document, "Moshe Chaya")
    act(team, moshe, action="accept")
    other = DocumentFactory(project=team.project, language="fr", text="Moshe Chaya écrit.")
    Span.objects.create(document=other, start=0, end=11, label="PER", source=SpanSource.KNOWN,
                        entity_id=Span.objects.get(pk=moshe.pk).entity_id)  # fmt: skip
    moshe.refresh_from_db()
    refused = act(team, moshe, action="label", label="LOC")
    assert "1 other span in 1 document (fr)" in refused
    assert "Relabel it LOC everywhere" in refused
    assert Span.objects.get(pk=moshe.pk).label == "PER"
    act(team, moshe, action="label", label="LOC", confirm="on")
    assert Span.objects.get(pk=moshe.pk).label == "LOC"
    assert Span.objects.get(document=other).label == "LOC"


def test_an_edge_move_that_draws_a_new_pseudonym_says_so(team: Team, document: Document) -> None:
    """Issue 31, 4: a move to a surface new to the table gets a pseudonym of its own, and the
    page says so, with the old one; never silently."""
    moshe = span_of(document, "Moshe Chaya")
    act(team, moshe, action="accept")
    moshe.refresh_from_db()
    before = surface_choice(team.project, "Moshe Chaya")
    assert before is not None
    answer = act(team, moshe, action="move", edge="start", unit="word", extend="on")
    after = surface_choice(team.project, "Met Moshe Chaya")
    assert after is not None and after.replacement != before.replacement
    assert "has a pseudonym of its own" in answer
    assert html.escape(after.replacement) in answer and html.escape(before.replacement) in answer


def test_an_accept_that_leaves_a_finished_document_undecided_reopens_it_and_says_so(
    team: Team, document: Document
) -> None:
    """Propagation proposes a decided surface in a finished document: the next accept there
    leaves the other proposal undecided, so the document is in progress again."""
    for surface in ("Moshe Chaya", "Rue Alphonse"):
        act(team, span_of(document, surface), action="reject")
    document_status_set(document=document, actor=team.annotator_en, status=DocumentStatus.DONE)
    for surface in ("Moshe", "Chaya"):
        start = TEXT.index(surface)
        Span.objects.create(document=document, start=start, end=start + len(surface),
                            label="PER", source=SpanSource.KNOWN)  # fmt: skip
    moshe = Span.objects.get(document=document, start=TEXT.index("Moshe"), end=9)
    fragment = act(team, moshe, action="accept")
    document.refresh_from_db()
    assert document.status == DocumentStatus.IN_PROGRESS
    assert "in progress again" in fragment and "1 proposal left to decide" in fragment


def test_a_choice_the_table_refuses_changes_nothing_and_goes_to_the_lead(
    team: Team, document: Document
) -> None:
    """The change rolls back whole (the proposal it would have set aside included, and no
    undo step), then the refusal is recorded for the lead's review."""
    surface_decide(project=team.project, surface="Moshe Chaya", language="en", label="PER",
                   decision="pseudonymize", replacement="Raj Avrom", actor=team.lead)  # fmt: skip
    start = TEXT.index("Chaya")
    chaya = Span.objects.create(document=document, start=start, end=start + len("Chaya"),
                                label="PER", source=SpanSource.NER)  # fmt: skip
    fragment = act(team, span_of(document, "Moshe Chaya"), action="decide",
                   decision="pseudonymize", replacement="Quill Wanted")  # fmt: skip
    assert "alert-error" in fragment
    moshe = span_of(document, "Moshe Chaya")
    assert (moshe.status, moshe.version) == (SpanStatus.PROPOSED, 1)
    assert Span.objects.get(pk=chaya.pk).status == SpanStatus.PROPOSED
    assert not UndoStep.objects.filter(document=document).exists()
    item = ReviewItem.objects.get(span_id=moshe.pk)
    assert item.kind == ReviewKind.SURFACE_CONFLICT and item.status == ReviewStatus.OPEN
    assert surface_choice(team.project, "Moshe Chaya").replacement == "Raj Avrom"  # type: ignore[union-attr]


def test_what_changed_at_both_ends_of_a_long_document_comes_as_two_short_stretches(
    team: Team,
) -> None:
    """An action near the start while someone changed a span near the end: the patch
    re-renders the text around each, not everything between (issue 33: an open page that
    propagation keeps changing got the whole text back with every action)."""
    middle = " ".join(["filler"] * 2000)
    text = f"Met Moshe Chaya today. {middle} Then Rue Alphonse Metayer."
    document = DocumentFactory(
        project=team.project, language="en", text=text, assignee=team.annotator_en,
        status=DocumentStatus.PREANNOTATED,
    )  # fmt: skip
    for surface, label in [("Moshe Chaya", "PER"), ("Rue Alphonse Metayer", "ADDRESS")]:
        start = text.index(surface)
        Span.objects.create(document=document, start=start, end=start + len(surface),
                            label=label, source=SpanSource.NER, score=0.9)  # fmt: skip
    before = open_page(team, document)
    rue = Span.objects.get(document=document, label="ADDRESS")
    client_for(team.lead).post(  # another person, meanwhile, at the far end
        reverse("span_action", args=[team.project.slug, document.pk, rue.pk]),
        {"version": rue.version, "action": "reject"},
    )
    moshe = Span.objects.get(document=document, label="PER")
    url = reverse("span_action", args=[team.project.slug, document.pk, moshe.pk])
    fragment = annotator_of(team).post(
        url, {"version": moshe.version, "action": "label", "label": "LOC", **shown_by(before)},
        HTTP_HX_REQUEST="true",
    ).content.decode()  # fmt: skip
    stretch = r'data-patch="text" data-from="(\d+)" data-to="(\d+)"'
    windows = [(int(low), int(high)) for low, high in re.findall(stretch, fragment)]
    assert len(windows) == 2, windows
    assert windows[0][1] < text.index(middle) + 100 and windows[1][0] > text.index(middle)
    assert sum(high - low for low, high in windows) < 200
    assert_patch_makes(before, fragment, open_page(team, document))
