"""Regular expressions for identifiers that follow stable patterns.

Labels (canonical, see `pseudonymizer.labels`): URL, EMAIL, USERNAME, HASHTAG, PHONE, IBAN,
IP, CARD. Each label has one pattern compiled at import; a pattern finds candidates and a
small Python check accepts them (checksums, digit counts, trailing punctuation), so the
patterns stay simple enough for `re` to scan fast.

Choices worth knowing:

- URL: with a scheme (`https://`, `ftp://`) or `www.`, or without one when a path follows
  the domain (`example.org/x`, `t.me/name`, `wa.me/+93722758`). A bare domain with no path
  (`example.org`) counts only when its top-level domain is lower case and common (`_BARE_TLDS`),
  so that "end.Then" or "script.py" are not links. Trailing punctuation and unbalanced closing
  brackets or quotes are left out, and a link glued to Arabic text (`…/channelانشروا`) stops
  where the Latin part ends.
- USERNAME: `@` then letters of any script, digits, `_`, `.`, `-`, not ending with `.` or `-`,
  not right after a word character (so never the domain of an e-mail address, nor of
  `user@localhost`), nor after `+`, `%` or a hyphen inside a word (`a-@b`), and not only
  digits (`@10` is a time or a count more often than a handle). A handle glued to
  punctuation is one: `--@name`, `(@name)`, `RT:@name`, `…@name`. Reddit's `u/name`,
  `/u/name`, `r/name` and `/r/name` too: three to twenty-one letters, digits, `_` or `-`
  after a lower-case `u/` or `r/` that no word character, slash or dot precedes (`w/o`,
  `r/o`, `u/a` are too short, `Tu/Th` is glued to a word).
- HASHTAG: `#` then letters of any script, digits and `_`; a pure number (`#1`, `#42`) is a
  rank or an issue number, not a hashtag, and is left out.
- PHONE: at least 8 digits (ASCII, Arabic-Indic ٠-٩ or Persian ۰-۹). International numbers
  start with `+` or `00` and have 8-15 digits; national numbers start with the trunk `0`
  (France, the UK, Morocco, Algeria, Egypt, Saudi Arabia, ...) and have 8-11 digits, or have
  the North American shape `(508) 555-0142`. Separators are spaces, dots and hyphens; a slash
  never is, so dates (`12/03/2024`) are not numbers, nor are `12.03.2024`-shaped groups, years,
  prices (no trunk `0`, no `+`) or the digits of an IBAN.
- IBAN: upper-case country code, check digits, then the country's length (groups of four
  optional), accepted only when the mod-97 checksum holds.
- IP: IPv4 with every octet at most 255 and no leading zeros; IPv6 as `ipaddress` accepts it
  (full and compressed forms, IPv4-mapped tails).
- CARD: 13-19 digits starting 2-6, ungrouped or in groups of four (Amex 4-6-5, Diners
  4-6-4), Luhn checksum verified.

Where two candidates overlap (a phone number inside a link), the longer one wins; for equal
lengths the order of `LABELS` decides.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator, Sequence

from pseudonymizer.calling_codes import country_code_length
from pseudonymizer.checksums import iban_valid, luhn_valid
from pseudonymizer.recognizers.base import PatternRecognizer
from pseudonymizer.spans import Span, select_non_overlapping

LABELS: tuple[str, ...] = ("EMAIL", "URL", "IBAN", "CARD", "IP", "PHONE", "USERNAME", "HASHTAG")
_PRIORITY = {label: index for index, label in enumerate(LABELS)}

# ASCII, Arabic-Indic and Extended Arabic-Indic (Persian) digits.
_DIGITS = "0-9\u0660-\u0669\u06f0-\u06f9"
_D = f"[{_DIGITS}]"
# Word characters plus the combining marks that `\w` leaves out: Latin accents typed as
# separate characters, Arabic harakat, and the zero-width non-joiner of Persian spelling.
_NAME_CHAR = r"[\w\u0300-\u036f\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u200c]"
# Letters and digits allowed in a domain name: ASCII and Latin with diacritics. Other scripts
# are left out so that a link or an address glued to Arabic text does not swallow it.
_HOST_CHAR = "A-Za-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_HOST_LABEL = f"[{_HOST_CHAR}](?:[{_HOST_CHAR}-]{{0,61}}[{_HOST_CHAR}])?"
_TLD = r"(?:[A-Za-z]{2,24}|xn--[A-Za-z0-9-]{1,59})"
_URL_CHAR = r"[\w\-.~:/?#\[\]@!$&'()*+,;=%\u0300-\u036f\u064b-\u065f]"

# Python's `re` only skips quickly to where a match can start when the pattern begins with a
# literal or a character class; a leading lookbehind defeats that. So each pattern here
# consumes its first character before looking behind it, or is only tried where a cheap
# anchor (an "@", "://", a dot before a letter, a colon) was found.
_EMAIL = re.compile(
    rf"(?<![\w.%+-])[\w%+-][\w.%+-]{{0,63}}@(?:{_HOST_LABEL}\.)+{_TLD}(?![{_HOST_CHAR}-])"
)
_EMAIL_LOCAL = frozenset("._%+-")
_URL_ANCHOR = re.compile(r"[:wW](?:(?<=:)//|(?<=[wW])[wW]{2}\.)")
_URL_WITH_SCHEME = re.compile(
    rf"(?<!\w)(?:(?:https?|ftps?|wss?)://|www\.(?=[{_HOST_CHAR}])){_URL_CHAR}++", re.IGNORECASE
)
_DOT = re.compile(r"\.(?=[A-Za-z])")
# The start of a run of host characters that has a dot followed by a letter in it.
_HOST_ANCHOR = re.compile(
    rf"[{_HOST_CHAR}](?<![{_HOST_CHAR}.\-][{_HOST_CHAR}])(?:[{_HOST_CHAR}\-]*+\.)+[A-Za-z]"
)
_URL_WITHOUT_SCHEME = re.compile(
    rf"(?<![\w@.%+/:-])(?:{_HOST_LABEL}\.)+(?P<tld>{_TLD})(?![\w@-])"
    rf"(?P<rest>(?::[0-9]{{1,5}}(?![0-9]))?(?:/{_URL_CHAR}*+)?)"
)
_USERNAME = re.compile(rf"@(?<![\w@+%]@)(?<!\w-@){_NAME_CHAR}++(?:[.\-]++{_NAME_CHAR}++)*+")
# From the slash after "u" or "r" (a literal, for speed); what precedes is checked in Python.
_REDDIT = re.compile(r"/(?<=[ur]/)[A-Za-z0-9_][A-Za-z0-9_\-]{2,20}(?![\w/\-]|\.\w)")
_HASHTAG = re.compile(rf"#(?<![\w&#]#){_NAME_CHAR}++")

_SPACE = "[ \u00a0\u202f]"
_DASH = "[.\\-\u2010\u2011\u2013]"
_PHONE_FILLER = "[+()\u00a0\u202f .\\-\u2010\u2011\u2013]"
_PHONE_GROUP = rf"(?:\({_SPACE}?{_D}++{_SPACE}?\)|{_D}++)"
# A separator between two groups; none is needed next to a parenthesis: "(020)7946", "+33(0)6".
_PHONE_SEP = rf"(?:{_SPACE}?{_DASH}{_SPACE}?|{_SPACE}|(?<=\))|(?=\())"
_NANP_TAIL = rf"[0-9]{{2}}{_PHONE_SEP}[0-9]{{3}}{_PHONE_SEP}[0-9]{{4}}"
# Where a number may start: a "+", "00", a trunk "0", a parenthesis, or the first digit of a
# North American number; then at least 8 digits ahead (counting the first character when it
# is one) with nothing but separators between them. Most digit runs in prose (years,
# prices, counts) fail here, inside `re`, before any Python runs.
_PHONE_ANCHOR = re.compile(
    rf"[+(0\u0660\u06f01-9](?<![\w+/=].)(?<!{_D}[.,\-].)"
    rf"(?:(?<=[+(0\u0660\u06f0])|(?<=1)(?={_PHONE_SEP}[2-9]{_NANP_TAIL})|(?<=[2-9])(?={_NANP_TAIL}))"
    rf"(?=(?:{_PHONE_FILLER}*+{_D}){{7}})"
)
_PHONE = re.compile(
    rf"(?=(?:{_PHONE_FILLER}*+{_D}){{8}})"
    rf"(?>(?P<prefix>\+{_SPACE}?|00)?{_PHONE_GROUP}(?:{_PHONE_SEP}{_PHONE_GROUP})*+)"
    rf"(?![A-Za-z_]|[.,]{_D})"
)
_PHONE_GROUPS = re.compile(rf"\({_SPACE}?({_D}+){_SPACE}?\)|({_D}+)")

_IBAN = re.compile(r"[A-Z](?<!\w[A-Z])[A-Z][0-9]{2}(?:[ \u00a0]?[A-Z0-9]){11,32}(?![A-Za-z0-9])")
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4_ANCHOR = re.compile(r"[0-9](?<![\w.][0-9])[0-9]{0,2}\.[0-9]")
_IPV4 = re.compile(rf"(?:{_OCTET}\.){{3}}{_OCTET}(?![\w]|\.[0-9])")
_IPV6_ANCHOR = re.compile(r":(?=[0-9A-Fa-f:])")
_IPV6 = re.compile(
    r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}"
    r"(?:(?:[0-9]{1,3}\.){3}[0-9]{1,3}|[0-9A-Fa-f]{1,4})?(?![\w:])"
)
_CARD = re.compile(
    rf"[2-6\u0662-\u0666\u06f2-\u06f6](?<![\w.,+].)(?:[ \-]?{_D}){{12,18}}(?![\w]|[.,]{_D})"
)

# Common top-level domains, for links written without a scheme or a path. Kept short on
# purpose: "py", "sh", "md" are file extensions far more often than links.
_BARE_TLDS = frozenset(
    "com net org info biz io co me tv ly gl gg to ai app dev xyz online site news blog live shop "
    "club link edu gov int eu uk fr be ch ca de es it nl pt ru us lu mc ma dz tn eg sa ae qa kw "
    "lb jo sy iq ps ye om bh sd mr tr ir af pk in cn jp au nz br mx ar".split()
)

# IBAN lengths per country (ISO 13616 registry, plus the African countries that publish one).
_IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AO": 25, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BF": 28,
    "BG": 22, "BH": 22, "BI": 27, "BJ": 28, "BR": 29, "BY": 28, "CF": 27, "CG": 27, "CH": 21,
    "CI": 28, "CM": 27, "CR": 22, "CV": 25, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18,
    "DO": 28, "DZ": 26, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GA": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GQ": 27, "GR": 27, "GT": 28, "GW": 25, "HN": 28,
    "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IR": 26, "IS": 26, "IT": 27, "JO": 30,
    "KM": 27, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21,
    "LY": 25, "MA": 28, "MC": 27, "MD": 24, "ME": 22, "MG": 27, "MK": 19, "ML": 28, "MN": 20,
    "MR": 27, "MT": 31, "MU": 30, "MZ": 25, "NE": 28, "NI": 28, "NL": 18, "NO": 15, "OM": 23,
    "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
    "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SN": 28, "SO": 23, "ST": 25,
    "SV": 28, "TD": 27, "TG": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24,
    "XK": 20, "YE": 30,
}  # fmt: skip

_CLOSING = {")": "(", "]": "[", "}": "{"}
_TRAILING = frozenset(".,;:!?'\"*…")
_LATIN_THEN_ARABIC = re.compile(r"[A-Za-z0-9_][\u0600-\u06ff]")
_ZEROS = "0\u0660\u06f0"
# Lengths of the national significant number (after the country code) where they are fixed
# or nearly so, so that "+44 7700 900461 12" stops before the "12". Other countries: 4-14.
_NATIONAL_LENGTHS: dict[str, tuple[int, int]] = {
    "1": (10, 10), "7": (10, 10), "20": (8, 10), "27": (9, 9), "30": (10, 10), "31": (9, 9),
    "32": (8, 9), "33": (9, 9), "34": (9, 9), "41": (9, 9), "44": (9, 10), "45": (8, 8),
    "47": (8, 8), "48": (9, 9), "90": (10, 10), "91": (10, 10), "92": (9, 10), "93": (9, 9),
    "98": (10, 10), "212": (9, 9), "213": (8, 9), "216": (8, 8), "218": (8, 9), "222": (8, 8),
    "249": (9, 9), "961": (7, 8), "962": (8, 9), "963": (8, 9), "964": (8, 10), "965": (8, 8),
    "966": (8, 9), "967": (7, 9), "968": (8, 8), "970": (8, 9), "971": (8, 9), "972": (8, 9),
    "973": (8, 8), "974": (8, 8),
}  # fmt: skip
_DATE_SHAPES = frozenset({(2, 2, 4), (1, 2, 4), (2, 1, 4), (1, 1, 4), (4, 2, 2), (4, 1, 1)})

Found = Iterator[tuple[int, int]]


def _run_start(text: str, index: int, belongs: Callable[[str], bool], limit: int) -> int:
    """Where the run of characters satisfying `belongs` that ends before `index` begins."""
    start = index
    floor = max(0, index - limit)
    while start > floor and belongs(text[start - 1]):
        start -= 1
    return start


def _urls_with_scheme(text: str) -> Found:
    position = 0
    while (anchor := _URL_ANCHOR.search(text, position)) is not None:
        start = anchor.start()
        if anchor.group() == "://":
            start = _run_start(text, start, lambda char: char.isascii() and char.isalpha(), 5)
        match = _URL_WITH_SCHEME.match(text, start)
        if match is None:
            position = anchor.end()
            continue
        end = _trim_url(text, start, match.end())
        if end - start > len("www.") + 2:
            yield start, end
        position = max(match.end(), anchor.end())


def _urls_without_scheme(text: str) -> Found:
    position = 0
    # Most texts have no dot before a letter: one quick literal search rules them out, and
    # where there is one, the (slower) search for where its run starts begins near it.
    while (dot := _DOT.search(text, position)) is not None:
        anchor = _HOST_ANCHOR.search(text, max(position, dot.start() - 64))
        if anchor is None:
            return
        start = anchor.start()
        match = _URL_WITHOUT_SCHEME.match(text, start)
        position = anchor.end() if match is None else max(anchor.end(), match.end())
        if match is None:
            continue
        rest = match.group("rest")
        if rest.startswith(":") and "/" not in rest:
            rest = ""
        if not rest:
            tld = match.group("tld")
            if tld.islower() and tld in _BARE_TLDS:
                yield start, match.end("tld")
            continue
        yield start, _trim_url(text, start, match.end())


def _trim_url(text: str, start: int, end: int) -> int:
    glued = _LATIN_THEN_ARABIC.search(text, start, end)
    if glued is not None:
        end = glued.start() + 1
    while end > start:
        char = text[end - 1]
        if char in _TRAILING:
            end -= 1
        elif char in _CLOSING:
            body = text[start:end]
            if body.count(char) <= body.count(_CLOSING[char]):
                break
            end -= 1
        else:
            break
    return end


def _emails(text: str) -> Found:
    position = 0
    while (at := text.find("@", position)) >= 0:
        position = at + 1
        start = _run_start(text, at, lambda char: char.isalnum() or char in _EMAIL_LOCAL, 64)
        match = _EMAIL.match(text, start)
        if match is not None:
            position = match.end()
            yield match.span()


def _usernames(text: str) -> Found:
    for match in _USERNAME.finditer(text):
        if not match.group()[1:].replace(".", "").replace("-", "").isdigit():
            yield match.span()


def _reddit_names(text: str) -> Found:
    for match in _REDDIT.finditer(text):
        start = match.start() - 1  # the "u" or the "r"
        if start > 0 and text[start - 1] == "/":  # "/u/name"
            start -= 1
        if start == 0 or not _glued(text[start - 1]):
            yield start, match.end()


def _glued(char: str) -> bool:
    """Whether a Reddit name that `char` precedes is part of something else (a word, a path)."""
    return char.isalnum() or char in "_/.:@#-"


def _hashtags(text: str) -> Found:
    for match in _HASHTAG.finditer(text):
        if not match.group()[1:].isdigit():
            yield match.span()


def _phones(text: str) -> Found:
    position = 0
    while (anchor := _PHONE_ANCHOR.search(text, position)) is not None:
        position = anchor.end()
        match = _PHONE.match(text, anchor.start())
        if match is None:
            continue
        prefix = match.group("prefix") or ""
        body_start = match.start() + len(prefix)
        groups = [
            (group.group(1) or group.group(2), group.group(1) is not None, group.end())
            for group in _PHONE_GROUPS.finditer(text, body_start, match.end())
        ]
        # A number followed by another one ("06 12 34 56 78 07 …") is one long candidate:
        # keep the longest run of leading groups that makes a phone number, and look for
        # the next number right after it.
        for count in range(len(groups), 0, -1):
            if _is_phone(prefix.strip(), groups[:count]):
                position = groups[count - 1][2]
                yield match.start(), position
                break


def _is_phone(prefix: str, groups: list[tuple[str, bool, int]]) -> bool:
    sizes = tuple(len(digits) for digits, _, _ in groups)
    digits = "".join(digits for digits, _, _ in groups)
    if prefix:
        # "+33 (0)6 12 34 56 78": the trunk 0 in parentheses is not dialled from abroad.
        if len(groups) > 1 and groups[1][0] in _ZEROS and groups[1][1]:
            digits = groups[0][0] + "".join(digits for digits, _, _ in groups[2:])
        return _is_international(digits)
    if sizes in _DATE_SHAPES:
        return False
    if digits[0] in _ZEROS:
        # "0 800 12 34 56" is a number; "0.12345678" and "0.5 06 12 34 56" are not.
        return 8 <= len(digits) <= 11 and (sizes[0] > 1 or sizes[1:2] == (3,))
    # North American numbers have no trunk 0: (508) 555-0142, 508-555-0142, 1 508 555 0142.
    if sizes[:1] == (1,) and digits[0] == "1" and sizes[1:] == (3, 3, 4):
        return digits[1] not in "01"
    return sizes == (3, 3, 4) and digits[0] not in "01" and digits[3] not in "01"


def _is_international(digits: str) -> bool:
    """`digits` (country code first, no trunk 0) has a length that country's numbers have."""
    if not 8 <= len(digits) <= 15 or digits[0] in _ZEROS:
        return False
    ascii_digits = "".join(str(int(char)) for char in digits)
    code = ascii_digits[: country_code_length(ascii_digits)]
    low, high = _NATIONAL_LENGTHS.get(code, (4, 14))
    return low <= len(digits) - len(code) <= high


