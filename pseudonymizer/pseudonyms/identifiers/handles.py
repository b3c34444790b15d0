"""Handles: usernames, hashtags, and the body of an e-mail local part or a URL segment.

A handle is read piece by piece: prefixes (@, #) and separators (. _ -) kept, digit runs
renumbered, names inside it (`@MaryJohanson1987`) replaced by other names, words by other
words of about the same length, meaningless words (admin, official) kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from pseudonymizer.pseudonyms.determinism import Draws, Generator
from pseudonymizer.pseudonyms.identifiers.words import word_pool, words_like
from pseudonymizer.pseudonyms.locales import (
    gender_of,
    is_first_name,
    is_last_name,
    locale_for_script,
    lookup_locales,
    register_locale,
)
from pseudonymizer.pseudonyms.people import NameSource
from pseudonymizer.pseudonyms.shape import (
    Case,
    apply_case,
    camel_parts,
    case_of,
    lookup_key,
    lookup_keys,
    pieces,
    random_letters,
    replace_digits,
    script_of,
)

# Words that say nothing about who is behind a handle: kept when something else changes.
_HANDLE_WORDS = lookup_keys(
    """
    admin official officiel officielle news info infos tv bot channel chat group groupe team
    fan fans club page real the le la les de du des of for and et pour my mon ma our notre
    in on to by with avec sur au aux en un une a an في من على الى إلى مع عن و
    """.split()
)


@dataclass
class _Item:
    kind: str  # "letters" | "digits" | "other"
    text: str
    role: str = "keep"  # keep | digits | short | first | last | proper | word
    gender: str | None = None


class Handle:
    """The body of a username, hashtag, e-mail local part or URL segment, read piece by piece:
    separators kept, digit runs renumbered, names replaced by names, words by words."""

    def __init__(
        self, body: str, language: str, draws: Draws, *, names: bool = True, hashtag: bool = False
    ) -> None:
        self.draws = draws
        self.language = language
        self.items: list[_Item] = []
        for kind, text in pieces(body):
            if kind == "letters":
                self.items.extend(_Item("letters", part) for part in camel_parts(text))
            else:
                self.items.append(_Item(kind, text))
        self._classify(names, hashtag)
        self.sources = self._sources()

    def _classify(self, names: bool, hashtag: bool) -> None:
        previous: str | None = None
        for item in self.items:
            if item.kind == "other":
                continue
            if item.kind == "digits":
                item.role = "digits"
                continue
            script = script_of(item.text)
            locales = lookup_locales(locale_for_script(script, self.language))
            key = lookup_key(item.text)
            if key in _HANDLE_WORDS:
                item.role = "keep"
            elif len(item.text) <= 2:
                item.role = "short"
            elif names and is_first_name(item.text, locales) and previous != "first":
                item.role = "first"
                item.gender = gender_of(item.text, locales)
            elif names and (is_last_name(item.text, locales) or previous in ("first", "short")):
                item.role = "last"
            elif names and not hashtag and case_of(item.text) is Case.TITLE:
                item.role = "proper"
            else:
                item.role = "word"
            previous = item.role
        replaceable = [item for item in self.items if item.role not in ("keep",)]
        if not any(item.kind != "other" for item in replaceable):
            for item in self.items:
                if item.kind == "letters":
                    item.role = "word"

    def _sources(self) -> dict[tuple[str | None, bool], NameSource]:
        sources: dict[tuple[str | None, bool], NameSource] = {}
        first = next((item.text for item in self.items if item.role == "first"), None)
        last = next((item.text for item in self.items if item.role == "last"), None)
        for item in self.items:
            if item.role not in ("first", "last", "proper"):
                continue
            script = script_of(item.text)
            ascii_only = item.text.isascii()
            locale = locale_for_script(script, self.language)
            if script == "Latn":
                locale = register_locale(first, last, locale)
            sources[(script, ascii_only)] = NameSource(self.draws, locale, ascii_only=ascii_only)
        return sources

    def _word(self, text: str) -> str:
        script = script_of(text)
        locale = locale_for_script(script, self.language)
        pool = word_pool(locale, text.isascii()) or word_pool("en_US", True)
        return apply_case(case_of(text), words_like(self.draws.random, pool, text))

    def __call__(self) -> str:
        rng = self.draws.random
        gender = rng.choice(("female", "male"))
        out: list[str] = []
        for item in self.items:
            if item.role == "keep":
                out.append(item.text)
            elif item.role == "digits":
                out.append(replace_digits(rng, item.text))
            elif item.role == "short":
                out.append(random_letters(rng, item.text))
            elif item.role == "word":
                out.append(self._word(item.text))
            else:
                source = self.sources[(script_of(item.text), item.text.isascii())]
                length = len(item.text)
                if item.role == "first":
                    name = source.first(item.gender or gender, avoid=item.text, length=length)
                else:
                    name = source.last(avoid=item.text, length=length)
                name = name.replace(" ", "").replace("-", "").replace("'", "")
                out.append(apply_case(case_of(item.text), name))
        return "".join(out)


def _prefix(original: str, marks: str) -> tuple[str, str]:
    index = 0
    while index < len(original) and original[index] in marks:
        index += 1
    return original[:index], original[index:]


def username_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for a username: `@MaryJohanson1987` → `@LaraWilson1989`."""
    prefix, body = _prefix(original, "@＠")
    handle = Handle(body, language, draws)
    return lambda: prefix + handle()


def hashtag_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for a hashtag: `#JusticeForKyle` → `#PatternForBrian`, `#النصر_قادم` → Arabic."""
    prefix, body = _prefix(original, "#＃")
    handle = Handle(body, language, draws, hashtag=True)
    return lambda: prefix + handle()
