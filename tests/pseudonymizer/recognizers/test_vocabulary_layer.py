"""The vocabulary layer of detection: word lists, the sifting of a model's entities, and a
document that agrees with itself (issue 30)."""

from __future__ import annotations

import pytest

from pseudonymizer.detection import Detector
from pseudonymizer.recognizers.echoes import with_echoes
from pseudonymizer.recognizers.propernouns import ProperNounRecognizer
from pseudonymizer.recognizers.sifting import Sifted, clinical_text, plausible, sift
from pseudonymizer.recognizers.wordlists import COMMON, NAME, SHORTHAND, UNKNOWN, kind
from pseudonymizer.spans import Span


@pytest.mark.parametrize(
    ("word", "language", "expected"),
    [
        ("CXR", "en", SHORTHAND), ("prn", "en", SHORTHAND), ("Lasix", "en", SHORTHAND),
        ("RT", "en", SHORTHAND), ("I'm", "en", SHORTHAND), ("I’ll", "en", SHORTHAND),
        ("Thornbury", "en", NAME), ("Kaur", "en", NAME), ("Mary’s", "en", NAME),
        ("Will", "en", COMMON), ("young", "en", COMMON), ("Visit", "en", COMMON),
        ("Postlethwaite", "en", UNKNOWN), ("Krithika", "en", UNKNOWN),
        ("maison", "fr", COMMON), ("Call", "fr", COMMON),  # English words read in French too
    ],
)  # fmt: skip
def test_a_word_reads_as_shorthand_a_name_a_common_word_or_unknown(
    word: str, language: str, expected: object
) -> None:
    assert kind(word, language) is expected


def _span(text: str, surface: str, label: str) -> Span:
    start = text.index(surface)
    return Span(start, start + len(surface), label, source="ner")


@pytest.mark.parametrize(
    ("text", "surface", "label"),
    [
        ("Pt with COPD, CXR clear", "COPD", "ORG"),
        ("TABLET PO QD given", "PO QD", "ORG"),
        ("RT @user: hello", "RT @user", "PER"),  # the handle is the patterns' to find
        ("see you today", "today", "DATE"),
        ("we danced all day", "all day", "DATE"),
        ("on Friday night", "Friday night", "DATE"),
        ("HR 80 and regular", "80", "CARDINAL"),
        ("HR 80 and regular", "HR 80", "DATE"),  # a measurement read as a time
        ("metoprolol q4h", "q4h", "DATE"),
        ("gave 2 L of saline", "2 L", "QUANTITY"),
    ],
)
def test_shorthand_public_bodies_and_moments_nobody_can_place_are_sifted_out(
    text: str, surface: str, label: str
) -> None:
    assert not plausible(_span(text, surface, label), text, "en")


@pytest.mark.parametrize(
    ("text", "surface", "label"),
    [
        ("seen by Dr Thornbury today", "Thornbury", "PER"),
        ("moved to london last year", "london", "LOC"),  # a place in lower case stays
        ("in the United Kingdom", "United Kingdom", "LOC"),
        ("the Parliament voted", "Parliament", "ORG"),
        ("the Court of Cassation held", "Court of Cassation", "ORG"),  # masked as often as not
        ("paid 50,000 Swedish kronor", "50,000 Swedish kronor", "MONEY"),
        ("Istanbul State Security Court", "Istanbul State Security Court", "ORG"),
        ("born on 3 May 1970", "3 May 1970", "DATE"),
        ("in the years 1997-1999", "years 1997-1999", "DATE"),
        ("with nineteen other defendants", "nineteen other defendants", "CARDINAL"),
        ("she has 4 children", "4", "CARDINAL"),
        ("pt is 92 yo", "92", "CARDINAL"),  # an age, not a measurement
        ("not seen him since November.", "November", "DATE"),  # a month is a date element
        ("plan for cath 2/18 to eval", "2/18", "CARDINAL"),  # a procedure is no unit
        ("EUR 3,000 in damages", "EUR 3,000", "MONEY"),
    ],
)
def test_what_may_identify_is_kept(text: str, surface: str, label: str) -> None:
    assert plausible(_span(text, surface, label), text, "en")


def test_sifted_wraps_a_recognizer_and_keeps_its_name() -> None:
    class Model:
        name = "ner"

        def recognize(self, texts: list[str], language: str) -> list[list[Span]]:
            return [[_span(texts[0], "COPD", "ORG"), _span(texts[0], "Kaur", "PER")]]

    sifted = Sifted(Model())
    assert sifted.name == "ner"
    text = "COPD, seen by Kaur"
    assert sifted.recognize([text], "en") == [[_span(text, "Kaur", "PER")]]


