"""Identifiers that keep their shape: usernames, hashtags, e-mail addresses, phone numbers,
URLs, IBANs, IP addresses, payment cards, dates, and anything else character by character.

Prefixes (@, #), separators (. _ -), the length of every digit run, the digit script
(Arabic-Indic stays Arabic-Indic), capitalisation, top-level domains and country codes are
kept; names inside a handle (`@MaryJohanson1987`) become other names, words other words of
about the same length, digits other digits.
"""

from __future__ import annotations

import importlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from pseudonymizer.checksums import iban_check_digits, luhn_valid
from pseudonymizer.pseudonyms.determinism import Draws
from pseudonymizer.pseudonyms.locales import (
    gender_of,
    is_first_name,
    is_last_name,
    locale_for_script,
    lookup_locales,
    register_locale,
    words,
)
from pseudonymizer.pseudonyms.names import NameSource
from pseudonymizer.pseudonyms.shape import (
    Case,
    apply_case,
    camel_parts,
    case_of,
    digit_value,
    in_family,
    is_year,
    lookup_key,
    lookup_keys,
    pieces,
    random_letters,
    replace_digits,
    script_of,
    split_whitespace,
    to_ascii,
)

Generator = Callable[[], str]

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
URL = re.compile(
    r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)?"
    r"(?P<userinfo>[^@/?#\s]*@)?"
    r"(?P<host>\[[^\]]*\]|[^/:?#\s]+)"
    r"(?P<port>:\d+)?"
    r"(?P<path>/[^?#]*)?"
    r"(?P<query>\?[^#]*)?"
    r"(?P<fragment>#.*)?$",
    re.DOTALL,
)
URL_LIKE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*://|www\.)|^[^\s/@]+\.[A-Za-z]{2,}/")
IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
IPV6 = re.compile(r"^[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}$")
IBAN = re.compile(r"^[A-Za-z]{2}\d{2}[A-Za-z0-9]{8,30}$")


# Words that say nothing about who is behind a handle: kept when something else changes.
_HANDLE_WORDS = lookup_keys(
    """
    admin official officiel officielle news info infos tv bot channel chat group groupe team
    fan fans club page real the le la les de du des of for and et pour my mon ma our notre
    in on to by with avec sur au aux en un une a an في من على الى إلى مع عن و
    """.split()
)

# Registrable domain labels of public e-mail providers: the domain stays, the address changes.
EMAIL_PROVIDERS = lookup_keys(
    """
    example test invalid localhost
    gmail googlemail outlook hotmail live msn yahoo ymail rocketmail protonmail proton pm
    icloud me mac aol gmx mail email orange wanadoo free sfr laposte neuf bbox numericable
    yandex ya zoho tutanota tuta web t-online libero qq 163 126 naver mailo seznam wp o2
    onet inbox rambler ukr menara
    """.split()
)

# Registrable domain labels of platforms: the host stays, the account or page changes.
PLATFORMS = lookup_keys(
    """
    example test invalid localhost
    t wa telegram telegra facebook fb instagram twitter x youtube youtu tiktok snapchat
    linkedin reddit gab parler vk ok discord discordapp whatsapp signal tumblr wordpress
    blogspot blogger medium substack github gitlab google goo bit tinyurl paypal patreon
    gofundme gofund leetchi tipeee ulule kisskissbankbank helloasso onlyfans twitch rumble
    bitchute odysee archive pastebin imgur flickr pinterest soundcloud spotify dailymotion
    vimeo truthsocial minds gettr mastodon threads bsky skyrock over-blog wix weebly linktr
    linktree
    """.split()
)

_INFRASTRUCTURE_LABELS = lookup_keys(
    """
    www www2 m mobile web mail email smtp en fr ar de es it blog shop app go api old new
    """.split()
)

