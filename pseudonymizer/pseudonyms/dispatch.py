"""`suggest`: which generator a label calls for, and the drawing of valid, distinct candidates."""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator
from enum import StrEnum

from pseudonymizer.folding import fold_key
from pseudonymizer.pseudonyms import people, places
from pseudonymizer.pseudonyms.determinism import Draws, seed_for, seed_form
from pseudonymizer.pseudonyms.identifiers import (
    banking,
    dates,
    generic,
    handles,
    network,
    phones,
)
from pseudonymizer.pseudonyms.shape import (
    LETTERS,
    digit_value,
    in_family,
    join_whitespace,
    lookup_key,
    random_letter,
    split_whitespace,
    word_keys,
)


class Kind(StrEnum):
    """What a label names, as far as pseudonyms go."""

    PERSON = "person"
    PLACE = "place"
    ADDRESS = "address"
    ORGANISATION = "organisation"
    USERNAME = "username"
    HASHTAG = "hashtag"
    EMAIL = "email"
    PHONE = "phone"
    URL = "url"
    IBAN = "iban"
    IP = "ip"
    CARD = "card"
    DATE = "date"
    OTHER = "other"


_LABEL_KINDS = {
    **dict.fromkeys(
        (
            "PER",
            "PERSON",
            "PERS",
            "NAME",
            "PATIENT",
            "DOCTOR",
            "NAME_PATIENT",
            "NAME_DOCTOR",
            "NAME_RELATIVE",
            "NAME_EXT",
            "NAME_OTHER",
            "FIRST_NAME",
            "LAST_NAME",
        ),
        Kind.PERSON,
    ),
    **dict.fromkeys(
        (
            "LOC",
            "LOCATION",
            "GPE",
            "CITY",
            "COUNTRY",
            "STATE",
            "PLACE",
            "LOCATION_CITY",
            "LOCATION_COUNTRY",
            "LOCATION_STATE",
            "LOCATION_OTHER",
        ),
        Kind.PLACE,
    ),
    **dict.fromkeys(("ADDRESS", "STREET", "LOCATION_STREET", "STREET_ADDRESS"), Kind.ADDRESS),
    **dict.fromkeys(
        (
            "ORG",
            "ORGANIZATION",
            "ORGANISATION",
            "COMP",
            "COMPANY",
            "LOCATION_ORGANIZATION",
            "LOCATION_HOSPITAL",
            "HOSPITAL",
            "FAC",
            "FACILITY",
        ),
        Kind.ORGANISATION,
    ),
    **dict.fromkeys(("USERNAME", "NAME_USERNAME", "USER", "HANDLE"), Kind.USERNAME),
    "HASHTAG": Kind.HASHTAG,
    **dict.fromkeys(("EMAIL", "E-MAIL", "MAIL", "CONTACT_EMAIL", "EMAIL_ADDRESS"), Kind.EMAIL),
    **dict.fromkeys(
        ("PHONE", "TEL", "TELEPHONE", "PHONE_NUMBER", "CONTACT_PHONE", "CONTACT_FAX", "FAX"),
        Kind.PHONE,
    ),
    **dict.fromkeys(("URL", "LINK", "WEB", "CONTACT_URL"), Kind.URL),
    **dict.fromkeys(("IBAN", "IBAN_CODE"), Kind.IBAN),
    **dict.fromkeys(("IP", "IP_ADDRESS"), Kind.IP),
    **dict.fromkeys(("CARD", "CREDIT_CARD", "PAYMENT_CARD"), Kind.CARD),
    **dict.fromkeys(("DATE", "TIME", "DATE_TIME", "DATETIME"), Kind.DATE),
}
_NOT_PEOPLE = {"NAME_TITLE", "NAME_USERNAME"}


