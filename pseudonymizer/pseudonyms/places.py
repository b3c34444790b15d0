"""Places, street addresses and organisations, drawn from Faker in the right locale.

Each `*_generator(original, language, draws)` reads the original's words once, keeping the
generic ones (Saint, rue, University, حي), renumbering house numbers and postcodes,
re-lettering acronyms, and returns a function that draws one candidate per call: a whole
Faker place of the same shape, or the other words replaced by names and place names.
"""

from __future__ import annotations

import random
import re

from pseudonymizer.folding import ARABIC_ARTICLE
from pseudonymizer.pseudonyms.determinism import Draws, Generator
from pseudonymizer.pseudonyms.locales import (
    gender_of,
    locale_for_script,
    lookup_locales,
    place_locale,
    register_locale,
)
from pseudonymizer.pseudonyms.organisations import COMPANY, kind_of, organisation_of_kind
from pseudonymizer.pseudonyms.people import DRAW_TRIES, NameSource, Part, Slot, token_slot
from pseudonymizer.pseudonyms.shape import (
    Case,
    apply_case,
    case_of,
    has_marks,
    join_whitespace,
    lookup_key,
    lookup_keys,
    random_letters,
    replace_digits,
    script_of,
    split_affixes,
    split_whitespace,
    strip_marks,
)
from pseudonymizer.pseudonyms.towns import towns

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

    def _read(self) -> list[Slot]:
        keep_words = self._keep_words()
        # "Centre hospitalier de X": in a name written with capitals, a word in lower case is
        # a common word, not part of the name.
        capitalised = any(case_of(token) in (Case.TITLE, Case.UPPER) for token in self.tokens)
        slots: list[Slot] = []
        segment = 0
        after_preposition = False
        for index, token in enumerate(self.tokens):
            slot = token_slot(self.tokens, index)
            core = "-".join(part.text for part in slot.parts)
            if any(char.isdecimal() for char in token):
                slot.kind = "number"
            elif slot.kind != "keep":
                parts = []
                for part in slot.parts:
                    elision = re.match(r"^([dlDL]['’])(.+)$", part.text)
                    if elision:
                        parts.append(Part(elision.group(1), keep=True))
                        part = Part(elision.group(2), part.keep)
                    common = (
                        capitalised
                        and index > 0
                        and slot.script == "Latn"
                        and case_of(part.text) is Case.LOWER
                        and len(part.text) > 3
                    )
                    if common or lookup_key(part.text).rstrip(".") in keep_words:
                        part = Part(part.text, keep=True)
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
                    slot.parts = [Part(part.text) for part in slot.parts]
                    slot.role = "place" if self.kind != "org" else "last"
                    break
        self._street_roles(slots)
        return slots

    @staticmethod
    def _is_acronym(core: str) -> bool:
        return 2 <= len(core) <= 6 and core.isalpha() and core.isupper() and core.isascii()

    def _street_roles(self, slots: list[Slot]) -> None:
        """In a street name, a run of two names or more reads as first name + surname."""
        run: list[Slot] = []
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
        al = strip_marks(original).startswith(ARABIC_ARTICLE) if self.script == "Arab" else None
        for _ in range(DRAW_TRIES):
            name = self.names.clean(self._town())
            if (
                name
                and " " not in name
                and "-" not in name
                and lookup_key(name) != lookup_key(original)
                and script_of(name) == script_of(original)
                and (al is None or name.startswith(ARABIC_ARTICLE) == al)
            ):
                return name
        return self.names.last(avoid=original, al=al)

    def _town(self) -> str:
        """A real town of the place's country (`pseudonymizer.pseudonyms.towns`), never one of
        Faker's made-up cities."""
        return self.draws.random.choice(towns(self.place_locale))

    def _whole_place(self) -> str | None:
        """A place drawn whole from Faker, when it has the original's exact shape."""
        faker = self.draws.faker(self.place_locale)
        produce = self._town
        if self.label.endswith("COUNTRY"):
            produce = faker.country
        elif self.label.endswith("STATE") and hasattr(faker, "administrative_unit"):
            produce = faker.administrative_unit
        shape = [len(token.split("-")) for token in self.tokens]
        originals = {lookup_key(part.text) for slot in self.slots for part in slot.parts}
        for _ in range(DRAW_TRIES):
            name = self.names.clean(produce())
            tokens = name.split()
            if (
                [len(token.split("-")) for token in tokens] == shape
                and script_of(name) == self.script
                and not any(lookup_key(piece) in originals for piece in re.split(r"[\s-]+", name))
            ):
                if self.script == "Arab":
                    wants = [strip_marks(token).startswith(ARABIC_ARTICLE) for token in self.tokens]
                    if [token.startswith(ARABIC_ARTICLE) for token in tokens] != wants:
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

    def _replace_part(self, slot: Slot, part: Part, gender: str | None) -> str:
        al = strip_marks(part.text).startswith(ARABIC_ARTICLE) if self.script == "Arab" else None
        if slot.role == "place":
            name = self._place_word(part.text)
        elif slot.role == "first":
            name = self.names.first(slot.gender or gender, avoid=part.text)
        elif self.kind == "org" and self.draws.random.random() < 0.3:
            name = self._place_word(part.text)
        else:
            name = self.names.last(avoid=part.text, al=al)
        return apply_case(case_of(part.text), name)

    def _after(self, slot: Slot, index: int) -> str:
        """The kept word just before part `index` of `slot` (in the slot, else the token
        before it), as a lookup key; "" for none."""
        if index > 0:
            before = slot.parts[index - 1]
            return lookup_key(before.text).rstrip("-") if before.keep else ""
        if slot.start == 0:
            return ""
        return lookup_key(self.tokens[slot.start - 1])

    def _street_noun(self, article: str, part: Part) -> str:
        """A French street's name after its article: "rue de la Paix", "rue du Moulin"."""
        nouns = _ARTICLE_NOUNS[article]
        choices = [noun for noun in nouns if lookup_key(noun) != lookup_key(part.text)]
        return apply_case(case_of(part.text), self.draws.random.choice(choices))

    def _saint(self, saint: str, part: Part) -> str:
        """A saint's name after Saint (Sainte, San…): a first name, of the saint's gender."""
        gender = "female" if saint in ("sainte", "ste", "santa") else "male"
        return apply_case(case_of(part.text), self.names.first(gender, avoid=part.text))

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
                new = []
                for index, part in enumerate(slot.parts):
                    if part.keep:
                        new.append(part.text)
                        continue
                    after = self._after(slot, index)
                    new.append(
                        self._street_noun(after, part)
                        if after in _ARTICLE_NOUNS and self.kind == "address"
                        else self._saint(after, part)
                        if after in _SAINTS
                        else self._replace_part(slot, part, gender)
                    )
                joined = ""
                for text in new:
                    joined += text if (not joined or joined.endswith(("'", "’"))) else "-" + text
                tokens[slot.start] = slot.prefix + _elided(joined) + slot.suffix
        return french_de(join_whitespace(tokens, self.separators), self.locale)


