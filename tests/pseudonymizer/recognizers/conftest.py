from __future__ import annotations

from pathlib import Path

import pytest

from tests.pseudonymizer.recognizers.tiny_model import build_tiny_ner_model


@pytest.fixture(scope="session")
def tiny_ner_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny BERT NER model (PER, LOC, ORG; 64 tokens at most), trained once per session."""
    return build_tiny_ner_model(tmp_path_factory.mktemp("tiny-ner"))
