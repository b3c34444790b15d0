from __future__ import annotations

import random
import re
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pseudonymizer.folding import fold, fold_char, fold_with_origin
from pseudonymizer.recognizers import KnownEntityRecognizer
from pseudonymizer.recognizers.known import search_pattern
from pseudonymizer.spans import Span


def _found(recognizer: KnownEntityRecognizer, text: str) -> list[tuple[str, str]]:
    return [(s.surface(text), s.label) for s in recognizer.recognize_one(text)]


def test_it_finds_one_entity_in_both_scripts() -> None:
    recognizer = KnownEntityRecognizer([("Moshe Chaya", "PER"), ("موشيه حايا", "PER")])
    texts = [
        "Shoutout to Moshe Chaya! And moshe chaya again.",
        "Rendez-vous chez Moshe Chaya au 12 rue Alphonse Métayer.",
        "تواصلوا مع @marie.delattre1 على انستغرام. تحية إلى موشيه حايا!",
    ]

    result = recognizer.recognize(texts, "en")

    assert [[s.surface(t) for s in spans] for t, spans in zip(texts, result, strict=True)] == [
        ["Moshe Chaya", "moshe chaya"],
        ["Moshe Chaya"],
        ["موشيه حايا"],
    ]
    assert all(s.source == "known" and s.score == 1.0 and s.label == "PER" for s in result[0])


def test_a_decided_name_is_found_written_with_look_alike_letters() -> None:
    recognizer = KnownEntityRecognizer([("Evander Thistlewood", "PER")])
    greek = "\u0395vander Thistlewood"  # Greek capital epsilon
    cyrillic = "Ev\u0430nder Thistlewood"  # Cyrillic а
    text = f"Letters from {greek}, then from {cyrillic}; Evander Thistlewoods is another."

    spans = recognizer.recognize_one(text)

    assert [s.surface(text) for s in spans] == [greek, cyrillic]
    assert spans[0].start == text.index(greek) and spans[0].end == spans[0].start + len(greek)
    for written in (greek, cyrillic):
        pattern = search_pattern("Evander Thistlewood")
        assert pattern is not None and re.search(pattern, written)


def test_a_match_never_starts_or_ends_inside_a_word() -> None:
    recognizer = KnownEntityRecognizer([("Moshe", "PER"), ("Lyon", "LOC"), ("حلب", "LOC")])
    assert _found(recognizer, "Moshes and AMoshe and Moshe2 and Lyonnais") == []
    assert _found(recognizer, "MOSHE, (Moshe) «Lyon» d'Lyon") == [
        ("MOSHE", "PER"),
        ("Moshe", "PER"),
        ("Lyon", "LOC"),
        ("Lyon", "LOC"),
    ]
    assert _found(recognizer, "حلبي وسحلب") == []
    assert _found(recognizer, "في حلب.") == [("حلب", "LOC")]


def test_case_and_accents_are_ignored_and_spans_cover_combining_marks() -> None:
    recognizer = KnownEntityRecognizer([("Jose", "PER"), ("Jean-Édouard Lefèvre", "PER")])
    decomposed = "Appelez Jose\u0301 vite"
    spans = recognizer.recognize_one(decomposed)
    assert [s.surface(decomposed) for s in spans] == ["Jose\u0301"]
    assert spans[0] == Span(8, 13, "PER", score=1.0, source="known")

    assert _found(recognizer, "JOSÉ et José et jose") == [
        ("JOSÉ", "PER"),
        ("José", "PER"),
        ("jose", "PER"),
    ]
    assert _found(recognizer, "Appelez jean-edouard LEFEVRE au") == [
        ("jean-edouard LEFEVRE", "PER")
    ]


def test_a_match_must_cover_whole_characters() -> None:
    recognizer = KnownEntityRecognizer([("Strauss", "PER"), ("Straus", "PER")])
    # "ß" folds to "ss": "Straus" would end inside it.
    assert _found(recognizer, "Herr Strauß kommt") == [("Strauß", "PER")]


