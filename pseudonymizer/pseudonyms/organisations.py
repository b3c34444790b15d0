"""Organisations of a known kind become organisations of the same kind: a bank a bank, a
platform a platform, a club a club, never a surname ("Barclays" became "Gray", "Crédit
Agricole" "Barthelemy Troyes": issue 31). The kind is read from a list of well-known names
(or, for a name made only of names, taken to be a company's); the pseudonym is a pattern of
the kind and language filled with a real town of the language (`towns`), or an invented
platform name.
"""

from __future__ import annotations

import random
import re

from pseudonymizer.pseudonyms.shape import lookup_key, lookup_keys, script_of
from pseudonymizer.pseudonyms.towns import towns

BANK, PLATFORM, TELECOM, CLUB, NEWS, COMPANY, MINISTRY = (
    "bank", "platform", "telecom", "club", "news", "company", "ministry",
)  # fmt: skip

# A word that tells the kind wherever it stands in the name: "Ministère de l'Intérieur",
# "Stade Rennais" (a club's own words are names, which a company's pseudonym would replace).
_KIND_WORDS: dict[str, frozenset[str]] = {
    MINISTRY: lookup_keys("ministry ministère ministere minister département وزارة".split()),
    CLUB: lookup_keys("stade olympique sporting athletic racing club fc نادي".split()),
}

_KNOWN: dict[str, frozenset[str]] = {
    BANK: lookup_keys(
        [
            "Barclays",
            "HSBC",
            "Lloyds",
            "NatWest",
            "Santander",
            "Monzo",
            "Revolut",
            "Halifax",
            "Nationwide",
            "Chase",
            "Citibank",
            "Wells Fargo",
            "Bank of America",
            "BNP Paribas",
            "BNP",
            "Société Générale",
            "Crédit Agricole",
            "Crédit Mutuel",
            "LCL",
            "Caisse d'Épargne",
            "La Banque Postale",
            "Banque Populaire",
            "Boursorama",
            "Attijariwafa",
            "Attijariwafa bank",
            "CIH",
            "BMCE",
            "Bank of Africa",
            "Al Rajhi",
            "QNB",
            "مصرف الراجحي",
            "البنك الأهلي",
            "التجاري وفا بنك",
        ]  # fmt: skip
    ),
    PLATFORM: lookup_keys(
        [
            "Facebook",
            "Twitter",
            "X",
            "Telegram",
            "YouTube",
            "TikTok",
            "Instagram",
            "WhatsApp",
            "Snapchat",
            "Reddit",
            "Discord",
            "LinkedIn",
            "Signal",
            "Gab",
            "VK",
            "Twitch",
            "Parler",
            "Rumble",
            "Odysee",
            "BitChute",
            "Truth Social",
            "Mastodon",
            "Threads",
            "Bluesky",
            "4chan",
            "8kun",
            "Google",
            "Amazon",
            "فيسبوك",
            "تويتر",
            "تلغرام",
            "تيليجرام",
            "يوتيوب",
            "تيك توك",
            "واتساب",
            "انستغرام",
        ]  # fmt: skip
    ),
    TELECOM: lookup_keys(
        [
            "Orange",
            "SFR",
            "Bouygues",
            "Bouygues Telecom",
            "Free",
            "Vodafone",
            "EE",
            "O2",
            "BT",
            "Maroc Telecom",
            "Inwi",
            "Ooredoo",
            "Djezzy",
            "Mobilis",
            "Etisalat",
            "اتصالات المغرب",
            "أوريدو",
            "جازي",
            "موبيليس",
        ]  # fmt: skip
    ),
    CLUB: lookup_keys(
        [
            "PSG",
            "Paris Saint-Germain",
            "OM",
            "Olympique de Marseille",
            "OL",
            "Olympique Lyonnais",
            "Arsenal",
            "Chelsea",
            "Liverpool",
            "Manchester United",
            "Real Madrid",
            "Barcelona",
            "Barça",
            "Raja",
            "Wydad",
            "الرجاء",
            "الوداد",
            "الأهلي",
            "الزمالك",
        ]  # fmt: skip
    ),
    NEWS: lookup_keys(
        [
            "BBC",
            "CNN",
            "Fox News",
            "The Guardian",
            "The Times",
            "Daily Mail",
            "Le Monde",
            "Le Figaro",
            "Libération",
            "Mediapart",
            "France 24",
            "BFM",
            "BFMTV",
            "CNews",
            "Al Jazeera",
            "Al Arabiya",
            "الجزيرة",
            "العربية",
            "هسبريس",
        ]  # fmt: skip
    ),
}

