"""People named after an honorific: "Mr Galip Yalman", "Mr K.", "Mme Dupont", "Dr S. Esmer".

NER models often tag the name without its title, and miss a bare initial ("Mr K.") or a
surname the model does not know. Court decisions and clinical letters name people this
way constantly, so a title followed by capitalised words or initials is proposed as PER,
title included; overlap resolution then prefers it to the model's shorter span. Pseudonyms
keep titles, so a title inside the span survives the replacement.
"""

from __future__ import annotations

import re

from pseudonymizer.recognizers.base import POSSESSIVE, PatternRecognizer
from pseudonymizer.spans import Span

TITLES = (
    # English
    "Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof", "Professor", "Lord", "Lady", "Sir", "Dame",
    "Judge", "Rev", "Fr", "Sr",
    # French
    "M", "MM", "Mme", "Mmes", "Mlle", "Mlles", "Me", "Maître", "Pr", "Docteur", "Madame",
    "Monsieur", "Mademoiselle",
)  # fmt: skip
# Lower-case words that may stand between two capitalised parts of one name.
PARTICLES = frozenset({"de", "du", "des", "la", "le", "van", "von", "der", "den", "da", "di",
                       "al", "el", "bin", "ben", "ibn", "y"})  # fmt: skip

_TITLE = re.compile(
    r"(?<![\w.])(?:" + "|".join(sorted(TITLES, key=len, reverse=True)) + r")\.?(?=\s)"
)
_TITLE_WORDS = frozenset(TITLES) - {"M"}  # "M" is also an initial
_WORD = re.compile(r"\s+([^\s,;:!?()\[\]{}\"“”«»]+)")
_MAX_WORDS = 4


# "K", "K.", "C.A.", "J.-P.", "İ.Ş.": capitals, each but a lone one followed by a dot.
_INITIALS = re.compile(r"[^\W\d_](?:\.(?:-?[^\W\d_]\.)*)?")


def _is_initial(word: str) -> bool:
    return word[0].isupper() and _INITIALS.fullmatch(word) is not None


def _name_end(text: str, position: int) -> int:
    """The end of the capitalised words (or initials) after `position`, or `position`."""
    end = position
    pending = position  # end after trailing particles, committed only if a name word follows
    words = 0
    while words < _MAX_WORDS:
        match = _WORD.match(text, pending)
        if not match:
            break
        word = match.group(1)
        core = word.rstrip(".'’")
        if word in PARTICLES and end > position:
            pending = match.end()
            continue
        if not core or not core[0].isupper() or not core[0].isalpha():
            break
        if core in _TITLE_WORDS and words:  # "Mr B. Emmerson Professor A. Bradley": two people
            break
        possessive = POSSESSIVE.search(word)
        if possessive:  # "Mr Smith's car": the name ends before the 's
            if possessive.start() > 0:
                end = match.start(1) + possessive.start()
            break
        # "Esmer." ends a sentence; "K." is an initial and keeps its dot.
        end = match.end() if _is_initial(word) else match.start(1) + len(word.rstrip("."))
        pending = end
        words += 1
        if word.endswith(".") and not _is_initial(word):
            break
    return end


class TitleRecognizer(PatternRecognizer):
    """Proposes PER for an honorific followed by a name (source "regex", score 0.9)."""

    name = "titles"

    def recognize_one(self, text: str) -> list[Span]:
        spans: list[Span] = []
        for match in _TITLE.finditer(text):
            end = _name_end(text, match.end())
            if end > match.end():
                spans.append(Span(match.start(), end, "PER", score=0.9, source="regex"))
        return spans