# Path segments that name a kind of page, not whose page it is.
PATH_WORDS = lookup_keys(
    """
    c p u r s t user users profile profiles channel channels joinchat group groups watch
    status statuses post posts article articles blog en fr ar video videos photo photos reel
    reels story stories pages page events event share home index search tag tags hashtag
    fundraiser f campaign campaigns cagnotte cagnottes donate don dons shorts live embed
    comments wiki forum forums thread threads topic media file files download invite join
    chat message messages send public profile.php permalink.php
    """.split()
)
_FILE_EXTENSION = re.compile(
    r"^(?P<stem>.+?)(?P<ext>\.(?:html?|php|aspx?|jsp|pdf|jpe?g|png|gif|webp|mp4|mp3|txt))$",
    re.IGNORECASE,
)


@cache
def _word_pool(locale: str, ascii_only: bool) -> tuple[str, ...]:
    pool = words(locale)
    if ascii_only:
        pool = tuple(to_ascii(word) for word in pool)
    return tuple(word for word in pool if word.isalpha() and len(word) >= 2)


def _words_like(rng: random.Random, pool: tuple[str, ...], original: str) -> str:
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


@dataclass
class _Item:
    kind: str  # "letters" | "digits" | "other"
    text: str
    role: str = "keep"  # keep | digits | short | first | last | proper | word
    gender: str | None = None


class _Handle:
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
        pool = _word_pool(locale, text.isascii()) or _word_pool("en_US", True)
        return apply_case(case_of(text), _words_like(self.draws.random, pool, text))

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
    handle = _Handle(body, language, draws)
    return lambda: prefix + handle()


def hashtag_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for a hashtag: `#JusticeForKyle` → `#PatternForBrian`, `#النصر_قادم` → Arabic."""
    prefix, body = _prefix(original, "#＃")
    handle = _Handle(body, language, draws, hashtag=True)
    return lambda: prefix + handle()


def suffix_length(labels: list[str]) -> int:
    """How many trailing labels make the public suffix (`co.uk` is two)."""
    second_level = {"co", "com", "org", "net", "gov", "ac", "edu", "gouv", "asso", "ne", "or"}
    if len(labels) >= 3 and labels[-2].lower() in second_level and len(labels[-1]) == 2:
        return 2
    return 1


def _label_like(rng: random.Random, label: str) -> str:
    pool = _word_pool("en_US", True)
    out = []
    for kind, text in pieces(label):
        if kind == "digits":
            out.append(replace_digits(rng, text))
        elif kind == "letters":
            out.append(apply_case(case_of(text), _words_like(rng, pool, text)))
        else:
            out.append(text)
    return "".join(out)


class _Domain:
    """A host name reshaped: suffix (and `co.uk`) kept, infrastructure labels (www, m) kept,
    the registrable label kept when it is in `keep` (a provider or platform), else replaced."""

    def __init__(self, domain: str, draws: Draws, keep: frozenset[str], *, subdomains: bool):
        self.labels = domain.split(".")
        self.draws = draws
        self.registrable = len(self.labels) - suffix_length(self.labels) - 1
        self.known = self.registrable >= 0 and lookup_key(self.labels[self.registrable]) in keep
        # A mail provider's subdomains are the provider's; a platform's may be the account's.
        self.keep_subdomains = subdomains and self.known

    def __call__(self, force: bool = False) -> str:
        out = []
        for index, label in enumerate(self.labels):
            if (
                index > self.registrable
                or index < self.registrable
                and (self.keep_subdomains or lookup_key(label) in _INFRASTRUCTURE_LABELS)
                or index == self.registrable
                and self.known
                and not force
            ):
                out.append(label)
            else:
                out.append(_label_like(self.draws.random, label))
        return ".".join(out)


def email_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for an e-mail address: the local part reshaped (names to names), the domain
    kept for a public provider (gmail, orange, …), otherwise replaced with its TLD kept."""
    local, _, domain = original.rpartition("@")
    handle = _Handle(local, language, draws)
    domain_generator = _Domain(domain, draws, EMAIL_PROVIDERS, subdomains=True)
    return lambda: handle() + "@" + domain_generator()