# A French elision kept from the original before a drawn name that starts with a consonant:
# "de l'Intérieur" → "de Chartres", not "de l'Chartres"; "d'" → "de ".
_ELIDED = re.compile(r"\b([lLdD])['’](?=[^\WaeiouyhàâäéèêëîïôöûùüAEIOUYHÀÂÄÉÈÊËÎÏÔÖÛÙÜ\d_])")


_DE_VOWEL = re.compile(r"\b([Dd])e (?=[AEIOUYÉÈÊÀÂÎÔÛaeiouyéèêàâîôû])")


def french_de(text: str, locale: str) -> str:
    """ "de" elided before a vowel in French ("Stade d'Angoulême", not "de Angoulême")."""
    return _DE_VOWEL.sub(r"\1'", text) if locale.startswith("fr") else text


def _elided(text: str) -> str:
    return _ELIDED.sub(lambda m: "" if m[1] in "lL" else m[1] + "e ", _ARTICLE_L.sub("", text))


# "l'" kept before a drawn proper name, vowel or not: a town takes no article ("de Épinal",
# elided by `french_de`).
_ARTICLE_L = re.compile(r"\b[lL]['’](?=[A-ZÀ-Ý])")
_SAINTS = lookup_keys("saint sainte st ste san santa santo sao".split())
# What a French street is named after its article.
_ARTICLE_NOUNS = {
    "la": ("Paix", "Liberté", "Gare", "Fontaine", "Poste", "Mairie", "Forge", "Croix",
           "Source", "Chapelle", "Halle", "Tour", "Prairie", "Vigne"),
    "du": ("Moulin", "Marché", "Château", "Port", "Pont", "Parc", "Stade", "Lavoir",
           "Calvaire", "Four", "Puits", "Verger"),
    "des": ("Lilas", "Écoles", "Tilleuls", "Vignes", "Jardins", "Acacias", "Peupliers",
            "Remparts", "Moulins", "Prés"),
}  # fmt: skip


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


# A place that starts with one of these is a street, whatever its label says: its type word
# stays ("rue de la République" read as a place became "lainebourg de la Mercier").
_STREET_TYPES = lookup_keys(
    """
    rue avenue boulevard impasse chemin allee allée quai ruelle street road lane drive avenue
    شارع زنقة نهج درب
    """.split()
)


def place_generator(original: str, language: str, draws: Draws, label: str = "LOC") -> Generator:
    """Candidates for a place: a real town (a Faker country or state) of the same shape, or
    the original's words replaced one by one, generic words such as Saint or حي kept; a
    street as a street (`address_generator`)."""
    words = original.split()
    if len(words) > 1 and lookup_key(words[0]) in _STREET_TYPES:
        return address_generator(original, language, draws)
    return _Composed(original, language, draws, "place", label.upper())


def address_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for a street address: street type words kept, house numbers and postcodes
    renumbered in the same shape, the street's name replaced by names, the town by a town."""
    return _Composed(original, language, draws, "address", "ADDRESS")


def _kind(original: str, composed: _Composed) -> str | None:
    kind = kind_of(original)
    if kind is None and all(slot.kind == "name" for slot in composed.slots):
        return COMPANY
    return kind


def organisation_kind(original: str, language: str) -> str | None:
    """The kind an organisation's pseudonym is drawn as (`organisations`): a well-known one's,
    a company for one made only of names; None when its own words are kept and replaced."""
    return _kind(original, _Composed(original, language, Draws(0), "org", "ORG"))


def organisation_generator(original: str, language: str, draws: Draws) -> Generator:
    """Candidates for an organisation: a well-known one (a bank, a platform, a club) becomes
    one of its kind, and one made only of names a company (`organisations`), never a bare
    surname; otherwise generic words (University, Boulangerie, جامعة) and legal forms kept,
    acronyms re-lettered, names replaced by surnames or place names."""
    composed = _Composed(original, language, draws, "org", "ORG")
    kind = _kind(original, composed)
    if kind is not None:
        chosen = kind
        return lambda: organisation_of_kind(draws.random, original, language, chosen)
    return composed
