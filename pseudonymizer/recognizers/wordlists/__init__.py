"""What a Latin-script word most likely is: shorthand, a name, a common word, or unknown.

Detection's recall comes from proposing what a language's common vocabulary does not hold
(the approach behind Philter's and PhysioNet deid's recall), and its precision from knowing
what the vocabulary does hold: the shorthand of clinical notes ("HR", "PRN", "CXR"), units,
drugs and chat abbreviations are not names, whatever their capitals. Four lists, in `data/`
(see `build.py` for their sources):

- `shorthand.txt`: Cloak's own list of abbreviations, units, clinical shorthand, common
  drugs and chat abbreviations;
- `en_words.txt`, `fr_words.txt`: the 40,000 most frequent words of each language, ranked;
- `names.txt`: given names and surnames (the US census lists, Faker's person providers);
- `places.txt`: countries, regions, states and cities (CLDR, the time zones, Cloak's own),
  less those that are everyday words ("Turkey", "Nice", "Reading").

`kind(word, language)` reads a word (case-insensitively, a possessive ending dropped) as

- `SHORTHAND` when the list holds it;
- `NAME` when the places list holds it ("London", "Gaza"), or the names list holds it
  and it is not among the `EVERYDAY` most frequent words of the language ("Mary",
  "Thornbury", "Kaur" are names; "Will", "May", "Young", "White" are everyday words
  first);
- `COMMON` when the language's list holds it;
- `UNKNOWN` otherwise ("Postlethwaite", "Krithika", a typo), unless it ends as drug names
  and clinical terms do ("Hydroxychloroquine", "cholecystectomy": `SHORTHAND`).

Languages other than English and French read with the English list (a Latin stretch of an
Arabic post is most often English), and a French word is read at its rank in the English list
when that is higher: posts and notes mix them ("Call", "Live"). The lists load once, on first
use (about 0.2 s).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from functools import cache, lru_cache
from pathlib import Path

from pseudonymizer.recognizers.base import POSSESSIVE

DATA = Path(__file__).resolve().parent / "data"
# A name that is also among this many most frequent words of a language is read as a word.
EVERYDAY = 1_500
_LANGUAGES = ("en", "fr")
# The heading in `shorthand.txt` after which its words are chat abbreviations.
_CHAT_SECTION = "# chat and social media"
# The heading in `shorthand.txt` that ends its measurements (vital signs, units, dosing).
_TESTS_SECTION = "# tests and imaging"
# How many different words of clinical shorthand make a text a clinical note, at least.
_CLINICAL_WORDS = 3
# The share of a text's words that are clinical shorthand from which it reads as a clinical
# note (a nursing note, a discharge letter), where capitals are shorthand or headings.
CLINICAL_SHARE = 0.03


# The endings of drug names and clinical terms ("Hydroxychloroquine", "lisinopril",
# "cholecystectomy", "seronegative" is not one): a word the lists do not hold that ends so
# is read as shorthand, not as a name.
_CLINICAL_ENDINGS = tuple(
    """pril olol alol statin azole mycin micin cillin oxacin prazole sartan dipine tidine
    parin afil azepam zolam triptan tinib ciclovir phylline olone terol tropium formin
    gliptin glitazone caine curonium profen codone morphone barbital thiazide semide quine
    azine oxetine triptyline pramine peridol apine iramine itis ectomy otomy ostomy emia
    opathy algia plasty oscopy ography ocele omegaly""".split()
)


class Kind(Enum):
    SHORTHAND = "shorthand"
    NAME = "name"
    COMMON = "common"
    UNKNOWN = "unknown"


SHORTHAND, NAME, COMMON, UNKNOWN = Kind.SHORTHAND, Kind.NAME, Kind.COMMON, Kind.UNKNOWN


def _lines(name: str) -> list[str]:
    return _words((DATA / name).read_text(encoding="utf-8"))


@cache
def _shorthand_text() -> str:
    return (DATA / "shorthand.txt").read_text(encoding="utf-8")


@cache
def shorthand() -> frozenset[str]:
    """Cloak's abbreviations, units, clinical shorthand, drugs and chat abbreviations."""
    return frozenset(_words(_shorthand_text()))


