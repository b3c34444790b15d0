"""A document's stretches written in another script than its language's, and the detectors
that read them.

"كتب Haytham Tarabishi منشورا" is an Arabic document, and nothing that reads Arabic finds the
Latin name in it: the Arabic lexicons know no Latin letter, and Arabic has no NER model. A
name in Arabic letters inside an English or French post is the same case the other way round.
So each stretch of a document in a script that is not its language's is read again by the
detectors of a language written in that script (`READERS`): Latin stretches as English,
Arabic stretches as Arabic. A stretch runs from a letter of that script to the last letter of
it before a letter of another script (or the end); digits, spaces and punctuation inside it
belong to it ("Haytham Tarabishi, 1987").

`OtherScripts` wraps a recognizer (or a family of them, one per language: NER models) so that
it reads the stretches of each text under their reader's language, offsets given back in the
whole text. Detection (`pseudonymizer.detection`) runs it beside the recognizers of the
document's own language, in pre-annotation runs and in the release's check alike.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import NamedTuple

from pseudonymizer.pseudonyms.shape import char_script
from pseudonymizer.recognizers.base import Recognizer
from pseudonymizer.spans import Span

__all__ = [
    "READERS",
    "OtherScripts",
    "Stretch",
    "language_script",
    "other_script_stretches",
    "readers_of",
]

# The language whose detectors read a stretch of each script (ISO 15924) inside a document of
# a language written in another one.
READERS: dict[str, str] = {"Latn": "en", "Arab": "ar"}
# Languages written in Arabic letters; every other language Cloak reads is written in Latin.
_ARABIC_SCRIPT_LANGUAGES = frozenset({"ar", "fa", "ur", "ps", "ckb"})
# A stretch with fewer letters than this is an abbreviation or a unit ("km", "PDF" is three):
# no name.
MIN_LETTERS = 2


class Stretch(NamedTuple):
    """[start, end) of a text written in another script, and the language that reads it."""

    start: int
    end: int
    language: str


def language_script(language: str) -> str:
    """The script `language` is written in (ISO 15924: "Arab" or "Latn")."""
    code = language.strip().lower().split("-")[0]
    return "Arab" if code in _ARABIC_SCRIPT_LANGUAGES else "Latn"


def readers_of(language: str) -> list[str]:
    """The languages that read the stretches of a document of `language` written in another
    script than its own."""
    own = language_script(language)
    return [reader for script, reader in READERS.items() if script != own]


# Where the letters of each script of `READERS` are (a superset of what `char_script` names
# so): most texts hold none of another script, and are passed over without being read a
# character at a time.
_ANY_LETTER = {
    "Latn": re.compile(
        "[A-Za-z\u00c0-\u02af\u1d00-\u1dbf\u1e00-\u1eff\u2c60-\u2c7f\ua720-\ua7ff"
        "\uab30-\uab6f\ufb00-\ufb06\u2090-\u209c\u2184\U0001df00-\U0001dfff]"
    ),
    "Arab": re.compile(
        "[\u0600-\u06ff\u0750-\u077f\u0870-\u08ff\ufb50-\ufdff\ufe70-\ufeff\U0001ee00-\U0001eeff]"
    ),
}


def other_script_stretches(text: str, language: str) -> list[Stretch]:
    """The stretches of `text` written in a script of `READERS` other than `language`'s, in
    order, each with at least `MIN_LETTERS` letters."""
    own = language_script(language)
    if not any(pattern.search(text) for script, pattern in _ANY_LETTER.items() if script != own):
        return []
    stretches: list[Stretch] = []
    script: str | None = None
    start = last = letters = 0

    def close() -> None:
        if script is not None and letters >= MIN_LETTERS:
            end = last + 1
            # The marks of the last letter are its own (an accent decomposed, harakat).
            while end < len(text) and unicodedata.category(text[end])[0] == "M":
                end += 1
            stretches.append(Stretch(start, end, READERS[script]))

    for index, char in enumerate(text):
        found = char_script(char)
        if found is None:
            continue  # digits, spaces, punctuation, marks: inside a stretch or between them
        if found == script:
            last = index
            letters += 1
            continue
        close()
        if found != own and found in READERS:
            script, start, last, letters = found, index, index, 1
        else:
            script = None
    close()
    return stretches


class OtherScripts:
    """A recognizer that reads the other-script stretches of each text with `inner(language)`
    (None: nothing reads that language), under the stretch's reader language.

    Its `name` (and `fallback`) are the inner recognizers': its spans count as theirs.
    """

    def __init__(
        self, name: str, inner: Callable[[str], Recognizer | None], *, fallback: bool = False
    ) -> None:
        self.name = name
        self.fallback = fallback
        self._inner = inner

    @classmethod
    def of(cls, recognizer: Recognizer) -> OtherScripts:
        """`recognizer` itself reading every stretch, whatever its language."""
        return cls(
            recognizer.name,
            lambda language: recognizer,
            fallback=bool(getattr(recognizer, "fallback", False)),
        )

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        found: list[list[Span]] = [[] for _ in texts]
        by_reader: dict[str, list[tuple[int, Stretch]]] = {}
        for index, text in enumerate(texts):
            for stretch in other_script_stretches(text, language):
                by_reader.setdefault(stretch.language, []).append((index, stretch))
        for reader, places in by_reader.items():
            recognizer = self._inner(reader)
            if recognizer is None:
                continue
            results = recognizer.recognize(
                [texts[index][stretch.start : stretch.end] for index, stretch in places], reader
            )
            for (index, stretch), spans in zip(places, results, strict=True):
                found[index].extend(
                    replace(span, start=span.start + stretch.start, end=span.end + stretch.start)
                    for span in spans
                )
        return found
