from __future__ import annotations

import json
from pathlib import Path

import pytest

from pseudonymizer.formats import FormatError, read_documents
from tests.pseudonymizer.formats.helpers import ACUTE, surfaces


def test_it_reads_cloak_jsonl_with_decisions_scores_and_metadata(data: Path) -> None:
    documents = list(read_documents(data / "cloak.jsonl", language="xx"))

    assert [d.external_id for d in documents] == ["cl-1", "cl-2", "cl-3"]
    assert [d.language for d in documents] == ["en", "ar", "fr"]
    assert [d.line for d in documents] == [1, 3, 4]  # line 2 is blank
    first, arabic, accents = documents
    assert surfaces(first) == [("PER", "Moshe Chaya"), ("ADDRESS", "Rue Alphonse Metayer")]
    assert [(s.decision, s.score, s.source) for s in first.spans] == [
        ("pseudonymize", 0.91, "import"),
        ("keep", None, "import"),
    ]
    assert first.metadata == {"source": "telegram"}
    assert first.filename == "cloak.jsonl"
    assert surfaces(arabic) == [("PER", "Moshe Chaya"), ("LOC", "Paris")]
    assert surfaces(accents) == [("PER", f"Jos{ACUTE} Garc{ACUTE}s"), ("LOC", f"Orl{ACUTE}ans")]
    assert [s.decision for s in accents.spans] == ["pseudonymize", "delete"]


def test_it_keeps_crlf_and_emoji_in_the_text(data: Path) -> None:
    first = next(read_documents(data / "cloak.jsonl"))

    assert first.text == "🎉 Shoutout to Moshe Chaya!\r\nAt Rue Alphonse Metayer."


def test_the_default_language_applies_only_where_the_record_has_none(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "Hello"}\n{"text": "Salut", "lang": "fr"}\n', encoding="utf-8")

    documents = list(read_documents(path, language="en"))

    assert [d.language for d in documents] == ["en", "fr"]
    assert [d.external_id for d in documents] == [None, None]


def test_it_refuses_a_record_without_text(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "ok"}\n{"id": "x", "body": "no text"}\n', encoding="utf-8")

    with pytest.raises(FormatError) as error:
        list(read_documents(path))

    assert (error.value.filename, error.value.line) == ("c.jsonl", 2)
    assert 'no "text"' in error.value.reason


def test_it_refuses_an_unknown_decision(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    span = {"start": 0, "end": 5, "label": "PER", "decision": "ignore"}
    path.write_text(json.dumps({"text": "Moshe", "spans": [span]}) + "\n", encoding="utf-8")

    with pytest.raises(FormatError) as error:
        list(read_documents(path))

    assert error.value.line == 1
    assert "unknown decision 'ignore'" in error.value.reason


def test_it_refuses_invalid_json_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "ok"}\n{"text": "broken"\n', encoding="utf-8")

    with pytest.raises(FormatError) as error:
        list(read_documents(path))

    assert (error.value.line, error.value.reason.startswith("invalid JSON")) == (2, True)


def test_it_refuses_a_lone_surrogate_spelled_in_json(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "bad \\ud800 text"}\n', encoding="utf-8")

    with pytest.raises(FormatError, match="lone surrogate"):
        list(read_documents(path))