def _ibans(text: str) -> Found:
    position = 0
    while (match := _IBAN.search(text, position)) is not None:
        start = match.start()
        position = start + 1
        # Where each compact character ends in the text, to cut at a country's length.
        ends = [start + offset + 1 for offset, char in enumerate(match.group()) if char.isalnum()]
        compact = "".join(char for char in match.group() if char.isalnum())
        length = _IBAN_LENGTHS.get(compact[:2])
        for size in [length] if length else range(len(compact), 14, -1):
            if size > len(compact):
                continue
            end = ends[size - 1]
            if end < len(text) and text[end].isalnum():
                continue
            if iban_valid(compact[:size]):
                # The candidate may run into a second IBAN: look for it from here.
                position = end
                yield start, end
                break


def _ips(text: str) -> Found:
    position = 0
    while (anchor := _IPV4_ANCHOR.search(text, position)) is not None:
        match = _IPV4.match(text, anchor.start())
        position = anchor.end() if match is None else match.end()
        if match is not None:
            yield match.span()
    position = 0
    tried = -1
    while (anchor := _IPV6_ANCHOR.search(text, position)) is not None:
        position = anchor.end()
        start = _run_start(text, anchor.start(), lambda char: char.isalnum() or char in "_:.", 64)
        if start <= tried:
            continue
        tried = start
        match = _IPV6.match(text, start)
        if match is None or not match.group().strip(":"):
            continue
        try:
            ipaddress.IPv6Address(match.group())
        except ValueError:
            continue
        position = max(position, match.end())
        yield match.span()


