"""People, places, organisations and street addresses, drawn from Faker in the right locale.

Each `*_generator(original, language, draws)` reads the original's shape once (tokens, titles
and particles kept, first name or surname, gender, script, capitalisation) and returns a
function that draws one candidate per call from the run's private random sources.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pseudonymizer.pseudonyms.determinism import Draws, Generator
from pseudonymizer.pseudonyms.locales import (
    gender_of,
    is_first_name,
    is_last_name,
    lexicon,
    locale_for_script,
    lookup_locales,
    place_locale,
    register_locale,
)
from pseudonymizer.pseudonyms.shape import (
    Case,
    apply_case,
    case_of,
    has_marks,
    join_whitespace,
    lookup_key,
    lookup_keys,
    random_letter,
    random_letters,
    replace_digits,
    script_of,
    split_affixes,
    split_whitespace,
    strip_marks,
    to_ascii,
)

_DRAW_TRIES = 25


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
_AL = "ال"

_FUNCTION_WORDS = lookup_keys(
    """
    de du des d la le les l et en à a au aux sur sous lès lez of the on at and in by for
    upon y del di da van von der den am an im bei & + - – في و على من
    """.split()
)
_PREPOSITIONS = lookup_keys("de du des d of in at à a en von di da في".split())

_STREET_WORDS = lookup_keys(
    """
    rue r avenue av ave boulevard bd bld bvd impasse imp chemin ch che place pl allee all
    quai cours crs route rte square sq passage pass voie sentier rond-point residence res
    cite lotissement lot hameau ham lieu-dit faubourg fg esplanade parvis promenade montee
    ruelle venelle villa zone za zi bis ter bat batiment escalier etage appartement apt bp
    cedex street st road rd lane ln drive dr court ct way close crescent cres terrace tce
    blvd highway hwy parkway pkwy circle cir trail trl row mews gardens gdns grove hill park
    walk alley broadway expressway freeway plaza point pike suite ste unit flat apartment
    floor po box north south east west n s e w ne nw se sw strasse straße str weg platz
    gasse ring damm ufer via viale piazza corso vicolo largo calle c avenida avda paseo
    camino carrera rua travessa praca estrada ulica ul aleja al plac osiedle os شارع زنقة
    نهج طريق حي درب ساحة جادة ممر دوار بلدية زقاق عمارة شقة مبنى بناية الطابق حارة ميدان
    تقاطع منطقة مدينة
    """.split()
)

_PLACE_WORDS = lookup_keys(
    """
    gare nord sud est ouest station airport aeroport aéroport pont bridge parc park place
    square centre center port porte rive bois forêt foret plage cap
    saint sainte st ste san santa santo sao port mount mont mt lake lac new north south east
    west upper lower great little grand petit petite vieux bad sur sous les lès en city
    county district heights village bay beach island isle valley springs falls ville
    quartier arrondissement canton حي مدينة قرية منطقة ولاية محافظة جبل وادي بلدة مخيم جزيرة
    """.split()
)

_ORG_WORDS = lookup_keys(
    """
    university college school high academy institute hospital clinic bank church mosque
    temple synagogue association club group team company co corp corporation inc ltd llc plc
    llp foundation trust society union league party council committee centre center
    department ministry agency office services solutions industries partners holdings
    international national media news store shop market restaurant cafe bakery hotel studio
    gym fc sa ag gmbh students student community federation network movement brothers sons
    family friends youth memorial primary elementary middle secondary state city county
    general medical université universite lycée lycee collège école ecole institut hôpital
    hopital clinique banque église eglise mosquée mosquee amicale fédération syndicat parti
    conseil comité comite ministère ministere agence société societe entreprise groupe
    cabinet boulangerie pâtisserie patisserie boucherie épicerie epicerie pharmacie
    librairie garage café bar brasserie hôtel fils frères freres père cie sarl sas sasu eurl
    sci étudiants etudiants jeunes collectif maison fondation mutuelle coopérative
    cooperative cercle mouvement mairie préfecture prefecture tabac presse جامعة كلية مدرسة
    معهد مستشفى مستوصف عيادة بنك مصرف مسجد جامع كنيسة جمعية نادي حزب اتحاد منظمة مجموعة مركز
    مجلس وزارة هيئة لجنة شركة مؤسسة مكتبة مطعم مخبز مقهى فندق صيدلية جريدة قناة رابطة حركة
    تجمع طلاب شباب دار بيت وأولاده وشركاه وأبناؤه وإخوانه saint sainte st ste notre dame
    daughters sisters associates collective filles soeurs sœurs cousins
    """.split()
)


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
        for _ in range(_DRAW_TRIES):
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
                and (al is None or name.startswith(_AL) == al)
                and (length is None or abs(len(name) - length) <= 2)
            )

        return self._pick(produce, lexicon(self.locale).last_names, ok, relaxed)


@dataclass
class _Part:
    """One piece of a token between hyphens (or after an elided d'/l'), kept or replaced."""

    text: str
    keep: bool = False


@dataclass
class _Slot:
    """One token of the original (or two, for an Arabic compound first name) and its role."""

    start: int
    stop: int
    kind: str  # "keep" | "initial" | "name" | "number" | "acronym"
    prefix: str = ""
    suffix: str = ""
    parts: list[_Part] = field(default_factory=list)
    role: str = "first"  # "first" | "last" | "place" | "street" (until a street's run is read)
    gender: str | None = None
    script: str | None = None
    compound: str | None = None  # "abd" | "din"


def _name_parts(core: str) -> list[_Part]:
    pieces = core.split("-")
    if len(pieces) > 1 and all(pieces):
        return [
            _Part(piece, keep=index < len(pieces) - 1 and lookup_key(piece) in _LATIN_ARTICLES)
            for index, piece in enumerate(pieces)
        ]
    return [_Part(core)]


def _token_slot(tokens: list[str], index: int) -> _Slot:
    prefix, core, suffix = split_affixes(tokens[index])
    slot = _Slot(index, index + 1, "name", prefix, suffix, _name_parts(core))
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

    def _read(self) -> list[_Slot]:
        tokens = self.tokens
        slots: list[_Slot] = []
        index = 0
        while index < len(tokens):
            slot = _token_slot(tokens, index)
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

    def _draw_slot(self, slot: _Slot, gender: str | None) -> list[str]:
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
            al = strip_marks(part.text).startswith(_AL) if slot.script == "Arab" else None
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


class _Composed:
    """Places, addresses and organisations: the original's words kept or replaced one by one."""

    def __init__(self, original: str, language: str, draws: Draws, kind: str, label: str) -> None:
        self.draws = draws
        self.kind = kind
        self.label = label
        self.tokens, self.separators = split_whitespace(original)
        self.script = script_of(original)
        self.locale = locale_for_script(self.script, language)
        self.place_locale = place_locale(self.locale)
        keep_marks = has_marks(original)
        self.slots = self._read()
        # "Rue Alphonse Metayer" in an English post: the street's names are French ones.
        named = [slot for slot in self.slots if slot.kind == "name" and slot.role != "place"]
        first = next((s.parts[0].text for s in named if s.role == "first"), None)
        last = next((s.parts[-1].text for s in named if s.role == "last"), None)
        locale = register_locale(first, last, self.locale) if self.script == "Latn" else self.locale
        self.names = NameSource(draws, locale, keep_marks=keep_marks)
        if locale != self.locale:
            self.place_locale = place_locale(locale)

    def _keep_words(self) -> frozenset[str]:
        if self.kind == "address":
            return _STREET_WORDS | _FUNCTION_WORDS
        if self.kind == "place":
            return _PLACE_WORDS | _FUNCTION_WORDS
        return _ORG_WORDS | _FUNCTION_WORDS

    def _read(self) -> list[_Slot]:
        keep_words = self._keep_words()
        # "Centre hospitalier de X": in a name written with capitals, a word in lower case is
        # a common word, not part of the name.
        capitalised = any(case_of(token) in (Case.TITLE, Case.UPPER) for token in self.tokens)
        slots: list[_Slot] = []
        segment = 0
        after_preposition = False
        for index, token in enumerate(self.tokens):
            slot = _token_slot(self.tokens, index)
            core = "-".join(part.text for part in slot.parts)
            if any(char.isdecimal() for char in token):
                slot.kind = "number"
            elif slot.kind != "keep":
                parts = []
                for part in slot.parts:
                    elision = re.match(r"^([dlDL]['’])(.+)$", part.text)
                    if elision:
                        parts.append(_Part(elision.group(1), keep=True))
                        part = _Part(elision.group(2), part.keep)
                    common = (
                        capitalised
                        and index > 0
                        and slot.script == "Latn"
                        and case_of(part.text) is Case.LOWER
                        and len(part.text) > 3
                    )
                    if common or lookup_key(part.text).rstrip(".") in keep_words:
                        part = _Part(part.text, keep=True)
                    parts.append(part)
                slot.parts = parts
                if all(part.keep for part in parts):
                    slot.kind = "keep"
            if slot.kind == "name":
                if self.kind == "address":
                    slot.role = "place" if segment > 0 else "street"
                elif self.kind == "place":
                    slot.role = "place"
                else:
                    slot.role = "place" if after_preposition else "last"
                    if self._is_acronym(core):
                        slot.kind = "acronym"
            after_preposition = lookup_key(core) in _PREPOSITIONS or core.lower().endswith(
                ("d'", "d’")
            )
            if token.endswith((",", "،")):
                segment += 1
            slots.append(slot)
        if not any(slot.kind in ("name", "number", "acronym") for slot in slots):
            for slot in reversed(slots):
                if slot.script is not None:
                    slot.kind = "name"
                    slot.parts = [_Part(part.text) for part in slot.parts]
                    slot.role = "place" if self.kind != "org" else "last"
                    break
        self._street_roles(slots)
        return slots

    @staticmethod
    def _is_acronym(core: str) -> bool:
        return 2 <= len(core) <= 6 and core.isalpha() and core.isupper() and core.isascii()

    def _street_roles(self, slots: list[_Slot]) -> None:
        """In a street name, a run of two names or more reads as first name + surname."""
        run: list[_Slot] = []
        for slot in [*slots, None]:
            if slot is not None and slot.kind == "name" and slot.role == "street":
                run.append(slot)
                continue
            for position, member in enumerate(run):
                member.role = "first" if position < len(run) - 1 else "last"
                if member.role == "first":
                    locales = lookup_locales(self.locale)
                    member.gender = gender_of(member.parts[0].text, locales)
            run = []

    def _place_word(self, original: str) -> str:
        """A one-word place name, with the original's Arabic article or without."""
        faker = self.draws.faker(self.place_locale)
        al = strip_marks(original).startswith(_AL) if self.script == "Arab" else None
        for _ in range(_DRAW_TRIES):
            name = self.names.clean(faker.city())
            if (
                name
                and " " not in name
                and "-" not in name
                and lookup_key(name) != lookup_key(original)
                and script_of(name) == script_of(original)
                and (al is None or name.startswith(_AL) == al)
            ):
                return name
        return self.names.last(avoid=original, al=al)

    def _whole_place(self) -> str | None:
        """A place drawn whole from Faker, when it has the original's exact shape."""
        faker = self.draws.faker(self.place_locale)
        produce = faker.city
        if self.label.endswith("COUNTRY"):
            produce = faker.country
        elif self.label.endswith("STATE") and hasattr(faker, "administrative_unit"):
            produce = faker.administrative_unit
        shape = [len(token.split("-")) for token in self.tokens]
        originals = {lookup_key(part.text) for slot in self.slots for part in slot.parts}
        for _ in range(_DRAW_TRIES):
            name = self.names.clean(produce())
            tokens = name.split()
            if (
                [len(token.split("-")) for token in tokens] == shape
                and script_of(name) == self.script
                and not any(lookup_key(piece) in originals for piece in re.split(r"[\s-]+", name))
            ):
                if self.script == "Arab":
                    wants = [strip_marks(token).startswith(_AL) for token in self.tokens]
                    if [token.startswith(_AL) for token in tokens] != wants:
                        continue
                cased = [
                    "-".join(
                        apply_case(case_of(old), new)
                        for old, new in zip(before.split("-"), after.split("-"), strict=True)
                    )
                    for before, after in zip(self.tokens, tokens, strict=True)
                ]
                return join_whitespace(
                    [
                        prefix + new + suffix
                        for (prefix, _core, suffix), new in zip(
                            map(split_affixes, self.tokens), cased, strict=True
                        )
                    ],
                    self.separators,
                )
        return None

    def _replace_part(self, slot: _Slot, part: _Part, gender: str | None) -> str:
        al = strip_marks(part.text).startswith(_AL) if self.script == "Arab" else None
        if slot.role == "place":
            name = self._place_word(part.text)
        elif slot.role == "first":
            name = self.names.first(slot.gender or gender, avoid=part.text)
        elif self.kind == "org" and self.draws.random.random() < 0.3:
            name = self._place_word(part.text)
        else:
            name = self.names.last(avoid=part.text, al=al)
        return apply_case(case_of(part.text), name)

    def __call__(self) -> str:
        rng = self.draws.random
        if self.kind == "place" and not any(
            part.keep for slot in self.slots for part in slot.parts
        ):
            whole = self._whole_place()
            if whole is not None:
                return whole
        gender = rng.choice(("female", "male"))
        tokens = list(self.tokens)
        for slot in self.slots:
            token = self.tokens[slot.start]
            if slot.kind == "keep":
                continue
            if slot.kind == "number":
                tokens[slot.start] = _renumber(rng, token)
            elif slot.kind == "acronym":
                core = "-".join(part.text for part in slot.parts)
                tokens[slot.start] = slot.prefix + random_letters(rng, core) + slot.suffix
            else:
                new = [
                    part.text if part.keep else self._replace_part(slot, part, gender)
                    for part in slot.parts
                ]
                joined = ""
                for text in new:
                    joined += text if (not joined or joined.endswith(("'", "’"))) else "-" + text
                tokens[slot.start] = slot.prefix + joined + slot.suffix
        return join_whitespace(tokens, self.separators)


