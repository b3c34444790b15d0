"""`bench/detection_quality.py`: its sets' reading, its scores and its half-decided protocol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import detection_quality as quality
from pseudonymizer.spans import Span


def _document(text: str, *surfaces: tuple[str, str]) -> quality.Document:
    gold = [Span(text.index(s), text.index(s) + len(s), label) for s, label in surfaces]
    return quality.Document("d1", "en", "legal", text, gold, {"a1": gold[:1]})


def test_a_document_is_cut_at_the_sentence_end_nearest_its_middle_outside_every_span() -> None:
    text = "Ottoline Postlethwaite sued. She won. Postlethwaite appealed. Mr. Dunmore lost."
    document = _document(text, ("Ottoline Postlethwaite", "PER"), ("Mr. Dunmore", "PER"))
    at = quality.cut(document)
    assert at == text.index("Postlethwaite appealed")
    first, second = quality.split_in_halves([document])
    assert first[0].text + second[0].text == text
    assert [first[0].text[s.start : s.end] for s in first[0].gold] == ["Ottoline Postlethwaite"]
    # Offsets of the second half count from its own start; a span is never cut.
    assert [second[0].text[s.start : s.end] for s in second[0].gold] == ["Mr. Dunmore"]
    assert second[0].annotators == {"a1": []}
    assert quality.cut(_document("One sentence, no end", ("One", "MISC"))) is None


def test_the_bench_scores_a_set_and_its_second_halves_once_the_first_are_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "He was convicted of a drug offence.\nLater, the drug offence was quashed."
    first, second = text.index("drug offence"), text.rindex("drug offence")
    record = {
        "id": "d1", "lang": "en", "domain": "legal", "text": text,
        "spans": [
            {"start": first, "end": first + 12, "label": "MISC"},
            {"start": second, "end": second + 12, "label": "MISC"},
        ],
    }  # fmt: skip
    folder = tmp_path / "tiny-set"
    folder.mkdir()
    for half in quality.HALVES:
        (folder / f"{half}.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    quality.main([str(folder), "--half", "dev", "--profile", "recall", "--no-ner", "--decided",
                  "--iterations", "2"])  # fmt: skip
    printed = capsys.readouterr().out
    assert "second halves of 1 documents" in printed
    lines = {line.split()[0]: line for line in printed.splitlines() if "precision" in line}
    # Nothing but the table knows that an offence identifies; decided once, it is found again.
    assert "recall   0.0%" in lines["recall"], lines
    assert "recall 100.0%" in lines["recall+table"], lines
    assert "recall 100.0%" in lines["recall+table+learned"], lines