_CC_ONE = {"1", "7"}
_CC_TWO = frozenset(
    """
    20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55
    56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98
    """.split()
)


def country_code_length(digits: str) -> int:
    """The length of the ITU country calling code that `digits` (after + or 00) starts with."""
    if digits[:1] in _CC_ONE:
        return 1
    if digits[:2] in _CC_TWO:
        return 2
    return min(3, len(digits))


def phone_prefix_length(
    original: str, digits: str, *, keep_type: bool = True, international: bool = False
) -> int:
    """How many leading digits of a phone number are not personal: the country code (and,
    when `keep_type`, the next digit: mobile or landline), or a national 0 and its area digit.

    `international`: the number is written without its + (`wa.me/447700900384`)."""
    stripped = original.lstrip(" (")
    keep = 0
    if stripped.startswith(("+", "＋")) or (international and not digits.startswith("0")):
        keep = country_code_length(digits)
        if keep_type and len(digits) - keep >= 7:
            keep += 1
    elif digits.startswith("00") and len(digits) >= 11:
        keep = 2 + country_code_length(digits[2:]) + (1 if keep_type else 0)
    elif digits.startswith("0") and len(digits) >= 8:
        keep = 2 if keep_type else 1
    return max(0, min(keep, len(digits) - 3))


def _digit_positions(text: str) -> list[int]:
    return [index for index, char in enumerate(text) if char.isdecimal()]


def _digits(text: str, positions: list[int]) -> str:
    return "".join(str(digit_value(text[index])) for index in positions)


def phone_generator(
    original: str, language: str, draws: Draws, *, international: bool = False
) -> Generator:
    """Candidates for a phone number: country code (+44 stays +44), national trunk prefix,
    spaces and grouping kept; the other digits redrawn in the same digit script."""
    positions = _digit_positions(original)
    digits = _digits(original, positions)
    keep = phone_prefix_length(original, digits, international=international)

    def generate() -> str:
        rng = draws.random
        out = list(original)
        for number, index in enumerate(positions):
            if number < keep:
                continue
            value = rng.randrange(10)
            if number == keep and keep == 0 and digits[0] != "0":
                value = rng.randrange(2, 10)
            out[index] = in_family(value, original[index])
        return "".join(out)

    return generate


def _segment_generator(segment: str, language: str, draws: Draws) -> Generator | None:
    """A path segment's generator, or None when the segment says nothing about anyone."""
    if not segment or lookup_key(segment) in PATH_WORDS:
        return None
    if re.fullmatch(r"\+?\d[\d.-]{5,}", segment):
        # wa.me/447700900384: a number in international form, written without its +.
        international = sum(char.isdecimal() for char in segment) >= 10
        return phone_generator(segment, language, draws, international=international)
    match = _FILE_EXTENSION.match(segment)
    stem, extension = (match.group("stem"), match.group("ext")) if match else (segment, "")
    if stem.startswith(("@", "#")):
        prefix, body = stem[0], stem[1:]
    else:
        prefix, body = "", stem
    handle = _Handle(body, language, draws)
    return lambda: prefix + handle() + extension


def _query_generator(query: str, language: str, draws: Draws) -> Generator:
    parts: list[str | Generator] = []
    for pair in re.split(r"([&;])", query[1:]):
        if pair in ("&", ";"):
            parts.append(pair)
            continue
        key, equals, value = pair.partition("=")
        parts.append(key + equals)
        if value:
            parts.append(_Handle(value, language, draws, names=False))
    return lambda: "?" + "".join(part if isinstance(part, str) else part() for part in parts)


