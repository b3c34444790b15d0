"""Words of about a given length, drawn from a locale's word list: what stands for a word
inside a handle, a domain label or any other identifier."""

from __future__ import annotations

import random
from functools import cache

from pseudonymizer.pseudonyms.locales import words
from pseudonymizer.pseudonyms.shape import lookup_key, script_of, to_ascii


@cache
def word_pool(locale: str, ascii_only: bool) -> tuple[str, ...]:
    pool = words(locale)
    if ascii_only:
        pool = tuple(to_ascii(word) for word in pool)
    return tuple(word for word in pool if word.isalpha() and len(word) >= 2)


def words_like(rng: random.Random, pool: tuple[str, ...], original: str) -> str:
    """One word, or a few run together, about as long as `original` (never `original`)."""
    length = max(1, len(original))
    slack = max(1, length // 4)
    low, high = length - slack, length + slack
    arabic_article = script_of(original) == "Arab" and original.startswith("ال")
    if arabic_article:
        low, high = max(1, low - 2), max(1, high - 2)
        pool = tuple(word for word in pool if not word.startswith("ال")) or pool
    count_choices = (1,) if length <= 8 else (1, 2) if length <= 14 else (2, 3)
    word = ""
    for _ in range(60):
        word = "".join(rng.choice(pool) for _ in range(rng.choice(count_choices)))
        if low <= len(word) <= high and lookup_key(word) != lookup_key(original):
            break
    else:
        while len(word) < length:
            word += rng.choice(pool)
        word = word[:length]
    return ("ال" + word) if arabic_article else word
