from __future__ import annotations

import re

import pytest

from pseudonymizer.evaluation import (
    MIN_KAPPA_TOKENS,
    OUTSIDE,
    Leak,
    TokenTable,
    cohen_kappa_tokens,
    leak_check,
    span_confusion,
    span_prf,
    token_agreement,
    token_masking,
    token_table,
    tokenize,
)
from pseudonymizer.spans import Span

# --- span_prf ---------------------------------------------------------------------------------

GOLD = [[Span(0, 5, "PER"), Span(10, 15, "PER"), Span(20, 25, "LOC")]]
PRED = [[Span(0, 5, "PER"), Span(10, 14, "PER"), Span(20, 25, "LOC"), Span(30, 35, "ORG")]]


def test_strict_counts_only_exact_matches_per_label() -> None:
    report = span_prf(GOLD, PRED)

    # PER: 2 gold, 2 predicted, 1 exact -> P = R = F1 = 1/2.
    per = report.per_label["PER"]
    assert (per.gold, per.pred, per.matched_gold, per.matched_pred) == (2, 2, 1, 1)
    assert (per.precision, per.recall, per.f1) == (0.5, 0.5, 0.5)
    # LOC: 1/1 exact. ORG: predicted only, nothing to recall -> 0, 0, 0.
    assert report.per_label["LOC"].f1 == 1.0
    assert (report.per_label["ORG"].precision, report.per_label["ORG"].recall) == (0.0, 0.0)
    # micro: 3 gold, 4 predicted, 2 exact -> P = 2/4, R = 2/3, F1 = 2PR/(P+R) = 4/7.
    assert report.micro.precision == 0.5
    assert report.micro.recall == pytest.approx(2 / 3)
    assert report.micro.f1 == pytest.approx(4 / 7)
    # macro: mean over PER, LOC, ORG -> P = R = F1 = (0.5 + 1 + 0) / 3 = 0.5.
    assert report.macro.precision == pytest.approx(0.5)
    assert report.macro.f1 == pytest.approx(0.5)


def test_relaxed_accepts_overlap_with_the_same_label() -> None:
    report = span_prf(GOLD, PRED, mode="relaxed")

    # [10, 14) overlaps [10, 15): PER is 2/2 both ways.
    assert report.per_label["PER"].f1 == 1.0
    # micro: 3 gold found of 3, 3 predictions right of 4 -> P = 3/4, R = 1, F1 = 6/7.
    assert report.micro.precision == 0.75
    assert report.micro.recall == 1.0
    assert report.micro.f1 == pytest.approx(6 / 7)


def test_relaxed_counts_each_side_on_its_own() -> None:
    two_names = [[Span(0, 5, "PER"), Span(6, 11, "PER")]]
    one_long = [[Span(0, 11, "PER")]]

    # One prediction over two gold names: both names found (R = 2/2), one right prediction
    # (P = 1/1).
    covering = span_prf(two_names, one_long, mode="relaxed").micro
    assert (covering.matched_gold, covering.gold, covering.matched_pred, covering.pred) == (
        2,
        2,
        1,
        1,
    )
    # The other way round: the gold span is found once, both predictions are right.
    split = span_prf(one_long, two_names, mode="relaxed").micro
    assert (split.matched_gold, split.gold, split.matched_pred, split.pred) == (1, 1, 2, 2)
    # Touching is not overlapping: [0, 5) and [5, 9) share no character.
    assert span_prf([[Span(0, 5, "PER")]], [[Span(5, 9, "PER")]], mode="relaxed").micro.f1 == 0


def test_labels_must_agree_unless_ignored() -> None:
    gold = [[Span(0, 5, "PER")]]
    pred = [[Span(0, 5, "LOC")]]

    assert span_prf(gold, pred).micro.f1 == 0.0
    assert span_prf(gold, pred, mode="relaxed").micro.f1 == 0.0
    agnostic = span_prf(gold, pred, ignore_label=True)
    assert agnostic.micro.f1 == 1.0
    assert list(agnostic.per_label) == ["*"]


