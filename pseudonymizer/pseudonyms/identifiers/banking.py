"""Numbers with check digits: IBANs and payment cards, redrawn with their country or
network and grouping kept, and a valid check whenever the original had one
(`pseudonymizer.checksums`)."""

from __future__ import annotations

import re

from pseudonymizer.checksums import iban_check_digits, luhn_valid
from pseudonymizer.pseudonyms.determinism import Draws, Generator
from pseudonymizer.pseudonyms.identifiers.generic import generic_generator
from pseudonymizer.pseudonyms.shape import digit_positions, digits_at, in_family, random_letters

# Whether a surface labelled IBAN has an IBAN's shape (any case, spaces removed), to be
# redrawn as one; finding IBANs in running text is the recognizer's stricter pattern.
IBAN = re.compile(r"^[A-Za-z]{2}\d{2}[A-Za-z0-9]{8,30}$")


def iban_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for an IBAN: country and grouping kept, the account redrawn, checksum valid."""
    compact = re.sub(r"\s", "", original)
    if not IBAN.match(compact):
        return generic_generator(original, language, draws)

    def generate() -> str:
        rng = draws.random
        bban = "".join(
            str(rng.randrange(10)) if char.isdecimal() else random_letters(rng, char)
            for char in compact[4:]
        )
        new = compact[:2] + iban_check_digits(compact[:2], bban) + bban
        out, position = [], 0
        for char in original:
            if char.isspace():
                out.append(char)
            else:
                out.append(new[position])
                position += 1
        return "".join(out)

    return generate


def card_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for a payment card: network digit and grouping kept, Luhn-valid if it was."""
    positions = digit_positions(original)
    digits = digits_at(original, positions)
    valid = luhn_valid(digits)

    def generate() -> str:
        rng = draws.random
        new = digits[:1] + "".join(str(rng.randrange(10)) for _ in digits[1:])
        if valid:
            for last in range(10):
                if luhn_valid(new[:-1] + str(last)):
                    new = new[:-1] + str(last)
                    break
        out = list(original)
        for index, value in zip(positions, new, strict=True):
            out[index] = in_family(int(value), original[index])
        return "".join(out)

    return generate
