"""People's names, drawn from Faker in the right locale, in the original's shape.

`person_generator(original, language, draws)` reads a name once (tokens, titles and
particles kept, first name or surname, gender, compound Arabic names, script,
capitalisation) and returns a function that draws one candidate per call from the run's
private random sources. `NameSource`, the drawing of one first name or surname under shape
constraints, and the reading of a token (`token_slot`) serve places and handles too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pseudonymizer.folding import ARABIC_ARTICLE
from pseudonymizer.pseudonyms.determinism import Draws, Generator
from pseudonymizer.pseudonyms.locales import (
    gender_of,
    is_first_name,
    is_last_name,
    lexicon,
    locale_for_script,
    lookup_locales,
    register_locale,
)
from pseudonymizer.pseudonyms.shape import (
    apply_case,
    case_of,
    has_marks,
    join_whitespace,
    lookup_key,
    lookup_keys,
    random_letter,
    script_of,
    split_affixes,
    split_whitespace,
    strip_marks,
    to_ascii,
)

# Draws from Faker before a name that must fit a shape is looked for in the lists instead.
DRAW_TRIES = 25


# Titles and honorifics stay as they are; some tell the person's gender.
_TITLES_FEMALE = lookup_keys(
    """
    mrs ms miss mme mlle madame mademoiselle lady dame sister soeur sœur sr mother mere
    السيدة الانسة الآنسة الدكتورة الاستاذة الأستاذة المهندسة الحاجة ام أم
    """.split()
)
_TITLES_MALE = lookup_keys(
    """
    mr m monsieur sir lord brother frere father pere abbe fr السيد الشيخ شيخ الاستاذ الأستاذ
    الدكتور المهندس الحاج حاج الامام الإمام ابو أبو ابي أبي
    """.split()
)
_TITLES_NEUTRAL = lookup_keys(
    """
    dr doctor docteur prof professor professeur pr me maitre rev mx capt captain col gen lt
    sgt st saint sainte mgr jr sr ii iii iv د دكتور أستاذ استاذ م
    """.split()
)
_TITLES = _TITLES_FEMALE | _TITLES_MALE | _TITLES_NEUTRAL
# After these the next name is a father's or a son's first name: a male first name.
_PATRONYMIC = lookup_keys(
    """
    بن ابن بنت أبو ابو أبي ابي أم ام bin ben ibn bint ould abu abou umm oum
    """.split()
)
# Nobiliary and family particles, kept inside a name (not as its first or last word).
_PARTICLES = lookup_keys(
    """
    de du des da di del della dos das van von der den ten ter le la y e al el آل
    """.split()
)
# The article of an Arabic name written in Latin letters with a hyphen: Al-Assad, El-Amrani.
_LATIN_ARTICLES = {"al", "el", "ul", "ad", "ar", "as", "at", "az", "an", "ash", "ech", "es"}
_ABD = "عبد"
_DIN = "الدين"


def _core_key(core: str) -> str:
    return lookup_key(core).rstrip(".")


@dataclass
class NameSource:
    """Draws names of one locale from the run's Faker, under shape constraints."""

    draws: Draws
    locale: str
    keep_marks: bool = False
    ascii_only: bool = False

    def clean(self, name: str) -> str:
        name = name.strip()
        if not self.keep_marks:
            name = strip_marks(name)
        if self.ascii_only:
            name = to_ascii(name)
        return name

    def _pick(
        self,
        produce: Callable[[], str],
        pool: tuple[str, ...],
        ok: Callable[[str], bool],
        relaxed: Callable[[str], bool],
    ) -> str:
        for _ in range(DRAW_TRIES):
            name = self.clean(produce())
            if ok(name):
                return name
        cleaned = [self.clean(name) for name in pool]
        for test in (ok, relaxed):
            candidates = [name for name in cleaned if test(name)]
            if candidates:
                return self.draws.random.choice(candidates)
        words = self.clean(produce()).split()
        return words[0] if words else "X"

    def first(
        self,
        gender: str | None,
        *,
        avoid: str = "",
        tokens: int = 1,
        pattern: Callable[[str], bool] | None = None,
        length: int | None = None,
    ) -> str:
        """A first name of `gender` (either when None) with `tokens` words, never `avoid`."""
        faker = self.draws.faker(self.locale)
        if gender is None:
            gender = self.draws.random.choice(("female", "male"))
        if gender == "female":
            produce, pool = faker.first_name_female, lexicon(self.locale).female_names
        else:
            produce, pool = faker.first_name_male, lexicon(self.locale).male_names

        def relaxed(name: str) -> bool:
            return (
                bool(name)
                and len(name.split()) == tokens
                and (tokens > 1 or "-" not in name)
                and lookup_key(name) != lookup_key(avoid)
                and (pattern is None or pattern(name))
            )

        def ok(name: str) -> bool:
            return relaxed(name) and (length is None or abs(len(name) - length) <= 2)

        return self._pick(produce, pool, ok, relaxed)

    def last(
        self,
        gender: str | None = None,
        *,
        avoid: str = "",
        al: bool | None = None,
        length: int | None = None,
    ) -> str:
        """A one-word surname (with or without the Arabic article when `al` says), never `avoid`."""
        faker = self.draws.faker(self.locale)
        produce = faker.last_name
        if gender == "female":
            produce = faker.last_name_female
        elif gender == "male":
            produce = faker.last_name_male

        def relaxed(name: str) -> bool:
            return (
                bool(name)
                and " " not in name
                and "-" not in name
                and lookup_key(name) != lookup_key(avoid)
            )

        def ok(name: str) -> bool:
            return (
                relaxed(name)
                and (al is None or name.startswith(ARABIC_ARTICLE) == al)
                and (length is None or abs(len(name) - length) <= 2)
            )

        return self._pick(produce, lexicon(self.locale).last_names, ok, relaxed)