@cache
def clinical_shorthand() -> frozenset[str]:
    """The clinical part of `shorthand()`: what comes before its chat abbreviations."""
    text = _shorthand_text()
    clinical, chat = text.split(_CHAT_SECTION)
    return frozenset(_words(clinical)) - frozenset(_words(chat))  # not "RT", "DM", "ID"


@cache
def measures() -> frozenset[str]:
    """The vital signs, units, frequencies and routes of `shorthand()` (its sections before
    tests and imaging): the words next to which a number is a measurement ("HR 80", "2 L")."""
    text = _shorthand_text()
    return frozenset(_words(text.split(_TESTS_SECTION)[0]))


def _words(text: str) -> list[str]:
    return [word for line in text.splitlines() if not line.startswith("#") for word in line.split()]


def clinical_share(words: Sequence[str], language: str = "en") -> float:
    """The share of `words` that are clinical shorthand no everyday word spells ("HR",
    "PRN", "CXR"; 0 when fewer than three such words differ): high in a clinical note, where
    words in capitals are shorthand, low in a post or a judgment, where they are names
    ("SOCHI", "FACEBOOK"). The shorthand is English: a word of `language`'s own vocabulary
    is none ("le", "rue" and "trop" are French words before they are "lower extremity")."""
    own = ranks(language) if language != "en" and language in _LANGUAGES else {}
    found = [word.lower() for word in words if _clinical(word.lower())]
    found = [word for word in found if word not in own]
    if len(set(found)) < _CLINICAL_WORDS:
        return 0.0
    return len(found) / len(words)


def is_clinical(words: Sequence[str], language: str = "en") -> bool:
    """Whether a text of these `words` in `language` reads as a clinical note
    (`clinical_share`)."""
    return clinical_share(words, language) >= CLINICAL_SHARE


def _clinical(word: str) -> bool:
    """Clinical shorthand that no everyday English word spells ("HR", "CXR"; not "or")."""
    return word in clinical_shorthand() and ranks("en").get(word, EVERYDAY) >= EVERYDAY


@cache
def names() -> frozenset[str]:
    """Given names and surnames, lower case."""
    return frozenset(_lines("names.txt"))


@cache
def places() -> frozenset[str]:
    """Place names, lower case, one or several words ("london", "new york")."""
    text = (DATA / "places.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


@cache
def place_starts() -> dict[str, int]:
    """The first word of each place → the most words a place starting with it has."""
    starts: dict[str, int] = {}
    for place in places():
        words = place.split(" ")
        starts[words[0]] = max(starts.get(words[0], 0), len(words))
    return starts


def is_place(phrase: str) -> bool:
    """Whether `phrase` (words separated by single spaces) is a place of the list."""
    return phrase.lower().replace("’", "'") in places()


@cache
def ranks(language: str) -> dict[str, int]:
    """The rank of each of the language's most frequent words (0 is the most frequent)."""
    code = language if language in _LANGUAGES else "en"
    return {word: rank for rank, word in enumerate(_lines(f"{code}_words.txt"))}


def key(word: str) -> str:
    """The form the lists hold: lower case, a possessive ending ("Price’s") dropped."""
    stripped = POSSESSIVE.sub("", word) if len(word) > 2 else word
    return (stripped or word).lower().replace("’", "'")


@lru_cache(maxsize=1 << 16)
def kind(word: str, language: str = "en") -> Kind:
    """What `word` most likely is in `language` (see the module's docstring)."""
    found = key(word)
    if found in shorthand() or word.lower() in shorthand():
        return SHORTHAND
    if found in places():
        return NAME
    rank = ranks(language).get(found)
    if language != "en":  # English words are everywhere: "Call", "Live"
        english = ranks("en").get(found)
        if english is not None and (rank is None or english < rank):
            rank = english
    if found in names() and (rank is None or rank >= EVERYDAY):
        return NAME
    if rank is not None:
        return COMMON
    if len(found) >= 6 and found.endswith(_CLINICAL_ENDINGS):
        return SHORTHAND
    return UNKNOWN


def is_common(word: str, language: str = "en") -> bool:
    """Whether `word` is shorthand or a common word of `language`, not a name."""
    return kind(word, language) in (SHORTHAND, COMMON)
