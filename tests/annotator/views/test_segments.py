"""Cutting a text into highlight segments: no database, code point offsets."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from annotator.views.segments import closed_window, segment_text


@dataclass(frozen=True)
class FakeSpan:
    pk: int
    start: int
    end: int
    label: str
    status: str = "proposed"


def pieces(text: str, spans: list[FakeSpan]) -> list[tuple[str, tuple[str, ...]]]:
    return [(segment.text, segment.labels) for segment in segment_text(text, spans)]


def test_the_segments_join_back_into_the_text_exactly() -> None:
    text = "👋 Moshe\r\nMe\u0301tayer"
    spans = [FakeSpan(1, 2, 7, "PER"), FakeSpan(2, 9, 17, "LOC")]
    segments = segment_text(text, spans)
    assert "".join(segment.text for segment in segments) == text
    assert [(s.start, s.end) for s in segments] == [(0, 2), (2, 7), (7, 9), (9, 17)]
    assert pieces(text, spans)[1] == ("Moshe", ("PER",))
    assert pieces(text, spans)[3] == ("Me\u0301tayer", ("LOC",))


def test_overlapping_spans_give_flat_segments_that_carry_every_label() -> None:
    text = "Rue Alphonse Metayer"
    spans = [FakeSpan(1, 0, 12, "ADDRESS"), FakeSpan(2, 4, 20, "PER")]
    assert pieces(text, spans) == [
        ("Rue ", ("ADDRESS",)),
        ("Alphonse", ("ADDRESS", "PER")),
        (" Metayer", ("PER",)),
    ]
    overlap = segment_text(text, spans)[1]
    assert overlap.is_overlap
    assert overlap.span_ids == "1 2"


def test_nested_and_identical_spans() -> None:
    text = "abcdef"
    spans = [FakeSpan(1, 0, 6, "A"), FakeSpan(2, 2, 4, "B"), FakeSpan(3, 2, 4, "B")]
    assert pieces(text, spans) == [("ab", ("A",)), ("cd", ("A", "B")), ("ef", ("A",))]
    assert segment_text(text, spans)[1].span_ids == "1 2 3"


def test_a_text_without_spans_is_one_plain_segment() -> None:
    assert pieces("hello", []) == [("hello", ())]


def test_spans_past_the_end_are_clipped_and_empty_ones_skipped() -> None:
    text = "abc"
    spans = [FakeSpan(1, 1, 10, "A"), FakeSpan(2, 5, 8, "B")]
    assert pieces(text, spans) == [("a", ()), ("bc", ("A",))]


def test_only_rejected_spans_mark_the_segment_as_rejected() -> None:
    text = "abcd"
    spans = [FakeSpan(1, 0, 2, "A", "rejected"), FakeSpan(2, 1, 4, "B", "accepted")]
    segments = segment_text(text, spans)
    assert [s.all_rejected for s in segments] == [True, False, False]


@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(1, 12)), max_size=8),
    st.integers(0, 30),
    st.integers(1, 10),
)
def test_a_closed_window_renders_as_the_whole_text_does_there(
    ranges: list[tuple[int, int]], start: int, width: int
) -> None:
    """The page patches a stretch of its text after an action: the stretch, cut where no span
    crosses, must come out as the same stretch of the whole text, once the plain pieces
    around it are cut at its edges (which the page's script does)."""
    text = "Moshe 👋 Chaya, Rue Alphonse Metayer\r\n"
    spans = [FakeSpan(n, a, min(a + w, len(text)), "PER") for n, (a, w) in enumerate(ranges)]
    spans = [span for span in spans if span.start < span.end]
    low, high = closed_window(start, min(start + width, len(text)), spans)
    assert not any(s.start < low < s.end or s.start < high < s.end for s in spans)
    whole = [
        (max(s.start, low), min(s.end, high), s.labels)
        for s in segment_text(text, spans)
        if s.start < high and s.end > low
    ]
    part = [(s.start, s.end, s.labels) for s in segment_text(text, spans, (low, high))]
    assert part == whole
    assert "".join(s.text for s in segment_text(text, spans, (low, high))) == text[low:high]


def _windows_one_by_one(
    text: str, ranges: list[tuple[int, int]], spans: list[FakeSpan]
) -> list[tuple[int, int]]:
    """What `text_windows` gives, the slow way: each range widened on its own (`word_window`),
    then those that meet merged and widened again."""
    from annotator.views.workspace import word_window

    windows: list[tuple[int, int]] = []
    for low, high in sorted(word_window(text, low, high, spans) for low, high in ranges):
        if windows and low <= windows[-1][1]:
            windows[-1] = word_window(text, windows[-1][0], max(high, windows[-1][1]), spans)
        else:
            windows.append((low, high))
    return windows


@given(
    words=st.lists(st.sampled_from(["ab", "c", "مكتب", "👋", "x y"]), min_size=1, max_size=30),
    cuts=st.lists(st.tuples(st.integers(0, 80), st.integers(0, 12)), max_size=12),
    changed=st.lists(st.tuples(st.integers(0, 80), st.integers(0, 6)), min_size=1, max_size=8),
)
def test_the_stretches_of_a_patch_are_those_of_each_change_widened_and_merged(
    words: list[str], cuts: list[tuple[int, int]], changed: list[tuple[int, int]]
) -> None:
    """The quick way (spans sorted once, only those near a stretch looked at) gives the
    stretches the slow way gives, each with every span it shows."""
    from annotator.views.workspace import text_windows

    text = " ".join(words)
    spans = [
        FakeSpan(n, min(start, len(text)), min(start + length, len(text)), "PER")
        for n, (start, length) in enumerate(cuts)
    ]
    ranges = [(min(s, len(text)), min(s + n, len(text))) for s, n in changed]
    found = text_windows(text, ranges, spans)
    assert [(low, high) for low, high, _ in found] == _windows_one_by_one(text, ranges, spans)
    for low, high, shown in found:
        assert {span.pk for span in shown} == {
            span.pk for span in spans if span.start < high and span.end > low
        }