@dataclass
class Part:
    """One piece of a token between hyphens (or after an elided d'/l'), kept or replaced."""

    text: str
    keep: bool = False


@dataclass
class Slot:
    """One token of the original (or two, for an Arabic compound first name) and its role."""

    start: int
    stop: int
    kind: str  # "keep" | "initial" | "name" | "number" | "acronym"
    prefix: str = ""
    suffix: str = ""
    parts: list[Part] = field(default_factory=list)
    role: str = "first"  # "first" | "last" | "place" | "street" (until a street's run is read)
    gender: str | None = None
    script: str | None = None
    compound: str | None = None  # "abd" | "din"


def _name_parts(core: str) -> list[Part]:
    pieces = core.split("-")
    if len(pieces) > 1 and all(pieces):
        return [
            Part(piece, keep=index < len(pieces) - 1 and lookup_key(piece) in _LATIN_ARTICLES)
            for index, piece in enumerate(pieces)
        ]
    return [Part(core)]


def token_slot(tokens: list[str], index: int) -> Slot:
    prefix, core, suffix = split_affixes(tokens[index])
    slot = Slot(index, index + 1, "name", prefix, suffix, _name_parts(core))
    slot.script = script_of(core)
    if not core or slot.script is None:
        slot.kind = "keep"
    return slot


