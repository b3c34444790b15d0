from __future__ import annotations

from pathlib import Path

from pseudonymizer.formats import detect_format, read_documents
from tests.pseudonymizer.formats.helpers import ACUTE, surfaces


def test_it_tells_a_doccano_export_from_cloak_jsonl(data: Path) -> None:
    assert detect_format(data / "doccano.jsonl") == "doccano"
    assert detect_format(data / "cloak.jsonl") == "jsonl"


def test_it_reads_label_triples_and_entities(data: Path) -> None:
    triples, entities = read_documents(data / "doccano.jsonl", language="en")

    assert triples.external_id == "1"
    assert surfaces(triples) == [("ORG", "EU"), ("MISC", "German"), ("PER", "Moshe Chaya")]
    assert triples.metadata == {"Comments": []}
    assert triples.language == "en"
    assert entities.external_id == "2"
    assert entities.line == 2
    assert surfaces(entities) == [("PER", "Ahmed Benali"), ("ORG", f"Café Orl{ACUTE}ans")]
    assert all(span.source == "import" for span in entities.spans)
    assert "relations" in entities.metadata


def test_a_classification_label_list_is_cloak_jsonl_metadata(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "Hello there", "label": ["greeting"]}\n', encoding="utf-8")

    assert detect_format(path) == "jsonl"
    (document,) = read_documents(path)
    assert document.spans == []
    assert document.metadata == {"label": ["greeting"]}
