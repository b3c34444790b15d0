"""Anything else, token by token: digits redrawn, short capitals and letters mixed with
digits re-lettered, words replaced by words of about the same length."""

from __future__ import annotations

import random

from pseudonymizer.pseudonyms.determinism import Draws, Generator
from pseudonymizer.pseudonyms.identifiers.words import word_pool, words_like
from pseudonymizer.pseudonyms.locales import locale_for_script
from pseudonymizer.pseudonyms.shape import (
    Case,
    apply_case,
    case_of,
    lookup_key,
    lookup_keys,
    pieces,
    random_letters,
    replace_digits,
    script_of,
    split_whitespace,
)

_GENERIC_KEEP = lookup_keys(
    """
    de du des la le les l d et of the and a an in on at to for و في من على
    """.split()
)


def generic_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for anything else, token by token: digits redrawn, short capitals and
    letters mixed with digits re-lettered, words replaced by words of about the same length."""
    tokens, separators = split_whitespace(original)

    def token_like(rng: random.Random, token: str) -> str:
        mixed = any(char.isdecimal() for char in token) and any(char.isalpha() for char in token)
        out = []
        for kind, text in pieces(token):
            if kind == "digits":
                out.append(replace_digits(rng, text))
            elif kind != "letters" or lookup_key(text) in _GENERIC_KEEP:
                out.append(text)
            elif mixed or (case_of(text) is Case.UPPER and len(text) <= 4) or len(text) <= 2:
                out.append(random_letters(rng, text))
            else:
                script_locale = locale_for_script(script_of(text), language)
                pool = word_pool(script_locale, text.isascii()) or word_pool("en_US", True)
                out.append(apply_case(case_of(text), words_like(rng, pool, text)))
        return "".join(out)

    def generate() -> str:
        rng = draws.random
        return "".join(
            token_like(rng, token) + (separators[index] if index < len(separators) else "")
            for index, token in enumerate(tokens)
        )

    return generate
