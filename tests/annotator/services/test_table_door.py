"""The one door to the keys (`annotator.services.table`): every read of the table by a person
writes its audit row by construction, the keys' errors come out in the Domain's words, and an
edit writes the keys and the spans in the order its docstring gives."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.db import transaction

from annotator.errors import ConflictError, DomainError, NotFoundError, StaleVersion
from annotator.keys.models import Entity
from annotator.models import AuditAction, AuditEvent, Span, SpanStatus
from annotator.services import table
from annotator.services.table import edits
from tests.conftest import Team
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db

IP = "192.0.2.7"


def decide(team: Team, surface: str, replacement: str | None = None, **kw: Any) -> table.Choice:
    """The surface's choice as the table holds it afterwards (`created` set aside)."""
    options: dict[str, Any] = {"language": "en", "label": "PER", "decision": "pseudonymize"}
    options.update(kw)
    choice = table.surface_decide(
        project=team.project, surface=surface, replacement=replacement, **options
    )
    return replace(choice, created=False)


def only_event() -> AuditEvent:
    events = list(AuditEvent.objects.all())
    assert len(events) == 1, [(e.action, e.detail) for e in events]
    return events[0]


# --- Every person's read is audited by the read itself ------------------------------------


def test_a_page_of_the_table_writes_its_read(team: Team) -> None:
    decide(team, "Moshe Chaya", "Raj Avrom")
    page = table.entity_page(team.project, table.KeyFilters(), actor=team.lead, ip_address=IP)
    assert len(page.rows) == 1
    event = only_event()
    assert (event.action, event.actor, event.ip_address) == (AuditAction.KEY_READ, team.lead, IP)
    assert event.detail == {"shown": 1}


def test_a_search_writes_its_filters_never_its_words(team: Team) -> None:
    decide(team, "Moshe Chaya", "Raj Avrom")
    filters = table.KeyFilters(q="chaya", label="PER")
    page = table.entity_page(team.project, filters, actor=team.lead)
    assert [alias.original for alias in page.rows[0].aliases][0] == "Moshe Chaya"
    event = only_event()
    assert event.action == AuditAction.KEY_SEARCH
    assert event.detail["query_words"] == 1 and "chaya" not in str(event.detail).lower()


def test_a_page_past_the_last_is_the_last_and_one_read(team: Team) -> None:
    decide(team, "Moshe Chaya", "Raj Avrom")
    page = table.entity_page(
        team.project, table.KeyFilters(), actor=team.lead, offset=50, last_if_past=True
    )
    assert [row.id for row in page.rows] and page.offset == 0
    assert only_event().detail == {"shown": 1}


