"""The pseudonym the table draws for a surface never holds the surface."""

from __future__ import annotations

import pytest

from annotator.services.table import suggestions_for, surface_decide
from pseudonymizer.pseudonyms.dispatch import contains_original
from tests.conftest import Team

SURFACES = ["{{7*7}}", "***", "2024", "7", "${7*7}", "Moshe"]


@pytest.mark.parametrize("surface", SURFACES)
def test_a_drawn_pseudonym_never_holds_its_surface(team: Team, surface: str) -> None:
    choice = surface_decide(
        project=team.project,
        surface=surface,
        language="en",
        label="PER",
        decision="pseudonymize",
        actor=team.annotator_en,
    )
    assert choice.replacement
    assert not contains_original(choice.replacement, surface)


@pytest.mark.parametrize("surface", SURFACES)
def test_no_suggestion_the_page_offers_holds_its_surface(team: Team, surface: str) -> None:
    offered = suggestions_for(team.project, surface, "PER", "en")
    assert offered
    assert all(not contains_original(pseudonym, surface) for pseudonym in offered)