def url_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for a URL: scheme, platform hosts (t.me, facebook.com, …), page-kind path
    words and file extensions kept; accounts, slugs, ids and personal domains replaced."""
    match = URL.match(original)
    if match is None:
        return generic_generator(original, language, draws)
    groups = {name: value or "" for name, value in match.groupdict().items()}
    host = groups["host"]
    ip_host = ip_generator(host, language, draws) if IPV4.match(host) else None
    domain = _Domain(host, draws, PLATFORMS, subdomains=False)
    path = groups["path"]
    segments: list[str | Generator] = []
    for index, segment in enumerate(path.split("/")):
        if index:
            segments.append("/")
        generator = _segment_generator(segment, language, draws)
        segments.append(segment if generator is None else generator)
    userinfo = groups["userinfo"]
    user_generator = _Handle(userinfo[:-1], language, draws) if userinfo else None
    query_generator = (
        _query_generator(groups["query"], language, draws) if groups["query"] else None
    )
    fragment = groups["fragment"]
    fragment_generator = (
        _Handle(fragment[1:], language, draws, names=False) if len(fragment) > 1 else None
    )
    personal = (
        any(not isinstance(segment, str) for segment in segments)
        or user_generator is not None
        or query_generator is not None
        or fragment_generator is not None
    )

    def generate() -> str:
        new_host = ip_host() if ip_host else domain(force=not personal)
        return (
            groups["scheme"]
            + (user_generator() + "@" if user_generator else "")
            + new_host
            + groups["port"]
            + "".join(segment if isinstance(segment, str) else segment() for segment in segments)
            + (query_generator() if query_generator else "")
            + (("#" + fragment_generator()) if fragment_generator else fragment)
        )

    return generate


def iban_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for an IBAN: country and grouping kept, the account redrawn, checksum valid."""
    compact = re.sub(r"\s", "", original)
    if not IBAN.match(compact):
        return generic_generator(original, language, draws)

    def generate() -> str:
        rng = draws.random
        bban = "".join(
            str(rng.randrange(10)) if char.isdecimal() else random_letters(rng, char)
            for char in compact[4:]
        )
        new = compact[:2] + iban_check_digits(compact[:2], bban) + bban
        out, position = [], 0
        for char in original:
            if char.isspace():
                out.append(char)
            else:
                out.append(new[position])
                position += 1
        return "".join(out)

    return generate


def card_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for a payment card: network digit and grouping kept, Luhn-valid if it was."""
    positions = _digit_positions(original)
    digits = _digits(original, positions)
    valid = luhn_valid(digits)

    def generate() -> str:
        rng = draws.random
        new = digits[:1] + "".join(str(rng.randrange(10)) for _ in digits[1:])
        if valid:
            for last in range(10):
                if luhn_valid(new[:-1] + str(last)):
                    new = new[:-1] + str(last)
                    break
        out = list(original)
        for index, value in zip(positions, new, strict=True):
            out[index] = in_family(int(value), original[index])
        return "".join(out)

    return generate


def ip_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for an IP address: as many octets (groups) with as many digits as before."""

    def octet(run: str, rng: random.Random) -> str:
        low, high = {1: (0, 9), 2: (10, 99)}.get(len(run), (100, 255))
        return str(rng.randint(low, high)).zfill(len(run))

    def hex_group(group: str, rng: random.Random) -> str:
        value = "".join(rng.choice("0123456789abcdef") for _ in group)
        return value.upper() if group.isupper() else value

    def generate() -> str:
        rng = draws.random
        if IPV6.match(original) and ":" in original:
            return ":".join(hex_group(group, rng) for group in original.split(":"))
        return re.sub(r"\d+", lambda match: octet(match.group(), rng), original)

    return generate


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
                pool = _word_pool(script_locale, text.isascii()) or _word_pool("en_US", True)
                out.append(apply_case(case_of(text), _words_like(rng, pool, text)))
        return "".join(out)

    def generate() -> str:
        rng = draws.random
        return "".join(
            token_like(rng, token) + (separators[index] if index < len(separators) else "")
            for index, token in enumerate(tokens)
        )

    return generate
