"""The keys' pages: search (htmx), an entity's edit, merge, split, link, candidates."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from annotator.keys.models import Alias, Entity
from annotator.models import AuditAction, AuditEvent, Span
from annotator.services.table import Choice, surface_decide
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db


def decide(team: Team, surface: str, replacement: str | None = None, **kw: Any) -> Choice:
    options: dict[str, Any] = {"language": "en", "label": "PER", "decision": "pseudonymize"}
    options.update(kw)
    return surface_decide(project=team.project, surface=surface, replacement=replacement, **options)


def url(team: Team, name: str, pk: int | None = None) -> str:
    kwargs: dict[str, Any] = {"slug": team.project.slug}
    if pk is not None:
        kwargs["pk"] = pk
    return reverse(name, kwargs=kwargs)


def test_the_list_shows_entities_and_is_never_cached(team: Team) -> None:
    decide(team, "Moshe Chaya", "Raj Avrom")
    response = client_for(team.lead).get(url(team, "key_list"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Moshe Chaya" in page and "Raj Avrom" in page
    assert "no-store" in response["Cache-Control"]
    assert AuditEvent.objects.get().action == AuditAction.KEY_READ


def test_a_live_search_answers_the_table_alone_and_is_audited(team: Team) -> None:
    decide(team, "Moshe Chaya", "Raj Avrom")
    decide(team, "Tom Reddle", "Sam Bell")
    # The form's live search posts (a query typed in an address is redirected: below).
    response = client_for(team.admin).post(
        url(team, "key_list"), {"q": "reddle"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="key-table"
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="key-table"' in page and "<form" not in page
    assert "Tom Reddle" in page and "Moshe Chaya" not in page
    event = AuditEvent.objects.get(action=AuditAction.KEY_SEARCH)
    assert event.detail["query_words"] == 1 and "reddle" not in str(event.detail).lower()


def test_a_search_is_posted_and_its_address_holds_a_token_never_the_name(team: Team) -> None:
    decide(team, "Moshe Chaya", "Raj Avrom")
    decide(team, "Tom Reddle", "Sam Bell")
    client = client_for(team.lead)

    response = client.post(url(team, "key_list"), {"q": "Reddle", "label": "PER"})

    assert response.status_code == 303
    address = response["Location"]
    assert "reddle" not in address.lower() and "search=" in address and "label=PER" in address
    page = client.get(address).content.decode()
    assert "Tom Reddle" in page and "Moshe Chaya" not in page
    assert 'value="Reddle"' in page  # the box still shows what was searched
    # The session keeps the query sealed, as the table keeps originals.
    from django.contrib.sessions.models import Session

    stored = "".join(str(session.get_decoded()) for session in Session.objects.all())
    assert "Reddle" not in stored and "reddle" not in stored.lower()


def test_a_live_search_pushes_an_address_with_a_token(team: Team) -> None:
    decide(team, "Tom Reddle", "Sam Bell")
    response = client_for(team.admin).post(
        url(team, "key_list"), {"q": "reddle"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="key-table"
    )
    assert response.status_code == 200
    assert "Tom Reddle" in response.content.decode()
    pushed = response["HX-Push-Url"]
    assert pushed.startswith(url(team, "key_list")) and "search=" in pushed
    assert "reddle" not in pushed.lower()


def test_a_search_token_from_another_session_finds_nothing_and_says_so(team: Team) -> None:
    decide(team, "Tom Reddle", "Sam Bell")
    address = client_for(team.lead).post(url(team, "key_list"), {"q": "reddle"})["Location"]

    page = client_for(team.admin).get(address).content.decode()

    assert "no longer kept" in page
    assert "Tom Reddle" in page  # the whole table, unfiltered: nothing of the other's search


def test_pages_of_a_search_keep_the_token(team: Team) -> None:
    for number in range(60):
        decide(team, f"Anna Kowal{number:02d} Smith", f"Pseudo Nym{number:02d}")
    client = client_for(team.lead)
    address = client.post(url(team, "key_list"), {"q": "smith"})["Location"]
    page = client.get(address).content.decode()
    token = address.split("search=")[1].split("&")[0]
    assert f"search={token}&amp;page=2" in page
    assert "smith" not in page.split("pagination")[-1].lower()


def test_a_key_search_typed_in_the_address_is_redirected_to_a_sealed_search(team: Team) -> None:
    decide(team, "Moshe Chaya", "Raj Avrom")
    decide(team, "Tom Reddle", "Sam Bell")
    client = client_for(team.lead)
    keys = url(team, "key_list")

    answer = client.get(keys, {"q": "Moshe", "label": "PER"})

    assert answer.status_code == 303
    location = answer["Location"]
    assert "moshe" not in location.lower() and "q=" not in location
    assert location.startswith(keys) and "search=" in location and "label=PER" in location
    page = client.get(location).content.decode()
    assert "Moshe Chaya" in page and "Tom Reddle" not in page


def test_a_key_search_typed_in_an_htmx_address_is_redirected_too(team: Team) -> None:
    keys = url(team, "key_list")

    answer = client_for(team.lead).get(
        keys, {"q": "Moshe"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="key-table"
    )

    assert answer.status_code == 303 and "moshe" not in answer["Location"].lower()


def test_a_refused_key_search_in_the_address_is_dropped_and_the_page_says_why(
    team: Team,
) -> None:
    keys = url(team, "key_list")
    client = client_for(team.lead)

    answer = client.get(keys, {"q": "Moshe" * 50})

    assert answer.status_code == 303 and "moshe" not in answer["Location"].lower()
    assert "at most 200 characters" in client.get(answer["Location"]).content.decode()


def test_an_entity_page_saves_an_edit_and_refuses_a_stale_one(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", "Raj Avrom")
    client = client_for(team.lead)
    page = client.get(url(team, "key_entity", choice.entity_id))
    assert page.status_code == 200 and "Moshe Chaya" in page.content.decode()
    tokens = list(Alias.objects.filter(parent_id=choice.alias_id))
    form = {
        "version": 1,
        "decision": "pseudonymize",
        "keep_reason": "",
        f"replacement_{choice.alias_id}": "Ezra Lamm",
        **{f"replacement_{t.pk}": t.replacement for t in tokens},
    }
    response = client.post(url(team, "key_entity", choice.entity_id), form)
    assert response.status_code == 302
    assert Alias.objects.get(pk=choice.alias_id).replacement == "Ezra Lamm"
    stale = client.post(url(team, "key_entity", choice.entity_id), form)
    assert stale.status_code == 409
    assert "changed since you read it" in stale.content.decode()


def test_a_decision_change_on_the_page_reaches_the_spans(team: Team) -> None:
    choice = decide(team, "Moshe Chaya", "Raj Avrom")
    span = SpanFactory(document=DocumentFactory(project=team.project), status="accepted")
    Span.objects.filter(pk=span.pk).update(entity_id=choice.entity_id)
    response = client_for(team.lead).post(
        url(team, "key_entity", choice.entity_id),
        {"version": 1, "decision": "keep", "keep_reason": "a public figure"},
    )
    assert response.status_code == 302
    assert Span.objects.get(pk=span.pk).decision == "keep"


def test_merge_split_and_link_from_the_pages(team: Team) -> None:
    english = decide(team, "Moshe Chaya", "Raj Avrom")
    arabic = decide(team, "موشيه حايا", language="ar")
    client = client_for(team.lead)
    candidates = client.get(url(team, "key_candidates")).content.decode()
    assert "موشيه حايا" in candidates and "transliteration" in candidates
    merged = client.post(
        url(team, "key_merge", english.entity_id),
        {"other": arabic.entity_id, "version": 1, "other_version": 1},
    )
    assert merged.status_code == 302
    assert not Entity.objects.filter(pk=arabic.entity_id).exists()
    split = client.post(
        url(team, "key_split", english.entity_id), {"version": 2, "aliases": [arabic.alias_id]}
    )
    assert split.status_code == 302
    new = Alias.objects.get(pk=arabic.alias_id).entity_id
    assert split["Location"] == url(team, "key_entity", new)
    linked = client.post(
        url(team, "key_link", english.entity_id), {"version": 3, "alias": arabic.alias_id}
    )
    assert linked.status_code == 302
    assert Alias.objects.get(pk=arabic.alias_id).entity_id == english.entity_id


def test_a_refused_merge_says_why_and_changes_nothing(team: Team) -> None:
    english = decide(team, "Moshe Chaya", "Raj Avrom")
    response = client_for(team.lead).post(
        url(team, "key_merge", english.entity_id), {"other": 999999, "version": 1}
    )
    assert response.status_code == 400
    assert "no entity 999999" in response.content.decode()


@pytest.mark.parametrize("role", ["annotator_en", "annotator_fr", "outsider"])
def test_no_key_page_shows_an_original_to_an_annotator(team: Team, role: str) -> None:
    choice = decide(team, "Moshe Chaya", "Raj Avrom")
    client = client_for(team.by_role()[role])
    for name, pk in [
        ("key_list", None),
        ("key_candidates", None),
        ("key_entity", choice.entity_id),
    ]:
        response = client.get(url(team, name, pk))
        assert response.status_code == (404 if role == "outsider" else 403)
        assert "Moshe" not in response.content.decode()
    response = client.post(url(team, "key_entity", choice.entity_id), {"version": 1})
    assert response.status_code in (403, 404)
    assert not AuditEvent.objects.exists()


def test_the_key_search_field_is_kept_out_of_the_browser_s_autofill(team: Team) -> None:
    """Issue 32: the search's `q` (an original, typed) was saved in Chromium's autofill
    database, where it outlived the sign-out."""
    page = client_for(team.lead).get(reverse("key_list", args=[team.project.slug]))
    field = page.content.decode().split('name="q"', 1)[1].split(">", 1)[0]
    assert 'autocomplete="off"' in field and 'spellcheck="false"' in field
