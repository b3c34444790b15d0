"""Loading NER models: from a model spec named in settings to the recognizer that runs it,
once per process."""

from __future__ import annotations

import functools

from pseudonymizer.recognizers.base import Recognizer
from pseudonymizer.recognizers.ner import DROPPED_BY_DEFAULT, TransformersNerRecognizer
from pseudonymizer.recognizers.spacy_ner import SpacyNerRecognizer

SPACY_PREFIX = "spacy:"


class NerSpecError(ValueError):
    """A NER model spec that names no model properly ("spacy:" without a package)."""


def ner_recognizer(
    spec: str,
    *,
    device: str = "auto",
    batch_size: int = 16,
    drop_labels: frozenset[str] = DROPPED_BY_DEFAULT,
) -> Recognizer | None:
    """The NER recognizer for a model spec, the same object for the same arguments.

    `spec` is "" (no NER for that language: regex and known entities only),
    "spacy:<package>" (an installed spaCy pipeline, such as "spacy:fr_core_news_md"), or a
    transformers token-classification model by local path or hub name. The model itself
    loads on first use, so a missing one raises `RecognizerError` from `recognize()` (or
    from the recognizer's `load()`), which `recognize_all` reports while the other
    recognizers still run. `device` and `batch_size` (windows per forward pass) apply to
    transformers models; a spaCy pipeline runs on the CPU in its own batches. Entities whose
    label is in `drop_labels` are left out (see `profiles.ner_drop_labels`); the model itself
    is loaded once per process whatever the labels kept. A spec that names no model ("spacy:"
    alone) raises `NerSpecError`.
    """
    return _cached(spec.strip(), device, batch_size, drop_labels)


@functools.cache
def _cached(
    spec: str, device: str, batch_size: int, drop_labels: frozenset[str]
) -> Recognizer | None:
    if not spec:
        return None
    if spec.startswith(SPACY_PREFIX):
        package = spec[len(SPACY_PREFIX) :].strip()
        if not package:
            raise NerSpecError(f"no spaCy package named in NER model spec {spec!r}")
        return SpacyNerRecognizer(package, drop_labels=drop_labels)
    return TransformersNerRecognizer(
        spec, device=device, batch_size=batch_size, drop_labels=drop_labels
    )
