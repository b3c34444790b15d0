"""GET /api/projects/{slug}/quality/: the quality page's numbers as JSON, for leads and admins."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from annotator.models import DocumentStatus, PreannotationRun, Project, RunBatch, SpanStatus
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db

TEXT = "Moshe Chaya met Sara Mansour in Beirut on Monday."
QUALITY_FIELDS = ("language", "run", "agreement", "preannotation", "learned")
URL = reverse("api-quality", kwargs={"slug": "radical"})


def at(surface: str) -> tuple[int, int]:
    start = TEXT.index(surface)
    return start, start + len(surface)


@pytest.fixture
def run(team: Team) -> PreannotationRun:
    """Moshe Chaya proposed and accepted, "Sara" widened to Sara Mansour, Monday rejected,
    Beirut added by a person; an import in a French document; a double-annotated pair."""
    run = PreannotationRun.objects.create(project=team.project, language="en", status="done")
    document = DocumentFactory(project=team.project, text=TEXT, status=DocumentStatus.DONE)
    RunBatch.objects.create(run=run, number=1, language="en", document_ids=[document.pk])
    for surface, proposed, label, status in [
        ("Moshe Chaya", "Moshe Chaya", "PER", SpanStatus.ACCEPTED),
        ("Sara Mansour", "Sara", "PER", SpanStatus.ACCEPTED),
        ("Monday", "Monday", "LOC", SpanStatus.REJECTED),
    ]:
        SpanFactory(document=document, start=at(surface)[0], end=at(surface)[1], label=label,
                    source="ner", status=status, run=run, proposed_start=at(proposed)[0],
                    proposed_end=at(proposed)[1], proposed_label=label)  # fmt: skip
    SpanFactory(document=document, start=at("Beirut")[0], end=at("Beirut")[1], label="LOC",
                source="human", status=SpanStatus.ACCEPTED)  # fmt: skip
    french = DocumentFactory(
        project=team.project, language="fr", text=TEXT, status=DocumentStatus.REVIEWED
    )
    SpanFactory(document=french, start=0, end=11, label="PER", source="import",
                status=SpanStatus.ACCEPTED, proposed_start=0, proposed_end=5,
                proposed_label="PER")  # fmt: skip
    replica = DocumentFactory(
        project=team.project, text=TEXT, status=DocumentStatus.DONE, replica_of=document
    )
    SpanFactory(document=replica, start=at("Moshe Chaya")[0], end=at("Moshe Chaya")[1],
                label="PER", source="human", status=SpanStatus.ACCEPTED)  # fmt: skip
    return run


def get(team: Team, **params: Any) -> Any:
    return client_for(team.lead).get(URL, params)


def source(body: dict[str, Any], name: str) -> dict[str, Any]:
    return next(row for row in body["preannotation"]["sources"] if row["source"] == name)


def test_the_numbers(team: Team, run: PreannotationRun) -> None:
    response = get(team)
    assert response.status_code == 200
    body = response.json()
    assert (body["language"], body["run"]) == (None, None)
    pre = body["preannotation"]
    assert pre["documents"] == 2
    every = source(body, "all")
    # Gold: Moshe, Sara Mansour, Beirut (en), Moshe Chaya (fr); proposals: 3 NER, 1 import.
    assert every["proposed"] == 4
    strict = every["strict"]["micro"]
    assert (strict["gold"], strict["pred"], strict["matched_gold"]) == (4, 4, 1)
    assert every["relaxed"]["micro"]["matched_gold"] == 3
    labels = {row["label"]: row["scores"] for row in every["strict"]["labels"]}
    assert labels["PER"]["precision"] == pytest.approx(1 / 3)
    assert source(body, "ner")["relaxed"]["micro"]["precision"] == pytest.approx(2 / 3)
    assert {row["language"]: row["documents"] for row in pre["languages"]} == {"en": 1, "fr": 1}
    assert {m["label"]: m["missed"] for m in pre["misses"]} == {"LOC": 1, "PER": 0}
    agreement = body["agreement"]
    assert (agreement["pairs"], agreement["tokens"]) == (1, 9)
    assert agreement["overall"]["first"] == 3 and agreement["overall"]["second"] == 1
    assert agreement["weeks"][0]["pairs"] == 1
    # Nine words are too few for a kappa: null, and why.
    too_small = "only 9 words compared; kappa needs at least 20"
    assert (agreement["overall"]["kappa"], agreement["overall"]["kappa_reason"]) == (
        None, too_small,
    )  # fmt: skip
    assert (agreement["weeks"][0]["kappa"], agreement["weeks"][0]["kappa_reason"]) == (
        None, too_small,
    )  # fmt: skip
    # The first annotator's Sara Mansour and Beirut: nothing from the second.
    assert agreement["confusion"] == [
        {"first": "LOC", "second": None, "spans": 1},
        {"first": "PER", "second": "PER", "spans": 1},
        {"first": "PER", "second": None, "spans": 1},
    ]
    assert body["learned"] == [
        {"language": code, "run": None, "model_version": "", "proposed": 0, "alone": 0,
         "accepted": 0, "note": "no run has used a learned model for this language yet"}
        for code in ("en", "fr", "ar")
    ]  # fmt: skip
    assert "Moshe" not in response.content.decode()


def test_filters_by_run_and_language(team: Team, run: PreannotationRun) -> None:
    body = get(team, run=run.pk).json()
    assert body["run"] == str(run.pk)
    assert body["preannotation"]["documents"] == 1
    assert source(body, "all")["strict"]["micro"]["gold"] == 3
    imported = get(team, run="import").json()
    assert imported["run"] == "import"
    strict = source(imported, "all")["strict"]["micro"]
    assert (strict["gold"], strict["pred"], strict["matched_gold"]) == (1, 1, 0)
    assert source(imported, "all")["relaxed"]["micro"]["matched_gold"] == 1
    french = get(team, language="fr").json()
    assert french["preannotation"]["documents"] == 1
    assert french["agreement"] == {
        "pairs": 0, "tokens": 0, "overall": None, "labels": [], "languages": [], "weeks": [],
        "confusion": [],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"run": "0"}, "run: "),
        ({"run": "imports"}, "run: "),
        ({"language": "English"}, "language: "),
        ({"window": "week"}, "unknown query parameter: window"),
    ],
)
def test_a_bad_filter_is_a_400(
    team: Team, run: PreannotationRun, params: dict[str, str], message: str
) -> None:
    response = get(team, **params)
    assert response.status_code == 400
    assert response.json()["detail"].startswith(message)


def test_a_run_of_another_project_or_of_none_is_a_404(team: Team) -> None:
    elsewhere = Project.objects.get(slug="elsewhere")
    other = PreannotationRun.objects.create(project=elsewhere, status="done")
    for run in (other.pk, 999999):
        response = get(team, run=run)
        assert response.status_code == 404
        assert response.json()["detail"] == f"No run {run} in this project."


@pytest.mark.parametrize(
    ("role", "status"),
    [("admin", 200), ("lead", 200), ("annotator_en", 403), ("annotator_fr", 403),
     ("outsider", 404)],
)  # fmt: skip
def test_leads_and_admins_only(team: Team, run: PreannotationRun, role: str, status: int) -> None:
    response = client_for(team.by_role()[role]).get(URL)
    assert response.status_code == status
    assert set(response.json()) == ({"detail"} if status != 200 else set(QUALITY_FIELDS))
    assert client_for(None).get(URL).status_code == 401


def test_the_schema_documents_the_answer_and_the_filters(team: Team) -> None:
    response = client_for(team.lead).get(reverse("api-schema"), HTTP_ACCEPT="application/json")
    schema = json.loads(response.content)
    operation = schema["paths"]["/api/projects/{slug}/quality/"]["get"]
    parameters = {p["name"]: p["schema"] for p in operation["parameters"]}
    assert set(parameters) == {"slug", "language", "run"}
    assert parameters["run"]["pattern"] == "^(import|[1-9][0-9]{0,17})$"
    body = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/Quality"}
    quality = schema["components"]["schemas"]["Quality"]
    assert set(quality["required"]) == set(QUALITY_FIELDS)
    assert {"400", "401", "403", "404"} <= set(operation["responses"])
