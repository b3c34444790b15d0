"""The demo corpus is well-formed and carries the cases Cloak must get exactly right."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest

from annotator.demo import CORPUS_PATH

LABELS = {
    "PER",
    "USERNAME",
    "URL",
    "EMAIL",
    "PHONE",
    "HASHTAG",
    "ADDRESS",
    "LOC",
    "ORG",
    "COMP",
    "DATE",
}
DECISIONS = {"pseudonymize", "keep", "invalidate"}
# The fictional people of the corpus, in Latin script (en, fr) and Arabic script (ar).
RECURRING_PEOPLE = [
    ("Yusuf Belkadi", "يوسف بلقاضي"),
    ("Clarisse Ndiaye", "كلاريس ندياي"),
    ("Tomas Hartwell", "توماس هارتويل"),
    ("Rania Saadoun", "رانيا سعدون"),
]
ARABIC_INDIC_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789")


@pytest.fixture(scope="module")
def docs() -> list[dict[str, Any]]:
    raw = CORPUS_PATH.read_bytes().decode("utf-8")
    return [json.loads(line) for line in raw.split("\n") if line]


def _spans(docs: list[dict[str, Any]], label: str) -> list[str]:
    return [s["text"] for d in docs for s in d["spans"] if s["label"] == label]


def test_every_line_is_a_document_with_a_unique_id(docs: list[dict[str, Any]]) -> None:
    assert all(set(d) == {"id", "lang", "text", "spans"} for d in docs)
    ids = [d["id"] for d in docs]
    assert len(ids) == len(set(ids))
    assert all(d["id"].startswith(f"demo-{d['lang']}-") for d in docs)


def test_every_span_points_at_its_text_in_code_points(docs: list[dict[str, Any]]) -> None:
    for d in docs:
        previous_end = 0
        for span in d["spans"]:
            assert set(span) == {"start", "end", "label", "decision", "text"}, d["id"]
            assert previous_end <= span["start"] < span["end"] <= len(d["text"]), d["id"]
            assert d["text"][span["start"] : span["end"]] == span["text"], d["id"]
            assert span["label"] in LABELS, d["id"]
            assert span["decision"] in DECISIONS, d["id"]
            previous_end = span["end"]


def test_all_three_languages_have_at_least_ten_documents(docs: list[dict[str, Any]]) -> None:
    counts = Counter(d["lang"] for d in docs)

    assert set(counts) == {"en", "fr", "ar"}
    assert all(n >= 10 for n in counts.values()), counts


def test_the_same_people_recur_across_languages_and_scripts(docs: list[dict[str, Any]]) -> None:
    people: dict[str, set[str]] = {lang: set() for lang in ("en", "fr", "ar")}
    for d in docs:
        people[d["lang"]].update(s["text"] for s in d["spans"] if s["label"] == "PER")

    for latin, arabic in RECURRING_PEOPLE:
        assert latin in people["en"] and latin in people["fr"], latin
        assert arabic in people["ar"], arabic


def test_it_holds_the_hard_cases_for_offsets(docs: list[dict[str, Any]]) -> None:
    def has_emoji_before_a_span(d: dict[str, Any]) -> bool:
        return bool(d["spans"]) and any(
            ord(c) > 0xFFFF for c in d["text"][: d["spans"][-1]["start"]]
        )

    assert any(has_emoji_before_a_span(d) for d in docs)
    assert any("\r\n" in d["text"] for d in docs)
    assert any("e\u0301" in s["text"] for d in docs for s in d["spans"] if s["label"] == "PER")
    assert any(
        re.search("[A-Za-z]", s["text"]) for d in docs if d["lang"] == "ar" for s in d["spans"]
    )
    assert any(re.search("[٠-٩]", phone) for phone in _spans(docs, "PHONE"))
    assert {"pseudonymize", "keep", "invalidate"} <= {
        s["decision"] for d in docs for s in d["spans"]
    }


def test_contact_data_is_reserved_for_fiction(docs: list[dict[str, Any]]) -> None:
    for email in _spans(docs, "EMAIL"):
        assert email.endswith(("@example.com", "@example.org")), email
    for url in _spans(docs, "URL"):
        assert re.match(r"https://(www\.example\.org|t\.me|wa\.me)/", url), url
    for phone in _spans(docs, "PHONE"):
        digits = re.sub(r"\D", "", phone.translate(ARABIC_INDIC_DIGITS))
        # Ofcom's drama range 07700 900000-900999; ARCEP's fiction range 01 99 00 xx xx.
        assert digits.startswith(("447700900", "019900")), phone
