from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pseudonymizer.spans import (
    SOURCE_PRIORITY,
    Span,
    Utf16Index,
    codepoint_to_utf16,
    effective_score,
    overlap,
    resolve_overlaps,
    select_non_overlapping,
    spans_equal_relaxed,
    utf16_offsets,
    utf16_to_codepoint,
)

# Text that exercises every offset pitfall: astral emoji (two UTF-16 units), a flag (two
# astral code points), Arabic with harakat, a combining acute accent, CRLF, plus anything.
PIECES = ["😡", "🇺🇸", "🔥", "موشيه", "حَايا", "e\u0301", "José", "\r\n", " ", "@x", "Moshe"]
texts = st.lists(
    st.one_of(st.sampled_from(PIECES), st.characters(codec="utf-8")),
    max_size=40,
).map("".join)

SOURCES = ["regex", "ner", "known", "learned", "import", "human"]


@st.composite
def text_and_spans(draw: st.DrawFn) -> tuple[str, list[Span]]:
    text = draw(texts.filter(lambda t: len(t) >= 2))
    spans = []
    for _ in range(draw(st.integers(0, 12))):
        start = draw(st.integers(0, len(text) - 1))
        end = draw(st.integers(start + 1, len(text)))
        spans.append(
            Span(
                start,
                end,
                draw(st.sampled_from(["PER", "LOC", "URL"])),
                score=draw(st.none() | st.floats(0, 1)),
                source=draw(st.sampled_from(SOURCES)),
            )
        )
    return text, spans


def _no_human_overlaps(spans: list[Span]) -> list[Span]:
    """Drop human spans that overlap an earlier human span (people's spans do not overlap)."""
    kept: list[Span] = []
    for span in spans:
        if span.source == "human" and any(
            other.source == "human" and other.overlaps(span) for other in kept
        ):
            continue
        kept.append(span)
    return kept


@given(texts)
def test_every_code_point_offset_survives_a_round_trip_through_utf16(text: str) -> None:
    index = Utf16Index(text)
    for offset in range(len(text) + 1):
        unit = codepoint_to_utf16(text, offset)
        assert unit == index.to_utf16(offset) == utf16_offsets(text)[offset]
        assert utf16_to_codepoint(text, unit) == offset
        assert index.to_codepoint(unit) == offset
        assert unit == len(text[:offset].encode("utf-16-le")) // 2


@given(texts)
def test_an_offset_inside_a_surrogate_pair_is_refused(text: str) -> None:
    index = Utf16Index(text)
    for offset, char in enumerate(text):
        if ord(char) > 0xFFFF:
            inside = codepoint_to_utf16(text, offset) + 1
            with pytest.raises(ValueError, match="surrogate"):
                utf16_to_codepoint(text, inside)
            with pytest.raises(ValueError, match="surrogate"):
                index.to_codepoint(inside)
    for outside in (-1, index.length + 1):
        with pytest.raises(ValueError, match="outside"):
            index.to_codepoint(outside)
    with pytest.raises(ValueError, match="outside"):
        index.to_utf16(len(text) + 1)


@given(text_and_spans())
# Two spans alike but for an absent score and a score of 0: both count as 0, yet one must win
# whatever the order they come in.
@example(
    (
        "😡😡",
        [
            Span(1, 2, "PER", None, "regex"),
            Span(1, 2, "PER", 0.0, "regex"),
            Span(0, 1, "PER", None, "human"),
        ],
    )
)
def test_resolved_spans_never_overlap_and_keep_every_human_span(
    case: tuple[str, list[Span]],
) -> None:
    _, spans = case
    spans = _no_human_overlaps(spans)

    resolved = resolve_overlaps(spans)

    assert all(a.end <= b.start for a, b in zip(resolved, resolved[1:], strict=False))
    assert set(resolved) <= set(spans)
    assert {s for s in spans if s.source == "human"} <= set(resolved)
    assert resolve_overlaps(resolved) == resolved
    assert resolve_overlaps(reversed(spans)) == resolved


def _proposers(spans: list[Span]) -> dict[tuple[int, int, str], set[str]]:
    found: dict[tuple[int, int, str], set[str]] = {}
    for span in spans:
        found.setdefault((span.start, span.end, span.label), set()).update(
            (span.source, *span.also)
        )
    return found


@given(text_and_spans())
def test_a_kept_span_names_every_other_source_that_proposed_it(
    case: tuple[str, list[Span]],
) -> None:
    _, spans = case
    proposers = _proposers(spans)

    resolved = resolve_overlaps(spans)

    for span in resolved:
        others = proposers[span.start, span.end, span.label] - {span.source}
        assert set(span.also) == others and len(span.also) == len(others)
        assert list(span.also) == sorted(
            span.also, key=lambda source: (-SOURCE_PRIORITY[source], source)
        )
    # Resolving again, in any order, names the same others: `also` is idempotent too.
    for again in (resolve_overlaps(resolved), resolve_overlaps(reversed(spans))):
        assert [s.also for s in again] == [s.also for s in resolved]


@given(text_and_spans())
def test_overlapping_human_spans_are_all_kept_and_the_rest_yields(
    case: tuple[str, list[Span]],
) -> None:
    _, spans = case

    resolved = resolve_overlaps(spans)

    humans = {s for s in spans if s.source == "human"}
    assert humans <= set(resolved) <= set(spans)
    others = [s for s in resolved if s.source != "human"]
    for span in others:
        assert not any(span.overlaps(other) for other in resolved if other != span)
    assert resolve_overlaps(resolved) == resolved


