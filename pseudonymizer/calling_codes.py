"""Country calling codes (ITU E.164): how many leading digits of an international number
name its country.

One home for the rule: the phone recognizer checks a number's length against its country's
(`pseudonymizer.recognizers.regex`), and the phone generators keep the country code as it
was (`pseudonymizer.pseudonyms.identifiers.phones`).
"""

from __future__ import annotations

# The codes of one digit (North America, Russia and Kazakhstan) and of two; every other
# country's has three.
_ONE_DIGIT = frozenset({"1", "7"})
_TWO_DIGITS = frozenset(
    """
    20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55
    56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98
    """.split()
)


def country_code_length(digits: str) -> int:
    """The length of the country calling code that `digits` (ASCII, after + or 00) starts
    with: 1, 2 or 3, never more than there are digits."""
    if digits[:1] in _ONE_DIGIT:
        return 1
    if digits[:2] in _TWO_DIGITS:
        return 2
    return min(3, len(digits))
