from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pseudonymizer.formats import read_documents
from pseudonymizer.formats.writers import (
    OutputDocument,
    bio_sentences,
    write_conll,
    write_csv,
    write_jsonl,
)
from pseudonymizer.spans import Span

ACUTE = "e\u0301"
TEXT_A = "Shoutout to Raj Avrom! At Rue Hubert Couturier.\r\n😀 Call +44 7700 123456."
TEXT_B = f"قال وليد 🎉 إن Jos{ACUTE} في باريس"


def sample() -> list[OutputDocument]:
    phone = TEXT_A.index("+44")
    walid = TEXT_B.index("وليد")
    jose = TEXT_B.index("Jos")
    paris = TEXT_B.index("باريس")
    return [
        OutputDocument(
            id="en-001",
            language="en",
            text=TEXT_A,
            spans=[
                Span(26, 46, "ADDRESS", source="human", decision="pseudonymize"),
                Span(12, 21, "PER", score=0.93, source="ner", decision="pseudonymize"),
                Span(phone, phone + 15, "PHONE", source="regex", decision="invalidate"),
            ],
            metadata={"split": "train", "round": 2},
        ),
        OutputDocument(
            id="ar-001",
            language="ar",
            text=TEXT_B,
            spans=[
                Span(walid, walid + 4, "PER"),
                Span(jose, jose + 5, "PER", decision="keep"),
                Span(paris, paris + 5, "LOC"),
            ],
        ),
    ]


def surfaces(text: str, spans: list[Span]) -> list[tuple[str, str]]:
    return [(span.label, text[span.start : span.end]) for span in spans]


def test_jsonl_reads_back_the_same_documents(tmp_path: Path) -> None:
    path = tmp_path / "release.jsonl"

    assert write_jsonl(sample(), path) == 2
    back = list(read_documents(path, fmt="jsonl"))

    for written, read in zip(sample(), back, strict=True):
        assert read.text == written.text
        assert (read.external_id, read.language) == (written.id, written.language)
        assert [(s.start, s.end, s.label, s.score, s.decision) for s in read.spans] == sorted(
            (s.start, s.end, s.label, s.score, s.decision) for s in written.spans
        )
    assert back[0].metadata == {"split": "train", "round": 2}
    assert surfaces(back[0].text, back[0].spans)[0] == ("PER", "Raj Avrom")


def test_jsonl_has_the_sample_corpus_shape() -> None:
    out = io.StringIO()

    write_jsonl(sample()[:1], out)

    record = json.loads(out.getvalue())
    assert list(record)[:4] == ["id", "lang", "text", "spans"]
    assert record["spans"][0] == {
        "start": 12,
        "end": 21,
        "label": "PER",
        "text": "Raj Avrom",
        "score": 0.93,
        "source": "ner",
        "decision": "pseudonymize",
    }
    assert out.getvalue().count("\n") == 1  # the CRLF inside the text is escaped
    assert "😀" in out.getvalue()  # not \ud83d\ude00


def test_jsonl_names_the_other_sources_of_a_span_and_reads_back(tmp_path: Path) -> None:
    document = OutputDocument(
        id="en-002",
        language="en",
        text="Raj Avrom wrote.",
        spans=[Span(0, 9, "PER", source="learned", also=("ner",))],
    )
    path = tmp_path / "found.jsonl"

    write_jsonl([document], path)

    (span,) = json.loads(path.read_text(encoding="utf-8"))["spans"]
    assert (span["source"], span["also"]) == ("learned", ["ner"])
    (back,) = read_documents(path, fmt="jsonl")
    assert [(s.start, s.end, s.label) for s in back.spans] == [(0, 9, "PER")]


def test_csv_reads_back_with_crlf_inside_the_text(tmp_path: Path) -> None:
    path = tmp_path / "release.csv"

    assert write_csv(sample(), path, metadata_columns=["split", "round"]) == 2
    back = list(read_documents(path, fmt="csv"))

    assert [document.text for document in back] == [TEXT_A, TEXT_B]
    assert "\r\n" in back[0].text
    assert [(d.external_id, d.language) for d in back] == [("en-001", "en"), ("ar-001", "ar")]
    spans = json.loads(str(back[0].metadata["spans"]))
    assert [(s["start"], s["end"], s["label"], s["text"]) for s in spans] == [
        (12, 21, "PER", "Raj Avrom"),
        (26, 46, "ADDRESS", "Rue Hubert Couturier"),
        (56, 71, "PHONE", "+44 7700 123456"),
    ]
    assert (back[0].metadata["split"], back[0].metadata["round"]) == ("train", "2")
    assert (back[1].metadata["split"], back[1].metadata["round"]) == ("", "")


def test_csv_to_a_stream_opened_with_newline_empty(tmp_path: Path) -> None:
    path = tmp_path / "release.csv"
    with path.open("w", encoding="utf-8", newline="") as stream:
        write_csv(sample(), stream)

    assert [d.text for d in read_documents(path, fmt="csv")] == [TEXT_A, TEXT_B]


