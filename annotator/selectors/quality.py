"""Measured quality: how far annotators agree, and how good pre-annotation is.

Final decisions (the gold) are the ACCEPTED spans of documents a person finished (done or
reviewed), at their current offsets and label. Everything is scored by the engine
(`pseudonymizer.evaluation`): spans are read with `values_list(...).iterator()`, grouped by
document, and handed to the engine as one list of spans per document. The engine's counts add
up over documents, so the numbers are read here in parts (`preannotation_blocks`,
`agreement_pairs`) that `annotator.services.quality.project_quality` keeps in the cache per
state of what they read, scoring again only what changed. Nothing here writes, the cache
included.

- Agreement: an original and its replica (`Document.replica_of`, a blind second annotation),
  both finished. Token-level Cohen's kappa, and relaxed span F1 with the original's
  annotator as the reference (F1 is symmetric in precision and recall, so swapping the
  reference gives the same F1). Per label, kappa is the binary one: a token is the label or
  not, and the label's tokens are those either annotator gave it. A kappa on fewer than
  `MIN_KAPPA_TOKENS` tokens, or on tokens neither annotator labelled, is not reported
  (`kappa_reason` says why). A confusion table counts, in spans, which label the second
  annotator gave where the first gave which (`span_confusion`). Over time, pairs are grouped
  by the ISO week in which the replica was last saved.
  A token is a word: a run of letters, digits and marks between spaces, punctuation and
  symbols (`pseudonymizer.evaluation.tokenize`).
- Pre-annotation: what machines proposed (regex, ner, known, learned, import), at the offsets
  and label they proposed (`proposed_*`; the current ones where a row has none), whatever a
  person then did with it: a rejected proposal is a false positive. A proposal several
  sources made alike (`Span.sources`) counts for each of them, and once for all together.
  Replicas are left out (they repeat their original). A scope picks the predictions and the
  documents they are judged on: every machine span over every finished document; one run's
  spans over the documents the run went through; or imported spans over the documents that
  came with some.
  A label's average (macro) is over the labels that have final spans: a label only ever
  proposed, never decided, has no recall to average. "Not proposed" counts the final spans
  that no proposal of their own label overlaps.
- Learned proposals: what the learned model proposed in the newest run that ran it, per
  language, read from the spans that run stored with `learned` among their sources: how many,
  how many no other source proposed, and how many were accepted.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from django.db import connection
from django.db.models import Count, Max, Q, Sum

from annotator.models import (
    Document,
    DocumentStatus,
    PreannotationRun,
    Project,
    RunBatch,
    Span,
    SpanStatus,
    span_sources,
)
from pseudonymizer.evaluation import (
    OUTSIDE,
    Averaged,
    Scores,
    TokenTable,
    span_confusion,
    span_prf,
    token_table,
    tokenize,
)
from pseudonymizer.spans import Span as EngineSpan
from pseudonymizer.vocabulary import Source

FINISHED = (DocumentStatus.DONE, DocumentStatus.REVIEWED)
# The sources that propose spans, in the order the page shows them.
PREDICTING_SOURCES: tuple[str, ...] = (
    Source.REGEX, Source.NER, Source.KNOWN, Source.LEARNED, Source.IMPORT,
)  # fmt: skip
ALL_SOURCES = "all"
IMPORT_SCOPE = "import"
Mode = Literal["strict", "relaxed"]
MODES: tuple[Mode, ...] = ("strict", "relaxed")
# Ids per IN (...) when reading the spans of a set of documents.
CHUNK = 5000

RunScope = int | Literal["import"] | None
# The key of a run's `models_used` naming the learned model version of a language, as
# `annotator.services.runs.learned_key` writes it.
LEARNED_PREFIX = "learned:"
LEARNED_NOTHING_NOTE = "the model proposed nothing that run stored in this language"

# --- What the selectors answer -----------------------------------------------------------


@dataclass(frozen=True)
class LabelScores:
    label: str
    scores: Scores


@dataclass(frozen=True)
class ModeScores:
    """One mode's scores for one source: per label, summed (micro) and averaged (macro)."""

    mode: str
    labels: list[LabelScores]
    micro: Scores
    macro: Averaged