def test_spans_match_only_within_their_document() -> None:
    report = span_prf([[Span(0, 5, "PER")], []], [[], [Span(0, 5, "PER")]], mode="relaxed")

    assert (report.micro.matched_gold, report.micro.matched_pred) == (0, 0)


def test_by_label_false_gives_only_the_totals_and_the_table_prints() -> None:
    report = span_prf(GOLD, PRED, by_label=False)

    assert report.per_label == {}
    assert report.micro.matched_gold == 2
    assert "micro" in span_prf(GOLD, PRED).table()
    assert "PER" in span_prf(GOLD, PRED).table()


def test_span_prf_refuses_mismatched_inputs() -> None:
    with pytest.raises(ValueError, match="1 gold documents but 2"):
        span_prf([[]], [[], []])
    with pytest.raises(ValueError, match="unknown mode"):
        span_prf([[]], [[]], mode="fuzzy")  # type: ignore[arg-type]


# --- Tokens -----------------------------------------------------------------------------------

CALL = "Call Tom Reddle at +44 7700 900461 now."


def test_tokens_split_on_whitespace_punctuation_and_symbols() -> None:
    words = [CALL[start:end] for start, end in tokenize(CALL)]
    assert words == ["Call", "Tom", "Reddle", "at", "44", "7700", "900461", "now"]
    text = "😀 tom.reddle@x.example e\u0301te\u0301 قالَ"
    assert [text[s:e] for s, e in tokenize(text)] == [
        "tom",
        "reddle",
        "x",
        "example",
        "e\u0301te\u0301",
        "قالَ",
    ]


def test_token_masking_counts_identifier_tokens_masked() -> None:
    assert CALL[5:15] == "Tom Reddle"
    assert CALL[19:34] == "+44 7700 900461"
    assert CALL[19:27] == "+44 7700"
    gold = [[Span(5, 15, "PER"), Span(19, 34, "PHONE")]]
    pred = [[Span(0, 4, "MISC"), Span(5, 8, "PER"), Span(19, 27, "DATE")]]

    result = token_masking(gold, pred, [CALL])

    # Gold tokens: Tom Reddle 44 7700 900461 (5). Masked: Call Tom 44 7700 (4), of which
    # Tom 44 7700 are gold (3): recall 3/5, precision 3/4; labels do not matter.
    assert (result.gold_tokens, result.masked_tokens, result.masked_gold_tokens) == (5, 4, 3)
    assert result.recall == 0.6
    assert result.precision == 0.75


def test_a_token_partly_covered_counts_as_masked() -> None:
    # "Reddle" is [9, 15); a span [12, 13) touches one of its characters.
    result = token_masking([[Span(9, 15, "PER")]], [[Span(12, 13, "PER")]], [CALL])

    assert (result.recall, result.precision) == (1.0, 1.0)


def test_cohen_kappa_over_tokens() -> None:
    text = "a b c d"
    first = [[Span(0, 3, "PER")]]  # PER PER O O
    second = [[Span(0, 1, "PER"), Span(4, 5, "LOC")]]  # PER O LOC O

    kappa = cohen_kappa_tokens(first, second, [text])

    # po = 2/4 (tokens a and d). pe = (PER 2*1 + O 2*2 + LOC 0*1) / 16 = 6/16.
    # kappa = (0.5 - 0.375) / (1 - 0.375) = 0.2.
    assert kappa == pytest.approx(0.2)


