"""Determinism, distinctness, and never an original, a taken replacement or a forbidden name."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pseudonymizer.folding import fold_key
from pseudonymizer.pseudonyms import Kind, SurfaceSet, kind_of, suggest

SECRET = "determinism-secret"


def test_the_same_inputs_give_the_same_suggestions_in_the_same_order() -> None:
    first = suggest("Moshe Chaya", "PER", "en", SECRET, count=5)
    assert suggest("Moshe Chaya", "PER", "en", SECRET, count=5) == first
    assert len(set(first)) == 5


def test_another_secret_or_another_label_gives_other_suggestions() -> None:
    reference = suggest("Moshe Chaya", "PER", "en", SECRET)
    assert suggest("Moshe Chaya", "PER", "en", "another-secret") != reference
    assert suggest("Moshe Chaya", "NAME_PATIENT", "en", SECRET) != reference


def test_asking_for_more_extends_the_list_without_reordering_it() -> None:
    three = suggest("Tom Reddle", "PER", "en", SECRET, count=3)
    assert suggest("Tom Reddle", "PER", "en", SECRET, count=8)[:3] == three


def test_the_global_random_state_is_neither_read_nor_changed() -> None:
    random.seed(1234)
    expected = random.random()
    random.seed(1234)
    suggest("Moshe Chaya", "PER", "fr", SECRET)
    suggest("@marie.delattre1", "USERNAME", "fr", SECRET)
    assert random.random() == expected
    random.seed(99)
    assert suggest("Moshe Chaya", "PER", "fr", SECRET) == suggest(
        "Moshe Chaya", "PER", "fr", SECRET
    )


def test_taken_replacements_are_skipped_and_the_rest_keeps_its_order() -> None:
    reference = suggest("Tom Reddle", "PER", "en", SECRET, count=4)
    result = suggest("Tom Reddle", "PER", "en", SECRET, taken=[reference[0].upper()])
    assert reference[0] not in result
    assert result == reference[1:4]


def test_forbidden_originals_are_avoided_whole_and_as_words() -> None:
    reference = suggest("Tom Reddle", "PER", "en", SECRET, count=6)
    first_word = reference[0].split()[0]
    forbidden = [reference[1], first_word]
    for suggestion in suggest("Tom Reddle", "PER", "en", SECRET, count=4, forbidden=forbidden):
        assert suggestion != reference[1]
        assert first_word.casefold() not in suggestion.casefold().split()


def test_a_small_space_is_filled_by_variations_that_are_still_deterministic() -> None:
    # Six other weekdays: the seventh to tenth suggestions have to be variations.
    suggestions = suggest("Friday", "DATE", "en", SECRET, count=10)
    assert len({fold_key(s) for s in suggestions}) == 10
    assert "friday" not in {fold_key(s) for s in suggestions}
    assert suggest("Friday", "DATE", "en", SECRET, count=10) == suggestions


def test_a_surface_set_finds_a_forbidden_name_inside_a_longer_one() -> None:
    forbidden = SurfaceSet(["Moshe", "Rue  Alphonse Metayer", "Jean-Édouard"])
    assert "MOSHE" in forbidden and len(forbidden) == 3
    assert forbidden.contains_within("Moshe Levi")
    assert forbidden.contains_within("12 rue alphonse metayer")
    assert forbidden.contains_within("Jean Édouard Dupont")
    assert not forbidden.contains_within("Mosheh Levi")


def test_it_returns_nothing_for_no_count_and_refuses_an_empty_surface() -> None:
    assert suggest("Moshe", "PER", "en", SECRET, count=0) == []
    with pytest.raises(ValueError):
        suggest(" ", "PER", "en", SECRET)


@pytest.mark.parametrize(
    ("label", "kind"),
    [
        ("PER", Kind.PERSON),
        ("B-PER", Kind.PERSON),
        ("PER:IMG", Kind.PERSON),
        ("NAME_PATIENT", Kind.PERSON),
        ("NAME_USERNAME", Kind.USERNAME),
        ("LOC", Kind.PLACE),
        ("LOCATION_CITY", Kind.PLACE),
        ("LOCATION_STREET", Kind.ADDRESS),
        ("LOCATION_ORGANIZATION", Kind.ORGANISATION),
        ("COMP", Kind.ORGANISATION),
        ("CONTACT_EMAIL", Kind.EMAIL),
        ("CONTACT_FAX", Kind.PHONE),
        ("CONTACT_URL", Kind.URL),
        ("LOCATION_ZIP", Kind.OTHER),
        ("PROFESSION", Kind.OTHER),
    ],
)
def test_labels_map_to_kinds(label: str, kind: Kind) -> None:
    assert kind_of(label) is kind


LABELS = ["PER", "LOC", "ORG", "ADDRESS", "USERNAME", "HASHTAG", "DATE", "MISC", "PHONE"]
LANGUAGES = ["en", "fr", "ar", "de", "xx"]
WORDS = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPéèçÉ0123456789'-حمدسلي"),
    min_size=1,
    max_size=12,
)


@settings(max_examples=120, deadline=None)
@given(
    words=st.lists(WORDS, min_size=1, max_size=4),
    label=st.sampled_from(LABELS),
    language=st.sampled_from(LANGUAGES),
    prefix=st.sampled_from(["", "@", "#"]),
)
def test_suggestions_are_distinct_never_the_original_and_deterministic(
    words: list[str], label: str, language: str, prefix: str
) -> None:
    original = prefix + " ".join(words)
    suggestions = suggest(original, label, language, SECRET, count=3)
    assert len(suggestions) == 3
    assert len({fold_key(s) for s in suggestions}) == 3
    assert all(fold_key(s) != fold_key(original) for s in suggestions)
    assert suggest(original, label, language, SECRET, count=3) == suggestions
