"""Which Faker locale a pseudonym is drawn from, and what Faker's own lists say about a name.

The document's language picks the locale; the original's script can override it (an
Arabic-script name in an English post gets an Arabic-script pseudonym). Faker's person
providers are also read as lexicons: whether a first name is in the female or the male list,
whether a word is a known surname, which locale's lists know a name at all.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any

from pseudonymizer.pseudonyms.shape import lookup_key, strip_marks

DEFAULT_LOCALE = "en_US"

LANGUAGE_LOCALES = {
    "en": "en_US",
    "fr": "fr_FR",
    "ar": "ar_AA",
    "de": "de_DE",
    "it": "it_IT",
    "es": "es_ES",
    "pt": "pt_PT",
    "pl": "pl_PL",
    "ru": "ru_RU",
    "uk": "uk_UA",
    "tr": "tr_TR",
    "fa": "fa_IR",
    "nl": "nl_NL",
    "he": "he_IL",
    "el": "el_GR",
    "ro": "ro_RO",
    "cs": "cs_CZ",
    "hu": "hu_HU",
    "sv": "sv_SE",
}

# The locale for an original written in another script than the document's language.
SCRIPT_LOCALES = {
    "Arab": "ar_AA",
    "Cyrl": "ru_RU",
    "Hebr": "he_IL",
    "Grek": "el_GR",
    "Hani": "zh_CN",
    "Jpan": "ja_JP",
    "Hang": "ko_KR",
    "Deva": "hi_IN",
    "Thai": "th_TH",
    "Armn": "hy_AM",
    "Geor": "ka_GE",
    "Latn": DEFAULT_LOCALE,
}

LOCALE_SCRIPTS = {
    "ar": "Arab",
    "fa": "Arab",
    "ru": "Cyrl",
    "uk": "Cyrl",
    "bg": "Cyrl",
    "he": "Hebr",
    "el": "Grek",
    "zh": "Hani",
    "ja": "Jpan",
    "ko": "Hang",
    "hi": "Deva",
    "th": "Thai",
    "hy": "Armn",
    "ka": "Geor",
}

# Latin-script locales searched, in this order, for a name the document's locale does not
# know: "Karim Benali" in a French post is drawn from fr_DZ, not fr_FR (cultural register).
REGISTER_LOCALES = (
    "en_US",
    "en_GB",
    "fr_FR",
    "fr_DZ",
    "de_DE",
    "es_ES",
    "it_IT",
    "pt_PT",
    "nl_NL",
    "tr_TR",
    "hu_HU",
    "ro_RO",
    "cs_CZ",
    "sv_SE",
)

# Arabic-script places come from ar_DZ, the Arabic locale whose address lists are Arabic.
PLACE_LOCALES = {"ar_AA": "ar_DZ", "ar_SA": "ar_DZ", "ar_PS": "ar_DZ", "ar_EG": "ar_DZ"}


def _module_exists(kind: str, locale: str) -> bool:
    try:
        importlib.import_module(f"faker.providers.{kind}.{locale}")
    except ImportError:
        return False
    return True


@cache
def available_locales() -> frozenset[str]:
    """Faker's locales."""
    from faker.config import AVAILABLE_LOCALES

    return frozenset(AVAILABLE_LOCALES)


def locale_for(language: str) -> str:
    """The Faker locale of a document language: `fr` → `fr_FR`, `en-GB` → `en_GB`, else en_US."""
    code = language.strip().replace("-", "_")
    if "_" in code:
        base, region = code.split("_", 1)
        candidate = f"{base.lower()}_{region.upper()}"
        if candidate in available_locales():
            return candidate
        code = base
    return LANGUAGE_LOCALES.get(code.lower(), DEFAULT_LOCALE)


def locale_script(locale: str) -> str:
    """The script a locale writes names in."""
    return LOCALE_SCRIPTS.get(locale.split("_")[0], "Latn")


def locale_for_script(script: str | None, language: str) -> str:
    """The locale to draw from for an original in `script` found in a `language` document."""
    locale = locale_for(language)
    if script is None or locale_script(locale) == script:
        return locale
    if script == "Arab" and locale.startswith("fa"):
        return locale
    if script == "Cyrl" and language.lower().startswith("uk"):
        return "uk_UA"
    return SCRIPT_LOCALES.get(script, DEFAULT_LOCALE)


