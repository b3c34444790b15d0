"""Stretches in another script than a document's language, read by that script's detectors
(issue 29, 3: "كتب Haytham Tarabishi منشورا" was released verbatim)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pseudonymizer.detection import Detector, uses_ner
from pseudonymizer.detection_check import ReleaseDetection
from pseudonymizer.pseudonyms.shape import char_script
from pseudonymizer.scripts import (
    _ANY_LETTER,
    OtherScripts,
    Stretch,
    other_script_stretches,
    readers_of,
)
from pseudonymizer.spans import Span

POST = "كتب Haytham Tarabishi منشورا على فيسبوك"


def _text(text: str, stretches: list[Stretch]) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.language) for s in stretches]


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        (POST, "ar", [("Haytham Tarabishi", "en")]),
        ("قال Dr. Amélie Poulain, 1987 في", "ar", [("Dr. Amélie Poulain", "en")]),
        # A decomposed accent on the last letter stays with it.
        ("قال Rene\u0301 اليوم", "ar", [("Rene\u0301", "en")]),
        ("Posted by هيثم طرابيشي today", "en", [("هيثم طرابيشي", "ar")]),
        ("Publié par هيثم, puis par سعاد.", "fr", [("هيثم", "ar"), ("سعاد", "ar")]),
        ("Nothing else here 😀 1987", "en", []),
        ("قال X في", "ar", []),  # one letter: no name
        ("Один Ivan", "en", []),  # Cyrillic has no reader here: the document's own detectors
    ],
)
def test_stretches_in_another_script_and_their_reader(
    text: str, language: str, expected: list[tuple[str, str]]
) -> None:
    assert _text(text, other_script_stretches(text, language)) == expected


def test_the_quick_look_for_another_script_misses_none_of_its_letters() -> None:
    """Texts without a letter of another script are passed over by a regular expression: it
    must find every letter `char_script` gives to a script of READERS."""
    missed = [
        hex(code)
        for code in range(0x110000)
        if (script := char_script(chr(code))) in _ANY_LETTER
        and not _ANY_LETTER[script].match(chr(code))
    ]
    assert missed == []


def test_each_script_is_read_by_the_other_script_s_language() -> None:
    assert readers_of("ar") == ["en"]
    assert readers_of("fr") == readers_of("en") == ["ar"]
    assert uses_ner({"en": "model", "ar": ""}, "ar")
    assert not uses_ner({"en": "", "ar": ""}, "ar")
    assert not uses_ner({"fr": "model", "ar": ""}, "en")


class Capitals:
    """A model that tags every capitalised word PER, and says which language it read."""

    name = "ner"

    def __init__(self) -> None:
        self.languages: list[str] = []

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        self.languages.append(language)
        found = []
        for text in texts:
            spans, start = [], 0
            for word in text.split(" "):
                if word[:1].isupper():
                    spans.append(Span(start, start + len(word), "PER", 0.9, "ner"))
                start += len(word) + 1
            found.append(spans)
        return found


def test_other_scripts_reads_each_stretch_and_gives_offsets_in_the_whole_text() -> None:
    model = Capitals()
    reader = OtherScripts("ner", lambda language: model if language == "en" else None)

    (spans,) = reader.recognize([POST], "ar")

    assert [(POST[s.start : s.end], s.label) for s in spans] == [
        ("Haytham", "PER"),
        ("Tarabishi", "PER"),
    ]
    assert model.languages == ["en"]
    assert reader.recognize(["Nothing to read"], "en") == [[]]


def test_a_detector_runs_the_english_model_over_the_latin_names_of_an_arabic_post(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = Capitals()
    detector = Detector(ner_models={"en": "some-model", "ar": ""})
    monkeypatch.setattr(
        detector, "_ner_recognizer", lambda language: model if language == "en" else None
    )

    assert detector.runs_ner("ar") and detector.ner_specs(["ar"]) == {
        "ar": "",
        "en": "some-model",
    }
    (found,) = detector.ner([POST], "ar").spans
    assert ("Haytham", "ner") in [(POST[s.start : s.end], s.source) for s in found]
    (detected,) = detector.detect([POST], "ar").spans
    assert {"Haytham", "Tarabishi"} <= {POST[s.start : s.end] for s in detected}

    # The release's check finds them too, as NER's hits.
    detection = ReleaseDetection(ner=detector)
    assert "ner" in detection.detectors("ar")
    (hits,) = detection.hits([POST], "ar")
    assert {(POST[h.start : h.end], h.detector) for h in hits} >= {
        ("Haytham", "ner"),
        ("Tarabishi", "ner"),
    }


def test_the_arabic_lexicons_read_an_arabic_name_in_an_english_post() -> None:
    text = "Posted by سعاد حسني today"
    (spans,) = Detector(use_ner=False).detect([text], "en").spans
    assert ("سعاد حسني", "PER") in [(text[s.start : s.end], s.label) for s in spans]
