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
