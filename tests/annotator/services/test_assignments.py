"""Queues: documents go to their language's annotator, admins move them, and each person's
next document comes in a stable order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.errors import DomainError
from annotator.models import AuditAction, AuditEvent, Document, DocumentStatus
from annotator.selectors.queues import next_document, project_queues, queues_of
from annotator.services.assignments import documents_assign
from annotator.services.imports import documents_import
from annotator.services.projects import membership_set
from tests.conftest import PASSWORD, Team, client_for
from tests.factories import DocumentFactory


def posts(path: Path, *languages: str) -> Path:
    lines = [
        json.dumps({"id": f"post-{n}", "lang": lang, "text": f"Post {n} in {lang}"})
        for n, lang in enumerate(languages)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def holders(team: Team) -> dict[str, str | None]:
    return {
        d.external_id: d.assignee.username if d.assignee else None
        for d in Document.objects.filter(project=team.project).select_related("assignee")
    }


def test_imported_documents_go_to_their_languages_annotator(team: Team, tmp_path: Path) -> None:
    documents_import(project=team.project, path=posts(tmp_path / "a.jsonl", "en", "fr", "ar"))
    assert holders(team) == {
        "post-0": team.annotator_en.username,
        "post-1": team.annotator_fr.username,
        "post-2": None,  # no Arabic annotator yet
    }


def test_an_annotator_who_joins_takes_the_documents_nobody_holds(
    team: Team, tmp_path: Path
) -> None:
    documents_import(project=team.project, path=posts(tmp_path / "a.jsonl", "ar", "ar", "en"))
    membership_set(
        project=team.project, username="amina", role="annotator", languages=["ar"],
        password=PASSWORD,
    )  # fmt: skip
    # A second English annotator takes nothing: the English post has its annotator already.
    membership_set(
        project=team.project, username="tom", role="annotator", languages=["en"],
        password=PASSWORD,
    )  # fmt: skip
    assert holders(team) == {
        "post-0": "amina",
        "post-1": "amina",
        "post-2": team.annotator_en.username,
    }


def test_an_admin_reassigns_many_and_it_is_audited(team: Team) -> None:
    documents = [DocumentFactory(project=team.project, language="en") for _ in range(3)]
    changed = documents_assign(
        project=team.project,
        actor=team.admin,
        document_ids=[d.pk for d in documents],
        assignee=team.lead.username,
    )
    assert changed == 3
    assert set(Document.objects.values_list("assignee", flat=True)) == {team.lead.pk}
    event = AuditEvent.objects.get(action=AuditAction.ASSIGN)
    assert event.actor == team.admin and event.detail["changed"] == 3
    assert (
        documents_assign(
            project=team.project, actor=team.admin, document_ids=[documents[0].pk], assignee=None
        )
        == 1
    )
    assert Document.objects.get(pk=documents[0].pk).assignee is None


@pytest.mark.parametrize(
    ("who", "message"),
    [
        ("annotator_fr", "does not work on en"),
        ("outsider", "is not a member"),
        ("nobody-at-all", "is not a member"),
    ],
)
def test_a_reassignment_that_cannot_be_changes_nothing(team: Team, who: str, message: str) -> None:
    documents = [DocumentFactory(project=team.project, language=lang) for lang in ("fr", "en")]
    username = getattr(team, who).username if hasattr(team, who) else who
    with pytest.raises(DomainError, match=message):
        documents_assign(
            project=team.project, actor=team.admin,
            document_ids=[d.pk for d in documents], assignee=username,
        )  # fmt: skip
    assert not Document.objects.filter(assignee__isnull=False).exists()
    assert not AuditEvent.objects.filter(action=AuditAction.ASSIGN).exists()


def test_ids_from_another_project_are_refused(team: Team) -> None:
    elsewhere = DocumentFactory(project=team.outsider.memberships.get().project)
    mine = DocumentFactory(project=team.project, language="en")
    with pytest.raises(DomainError, match=str(elsewhere.pk)):
        documents_assign(
            project=team.project, actor=team.admin,
            document_ids=[mine.pk, elsewhere.pk], assignee=team.lead.username,
        )  # fmt: skip
    assert Document.objects.get(pk=mine.pk).assignee is None


def test_the_next_document_is_the_first_undone_after_the_current_one(team: Team) -> None:
    me = team.annotator_en
    first, done, third = (
        DocumentFactory(project=team.project, language="en", assignee=me, status=status)
        for status in (DocumentStatus.NEW, DocumentStatus.DONE, DocumentStatus.IN_PROGRESS)
    )
    DocumentFactory(project=team.project, language="en", assignee=team.lead)
    assert next_document(me, team.project) == first
    assert next_document(me, team.project, after=first.pk) == third
    assert next_document(me, team.project, after=third.pk) == first  # wraps around
    Document.objects.filter(pk__in=[first.pk, third.pk]).update(status=DocumentStatus.DONE)
    assert next_document(me, team.project) is None
    assert done.status == DocumentStatus.DONE


def test_queues_count_each_persons_documents_by_status(team: Team) -> None:
    for status in (DocumentStatus.NEW, DocumentStatus.NEW, DocumentStatus.DONE):
        DocumentFactory(project=team.project, language="en", assignee=team.annotator_en,
                        status=status)  # fmt: skip
    DocumentFactory(project=team.project, language="ar")
    mine = queues_of([team.project], team.annotator_en)[team.project.pk]
    assert (mine.total, mine.finished, mine.to_do, mine.percent) == (3, 1, 2, 33)
    assert mine.pending == [("New", 2)]
    every = project_queues(team.project)
    assert [(q.assignee, q.total) for q in every] == [(team.annotator_en.username, 3), (None, 1)]


def test_the_pages_show_queues_and_lead_to_the_next_document(team: Team) -> None:
    document = DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
    annotator = client_for(team.annotator_en)
    home = annotator.get("/").content.decode()
    assert "0 of 1 done" in home and "Next document (1 to do)" in home
    response = annotator.get(f"/projects/{team.project.slug}/next/")
    assert response["Location"] == f"/projects/{team.project.slug}/documents/{document.pk}/"
    overview = annotator.get(f"/projects/{team.project.slug}/").content.decode()
    assert "Your queue" in overview and "Queues" not in overview
    lead_overview = client_for(team.lead).get(f"/projects/{team.project.slug}/").content.decode()
    assert "Queues" in lead_overview and team.annotator_en.username in lead_overview
    empty = client_for(team.annotator_fr).get(f"/projects/{team.project.slug}/next/")
    assert empty["Location"] == f"/projects/{team.project.slug}/"


def test_an_admin_assigns_from_the_document_list(team: Team) -> None:
    documents = [DocumentFactory(project=team.project, language="en") for _ in range(2)]
    admin = client_for(team.admin)
    page = admin.get(f"/projects/{team.project.slug}/documents/").content.decode()
    assert 'id="assign-form"' in page and 'name="documents"' in page
    back = f"/projects/{team.project.slug}/documents/?language=en"
    response = admin.post(
        f"/projects/{team.project.slug}/documents/assign/",
        {"documents": [d.pk for d in documents], "assignee": team.annotator_en.username,
         "next": back},
    )  # fmt: skip
    assert response.status_code == 302 and response["Location"] == back
    assert set(Document.objects.values_list("assignee", flat=True)) == {team.annotator_en.pk}
    refused = admin.post(
        f"/projects/{team.project.slug}/documents/assign/",
        {"documents": [documents[0].pk], "assignee": team.annotator_fr.username,
         "next": "https://elsewhere.example/"},
    )  # fmt: skip
    assert refused["Location"] == f"/projects/{team.project.slug}/documents/"
    assert Document.objects.get(pk=documents[0].pk).assignee == team.annotator_en
    shown = admin.get(refused["Location"]).content.decode()
    assert "does not work on en" in shown
    annotator_page = client_for(team.annotator_en).get(f"/projects/{team.project.slug}/documents/")
    assert 'id="assign-form"' not in annotator_page.content.decode()
