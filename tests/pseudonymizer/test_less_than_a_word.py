"""Originals shorter than a word, and dates made of date words (issue 29, 4): accepted NER
mistakes ("L" of a name a soft hyphen split, "J" of "J'ai") refused releases of every
"l'été" and "J'…", and a decided "yesterday" every yesterday."""

from __future__ import annotations

import pytest

from pseudonymizer.edges import less_than_a_word
from pseudonymizer.evaluation import leak_check
from pseudonymizer.recognizers.dates import only_date_words
from pseudonymizer.recognizers.known import KnownEntityRecognizer, is_calendar_word
from pseudonymizer.release import DecidedSpan, ReleaseDocument, ReleasePipeline


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("l'été est là", []),
        ("J'ai vu L hier", ["L"]),
        ("L. Smith", ["L"]),
        ("Ottoline's car", []),  # the possessive "s"
        ("the A-level", []),
        ("Lena and Jo", []),
        ("(L)", ["L"]),
        ("L’été", []),  # a typographic apostrophe glues too
    ],
)
def test_a_one_letter_original_is_found_only_where_it_stands_alone(
    text: str, expected: list[str]
) -> None:
    leaks = leak_check(text, ["L", "J", "s", "A"])
    assert [text[leak.start : leak.end] for leak in leaks] == expected


def test_a_longer_original_still_leaks_after_an_apostrophe_or_a_proclitic() -> None:
    assert [(leak.start, leak.end) for leak in leak_check("d'Ottoline", ["Ottoline"])] == [(2, 10)]
    assert leak_check("ولندن", ["لندن"])


@pytest.mark.parametrize(
    ("surface", "expected"),
    [
        ("March", True),
        ("last Monday", True),
        ("hier soir", True),
        ("aujourd'hui", True),
        ("الشهر الماضي", True),
        ("yesterday", True),
        ("3 March", False),  # a day: a date someone can place
        ("March 2021", False),
        ("Ottoline", False),
        ("Le Monde", False),
    ],
)
def test_only_date_words(surface: str, expected: bool) -> None:
    assert only_date_words(surface) is expected


def test_a_date_of_date_words_is_looked_for_nowhere_but_a_name_like_may_is() -> None:
    assert is_calendar_word("Yesterday", "DATE") and is_calendar_word("March", "DATE")
    assert not is_calendar_word("May", "PER")  # a person named May
    assert not is_calendar_word("12 March", "DATE")
    matcher = KnownEntityRecognizer([("Yesterday", "DATE"), ("May", "PER")])
    text = "Yesterday May came."
    assert [text[s.start : s.end] for s in matcher.recognize_one(text)] == ["May"]


def test_a_release_is_not_refused_for_date_words_or_a_letter_inside_words() -> None:
    text = "Hier, j'ai vu l'été à Lille."
    pipeline = ReleasePipeline(
        "S2", originals=[("hier", "DATE"), ("L", "PER"), ("J", "PER"), ("3 mars", "DATE")]
    )
    (result,) = pipeline.run([ReleaseDocument("d", text, "fr", [])])
    assert result.findings == []
    leaked = "Le 3 mars, L est venu."
    (result,) = pipeline.run([ReleaseDocument("e", leaked, "fr", [])])
    assert [(f.document_start, f.document_end) for f in result.findings] == [(3, 9), (11, 12)]


def test_an_own_surface_of_date_words_is_no_leak_of_its_document() -> None:
    text = "Hier soir. Hier matin."
    span = DecidedSpan(0, 9, "DATE", replacement="x")
    pipeline = ReleasePipeline("S2", own_surfaces=True)
    (result,) = pipeline.run([ReleaseDocument("d", text, "fr", [span])])
    assert result.findings == []


@pytest.mark.parametrize(
    ("text", "start", "end", "reason"),
    [
        ("P\u200bennycuick", 2, 11, "part of a word"),  # across a zero-width space
        ("L\u00adeclerc", 0, 1, "a single letter or digit"),
        ("Pennycuick", 0, 5, "part of a word"),
        ("J'ai", 0, 1, "a single letter or digit"),
        ("A12", 1, 3, "part of a word"),
        ("Ottoline's car", 0, 8, ""),
        ("Jean-Marie", 0, 4, ""),
        ("ولندن", 1, 5, ""),  # a proclitic is no part of the name
        ("Moshe Chaya", 0, 11, ""),
        ("\U0001f44d\U0001f3fd ok", 0, 2, ""),  # an emoji: no word to be part of
    ],
)
def test_less_than_a_word(text: str, start: int, end: int, reason: str) -> None:
    assert less_than_a_word(text, start, end) == reason