def _echoed(text: str, *found: tuple[str, str]) -> list[tuple[str, str]]:
    spans = [_span(text, surface, label) for surface, label in found]
    return [(text[s.start : s.end], s.label) for s in with_echoes([text], [spans], "en")[0]]


def test_a_name_found_once_is_proposed_where_it_recurs_and_a_surname_alone() -> None:
    text = "Ottoline Postlethwaite came. POSTLETHWAITE said that postlethwaite and Boston, boston"
    assert _echoed(text, ("Ottoline Postlethwaite", "PER"), ("Boston", "LOC")) == [
        ("Ottoline Postlethwaite", "PER"),
        ("POSTLETHWAITE", "PER"),
        ("postlethwaite", "PER"),
        ("Boston", "LOC"),
        ("boston", "LOC"),
    ]


def test_a_common_word_is_echoed_only_in_its_own_case_and_guesses_are_not_echoed() -> None:
    text = "Will came. We will see Will. Donald Trump, Trump and trump. Zog and Zog"
    guess = Span(text.index("Zog"), text.index("Zog") + 3, "MISC", score=0.3, source="regex")
    spans = [_span(text, "Will", "PER"), _span(text, "Donald Trump", "PER"), guess]
    echoed = with_echoes([text], [spans], "en")[0]
    surfaces = [(text[s.start : s.end], s.start) for s in echoed]
    assert ("will", text.index("will")) not in surfaces
    assert ("Will", text.rindex("Will")) in surfaces
    assert ("Trump", text.index("Trump and")) in surfaces
    assert ("trump", text.index("trump")) not in surfaces
    assert ("Zog", text.rindex("Zog")) not in surfaces  # a MISC guess at 0.3 is not echoed
    echo = next(s for s in echoed if s.start == text.rindex("Will"))
    assert (echo.label, echo.score, echo.source) == ("PER", 0.5, "regex")


def test_an_echo_fills_only_the_gaps_other_spans_left() -> None:
    text = "Boston Dynamics in Boston"
    found = [_span(text, "Boston Dynamics", "ORG"), Span(19, 25, "LOC", source="ner")]
    assert _echoed(text, ("Boston", "LOC")) == [("Boston", "LOC"), ("Boston", "LOC")]
    assert with_echoes([text], [found], "en")[0] == found


def test_the_detector_sifts_and_echoes_without_a_model() -> None:
    text = "Seen by Dr. Thornbury. thornbury called back. BP 120/60, HR 80, PO QD."
    model = [[_span(text, "Thornbury", "PER"), _span(text, "PO QD", "ORG")]]
    found = Detector(profile="recall", use_ner=False).detect([text], "en", ner_spans=model)
    surfaces = [(text[s.start : s.end], s.label) for s in found.spans[0]]
    assert ("thornbury", "PER") in surfaces
    assert not any(surface == "PO QD" for surface, _ in surfaces)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("Hydroxychloroquine", SHORTHAND), ("lisinopril", SHORTHAND), ("metoprolol", SHORTHAND),
        ("cholecystectomy", SHORTHAND), ("London", NAME), ("gaza", NAME),
        ("Postlethwaite", UNKNOWN),  # no drug ending
    ],
)  # fmt: skip
def test_drug_endings_read_as_shorthand_and_places_as_names(word: str, expected: object) -> None:
    assert kind(word, "en") is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1 Tablet(s) daily", False), ("EUR 3,000", True), ("$ 400", True), ("300 euros", True)],
)
def test_money_needs_a_currency(text: str, expected: bool) -> None:
    surface = text.split(" daily")[0]
    start = 2 if text.startswith("$") else 0
    span = Span(start, len(surface), "MONEY", source="ner")
    assert plausible(span, text, "en") is expected


# A note of the kind the clinical reading is for: shorthand on every line.
_NOTE = (
    "HPI: 70 yo M with NIDDM, HTN, CAD s/p CABG x 4 in 3/80.\n"
    "VS: T: 98.1  HR: 59  BP: 158/72  RR 16  SaO2 97% RA\n"
    "Labs: K 3.9, Cr 1.1, WBC 9.9, PLT 243.\n"
    "Exam: Alert, Soft, Rhythm regular. Groin without hematoma.\n"
    "Plan: cath, f/u with Dr Rose Holmes in 2 wks. Wife Church visits.\n"
)