class _Person:
    """The shape of a person's name, read once, and the drawing of candidates in that shape."""

    def __init__(self, original: str, language: str, draws: Draws) -> None:
        self.draws = draws
        self.language = language
        self.tokens, self.separators = split_whitespace(original)
        self.slots = self._read()
        self._assign_roles()
        self.sources = self._sources()

    def _read(self) -> list[Slot]:
        tokens = self.tokens
        slots: list[Slot] = []
        index = 0
        while index < len(tokens):
            slot = token_slot(tokens, index)
            key = _core_key("-".join(part.text for part in slot.parts))
            following = index + 1 < len(tokens)
            # "M." is a title, "M" an initial; a particle inside a name, a first word not.
            title = (
                key in _TITLES
                and len(tokens) > 1
                and not (slot.script == "Latn" and len(key) == 1 and not slot.suffix)
            )
            particle = (key in _PATRONYMIC and following) or (
                key in _PARTICLES and 0 < index < len(tokens) - 1
            )
            if slot.kind == "keep":
                pass
            elif title or particle:
                slot.kind = "keep"
            elif len(strip_marks(slot.parts[0].text)) == 1 and len(slot.parts) == 1:
                slot.kind = "initial"
            elif slot.script == "Arab" and strip_marks(slot.parts[0].text) == _ABD and following:
                slot.stop, slot.compound = index + 2, "abd"
            elif (
                slot.script == "Arab"
                and following
                and strip_marks(split_affixes(tokens[index + 1])[1]) == _DIN
            ):
                slot.stop, slot.compound = index + 2, "din"
            slots.append(slot)
            index = slot.stop
        if not any(slot.kind in ("name", "initial") for slot in slots):
            # Only titles and particles: the last of them is the name after all ("Ben").
            for slot in reversed(slots):
                if slot.script is not None:
                    slot.kind = "name"
                    break
        return slots

    def _title_gender(self) -> str | None:
        for slot in self.slots:
            if slot.kind != "keep" or not slot.parts:
                continue
            key = _core_key(slot.parts[0].text)
            if key in _TITLES_FEMALE:
                return "female"
            if key in _TITLES_MALE:
                return "male"
        return None

    def _assign_roles(self) -> None:
        names = [slot for slot in self.slots if slot.kind == "name"]
        initials_before = False
        for position, slot in enumerate(self.slots):
            if slot.kind == "initial":
                initials_before = True
            if slot.kind != "name":
                continue
            previous = self.slots[position - 1] if position > 0 else None
            after_patronymic = (
                previous is not None
                and previous.kind == "keep"
                and bool(previous.parts)
                and _core_key(previous.parts[0].text) in _PATRONYMIC
            )
            text = slot.parts[-1].text if slot.parts else ""
            locales = lookup_locales(locale_for_script(slot.script, self.language))
            if slot.compound or after_patronymic:
                slot.role, slot.gender = "first", "male"
            elif slot is names[-1] and (len(names) > 1 or initials_before):
                slot.role = "last"
            elif any(part.keep for part in slot.parts):
                slot.role = "last"  # Al-Assad, El-Amrani: a family name
            elif len(names) == 1:
                known_first = is_first_name(slot.parts[0].text, locales)
                slot.role = "last" if not known_first and is_last_name(text, locales) else "first"
            else:
                slot.role = "first"
            if slot.role == "first" and slot.gender is None:
                slot.gender = gender_of(slot.parts[0].text, locales)
        person = self._title_gender() or next(
            (slot.gender for slot in names if slot.role == "first" and slot.gender), None
        )
        self.gender = person
        for slot in names:
            if slot.gender is None and slot.role == "first":
                slot.gender = person

    def _sources(self) -> dict[str | None, NameSource]:
        names = [slot for slot in self.slots if slot.kind == "name"]
        sources: dict[str | None, NameSource] = {}
        for script in {slot.script for slot in names}:
            locale = locale_for_script(script, self.language)
            if script == "Latn":
                first = next((s.parts[0].text for s in names if s.role == "first"), None)
                last = next((s.parts[-1].text for s in names if s.role == "last"), None)
                locale = register_locale(first, last, locale)
            keep_marks = any(has_marks(self.tokens[s.start]) for s in names if s.script == script)
            sources[script] = NameSource(self.draws, locale, keep_marks=keep_marks)
        return sources

    def _draw_slot(self, slot: Slot, gender: str | None) -> list[str]:
        source = self.sources[slot.script]
        if slot.compound:
            original = " ".join(
                strip_marks(split_affixes(self.tokens[i])[1]) for i in range(slot.start, slot.stop)
            )
            if slot.compound == "abd":

                def pattern(name: str) -> bool:
                    return name.split()[0] == _ABD

            else:

                def pattern(name: str) -> bool:
                    return name.split()[-1] == _DIN

            drawn = source.first("male", avoid=original, tokens=2, pattern=pattern).split()
            first_prefix = split_affixes(self.tokens[slot.start])[0]
            last_suffix = split_affixes(self.tokens[slot.stop - 1])[2]
            return [first_prefix + drawn[0], drawn[1] + last_suffix]
        out: list[str] = []
        for part in slot.parts:
            if part.keep:
                out.append(part.text)
                continue
            al = (
                strip_marks(part.text).startswith(ARABIC_ARTICLE) if slot.script == "Arab" else None
            )
            if slot.role == "last":
                name = source.last(gender, avoid=part.text, al=al)
            else:
                name = source.first(slot.gender or gender, avoid=part.text)
            out.append(apply_case(case_of(part.text), name))
        return [slot.prefix + "-".join(out) + slot.suffix]

    def __call__(self) -> str:
        rng = self.draws.random
        tokens = list(self.tokens)
        gender = self.gender or rng.choice(("female", "male"))
        for slot in self.slots:
            if slot.kind == "keep":
                continue
            if slot.kind == "initial":
                letter = slot.parts[0].text
                new = random_letter(rng, letter, avoid=letter)
                tokens[slot.start] = slot.prefix + new + slot.suffix
                continue
            drawn = self._draw_slot(slot, gender if slot.gender is None else slot.gender)
            tokens[slot.start : slot.stop] = drawn
        return join_whitespace(tokens, self.separators)


def person_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for a person's name: same tokens, titles and particles kept, first names of
    the same gender when Faker's lists tell it, surnames, initials for initials."""
    return _Person(original, language, draws)
