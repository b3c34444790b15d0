from __future__ import annotations

from collections.abc import Sequence

import pytest

from pseudonymizer.recognizers import (
    KnownEntityRecognizer,
    Recognition,
    Recognizer,
    RecognizerError,
    RegexRecognizer,
    recognize_all,
)
from pseudonymizer.spans import Span


class _MissingModel:
    name = "ner"

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        raise RecognizerError(f"no NER model is configured for {language!r}")


class _Fixed:
    def __init__(self, name: str, spans: list[Span]) -> None:
        self.name = name
        self.spans = spans

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        return [list(self.spans) for _ in texts]


def test_the_recognizers_satisfy_the_protocol() -> None:
    assert isinstance(RegexRecognizer(), Recognizer)
    assert isinstance(KnownEntityRecognizer([("Moshe", "PER")]), Recognizer)
    assert isinstance(_MissingModel(), Recognizer)


def test_regex_still_runs_when_the_model_is_missing() -> None:
    texts = ["Call +44 7700 900461", "@lenav_88 and Moshe"]

    result = recognize_all(
        texts, "ar", [_MissingModel(), RegexRecognizer(), KnownEntityRecognizer([("Moshe", "PER")])]
    )

    assert isinstance(result, Recognition)
    assert result.errors == {"ner": "no NER model is configured for 'ar'"}
    assert [[(s.label, s.source) for s in spans] for spans in result.spans] == [
        [("PHONE", "regex")],
        [("USERNAME", "regex"), ("PER", "known")],
    ]


def test_overlaps_between_recognizers_are_resolved() -> None:
    text = "Moshe Chaya"
    ner = _Fixed("ner", [Span(0, 5, "PER", score=0.99, source="ner")])
    known = _Fixed("known", [Span(0, 11, "PER", score=1.0, source="known")])

    result = recognize_all([text], "en", [ner, known])

    assert result.spans == [[Span(0, 11, "PER", score=1.0, source="known")]]
    assert result.errors == {}


def test_a_span_several_recognizers_found_names_them_all() -> None:
    text = "Moshe Chaya met Dana"
    ner = _Fixed("ner", [Span(0, 11, "PER", source="ner"), Span(16, 20, "PER", source="ner")])
    learned = _Fixed("learned", [Span(0, 11, "PER", source="learned")])
    known = _Fixed("known", [Span(16, 20, "PER", score=1.0, source="known")])

    (spans,) = recognize_all([text], "en", [ner, learned, known]).spans

    assert [(s.start, s.source, s.also) for s in spans] == [
        (0, "learned", ("ner",)),
        (16, "known", ("ner",)),
    ]


def test_a_recognizer_that_returns_the_wrong_number_of_results_is_a_bug() -> None:
    class Broken:
        name = "broken"

        def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
            return []

    with pytest.raises(ValueError, match="broken"):
        recognize_all(["a", "b"], "en", [Broken()])


def test_other_exceptions_propagate() -> None:
    class Crashing:
        name = "crash"

        def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
            raise KeyError("bug")

    with pytest.raises(KeyError):
        recognize_all(["a"], "en", [Crashing()])


def test_no_texts_no_spans() -> None:
    assert recognize_all([], "en", [RegexRecognizer()]) == Recognition(spans=[], errors={})


class _Guess:
    name = "guess"
    fallback = True

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        return [
            [Span(0, 5, "MISC", 0.3, "regex"), Span(6, 11, "MISC", 0.3, "regex")] for _ in texts
        ]


class _Model:
    name = "model"

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        return [[Span(0, 5, "LOC", None, "ner")] for _ in texts]


def test_a_fallback_only_fills_the_gaps_the_others_left() -> None:
    # The model's unscored LOC would lose a tie to the guess's scored MISC in resolve_overlaps;
    # a fallback runs after the merge and never replaces what was found.
    result = recognize_all(["Paris Lyons"], "fr", [_Guess(), _Model()])

    assert result.spans == [[Span(0, 5, "LOC", None, "ner"), Span(6, 11, "MISC", 0.3, "regex")]]


class _LongGuess:
    name = "long-guess"
    fallback = True

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        return [[Span(3, 29, "MISC", 0.3, "regex")] for _ in texts]


class _Court:
    name = "court"

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        return [[Span(18, 29, "ORG", None, "ner")] for _ in texts]


def test_a_fallback_adds_the_part_of_a_guess_nothing_covers() -> None:
    text = "at Stoke-on-Trent Crown Court."

    [spans] = recognize_all([text], "en", [_LongGuess(), _Court()]).spans

    assert [(span.surface(text), span.label) for span in spans] == [
        ("Stoke-on-Trent", "MISC"),
        ("Crown Court", "ORG"),
    ]