def kind_of(label: str) -> Kind:
    """What `label` names: `PER`, `NAME_PATIENT`, `B-PER` → PERSON; `LOC:REL` → PLACE; …"""
    key = re.sub(r"^[BIES]-", "", label.strip().upper())
    if key in _LABEL_KINDS:
        return _LABEL_KINDS[key]
    head = re.split(r"[:.]", key)[0]
    if head in _LABEL_KINDS:
        return _LABEL_KINDS[head]
    if key.startswith("NAME_") and key not in _NOT_PEOPLE:
        return Kind.PERSON
    if key.startswith("LOCATION_") and key != "LOCATION_ZIP":
        return Kind.PLACE
    return Kind.OTHER


_SHAPED = {Kind.PHONE, Kind.DATE, Kind.IBAN, Kind.IP, Kind.CARD}
# Kinds drawn from lists of words: a surface without a letter gives them nothing to go by.
_WORDED = {Kind.PERSON, Kind.PLACE, Kind.ADDRESS, Kind.ORGANISATION}
_HAS_LETTER = re.compile(LETTERS)


def _kind_for(original: str, label: str) -> Kind:
    """The label's kind, unless the surface itself is plainly an address, link or handle, or
    a name without a letter (`{{7*7}}` as PER), whose digits and signs are reshaped instead."""
    kind = kind_of(label)
    text = original.strip()
    if kind in _WORDED and not _HAS_LETTER.search(text):
        return Kind.OTHER
    if kind in _SHAPED or any(char.isspace() for char in text) or len(text) < 2:
        return kind
    if network.URL_LIKE.match(text):
        return Kind.URL
    if network.EMAIL.match(text):
        return Kind.EMAIL
    if text[0] in "@＠":
        return Kind.USERNAME
    if text[0] in "#＃":
        return Kind.HASHTAG
    return kind


# Every kind but places takes (original, language, draws); a place also takes its label
# (LOCATION_CITY, LOCATION_COUNTRY, ... shape what is drawn), so `suggest` passes it there.
Factory = Callable[[str, str, Draws], Callable[[], str]]

_GENERATORS: dict[Kind, Factory] = {
    Kind.PERSON: people.person_generator,
    Kind.ADDRESS: places.address_generator,
    Kind.ORGANISATION: places.organisation_generator,
    Kind.USERNAME: handles.username_generator,
    Kind.HASHTAG: handles.hashtag_generator,
    Kind.EMAIL: network.email_generator,
    Kind.PHONE: phones.phone_generator,
    Kind.URL: network.url_generator,
    Kind.IBAN: banking.iban_generator,
    Kind.IP: network.ip_generator,
    Kind.CARD: banking.card_generator,
    Kind.DATE: dates.date_generator,
    Kind.OTHER: generic.generic_generator,
}


class SurfaceSet(Collection[str]):
    """Surfaces compared the way aliases are (normalised), and searchable as word sequences:
    `contains_within("Moshe Levi")` is true when "moshe" alone is in the set.

    Pass one to `suggest` as `taken` or `forbidden` to avoid normalising a large collection
    on every call; the key table keeps its originals and replacements in two of these.
    """

    def __init__(self, surfaces: Iterable[str] = ()) -> None:
        self._whole: set[str] = set()
        self._sequences: set[tuple[str, ...]] = set()
        self._longest = 0
        for surface in surfaces:
            self.add(surface)

    def add(self, surface: str) -> None:
        """Add one surface."""
        key = fold_key(surface)
        if not key:
            return
        self._whole.add(key)
        sequence = tuple(word_keys(key))
        if sequence:
            self._sequences.add(sequence)
            self._longest = max(self._longest, len(sequence))

    def __contains__(self, surface: object) -> bool:
        return isinstance(surface, str) and fold_key(surface) in self._whole

    def __iter__(self) -> Iterator[str]:
        return iter(self._whole)

    def __len__(self) -> int:
        return len(self._whole)

    def prefetch(self, candidates: Iterable[str]) -> None:
        """About to be asked about `candidates` (and their runs of words): a set that lives
        elsewhere (a database) answers them all at once here. Nothing to do in memory."""

    def contains_within(self, text: str) -> bool:
        """Whether a surface of the set occurs in `text` as a whole sequence of words."""
        found = word_keys(fold_key(text))
        for size in range(1, min(self._longest, len(found)) + 1):
            for start in range(len(found) - size + 1):
                if tuple(found[start : start + size]) in self._sequences:
                    return True
        return False


