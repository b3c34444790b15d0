"""Invalidation: an identifier changed just enough that it no longer resolves.

`https://wa.me/+93722758` → `https://wa.me/+93824556`: the scheme, the host, the path's
structure, the country code, separators, lengths and capitalisation stay, so the text still
reads as a link to a WhatsApp number; the identifying part (the last path segment, a query
value, the digits of a number, the local part of an address) has characters changed.
"""

from __future__ import annotations

import math
import random
import re
import unicodedata

from pseudonymizer.pseudonyms.determinism import seed_for
from pseudonymizer.pseudonyms.identifiers.network import (
    EMAIL,
    PATH_WORDS,
    PLATFORMS,
    URL,
    URL_LIKE,
    suffix_length,
)
from pseudonymizer.pseudonyms.identifiers.phones import phone_prefix_length
from pseudonymizer.pseudonyms.shape import digit_value, in_family, lookup_key, random_letter

_PHONE_LIKE = re.compile(r"^[+＋(]?[\d\s().\-/]{6,}$")


def _scramble(rng: random.Random, text: str, *, protected: int = 0) -> str:
    """About half of the digits (or, with fewer than three, of the letters) of `text` changed,
    each to another character of its kind, script and case; the first `protected` digits stay."""
    digits = [index for index, char in enumerate(text) if char.isdecimal()][protected:]
    letters = [index for index, char in enumerate(text) if char.isalpha()]
    targets = digits if len(digits) >= 3 else digits + letters
    if not targets:
        return text
    count = max(1, math.ceil(len(targets) / 2))
    out = list(text)
    for index in rng.sample(targets, count):
        char = text[index]
        if char.isdecimal():
            value = digit_value(char)
            new_value = rng.choice([v for v in range(10) if v != value])
            out[index] = in_family(new_value, char)
        else:
            out[index] = random_letter(rng, char, avoid=char)
    return "".join(out)


def _phone(rng: random.Random, text: str, *, international: bool = False) -> str:
    digits = "".join(str(digit_value(char)) for char in text if char.isdecimal())
    protected = phone_prefix_length(text, digits, keep_type=False, international=international)
    return _scramble(rng, text, protected=protected)


def _segment(rng: random.Random, segment: str) -> str:
    if _PHONE_LIKE.match(segment):
        # wa.me/447700900384: a number in international form, written without its +.
        international = sum(char.isdecimal() for char in segment) >= 10
        return _phone(rng, segment, international=international)
    return _scramble(rng, segment)


def _url(rng: random.Random, original: str) -> str | None:
    match = URL.match(original)
    if match is None:
        return None
    start, end = match.span("path")
    if start >= 0:
        path = original[start:end]
        segments = path.split("/")
        for index in range(len(segments) - 1, -1, -1):
            segment = segments[index]
            if (
                segment
                and lookup_key(segment) not in PATH_WORDS
                and any(c.isalnum() for c in segment)
            ):
                segments[index] = _segment(rng, segment)
                return original[:start] + "/".join(segments) + original[end:]
    start, end = match.span("query")
    if start >= 0 and "=" in original[start:end]:
        query = original[start:end]
        key_end = query.rindex("=") + 1
        value_end = query.find("&", key_end)
        value_end = len(query) if value_end < 0 else value_end
        if value_end > key_end:
            value = _segment(rng, query[key_end:value_end])
            new_query = query[:key_end] + value + query[value_end:]
            return original[:start] + new_query + original[end:]
    start, end = match.span("fragment")
    if start >= 0 and end - start > 1:
        return original[: start + 1] + _scramble(rng, original[start + 1 : end])
    start, end = match.span("host")
    labels = original[start:end].split(".")
    registrable = max(0, len(labels) - suffix_length(labels) - 1)
    target = registrable
    if lookup_key(labels[registrable]) in PLATFORMS and registrable > 0:
        target = registrable - 1
    labels[target] = _scramble(rng, labels[target])
    return original[:start] + ".".join(labels) + original[end:]


def invalidate(original: str, secret: str) -> str:
    """`original` with characters changed so that it no longer resolves, keeping its form.

    Deterministic for (secret, original); never equal to `original`. URLs keep scheme, host
    and path structure (the last meaningful path segment, else a query value, else the
    fragment, else the host name is altered); phone numbers keep their country code;
    e-mail addresses keep their domain; handles keep their @ or #.
    """
    text = unicodedata.normalize("NFC", original)
    if not text.strip():
        raise ValueError("nothing to invalidate in an empty surface")
    rng = random.Random(seed_for(secret, "invalidate", text))
    result: str | None = None
    if EMAIL.match(text) and not URL_LIKE.match(text):
        local, _, domain = text.rpartition("@")
        prefix = "mailto:" if local.lower().startswith("mailto:") else ""
        result = prefix + _scramble(rng, local[len(prefix) :]) + "@" + domain
    elif URL_LIKE.match(text):
        result = _url(rng, text)
    elif _PHONE_LIKE.match(text):
        result = _phone(rng, text)
    if result is None or result == text:
        result = _scramble(rng, text)
    if result == text:
        # Nothing to change (no letter, no digit): mark it so it cannot be followed.
        result = text + "_"
    return result