def test_token_tables_of_texts_add_up_to_the_agreement_over_them() -> None:
    texts = ["a b c d", "Moshe Chaya met Sara in Paris"]
    first = [[Span(0, 3, "PER")], [Span(0, 11, "PER"), Span(24, 29, "LOC")]]
    second = [[Span(0, 1, "PER"), Span(4, 5, "LOC")], [Span(0, 5, "PER"), Span(16, 20, "LOC")]]
    tables = [token_table(tokenize(t), a, b) for t, a, b in zip(texts, first, second, strict=True)]
    # Per text: (label in the first, label in the second) → tokens.
    assert dict(tables[0].counts) == {
        ("PER", "PER"): 1, ("PER", OUTSIDE): 1, (OUTSIDE, "LOC"): 1, (OUTSIDE, OUTSIDE): 1,
    }  # fmt: skip
    summed = sum(tables, TokenTable())
    assert summed.agreement() == token_agreement(first, second, texts)
    assert tables[0].agreement().kappa == pytest.approx(0.2)
    assert TokenTable().agreement() == token_agreement([], [], [])


def test_cohen_kappa_handles_perfect_and_degenerate_agreement() -> None:
    spans = [[Span(0, 1, "PER")]]
    assert cohen_kappa_tokens(spans, spans, ["a b"]) == 1.0
    # Nobody marked anything: pe = 1, the annotators agree on every token.
    assert cohen_kappa_tokens([[]], [[]], ["a b c"]) == 1.0
    assert cohen_kappa_tokens([[]], [[]], ["!!"]) == 1.0
    # Opposite choices on two tokens: po = 0, pe = (1*1 + 1*1) / 4 = 0.5 -> kappa = -1.
    assert cohen_kappa_tokens(
        [[Span(0, 1, "PER")]], [[Span(2, 3, "PER")]], ["a b"]
    ) == pytest.approx(-1.0)


def test_token_agreement_counts_the_sample_and_says_when_it_is_too_small() -> None:
    # Five tokens ("a b c d e"): the first marks a and b, the second b and e.
    small = token_agreement(
        [[Span(0, 3, "PER")]], [[Span(2, 3, "PER"), Span(8, 9, "PER")]], ["a b c d e"]
    )
    assert (small.tokens, small.labelled) == (5, 3)
    # po = 3/5 (b, c, d); pe = (PER 2*2 + O 3*3) / 25 = 13/25: kappa = (15 - 13) / (25 - 13).
    assert small.kappa == pytest.approx(2 / 12)
    assert small.too_small == f"only 5 words compared; kappa needs at least {MIN_KAPPA_TOKENS}"
    assert small.reported_kappa is None

    words = " ".join(f"w{n}" for n in range(MIN_KAPPA_TOKENS))  # exactly the minimum
    enough = token_agreement([[Span(0, 2, "PER")]], [[Span(0, 2, "PER")]], [words])
    assert (enough.tokens, enough.labelled, enough.too_small) == (MIN_KAPPA_TOKENS, 1, None)
    assert enough.reported_kappa == enough.kappa == 1.0
    # Nobody labelled anything: kappa reads 1.0 but says nothing.
    empty = token_agreement([[]], [[]], [words])
    assert (empty.kappa, empty.labelled) == (1.0, 0)
    assert empty.too_small == "no word was labelled by either annotator"
    assert empty.reported_kappa is None
    nothing = token_agreement([], [], [])
    assert (nothing.tokens, nothing.reported_kappa) == (0, None)