@given(text_and_spans())
def test_every_dropped_span_overlaps_a_kept_one_at_least_as_good(
    case: tuple[str, list[Span]],
) -> None:
    _, spans = case
    resolved = resolve_overlaps(spans)
    for span in set(spans) - set(resolved):
        assert span.source != "human"
        assert any(
            span.overlaps(kept) and kept.end - kept.start >= span.end - span.start
            for kept in resolved
        ) or any(span.overlaps(kept) and kept.source == "human" for kept in resolved)


def test_the_longer_span_wins() -> None:
    short = Span(0, 5, "PER", score=0.99, source="ner")
    long = Span(0, 11, "PER", score=0.5, source="ner")
    assert resolve_overlaps([short, long]) == [long]


def test_for_equal_lengths_the_more_confident_wins() -> None:
    sure = Span(0, 5, "PER", score=0.9, source="ner")
    unsure = Span(2, 7, "LOC", score=0.4, source="ner")
    assert resolve_overlaps([unsure, sure]) == [sure]


def test_for_equal_lengths_and_scores_the_more_specific_source_wins() -> None:
    spans = [
        Span(0, 5, "PER", score=1.0, source="ner"),
        Span(0, 5, "USERNAME", score=1.0, source="regex"),
        Span(0, 5, "PER", score=1.0, source="known"),
    ]
    assert resolve_overlaps(spans) == [spans[2]]


def test_a_learned_span_outranks_ner_and_yields_to_patterns_and_known_entities() -> None:
    learned = Span(0, 5, "PER", source="learned")
    ner = Span(0, 5, "PER", source="ner")
    regex = Span(0, 5, "PER", source="regex")
    known = Span(0, 5, "PER", source="known")

    assert resolve_overlaps([ner, learned]) == [learned]
    assert resolve_overlaps([learned, regex]) == [regex]
    assert resolve_overlaps([learned, known]) == [known]
    assert SOURCE_PRIORITY["regex"] > SOURCE_PRIORITY["learned"] > SOURCE_PRIORITY["ner"]


def test_an_identical_span_keeps_who_else_proposed_it() -> None:
    learned = Span(0, 5, "PER", source="learned")
    ner = Span(0, 5, "PER", score=0.8, source="ner")
    known = Span(0, 5, "PER", score=1.0, source="known")
    relabelled = Span(0, 5, "LOC", score=0.9, source="regex")  # another label: not the same
    alone = Span(9, 12, "LOC", source="learned")

    resolved = resolve_overlaps([learned, ner, relabelled, known, alone])

    assert resolved == [known, alone]
    assert [s.also for s in resolved] == [("learned", "ner"), ()]
    # Only NER and the model: the scored NER span wins, and still names the model.
    (kept,) = resolve_overlaps([learned, ner])
    assert (kept.source, kept.also) == ("ner", ("learned",))


def test_also_is_not_part_of_a_spans_identity() -> None:
    plain = Span(0, 5, "PER", source="known")
    named = Span(0, 5, "PER", source="known", also=("learned",))

    assert plain == named and hash(plain) == hash(named)
    assert len({plain, named}) == 1
    # Duplicates that name different others: the kept one names them all.
    (kept,) = resolve_overlaps([plain, named, Span(0, 5, "PER", source="known", also=("ner",))])
    assert kept.also == ("learned", "ner")


def test_an_unscored_span_counts_as_certain_only_from_a_person_or_an_import() -> None:
    assert effective_score(Span(0, 1, "PER", source="human")) == 1.0
    assert effective_score(Span(0, 1, "PER", source="import")) == 1.0
    assert effective_score(Span(0, 1, "PER", source="ner")) == 0.0
    imported = Span(0, 5, "PER", source="import")
    scored = Span(1, 6, "PER", score=0.9, source="regex")
    assert resolve_overlaps([scored, imported]) == [imported]


def test_a_short_human_span_beats_a_longer_machine_span() -> None:
    human = Span(3, 5, "PER", source="human")
    machine = Span(0, 20, "ORG", score=1.0, source="regex")
    elsewhere = Span(30, 35, "LOC", score=0.2, source="ner")
    assert resolve_overlaps([machine, human, elsewhere]) == [human, elsewhere]


def test_overlapping_human_spans_are_both_kept() -> None:
    a = Span(0, 10, "PER", source="human")
    b = Span(5, 15, "LOC", source="human")
    between = Span(9, 12, "ORG", score=1.0, source="known")
    assert resolve_overlaps([a, b, between]) == [a, b]


def test_duplicates_are_kept_once_and_the_result_is_sorted() -> None:
    a = Span(10, 12, "PER", source="human")
    b = Span(0, 3, "LOC", score=0.5, source="ner")
    assert resolve_overlaps([a, b, a, b]) == [b, a]


def test_touching_spans_do_not_overlap() -> None:
    a = Span(0, 5, "PER", score=0.5, source="ner")
    b = Span(5, 9, "PER", score=0.5, source="ner")
    assert resolve_overlaps([b, a]) == [a, b]


def test_select_non_overlapping_walks_in_the_given_order() -> None:
    first = Span(0, 3, "A", source="regex")
    second = Span(2, 9, "B", source="regex")
    assert select_non_overlapping([first, second], key=lambda s: s.start) == [first]
    assert select_non_overlapping([first, second], key=lambda s: -s.start) == [second]


def test_overlap_helpers() -> None:
    a = Span(0, 5, "PER")
    assert overlap(a, Span(3, 9, "PER")) == 2
    assert overlap(a, Span(5, 9, "PER")) == 0
    assert spans_equal_relaxed(a, Span(4, 9, "PER"))
    assert not spans_equal_relaxed(a, Span(4, 9, "LOC"))
    assert not spans_equal_relaxed(a, Span(5, 9, "PER"))
