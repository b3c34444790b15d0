"""A consonant skeleton shared by a name written in Latin and in Arabic script.

"Moshe Chaya" and "موشيه حايا" are one person written two ways. Neither script maps to the
other letter for letter (Arabic leaves short vowels out, Latin spells one Arabic letter with
two, "ch" reads as ح in "Chaya" and as ش in "Charles"), so both are reduced to what they
share: the consonants, each mapped to a class (ب and b and p are one class, ش and "sh" one),
vowels and the weak letters (a e i o u w y, ا و ي ى ء ع, a final ه or ة) dropped, doubled
classes written once. "Moshe Chaya" → "MX H", "موشيه حايا" → "MX H".

Where a Latin spelling is ambiguous ("ch", "g", "j") a name has several skeletons
(`skeletons`); two names match when they share one (`same_name`). The work is bounded: at most
`MAX_VARIANTS` skeletons per name. The skeleton of a name is as identifying as the name: treat
it as an original (Cloak stores only keyed digests of it).
"""

from __future__ import annotations

from itertools import product

from pseudonymizer.folding import fold_char

# Not the matching form of `pseudonymizer.folding`: that one reads a final ة as ه, and here
# they differ (ة writes a vowel, ه mostly a consonant). Case folded, accents, harakat and
# compatibility forms undone; what the matching form drops is dropped first (`_letters`).
from pseudonymizer.pseudonyms.shape import lookup_key

__all__ = ["MAX_VARIANTS", "same_name", "skeletons"]

MAX_VARIANTS = 8

# Arabic letters (after dropping harakat): their class, or "" for the weak ones.
_ARABIC = {
    "ب": "B", "پ": "B", "ت": "T", "ط": "T", "ث": "T", "ج": "J", "ح": "H", "خ": "K",
    "د": "D", "ذ": "D", "ض": "D", "ر": "R", "ز": "Z", "ظ": "Z", "س": "S", "ص": "S",
    "ش": "X", "غ": "G", "ف": "F", "ڤ": "F", "ق": "K", "ك": "K", "ک": "K", "گ": "G",
    "ل": "L", "م": "M", "ن": "N", "ه": "H", "ة": "", "ا": "", "أ": "", "إ": "", "آ": "",
    "ٱ": "", "و": "", "ؤ": "", "ي": "", "ى": "", "ی": "", "ئ": "", "ء": "", "ع": "",
}  # fmt: skip
# Latin spellings, longest first; a tuple lists the classes an ambiguous spelling may stand for.
_LATIN: list[tuple[str, tuple[str, ...]]] = [
    ("sch", ("X",)), ("tch", ("X",)), ("sh", ("X",)), ("ch", ("H", "X", "K")),
    ("kh", ("K", "H")), ("gh", ("G",)), ("th", ("T",)), ("dh", ("D",)), ("ph", ("F",)),
    ("ck", ("K",)), ("ts", ("S",)), ("tz", ("S",)), ("zh", ("J",)), ("dj", ("J",)),
    ("b", ("B",)), ("p", ("B",)), ("t", ("T",)), ("d", ("D",)), ("f", ("F",)), ("v", ("F",)),
    ("s", ("S",)), ("z", ("Z",)), ("j", ("J",)), ("g", ("G", "J")), ("k", ("K",)),
    ("q", ("K",)), ("c", ("K", "S")), ("x", ("KS",)), ("l", ("L",)), ("m", ("M",)),
    ("n", ("N",)), ("r", ("R",)), ("h", ("H",)),
]  # fmt: skip
_VOWELS = frozenset("aeiouwy'’-")
_ARTICLES = frozenset({"al", "el"})


def _is_arabic(char: str) -> bool:
    return "\u0600" <= char <= "\u06ff"


def _arabic_word(word: str) -> list[tuple[str, ...]]:
    if word.startswith("ال") and len(word) > 3:
        word = word[2:]
    if word.endswith("ه") and len(word) > 2 and _ARABIC.get(word[-2], "x") == "":
        word = word[:-1]  # a final ه after a long vowel writes the vowel: موشيه "Moshe"
    return [(_ARABIC.get(char, ""),) for char in word if _is_arabic(char)]


def _latin_word(word: str) -> list[tuple[str, ...]]:
    if len(word) > 3 and word.endswith("h") and word[-2] in _VOWELS:
        word = word[:-1]  # "Sarah", "Aisha": the vowel's h
    for article in _ARTICLES:
        if word.startswith(article + "-") and len(word) > 4:
            word = word[3:]
    found: list[tuple[str, ...]] = []
    index = 0
    while index < len(word):
        for spelling, classes in _LATIN:
            if word.startswith(spelling, index):
                found.append(classes)
                index += len(spelling)
                break
        else:
            index += 1  # a vowel, a weak letter or anything else
    return found


def _letters(word: str) -> str:
    """`word` without what reads as nothing (zero-width characters, tatweel, marks), so that
    "Mos\u200bhe" keeps its "sh"."""
    return "".join(char for char in word if fold_char(char))


def _word_classes(word: str) -> list[tuple[str, ...]]:
    letters = lookup_key(_letters(word))
    if any(_is_arabic(char) for char in letters):
        return _arabic_word(letters)
    return _latin_word(letters)


def _squeeze(classes: tuple[str, ...]) -> str:
    out: list[str] = []
    for piece in classes:
        for char in piece:
            if char and (not out or out[-1] != char):
                out.append(char)
    return "".join(out)


def skeletons(name: str) -> frozenset[str]:
    """The consonant skeletons `name` may have, words separated by one space; empty when the
    name has no consonant a skeleton could rest on. At most `MAX_VARIANTS`."""
    words = [word for word in name.split() if lookup_key(word) not in _ARTICLES]
    choices: list[list[str]] = []
    for word in words:
        classes = [option for option in _word_classes(word) if option != ("",)]
        variants: list[str] = []
        for combination in product(*classes):
            squeezed = _squeeze(combination)
            if squeezed and squeezed not in variants:
                variants.append(squeezed)
            if len(variants) >= MAX_VARIANTS:
                break
        if variants:
            choices.append(variants)
    if not choices:
        return frozenset()
    found: set[str] = set()
    for combination in product(*choices):
        found.add(" ".join(combination))
        if len(found) >= MAX_VARIANTS:
            break
    return frozenset(found)


def same_name(first: str, second: str) -> bool:
    """Whether two spellings may be one name: they share a skeleton of two consonants or more."""
    shared = skeletons(first) & skeletons(second)
    return any(len(skeleton.replace(" ", "")) >= 2 for skeleton in shared)
