"""Dates and times: weekday and month names to others of their list, numbers within the
range of what they count (years, months, days, hours, minutes), separators kept."""

from __future__ import annotations

import importlib
import random
from functools import cache

from pseudonymizer.pseudonyms.determinism import Draws, Generator
from pseudonymizer.pseudonyms.identifiers.generic import generic_generator
from pseudonymizer.pseudonyms.shape import (
    apply_case,
    case_of,
    digit_value,
    in_family,
    is_year,
    lookup_key,
    pieces,
    replace_digits,
)

_CALENDAR = (
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    ("mon", "tue", "wed", "thu", "fri", "sat", "sun"),
    (
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ),
    ("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"),
    ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
    (
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ),
    ("janv", "févr", "avr", "juil", "sept", "oct", "nov", "déc"),
    ("الأحد", "الإثنين", "الاثنين", "الثلاثاء", "الأربعاء", "الخميس", "الجمعة", "السبت"),
    (
        "يناير",
        "فبراير",
        "مارس",
        "أبريل",
        "مايو",
        "يونيو",
        "يوليو",
        "أغسطس",
        "سبتمبر",
        "أكتوبر",
        "نوفمبر",
        "ديسمبر",
    ),
    ("جانفي", "فيفري", "أفريل", "ماي", "جوان", "جويلية", "أوت"),
    ("شباط", "آذار", "نيسان", "أيار", "حزيران", "تموز", "آب", "أيلول"),
)


@cache
def _calendar_groups() -> tuple[tuple[str, ...], ...]:
    groups = list(_CALENDAR)
    for locale in ("de_DE", "es_ES", "it_IT", "pt_PT", "nl_NL", "tr_TR", "ru_RU", "pl_PL"):
        try:
            provider = importlib.import_module(f"faker.providers.date_time.{locale}").Provider
        except ImportError:
            continue
        for attribute in ("DAY_NAMES", "MONTH_NAMES"):
            names = getattr(provider, attribute, None)
            if isinstance(names, dict):
                groups.append(tuple(name for name in names.values() if " " not in name))
    return tuple(groups)


def _calendar_group(word: str) -> tuple[str, ...] | None:
    key = lookup_key(word)
    for group in _calendar_groups():
        if any(lookup_key(name) == key for name in group):
            return group
    return None


def _calendar_word(rng: random.Random, word: str) -> str | None:
    """Another name from the weekday or month list `word` is in, in its case; None if none."""
    group = _calendar_group(word)
    if group is None:
        return None
    others = [name for name in group if lookup_key(name) != lookup_key(word)]
    return apply_case(case_of(word), rng.choice(others))


def _english_ordinal(value: int) -> str:
    if 10 <= value % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(value % 10, "th")


def date_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for a date or time: weekday and month names to others of the same list and
    case, years within fifteen years, months 1-12, days 1-28, hours and minutes in range,
    zero-padding and separators kept."""
    tokens = pieces(original)
    has_month_name = any(
        kind == "letters" and _calendar_group(text) is not None for kind, text in tokens
    )

    def number(rng: random.Random, run: str, before: str, after: str) -> str:
        value = int("".join(str(digit_value(char)) for char in run))
        if is_year(run):
            return replace_digits(rng, run)
        if after.startswith(":") or before.endswith(":"):
            limit = 23 if after.startswith(":") and not before.endswith(":") else 59
            new = rng.randint(0, limit)
        elif len(run) > 2:
            return replace_digits(rng, run)
        elif value <= 12 and not has_month_name:
            new = rng.randint(1, 12)
        elif value <= 31:
            new = rng.randint(1, 28)
        else:
            return replace_digits(rng, run)
        padded = run[0] in "0٠۰" or not has_month_name
        text = str(new).zfill(len(run)) if len(run) == 2 and padded else str(new)
        return "".join(in_family(int(char), run[0]) for char in text)

    def generate() -> str:
        rng = draws.random
        out: list[str] = []
        for position, (kind, text) in enumerate(tokens):
            before = tokens[position - 1][1] if position else ""
            after = tokens[position + 1][1] if position + 1 < len(tokens) else ""
            if kind == "digits":
                out.append(number(rng, text, before, after))
            elif kind == "letters" and lookup_key(text) in ("st", "nd", "rd", "th") and out:
                previous = out[-1]
                if previous.isdecimal():
                    out.append(apply_case(case_of(text), _english_ordinal(int(previous))))
                else:
                    out.append(text)
            elif kind == "letters":
                out.append(_calendar_word(rng, text) or text)
            else:
                out.append(text)
        result = "".join(out)
        if result == original:
            return generic_generator(original, language, draws)()
        return result

    return generate
