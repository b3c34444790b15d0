from __future__ import annotations

from pathlib import Path

import pytest

from pseudonymizer.formats import FormatError, detect_format, read_documents
from tests.pseudonymizer.formats.helpers import ACUTE, surfaces


def test_it_reads_to_pseudonym_tags_and_keeps_crlf_and_other_angle_brackets(data: Path) -> None:
    assert detect_format(data / "inline_cloaked.txt") == "inline"

    (document,) = read_documents(data / "inline_cloaked.txt")

    assert document.external_id == "inline_cloaked"
    assert document.text == (
        "Shoutout to Moshe Chaya! 🎉\r\n"
        "At Rue Alphonse Metayer, where a < b and <br> stays.\r\n"
        f"Bonjour Jos{ACUTE}.\r\n"
    )
    assert surfaces(document) == [
        ("PER", "Moshe Chaya"),
        ("ADDRESS", "Rue Alphonse Metayer"),
        ("PER", f"Jos{ACUTE}"),
    ]


def test_it_reads_multigrascco_tags_named_by_their_label(data: Path) -> None:
    (document,) = read_documents(data / "inline_multigrascco.txt")

    assert "<" not in document.text
    assert surfaces(document) == [
        ("NAME_PATIENT", "John Smith"),
        ("DATE", "12.03.1961"),
        ("NAME_DOCTOR", "Dr. Ahmed Benali"),
        ("LOCATION_CITY", f"Orl{ACUTE}ans"),
        ("NAME_PATIENT", "Smith"),  # inside Arabic text
    ]


def test_plain_text_with_no_tags_is_txt(tmp_path: Path) -> None:
    path = tmp_path / "note.txt"
    path.write_text("if a < b and <br> then <NOTE> stays", encoding="utf-8")

    assert detect_format(path) == "txt"


@pytest.mark.parametrize(
    ("content", "line", "reason"),
    [
        ("a\n<PER>Moshe <LOC>Paris</LOC></PER>", 2, "tag <LOC> inside <PER> (opened on line 2)"),
        ("<PER>Moshe</LOC>", 1, "closing tag </LOC> does not match <PER> opened on line 1"),
        ("Moshe</PER>", 1, "closing tag </PER> without an opening tag"),
        (
            '<to_pseudonym kind="PER">x</to_pseudonym>',
            1,
            'a <to_pseudonym> tag needs a type="LABEL" attribute',
        ),
    ],
)
def test_it_refuses_badly_nested_tags(tmp_path: Path, content: str, line: int, reason: str) -> None:
    path = tmp_path / "t.txt"
    path.write_text(content, encoding="utf-8")

    with pytest.raises(FormatError) as error:
        list(read_documents(path, "inline"))

    assert (error.value.filename, error.value.line, error.value.reason) == ("t.txt", line, reason)
