"""Arabic lexicons: people, places and organisations found from lists the engine ships.

No Arabic NER model is installable, so the `recall` profile runs `ArabicLexiconRecognizer` on
Arabic texts. Its lists are plain text files in `data/` (written by `build.py` from Faker's
Arabic locales and small lists written for Cloak); nothing is fetched or read from Faker at
run time.

- Places (LOC) and organisations (ORG): the list entries, multi-word ones included, found by
  the engine's known-entity matcher (`pseudonymizer.recognizers.known`): proclitics و ف ب ك ل
  and the article ال, hamza, alef maqsura and tatweel folded, harakat ignored, offsets on the
  original text ("وبالقاهرة" → "القاهرة"). Score 0.8.
- Spellings: every entry is also looked up with its final ta marbutas written ه, and with
  the hamza after a final alef left out ("كربلا", "علا الدين": `spellings`,
  `pseudonymizer.folding.without_hamza`), unless that spells a frequent word ("بها").
- People a foreign given name begins ("فلاديمير بوتين", "شارل دي غول": `ar_first_foreign.txt`):
  the word after it, frequent or not, unless a function word, title or adjective, and one
  more no list holds. Score 0.7. The given name alone is no name.
- People (PER): a known first name (or a kunya, أبو / أم, or ابن / بنت, followed by a name),
  then one to three further name units: a known first or family name, a patronymic particle
  (بن ابن بنت أبو أم آل) followed by a name, or a family name with the article ("الهاشمي":
  a listed name, ال + a listed name, or a nisba ال…ي that is not a common adjective). Score
  0.85. The first word may carry a proclitic ("ومحمد" → "محمد"); later words may not, so
  "محمد وعلي" is two people.
- Organisations named by a head word (منتخب نادي جامعة وزارة شركة حزب جمعية مستشفى بلدية
  نقابة and more, with the article or not, after a proclitic or not: "للمنتخب" → "لمنتخب…"
  is read as ل + المنتخب) followed by a listed place, organisation or a person's name
  ("جامعة القاهرة", "منتخب مصر"), by a country's or people's adjective ("المنتخب المصري",
  "الجامعة الأمريكية", `data/ar_nationalities.txt`), or, after a head without the article,
  by a word with it ("وزارة الصحة", "حزب الله") or by a word no list holds that is no
  frequent word ("جامعة بيرزيت", `data/ar_common_words.txt`); one or two adjectives may
  follow ("جامعة الدول العربية"). After a head with the article a relative adjective (ال…ي)
  that is no common adjective serves too ("الحزب الشيوعي"). Heads as often generic (مجلس
  لجنة حركة قوات: "مجلس الإدارة", the board) take a word with the article only if it is no
  frequent word. ORG, score 0.8.
- Places named by a head word (مدينة قرية بلدة مخيم محافظة حي منطقة...): the
  word after it when it is no frequent word, function word or adjective ("قرية اليامون",
  "مخيم بلاطة"; not "مدينة كبيرة"), or the two after it when the first begins such names
  ("بيت نبالا", "عين حوض", "سان فرانسيسكو"). The head is not part of the span. LOC, score
  0.6. A state named by its head and adjectives ("المملكة الأردنية الهاشمية"): LOC, 0.8.
- Natural features and facilities named by a head word that is part of the name (نهر جبل
  بحيرة وادي جزيرة مسجد قصر قلعة كنيسة ملعب مطار متحف...): the head with what the rule
  above takes, or with a word with the article that is no adjective ("قصر الحمراء"), at
  0.6; or with a listed place and "الدولي" or "الكبير" ("مطار دمشق الدولي"), at 0.8.
- Classical names: a laqab ("صلاح الدين", "سيف الدولة") is a name unit; ال + a given name
  then بن begins one ("الحسن بن الهيثم"); a nisba alone ("الفارابي": ال…ي, no frequent
  word, no listed place's adjective, after no word with the article, its feminine nowhere
  in the text) is a name at 0.5, and after a cue ("قال الطبري") too.
- People a cue announces, whatever their name (a foreign person's, in none of the lists):
  after a title ("اللاعب ليونيل ميسي", "وزير الخارجية أنتوني بلينكن") at score 0.7, after a
  verb of saying ("وقال إيمانويل ماكرون") at 0.5 (`cues`).
- Weak cues, where the name must hold a listed name or a word no frequency table holds: a
  verb of a life ("ولد ألبرت أينشتاين", "أسس", "تخرج", "هاجر"), a kinsman ("ابنه",
  "زوجته"), who led or reigned ("بقيادة", "في عهد") and a country's adjective used as a
  noun ("الألماني مايكل شوماخر"), at 0.5 (`cues`).
- A person's name found once, found again in the same text: the whole name, and its last
  word alone ("أنان" after "كوفي أنان"), at 0.5 (`_Echoes`).
- A first name alone is proposed too, at score 0.5: recall comes first, and a lone given name
  is how people are named in messages. First names that are everyday words (أمل hope, نور
  light, سعيد happy, صباح morning...) are never proposed alone, and neither start a name.

What it cannot find: names in none of its lists (a family name without ال, a rare given name)
that no cue or head word announces, names that are common words standing alone ("البيرة"
after مدينة is also beer), and names written in Latin letters (the patterns' capitalised
words, MISC, cover some).

Word matching reuses the known-entity matcher's folding (`fold`, `fold_with_origin`); spans carry
source "regex", the engine's source for pattern and list recognizers.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from pseudonymizer.folding import fold, without_hamza
from pseudonymizer.recognizers.base import PatternRecognizer, RecognizerError
from pseudonymizer.recognizers.known import KnownEntityRecognizer
from pseudonymizer.recognizers.lexicons.cues import article as _cues_article
from pseudonymizer.recognizers.lexicons.cues import cued_names, is_stop
from pseudonymizer.recognizers.lexicons.words import ARTICLE as _ARTICLE
from pseudonymizer.recognizers.lexicons.words import bare_forms
from pseudonymizer.spans import Span, select_non_overlapping

__all__ = [
    "DATA",
    "LANGUAGES",
    "ArabicLexicon",
    "ArabicLexiconRecognizer",
    "arabic_lexicon",
    "read_list",
    "spellings",
]

DATA = Path(__file__).resolve().parent / "data"
LANGUAGES = frozenset({"ar"})
SOURCE = "regex"
ENTITY_SCORE = 0.8
NAME_SCORE = 0.85
LONE_NAME_SCORE = 0.5
MAX_FURTHER_UNITS = 3
FOREIGN_SCORE = 0.7
NISBA_SCORE = 0.5
# Words no list holds after a foreign given name: a middle name and a family name.
MAX_FOREIGN_WORDS = 2

# An Arabic word: letters, harakat and tatweel (digits and punctuation end it).
_WORD = re.compile("[\u0620-\u065f\u066e-\u06d3\u06d5\u06ee\u06ef\u06fa-\u06ff]+")
# Between two words of one name: spaces only (a line break or punctuation ends the name).
_NAME_GAP = re.compile("[ \t\u00a0\u200c\u200f]+")
# Particles that join a further name (folded: أبو → ابو, آل → ال).
_JOINING_PARTICLES = frozenset({"بن", "ابن", "بنت", "ابو", "ام", "ال"})
# Particles inside a foreign name: "شارل دي غول", "ليوناردو دا فينشي", "فون".
_FOREIGN_PARTICLES = frozenset({"دي", "دا", "فون", "فان", "دو", "لا"})
# Particles that may begin a name: a kunya (أبو بكر، أم كلثوم) or ابن / بنت (ابن خلدون).
_LEADING_PARTICLES = frozenset({"ابو", "ام", "ابن", "بنت"})

# Function words that fold like a name ("على" → "علي"): compared with harakat and tatweel
# removed but letters as written.
_FUNCTION_WORDS = frozenset({"على", "إلى", "الى", "حتى", "متى", "لدى", "سوى", "مع", "من"})
# Given names that are everyday words (أمل hope, كريم generous): never proposed alone, and
# the first of them (greetings, feasts) never begin a name at all. Folded as the matcher folds.
# "علي" too: where ى is written ي (much Egyptian and older news text), it is "على" (on).
_EVERYDAY_NAMES = frozenset(
    fold(word)
    for word in """
    أمل نور سعيد سعيدة كريم كريمة جميل جميلة جمال فرح سلام حياة رحمة صباح مساء خير أمين
    أمينة شريف عادل كمال نصر فخر فضل هدى منى سحر وفاء أحلام ابتسام أفراح أمان إيمان حنان
    ضحى شهد دعاء سما بشرى مجد عز بدر جود تحية مبروك حبيب عيد ميلاد زهرة نجاح فوز رجاء
    أماني سعادة ورد وردة هناء نعمة بهجة غالية عزيز عزيزة حسنى طيب ريم ندى كبير طالب
    عالم راضي هادي باسم واثق صادق سامح غالب ناجح منصور نبيل شهم ذكي زكي سهل صعب حر
    علي
    """.split()
)
_FOLDED_FUNCTION = frozenset(fold(word) for word in _FUNCTION_WORDS) | {"الا", "اذا", "لا"}
# A laqab, an honorific of two words that names a person: its first word (nur, salah, imad,
# jamal, fakhr, shams, badr, saif, ala, taj, zayn, izz, najm, qutb, shihab, diya, muhyi,
# husam, rukn, kamal, khayr, sad, nasir, muin, majd, baha, jalal, sharaf, shams, safi, nizam,
# muizz, adud, rukn) and its second: الدين (of the faith) or الدولة (of the state).
_LAQAB_FIRSTS = frozenset(
    fold(word)
    for word in """
    نور صلاح عماد جمال فخر شمس بدر سيف علاء تاج زين عز نجم قطب شهاب ضياء محيي حسام ركن
    كمال خير سعد نصير معين مجد بهاء جلال شرف صفي نظام معز عضد ناصر سراج برهان غياث
    """.split()
)
_LAQAB_SECONDS = frozenset(fold(word) for word in ("الدين", "الدولة"))
_NEVER_START = frozenset(
    fold(word) for word in "صباح مساء سلام خير تحية مبروك عيد ميلاد نجاح فوز رجاء".split()
)
# Adjectives shaped like a nisba family name (ال…ي): never a family name.
_NOT_FAMILY = frozenset(
    fold(word)
    for word in """
    الذي التي الماضي الحالي التالي الثاني الدولي الرسمي العالمي الإنساني الحقيقي المحلي
    الوطني السياسي الاقتصادي الأمني الشخصي الجاي الجاري الأساسي النهائي الإضافي الصحي
    التعليمي الاجتماعي الثقافي الرياضي الإعلامي الأمريكي الأوروبي الإسرائيلي الفلسطيني
    الماضى الحالى الثانى الدولى
    """.split()
)


def read_list(name: str) -> list[str]:
    """The entries of `data/<name>`: one a line, blank lines and `#` comments skipped.
    Raises `RecognizerError` when the file is missing (an install without package data)."""
    try:
        lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise RecognizerError(f"the Arabic lexicon {name} cannot be read: {error}") from error
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


@dataclass(frozen=True)
class ArabicLexicon:
    """The lists, as read: given names (male and female), family names, places,
    organisations, the adjectives of countries and peoples, and the most frequent words
    (none of them a listed name, place or organisation), and foreign given names as Arabic
    writes them ("جورج", "فلاديمير": they begin a name, never make one alone). `first_names`,
    `family_names`, `names` (both), `nationalities`, `common_words` and `foreign_names` are
    folded, multi-word names also without their spaces ("عبدالله")."""

    first_names: frozenset[str]
    family_names: frozenset[str]
    names: frozenset[str]
    places: tuple[str, ...]
    organisations: tuple[str, ...]
    nationalities: frozenset[str] = frozenset()
    common_words: frozenset[str] = frozenset()
    foreign_names: frozenset[str] = frozenset()


_TA_MARBUTA = "\u0629"
_HA = "\u0647"


def spellings(entry: str, avoid: Collection[str] = frozenset()) -> list[str]:
    """`entry`, and every way of writing its final ta marbutas as ha ("مكة المكرمة" → "مكه
    المكرمة", "مكة المكرمه", "مكه المكرمه"): the matcher keeps ة apart from ه, writers do
    not. Entries of more than three such words keep the first and the all-ha spellings.
    A word ending in alef and hamza is also written without its hamza (`without_hamza`:
    "كربلاء" → "كربلا", "علاء الدين" → "علا الدين"), as folding reads a hamza on a seat
    (أ إ ؤ ئ) but keeps one on the line; not a one-word spelling whose fold is in `avoid`
    (the frequent words: "بهاء" → "بها" with it, "هناء" → "هنا" here, "آلاء" → "إلا")."""
    bare = without_hamza(entry)
    if bare != entry and (" " in bare or fold(bare).strip() not in avoid):
        return [*_ta_marbuta_spellings(entry), *_ta_marbuta_spellings(bare)]
    return _ta_marbuta_spellings(entry)


def _ta_marbuta_spellings(entry: str) -> list[str]:
    words = entry.split(" ")
    ending = [index for index, word in enumerate(words) if word.endswith(_TA_MARBUTA)]
    if not ending:
        return [entry]
    choices = [ending] if len(ending) > 3 else []
    if not choices:
        choices = [
            [index for bit, index in enumerate(ending) if mask >> bit & 1]
            for mask in range(1, 1 << len(ending))
        ]
    found = [entry]
    for chosen in choices:
        changed = [word[:-1] + _HA if index in chosen else word for index, word in enumerate(words)]
        found.append(" ".join(changed))
    return found


def _folded(entries: Iterable[str], avoid: Collection[str] = frozenset()) -> frozenset[str]:
    found: set[str] = set()
    for entry in entries:
        for spelling in spellings(entry, avoid):
            key = fold(spelling).strip()
            if len(key) >= 2:
                found.add(key)
                found.add(key.replace(" ", ""))
    return frozenset(found)


@lru_cache(maxsize=1)
def arabic_lexicon() -> ArabicLexicon:
    """The shipped Arabic lists, read once per process."""
    common = frozenset(fold(word) for word in read_list("ar_common_words.txt")) | _FOLDED_FUNCTION
    first = _folded([*read_list("ar_first_male.txt"), *read_list("ar_first_female.txt")], common)
    family = _folded(read_list("ar_family.txt"), common)
    return ArabicLexicon(
        first_names=first,
        family_names=family,
        names=first | family,
        places=tuple(read_list("ar_places.txt")),
        organisations=tuple(read_list("ar_organisations.txt")),
        nationalities=_folded(read_list("ar_nationalities.txt")),
        common_words=common - _FOLDED_FUNCTION,
        foreign_names=_folded(read_list("ar_first_foreign.txt"), common),
    )


@lru_cache(maxsize=1)
def _place_keys() -> frozenset[str]:
    """The listed places of one word, folded, without the article."""
    found = set()
    for place in arabic_lexicon().places:
        key = fold(place).strip()
        if " " not in key:
            found.add(key[len(_ARTICLE) :] if key.startswith(_ARTICLE) else key)
    return frozenset(found)


def _place_adjective(key: str) -> bool:
    """Whether `key` (folded, ال…ي) is a listed place's relative adjective: "الاسكتلندي"
    (اسكتلندا), "السريلانكي" (سريلانكا), "البخاري" is also Bukhara's (بخارى)."""
    stem = key[len(_ARTICLE) : -1]
    places = _place_keys()
    return any(form in places for form in (stem, stem + "ا", stem + "يا", stem + _HA, stem + "ي"))


@lru_cache(maxsize=1)
def _entity_matcher() -> KnownEntityRecognizer:
    """Places before organisations: an entry in both ("برشلونة") is a place."""
    lexicon = arabic_lexicon()
    return KnownEntityRecognizer(
        [
            (spelling, "LOC")
            for place in lexicon.places
            for spelling in spellings(place, lexicon.common_words)
        ]
        + [
            (spelling, "ORG")
            for organisation in lexicon.organisations
            for spelling in spellings(organisation, lexicon.common_words)
        ]
    )


@dataclass(frozen=True)
class _Word:
    start: int
    end: int
    key: str  # folded
    written: str  # as written, harakat and tatweel removed


def _strip_marks(word: str) -> str:
    return "".join(char for char in word if fold(char))


class _People:
    """Finds person names in one text's words (see the module docstring)."""

    def __init__(self, text: str, lexicon: ArabicLexicon, taken: Sequence[Span] = ()) -> None:
        self.text = text
        self.lexicon = lexicon
        self.family = lexicon.family_names
        self.words = [
            _Word(m.start(), m.end(), fold(m.group()), _strip_marks(m.group()))
            for m in _WORD.finditer(text)
        ]
        self._ends = [word.end for word in self.words]
        self._forms: dict[tuple[int, bool], list[tuple[str, int]]] = {}
        self._keys: frozenset[str] | None = None
        # Words a place or an organisation covers are no part of a name ("لبنان" is not
        # ل + the given name "بنان").
        self.blocked = frozenset(index for span in taken for index in self.within(span))

    def within(self, span: Span) -> range:
        """The indexes of the words `span` covers, wholly or in part."""
        first = bisect.bisect_right(self._ends, span.start)  # the first word ending after it
        last = first
        while last < len(self.words) and self.words[last].start < span.end:
            last += 1
        return range(first, last)

    def forms(self, index: int, elided: bool = False) -> list[tuple[str, int]]:
        """Word `index`'s folded form and its forms without a proclitic leaving two letters or
        more (and, `elided`, with the article whose alef ل elides): `bare_forms`, computed
        once for all the rules that look for a head or a name."""
        if (index, elided) not in self._forms:
            word = self.words[index]
            self._forms[index, elided] = bare_forms(
                self.text, word.start, word.end, word.key, elided=elided
            )
        return self._forms[index, elided]

    def unlisted(self, index: int, proclitics: bool = False) -> bool:
        """Whether word `index` may be a name no list holds: not a frequent word (with its
        article or without), a function word or a country's adjective, three letters or
        more, and no part of a listed place or organisation. With `proclitics`, not a
        frequent word after a proclitic either ("بوزير": ب + وزير)."""
        if index >= len(self.words) or index in self.blocked:
            return False
        word = self.words[index]
        bare = word.key[len(_ARTICLE) :] if word.key.startswith(_ARTICLE) else word.key
        common = self.lexicon.common_words
        adjectives = self.lexicon.nationalities
        return (
            len(bare) >= 3
            and word.key not in common
            and bare not in common
            and word.written not in _FUNCTION_WORDS
            and word.key not in adjectives
            and _ARTICLE + bare not in adjectives
            and not (
                proclitics
                and any(len(key) >= 3 and key in common for key, _ in self.forms(index)[1:])
            )
        )

    def adjective(self, index: int, article: bool) -> bool:
        """Whether word `index` is a country's or people's adjective (or, after a head with
        the article, a relative adjective ال…ي that is no common one)."""
        key = self.words[index].key
        if key in self.lexicon.nationalities:
            return True
        masculine = key[:-1] if key.endswith(("يه", "ية")) else key
        return (
            article
            and key.startswith(_ARTICLE)
            and len(masculine) >= 6
            and masculine.endswith("ي")
            and masculine not in _NOT_FAMILY
        )

    def joined(self, index: int) -> bool:
        """Whether word `index` follows word `index - 1` in the same name (spaces only)."""
        if index <= 0 or index >= len(self.words):
            return False
        gap = self.text[self.words[index - 1].end : self.words[index].start]
        return bool(_NAME_GAP.fullmatch(gap))

    def name_unit(
        self, index: int, names: frozenset[str] | None = None, first: str | None = None
    ) -> int:
        """How many words from `index` make one listed name (0 if none): the longest of up to
        three words, or عبد + a word with the article ("عبد الرحمن"). `first` stands for the
        first word's folded form (the word without its proclitic)."""
        names = self.lexicon.names if names is None else names
        if index >= len(self.words) or index in self.blocked:
            return 0
        word = self.words[index]
        first = word.key if first is None else first
        for size in (3, 2):
            if index + size <= len(self.words) and all(
                self.joined(index + step) for step in range(1, size)
            ):
                rest = [other.key for other in self.words[index + 1 : index + size]]
                if " ".join([first, *rest]) in names:
                    return size
        if (
            first in _LAQAB_FIRSTS
            and self.joined(index + 1)
            and self.words[index + 1].key in _LAQAB_SECONDS
        ):
            return 2  # a laqab: "صلاح الدين", "سيف الدولة"
        if first == "عبد" and self.joined(index + 1):
            following = self.words[index + 1].key
            if following.startswith(_ARTICLE) and len(following) > 3:
                return 2
        if word.written not in _FUNCTION_WORDS and first in names:
            return 1
        return 0

    def family_unit(self, index: int, strong: bool = False) -> int:
        """A name unit, or one word with the article: ال + a listed name, or a nisba.
        `strong`: a family name only (listed, or with the article), not a given name."""
        if index in self.blocked:
            return 0
        size = self.name_unit(index, self.family if strong else None)
        if size:
            return size
        key = self.words[index].key
        if not key.startswith(_ARTICLE) or key in _NOT_FAMILY:
            return 0
        stem = key[len(_ARTICLE) :]
        # A nisba no list holds ("الكرسي", the chair, is shaped like one) continues a name,
        # but not one begun by an everyday word ("علي الكرسي": on the chair).
        if stem in self.lexicon.names or (not strong and len(key) >= 5 and key.endswith("ي")):
            return 1
        return 0

    def further_unit(self, index: int, strong: bool = False) -> int:
        """Words from `index` that continue a name: a particle and a name, or a name
        (`strong`: a family name, not a given name)."""
        if index >= len(self.words) or index in self.blocked or not self.joined(index):
            return 0
        if self.words[index].key in _JOINING_PARTICLES and self.joined(index + 1):
            size = self.family_unit(index + 1)
            if size:
                return 1 + size
        return self.family_unit(index, strong)

    def start_at(self, index: int) -> tuple[int, int, bool, str] | None:
        """Where a name may begin at word `index`: (offset in the text, words taken, whether
        the start alone is a full name: a kunya or ابن / بنت with its name, the first word
        folded without its proclitic)."""
        if index in self.blocked:
            return None
        word = self.words[index]
        candidates = [(word.key, word.start)]
        if word.key not in self.lexicon.names and word.key not in _LEADING_PARTICLES:
            candidates = self.forms(index)
        for key, start in candidates:
            stem = key[len(_ARTICLE) :]
            if (
                key.startswith(_ARTICLE)
                and stem in self.lexicon.first_names
                and self.joined(index + 1)
                and self.words[index + 1].key in ("بن", "ابن")
                and self.joined(index + 2)
            ):
                size = self.family_unit(index + 2)
                if size:  # a classical name: "الحسن بن الهيثم", "الحجاج بن يوسف"
                    return start, 2 + size, True, key
            if key in _LEADING_PARTICLES and self.joined(index + 1):
                size = self.family_unit(index + 1)
                if size:
                    return start, 1 + size, True, key
            if word.written in _FUNCTION_WORDS:
                continue
            size = self.name_unit(index, self.lexicon.first_names, key)
            if size > 1 or (size == 1 and key not in _NEVER_START):
                return start, size, False, key
        return None

    def foreign_at(self, index: int) -> Span | None:
        """A name a foreign given name begins ("ألبرت أينشتاين", "شارل دي غول"): the given
        name (after a proclitic or not), then one or two words that are listed names or that
        no list or frequency table holds (`unlisted`), with the article on none, a foreign
        particle (دي دا فون فان) between them allowed; the word right after the given name may
        be a frequent one ("فلاديمير بوتين") unless it is a function word, a title, a verb
        of saying or an adjective (`cues.is_stop`), after a proclitic or not ("وهو"). None
        when no such word follows: the given name alone is no name ("جان" is also a jinn).
        PER, `FOREIGN_SCORE`."""
        if index in self.blocked or self.words[index].written in _FUNCTION_WORDS:
            return None
        # A proclitic comes off no frequent word: "لجان" (committees) is no ل + "جان".
        forms = self.forms(index)
        if self.words[index].key in self.lexicon.common_words:
            forms = forms[:1]
        start = next(
            (at for number, (key, at) in enumerate(forms)
             if key in self.lexicon.foreign_names and (number == 0 or len(key) >= 3)),
            None,
        )  # fmt: skip
        if start is None:
            return None
        last = index
        unlisted = 0
        while unlisted < MAX_FOREIGN_WORDS and self.joined(last + 1):
            following = last + 1
            key = self.words[following].key
            if key in _FOREIGN_PARTICLES and self.joined(following + 1):
                following += 1
                key = self.words[following].key
            if following in self.blocked or key.startswith(_ARTICLE):
                break
            if key in self.lexicon.names or key in self.lexicon.foreign_names:
                last = following
            elif last == index and not any(
                is_stop(form, self.lexicon.nationalities) for form, _ in self.forms(following)
            ):
                last = following  # a family name, frequent as it may be ("بوتين", "بوش")
                unlisted += 1
            elif self.unlisted(following, proclitics=True):
                last = following
                unlisted += 1
            else:
                break
        if last == index:
            return None
        return Span(start, self.words[last].end, "PER", FOREIGN_SCORE, SOURCE)

    def lone_nisba(self, index: int) -> bool:
        """Whether word `index` is a nisba that may be a family name alone (`nisbas`)."""
        word = self.words[index]
        key = word.key
        if self._keys is None:
            self._keys = frozenset(other.key for other in self.words)
        return not (
            len(key) < 6
            or not key.startswith(_ARTICLE)
            or not word.written.endswith("\u064a")
            or index in self.blocked
            or not self.unlisted(index)
            or key + _HA in self.lexicon.common_words
            or key + _HA in self._keys
            or _place_adjective(key)
        )

    def nisbas(self) -> list[Span]:
        """Family names that stand alone, a nisba ال…ي no list or frequency table holds
        ("قال الظواهري", "كتب الفارابي"): one of six letters or more, written with ي (not ى:
        "المصلى"), that is no country's adjective, whose feminine (ال…ية) is neither a
        frequent word nor written in the same text (an adjective agrees with its nouns:
        "الضريبي", "الضريبية"), that is no listed place's adjective ("الاسكتلندي":
        `_place_adjective`), and that follows no word with the article (an adjective does:
        "النظام الضريبي"). PER, `NISBA_SCORE`."""
        spans: list[Span] = []
        for index, word in enumerate(self.words):
            if not self.lone_nisba(index):
                continue
            if index and self.joined(index):
                before = self.forms(index - 1, elided=True)
                if any(form.startswith(_ARTICLE) for form, _ in before):
                    continue
            spans.append(Span(word.start, word.end, "PER", NISBA_SCORE, SOURCE))
        return spans

    def find(self) -> list[Span]:
        spans: list[Span] = []
        index = 0
        while index < len(self.words):
            foreign = self.foreign_at(index)
            if foreign is not None:
                spans.append(foreign)
                index = self.within(foreign)[-1] + 1
                continue
            begun = self.start_at(index)
            if begun is None:
                index += 1
                continue
            start, size, complete, first = begun
            last = index + size - 1
            units = 0
            # After a given name that is an everyday word ("أمل كبير"), only a family name
            # or a particle continues it.
            strong = size == 1 and first in _EVERYDAY_NAMES
            while units < MAX_FURTHER_UNITS:
                further = self.further_unit(last + 1, strong and not units)
                if not further:
                    break
                last += further
                units += 1
            if units or complete:
                spans.append(Span(start, self.words[last].end, "PER", NAME_SCORE, SOURCE))
            elif size > 1 or first not in _EVERYDAY_NAMES:
                spans.append(Span(start, self.words[last].end, "PER", LONE_NAME_SCORE, SOURCE))
            index = last + 1
        return spans


# Words that head an organisation's name: a national team, a club, a university, a ministry,
# a company, a party, an association, a hospital, a foundation, an organisation, an
# authority, a bank, a newspaper, an agency, a faculty, an institute, a municipality, a
# union, a federation, a radio, a channel, a magazine, a front, brigades, a league, a forum,
# a court, an academy.
_ORG_HEADS = _folded(
    "منتخب نادي جامعة وزارة شركة حزب جمعية مستشفى مؤسسة منظمة هيئة بنك مصرف صحيفة جريدة وكالة "
    "كلية معهد بلدية نقابة اتحاد إذاعة قناة مجلة جبهة كتائب رابطة منتدى محكمة أكاديمية".split()
)
# Heads as often generic ("مجلس الإدارة" the board, "قوات الأمن" the security forces, "حركة
# المرور" the traffic): a council, a committee, a movement, forces, an army, an authority, a
# centre, an office, a directorate, an organisation, a bloc, an alliance, a coalition. After
# them a word with the article names an organisation only if it is no frequent word.
_WEAK_ORG_HEADS = _folded(
    "مجلس لجنة حركة قوات جيش سلطة مركز مكتب مديرية تنظيم كتلة تحالف ائتلاف".split()
)
MAX_ADJECTIVES = 2

# Words that head a place's name: a city, a village, a town, a camp, a governorate, a state,
# a province, a region, an island, a river, a mountain, a lake, a gulf, a quarter, a street,
# a valley, a plain, a desert, an area, a suburb. The place is the word after them
# ("مدينة طوباس", "مخيم الدهيشة": the head stays, as a pseudonym replaces the name).
_PLACE_HEADS = _folded("مدينة قرية بلدة مخيم محافظة ولاية مقاطعة إقليم منطقة ضاحية حي شارع".split())
# Heads that are part of the name they begin: natural features (a river, a sea, a lake, a
# mountain, mountains, a valley, a gulf, a strait, an island, islands, a desert, an oasis, a
# plateau) and facilities (a mosque, a palace, a castle, a church, a cathedral, a tomb, a
# stadium, an airport, a port, a museum, a square). "نهر النيل", "جبل طارق", "مطار دمشق
# الدولي", "قصر الحمراء": the span holds the head. Not سد (a dam; also "to fill": "سد
# الفراغ"), سهل (a plain; also "easy"), جامع (a mosque; also "collector").
_FEATURE_HEADS = _folded(
    "نهر بحر بحيرة جبل جبال وادي خليج مضيق جزيرة جزر صحراء واحة هضبة مسجد قصر قلعة "
    "كنيسة كاتدرائية ضريح ملعب استاد ستاد مطار ميناء متحف ميدان".split()
)
# Feature heads that no frequent word with the article follows as a name: "في بحر الأسبوع"
# (within the week).
_NO_CONSTRUCT = _folded(["بحر"])
# What may follow a facility's name: "مطار القاهرة الدولي", "المسجد الكبير".
_FEATURE_ADJECTIVES = _folded("الدولي الدولية الكبير الكبرى".split())
# Words that begin a place's name of two words, whatever the second ("بيت لحم", "عين الحلوة",
# "كفر قاسم", "سان فرانسيسكو"): a spring, a house, a monastery, a village, a hill...
_PLACE_STARTS = _folded(
    "عين بيت دير كفر تل خان جسر رأس بئر بير أبو أم بني برج مرج سان سانت سيدي".split()
)
# Heads with the article that name a state with its adjectives: "المملكة الأردنية الهاشمية",
# "الجمهورية اللبنانية", "الدولة الإسلامية" (the head is part of the name).
_STATE_HEADS = _folded("المملكة الجمهورية السلطنة الإمارة الدولة الإمبراطورية الخلافة".split())
PLACE_SCORE = 0.6


class _Places:
    """Places named by a head word: the word after it, or the two after it when the first
    begins such names ("قرية بيت نبالا"), when it is no frequent word, function word or
    adjective (`_People.unlisted`: "مدينة كبيرة", a big city, "منطقة عسكرية", a military
    zone, are none). A head with the article ("المدينة القديمة") is followed by an
    adjective, not a name. A second word without the article or و (and) that is no
    frequent word continues the name ("مخيم نور شمس"). Also a state named by its head and
    adjectives."""

    def __init__(self, people: _People, found: Sequence[Span] = ()) -> None:
        self.people = people
        self.words = people.words
        # Where a listed place or organisation begins: the index of its last word.
        self.entity_end: dict[int, int] = {}
        for span in found:
            covered = people.within(span)
            if covered:
                self.entity_end[covered[0]] = covered[-1]

    def head_at(self, index: int) -> tuple[str, int, bool] | None:
        """The head word at word `index` (after a proclitic or not), where it begins, and
        whether it is part of the name (a natural feature or a facility)."""
        for number, (key, start) in enumerate(self.people.forms(index)):
            if number and len(key) < 3:
                continue
            if key in _FEATURE_HEADS:
                return key, start, True
            if key in _PLACE_HEADS:
                return key, start, False
        return None

    def construct(self, index: int) -> bool:
        """Whether word `index` completes a natural feature's or a facility's name as the
        second term of a construct: a word with the article that is no function word,
        relative adjective of the common kind or country's adjective ("قصر الحمراء"; not
        "جبل الجليدي" or "ملعب المصري")."""
        word = self.words[index]
        return (
            _cues_article(word)
            and len(word.key) > 4
            and word.written not in _FUNCTION_WORDS
            and word.key not in _NOT_FAMILY
            and word.key not in self.people.lexicon.nationalities
            and not self.people.adjective(index, True)
        )

    def feature(self, index: int, start: int, first: int) -> Span | None:
        """A natural feature or a facility whose head at word `index` is followed by a listed
        place or organisation ("نهر النيل", "مطار دمشق الدولي"): the head, the entity, and
        a following "الدولي" or "الكبير"."""
        last = self.entity_end.get(first)
        if last is None:
            return None
        following = last + 1
        if (
            following < len(self.words)
            and self.people.joined(following)
            and self.words[following].key in _FEATURE_ADJECTIVES
        ):
            last = following
        return Span(start, self.words[last].end, "LOC", ENTITY_SCORE, SOURCE)

    def states(self) -> list[Span]:
        """A state named by its head and one to three adjectives ("المملكة المغربية")."""
        spans: list[Span] = []
        people = self.people
        for index in range(len(self.words)):
            forms = people.forms(index, elided=True)
            start = next((at for key, at in forms if key in _STATE_HEADS), None)
            last = index
            while (
                start is not None
                and last - index < 3
                and people.joined(last + 1)
                and last + 1 not in people.blocked
                and people.adjective(last + 1, True)
            ):
                last += 1
            if start is not None and last > index:
                spans.append(Span(start, self.words[last].end, "LOC", ENTITY_SCORE, SOURCE))
        return spans

    def find(self) -> list[Span]:
        spans: list[Span] = self.states()
        people = self.people
        for index in range(len(self.words) - 1):
            head = self.head_at(index)
            first = index + 1
            if head is None or not people.joined(first):
                continue
            _, head_start, part = head
            if first in people.blocked:
                named = self.feature(index, head_start, first) if part else None
                if named is not None:
                    spans.append(named)
                continue
            key = self.words[first].key
            if key in _PLACE_STARTS and people.joined(first + 1):
                following = self.words[first + 1]
                if following.written in _FUNCTION_WORDS or first + 1 in people.blocked:
                    continue
                last = first + 1
            elif part and head[0] not in _NO_CONSTRUCT and self.construct(first):
                last = first  # "قصر الحمراء", "وادي الملوك": frequent words name them too
            elif people.unlisted(first) and not (part and key in _EVERYDAY_NAMES):
                last = first
                if (
                    not key.startswith(_ARTICLE)
                    and people.joined(last + 1)
                    and people.unlisted(last + 1)
                    and not self.words[last + 1].key.startswith((_ARTICLE, "و"))
                ):
                    last += 1
            else:
                continue
            begin = head_start if part else self.words[first].start
            spans.append(Span(begin, self.words[last].end, "LOC", PLACE_SCORE, SOURCE))
        return spans


class _Organisations:
    """Organisations named by a head word and what follows it (see the module docstring),
    over the words `_People` read."""

    def __init__(self, people: _People, found: Sequence[Span]) -> None:
        self.people = people
        self.words = people.words
        # Where a listed place or organisation, or a person's name, begins: its end.
        self.ends_at: dict[int, int] = {}
        for span in found:
            self.ends_at[span.start] = max(span.end, self.ends_at.get(span.start, 0))
        self.word_ending = {word.end: index for index, word in enumerate(self.words)}

    def head_at(self, index: int) -> tuple[int, bool, bool] | None:
        """Where a head word begins in word `index` (after a proclitic), whether it has the
        article (written, or elided after ل: "للمنتخب"), and whether it is a weak head."""
        for number, (key, start) in enumerate(self.people.forms(index, elided=True)):
            if number and len(key) < 3:
                continue  # a proclitic leaves at least three letters of a head
            article = key.startswith(_ARTICLE)
            bare = key[len(_ARTICLE) :] if article else key
            if bare in _ORG_HEADS or bare in _WEAK_ORG_HEADS:
                return start, article, bare in _WEAK_ORG_HEADS
        return None

    def follows(self, index: int, article: bool, weak: bool = False) -> int | None:
        """The last word of what names the organisation from word `index` on, if anything:
        a listed place, organisation or name, an adjective, or, after a head without the
        article, a word with it (after a weak head, one no list or frequency table holds:
        "مجلس الإدارة" is no organisation) or a word no list or frequency table holds
        ("جامعة بيرزيت")."""
        if index >= len(self.words) or not self.people.joined(index):
            return None
        word = self.words[index]
        end = self.ends_at.get(word.start)
        if end is not None and end in self.word_ending:
            return self.word_ending[end]
        if self.people.adjective(index, article):
            return index
        if (
            not article
            and word.key.startswith(_ARTICLE)
            and len(word.key) > 3
            and word.written not in _FUNCTION_WORDS
            and word.key not in _NOT_FAMILY
            and (not weak or self.people.unlisted(index))
        ):
            return index  # a construct: "وزارة الصحة"
        if not article and self.people.unlisted(index):
            return index  # a name: "جامعة بيرزيت"
        return None

    def find(self) -> list[Span]:
        spans: list[Span] = []
        for index in range(len(self.words)):
            head = self.head_at(index)
            if head is None:
                continue
            start, article, weak = head
            last = self.follows(index + 1, article, weak)
            if last is None:
                continue
            for _ in range(MAX_ADJECTIVES):
                following = last + 1
                if following >= len(self.words) or not self.people.joined(following):
                    break
                if not self.people.adjective(following, True):
                    break
                last = following
            spans.append(Span(start, self.words[last].end, "ORG", ENTITY_SCORE, SOURCE))
        return spans


ECHO_SCORE = 0.5


class _Echoes:
    """A person's name found once, found again in the same text: the whole name wherever it
    is written again ("كوفي أنان", after a title the first time), and its last word alone
    ("أنان", "أينشتاين"), as a text names a person by surname after introducing them. Not a
    last word that is a function word, an everyday given name, a word of two letters, or a
    frequent word when only a verb of saying announced the name (the least sure cue: a
    title or a list vouches for "بوش" or "بلير", frequent as they are). Each word may carry
    a proclitic ("وأنان"). PER, score 0.5, in the gaps the other spans left."""

    def __init__(self, people: _People, found: Sequence[Span]) -> None:
        self.people = people
        self.words = people.words
        self.found = found
        self.covered = frozenset(index for span in found for index in people.within(span))

    def names(self) -> tuple[set[tuple[str, ...]], set[str]]:
        """The folded words of each found multi-word name, and the last words to echo."""
        people = self.people
        common = people.lexicon.common_words
        wholes: set[tuple[str, ...]] = set()
        lasts: set[str] = set()
        for span in self.found:
            words = [self.words[index] for index in people.within(span)]
            if span.label != "PER" or len(words) < 2:
                continue
            wholes.add(tuple(word.key for word in words))
            last = words[-1].key
            if (
                len(last) >= 3
                and words[-1].written not in _FUNCTION_WORDS
                and last not in _EVERYDAY_NAMES
                and last not in _JOINING_PARTICLES
                and (last not in common or (span.score or 0) > ECHO_SCORE)
            ):
                lasts.add(last)
        return wholes, lasts

    def find(self) -> list[Span]:
        found, lasts = self.names()
        if not lasts and not found:
            return []
        wholes = sorted(found, key=len, reverse=True)  # the longest name first
        spans: list[Span] = []
        people = self.people
        index = 0
        while index < len(self.words):
            if index in self.covered or index in people.blocked:
                index += 1
                continue
            forms = [
                (key, at) for number, (key, at) in enumerate(people.forms(index))
                if number == 0 or len(key) >= 3
            ]  # fmt: skip
            match = None
            for whole in wholes:
                size = len(whole)
                start = next((at for key, at in forms if key == whole[0]), None)
                if (
                    start is not None
                    and index + size <= len(self.words)
                    and all(people.joined(index + step) for step in range(1, size))
                    and all(index + step not in self.covered for step in range(1, size))
                    and tuple(w.key for w in self.words[index + 1 : index + size]) == whole[1:]
                ):
                    match = (start, index + size - 1)
                    break
            if match is None:
                start = next((at for key, at in forms if key in lasts), None)
                if start is not None:
                    match = (start, index)
            if match is None:
                index += 1
                continue
            start, last = match
            spans.append(Span(start, self.words[last].end, "PER", ECHO_SCORE, SOURCE))
            index = last + 1
        return spans


def _nisba_of(text: str, span: Span) -> bool:
    """Whether a listed place ending in ي or ى is matched inside a nisba, after the article
    of the same word: "البخاري" (al-Bukhari) is no ال + "بخارى" (Bukhara)."""
    return (
        span.start >= 2
        and text[span.start - 2 : span.start] == _ARTICLE
        and fold(text[span.end - 1 : span.end]) == "\u064a"
    )


def _is_arabic(language: str) -> bool:
    return re.split("[-_]", language.strip().lower(), maxsplit=1)[0] in LANGUAGES


class ArabicLexiconRecognizer(PatternRecognizer):
    """People, places and organisations in Arabic texts, from the shipped lists (source
    "regex"). Other languages get no spans. The lists load on the first Arabic text, once
    per process; building the recognizer costs nothing.

    Raises `RecognizerError` when pyahocorasick (the known-entity matcher's) or a list is
    missing: `recognize_all` then records it under "lexicon" and the other recognizers run.
    """

    name = "lexicon"
    # Its spans depend on the language it is told: an Arabic stretch of an English document
    # is read again as Arabic (`pseudonymizer.scripts.OtherScripts`).
    reads_language = True

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        if not _is_arabic(language):
            return [[] for _ in texts]
        return [self.recognize_one(text) for text in texts]

    def recognize_one(self, text: str) -> list[Span]:
        """The spans of one Arabic text, sorted, without overlaps."""
        if not text:
            return []
        entities = [
            replace(span, score=ENTITY_SCORE, source=SOURCE)
            for span in _entity_matcher().recognize_one(text)
            if not _nisba_of(text, span)
        ]
        lexicon = arabic_lexicon()
        reader = _People(text, lexicon, entities)
        people = reader.find()
        organisations = _Organisations(reader, [*entities, *people]).find()
        places = _Places(reader, entities).find()
        cued = [
            Span(start, end, "PER", score, SOURCE)
            for start, end, score in cued_names(
                text, reader.words, reader.joined, adjectives=lexicon.nationalities,
                names=lexicon.names, blocked=reader.blocked,
                unknown=lambda index: reader.unlisted(index, proclitics=True),
                nisba=reader.lone_nisba,
            )
        ]  # fmt: skip
        # The longer span wins; on a tie a listed place or organisation beats one named by
        # its head word, which beats a listed name, which beats a place named by its head
        # word, which beats a name a cue announces, which beats a lone nisba.
        ranked = (
            [(span, 0) for span in entities]
            + [(span, 1) for span in organisations]
            + [(span, 2) for span in people]
            + [(span, 3) for span in places]
            + [(span, 4) for span in cued]
            + [(span, 5) for span in reader.nisbas()]
        )
        order = {id(span): rank for span, rank in ranked}
        chosen = select_non_overlapping(
            [span for span, _ in ranked],
            lambda span: (span.start - span.end, order[id(span)], span.start),
        )
        echoes = _Echoes(reader, chosen).find()
        if not echoes:
            return chosen
        return sorted([*chosen, *echoes], key=lambda span: (span.start, span.end))
