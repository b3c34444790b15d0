"""One document agrees with itself: a name detected once is proposed wherever it recurs.

A model tags "Trump" in one sentence of a post and not in the next, or "Thornbury" after
"Dr." and not alone; a person's surname alone follows their full name ("Ottoline
Postlethwaite … Postlethwaite said"). Nothing carried a detection across one document
before a person decided (propagation works across documents, after a decision), so each
missed recurrence was a leak. `echoes` reads the spans the detectors found in a text and
proposes, in the gaps they left:

- every other occurrence of a found person, place, organisation or company, whole-word,
  with the same label: in any case ("trump", "TRUMP") when some word of it is a name or a
  word the vocabulary does not hold, in the same case otherwise ("Will" found as a person
  does not make every "will" one);
- the last word of a found person's name of two words or more, alone, when it is
  capitalised and three letters or more ("Postlethwaite" after "Ottoline Postlethwaite"),
  in any case when it is a name or unknown word, in the same case when it is a common word
  ("Trump", not "trump").

What it echoes is what the models and the surer patterns found (NER, known entities, the
learned model, patterns at score 0.5 or more), not the capitalised-word guesses (MISC at
0.3): a guess repeated is a flood. Echoes carry the engine's pattern source ("regex") and
score 0.5.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pseudonymizer.recognizers.wordlists import NAME, UNKNOWN, kind
from pseudonymizer.spans import Span, select_non_overlapping

LABELS = frozenset({"PER", "LOC", "ORG", "COMP"})
SCORE = 0.5
SOURCE = "regex"
_WORDS = re.compile(r"[^\W\d_][\w'’\-]*")
_MIN_SCORE = 0.5
_WORD_CHAR = re.compile(r"\w")


def _sure(span: Span) -> bool:
    return span.label in LABELS and (span.score is None or span.score >= _MIN_SCORE)


def _surfaces(text: str, spans: Iterable[Span], language: str) -> dict[str, tuple[str, bool]]:
    """Each surface to look for → (label, whether any case matches)."""
    wanted: dict[str, tuple[str, bool]] = {}
    for span in spans:
        if not _sure(span):
            continue
        surface = text[span.start : span.end].strip()
        words = _WORDS.findall(surface)
        if not words or len(surface) < 2:
            continue
        kinds = [kind(word, language) for word in words]
        any_case = any(found in (NAME, UNKNOWN) for found in kinds)
        wanted.setdefault(surface, (span.label, any_case))
        last = words[-1]
        if span.label == "PER" and len(words) >= 2 and len(last) >= 3 and last[0].isupper():
            wanted.setdefault(last, ("PER", kinds[-1] in (NAME, UNKNOWN)))
    return wanted


def echoes(text: str, spans: Sequence[Span], language: str) -> list[Span]:
    """Every occurrence in `text` of the names `spans` found (those they cover included:
    `with_echoes` keeps the others)."""
    wanted = _surfaces(text, spans, language)
    if not wanted:
        return []
    lowered = text.lower()
    # Lower case keeps every offset unless a letter lowers to two ("İ"): then the regular
    # expression, case-insensitive, reads the text itself.
    same_offsets = len(lowered) == len(text)
    found: list[Span] = []
    for surface, (label, any_case) in wanted.items():
        if any_case and not same_offsets:
            places = _matches(text, surface)
        else:
            haystack, needle = (lowered, surface.lower()) if any_case else (text, surface)
            places = _occurrences(haystack, needle)
        found += [
            Span(start, start + len(surface), label, score=SCORE, source=SOURCE)
            for start in places
            if _whole(text, start, start + len(surface))
        ]
    return list(dict.fromkeys(found))


def _occurrences(haystack: str, needle: str) -> list[int]:
    places = []
    start = haystack.find(needle)
    while start != -1:
        places.append(start)
        start = haystack.find(needle, start + 1)
    return places


def _matches(text: str, surface: str) -> list[int]:
    return [m.start() for m in re.finditer(re.escape(surface), text, re.IGNORECASE)]


def _whole(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] stands as whole words: no word character, "@" or "#" before
    it (a handle's or a hashtag's letters), no word character after it."""
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    return not (before and (_WORD_CHAR.match(before) or before in "@#")) and not (
        after and _WORD_CHAR.match(after)
    )


def with_echoes(
    texts: Sequence[str], found: Sequence[list[Span]], language: str
) -> list[list[Span]]:
    """Each text's spans and, in the gaps they leave, their echoes (sorted by position). An
    echo takes the place of a capitalised-word guess (MISC below 0.5) it overlaps: the name
    was found for sure elsewhere in the text."""
    merged = []
    for text, spans in zip(texts, found, strict=True):
        firm = [span for span in spans if not _guess(span)]
        chosen = select_non_overlapping(echoes(text, spans, language), _longer_first, keep=firm)
        guesses = [span for span in spans if _guess(span)]
        merged.append(select_non_overlapping(guesses, _longer_first, keep=chosen))
    return merged


def _guess(span: Span) -> bool:
    return span.label == "MISC" and span.score is not None and span.score < _MIN_SCORE


def _longer_first(span: Span) -> tuple[int, int]:
    return (span.start - span.end, span.start)