def test_one_entity_writes_its_read_with_the_entity_as_target(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", "Raj Avrom")
    row = table.entity_read(team.project, choice.entity_id, actor=team.lead, ip_address=IP)
    assert row.id == choice.entity_id
    event = only_event()
    assert (event.action, event.target) == (AuditAction.KEY_READ, f"entity:{choice.entity_id}")
    with pytest.raises(NotFoundError):
        table.entity_read(team.project, choice.entity_id + 1000, actor=team.lead)
    assert AuditEvent.objects.count() == 1  # nothing shown, nothing read


def test_the_candidate_links_write_their_read(team: Team) -> None:
    decide(team, "Moshe Chaya", "Raj Avrom")
    decide(team, "موشيه حايا", language="ar")
    found = table.link_candidates_read(team.project, actor=team.lead)
    pairs = table.candidate_pairs_read(team.project, actor=team.lead)
    events = list(AuditEvent.objects.order_by("pk"))
    assert [e.detail for e in events] == [
        {"shown": len(found), "view": "candidates"},
        {"shown": len(pairs), "view": "candidates"},
    ]
    assert all(e.action == AuditAction.KEY_READ for e in events)


def test_an_export_writes_its_audit(team: Team) -> None:
    decide(team, "Moshe Chaya", "Raj Avrom")
    data, aliases = table.keys_export(
        project=team.project, passphrase="a long enough passphrase", actor=team.admin
    )
    assert data and aliases == 3  # the name and the two words cut from it
    event = only_event()
    assert event.action == AuditAction.KEY_EXPORT and event.detail["aliases"] == 3


def test_review_notes_shown_to_a_lead_write_their_read(team: Team) -> None:
    table.review_note_write(team.project, item_id=41, detail={"replacement": "Raj"})
    notes = table.review_notes_read(project=team.project, item_ids=[41, 42], actor=team.lead)
    assert notes[41].over({"kind": "x"}, {}) == ({"kind": "x", "replacement": "Raj"}, {})
    event = only_event()
    assert (event.action, event.target) == (AuditAction.KEY_READ, "review:41")


def test_code_reads_write_no_audit(team: Team) -> None:
    """What workers and services read (no person shown anything) is not a person's read."""
    choice = decide(team, "Moshe Chaya", "Raj Avrom")
    assert table.surface_choice(team.project, "moshe chaya") == choice
    assert ("Moshe Chaya", "PER") in table.known_surfaces(team.project)
    assert table.entity_get(team.project, choice.entity_id).id == choice.entity_id
    assert not AuditEvent.objects.exists()


def test_a_search_is_kept_sealed_in_the_session() -> None:
    session = SessionStore()
    token = table.search_remember(session, "Moshe Chaya")
    assert "Moshe" not in str(dict(session.items()))
    assert table.search_recall(session, token) == "Moshe Chaya"
    assert table.search_recall(session, "unknown") is None


# --- The keys' errors are the Domain's ------------------------------------------------------


def test_the_keys_raise_the_domains_errors_with_nothing_to_translate(team: Team) -> None:
    """Issue 32: each refusal was written twice (the keys' and the Domain's, a translation
    between). The keys raise the Domain's family, and they reach a page as they are."""
    from annotator.keys import errors as keys_errors  # noqa: PLC0415

    assert issubclass(keys_errors.SurfaceConflict, ConflictError)
    assert issubclass(keys_errors.ReplacementRefused, DomainError)
    assert table.SurfaceConflict is keys_errors.SurfaceConflict
    with pytest.raises(NotFoundError):
        table.entity_get(team.project, 424242)
    first = decide(team, "Moshe Chaya", "Raj Avrom")
    with pytest.raises(StaleVersion) as stale:
        table.entity_update(project=team.project, entity_id=first.entity_id, actor=None,
                            version=9, change=table.EntityChange(decision="keep"))  # fmt: skip
    assert stale.value.current == first.entity_id


def test_a_surface_taken_is_a_conflict_with_the_winner(team: Team) -> None:
    first = decide(team, "Moshe Chaya", "Raj Avrom")
    with pytest.raises(table.SurfaceConflict) as conflict:
        decide(team, "Moshe Chaya", decision="keep", keep_reason="public")
    assert conflict.value.winner == first


# --- The order of writes -------------------------------------------------------------------


def _fail(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("the default database refused the write")


@pytest.mark.parametrize("second_write", ["_spans_follow", "_audit"])
def test_an_edit_whose_second_write_fails_changes_nothing(
    team: Team, monkeypatch: pytest.MonkeyPatch, second_write: str
) -> None:
    """The keys are written first, left open; the spans and the audit row second: when the
    second write fails, the keys roll back too (the docstring of `edits`)."""
    choice = decide(team, "Moshe Chaya", "Raj Avrom")
    document = DocumentFactory(project=team.project)
    span = SpanFactory(
        document=document,
        start=0,
        end=5,
        status=SpanStatus.ACCEPTED,
        decision="pseudonymize",
        entity_id=choice.entity_id,
    )
    monkeypatch.setattr(edits, second_write, _fail)

    with pytest.raises(RuntimeError):
        table.entity_update(
            project=team.project,
            entity_id=choice.entity_id,
            actor=team.lead,
            version=1,
            change=table.EntityChange(decision="keep", keep_reason="a public figure"),
        )

    entity = Entity.objects.get(pk=choice.entity_id)
    assert (entity.decision, entity.keep_reason, entity.version) == ("pseudonymize", "", 1)
    assert table.surface_choice(team.project, "Moshe Chaya") == choice  # its pseudonym too
    assert Span.objects.get(pk=span.pk).decision == "pseudonymize"
    assert not AuditEvent.objects.exists()


def test_a_merge_whose_spans_cannot_follow_leaves_both_entities(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    english = decide(team, "Moshe Chaya", "Raj Avrom")
    arabic = decide(team, "موشيه حايا", language="ar")
    monkeypatch.setattr(edits, "_spans_follow", _fail)

    with pytest.raises(RuntimeError):
        table.entity_merge(
            project=team.project,
            entity_id=english.entity_id,
            other_id=arabic.entity_id,
            actor=team.lead,
            version=1,
            other_version=1,
        )

    assert Entity.objects.filter(pk__in=[english.entity_id, arabic.entity_id]).count() == 2
    assert table.surface_choice(team.project, "موشيه حايا") == arabic
    assert not AuditEvent.objects.exists()


def test_an_edit_writes_the_keys_then_the_spans_then_commits_the_keys(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the spans follow, the keys' change is written and not yet committed: the spans
    are written inside the keys' transaction, never after it."""
    choice = decide(team, "Moshe Chaya", "Raj Avrom")
    seen: list[tuple[str, bool]] = []
    follow = edits._spans_follow

    def watched(project: Any, change: Any) -> int:
        keys = transaction.get_connection(table.edits.keys_alias())
        seen.append((Entity.objects.get(pk=choice.entity_id).decision, keys.in_atomic_block))
        return follow(project, change)

    monkeypatch.setattr(edits, "_spans_follow", watched)
    table.entity_update(
        project=team.project,
        entity_id=choice.entity_id,
        actor=team.lead,
        version=1,
        change=table.EntityChange(decision="delete"),
    )
    assert seen == [("delete", True)]
    assert Entity.objects.get(pk=choice.entity_id).decision == "delete"
    assert AuditEvent.objects.get().detail["spans"] == 0
