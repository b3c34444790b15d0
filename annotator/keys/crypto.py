"""Encryption at rest for original surfaces, and a keyed digest to look them up.

Originals are encrypted with Fernet (AES-128-CBC + HMAC-SHA256) under a key derived from
CLOAK_KEYS_SECRET; lookups go through an HMAC of the normalised surface (its matching form,
`pseudonymizer.folding`), so equality can be tested in SQL without the database ever seeing a
plaintext original.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from functools import cache, lru_cache

from cryptography.fernet import Fernet
from django.conf import settings

from pseudonymizer.folding import fold_key


def derive_key(purpose: bytes) -> bytes:
    """A 32-byte key for one purpose, derived from CLOAK_KEYS_SECRET: every key that seals
    or digests something of the keys' comes from here, each under its own purpose."""
    secret = settings.CLOAK_KEYS_SECRET.encode()
    return hmac.new(secret, b"cloak-keys:" + purpose, hashlib.sha256).digest()


@cache
def _fernet(secret: str) -> Fernet:
    del secret  # part of the cache key only: settings may change under tests
    return Fernet(base64.urlsafe_b64encode(derive_key(b"encrypt")))


def encrypt(original: str) -> bytes:
    return _fernet(settings.CLOAK_KEYS_SECRET).encrypt(original.encode("utf-8"))


def decrypt(token: bytes | memoryview) -> str:
    return _fernet(settings.CLOAK_KEYS_SECRET).decrypt(bytes(token)).decode("utf-8")


# The engine's rule for when two surfaces are one alias: the matching form the known-entity
# matcher and the leak check use (`pseudonymizer.folding`), so that a surface the matcher
# finds is the alias the table holds for it. Changing this rule changes every stored digest:
# keys migration 0006 recomputes them.
normalise_surface = fold_key


@lru_cache(maxsize=64)
def _digester(keys_secret: str, project_secret: str) -> hmac.HMAC:
    """The HMAC keyed for one project's digests, its key derived once (a page digests every
    surface it shows): `surface_digest` feeds a copy of it."""
    del keys_secret  # part of the cache key only: settings may change under tests
    return hmac.new(derive_key(b"digest:" + project_secret.encode()), digestmod=hashlib.sha256)


def surface_digest(project_secret: str, surface: str) -> str:
    return _surface_digest(settings.CLOAK_KEYS_SECRET, project_secret, surface)


# Surfaces digested by this process lately. A page digests every surface it shows and a
# pseudonym's draw every run of words of each candidate, the same ones from one request to
# the next: folding and keying them again was a fifth of an accept's CPU. The cache lives in
# this process's memory only, as the texts it serves do.
@lru_cache(maxsize=1 << 14)
def _surface_digest(keys_secret: str, project_secret: str, surface: str) -> str:
    digester = _digester(keys_secret, project_secret).copy()
    digester.update(normalise_surface(surface).encode("utf-8"))
    return digester.hexdigest()
