"""Candidate links: transliteration, shared words, a pseudonym chosen twice; bounded."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.keys.links import (
    SAME_PSEUDONYM,
    SHARED_WORDS,
    SPELLING,
    TRANSLITERATION,
    link_candidates,
)
from annotator.services.table import Choice, alias_link, surface_decide
from tests.factories import ProjectFactory


def decide(project: Any, surface: str, replacement: str | None = None, **kw: Any) -> Choice:
    options: dict[str, Any] = {"language": "en", "label": "PER", "decision": "pseudonymize"}
    options.update(kw)
    return surface_decide(project=project, surface=surface, replacement=replacement, **options)


def pairs(project: Any, **kw: Any) -> dict[tuple[int, int], tuple[str, ...]]:
    found = link_candidates(project, **kw)
    return {(c.entity_id, c.other_id): c.reasons for c in found}


@pytest.fixture
def project(db: Any) -> Any:
    return ProjectFactory()


def test_a_name_and_its_arabic_spelling_are_a_candidate(project: Any) -> None:
    english = decide(project, "Moshe Chaya", "Raj Avrom").entity_id
    arabic = decide(project, "موشيه حايا", language="ar").entity_id
    decide(project, "Tom Reddle", "Sam Bell")
    decide(project, "كريم منصور", language="ar")
    assert pairs(project) == {(english, arabic): (TRANSLITERATION,)}
    assert pairs(project, entity_id=arabic) == {(english, arabic): (TRANSLITERATION,)}


def test_two_latin_spellings_are_a_similar_spelling(project: Any) -> None:
    first = decide(project, "Mohammed Haddad", "Raj Avrom").entity_id
    second = decide(project, "Muhamad Hadad", "Ezra Lamm").entity_id
    assert pairs(project) == {(first, second): (SPELLING,)}


def test_a_word_decided_alone_and_a_name_holding_it_share_words(project: Any) -> None:
    alone = decide(project, "Chaya", "Avrom").entity_id
    # Decided after: "Chaya" already has a choice, so it is not cut from the name.
    name = decide(project, "Moshe Chaya", "Raj Levi").entity_id
    assert SHARED_WORDS in pairs(project)[(alone, name)]


def test_pseudonyms_sharing_words_are_a_candidate(project: Any) -> None:
    first = decide(project, "Tom Reddle", "Sam Bell", language="en").entity_id
    second = decide(project, "Thomas Riddle", "Bell Sam", language="fr").entity_id
    assert pairs(project)[(first, second)] == (SAME_PSEUDONYM,)


def test_entities_of_other_labels_or_projects_are_never_paired(project: Any) -> None:
    decide(project, "Paris Hilton", "Raj Avrom")
    decide(project, "Hilton Paris", "Lyon Centre", label="LOC")
    decide(ProjectFactory(), "Paris Hilton", "Raj Avrom")
    assert pairs(project) == {}


def test_a_linked_pair_is_no_longer_a_candidate(project: Any) -> None:
    english = decide(project, "Moshe Chaya", "Raj Avrom")
    arabic = decide(project, "موشيه حايا", language="ar")
    alias_link(
        project=project,
        entity_id=english.entity_id,
        alias_id=arabic.alias_id,
        actor=None,
        version=None,
    )
    assert pairs(project) == {}


def test_a_word_too_many_entities_share_suggests_nothing(project: Any) -> None:
    from annotator.keys import links

    for n in range(links.FANOUT + 1):
        decide(project, f"Rue Numero{n}", f"Avenue Place{n}", label="ADDRESS", language="fr")
    assert pairs(project) == {}