def _as_set(surfaces: Collection[str]) -> SurfaceSet:
    return surfaces if isinstance(surfaces, SurfaceSet) else SurfaceSet(surfaces)


def _containment_key(text: str) -> str:
    return " ".join(lookup_key(text).split())


def _repeats_a_word(key: str) -> bool:
    """Whether a folded name says one word twice ("Curtis Curtis"): as a person's pseudonym
    its words could not each stand for one word of the name (the table's word aliases)."""
    words = key.split()
    return len(set(words)) < len(words)


def contains_original(candidate: str, original: str) -> bool:
    """Whether `candidate` holds `original` anywhere, compared folded (case, accents, Arabic
    marks, compatibility forms and runs of spaces ignored): `{{7*7}}0` holds `{{7*7}}`,
    `MOSHER` holds `Moshé`. A pseudonym that does would publish its original."""
    key = _containment_key(original)
    return bool(key) and key in _containment_key(candidate)


# What stands for a sign in a surface with neither letter nor digit ("***"). None of them
# starts a spreadsheet formula.
_SIGNS = "#%&*~^|/_!?$"


def reshape(rng: random.Random, original: str) -> str:
    """`original` with every letter and digit changed, each to another of its script, case
    and digit family, and everything else kept; in a surface with neither letter nor digit,
    every sign changed instead. Never holds `original`: it is as long, and differs from it
    at every letter, digit or sign that is not whitespace."""
    worded = any(char.isalpha() or char.isdecimal() for char in original)
    out = []
    for char in original:
        if char.isspace():
            out.append(char)
        elif char.isdecimal():
            out.append(in_family((digit_value(char) + 1 + rng.randrange(9)) % 10, char))
        elif char.isalpha():
            out.append(random_letter(rng, char, avoid=char + lookup_key(char)))
        elif worded:
            out.append(char)
        else:
            out.append(rng.choice([sign for sign in _SIGNS if sign != char]))
    return "".join(out)


def _vary(rng: random.Random, candidate: str, original: str, attempt: int) -> str:
    """A variation of `candidate`: one letter (or digit) of a replaced word changed; after
    many tries, a number appended (always new)."""
    tokens, separators = split_whitespace(candidate)
    kept = {lookup_key(token) for token in split_whitespace(original)[0]}
    if attempt < 60:
        positions = [
            index
            for index, token in enumerate(tokens)
            if lookup_key(token) not in kept and sum(char.isalnum() for char in token) >= 3
        ]
        if positions:
            index = rng.choice(positions)
            token = tokens[index]
            inner = [i for i, char in enumerate(token) if char.isalnum()][1:]
            at = rng.choice(inner)
            char = token[at]
            if char.isdecimal():
                new = in_family((digit_value(char) + 1 + rng.randrange(9)) % 10, char)
            else:
                new = random_letter(rng, char, avoid=char)
            tokens[index] = token[:at] + new + token[at + 1 :]
            return join_whitespace(tokens, separators)
    return f"{candidate}{attempt}"


_ATTEMPTS_PER_SUGGESTION = 12
_EXTRA_ATTEMPTS = 20
_VARIATIONS = 200
# Reshaped forms of the original tried when nothing drawn or varied could stand for it.
_RESHAPES = 60
# Candidates drawn ahead and handed to the sets' `prefetch` together: a key table in a
# database answers a batch in one query rather than one a candidate.
_PREFETCH = 16


