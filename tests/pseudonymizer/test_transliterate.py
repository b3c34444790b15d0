from __future__ import annotations

import pytest

from pseudonymizer.transliterate import MAX_VARIANTS, same_name, skeletons


@pytest.mark.parametrize(
    ("latin", "arabic"),
    [
        ("Moshe Chaya", "موشيه حايا"),
        ("Mohammed", "محمد"),
        ("Ahmed", "أحمد"),
        ("Fatima", "فاطمة"),
        ("Youssef", "يوسف"),
        ("Khalid", "خالد"),
        ("Omar Al-Fassi", "عمر الفاسي"),
        ("Sarah", "سارة"),
        ("Leila Haddad", "ليلى حداد"),
    ],
)
def test_a_latin_name_and_its_arabic_spelling_share_a_skeleton(latin: str, arabic: str) -> None:
    assert same_name(latin, arabic)
    assert same_name(arabic, latin)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Moshe Chaya", "Raj Avrom"),
        ("Moshe Chaya", "موشيه"),  # one word of two
        ("Omar", "عمّان"),
        ("Karim", "سارة"),
    ],
)
def test_different_names_do_not_match(first: str, second: str) -> None:
    assert not same_name(first, second)


def test_case_accents_and_harakat_do_not_matter() -> None:
    assert skeletons("MOSHE CHÀYA") == skeletons("moshe chaya")
    assert skeletons("مُحَمَّد") == skeletons("محمد") == {"MHMD"}


def test_the_skeleton_of_moshe_chaya() -> None:
    assert skeletons("موشيه حايا") == {"MX H"}
    assert "MX H" in skeletons("Moshe Chaya")


def test_a_name_without_consonants_has_no_skeleton_and_matches_nothing() -> None:
    assert skeletons("Aya") == frozenset()
    assert skeletons("") == frozenset()
    assert not same_name("Aya", "آية")


def test_the_variants_are_bounded() -> None:
    assert len(skeletons("Chach Chich Chuch Chech Gig Gag")) <= MAX_VARIANTS
