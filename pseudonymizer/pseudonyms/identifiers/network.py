"""Network identifiers: e-mail addresses, URLs and IP addresses.

Top-level domains (and `co.uk`), infrastructure labels (www, m), the domains of public mail
providers and platforms, page-kind path words and file extensions are kept; accounts, slugs,
ids, query values and personal domains are replaced, and IP addresses keep their form.
"""

from __future__ import annotations

import random
import re

from pseudonymizer.pseudonyms.determinism import Draws, Generator
from pseudonymizer.pseudonyms.identifiers.generic import generic_generator
from pseudonymizer.pseudonyms.identifiers.handles import Handle
from pseudonymizer.pseudonyms.identifiers.phones import phone_generator
from pseudonymizer.pseudonyms.identifiers.words import word_pool, words_like
from pseudonymizer.pseudonyms.shape import (
    apply_case,
    case_of,
    lookup_key,
    lookup_keys,
    pieces,
    replace_digits,
)

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


def suffix_length(labels: list[str]) -> int:
    """How many trailing labels make the public suffix (`co.uk` is two)."""
    second_level = {"co", "com", "org", "net", "gov", "ac", "edu", "gouv", "asso", "ne", "or"}
    if len(labels) >= 3 and labels[-2].lower() in second_level and len(labels[-1]) == 2:
        return 2
    return 1


def _label_like(rng: random.Random, label: str) -> str:
    pool = word_pool("en_US", True)
    out = []
    for kind, text in pieces(label):
        if kind == "digits":
            out.append(replace_digits(rng, text))
        elif kind == "letters":
            out.append(apply_case(case_of(text), words_like(rng, pool, text)))
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


# Public providers by top-level domain, then by language: where a personal or a company's
# domain (which may name someone) goes. A domain made of a random word ("before.fr") reads
# false; one of these reads true.
_MAIL_DOMAINS_BY_SUFFIX = {
    "fr": ("orange.fr", "free.fr", "sfr.fr", "laposte.net", "yahoo.fr", "hotmail.fr"),
    "uk": ("btinternet.com", "hotmail.co.uk", "yahoo.co.uk", "sky.com", "gmail.com"),
    "be": ("skynet.be", "telenet.be", "hotmail.be", "gmail.com"),
    "ca": ("videotron.ca", "sympatico.ca", "hotmail.ca", "gmail.com"),
    "ma": ("menara.ma", "gmail.com", "hotmail.fr", "yahoo.fr"),
    "dz": ("gmail.com", "hotmail.fr", "yahoo.fr", "outlook.fr"),
    "tn": ("gmail.com", "topnet.tn", "hotmail.fr", "yahoo.fr"),
}
_MAIL_DOMAINS_BY_LANGUAGE = {
    "fr": ("gmail.com", "orange.fr", "free.fr", "hotmail.fr", "laposte.net", "yahoo.fr"),
    "ar": ("gmail.com", "hotmail.com", "yahoo.com", "outlook.com"),
}
_MAIL_DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "hotmail.com", "icloud.com")


def mail_domains(domain: str, language: str) -> tuple[str, ...]:
    """The public providers an address at `domain` (not one) may move to, plausible for its
    country's suffix, else for the language."""
    suffix = domain.rsplit(".", 1)[-1].lower()
    if suffix in _MAIL_DOMAINS_BY_SUFFIX:
        return _MAIL_DOMAINS_BY_SUFFIX[suffix]
    return _MAIL_DOMAINS_BY_LANGUAGE.get(language.split("-")[0].lower(), _MAIL_DOMAINS)


def email_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for an e-mail address: the local part reshaped (names to names), the domain
    kept for a public provider (gmail, orange, …), otherwise a public provider's plausible
    for the country or the language (`mail_domains`)."""
    local, _, domain = original.rpartition("@")
    handle = Handle(local, language, draws)
    domain_generator = _Domain(domain, draws, EMAIL_PROVIDERS, subdomains=True)
    if domain_generator.known:
        return lambda: handle() + "@" + domain_generator()
    providers = tuple(d for d in mail_domains(domain, language) if d.lower() != domain.lower())
    return lambda: handle() + "@" + draws.random.choice(providers)


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
    handle = Handle(body, language, draws)
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
            parts.append(Handle(value, language, draws, names=False))
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
    user_generator = Handle(userinfo[:-1], language, draws) if userinfo else None
    query_generator = (
        _query_generator(groups["query"], language, draws) if groups["query"] else None
    )
    fragment = groups["fragment"]
    fragment_generator = (
        Handle(fragment[1:], language, draws, names=False) if len(fragment) > 1 else None
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