def test_csv_refuses_a_metadata_column_named_like_a_fixed_one() -> None:
    with pytest.raises(ValueError, match="'text'"):
        write_csv(sample(), io.StringIO(), metadata_columns=["text"])


def test_conll_reads_back_the_spans_on_the_rebuilt_text(tmp_path: Path) -> None:
    path = tmp_path / "release.conll"

    assert write_conll(sample(), path) == 2
    first, second = read_documents(path, fmt="conll", language="xx")

    # Punctuation is split off; the CRLF outside every span ends a sentence.
    assert first.text == (
        "Shoutout to Raj Avrom ! At Rue Hubert Couturier .\n😀 Call +44 7700 123456 ."
    )
    assert surfaces(first.text, first.spans) == [
        ("PER", "Raj Avrom"),
        ("ADDRESS", "Rue Hubert Couturier"),
        ("PHONE", "+44 7700 123456"),
    ]
    assert first.external_id == "en-001"
    assert second.text == TEXT_B
    assert surfaces(second.text, second.spans) == [
        ("PER", "وليد"),
        ("PER", f"Jos{ACUTE}"),
        ("LOC", "باريس"),
    ]
    assert second.external_id == "ar-001"


def test_conll_tags_adjacent_spans_and_spans_across_lines() -> None:
    text = "@marie.delattre1, TomJones\r\nlives at 12 Rue\nX «Alpha»"
    spans = [
        Span(0, 16, "USERNAME"),
        Span(18, 21, "PER"),
        Span(21, 26, "PER"),
        Span(37, 47, "ADDRESS"),  # "12 Rue\nX" runs across a line break
        Span(47, 52, "ORG"),
    ]
    assert (text[37:47], text[47:52]) == ("12 Rue\nX «", "Alpha")

    sentences = bio_sentences(text, spans)

    assert sentences == [
        [("@marie.delattre1", "B-USERNAME"), (",", "O"), ("Tom", "B-PER"), ("Jones", "B-PER")],
        [
            ("lives", "O"),
            ("at", "O"),
            ("12", "B-ADDRESS"),
            ("Rue", "I-ADDRESS"),
            ("X", "I-ADDRESS"),
            ("«", "I-ADDRESS"),
            ("Alpha", "B-ORG"),
            ("»", "O"),
        ],
    ]


def test_conll_keeps_tokens_that_look_like_markers(tmp_path: Path) -> None:
    path = tmp_path / "odd.conll"
    text = "-DOCSTART- #id=7 #key=value #tag"
    write_conll(
        [OutputDocument(id="d", language="en", text=text, spans=[Span(28, 32, "TAG")])], path
    )

    (document,) = read_documents(path, fmt="conll")

    assert document.text == "-DOCSTART - # id=7 # key=value #tag"
    assert surfaces(document.text, document.spans) == [("TAG", "#tag")]
    assert document.external_id == "d"


def test_conll_refuses_overlapping_spans() -> None:
    document = OutputDocument("d", "en", "Moshe Chaya", [Span(0, 11, "PER"), Span(6, 11, "PER")])

    with pytest.raises(ValueError, match="overlap"):
        write_conll([document], io.StringIO())


def test_writers_refuse_a_span_outside_the_text() -> None:
    document = OutputDocument("d", "en", "Tom", [Span(0, 4, "PER")])

    for writer in (write_jsonl, write_csv, write_conll):
        with pytest.raises(ValueError, match="outside the text"):
            writer([document], io.StringIO())


# --- Property: the CoNLL round trip loses only whitespace -------------------------------------

ALPHABET = st.sampled_from(
    ["a", "B", "7", " ", "\r\n", "\n", "\t", "😀", "\u0301", "ق", "ل", ".", ",", "!", "«", "#", "="]
)


@st.composite
def documents(draw: st.DrawFn) -> OutputDocument:
    text = "x" + "".join(draw(st.lists(ALPHABET, max_size=30)))
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=8)))
    spans = [
        Span(start, end, draw(st.sampled_from(["PER", "LOC"])))
        for start, end in zip(cuts[::2], cuts[1::2], strict=False)
        if text[start:end].strip()
    ]
    return OutputDocument(id=None, language="en", text=text, spans=spans)


def squeeze(value: str) -> str:
    return "".join(value.split())


@settings(
    deadline=None, max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(documents(), min_size=1, max_size=3))
def test_conll_round_trip_keeps_every_character_but_whitespace(
    tmp_path: Path, written: list[OutputDocument]
) -> None:
    path = tmp_path / "round.conll"
    write_conll(written, path)

    back = list(read_documents(path, fmt="conll"))

    assert len(back) == len(written)
    for original, read in zip(written, back, strict=True):
        assert squeeze(read.text) == squeeze(original.text)
        assert [(label, squeeze(value)) for label, value in surfaces(read.text, read.spans)] == [
            (label, squeeze(value))
            for label, value in surfaces(
                original.text, sorted(original.spans, key=lambda s: s.start)
            )
        ]
