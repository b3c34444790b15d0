"""Where every random draw of a suggestion comes from.

Suggestions must be the same for the same (project secret, original, label) on every run and
every machine, and unguessable without the secret. Each run gets its seed from an HMAC-SHA256
under the secret and draws only from its own `random.Random` and its own Faker instances: the
global random state is never read or changed, so concurrent runs cannot disturb each other.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import threading
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from faker import Faker

# What a generator factory returns: a function that draws one candidate per call from the
# run's `Draws`.
Generator = Callable[[], str]


def seed_form(surface: str) -> str:
    """The form a suggestion's seed is drawn from: NFC, casefolded, spaces folded.

    Weaker than `pseudonymizer.folding.fold_key` (an alias's identity) on purpose: the seed
    was taken of this form before the table's identity became the matcher's folding, and a
    seed that changed would change every suggestion offered for a surface with an accent or
    an Arabic variant between two versions of Cloak (and every pseudonym the command line
    draws without a key file). Two spellings of one surface may be offered different
    suggestions; once one is chosen, the table gives it to both.
    """
    return " ".join(unicodedata.normalize("NFC", surface).casefold().split())


def seed_for(secret: str, *parts: str) -> int:
    """A 256-bit seed keyed by the secret: HMAC-SHA256 of the parts, separated unambiguously."""
    message = "\x1f".join(parts).encode("utf-8")
    digest = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest()
    return int.from_bytes(digest, "big")


# Building a Faker costs about as much as drawing a whole suggestion, so each thread keeps one
# per locale and every run reseeds it: a reseeded instance draws exactly what a new one would.
# Runs never nest (one Draws per `suggest`), and threads never share an instance.
_FAKERS = threading.local()


def _faker_for(locale: str) -> Faker:
    cache: dict[str, Faker] = _FAKERS.__dict__.setdefault("by_locale", {})
    instance = cache.get(locale)
    if instance is None:
        from faker import Faker  # ~100 ms to import: only when a name is drawn

        instance = cache[locale] = Faker(locale)
    return instance


def _sub_seed(seed: int, name: str) -> int:
    data = seed.to_bytes(32, "big") + name.encode("utf-8")
    return int.from_bytes(hashlib.sha256(data).digest(), "big")


class Draws:
    """The random sources of one suggestion run, all derived from one seed.

    `random` is a private `random.Random`; `faker(locale)` gives a private Faker instance for
    that locale, seeded from the same seed and the locale's name, created on first use.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.random = random.Random(seed)
        self._fakers: dict[str, Faker] = {}

    def faker(self, locale: str) -> Faker:
        """This run's Faker for `locale` (a Faker locale name such as `fr_FR`)."""
        instance = self._fakers.get(locale)
        if instance is None:
            instance = _faker_for(locale)
            instance.seed_instance(_sub_seed(self.seed, locale))
            self._fakers[locale] = instance
        return instance
