"""Phone numbers: the country code (+44 stays +44), the trunk prefix, spaces and grouping
kept; the personal digits redrawn in the same digit script."""

from __future__ import annotations

from pseudonymizer.pseudonyms.determinism import Draws, Generator
from pseudonymizer.pseudonyms.shape import digit_positions, digits_at, in_family

_CC_ONE = {"1", "7"}
_CC_TWO = frozenset(
    """
    20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55
    56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98
    """.split()
)


def country_code_length(digits: str) -> int:
    """The length of the ITU country calling code that `digits` (after + or 00) starts with."""
    if digits[:1] in _CC_ONE:
        return 1
    if digits[:2] in _CC_TWO:
        return 2
    return min(3, len(digits))


def phone_prefix_length(
    original: str, digits: str, *, keep_type: bool = True, international: bool = False
) -> int:
    """How many leading digits of a phone number are not personal: the country code (and,
    when `keep_type`, the next digit: mobile or landline), or a national 0 and its area digit.

    `international`: the number is written without its + (`wa.me/447700900384`)."""
    stripped = original.lstrip(" (")
    keep = 0
    if stripped.startswith(("+", "＋")) or (international and not digits.startswith("0")):
        keep = country_code_length(digits)
        if keep_type and len(digits) - keep >= 7:
            keep += 1
    elif digits.startswith("00") and len(digits) >= 11:
        keep = 2 + country_code_length(digits[2:]) + (1 if keep_type else 0)
    elif digits.startswith("0") and len(digits) >= 8:
        keep = 2 if keep_type else 1
    return max(0, min(keep, len(digits) - 3))


def phone_generator(
    original: str, language: str, draws: Draws, *, international: bool = False
) -> Generator:
    """Candidates for a phone number: country code (+44 stays +44), national trunk prefix,
    spaces and grouping kept; the other digits redrawn in the same digit script."""
    positions = digit_positions(original)
    digits = digits_at(original, positions)
    keep = phone_prefix_length(original, digits, international=international)

    def generate() -> str:
        rng = draws.random
        out = list(original)
        for number, index in enumerate(positions):
            if number < keep:
                continue
            value = rng.randrange(10)
            if number == keep and keep == 0 and digits[0] != "0":
                value = rng.randrange(2, 10)
            out[index] = in_family(value, original[index])
        return "".join(out)

    return generate
