"""A lead's answer to a review item is dispatched once (`resolve.review_act`): the review page
and the API hand it what their forms read, and it resolves or dismisses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from annotator.errors import DomainError
from annotator.models import ReviewItem, ReviewKind, ReviewStatus
from annotator.services.review import resolve
from annotator.services.table import surface_decide
from tests.conftest import Team, client_for

pytestmark = pytest.mark.django_db


def _conflict(team: Team, surface: str) -> ReviewItem:
    choice = surface_decide(
        project=team.project, surface=surface, language="en", label="PER",
        decision="pseudonymize", replacement=f"Raj {surface[-1]}", actor=team.lead,
    )  # fmt: skip
    return ReviewItem.objects.create(
        project=team.project, kind=ReviewKind.KEEP_CONFLICT, entity_id=choice.entity_id,
        detail={"language": "en"}, fingerprint=surface,
    )  # fmt: skip


def _answer(team: Team, item: ReviewItem, via: str, body: dict[str, str]) -> int:
    client = client_for(team.lead)
    kwargs = {"slug": team.project.slug, "pk": item.pk}
    if via == "page":
        return int(client.post(reverse("review_detail", kwargs=kwargs), body).status_code)
    path = reverse("api-review-resolve", kwargs=kwargs)
    return int(client.post(path, json.dumps(body), content_type="application/json").status_code)


@pytest.mark.parametrize(
    "body",
    [
        {"action": "resolve", "decision": "keep", "rationale": "A public figure."},
        {"action": "dismiss", "rationale": "Nothing to change."},
    ],
)
def test_the_page_and_the_api_answer_through_the_one_dispatch(
    team: Team, monkeypatch: Any, body: dict[str, str]
) -> None:
    calls: list[dict[str, Any]] = []
    real = resolve.review_act

    def recorded(**kwargs: Any) -> ReviewItem:
        calls.append({**kwargs, "item": None, "actor": kwargs["actor"].pk})
        return real(**kwargs)

    monkeypatch.setattr(resolve, "review_act", recorded)
    for number, via in enumerate(("page", "api")):
        item = _conflict(team, f"Moshe Chaya {'AB'[number]}")
        assert _answer(team, item, via, body) in (200, 302)
        item.refresh_from_db()
        assert item.status == ReviewStatus.RESOLVED
        assert item.resolution["action"] == body["action"]

    assert len(calls) == 2
    # What each form reads, the same way: an empty pseudonym or label is none.
    page, api = ({k: v for k, v in call.items() if v not in ("", None)} for call in calls)
    assert page == api
    assert page["action"] == body["action"] and page["rationale"] == body["rationale"]


def test_an_unknown_action_is_refused_and_changes_nothing(team: Team) -> None:
    item = _conflict(team, "Moshe Chaya C")

    with pytest.raises(DomainError, match="unknown action"):
        resolve.review_act(item=item, actor=team.lead, action="approve", rationale="Why not.")

    item.refresh_from_db()
    assert item.status == ReviewStatus.OPEN