# Patterns per kind and language; {town} is a real town of the language, {portfolio} a
# ministry's field.
_PATTERNS: dict[str, dict[str, tuple[str, ...]]] = {
    MINISTRY: {
        "en": ("Ministry of {portfolio}", "Department of {portfolio}"),
        "fr": ("Ministère {portfolio}",),
        "ar": ("وزارة {portfolio}",),
    },
    BANK: {
        "en": ("{town} Bank", "Bank of {town}", "{town} Building Society", "{town} Savings"),
        "fr": ("Banque de {town}", "Crédit de {town}", "Caisse d'Épargne de {town}"),
        "ar": ("بنك {town}", "مصرف {town}", "بنك {town} للتنمية"),
    },
    TELECOM: {
        "en": ("{town} Telecom", "{town} Mobile"),
        "fr": ("{town} Télécom", "{town} Mobile"),
        "ar": ("اتصالات {town}", "{town} موبايل"),
    },
    CLUB: {
        "en": ("{town} FC", "{town} United", "{town} Athletic"),
        "fr": ("FC {town}", "Olympique de {town}", "Stade de {town}"),
        "ar": ("نادي {town}", "اتحاد {town}", "شباب {town}"),
    },
    NEWS: {
        "en": ("The {town} Courier", "{town} Gazette", "{town} Evening News"),
        "fr": ("Le Courrier de {town}", "La Gazette de {town}", "L'Écho de {town}"),
        "ar": ("صحيفة {town}", "أخبار {town}", "قناة {town}"),
    },
    COMPANY: {
        "en": ("{town} Holdings", "{town} Group", "{town} Industries", "{town} Trading"),
        "fr": ("Groupe {town}", "{town} Industries", "Société de {town}", "{town} Services"),
        "ar": ("شركة {town}", "مجموعة {town}", "مؤسسة {town}"),
    },
}
_PORTFOLIOS = {
    "en": ("Health", "Education", "Transport", "Agriculture", "Culture", "Justice", "Energy",
           "Housing", "Labour", "Finance", "Trade", "Environment", "Sport", "Tourism"),
    "fr": ("de la Santé", "de l'Éducation nationale", "des Transports", "de l'Agriculture",
           "de la Culture", "de la Justice", "du Travail", "des Finances", "du Logement",
           "des Sports", "du Tourisme", "de la Transition écologique"),
    "ar": ("الصحة", "التعليم", "النقل", "الزراعة", "الثقافة", "العدل", "الطاقة", "السكن",
           "العمل", "المالية", "التجارة", "البيئة", "الرياضة", "السياحة"),
}  # fmt: skip
# Invented platform names: a stem and an ending, never a word of the lists above.
_PLATFORM_STEMS = (
    "Chirp", "Vid", "Talk", "Pix", "Loop", "Buzz", "Snap", "Glim", "Echo", "Wave", "Zap",
    "Hub", "Quill", "Nook", "Flick", "Spark", "Drift", "Orbit", "Pulse", "Tern",
)  # fmt: skip
_PLATFORM_ENDINGS = ("ly", "nest", "line", "ora", "chat", "gram", "stream", "cast", "spot", "io")


def kind_of(original: str) -> str | None:
    """The kind of a well-known organisation, or of one whose words tell it (a ministry, a
    club), or None."""
    key = lookup_key(" ".join(original.split()))
    for kind, names in _KNOWN.items():
        if key in names:
            return kind
    words = {lookup_key(word).strip(".,'’") for word in original.split()}
    for kind, triggers in _KIND_WORDS.items():
        if words & triggers:
            return kind
    return None


def _language(original: str, language: str) -> str:
    if script_of(original) == "Arab":
        return "ar"
    code = language.split("_")[0].split("-")[0].lower()
    return code if code in ("en", "fr") else "en"


def organisation_of_kind(rng: random.Random, original: str, language: str, kind: str) -> str:
    """A plausible organisation of `kind` for the language of `original`."""
    if kind == PLATFORM:
        return rng.choice(_PLATFORM_STEMS) + rng.choice(_PLATFORM_ENDINGS)
    code = _language(original, language)
    pattern = rng.choice(_PATTERNS[kind][code])
    name = pattern.format(town=rng.choice(towns(code)), portfolio=rng.choice(_PORTFOLIOS[code]))
    return re.sub(r"\bde (?=[AEIOUYÉÈÊÀÂÎÔÛ])", "d'", name) if code == "fr" else name