_KEPT_LETTER_SUFFIXES = {"bis", "ter", "quater", "a", "b", "c", "d", "th", "st", "nd", "rd", "er"}


def _renumber(rng: random.Random, token: str) -> str:
    """House numbers, postcodes and flat numbers: digits replaced, short suffixes kept."""
    out = []
    for piece in re.findall(r"\d+|[^\W\d_]+|.", token):
        if piece[0].isdecimal():
            out.append(replace_digits(rng, piece, year=False))
        elif piece.isalpha() and lookup_key(piece) not in _KEPT_LETTER_SUFFIXES:
            out.append(random_letters(rng, piece))
        else:
            out.append(piece)
    return "".join(out)


def place_generator(original: str, language: str, draws: Draws, label: str = "LOC") -> Generator:
    """Candidates for a place: a Faker city (country, state) of the same shape, or the
    original's words replaced one by one, generic words such as Saint or حي kept."""
    return _Composed(original, language, draws, "place", label.upper())


def address_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for a street address: street type words kept, house numbers and postcodes
    renumbered in the same shape, the street's name replaced by names, the town by a town."""
    return _Composed(original, language, draws, "address", "ADDRESS")


def organisation_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for an organisation: generic words (University, Boulangerie, جامعة) and legal
    forms kept, acronyms re-lettered, names replaced by surnames or place names."""
    return _Composed(original, language, draws, "org", "ORG")