def test_white_space_and_apostrophes_are_read_loosely() -> None:
    recognizer = KnownEntityRecognizer([("Moshe Chaya", "PER"), ("Dunkin' Donuts", "ORG")])
    text = "Moshe\r\n  Chaya at Dunkin’ Donuts"
    assert _found(text=text, recognizer=recognizer) == [
        ("Moshe\r\n  Chaya", "PER"),
        ("Dunkin’ Donuts", "ORG"),
    ]


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        ("سافر إلى لندن أمس", "لندن"),
        ("ولندن جميلة", "لندن"),
        ("فلندن", "لندن"),
        ("بلندن", "لندن"),
        ("كلندن", "لندن"),
        ("للندن", "لندن"),
        ("وبلندن", "لندن"),
        ("لَنْدَن", "لَنْدَن"),
        ("وَلَنْدَنُ", "لَنْدَنُ"),
        ("لنـــدن", "لنـــدن"),
    ],
)
def test_arabic_proclitics_stay_outside_the_span(text: str, surface: str) -> None:
    recognizer = KnownEntityRecognizer([("لندن", "LOC")])
    assert _found(recognizer, text) == [(surface, "LOC")]


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        ("القاهرة", "القاهرة"),
        ("بالقاهرة", "القاهرة"),
        ("وبالقاهرة", "القاهرة"),
        ("فالقاهرة", "القاهرة"),
        # ل + القاهرة is written للقاهرة: the article's alef is elided.
        ("للقاهرة", "لقاهرة"),
        ("وللقاهرة", "لقاهرة"),
    ],
)
def test_an_arabic_name_with_the_article_is_found_after_any_proclitic(
    text: str, surface: str
) -> None:
    recognizer = KnownEntityRecognizer([("القاهرة", "LOC")])
    assert _found(recognizer, text) == [(surface, "LOC")]


def test_other_arabic_prefixes_and_suffixes_do_not_match() -> None:
    recognizer = KnownEntityRecognizer([("لندن", "LOC"), ("القاهرة", "LOC")])
    assert _found(recognizer, "سلندن لندني تلندن لقاهرة") == []


def test_a_proclitic_comes_off_only_a_match_of_three_letters_or_more() -> None:
    recognizer = KnownEntityRecognizer([("ين", "ORG"), ("عمر", "PER")])
    # "بين" (between) is no ب + "ين"; "وعمر" is و + the name.
    assert _found(recognizer, "بين الناس وعمر ين") == [("عمر", "PER"), ("ين", "ORG")]


@pytest.mark.parametrize(
    ("alias", "text"),
    [
        ("إمام", "وقف أمام الباب"),  # in front of
        ("فان", "فإن الأمر صعب"),  # so indeed
        ("علي", "جلس على الكرسي"),  # on
        ("ألى", "ذهب إلى السوق"),
    ],
)
def test_a_function_word_that_folds_like_a_decided_name_is_no_match(alias: str, text: str) -> None:
    recognizer = KnownEntityRecognizer([(alias, "PER")])
    assert _found(recognizer, text) == []
    # The name itself, as written, still is.
    assert _found(recognizer, f"قال {alias} كلمته") == [(alias, "PER")]


def test_arabic_spelling_variants_match() -> None:
    recognizer = KnownEntityRecognizer([("أحمد", "PER"), ("موسى", "PER"), ("مكة", "LOC")])
    assert _found(recognizer, "احمد وإحمد وآحمد") == [
        ("احمد", "PER"),
        ("إحمد", "PER"),
        ("آحمد", "PER"),
    ]
    assert _found(recognizer, "موسي") == [("موسي", "PER")]
    # ta marbuta and heh are one letter at the end of a word: مكه is مكة written another way.
    assert _found(recognizer, "مكة مكه") == [("مكة", "LOC"), ("مكه", "LOC")]


def test_the_longest_alias_wins_where_matches_overlap() -> None:
    recognizer = KnownEntityRecognizer(
        [("Moshe", "PER"), ("Moshe Chaya", "PER"), ("Chaya Street", "ADDRESS")]
    )
    # "Chaya Street" is longer than "Moshe Chaya"; what is left of the name is "Moshe".
    assert _found(recognizer, "Moshe Chaya Street, then Moshe.") == [
        ("Moshe", "PER"),
        ("Chaya Street", "ADDRESS"),
        ("Moshe", "PER"),
    ]
    assert _found(recognizer, "Moshe Chaya.") == [("Moshe Chaya", "PER")]


def test_offsets_are_right_after_emoji_and_marks() -> None:
    recognizer = KnownEntityRecognizer([("Lena Varga", "PER")])
    text = "😡🇺🇸 e\u0301\u0301 Lena Varga 🙏 LENA VARGA"
    spans = recognizer.recognize_one(text)
    assert [s.surface(text) for s in spans] == ["Lena Varga", "LENA VARGA"]
    assert spans[0].start == text.index("Lena")


def test_the_first_label_of_an_alias_wins_and_tiny_aliases_are_ignored() -> None:
    recognizer = KnownEntityRecognizer([("Lyon", "LOC"), ("LYON", "ORG"), ("A", "PER"), (" ", "X")])
    assert _found(recognizer, "A Lyon") == [("Lyon", "LOC")]
    assert recognizer.size == 1


