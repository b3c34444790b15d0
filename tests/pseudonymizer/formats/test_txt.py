from __future__ import annotations

from pathlib import Path

from pseudonymizer.formats import detect_format, read_documents


def test_a_text_file_is_one_document_named_by_its_stem(tmp_path: Path) -> None:
    path = tmp_path / "letter-3.txt"
    text = "Cher Jos\u0301e,\r\nmerci 🎉 — شكرا\r\n"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))

    assert detect_format(path) == "txt"
    (document,) = read_documents(path, language="fr")

    assert document.text == text  # BOM dropped, CRLF and the combining accent kept
    assert (document.external_id, document.language, document.spans) == ("letter-3", "fr", [])


def test_the_upload_name_names_the_document_and_the_errors(tmp_path: Path) -> None:
    path = tmp_path / "4f1c2e.txt"
    path.write_text("Hello", encoding="utf-8")

    (document,) = read_documents(path, filename="notes from Moshe.txt")

    assert (document.external_id, document.filename) == ("notes from Moshe", "notes from Moshe.txt")
