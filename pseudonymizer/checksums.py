"""Check digits of the numbers that carry one: payment cards (Luhn) and IBANs (ISO 7064
mod 97-10).

One home for both rules: the recognizers accept a candidate only when its check holds
(`pseudonymizer.recognizers.regex`), and the pseudonym generators draw numbers whose check
holds whenever the original's did (`pseudonymizer.pseudonyms.identifiers.banking`).
"""

from __future__ import annotations


def luhn_valid(digits: str) -> bool:
    """Whether a card number (its digits only, of any script) passes the Luhn check."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0 and len(digits) > 1


def _mod97(text: str) -> int:
    """The remainder by 97 of `text` read as a number, each letter standing for 10-35."""
    return int("".join(str(int(char, 36)) for char in text)) % 97


def iban_check_digits(country: str, bban: str) -> str:
    """The two check digits of the IBAN with this country code and account part (BBAN)."""
    return f"{98 - _mod97(bban + country + '00'):02d}"


def iban_valid(iban: str) -> bool:
    """Whether a compact IBAN (no spaces: country, check digits, BBAN) passes the mod-97 check."""
    return _mod97(iban[4:] + iban[:4]) == 1
