from __future__ import annotations

from pathlib import Path

from pseudonymizer.formats import detect_format, read_documents
from tests.pseudonymizer.formats.helpers import ACUTE


def test_it_reads_records_keeping_crlf_inside_quoted_fields(data: Path) -> None:
    assert detect_format(data / "corpus.csv") == "csv"

    documents = list(read_documents(data / "corpus.csv", language="fr"))

    assert [d.external_id for d in documents] == ["c-1", "c-2", "c-3"]
    assert documents[0].text == 'Moshe Chaya 🎉 wrote:\r\n"See you at Rue Alphonse Metayer"'
    assert documents[1].text == "قابلت Moshe في Paris"
    assert documents[2].text == f"Jos{ACUTE}, call me"
    # The line where each record starts; the first spans two lines.
    assert [d.line for d in documents] == [2, 4, 5]
    assert [d.language for d in documents] == ["en", "ar", "fr"]
    assert [d.metadata for d in documents] == [
        {"source": "telegram"},
        {"source": "twitter"},
        {"source": "forum"},
    ]


def test_it_takes_another_text_column_and_a_semicolon_delimiter(tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufeffnr;body\r\n1;Grüß Gott\r\n\r\n2;Servus\r\n".encode())

    documents = list(read_documents(path, text_column="body"))

    assert [(d.text, d.line, d.external_id) for d in documents] == [
        ("Grüß Gott", 2, None),
        ("Servus", 4, None),
    ]
    assert documents[0].metadata == {"nr": "1"}
