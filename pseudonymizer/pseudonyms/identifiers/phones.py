"""Phone numbers: the country code (+44 stays +44), the trunk prefix, spaces and grouping
kept; the personal digits redrawn in the same digit script."""

from __future__ import annotations

from pseudonymizer.calling_codes import country_code_length
from pseudonymizer.pseudonyms.determinism import Draws, Generator
from pseudonymizer.pseudonyms.shape import digit_positions, digits_at, in_family


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
