"""A surface that names what a shorter one names: the same person with a title, a kinship
word or a particle before the name ("brother Victor Kaur", "Dr Kaur", "de Gaulle"), the same
place with a head word ("the city of Lyon", "ville de Lyon", "مدينة الإسكندرية"), and either
with an Arabic conjunction or preposition glued on ("وباريس"). The wider surface follows the
shorter one's entity, its pseudonym the shorter one's inside the same words
("brother Kieran Lamb", "مدينة البويرة"): one person, one place, one pseudonym however the
text introduces them (issue 31, traps 4 and 5).

Only words of these lists count: "Banque Laurentide" does not name what "Banque" names, and
"Victor Kaur" not what "Kaur" names (a surname is a name of its own for the table).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pseudonymizer.pseudonyms.shape import lookup_key, lookup_keys

# Before a person's name: titles, kinship words, particles.
_PERSON = lookup_keys(
    """
    mr mrs ms miss mx dr doctor prof professor sir madam dame lord lady rev reverend father
    mother brother sister uncle aunt auntie cousin grandma grandpa grandmother grandfather
    son daughter husband wife nephew niece saint st captain capt sheikh imam
    m mme mlle monsieur madame mademoiselle docteur professeur maitre maître me frère frere
    sœur soeur oncle tante cousine neveu nièce niece père pere mère mere fils fille mari femme
    grand-mère grand-père abbé abbe
    de du des da di del della van von der den
    السيد السيدة الآنسة الانسة الدكتور الدكتورة الأستاذ الاستاذ الأستاذة الاستاذة الشيخ الحاج
    الحاجة الإمام الامام أخي اخي أختي اختي أخ اخ أخت اخت عمي خالي عمتي خالتي ابن بنت
    """.split()
)
# Before a place's name: head words, with "of" after some.
_PLACE = lookup_keys(
    """
    city town village county province region district state borough suburb
    ville village commune région region département departement province quartier
    مدينة قرية محافظة ولاية منطقة بلدة حي ضاحية
    """.split()
)
_OF = lookup_keys("of de d' du des".split())
_ARTICLES = lookup_keys("the la le les l'".split())
# Glued before an Arabic word: a conjunction, a preposition, or both (و+ب).
_PROCLITICS = ("وب", "ول", "فب", "فل", "وك", "و", "ف", "ب", "ل", "ك")
_ARABIC_LETTER = re.compile(r"[\u0620-\u064a]")
_WORD = re.compile(r"\S+")

# The labels of `pseudonymizer.labels` that take heads.
_HEADS: dict[str, frozenset[str]] = {"PER": _PERSON, "LOC": _PLACE, "GPE": _PLACE}
HEAD_LABELS = tuple(_HEADS)


@dataclass(frozen=True)
class Head:
    """`surface` is `prefix` + `core`: what the core names, introduced by the prefix."""

    prefix: str
    core: str

    def wrap(self, pseudonym: str) -> str:
        """The wider surface's pseudonym: the core's, in the same words."""
        return self.prefix + pseudonym


def cores(surface: str, label: str) -> list[Head]:
    """The shorter surfaces `surface` names through a head word, a title or a proclitic, the
    longest first; [] for a label without heads, or a surface that is only heads."""
    heads = _HEADS.get(label)
    if heads is None:
        return []
    found: list[Head] = []
    words = list(_WORD.finditer(surface))
    at = 0  # words consumed
    while at < len(words) - 1:
        key = lookup_key(words[at].group()).rstrip(".")
        if key in heads or key in _ARTICLES or (at > 0 and key in _OF):
            at += 1
            start = words[at].start()
            rest = surface[start:]
            # "la ville de" before a name: the article and "de" are part of the head only.
            if lookup_key(words[at].group()) not in _OF | _ARTICLES:
                found.append(Head(surface[:start], rest))
            continue
        break
    core = surface[words[at].start() :] if words else surface
    for proclitic in _PROCLITICS:
        if core.startswith(proclitic) and len(core) - len(proclitic) >= 3:
            rest = core[len(proclitic) :]
            if _ARABIC_LETTER.match(rest) and not rest.startswith(proclitic):
                prefix = surface[: len(surface) - len(core)] + proclitic
                found.append(Head(prefix, rest))
                break
    return sorted(found, key=lambda head: len(head.core), reverse=True)


def wrapped(core: str, label: str) -> list[Head]:
    """The wider surfaces a table may hold for `core` (a head word, a title or a proclitic
    before it), as `Head`s whose prefix + core is the wider surface; lower-case, since the
    table folds case."""
    heads = _HEADS.get(label)
    if heads is None:
        return []
    found = [Head(f"{word} ", core) for word in sorted(heads)]
    if heads is _PLACE:
        found += [Head(f"{word} of ", core) for word in sorted(heads)]
        found += [Head(f"{word} de ", core) for word in sorted(heads)]
    if _ARABIC_LETTER.match(core):
        found += [Head(proclitic, core) for proclitic in _PROCLITICS]
    return found


def core_pseudonym(head: Head, wider_pseudonym: str) -> str | None:
    """The core's pseudonym from the wider surface's, when it holds the same prefix (any case):
    "brother Wayne Glover" → "Wayne Glover"; None otherwise."""
    prefix = head.prefix
    if lookup_key(wider_pseudonym[: len(prefix)]) != lookup_key(prefix):
        return None
    rest = wider_pseudonym[len(prefix) :]
    return rest if rest.strip() else None
