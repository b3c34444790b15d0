"""Annotators deciding at once: a pseudonym the server drew that another surface took between
the draw and the write is drawn again; one a person typed is refused, never swapped."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from annotator.keys import surfaces as keys
from annotator.keys.models import Alias, Entity
from annotator.models import Project
from annotator.services.table import ReplacementRefused, surface_choice, surface_decide
from tests.factories import ProjectFactory

SURFACE = "Moshe Chaya"
RIVAL = "Yossi Levi"


def decide(project: Project, surface: str, replacement: str | None = None) -> keys.Choice:
    return surface_decide(
        project=project,
        surface=surface,
        language="en",
        label="PER",
        decision="pseudonymize",
        replacement=replacement,
    )


def rival_takes(project: Project, pseudonym: str) -> None:
    """Another annotator, on their own connection, gives `pseudonym` to another surface and
    commits, while this test's write is between its check and its insert."""
    errors: list[BaseException] = []

    def annotator() -> None:
        try:
            decide(project, RIVAL, replacement=pseudonym)
        except BaseException as error:  # surfaced below, in the test's thread
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=annotator)
    thread.start()
    thread.join(30)
    assert not thread.is_alive() and not errors, errors


def after_first_call(real: Callable[..., Any], then: Callable[[Any], None]) -> Any:
    """`real`, which calls `then` with its answer the first time (the rival's own calls, made
    from `then`, pass straight through)."""
    calls: list[Any] = []

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        value = real(*args, **kwargs)
        calls.append(value)
        if len(calls) == 1:
            then(value)
        return value

    wrapped.calls = calls  # type: ignore[attr-defined]
    return wrapped


@pytest.mark.django_db(transaction=True)
def test_a_drawn_pseudonym_another_surface_took_meanwhile_is_drawn_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = ProjectFactory(languages=["en"])
    draw = after_first_call(keys._draw, lambda drawn: rival_takes(project, drawn))
    monkeypatch.setattr(keys, "_draw", draw)

    choice = decide(project, SURFACE)

    lost, kept = draw.calls
    assert kept != lost
    assert choice.created and choice.replacement == kept
    rival = surface_choice(project, RIVAL)
    assert rival is not None and rival.replacement == lost
    mine = surface_choice(project, SURFACE)
    assert mine is not None and mine.replacement == kept
    assert Entity.objects.filter(project_id=project.pk).count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_typed_pseudonym_another_surface_took_meanwhile_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = ProjectFactory(languages=["en"])
    check = after_first_call(
        keys.check_replacement, lambda _: rival_takes(project, "Raj Avrom")
    )  # free when checked; taken the moment after
    monkeypatch.setattr(keys, "check_replacement", check)

    with pytest.raises(ReplacementRefused, match="just taken for another surface"):
        decide(project, SURFACE, replacement="Raj Avrom")

    assert surface_choice(project, SURFACE) is None
    rival = surface_choice(project, RIVAL)
    assert rival is not None and rival.replacement == "Raj Avrom"
    assert Entity.objects.filter(project_id=project.pk).count() == 1


@pytest.mark.django_db
def test_drawing_again_gives_up_after_a_few_losses_and_writes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = ProjectFactory(languages=["en"])
    decide(project, RIVAL, replacement="Raj Avrom")
    draws: list[str] = []

    def always_taken(*args: Any, **kwargs: Any) -> str:
        draws.append("Raj Avrom")
        return "Raj Avrom"  # as if every draw lost its race

    monkeypatch.setattr(keys, "_draw", always_taken)

    with pytest.raises(ReplacementRefused, match="try again, or type one"):
        decide(project, SURFACE)

    assert len(draws) == keys.DRAWS
    assert surface_choice(project, SURFACE) is None
    assert Alias.objects.filter(project_id=project.pk, parent__isnull=True).count() == 1


@pytest.mark.django_db
def test_a_redraw_skips_the_pseudonyms_it_lost_even_before_the_table_shows_them() -> None:
    project = ProjectFactory(languages=["en"])
    scope = project
    first = keys._draw(scope, SURFACE, "PER", "en")

    again = keys._draw(scope, SURFACE, "PER", "en", lost=[first])

    assert again != first
    assert keys._draw(scope, SURFACE, "PER", "en") == first  # the draw is deterministic
