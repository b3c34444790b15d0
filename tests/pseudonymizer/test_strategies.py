from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pseudonymizer.spans import Span
from pseudonymizer.strategies import Rendered, Strategy, render

TEXT = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."
PER = Span(12, 23, "PER", decision="pseudonymize")
ADDRESS = Span(28, 48, "ADDRESS", decision="pseudonymize")
PSEUDONYMS = {"Moshe Chaya": "Raj Avrom", "Rue Alphonse Metayer": "Rue Hubert Couturier"}


def realistic(span: Span, surface: str) -> str:
    return PSEUDONYMS[surface]


def surfaces(rendered: Rendered) -> list[tuple[str, str]]:
    return [(span.label, rendered.text[span.start : span.end]) for span in rendered.spans]


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        (Strategy.S0, "Shoutout to ! At ."),
        (Strategy.S1, "Shoutout to placeholder! At placeholder."),
        (Strategy.S2, "Shoutout to PER! At ADDRESS."),
        (Strategy.S3, "Shoutout to PER_1! At ADDRESS_2."),
        (Strategy.REALISTIC, "Shoutout to Raj Avrom! At Rue Hubert Couturier."),
    ],
)
def test_it_renders_the_design_table(strategy: Strategy, expected: str) -> None:
    rendered = render(TEXT, [ADDRESS, PER], strategy, replacement=realistic)

    assert rendered.text == expected
    assert TEXT[PER.start : PER.end] == "Moshe Chaya"
    for span in rendered.spans:
        assert span.decision == "pseudonymize"
    if strategy is Strategy.S0:
        assert rendered.spans == []
    else:
        assert [span.label for span in rendered.spans] == ["PER", "ADDRESS"]


def test_it_gives_the_replacements_their_new_offsets() -> None:
    rendered = render(TEXT, [PER, ADDRESS], Strategy.REALISTIC, replacement=realistic)

    # "Shoutout to " is 12 characters, "Raj Avrom" 9: [12, 21); "! At " 5 more: [26, 46).
    assert [(span.start, span.end) for span in rendered.spans] == [(12, 21), (26, 46)]
    assert surfaces(rendered) == [("PER", "Raj Avrom"), ("ADDRESS", "Rue Hubert Couturier")]


def test_s3_numbers_the_same_entity_the_same_way() -> None:
    text = "Moshe met Tom. MOSHE  left; tom stayed."
    spans = [
        Span(0, 5, "PER"),
        Span(10, 13, "PER"),
        Span(15, 20, "PER"),  # "MOSHE": same entity, other case
        Span(28, 31, "PER"),
    ]

    rendered = render(text, spans, Strategy.S3)

    assert rendered.text == "PER_1 met PER_2. PER_1  left; PER_2 stayed."


def test_s3_uses_the_given_entity_and_a_shared_numbering_across_documents() -> None:
    numbering: dict[object, int] = {}
    entity_ids = {"Moshe": "e1", "Raj": "e1", "Tom": "e2"}

    def entity_of(span: Span, surface: str) -> object:
        return entity_ids[surface]

    first = render(
        "Tom and Moshe",
        [Span(0, 3, "PER"), Span(8, 13, "PER")],
        "S3",
        entity_of=entity_of,
        numbering=numbering,
    )
    second = render(
        "Raj, Tom",
        [Span(0, 3, "PER"), Span(5, 8, "PER")],
        "S3",
        entity_of=entity_of,
        numbering=numbering,
    )

    assert first.text == "PER_1 and PER_2"
    assert second.text == "PER_2, PER_1"
    assert numbering == {"e2": 1, "e1": 2}


def test_the_same_surface_with_two_labels_is_two_entities_by_default() -> None:
    rendered = render("Paris Paris", [Span(0, 5, "PER"), Span(6, 11, "LOC")], Strategy.S3)

    assert rendered.text == "PER_1 LOC_2"


DECIDED = "Keep Le Monde, drop Tom, break https://wa.me/+93722758 now."
DECIDED_SPANS = [
    Span(5, 13, "ORG", decision="keep"),
    Span(20, 23, "PER", decision="delete"),
    Span(31, 54, "URL", decision="invalidate"),
]


def broken(surface: str) -> str:
    return surface.replace("722758", "824556")


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        (Strategy.S0, "Keep Le Monde, drop , break  now."),
        (Strategy.S1, "Keep Le Monde, drop , break https://wa.me/+93824556 now."),
        (Strategy.S2, "Keep Le Monde, drop , break https://wa.me/+93824556 now."),
        (Strategy.S3, "Keep Le Monde, drop , break https://wa.me/+93824556 now."),
        (Strategy.REALISTIC, "Keep Le Monde, drop , break https://wa.me/+93824556 now."),
    ],
)
def test_it_honours_keep_delete_and_invalidate(strategy: Strategy, expected: str) -> None:
    assert DECIDED[31:54] == "https://wa.me/+93722758"

    rendered = render(DECIDED, DECIDED_SPANS, strategy, invalidate=broken, replacement=realistic)

    assert rendered.text == expected
    kept = [("ORG", "Le Monde")]
    if strategy is Strategy.S0:
        assert surfaces(rendered) == kept
    else:
        assert surfaces(rendered) == [*kept, ("URL", "https://wa.me/+93824556")]
        assert [span.decision for span in rendered.spans] == ["keep", "invalidate"]


