"""Spans over text, counted in Unicode code points, and conversion to UTF-16 units."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """A labelled stretch of text: `text[start:end]` in code points (Python string indices)."""

    start: int
    end: int
    label: str
    score: float | None = None
    source: str = "human"
    decision: str | None = None

    def __post_init__(self) -> None:
        if self.start < 0 or self.end <= self.start:
            raise ValueError(f"invalid span [{self.start}, {self.end})")

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def surface(self, text: str) -> str:
        return text[self.start : self.end]


def _utf16_len(char: str) -> int:
    return 2 if ord(char) > 0xFFFF else 1


def utf16_offsets(text: str) -> list[int]:
    """`result[i]` is the UTF-16 offset of code point `i`; `result[len(text)]` is the length."""
    offsets = [0] * (len(text) + 1)
    position = 0
    for index, char in enumerate(text):
        offsets[index] = position
        position += _utf16_len(char)
    offsets[len(text)] = position
    return offsets


def codepoint_to_utf16(text: str, index: int) -> int:
    if not 0 <= index <= len(text):
        raise ValueError(f"offset {index} outside text of length {len(text)}")
    return index + sum(1 for char in text[:index] if ord(char) > 0xFFFF)


def utf16_to_codepoint(text: str, unit: int) -> int:
    """The code point index at UTF-16 offset `unit`; refuses an offset inside a surrogate pair."""
    if unit < 0:
        raise ValueError(f"negative UTF-16 offset {unit}")
    position = 0
    for index, char in enumerate(text):
        if position == unit:
            return index
        position += _utf16_len(char)
        if position > unit:
            raise ValueError(f"UTF-16 offset {unit} falls inside a surrogate pair")
    if position == unit:
        return len(text)
    raise ValueError(f"UTF-16 offset {unit} outside text of {position} units")


class Utf16Index:
    """Converts many UTF-16 offsets of one text in O(1) each after an O(n) build."""

    def __init__(self, text: str) -> None:
        self._to_utf16 = utf16_offsets(text)
        self._to_codepoint = {unit: index for index, unit in enumerate(self._to_utf16)}
        self.length = self._to_utf16[-1]

    def to_codepoint(self, unit: int) -> int:
        try:
            return self._to_codepoint[unit]
        except KeyError:
            if 0 <= unit <= self.length:
                raise ValueError(f"UTF-16 offset {unit} falls inside a surrogate pair") from None
            raise ValueError(f"UTF-16 offset {unit} outside text of {self.length} units") from None

    def to_utf16(self, index: int) -> int:
        return self._to_utf16[index]
