"""The guarantee bench in a small form (bench/guarantee_bench.py, issue 29): a generated
trilingual corpus with identifiers planted in thirty forms and more, worked by a team that
decides each person once, accepts what is proposed and fixes what a release refuses. No
planted identifier of a person it decided is published."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.guarantee_bench import FORMS, Person, Planted, _in_clear, generate, run_team

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_the_corpus_plants_thirty_forms_and_more_in_three_languages() -> None:
    corpus = generate(150, seed=3)
    forms = {plant.form for plant in corpus.planted}
    assert len(forms) >= 30 and forms <= set(FORMS)
    assert {record["lang"] for record in corpus.records} == {"en", "fr", "ar"}
    texts = {record["id"]: record["text"] for record in corpus.records}
    for plant in corpus.planted:  # offsets are code points of the post as written
        assert texts[plant.document][plant.start : plant.end] == plant.surface


def test_what_is_in_clear_is_found_as_written_or_by_a_word_of_the_name() -> None:
    person = Person(1, "Evander", "Thistlewood", False)
    plant = Planted("d", 0, 19, "full", 1, "Evander Thistlewood")
    assert _in_clear(plant, person, "PER met Thistlewood's dog")
    assert _in_clear(plant, person, "Met ΕVANDER today")  # a look-alike, folded
    assert not _in_clear(plant, person, "PER met PER")


def test_no_planted_identifier_of_a_decided_person_is_published(
    settings: Any, tmp_path: Path
) -> None:
    settings.MEDIA_ROOT = str(tmp_path)
    settings.CLOAK_LEARN_EVERY = 0  # as the bench: the detection a project starts with
    corpus = generate(120, seed=29)

    outcome = run_team(corpus, use_ner=True, rounds=5, out=lambda line: None)

    report = outcome.as_dict()
    assert outcome.release_status == "done", report
    assert outcome.left_out == 0, report
    assert len(report["forms"]) >= 30
    published = {form: row for form, row in report["forms"].items() if row["published"]}
    assert not published, published