def test_it_refuses_overlapping_spans_and_names_them() -> None:
    with pytest.raises(ValueError, match=r"\[0, 5\) PER and \[3, 8\) LOC overlap"):
        render("abcdefghij", [Span(3, 8, "LOC"), Span(0, 5, "PER")], Strategy.S2)


def test_it_refuses_a_span_outside_the_text() -> None:
    with pytest.raises(ValueError, match="outside the text"):
        render("abc", [Span(1, 4, "PER")], Strategy.S2)


def test_it_asks_for_the_functions_a_decision_needs() -> None:
    with pytest.raises(ValueError, match="replacement function"):
        render("Tom", [Span(0, 3, "PER")], Strategy.REALISTIC)
    with pytest.raises(ValueError, match="invalidate function"):
        render("Tom", [Span(0, 3, "URL", decision="invalidate")], Strategy.S1)
    # S0 deletes an invalidated span and so needs no function.
    assert render("Tom", [Span(0, 3, "URL", decision="invalidate")], Strategy.S0).text == ""


def test_an_empty_replacement_leaves_no_span() -> None:
    rendered = render("a Tom b", [Span(2, 5, "PER")], Strategy.S1, placeholder="")

    assert rendered == Rendered("a  b", [], places=[(2, 2)])


def test_it_says_where_each_span_stands_in_the_new_text_removed_ones_too() -> None:
    text = "Moshe met Tom at 10 Rue X."
    spans = [Span(10, 13, "PER", decision="delete"), Span(0, 5, "PER"), Span(17, 25, "ADDRESS")]

    rendered = render(text, spans, Strategy.S2)

    assert rendered.text == "PER met  at ADDRESS."
    assert rendered.places == [(0, 3), (8, 8), (12, 19)]  # in offset order, as `spans` sorted


def test_it_keeps_emoji_arabic_combining_marks_and_crlf_around_spans() -> None:
    text = "😀 e\u0301\r\nقال موشيه حايا\r\n🇫🇷 Tom"
    name = text.index("موشيه")
    tom = text.index("Tom")
    spans = [Span(name, name + 10, "PER"), Span(tom, tom + 3, "PER")]

    rendered = render(text, spans, Strategy.S3)

    assert rendered.text == "😀 e\u0301\r\nقال PER_1\r\n🇫🇷 PER_2"
    assert surfaces(rendered) == [("PER", "PER_1"), ("PER", "PER_2")]


# --- Property ---------------------------------------------------------------------------------

ALPHABET = st.sampled_from(
    ["a", "B", " ", "\r\n", "\n", "😀", "🇫🇷", "\u0301", "ق", "ا", "ل", "ُ", "é", "!", "\t", "ß"]
)
DECISION = st.sampled_from([None, "pseudonymize", "keep", "invalidate", "delete"])


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[Span]]:
    text = "".join(draw(st.lists(ALPHABET, max_size=40)))
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=10)))
    spans = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        if start < end:
            label = draw(st.sampled_from(["PER", "LOC", "URL"]))
            spans.append(Span(start, end, label, decision=draw(DECISION)))
    return text, draw(st.permutations(spans))


def expected_for(span: Span, surface: str, strategy: Strategy) -> str:
    decision = span.decision or "pseudonymize"
    if decision == "keep":
        return surface
    if decision == "delete" or strategy is Strategy.S0:
        return ""
    if decision == "invalidate":
        return f"<x{surface}x>"
    return {
        Strategy.S1: "placeholder",
        Strategy.S2: span.label,
        Strategy.REALISTIC: f"[{surface.upper()}]",
    }.get(strategy, "")


@settings(deadline=None, max_examples=100)
@given(documents(), st.sampled_from([s for s in Strategy if s is not Strategy.S3]))
def test_outside_text_is_kept_in_order_and_spans_hold_their_substitutes(
    document: tuple[str, list[Span]], strategy: Strategy
) -> None:
    text, spans = document

    rendered = render(
        text,
        spans,
        strategy,
        replacement=lambda span, surface: f"[{surface.upper()}]",
        invalidate=lambda surface: f"<x{surface}x>",
    )

    ordered = sorted(spans, key=lambda span: span.start)
    expected_text = ""
    expected_spans = []
    position = 0
    for span in ordered:
        expected_text += text[position : span.start]
        substitute = expected_for(span, text[span.start : span.end], strategy)
        if substitute:
            expected_spans.append((span.label, span.decision, substitute))
        expected_text += substitute
        position = span.end
    expected_text += text[position:]
    assert rendered.text == expected_text
    assert [
        (span.label, span.decision, rendered.text[span.start : span.end]) for span in rendered.spans
    ] == expected_spans
    # Outside the output spans, the text is the original's outside text, in order.
    outside = []
    position = 0
    for span in rendered.spans:
        outside.append(rendered.text[position : span.start])
        position = span.end
    outside.append(rendered.text[position:])
    assert "".join(outside) == "".join(
        text[a.end if a else 0 : b.start if b else len(text)]
        for a, b in zip([None, *ordered], [*ordered, None], strict=True)
    )


@settings(deadline=None, max_examples=100)
@given(documents())
def test_s3_spans_hold_label_and_number(document: tuple[str, list[Span]]) -> None:
    text, spans = document

    rendered = render(text, spans, Strategy.S3, invalidate=lambda surface: "#")

    for span in rendered.spans:
        value = rendered.text[span.start : span.end]
        if span.decision == "keep":
            continue
        if span.decision == "invalidate":
            assert value == "#"
        else:
            label, number = value.rsplit("_", 1)
            assert label == span.label
            assert int(number) >= 1
