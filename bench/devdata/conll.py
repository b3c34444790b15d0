"""CoNLL-style sources (a token and its tag or tags per line): reading, entities, documents.

Conventions, shared with `bench/arabic_recall_bench.py` so that the numbers compare:
tokens are joined by one space and sentences by a line break, offsets computed as the text is
built; sentences are the blank-line-separated blocks or, in a file with none, runs ending in
". ! ? ؟" outside any entity; a corpus without document boundaries is cut into documents of
about 300 to 600 tokens at sentence ends.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from bench.devdata import Span

TAG = re.compile(r"O|[BI]-(?P<type>\S+)")
SENTENCE_END = frozenset({".", "!", "?", "؟"})
LOW_TOKENS, HIGH_TOKENS = 300, 600


@dataclass
class Row:
    """One token line: the token and its tags (several for a nested corpus)."""

    token: str
    tags: tuple[str, ...]


@dataclass
class Sentence:
    tokens: list[str]
    # (first token, token after the last, the source's entity type)
    entities: list[tuple[int, int, str]] = field(default_factory=list)


@dataclass
class Reading:
    """A file's blocks of rows (blank-line separated) and what was odd in it."""

    blocks: list[list[Row]]
    odd: Counter[str] = field(default_factory=Counter)


def read_rows(text: str, *, separator: str | None = None) -> Reading:
    """The blocks of `text`, one row per token line.

    A line is split on `separator` (default: a tab if it has one, else any whitespace); its
    last field is the tag, or the fields after the token are nested tags when they all are
    tags. A line with no non-space token ("\\tO") is skipped and counted; a line of only
    whitespace ends a block. A line with several words before one tag (ANERcorp's
    "الصالحية ونايفة O") gives each word the tag, the entity continuing after the first.
    """
    reading = Reading([])
    block: list[Row] = []
    for line in text.split("\n"):
        if not line.strip():
            if block:
                reading.blocks.append(block)
            block = []
            continue
        sep = separator if separator is not None else ("\t" if "\t" in line else None)
        fields = [column.strip() for column in line.split(sep)]
        fields = [column for column in fields if column]
        if len(fields) < 2:
            reading.odd["lines with no token or no tag (skipped)"] += 1
            continue
        if not TAG.fullmatch(fields[-1]):
            raise ValueError(f"not a tag: {line!r}")
        if len(fields) > 2 and all(TAG.fullmatch(column) for column in fields[1:]):
            block.append(Row(fields[0], tuple(fields[1:])))
            continue
        tag = fields[-1]
        if sep == "\t" and len(fields) == 2:
            block.append(Row(fields[0], (tag,)))  # a tab-separated token may hold spaces
            continue
        words = " ".join(fields[:-1]).split()
        if len(words) > 1:
            reading.odd["lines with several words before their tag (split)"] += 1
        for number, word in enumerate(words):
            block.append(Row(word, (tag if number == 0 else re.sub("^B-", "I-", tag),)))
    if block:
        reading.blocks.append(block)
    return reading


def entities(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """The entities of one layer of BIO tags, IOB2 or IOB1 (an I- after O or after another
    type starts an entity): (first token, token after the last, type)."""
    found: list[tuple[int, int, str]] = []
    start: int | None = None
    kind = ""
    for index, tag in enumerate([*tags, "O"]):
        match = TAG.fullmatch(tag)
        new_kind = (match.group("type") or "") if match else ""
        continues = tag.startswith("I-") and start is not None and new_kind == kind
        if start is not None and not continues:
            found.append((start, index, kind))
            start = None
        if new_kind and not continues:
            start, kind = index, new_kind
    return found


def outermost(
    layers: Sequence[Sequence[str]], kept: Iterable[str]
) -> tuple[list[tuple[int, int, str]], int]:
    """The entities of tokens with nested tags (Wojood's "طولكرم I-ORG B-GPE") whose type is
    in `kept`, each type read as its own BIO layer, less those inside a longer kept one
    (masking the outer span masks them too); and how many crossing pairs were met."""
    kept = set(kept)
    kinds = {m.group("type") for tags in layers for t in tags if (m := TAG.fullmatch(t))} & kept
    found: set[tuple[int, int, str]] = set()
    for kind in kinds:
        column = [next((t for t in tags if t[2:] == kind), "O") for tags in layers]
        found.update(entity for entity in entities(column) if entity[2] == kind)
    outer = sorted(
        (s, e, kind)
        for s, e, kind in found
        if not any(o_s <= s and e <= o_e and (o_s, o_e) != (s, e) for o_s, o_e, _ in found)
    )
    crossing = sum(
        1
        for i, (s, e, _) in enumerate(outer)
        for o_s, o_e, _ in outer[i + 1 :]
        if o_s < e and s < o_e
    )
    return outer, crossing


def cut_sentences(rows: Sequence[Row]) -> Iterator[list[Row]]:
    """Runs of rows ending in sentence-final punctuation outside any entity."""
    start = 0
    for index, row in enumerate(rows):
        following = rows[index + 1].tags[0] if index + 1 < len(rows) else "O"
        if row.token in SENTENCE_END and row.tags[0] == "O" and not following.startswith("I-"):
            yield list(rows[start : index + 1])
            start = index + 1
    if start < len(rows):
        yield list(rows[start:])


def flat_sentence(rows: Sequence[Row]) -> Sentence:
    """A sentence of rows with one tag each."""
    return Sentence([row.token for row in rows], entities([row.tags[0] for row in rows]))


def group(sentences: Sequence[Sentence]) -> list[list[Sentence]]:
    """Consecutive sentences in documents of about LOW_TOKENS to HIGH_TOKENS tokens: a
    document closes once it reaches the middle, or before a sentence that would take it past
    HIGH_TOKENS when it has LOW_TOKENS; a short tail joins the document before it."""
    documents: list[list[Sentence]] = []
    current: list[Sentence] = []
    size = 0
    for sentence in sentences:
        if current and size >= LOW_TOKENS and size + len(sentence.tokens) > HIGH_TOKENS:
            documents.append(current)
            current, size = [], 0
        current.append(sentence)
        size += len(sentence.tokens)
        if size >= (LOW_TOKENS + HIGH_TOKENS) // 2:
            documents.append(current)
            current, size = [], 0
    if current:
        if documents and size < LOW_TOKENS // 2:
            documents[-1].extend(current)
        else:
            documents.append(current)
    return documents


def assemble(
    sentences: Sequence[Sentence], labels: Mapping[str, str | None]
) -> tuple[str, list[Span]]:
    """The text of `sentences` (tokens joined by a space, sentences by a line break) and the
    spans of their entities under Cloak's labels; an entity whose type maps to None is
    dropped, a type missing from `labels` raises KeyError."""
    parts: list[str] = []
    spans: list[Span] = []
    offset = 0
    for number, sentence in enumerate(sentences):
        if number:
            parts.append("\n")
            offset += 1
        starts = []
        for index, token in enumerate(sentence.tokens):
            assert token and token == token.strip() and "\n" not in token, repr(token)
            if index:
                parts.append(" ")
                offset += 1
            starts.append(offset)
            parts.append(token)
            offset += len(token)
        for first, after, kind in sentence.entities:
            label = labels[kind]
            if label is not None:
                end = starts[after - 1] + len(sentence.tokens[after - 1])
                spans.append(Span(starts[first], end, label))
    return "".join(parts), spans


def type_counts(sentences: Iterable[Sentence]) -> Counter[str]:
    """How many entities of each source type `sentences` hold."""
    return Counter(kind for sentence in sentences for _, _, kind in sentence.entities)