def test_a_note_full_of_shorthand_reads_as_clinical_and_a_post_does_not() -> None:
    assert clinical_text(_NOTE)
    # French words that spell English shorthand ("le", "rue", "trop") make no clinical note.
    french = "MM. Dupont et Martin, rue de la Paix : le trop grand le le rue rue trop."
    assert clinical_text(french, "en") and not clinical_text(french, "fr")
    assert not clinical_text("Alert: Soft Cell played Rhythm Nation at the Groin Bar, HR dept.")


@pytest.mark.parametrize(
    ("surface", "label"),
    [
        ("3.9", "CARDINAL"), ("16", "CARDINAL"), ("9.9", "QUANTITY"), ("158/72", "CARDINAL"),
        ("Alert", "PER"), ("Soft", "ORG"), ("Rhythm", "PER"), ("Groin", "ORG"),
        ("Exam", "ORG"),
    ],
)  # fmt: skip
def test_in_a_clinical_note_lab_values_and_everyday_words_are_no_finding(
    surface: str, label: str
) -> None:
    assert not plausible(_span(_NOTE, surface, label), _NOTE, "en", clinical=True)


@pytest.mark.parametrize(
    ("surface", "label"),
    [
        ("Rose Holmes", "PER"),  # names that are words too stay
        ("Church", "PER"),
        ("3/80", "CARDINAL"),  # a month and a year, not a ratio
        ("70", "DATE"),
    ],
)
def test_in_a_clinical_note_names_and_dates_stay(surface: str, label: str) -> None:
    assert plausible(_span(_NOTE, surface, label), _NOTE, "en", clinical=True)


def test_in_a_clinical_note_words_in_capitals_are_no_everyday_words() -> None:
    text = "seen at UCLA, then LA General"  # an acronym is a name as often as a heading
    for surface in ("UCLA", "LA General"):
        assert plausible(_span(text, surface, "ORG"), text, "en", clinical=True)


def test_outside_a_clinical_note_counts_and_capitalised_words_stay() -> None:
    text = "Alert and Soft were there; she has 16 cousins."
    for surface, label in (("Alert", "PER"), ("Soft", "ORG"), ("16", "CARDINAL")):
        assert plausible(_span(text, surface, label), text, "en")
    assert sift([_span(text, "Soft", "ORG")], text, "en") == [_span(text, "Soft", "ORG")]


def test_letters_that_spell_shorthand_are_no_name_anywhere() -> None:
    text = "Gilbert P. Perez, M.D. signed"
    assert not plausible(_span(text, "M.D.", "LOC"), text, "en")
    assert plausible(_span(text, "Gilbert P. Perez", "PER"), text, "en")
    text = "flew to the U.S. for an US scan"  # letters of shorthand that are no credentials
    assert plausible(_span(text, "U.S.", "LOC"), text, "en")


def _guesses(text: str) -> list[str]:
    return [text[s.start : s.end] for s in ProperNounRecognizer().recognize_one(text, "en")]


def test_in_a_clinical_note_a_line_of_everyday_words_is_a_heading_and_a_signature_is_not() -> None:
    note = _NOTE + "\nVital Signs\n\n(2)  Physical Exam\n\nOwen Gallagher\n"
    found = _guesses(note)
    assert "Vital Signs" not in found and "Physical Exam" not in found
    assert "Owen Gallagher" in found
    # Outside a clinical note, a line may be a post's whole text: it stays.
    assert _guesses("nice day\nVital Signs\n") == ["Vital Signs"]


def test_the_first_word_of_a_list_item_opens_a_sentence() -> None:
    note = _NOTE + "A:   (1)  Alcohol excess discussed.\n ******** Approved by\n- Worried about\n"
    found = _guesses(note)
    assert not {"Alcohol", "Approved", "Worried"} & set(found)
    assert _guesses("A:   (1)  Krithika excess discussed.") == ["Krithika"]


@pytest.mark.parametrize(
    "text",
    [
        "@bendingoutward What about the site",  # a post opens after the handles it answers
        "RT @julie_co: Thanks for the follow",
        "@swavelbean13 :D How was your day ?",
        "u 're Like my twin Need u",  # the most frequent words capitalise for emphasis
        "And after all You're my wonderwall",
    ],
)
def test_a_post_opens_after_its_handles_and_emphasis_is_no_name(text: str) -> None:
    assert _guesses(text) == []


def test_a_frequent_word_beside_a_name_stays_in_it() -> None:
    assert _guesses("local apples from the House Farm = fine") == ["House Farm"]
    assert _guesses("@user Krithika said so") == ["Krithika"]