def test_span_confusion_pairs_each_span_with_what_the_other_gave_there() -> None:
    first = [
        [Span(0, 4, "COMP"), Span(10, 14, "COMP"), Span(20, 30, "PER"), Span(40, 45, "LOC")],
        [Span(0, 3, "PER")],
    ]
    second = [
        # COMP → ORG twice; the first's PER [20, 30) under LOC [20, 24) and PER [24, 30):
        # PER overlaps it most (6 characters of 10); LOC → nothing; DATE where the first
        # gave none.
        [Span(0, 4, "ORG"), Span(11, 13, "ORG"), Span(20, 24, "LOC"), Span(24, 30, "PER"),
         Span(50, 55, "DATE")],
        [Span(0, 3, "PER")],
    ]  # fmt: skip
    assert span_confusion(first, second) == {
        ("COMP", "ORG"): 2,
        ("PER", "PER"): 2,
        ("LOC", None): 1,
        (None, "DATE"): 1,
    }
    # Each row adds up to the first annotation's spans of its label.
    assert span_confusion(second, first) == {
        ("ORG", "COMP"): 2,
        ("LOC", "PER"): 1,
        ("PER", "PER"): 2,
        ("DATE", None): 1,
        (None, "LOC"): 1,
    }
    # On a tie the earliest span of the other annotation gives the label.
    assert span_confusion([[Span(0, 4, "PER")]], [[Span(2, 4, "ORG"), Span(0, 2, "LOC")]]) == {
        ("PER", "LOC"): 1
    }
    with pytest.raises(ValueError, match="annotated documents"):
        span_confusion([[]], [])


# --- Leaks ------------------------------------------------------------------------------------


def slices(text: str, leaks: list[Leak]) -> list[str]:
    return [text[leak.start : leak.end] for leak in leaks]


def test_it_finds_originals_whatever_the_case_and_the_whitespace() -> None:
    text = "Moshe CHAYA was here; moshe\r\nchaya again; Moshechaya no."

    leaks = leak_check(text, ["Moshe Chaya"])

    assert slices(text, leaks) == ["Moshe CHAYA", "moshe\r\nchaya"]
    assert {leak.original for leak in leaks} == {0}


def test_it_finds_whole_words_only() -> None:
    text = "Tomorrow Tom's tom. Atom"

    leaks = leak_check(text, ["Tom"])

    assert [(leak.start, leak.end) for leak in leaks] == [(9, 12), (15, 18)]


def test_it_sees_through_accents_and_arabic_proclitics() -> None:
    text = "METAYER, Me\u0301tayer et Métayer. قال وموشيه وبالموشيه لاموشيه"

    leaks = leak_check(text, ["Métayer", "موشيه"])

    assert slices(text, leaks) == ["METAYER", "Me\u0301tayer", "Métayer", "موشيه", "موشيه"]
    assert [leak.original for leak in leaks] == [0, 0, 0, 1, 1]
    # Without accent folding only the accented forms match, however the accent is encoded.
    strict = leak_check(text, ["Métayer"], fold_accents=False)
    assert slices(text, strict) == ["Me\u0301tayer", "Métayer"]


def test_a_leak_never_prints_the_original() -> None:
    text = "Write to Moshe Chaya."

    leaks = leak_check(text, ["", "  ", "Moshe Chaya"])

    assert leaks == [Leak(9, 20, original=2)]
    assert "Moshe" not in str(leaks[0])
    assert "Moshe" not in repr(leaks[0])
    assert str(leaks[0]) == "original surface #2 at [9, 20)"


def test_it_reports_recognizer_hits_outside_the_allowed_spans() -> None:
    text = "Call 0612345678 or 0698765432."

    def digits(value: str) -> list[Span]:
        return [
            Span(m.start(), m.end(), "PHONE", source="regex") for m in re.finditer(r"\d+", value)
        ]

    # The second number is the realistic replacement of the original: allowed.
    leaks = leak_check(text, [], [digits], allowed=[Span(19, 29, "PHONE")])

    assert leaks == [Leak(5, 15, label="PHONE", source="regex")]
    assert str(leaks[0]) == "PHONE found by regex at [5, 15)"


def test_it_handles_thousands_of_originals() -> None:
    originals = [f"Name{index:05d} Surname{index:05d}" for index in range(5000)]
    text = " ".join(["filler"] * 2000) + " name04242  SURNAME04242 end"

    leaks = leak_check(text, originals)

    assert [leak.original for leak in leaks] == [4242]
    assert text[leaks[0].start : leaks[0].end] == "name04242  SURNAME04242"
