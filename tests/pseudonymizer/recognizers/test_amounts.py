from __future__ import annotations

import pytest

from pseudonymizer.recognizers.amounts import AmountRecognizer


def found(text: str) -> list[str]:
    return [text[s.start : s.end] for s in AmountRecognizer().recognize_one(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("awarded GBP 150.20 per month", ["GBP 150.20"]),
        ("TRL 2,677,533,000 (approximately USD 790)", ["TRL 2,677,533,000", "USD 790"]),
        ("payer 3 000 euros et €1 500", ["3 000 euros", "€1 500"]),
        ("EUR 5 million in damages", ["EUR 5 million"]),
        ("it cost $12.50.", ["$12.50"]),
        ("paid 500 pounds sterling", ["500 pounds sterling"]),
        ("🎉 1\u00a0000\u00a0€ reçus", ["1\u00a0000\u00a0€"]),
    ],
)
def test_an_amount_with_its_currency_is_money(text: str, expected: list[str]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    ["all 3 of them", "esp 12 times", "in 1998 he paid", "Article 41", "12 of the 15 euro-zone"],
)
def test_a_number_without_a_currency_is_left_alone(text: str) -> None:
    assert found(text) == []