def suggest(
    original: str,
    label: str,
    language: str,
    secret: str,
    *,
    count: int = 3,
    taken: Collection[str] = (),
    forbidden: Collection[str] = (),
) -> list[str]:
    """`count` distinct pseudonyms for `original` (a `label` span in a `language` document).

    Deterministic for (secret, original, label): the same list, in the same order, on every
    call; another secret gives others. None holds the original (`contains_original`: folded,
    anywhere in it), and none equals a surface of `taken` (replacements already used in the
    key table) or of `forbidden` (originals found in the corpus), nor contains a forbidden
    surface as a sequence of words, as long as drawing can avoid it; after a bounded number
    of draws, variations of the drawn values (a changed letter, then a number) fill the list,
    and last the original reshaped (`reshape`: every letter and digit changed).
    """
    if count <= 0:
        return []
    if not original.strip():
        raise ValueError("cannot suggest a pseudonym for an empty surface")
    kind = _kind_for(original, label)
    draws = Draws(seed_for(secret, "suggest", label.strip(), seed_form(original)))
    if kind is Kind.PLACE:
        generate = places.place_generator(original, language, draws, label)
    else:
        generate = _GENERATORS[kind](original, language, draws)
    taken_set, forbidden_set = _as_set(taken), _as_set(forbidden)
    original_key = fold_key(original)
    chosen: list[str] = []
    chosen_keys: set[str] = set()

    def accept(candidate: str, *, strict: bool) -> bool:
        key = fold_key(candidate)
        if (
            not key
            or key == original_key
            or key in chosen_keys
            or (kind is Kind.PERSON and _repeats_a_word(key))
            or contains_original(candidate, original)
            or candidate in taken_set
            or candidate in forbidden_set
            or (strict and forbidden_set.contains_within(candidate))
        ):
            return False
        chosen.append(candidate)
        chosen_keys.add(key)
        return True

    drawn: list[str] = []
    attempts = _ATTEMPTS_PER_SUGGESTION * count + _EXTRA_ATTEMPTS
    ahead: deque[str] = deque()
    for attempt in range(attempts):
        if not ahead:
            # The same draws in the same order as one at a time: only asked sooner.
            ahead.extend(generate() for _ in range(min(_PREFETCH, attempts - attempt)))
            taken_set.prefetch(ahead)
            forbidden_set.prefetch(ahead)
        candidate = ahead.popleft()
        if len(drawn) < 10:
            drawn.append(candidate)
        accept(candidate, strict=True)
        if len(chosen) == count:
            return chosen

    def offer(make: Callable[[int], str], total: int, strict: Callable[[int], bool]) -> bool:
        """Offer `make(0)`, `make(1)`, … (asked ahead in batches); True once `count` are in."""
        ahead.clear()
        for attempt in range(total):
            if not ahead:
                ahead.extend(make(at) for at in range(attempt, min(attempt + _PREFETCH, total)))
                taken_set.prefetch(ahead)
                forbidden_set.prefetch(ahead)
            accept(ahead.popleft(), strict=strict(attempt))
            if len(chosen) == count:
                return True
        return False

    def reshaped(_: int) -> str:
        return reshape(draws.random, original)

    # Variations of a value that holds the original would hold it too.
    bases = [c for c in (*chosen, *drawn) if not contains_original(c, original)]
    if not bases:
        # Nothing drawn could stand for this surface (signs only, or digits a name list
        # cannot match): its reshaped forms come before numbered variations of them.
        if offer(reshaped, _RESHAPES, lambda _: True):
            return chosen
        bases = [*chosen] or [reshape(draws.random, original)]
    variations = _VARIATIONS + count
    if offer(
        lambda at: _vary(draws.random, bases[at % len(bases)], original, at),
        variations,
        lambda attempt: attempt < _VARIATIONS // 2,
    ):
        return chosen
    offer(reshaped, _RESHAPES, lambda _: False)
    return chosen
