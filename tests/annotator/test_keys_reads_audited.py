"""Issue 32: every answer that shows an original of the table is an audited read by its person,
whatever the outcome; a refused edit is audited as refused.

A refused key edit answered 409 (or 400) with the entity's decrypted originals, read with no
audit row, and only edits that succeeded were audited. This walks every page and endpoint
that can show an original, each way it can end, and counts the audit rows: wherever an
original is in the answer, a read (or the edit that made it) by that person is in the audit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from annotator.models import AuditAction, AuditEvent
from annotator.services.table import Choice, surface_decide
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

ORIGINAL = "Moshe Chaya"
OTHER = "Tova Leibel"
READS = (AuditAction.KEY_READ, AuditAction.KEY_SEARCH)


@dataclass(frozen=True)
class World:
    team: Team
    moshe: Choice
    tova: Choice

    def url(self, name: str, pk: int | None = None) -> str:
        kwargs: dict[str, Any] = {"slug": self.team.project.slug}
        if pk is not None:
            kwargs["pk"] = pk
        return reverse(name, kwargs=kwargs)


@pytest.fixture
def world(team: Team) -> World:
    DocumentFactory(project=team.project)  # "… At Rue Alphonse Metayer."
    options: dict[str, Any] = {"language": "en", "label": "PER", "decision": "pseudonymize"}
    moshe = surface_decide(project=team.project, surface=ORIGINAL, replacement="Raj Avrom",
                           **options)  # fmt: skip
    tova = surface_decide(project=team.project, surface=OTHER, replacement="Ilse Marr", **options)
    return World(team, moshe, tova)


def _json(client: Client, method: str, url: str, body: dict[str, Any]) -> Any:
    return getattr(client, method)(url, body, content_type="application/json")


# (what, the request, whether it is an edit the table refuses)
Walk = Callable[[World, Client], Any]
WALKS: dict[str, tuple[Walk, bool]] = {
    # The API.
    "api list": (lambda w, c: c.get(w.url("api-entity-list")), False),
    "api search": (lambda w, c: c.get(w.url("api-entity-list"), {"q": "chaya"}), False),
    "api entity": (lambda w, c: c.get(w.url("api-entity-detail", w.moshe.entity_id)), False),
    "api candidates": (lambda w, c: c.get(w.url("api-entity-candidates")), False),
    "api edit, stale (409 with the entity)": (
        lambda w, c: _json(
            c,
            "patch",
            w.url("api-entity-detail", w.moshe.entity_id),
            {"version": 7, "decision": "keep", "keep_reason": "public"},
        ),
        True,
    ),  # fmt: skip
    "api edit, refused (400)": (
        lambda w, c: _json(
            c,
            "patch",
            w.url("api-entity-detail", w.moshe.entity_id),
            {"version": 1, "replacements": [{"alias": w.moshe.alias_id, "replacement": "Metayer"}]},
        ),
        True,
    ),  # fmt: skip
    "api merge, stale (409)": (
        lambda w, c: _json(
            c,
            "post",
            w.url("api-entity-merge", w.moshe.entity_id),
            {"other": w.tova.entity_id, "version": 9, "other_version": 1},
        ),
        True,
    ),  # fmt: skip
    "api split, refused (400)": (
        lambda w, c: _json(
            c,
            "post",
            w.url("api-entity-split", w.moshe.entity_id),
            {"aliases": [w.moshe.alias_id], "version": 1},
        ),
        True,
    ),  # fmt: skip
    "api link, refused (400)": (
        lambda w, c: _json(
            c,
            "post",
            w.url("api-entity-link", w.moshe.entity_id),
            {"alias": w.moshe.alias_id, "version": 1},
        ),
        True,
    ),  # fmt: skip
    # The pages.
    "page list": (lambda w, c: c.get(w.url("key_list")), False),
    "page entity": (lambda w, c: c.get(w.url("key_entity", w.moshe.entity_id)), False),
    "page candidates": (lambda w, c: c.get(w.url("key_candidates")), False),
    "page edit, a bad form (400)": (
        lambda w, c: c.post(
            w.url("key_entity", w.moshe.entity_id), {"version": 1, "decision": "nonsense"}
        ),
        False,
    ),  # fmt: skip
    "page edit, stale (409)": (
        lambda w, c: c.post(
            w.url("key_entity", w.moshe.entity_id),
            {"version": 5, "decision": "keep", "keep_reason": "public"},
        ),
        True,
    ),  # fmt: skip
    "page edit, refused (400)": (
        lambda w, c: c.post(
            w.url("key_entity", w.moshe.entity_id),
            {
                "version": 1,
                "decision": "pseudonymize",
                f"replacement_{w.moshe.alias_id}": "Metayer",
            },
        ),
        True,
    ),  # fmt: skip
    "page merge, stale (409)": (
        lambda w, c: c.post(
            w.url("key_merge", w.moshe.entity_id),
            {"other": w.tova.entity_id, "version": 4, "other_version": 1},
        ),
        True,
    ),  # fmt: skip
    "page merge, a bad form (400)": (
        lambda w, c: c.post(w.url("key_merge", w.moshe.entity_id), {"version": 1}),
        False,
    ),  # fmt: skip
    "page split, refused (400)": (
        lambda w, c: c.post(
            w.url("key_split", w.moshe.entity_id), {"aliases": [w.moshe.alias_id], "version": 1}
        ),
        True,
    ),  # fmt: skip
    "page link, refused (400)": (
        lambda w, c: c.post(
            w.url("key_link", w.moshe.entity_id), {"alias": w.moshe.alias_id, "version": 1}
        ),
        True,
    ),  # fmt: skip
}


@pytest.mark.parametrize("what", list(WALKS))
@pytest.mark.parametrize("role", ["lead", "admin"])
def test_every_answer_that_shows_an_original_is_an_audited_read(
    world: World, what: str, role: str
) -> None:
    walk, refused_edit = WALKS[what]
    person = getattr(world.team, role)
    client = client_for(person)
    seen = AuditEvent.objects.count()
    response = walk(world, client)
    body = response.content.decode()
    new = AuditEvent.objects.order_by("pk")[seen:]
    mine = [event for event in new if event.actor_id == person.pk]
    assert len(mine) == len(list(new)), "an audit row by someone else"
    if refused_edit:
        assert response.status_code in (400, 409), (response.status_code, body[:300])
        refusals = [
            event for event in mine
            if event.action == AuditAction.KEY_EDIT and event.detail.get("refused")
        ]  # fmt: skip
        assert len(refusals) == 1, [(e.action, e.detail) for e in mine]
        assert refusals[0].target == f"entity:{world.moshe.entity_id}"
        assert set(refusals[0].detail) == {"action", "refused"}  # kinds, never a name
    if ORIGINAL in body or OTHER in body:
        reads = [event for event in mine if event.action in READS]
        assert len(reads) == 1, (what, [(e.action, e.detail) for e in mine])
        assert reads[0].ip_address == "127.0.0.1"
    for event in mine:
        assert ORIGINAL not in str(event.detail) and OTHER not in str(event.detail)


def test_the_walk_shows_originals_where_it_should(world: World) -> None:
    """The walk is not vacuous: the refusals that show the entity do show its original."""
    client = client_for(world.team.lead)
    for what in ("api edit, stale (409 with the entity)", "page edit, stale (409)",
                 "page split, refused (400)", "page edit, a bad form (400)"):  # fmt: skip
        walk, _ = WALKS[what]
        assert ORIGINAL in walk(world, client).content.decode(), what
