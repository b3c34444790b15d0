from __future__ import annotations

import pytest

from pseudonymizer.recognizers.propernouns import ProperNounRecognizer
from pseudonymizer.spans import Span


def found(text: str) -> list[str]:
    return [text[s.start : s.end] for s in ProperNounRecognizer().recognize_one(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("represented by a firm, Lichfield Reynolds, in Stoke-on-Trent. The Government",
         ["Lichfield Reynolds", "Stoke-on-Trent"]),
        ("member of UNISON and the PKK’s leader", ["UNISON", "PKK"]),
        # In a clinical note, capitals are shorthand or headings: only names and unknown words.
        ("BP 120/60, HR 80, CXR clear, SOB on exertion. PLAN: TABLET PO QD, seen by THORNBURY",
         ["THORNBURY"]),
        ("seen by Dr x, THORNBURY and KRITHIKA", ["THORNBURY", "KRITHIKA"]),
        ("Yesterday Paris was calm", ["Paris"]),  # the first word starts the sentence
        ("ils vont à Marseille 🚆 demain", ["Marseille"]),
        ("he said\r\nKarim Benali came", ["Karim Benali"]),  # a known name opens the line
        ("he said\r\nYesterday Benali came", ["Benali"]),  # a line start is a sentence start
        ("Krithika is here. Thornbury too", ["Krithika", "Thornbury"]),  # unknown, a name
        ("we met thornbury at the cafe", ["thornbury"]),  # a name in lower case
        ("flew to new york, then gaza", ["new york", "gaza"]),  # places in lower case
        ("Vital Signs: stable\nSeen by Kaur: ok", ["Kaur"]),  # a heading, then a name
        ("clip via CNN: watch", ["CNN"]),  # a source inside a line is no heading
        ("LONDON and KRAKOW", ["LONDON", "KRAKOW"]),  # places in capitals
        ("wife mary at bedside, son john too", ["mary", "john"]),  # a cue, then a name
        ("seen by dr thornbury", ["thornbury"]),
        ("the Court of Appeal of Northern Ireland", ["Northern Ireland"]),
    ],
)  # fmt: skip
def test_capitalised_words_inside_a_sentence_are_proposed(text: str, expected: list[str]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "under the Theft Act 1968 and the Court of Appeal",  # a statute, then procedure
        "the Convention for the Protection of Human Rights and Fundamental Freedoms",
        "the European Court of Human Rights’ judgment",
        "on Monday the Government and the Chamber",
        "وصل كريم إلى الرباط",  # no capitals in Arabic script
        # the shorthand and capitals of clinical notes
        "CV: HR 80s NSR, BP 120/60. RESP: LS clear, O2 SAT 95% on 2L NC. Lasix given",
        "ASSESSMENT AND PLAN: TABLET PO QD, PRESSURE stable, HR 80, BP ok",  # a note
        "RT if you agree. I'm sure I'll go. Will you? May be.",  # chat, everyday words
        "we will mark the pressure and may visit",  # lower-case names that are words
        "we ate turkey in nice weather, reading",  # places that are everyday words
        "the son will be here and his wife may call",  # cued everyday words
        "History of Present Illness: started on Hydroxychloroquine and Lisinopril",
    ],
)
def test_words_that_capitalise_without_naming_anyone_are_left_alone(text: str) -> None:
    assert found(text) == []


def test_spans_are_misc_from_the_regex_source_with_a_low_score() -> None:
    assert ProperNounRecognizer().recognize(["in Stoke-on-Trent", ""], "en") == [
        [Span(3, 17, "MISC", 0.3, "regex")],
        [],
    ]
