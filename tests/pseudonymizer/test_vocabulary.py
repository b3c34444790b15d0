"""The rules of a decision, in the engine's vocabulary: the one home every layer derives from."""

from __future__ import annotations

import pytest

from pseudonymizer.vocabulary import (
    MAX_KEEP_REASON,
    Decision,
    DecisionRefused,
    check_decision,
    check_known_decision,
    kept_reason,
)


@pytest.mark.parametrize("decision", list(Decision))
def test_every_decision_of_the_vocabulary_is_known(decision: Decision) -> None:
    assert check_known_decision(decision.value) is decision


def test_an_unknown_decision_is_refused_and_the_decisions_are_named() -> None:
    with pytest.raises(DecisionRefused, match="unknown decision 'ignore'; decisions are"):
        check_known_decision("ignore")
    with pytest.raises(DecisionRefused, match="unknown decision"):
        check_decision("ignore", "")


def test_a_reason_goes_only_with_keep_without_its_outer_spaces() -> None:
    assert kept_reason("keep", "  a public figure ") == "a public figure"
    assert kept_reason("keep", None) == ""
    for decision in ("pseudonymize", "invalidate", "delete"):
        assert kept_reason(decision, "a public figure") == ""


def test_a_keep_needs_a_reason_and_says_whose() -> None:
    with pytest.raises(DecisionRefused, match="why the entity is kept"):
        check_decision("keep", "   ", subject="entity")
    assert check_decision("keep", " a public figure ") == "a public figure"


def test_a_reason_too_long_is_refused_whatever_the_decision_never_cut() -> None:
    fits = "x" * MAX_KEEP_REASON
    assert check_decision("keep", fits) == fits
    for decision in ("keep", "pseudonymize"):
        with pytest.raises(DecisionRefused, match=f"at most {MAX_KEEP_REASON} characters"):
            check_decision(decision, fits + "x")


def test_a_decision_other_than_keep_carries_no_reason() -> None:
    assert check_decision("pseudonymize", "a public figure") == ""
    assert check_decision("delete", None) == ""