def _cards(text: str) -> Found:
    position = 0
    while (match := _CARD.search(text, position)) is not None:
        position = match.start() + 1
        candidate = match.group()
        separators = {char for char in candidate if char in " -"}
        if len(separators) > 1:
            continue
        groups = re.split("[ -]", candidate)
        sizes = [len(group) for group in groups]
        grouped_by_four = all(size == 4 for size in sizes[:-1]) and 1 <= sizes[-1] <= 4
        if len(groups) > 1 and not (grouped_by_four or sizes in ([4, 6, 5], [4, 6, 4])):
            continue
        digits = "".join(char for char in candidate if char not in " -")
        if 13 <= len(digits) <= 19 and luhn_valid(digits):
            position = match.end()
            yield match.span()


# Links and e-mail addresses are found first, then blanked out (`_MASK`) for the other
# patterns: what is inside a link is part of it, and a number at the end of a link must not
# run into the next one ("wa.me/+93722758 06 12 34 56 78").
_CONTAINERS: tuple[tuple[str, Callable[[str], Found]], ...] = (
    ("EMAIL", _emails),
    ("URL", _urls_with_scheme),
    ("URL", _urls_without_scheme),
)
_MASK = "\x00"
_FINDERS: tuple[tuple[str, Callable[[str], Found]], ...] = (
    ("IBAN", _ibans),
    ("CARD", _cards),
    ("IP", _ips),
    ("PHONE", _phones),
    ("USERNAME", _usernames),
    ("USERNAME", _reddit_names),
    ("HASHTAG", _hashtags),
)