@dataclass(frozen=True)
class SourceScores:
    """A source's proposals (or every source's: `ALL_SOURCES`) against the gold."""

    source: str
    strict: ModeScores
    relaxed: ModeScores

    @property
    def proposed(self) -> int:
        return self.strict.micro.pred


@dataclass(frozen=True)
class LanguageScores:
    """Every source's proposals together, against the gold of one language."""

    language: str
    documents: int
    strict: Scores
    relaxed: Scores


@dataclass(frozen=True)
class Miss:
    """Of one label's gold spans: how many no machine proposed (no proposal of that label
    overlaps them: a proposal under another label proposed something else), and the recall
    of every source together."""

    label: str
    gold: int
    missed: int
    strict_recall: float
    relaxed_recall: float

    @property
    def missed_share(self) -> float:
        return self.missed / self.gold if self.gold else 0.0


@dataclass(frozen=True)
class Preannotation:
    scope: RunScope
    documents: int
    sources: list[SourceScores]  # PREDICTING_SOURCES, then ALL_SOURCES
    languages: list[LanguageScores]
    misses: list[Miss]

    @property
    def overall(self) -> SourceScores:
        return self.sources[-1]

    @property
    def gold(self) -> int:
        return sum(miss.gold for miss in self.misses)

    @property
    def missed(self) -> int:
        return sum(miss.missed for miss in self.misses)


@dataclass(frozen=True)
class AgreementRow:
    """Agreement over one label or one language (or everything: key "").

    `tokens`: the tokens compared; for a label, those either annotator gave that label.
    `kappa` is computed whatever the sample; `kappa_reason` says why it is too small to be
    reported (None when it is not), and `reported_kappa` is what pages and the API show.
    """

    key: str
    pairs: int
    tokens: int
    kappa: float
    f1: float
    first: int  # spans of the first annotator
    second: int  # spans of the second
    kappa_reason: str | None = None

    @property
    def reported_kappa(self) -> float | None:
        return None if self.kappa_reason else self.kappa


@dataclass(frozen=True)
class AgreementWeek:
    week: dt.date  # its Monday
    pairs: int
    kappa: float
    f1: float
    kappa_reason: str | None = None

    @property
    def name(self) -> str:
        year, week, _ = self.week.isocalendar()
        return f"{year}-W{week:02d}"

    @property
    def reported_kappa(self) -> float | None:
        return None if self.kappa_reason else self.kappa


@dataclass(frozen=True)
class ConfusionCell:
    """Spans the first annotator gave `first` where the second gave `second` (None: no span
    there), as `pseudonymizer.evaluation.span_confusion` counts them."""

    first: str | None
    second: str | None
    spans: int


@dataclass(frozen=True)
class Agreement:
    pairs: int
    tokens: int
    overall: AgreementRow | None  # None: no pair yet
    labels: list[AgreementRow]
    languages: list[AgreementRow]
    weeks: list[AgreementWeek]
    confusion: list[ConfusionCell] = field(default_factory=list)


@dataclass(frozen=True)
class LearnedProposals:
    """What a language's learned model proposed in the newest run that ran it (`run` None:
    no run has), counted from the spans that run stored with `learned` among their sources:
    `alone` of them no other source proposed, `accepted` a person accepted."""

    language: str
    run: int | None
    model_version: str  # as the run recorded it, e.g. "v3"
    proposed: int
    accepted: int
    alone: int = 0

    @property
    def note(self) -> str:
        if self.run is None:
            return "no run has used a learned model for this language yet"
        if not self.proposed:
            return LEARNED_NOTHING_NOTE
        return ""


@dataclass(frozen=True)
class Quality:
    language: str | None
    run: RunScope
    agreement: Agreement
    preannotation: Preannotation


# --- Reading spans ---------------------------------------------------------------------------


