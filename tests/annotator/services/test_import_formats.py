"""Every format, through the service: each stored span covers the surface the file gave."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.models import Document, Span
from annotator.services.imports import documents_import
from pseudonymizer.formats import read_documents
from pseudonymizer.schemas import preset
from tests.factories import ProjectFactory

DATA = Path(__file__).resolve().parents[2] / "data" / "formats"
FILES = sorted(p for p in DATA.rglob("*") if p.is_file() and p.suffix != ".txt" or
               p.name.startswith("inline"))  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_each_format_round_trips_through_the_database(path: Path) -> None:
    expected = list(read_documents(path, language="en"))
    labels = {span.label for document in expected for span in document.spans}
    schema = preset("cloaked")
    schema["labels"] += [
        {"name": label} for label in labels - {x["name"] for x in schema["labels"]}
    ]
    project = ProjectFactory(languages=["en", "fr", "ar"], label_schema=schema)
    summary = documents_import(project=project, path=path, language="en")
    assert summary.documents == len(expected) > 0
    assert summary.spans == sum(len(d.spans) for d in expected)
    stored_documents = Document.objects.filter(project=project).order_by("id")
    for document, stored in zip(expected, stored_documents, strict=True):
        if document.external_id is not None:
            assert stored.external_id == document.external_id
        assert stored.text == document.text
        want = sorted(
            (s.start, s.end, s.label, document.text[s.start : s.end]) for s in document.spans
        )
        got = sorted(
            (s.start, s.end, s.label, stored.text[s.start : s.end])
            for s in Span.objects.filter(document=stored)
        )
        assert got == want
