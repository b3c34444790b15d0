"""The project's vocabulary (`CorpusWord`): written with an import, caught up for documents
written otherwise, and what lets `in_corpus` answer without reading the documents."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.errors import ImportRefused
from annotator.models import CorpusWord, Document
from annotator.selectors.corpus import in_corpus, vocabulary_may_hold
from annotator.services.corpus_words import corpus_words_catch_up
from annotator.services.imports import documents_import
from tests.data import SAMPLE_CORPUS
from tests.factories import DocumentFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def jsonl(path: Path, *texts: str, language: str = "en") -> Path:
    path.write_text(
        "".join(
            json.dumps({"id": f"d{n}", "lang": language, "text": text}, ensure_ascii=False) + "\n"
            for n, text in enumerate(texts)
        ),
        encoding="utf-8",
    )
    return path


def document_reads(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if "annotator_document" in q["sql"]]


@pytest.fixture
def project() -> Any:
    return ProjectFactory(slug="words", languages=["en", "fr", "ar"])


def test_an_import_writes_its_words_with_its_documents(project: Any) -> None:
    documents_import(project=project, path=SAMPLE_CORPUS)
    assert not Document.objects.filter(project=project, words_indexed=False).exists()
    assert CorpusWord.objects.filter(project=project).count() > 100
    for line in SAMPLE_CORPUS.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for span in record.get("spans", []):
            surface = record["text"][span["start"] : span["end"]]
            assert vocabulary_may_hold(project.pk, surface), surface
            assert in_corpus(project.pk, surface), surface


def test_a_word_no_document_has_answers_without_reading_a_document(
    project: Any, tmp_path: Path
) -> None:
    documents_import(
        project=project,
        path=jsonl(tmp_path / "a.jsonl", "Moshe Chaya met Tom at the café.", "سافر ولندن"),
    )
    with CaptureQueriesContext(connection) as queries:
        assert not in_corpus(project.pk, "Raj Avrom")
    # The only read of the documents is of those the vocabulary does not hold: none here,
    # through their partial index.
    reads = document_reads(queries)
    assert len(reads) == 1 and "words_indexed" in reads[0]
    assert in_corpus(project.pk, "MOSHE chaya")
    assert in_corpus(project.pk, "Cafe")
    assert in_corpus(project.pk, "لندن")  # after its proclitic
    # Both words occur, apart: the documents are read, and say no.
    assert vocabulary_may_hold(project.pk, "Tom Chaya")
    assert not in_corpus(project.pk, "Tom Chaya")


def test_the_vocabulary_is_per_project(project: Any, tmp_path: Path) -> None:
    other = ProjectFactory(slug="other-words", languages=["en"])
    documents_import(project=other, path=jsonl(tmp_path / "o.jsonl", "Zebulon was here."))
    assert vocabulary_may_hold(other.pk, "Zebulon")
    assert not vocabulary_may_hold(project.pk, "Zebulon")
    assert not in_corpus(project.pk, "Zebulon")


def test_a_refused_import_leaves_no_word(project: Any, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps({"id": "a", "lang": "en", "text": "Quetzalcoatl came"}) + "\n" + "{not json\n"
    )
    with pytest.raises(ImportRefused):
        documents_import(project=project, path=path)
    assert not CorpusWord.objects.filter(project=project).exists()


def test_a_document_no_import_wrote_is_read_until_caught_up(project: Any) -> None:
    document = DocumentFactory(project=project, language="en", text="Ezekiel Talmor writes.")
    assert not document.words_indexed
    assert not vocabulary_may_hold(project.pk, "Ezekiel Talmor")
    assert in_corpus(project.pk, "Ezekiel Talmor")  # read, as pending

    assert corpus_words_catch_up() == 1
    document.refresh_from_db()
    assert document.words_indexed
    assert vocabulary_may_hold(project.pk, "Ezekiel Talmor")
    assert in_corpus(project.pk, "Ezekiel Talmor")
    assert corpus_words_catch_up() == 0


def test_the_catch_up_leaves_replicas_and_is_a_command(project: Any) -> None:
    document = DocumentFactory(project=project, language="en", text="Hosea Lindqvist came.")
    replica = DocumentFactory(
        project=project, language="en", text=document.text, replica_of=document
    )
    out = io.StringIO()
    call_command("index_corpus", project.slug, stdout=out)
    assert "1" in out.getvalue()
    assert Document.objects.get(pk=document.pk).words_indexed
    assert not Document.objects.get(pk=replica.pk).words_indexed  # never read
    assert vocabulary_may_hold(project.pk, "Hosea")


def test_a_word_split_by_a_zero_width_space_is_found_both_ways(
    project: Any, tmp_path: Path
) -> None:
    documents_import(
        project=project,
        path=jsonl(tmp_path / "z.jsonl", "Mo\u200bshe and x\u200bChaya wrote"),
    )
    assert in_corpus(project.pk, "Moshe")  # the folded text joins it
    assert in_corpus(project.pk, "Chaya")  # the original keeps it apart from "x"