def _engine_span(start: int, end: int, label: str) -> EngineSpan | None:
    try:
        return EngineSpan(start, end, label)
    except ValueError:  # offsets a row should never hold: left out rather than fail the page
        return None


def _chunks(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    for index in range(0, len(ids), CHUNK):
        yield ids[index : index + CHUNK]


Totals = dict[str, Scores]  # label → scores summed over documents


def _add(totals: Totals, more: Totals) -> None:
    for label, scores in more.items():
        totals[label] = totals.get(label, Scores()) + scores


def _mode_scores(mode: Mode, totals: Totals) -> ModeScores:
    """Per label and micro from summed per-label scores, as `span_prf` sums them; the macro
    average over the labels that have final spans (a label only proposed would count as a 0
    that says nothing of the labels people decided; its proposals still lower the micro
    precision)."""
    ordered = dict(sorted(totals.items()))
    micro = sum(ordered.values(), Scores())
    decided = [scores for scores in ordered.values() if scores.gold]
    if decided:
        count = len(decided)
        macro = Averaged(
            precision=sum(s.precision for s in decided) / count,
            recall=sum(s.recall for s in decided) / count,
            f1=sum(s.f1 for s in decided) / count,
        )
    else:
        macro = Averaged(0.0, 0.0, 0.0)
    labels = [LabelScores(label, scores) for label, scores in ordered.items()]
    return ModeScores(mode=mode, labels=labels, micro=micro, macro=macro)


def _gold_only(spans: Sequence[EngineSpan]) -> Totals:
    """What the engine counts for a document with no proposal: its distinct gold spans."""
    distinct = {(s.label, s.start, s.end) for s in spans}
    counts: dict[str, int] = defaultdict(int)
    for label, _, _ in distinct:
        counts[label] += 1
    return {label: Scores(gold=n) for label, n in counts.items()}


def _scores(
    mode: Mode,
    gold: Sequence[Sequence[EngineSpan]],
    pred: Sequence[Sequence[EngineSpan]],
    gold_only: Sequence[Totals],
) -> Totals:
    """Per-label scores of `pred` against `gold`, one list per document. The engine scores the
    documents with proposals; those without only add their gold (`gold_only`), as they would
    in the engine, without the work."""
    picked = [index for index, spans in enumerate(pred) if spans]
    totals: Totals = {}
    if picked:
        report = span_prf([gold[i] for i in picked], [pred[i] for i in picked], mode=mode)
        _add(totals, report.per_label)
    for index, spans in enumerate(pred):
        if not spans:
            _add(totals, gold_only[index])
    return totals


# --- Pre-annotation --------------------------------------------------------------------------


def _scope_documents(project: Project, language: str | None, run: RunScope) -> dict[int, str]:
    """Finished originals (not replicas) of the scope: id → language."""
    documents = Document.objects.filter(
        project=project, status__in=FINISHED, replica_of__isnull=True
    )
    if language:
        documents = documents.filter(language=language)
    found = dict(documents.values_list("id", "language").iterator(chunk_size=CHUNK))
    if isinstance(run, int):
        covered = _covered(run)
        found = {pk: lang for pk, lang in found.items() if pk in covered}
    return found


def _covered(run: int) -> set[int]:
    """The documents a run went through."""
    covered: set[int] = set()
    for ids in RunBatch.objects.filter(run_id=run).values_list("document_ids", flat=True):
        covered.update(ids)
    return covered


def _predicts(run: RunScope, source: str, run_id: int | None) -> bool:
    """Whether a span of `source` made by `run_id` is one of the scope's proposals."""
    if run is None:
        return source in PREDICTING_SOURCES
    if run == IMPORT_SCOPE:
        return source == Source.IMPORT
    return run_id == run and source in PREDICTING_SOURCES


@dataclass(frozen=True)
class PreannotationCounts:
    """Pre-annotation counted over some documents: per (language, source, mode), per label
    scores summed over the language's documents, and how many documents each language has.
    Measures of disjoint documents add up (`+`)."""

    totals: dict[tuple[str, str, Mode], Totals] = field(default_factory=dict)
    documents: dict[str, int] = field(default_factory=dict)

    def __add__(self, other: PreannotationCounts) -> PreannotationCounts:
        totals = {key: dict(value) for key, value in self.totals.items()}
        for key, value in other.totals.items():
            _add(totals.setdefault(key, {}), value)
        documents = dict(self.documents)
        for code, count in other.documents.items():
            documents[code] = documents.get(code, 0) + count
        return PreannotationCounts(totals, documents)

    def of_language(self, language: str) -> PreannotationCounts:
        totals = {key: value for key, value in self.totals.items() if key[0] == language}
        documents = {code: n for code, n in self.documents.items() if code == language}
        return PreannotationCounts(totals, documents)


def _measure(project: Project, documents: dict[int, str], run: RunScope) -> PreannotationCounts:
    """Score the proposals of scope `run` in `documents` (id → language, finished originals
    of `project`) against their final spans."""
    spans = Span.objects.filter(document__project=project)
    accepted = Q(status=SpanStatus.ACCEPTED)
    if isinstance(run, int):
        spans = spans.filter(accepted | Q(run_id=run, source__in=PREDICTING_SOURCES))
    elif run == IMPORT_SCOPE:
        spans = spans.filter(accepted | Q(source=Source.IMPORT))
    else:
        spans = spans.filter(accepted | Q(source__in=PREDICTING_SOURCES))

    gold: dict[int, list[EngineSpan]] = defaultdict(list)
    # Per document, each source's proposals, and every proposal once (ALL_SOURCES).
    pred: dict[int, dict[str, list[EngineSpan]]] = defaultdict(lambda: defaultdict(list))
    columns = (
        "document_id", "status", "source", "sources", "run_id", "start", "end", "label",
        "proposed_start", "proposed_end", "proposed_label",
    )  # fmt: skip
    for ids in _chunks(sorted(documents)):
        rows = spans.filter(document_id__in=ids).values_list(*columns).iterator(chunk_size=CHUNK)
        for (
            doc_id, status, source, sources, run_id, start, end, label, p_start, p_end, p_label,
        ) in rows:  # fmt: skip
            if status == SpanStatus.ACCEPTED:
                span = _engine_span(start, end, label)
                if span is not None:
                    gold[doc_id].append(span)
            if _predicts(run, source, run_id):
                proposal = None
                if p_start is not None and p_end is not None:
                    proposal = _engine_span(p_start, p_end, p_label or label)
                proposal = proposal or _engine_span(start, end, label)
                if proposal is not None:
                    pred[doc_id][ALL_SOURCES].append(proposal)
                    for proposer in span_sources(source, sources):
                        if proposer in PREDICTING_SOURCES:
                            pred[doc_id][proposer].append(proposal)

    if run == IMPORT_SCOPE:  # judged on the documents that came with spans
        documents = {pk: lang for pk, lang in documents.items() if pred.get(pk)}
    codes = sorted(set(documents.values()))
    totals: dict[tuple[str, str, Mode], Totals] = {}  # (language, source, mode) → totals
    for code in codes:
        ids = sorted(pk for pk, lang in documents.items() if lang == code)
        gold_lists = [gold.get(pk, []) for pk in ids]
        gold_only = [_gold_only(spans) for spans in gold_lists]
        lists = {
            source: [pred[pk].get(source, []) if pk in pred else [] for pk in ids]
            for source in (*PREDICTING_SOURCES, ALL_SOURCES)
        }
        for source, pred_lists in lists.items():
            for mode in MODES:
                totals[code, source, mode] = _scores(mode, gold_lists, pred_lists, gold_only)
    counts = {code: sum(1 for lang in documents.values() if lang == code) for code in codes}
    return PreannotationCounts(totals, counts)


def _preannotation(run: RunScope, measured: PreannotationCounts) -> Preannotation:
    codes = sorted(measured.documents)
    totals = measured.totals

    def summed(source: str, mode: Mode) -> Totals:
        result: Totals = {}
        for code in codes:
            _add(result, totals.get((code, source, mode), {}))
        return result

    sources = [
        SourceScores(source, *(_mode_scores(mode, summed(source, mode)) for mode in MODES))
        for source in (*PREDICTING_SOURCES, ALL_SOURCES)
    ]
    languages = [
        LanguageScores(
            code,
            measured.documents[code],
            *(sum(totals.get((code, ALL_SOURCES, mode), {}).values(), Scores()) for mode in MODES),
        )
        for code in codes
    ]
    overall = sources[-1]
    strict_by = {row.label: row.scores for row in overall.strict.labels}
    relaxed_by = {row.label: row.scores for row in overall.relaxed.labels}
    # A final span is proposed when a proposal of its label overlaps it: relaxed recall's
    # count, every source together.
    misses = [
        Miss(
            label=label,
            gold=seen.gold,
            missed=seen.gold - seen.matched_gold,
            strict_recall=strict_by[label].recall,
            relaxed_recall=seen.recall,
        )
        for label, seen in relaxed_by.items()
        if seen.gold
    ]
    return Preannotation(
        scope=run,
        documents=sum(measured.documents.values()),
        sources=sources,
        languages=languages,
        misses=misses,
    )


def preannotation_quality(
    project: Project, *, language: str | None = None, run: RunScope = None
) -> Preannotation:
    """Proposals against final decisions in `project` (one language, one run or imports),
    every document scored now (`annotator.services.quality.project_quality` scores only the
    documents that changed)."""
    documents = _scope_documents(project, language, run)
    return _preannotation(run, _measure(project, documents, run))


# --- Agreement -------------------------------------------------------------------------------


SpanRow = tuple[int, int, str]  # start, end, label


@dataclass(frozen=True)
class _PairRow:
    """A finished replica and its finished original, as read: what agreement depends on."""

    language: str
    week: dt.date  # the Monday of the week the replica was last saved
    text: str
    first: tuple[SpanRow, ...]  # the original's final spans
    second: tuple[SpanRow, ...]  # the replica's


@dataclass(frozen=True)
class _Pair:
    """A pair, tokenized once, with what every grouping of pairs adds up: its token table
    and its relaxed span scores per label."""

    language: str
    week: dt.date
    tokens: list[tuple[int, int]]
    first: list[EngineSpan]
    second: list[EngineSpan]
    table: TokenTable
    scores: dict[str, Scores]


def _pair(row: _PairRow) -> _Pair:
    tokens = tokenize(row.text)
    first = [span for span in (_engine_span(*span) for span in row.first) if span is not None]
    second = [span for span in (_engine_span(*span) for span in row.second) if span is not None]
    return _Pair(
        language=row.language,
        week=row.week,
        tokens=tokens,
        first=first,
        second=second,
        table=token_table(tokens, first, second),
        scores=span_prf([first], [second], mode="relaxed").per_label,
    )


def _week(moment: dt.datetime) -> dt.date:
    day = moment.date()
    return day - dt.timedelta(days=day.weekday())


def _agreement_row(key: str, pairs: Sequence[_Pair]) -> AgreementRow:
    """Token-level kappa and relaxed F1 (the original's annotator as the reference) over
    `pairs`, as `token_agreement` and `span_prf` give them on the pairs' spans."""
    tokens = sum((pair.table for pair in pairs), TokenTable()).agreement()
    scores = sum((s for pair in pairs for s in pair.scores.values()), Scores())
    return AgreementRow(
        key=key,
        pairs=len(pairs),
        tokens=tokens.tokens,
        kappa=tokens.kappa,
        f1=scores.f1,
        first=sum(len(pair.first) for pair in pairs),
        second=sum(len(pair.second) for pair in pairs),
        kappa_reason=tokens.too_small,
    )


def _label_rows(pairs: Sequence[_Pair]) -> list[AgreementRow]:
    """Per label: binary kappa (the label or not) over every token of the pairs, and relaxed
    F1 over that label's spans; the label's tokens are those either annotator gave it."""
    labels = sorted({s.label for pair in pairs for s in (*pair.first, *pair.second)})
    every_token = sum(len(pair.tokens) for pair in pairs)
    rows: list[AgreementRow] = []
    for label in labels:
        table = TokenTable()
        counted = pairs_with = first_spans = second_spans = 0
        for pair in pairs:
            first = [s for s in pair.first if s.label == label]
            second = [s for s in pair.second if s.label == label]
            if not first and not second:
                continue  # every token outside the label for both: added below
            table += token_table(pair.tokens, first, second)
            counted += len(pair.tokens)
            pairs_with += 1
            first_spans += len(first)
            second_spans += len(second)
        if every_token > counted:
            table += TokenTable((((OUTSIDE, OUTSIDE), every_token - counted),))
        tokens = table.agreement()
        scores = sum((pair.scores.get(label, Scores()) for pair in pairs), Scores())
        rows.append(
            AgreementRow(
                key=label,
                pairs=pairs_with,
                tokens=tokens.labelled,
                kappa=tokens.kappa,
                f1=scores.f1,
                first=first_spans,
                second=second_spans,
                kappa_reason=tokens.too_small,
            )
        )
    return rows


def _confusion(pairs: Sequence[_Pair]) -> list[ConfusionCell]:
    """The spans of the pairs by (first annotator's label, second's), labels in order and
    None (no span) last."""
    counts = span_confusion([pair.first for pair in pairs], [pair.second for pair in pairs])

    def order(label: str | None) -> tuple[bool, str]:
        return label is None, label or ""

    return [
        ConfusionCell(first, second, spans)
        for (first, second), spans in sorted(
            counts.items(), key=lambda item: (order(item[0][0]), order(item[0][1]))
        )
    ]


def _pair_rows(project: Project, language: str | None) -> list[_PairRow]:
    replicas = Document.objects.filter(
        project=project,
        replica_of__isnull=False,
        status__in=FINISHED,
        replica_of__status__in=FINISHED,
    )
    if language:
        replicas = replicas.filter(language=language)
    found = list(
        replicas.order_by("id").values_list(
            "id", "replica_of_id", "language", "updated_at", "text", "replica_of__text"
        )
    )
    ids = sorted({pk for row in found for pk in row[:2]})
    spans: dict[int, list[SpanRow]] = defaultdict(list)
    for chunk in _chunks(ids):
        rows = (
            Span.objects.filter(document_id__in=chunk, status=SpanStatus.ACCEPTED)
            .order_by("id")
            .values_list("document_id", "start", "end", "label")
            .iterator(chunk_size=CHUNK)
        )
        for doc_id, start, end, label in rows:
            spans[doc_id].append((start, end, label))
    return [
        _PairRow(
            language=lang,
            week=_week(updated),
            text=text,
            first=tuple(spans.get(original, ())),
            second=tuple(spans.get(replica, ())),
        )
        for replica, original, lang, updated, text, original_text in found
        # A replica is a copy of its original; one whose text differs cannot be compared.
        if text == original_text
    ]


def _agreement(rows: Sequence[_PairRow]) -> Agreement:
    pairs = [_pair(row) for row in rows]
    if not pairs:
        return Agreement(0, 0, None, [], [], [])
    by_language: dict[str, list[_Pair]] = defaultdict(list)
    by_week: dict[dt.date, list[_Pair]] = defaultdict(list)
    for pair in pairs:
        by_language[pair.language].append(pair)
        by_week[pair.week].append(pair)
    weeks = []
    for week, of_week in sorted(by_week.items()):
        row = _agreement_row("", of_week)
        weeks.append(
            AgreementWeek(
                week=week,
                pairs=row.pairs,
                kappa=row.kappa,
                f1=row.f1,
                kappa_reason=row.kappa_reason,
            )
        )
    return Agreement(
        pairs=len(pairs),
        tokens=sum(len(pair.tokens) for pair in pairs),
        overall=_agreement_row("", pairs),
        labels=_label_rows(pairs),
        languages=[_agreement_row(code, of) for code, of in sorted(by_language.items())],
        weeks=weeks,
        confusion=_confusion(pairs),
    )


AgreementPairs = list[_PairRow]


def agreement(project: Project, *, language: str | None = None) -> Agreement:
    """Agreement between the two annotators of every finished original and replica."""
    return _agreement(_pair_rows(project, language))


# --- Parts of the kept numbers --------------------------------------------------------------

# Pre-annotation is scored in blocks of consecutive document ids, each kept (by
# `annotator.services.quality`) for the state of its documents: what the scores read of them
# (the language; each span's offsets, label, proposal, sources, run, and whether it is
# accepted) and nothing else. A lead's decision, a keep reason or an entity on a span rescores
# nothing; a document finished, or a span moved or relabelled, rescores its block alone.
BLOCK = 256
_UNIT = "chr(31)"  # between the fields of a span in its digest: in no label

# One row per finished original: its id, language and a digest of its spans' fields above.
_STATES_SQL = {
    "postgresql": f"""
        SELECT d.id, d.language, COUNT(s.id), COALESCE(SUM(hashtextextended(concat_ws({_UNIT},
            s.id, s.status = %(accepted)s, s.source, COALESCE(s.run_id, -1), s.start, s."end",
            COALESCE(s.proposed_start, -1), COALESCE(s.proposed_end, -1), s.label,
            s.proposed_label, COALESCE(s.sources::text, '')), 0)), 0), ''
        FROM {{document}} d LEFT JOIN {{span}} s ON s.document_id = d.id
        WHERE d.project_id = %(project)s AND d.status IN {{finished}} AND d.replica_of_id IS NULL
        GROUP BY d.id, d.language""",
    # Elsewhere, the spans' versions: every change a person makes moves one.
    "other": """
        SELECT d.id, d.language, COUNT(s.id), COALESCE(SUM(s.version), 0),
            COALESCE(MAX(s.updated_at), '')
        FROM {document} d LEFT JOIN {span} s ON s.document_id = d.id
        WHERE d.project_id = %(project)s AND d.status IN {finished} AND d.replica_of_id IS NULL
        GROUP BY d.id, d.language""",
}


def _document_states(project: Project) -> dict[int, tuple[str, str]]:
    """Finished originals: id → (language, the state of what pre-annotation reads of it)."""
    finished = {f"finished{index}": str(status) for index, status in enumerate(FINISHED)}
    sql = _STATES_SQL["postgresql" if connection.vendor == "postgresql" else "other"].format(
        document=Document._meta.db_table,
        span=Span._meta.db_table,
        finished="(" + ", ".join(f"%({name})s" for name in finished) + ")",
    )
    params: dict[str, str | int] = {
        **finished,
        "project": project.pk,
        "accepted": str(SpanStatus.ACCEPTED),
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {pk: (lang, f"{n}:{digest}:{changed}") for pk, lang, n, digest, changed in cursor}


def digest(value: object) -> str:
    """A short digest of `value`'s repr: a state, in a cache key."""
    return hashlib.sha256(repr(value).encode()).hexdigest()[:32]


@dataclass(frozen=True)
class DocumentBlock:
    """Finished originals of consecutive ids (`BLOCK` of them at most), scored together:
    `state` digests what pre-annotation reads of them, and changes when that does."""

    index: int
    state: str
    documents: dict[int, str]  # id → language


def preannotation_blocks(project: Project, *, run: RunScope = None) -> list[DocumentBlock]:
    """The blocks of the finished originals that scope `run` judges, in order."""
    states = _document_states(project)
    if isinstance(run, int):
        covered = _covered(run)
        states = {pk: state for pk, state in states.items() if pk in covered}
    blocks: dict[int, list[tuple[int, tuple[str, str]]]] = defaultdict(list)
    for pk, state in sorted(states.items()):
        blocks[pk // BLOCK].append((pk, state))
    return [
        DocumentBlock(index, digest(rows), {pk: state[0] for pk, state in rows})
        for index, rows in blocks.items()
    ]


def preannotation_counts(
    project: Project, block: DocumentBlock, *, run: RunScope = None
) -> PreannotationCounts:
    """Scope `run`'s proposals in one block's documents against their final spans."""
    return _measure(project, block.documents, run)


def preannotation_of(
    counts: Iterable[PreannotationCounts], *, language: str | None = None, run: RunScope = None
) -> Preannotation:
    """`preannotation_quality` from the counts of all the scope's blocks."""
    measured = sum(counts, PreannotationCounts())
    if language:
        measured = measured.of_language(language)
    return _preannotation(run, measured)


def agreement_pairs(project: Project, *, language: str | None = None) -> AgreementPairs:
    """The finished replicas and their originals, as `agreement` reads them: what it depends
    on (their documents, and the final spans of both sides; a lead's decision is not)."""
    return _pair_rows(project, language)


def agreement_of(pairs: AgreementPairs) -> Agreement:
    """`agreement` of pairs `agreement_pairs` read."""
    return _agreement(pairs)


def quality_state(project: Project) -> str:
    """What the numbers depend on, in two aggregate queries: any span added, removed or
    changed by a person (every change bumps its version), and any document finished,
    reopened or changed, gives another value."""
    spans = Span.objects.filter(document__project=project).aggregate(
        n=Count("id"), top=Max("id"), versions=Sum("version"), changed=Max("updated_at")
    )
    documents = Document.objects.filter(project=project).aggregate(
        n=Count("id"),
        versions=Sum("version"),
        changed=Max("updated_at"),
        finished=Count("id", filter=Q(status__in=FINISHED)),
    )
    state = json.dumps([spans, documents], sort_keys=True, default=str)
    return hashlib.sha256(state.encode()).hexdigest()[:32]


# --- Learned proposals -----------------------------------------------------------------------


def learned_proposals(project: Project) -> list[LearnedProposals]:
    """For each language of the project: the newest run that ran a learned model for it, the
    model version it recorded, and the spans with `learned` among their sources it stored in
    that language's documents (how many no other source proposed, and how many a person
    accepted). Counts only, no text."""
    runs = (
        PreannotationRun.objects.filter(project=project)
        .order_by("-created_at", "-pk")
        .values_list("pk", "models_used")
    )
    newest: dict[str, tuple[int, str]] = {}
    for pk, models_used in runs.iterator():
        for key, version in (models_used or {}).items():
            if isinstance(key, str) and key.startswith(LEARNED_PREFIX) and version:
                newest.setdefault(key.removeprefix(LEARNED_PREFIX), (pk, str(version)))
    found: list[LearnedProposals] = []
    for language in project.languages:
        if language not in newest:
            found.append(LearnedProposals(language, None, "", 0, 0))
            continue
        run, version = newest[language]
        found.append(_learned_counts(language, run, version))
    return found


def _learned_counts(language: str, run: int, version: str) -> LearnedProposals:
    """What the run stored with `learned` among a span's sources in `language`'s documents.
    Spans of any source that others joined are read and sorted here, as a JSON list's
    contents cannot be filtered on every database (SQLite); they are few beside the run's."""
    spans = Span.objects.filter(run_id=run, document__language=language)
    alone = spans.filter(source=Source.LEARNED, sources__isnull=True).aggregate(
        proposed=Count("id"), accepted=Count("id", filter=Q(status=SpanStatus.ACCEPTED))
    )
    proposed, accepted = alone["proposed"], alone["accepted"]
    shared = spans.filter(sources__isnull=False).values_list("source", "sources", "status")
    for source, sources, status in shared.iterator(chunk_size=CHUNK):
        if Source.LEARNED in span_sources(source, sources):
            proposed += 1
            accepted += status == SpanStatus.ACCEPTED
    return LearnedProposals(
        language, run, version, proposed=proposed, accepted=accepted, alone=alone["proposed"]
    )