def test_no_aliases_finds_nothing() -> None:
    recognizer = KnownEntityRecognizer([])
    assert recognizer.recognize(["Moshe", ""], "en") == [[], []]


def test_the_normal_form_maps_back_to_the_original() -> None:
    text = "Jose\u0301  ولَـندن ß"
    normalized, origin = fold_with_origin(text)
    assert normalized == "jose ولندن ss"
    assert len(origin) == len(normalized)
    assert [text[i] for i in origin[:5]] == ["J", "o", "s", "e", " "]
    assert origin[-2:] == [len(text) - 1, len(text) - 1]


class _CountingAutomaton:
    """Wraps the recognizer's automaton and counts how many scans it makes."""

    def __init__(self, automaton: Any) -> None:
        self.automaton = automaton
        self.scans = 0

    def iter(self, text: str) -> Any:
        self.scans += 1
        return self.automaton.iter(text)


def test_thousands_of_aliases_cost_one_scan_per_text() -> None:
    rng = random.Random(7)
    syllables = ["ka", "ri", "mo", "she", "la", "na", "va", "ga", "to", "be", "li", "du"]

    def name() -> str:
        return " ".join(
            "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))).capitalize()
            for _ in range(2)
        )

    aliases = list(dict.fromkeys(name() for _ in range(5_200)))[:5_000]
    recognizer = KnownEntityRecognizer([(alias, "PER") for alias in aliases])
    counting = _CountingAutomaton(recognizer._automaton)
    recognizer._automaton = counting
    picked = rng.sample(aliases, 20)
    texts = [f"Hier {picked[i]} a vu {picked[i + 1].upper()}." for i in range(0, 20, 2)]

    result = recognizer.recognize(texts, "fr")

    assert counting.scans == len(texts)
    for index, (text, spans) in enumerate(zip(texts, result, strict=True)):
        assert [s.surface(text) for s in spans] == [
            picked[2 * index],
            picked[2 * index + 1].upper(),
        ]


@pytest.mark.parametrize(
    ("alias", "text"),
    [
        ("Jose", "Hello JOSÉ and"),
        ("Jose", "Jose\u0301 again"),
        ("José", "jose here"),
        ("Moshe Chaya", "MOSHE\n  Chaya"),
        ("O'Brien", "o’brien said"),
        ("لندن", "وصل ولندن"),
        ("القاهرة", "سافر للقاهرة"),
        ("أحمد", "قال احمد"),
        ("موشيه", "قال مُوشيه"),
    ],
)
def test_the_search_pattern_matches_every_text_the_matcher_finds_the_alias_in(
    alias: str, text: str
) -> None:
    assert KnownEntityRecognizer([(alias, "PER")]).recognize_one(text)
    pattern = search_pattern(alias)
    assert pattern is not None and re.search(pattern, text)


def test_the_search_pattern_leaves_out_other_words() -> None:
    pattern = search_pattern("Moshe Chaya")
    assert pattern is not None
    assert not re.search(pattern, "Moshe Levi and Dana Chaya")
    assert search_pattern("K") is None


def _fold_one_by_one(text: str) -> tuple[str, list[int]]:
    """The plain definition `fold_with_origin` must agree with: each character on its own."""
    pieces: list[str] = []
    origin: list[int] = []
    previous_space = False
    for index, char in enumerate(text):
        piece = fold_char(char)
        if not piece:
            continue
        if piece == " ":
            if previous_space:
                continue
            previous_space = True
        else:
            previous_space = False
        pieces.append(piece)
        origin.extend([index] * len(piece))
    return "".join(pieces), origin


@given(
    st.text(
        alphabet=st.sampled_from(
            list("aZé É\u0301\r\n\t  ßﬁ'’-—İıΩ") + list("الأإآةىیکـًُ٤") + list("👋🏽🇫🇷\u200d")
        ),
        max_size=60,
    )
)
# Found by hypothesis: a lone space between two marks, after a space, began a second space.
@example(" \u0301 \u0301 ")
def test_fold_with_origin_agrees_with_the_character_by_character_definition(text: str) -> None:
    assert fold_with_origin(text) == _fold_one_by_one(text)


@given(
    st.text(
        alphabet=st.sampled_from(
            list("aZé É\u0301\r\n\t  ßﬁ'’-—İıΩ") + list("الأإآةىیکـًُ٤") + list("👋🏽🇫🇷\u200d")
        ),
        max_size=60,
    )
)
def test_fold_is_the_matching_form(text: str) -> None:
    assert fold(text) == fold_with_origin(text)[0]