def _preference(span: Span) -> tuple[int, int, int]:
    return (span.start - span.end, _PRIORITY[span.label], span.start)


class RegexRecognizer(PatternRecognizer):
    """Finds URLs, e-mail addresses, @usernames, #hashtags, phone numbers, IBANs, IP addresses
    and payment card numbers. Language-independent: every pattern runs on every text.

    `labels` restricts the search to some of `LABELS`.
    """

    name = "regex"

    def __init__(self, labels: Sequence[str] | None = None) -> None:
        wanted = set(LABELS if labels is None else labels)
        unknown = wanted - set(LABELS)
        if unknown:
            raise ValueError(f"unknown regex labels: {', '.join(sorted(unknown))}")
        self._containers = [(label, find) for label, find in _CONTAINERS if label in wanted]
        self._finders = [(label, find) for label, find in _FINDERS if label in wanted]

    def recognize_one(self, text: str) -> list[Span]:
        """The spans of one text, sorted, without overlaps (score 1.0, source "regex")."""
        found = [
            Span(start, end, label, score=1.0, source="regex")
            for label, find in self._containers
            for start, end in find(text)
        ]
        if found:
            found = select_non_overlapping(found, _preference)
            pieces: list[str] = []
            previous = 0
            for span in found:
                pieces += [text[previous : span.start], _MASK * (span.end - span.start)]
                previous = span.end
            text = "".join([*pieces, text[previous:]])
        found += [
            Span(start, end, label, score=1.0, source="regex")
            for label, find in self._finders
            for start, end in find(text)
        ]
        return select_non_overlapping(found, _preference)
