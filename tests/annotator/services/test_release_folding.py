"""A decided name written another way in a finished document refuses the release, and the
refusal names that document (issue 18, "One folding")."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.models import Document, DocumentStatus, JobStatus, Project, Release, ReleaseLeak
from annotator.services.releases.build import release_build
from annotator.services.releases.create import release_create
from annotator.services.spans import span_create
from tests.factories import DocumentFactory, ProjectFactory

BOLD_MOSHE = "\U0001d40c\U0001d428\U0001d42c\U0001d421\U0001d41e"  # 𝐌𝐨𝐬𝐡𝐞

WRITTEN_ANOTHER_WAY = {
    "fullwidth": ("en", "Nobody saw Ｍｏｓｈｅ Ｃｈａｙａ today."),
    "bold": ("en", f"Nobody saw {BOLD_MOSHE} Chaya today."),
    "zero-width-space": ("en", "Nobody saw Mo\u200bshe Chaya today."),
    "zero-width-joiner": ("en", "Nobody saw Moshe Cha\u200dya today."),
    "tatweel": ("ar", "قال محمــد اليوم"),
    "presentation-forms": ("ar", "قال ﻣﺤﻤﺪ اليوم"),
    "zero-width-joiner-arabic": ("ar", "قال مح\u200dمد اليوم"),
    "alef-maqsura": ("ar", "رأيت مصطفي أمس"),
    "ta-marbuta": ("ar", "قالت فاطمه شيئا"),
}


def finished(project: Project, text: str, language: str, decided: list[str] = ()) -> Document:
    """A document marked done, with `decided` surfaces pseudonymized by a person."""
    document = DocumentFactory(project=project, language=language, text=text)
    for surface in decided:
        start = text.index(surface)
        span_create(
            document=document, actor=None, start=start, end=start + len(surface), label="PER",
            decision="pseudonymize", keep_reason="",
        )  # fmt: skip
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.DONE)
    return document


@pytest.mark.django_db
def test_every_document_holding_a_decided_name_written_another_way_is_named(
    db: Any, settings: Any
) -> None:
    # No NER model: the check of the table's originals is what this test is about.
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}
    project = ProjectFactory(languages=["en", "ar"])
    finished(project, "Moshe Chaya wrote.", "en", ["Moshe Chaya"])
    finished(project, "كتب محمد ومصطفى وفاطمة.", "ar", ["محمد", "مصطفى", "فاطمة"])
    leaky = {
        name: finished(project, text, language, []).pk
        for name, (language, text) in WRITTEN_ANOTHER_WAY.items()
    }

    release = release_build(
        release_create(project=project, strategy="S2", format="jsonl", dispatch=False).pk
    )

    assert release.status == JobStatus.REFUSED
    # Named, each, by the check of the rendered text against the table's originals (the
    # detectors' own hits aside).
    rows = ReleaseLeak.objects.filter(release=release, leaks__gte=1)
    named = set(rows.values_list("document_id", flat=True))
    assert {name for name, pk in leaky.items() if pk not in named} == set()
    assert not Release.objects.get(pk=release.pk).file_path
