"""A project's overview as each role sees it."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.models import DocumentStatus
from annotator.permissions import access_for
from annotator.selectors.projects import project_overview, projects_of
from tests.conftest import Team
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db


def overview_of(team: Team, user: Any) -> Any:
    return project_overview(user, team.project, access_for(user, team.project))


def test_a_lead_sees_every_language_queue_and_member(team: Team) -> None:
    DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
    DocumentFactory(project=team.project, language="fr", status=DocumentStatus.REVIEWED)
    overview = overview_of(team, team.lead)
    assert [row.label for row in overview.table] == ["English (en)", "French (fr)", "Arabic (ar)"]
    assert [row.total for row in overview.table] == [1, 1, 0]
    assert overview.grand_total == 2 == sum(overview.column_totals)
    assert {queue.assignee for queue in overview.queues} >= {team.annotator_en.username}
    roles = [member.role for member in overview.members]
    assert roles == sorted(roles, key=["admin", "lead", "annotator"].index)
    assert {member.languages for member in overview.members if member.role == "lead"} == {"all"}


def test_an_annotator_sees_their_language_and_queue_and_no_members(team: Team) -> None:
    DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
    DocumentFactory(project=team.project, language="fr")
    overview = overview_of(team, team.annotator_en)
    assert [row.language for row in overview.table] == ["en"]
    assert overview.grand_total == 1
    assert overview.members == [] and overview.queues == [] and overview.imports == []
    assert overview.own_queue.total == 1


def test_the_schema_is_grouped_under_readable_names(team: Team) -> None:
    team.project.label_schema = {
        "labels": [
            {"name": "PER", "group": "ner"},
            {"name": "IBAN", "group": "identifier"},
            {"name": "ODD"},
        ]
    }
    overview = overview_of(team, team.lead)
    assert [
        (group.name, [label["name"] for label in group.labels]) for group in overview.schema
    ] == [
        ("Named entities", ["PER"]),
        ("Identifiers", ["IBAN"]),
        ("Other", ["ODD"]),
    ]


def test_a_person_s_projects_carry_their_role_languages_and_documents(team: Team) -> None:
    DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
    DocumentFactory(project=team.project, language="fr")
    [row] = projects_of(team.annotator_en)
    assert (row.project, row.role, row.languages, row.documents) == (
        team.project, "annotator", ["en"], 1,
    )  # fmt: skip
    assert row.queue.total == 1
    assert [row.documents for row in projects_of(team.lead)] == [2]