def place_locale(locale: str) -> str:
    """The locale whose address provider gives places for names drawn in `locale`."""
    locale = PLACE_LOCALES.get(locale, locale)
    return locale if _module_exists("address", locale) else DEFAULT_LOCALE


@dataclass(frozen=True)
class Lexicon:
    """The first names (by gender) and surnames of one locale, folded for lookup."""

    locale: str
    female: frozenset[str]
    male: frozenset[str]
    first: frozenset[str]
    last: frozenset[str]
    female_names: tuple[str, ...]
    male_names: tuple[str, ...]
    last_names: tuple[str, ...]


def _names(provider: Any, attribute: str) -> tuple[str, ...]:
    value = getattr(provider, attribute, ())
    names = value.keys() if isinstance(value, dict) else value
    return tuple(str(name) for name in names)


@cache
def lexicon(locale: str) -> Lexicon:
    """Faker's person lists for `locale` (empty when Faker has no person provider for it)."""
    try:
        module = importlib.import_module(f"faker.providers.person.{locale}")
    except ImportError:
        return Lexicon(locale, frozenset(), frozenset(), frozenset(), frozenset(), (), (), ())
    provider = module.Provider
    female = _names(provider, "first_names_female")
    male = _names(provider, "first_names_male")
    first = _names(provider, "first_names") or female + male
    last = _names(provider, "last_names")
    for extra in ("last_names_male", "last_names_female"):
        last = last + _names(provider, extra)
    return Lexicon(
        locale=locale,
        female=frozenset(lookup_key(name) for name in female),
        male=frozenset(lookup_key(name) for name in male),
        first=frozenset(lookup_key(name) for name in first + female + male),
        last=frozenset(lookup_key(name) for name in last),
        female_names=female,
        male_names=male,
        last_names=last,
    )


def gender_of(name: str, locales: tuple[str, ...]) -> str | None:
    """`"female"` or `"male"` when the first of `locales` that lists `name` lists it in one
    gender only; None when no list tells."""
    key = lookup_key(name)
    for locale in locales:
        entry = lexicon(locale)
        in_female, in_male = key in entry.female, key in entry.male
        if in_female != in_male:
            return "female" if in_female else "male"
        if in_female:
            return None
    return None


def is_first_name(name: str, locales: tuple[str, ...]) -> bool:
    """Whether one of `locales` lists `name` as a first name."""
    key = lookup_key(name)
    return any(key in lexicon(locale).first for locale in locales)


def is_last_name(name: str, locales: tuple[str, ...]) -> bool:
    """Whether one of `locales` lists `name` as a surname."""
    key = lookup_key(name)
    return any(key in lexicon(locale).last for locale in locales)


def lookup_locales(locale: str) -> tuple[str, ...]:
    """The locales whose lists are consulted about a name met in a `locale` context."""
    if locale_script(locale) == "Latn":
        return (locale, *(other for other in REGISTER_LOCALES if other != locale))
    if locale_script(locale) == "Arab":
        return tuple(dict.fromkeys((locale, "ar_AA", "ar_SA", "ar_PS", "ar_DZ", "fa_IR")))
    return (locale,)


def register_locale(first: str | None, last: str | None, locale: str) -> str:
    """The locale whose lists know the name: the document's when it knows the first name or
    the surname, else the first register locale that knows either, else the document's."""
    if locale_script(locale) != "Latn":
        return locale
    first_key = lookup_key(first) if first else None
    last_key = lookup_key(last) if last else None
    for candidate in (locale, *REGISTER_LOCALES):
        entry = lexicon(candidate)
        if (first_key and first_key in entry.first) or (last_key and last_key in entry.last):
            return candidate
    return locale


@cache
def words(locale: str) -> tuple[str, ...]:
    """Faker's lorem words for `locale` (its language's, else English), without marks."""
    candidates = [locale, locale.split("_")[0]]
    if locale_script(locale) == "Arab":
        candidates.append("ar_AA")
    for name in (*candidates, "en_US"):
        try:
            module = importlib.import_module(f"faker.providers.lorem.{name}")
        except ImportError:
            continue
        found = tuple(
            strip_marks(word) for word in module.Provider.word_list if " " not in word.strip()
        )
        if found:
            return found
    return ()
