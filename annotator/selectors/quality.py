"""Measured quality: how far annotators agree, and how good pre-annotation is.

Final decisions (the gold) are the ACCEPTED spans of documents a person finished (done or
reviewed), at their current offsets and label. Everything is scored by the engine
(`pseudonymizer.evaluation`): spans are read in one pass with `values_list(...).iterator()`,
grouped by document, and handed to the engine as one list of spans per document.

- Agreement: an original and its replica (`Document.replica_of`, a blind second annotation),
  both finished. Token-level Cohen's kappa, and relaxed span F1 with the original's
  annotator as the reference (F1 is symmetric in precision and recall, so swapping the
  reference gives the same F1). Per label, kappa is the binary one: a token is the label or
  not. Over time, pairs are grouped by the ISO week in which the replica was last saved.
- Pre-annotation: what machines proposed (regex, ner, known, import), at the offsets and
  label they proposed (`proposed_*`; the current ones where a row has none), whatever a
  person then did with it: a rejected proposal is a false positive. Replicas are left out
  (they repeat their original). A scope picks the predictions and the documents they are
  judged on: every machine span over every finished document; one run's spans over the
  documents the run went through; or imported spans over the documents that came with some.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from django.core.cache import cache
from django.db.models import Count, Max, Q, Sum

from annotator.models import Document, DocumentStatus, Project, RunBatch, Span, SpanStatus
from pseudonymizer.evaluation import Averaged, Scores, cohen_kappa_tokens, span_prf, tokenize
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
# How long computed numbers are kept for one state of the project's data.
QUALITY_CACHE_SECONDS = 3600
# Ids per IN (...) when reading the spans of a set of documents.
CHUNK = 5000

RunScope = int | Literal["import"] | None

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
    """Of one label's gold spans: how many no machine proposed (no proposal overlaps them,
    whatever its label), and the recall of every source together."""

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
    """Agreement over one label or one language (or everything: key "")."""

    key: str
    pairs: int
    tokens: int
    kappa: float
    f1: float
    first: int  # spans of the first annotator
    second: int  # spans of the second


@dataclass(frozen=True)
class AgreementWeek:
    week: dt.date  # its Monday
    pairs: int
    kappa: float
    f1: float

    @property
    def name(self) -> str:
        year, week, _ = self.week.isocalendar()
        return f"{year}-W{week:02d}"


@dataclass(frozen=True)
class Agreement:
    pairs: int
    tokens: int
    overall: AgreementRow | None  # None: no pair yet
    labels: list[AgreementRow]
    languages: list[AgreementRow]
    weeks: list[AgreementWeek]


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
    """Per label, micro and macro from summed per-label scores, as `span_prf` sums them."""
    ordered = dict(sorted(totals.items()))
    micro = sum(ordered.values(), Scores())
    if ordered:
        count = len(ordered)
        macro = Averaged(
            precision=sum(s.precision for s in ordered.values()) / count,
            recall=sum(s.recall for s in ordered.values()) / count,
            f1=sum(s.f1 for s in ordered.values()) / count,
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
        covered: set[int] = set()
        for ids in RunBatch.objects.filter(run_id=run).values_list("document_ids", flat=True):
            covered.update(ids)
        found = {pk: lang for pk, lang in found.items() if pk in covered}
    return found


def _predicts(run: RunScope, source: str, run_id: int | None) -> bool:
    """Whether a span of `source` made by `run_id` is one of the scope's proposals."""
    if run is None:
        return source in PREDICTING_SOURCES
    if run == IMPORT_SCOPE:
        return source == Source.IMPORT
    return run_id == run and source in PREDICTING_SOURCES


def preannotation_quality(
    project: Project, *, language: str | None = None, run: RunScope = None
) -> Preannotation:
    """Proposals against final decisions in `project` (one language, one run or imports)."""
    documents = _scope_documents(project, language, run)
    spans = Span.objects.filter(
        document__project=project,
        document__status__in=FINISHED,
        document__replica_of__isnull=True,
    )
    if language:
        spans = spans.filter(document__language=language)
    accepted = Q(status=SpanStatus.ACCEPTED)
    if isinstance(run, int):
        spans = spans.filter(accepted | Q(run_id=run, source__in=PREDICTING_SOURCES))
    elif run == IMPORT_SCOPE:
        spans = spans.filter(accepted | Q(source=Source.IMPORT))
    else:
        spans = spans.filter(accepted | Q(source__in=PREDICTING_SOURCES))

    gold: dict[int, list[EngineSpan]] = defaultdict(list)
    pred: dict[int, dict[str, list[EngineSpan]]] = defaultdict(lambda: defaultdict(list))
    rows = spans.values_list(
        "document_id", "status", "source", "run_id", "start", "end", "label",
        "proposed_start", "proposed_end", "proposed_label",
    ).iterator(chunk_size=CHUNK)  # fmt: skip
    for doc_id, status, source, run_id, start, end, label, p_start, p_end, p_label in rows:
        if doc_id not in documents:
            continue
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
                pred[doc_id][source].append(proposal)

    if run == IMPORT_SCOPE:  # judged on the documents that came with spans
        documents = {pk: lang for pk, lang in documents.items() if pred.get(pk)}
    codes = sorted(set(documents.values()))
    totals: dict[tuple[str, str, Mode], Totals] = {}  # (language, source, mode) → totals
    missed: Totals = {}  # label → Scores(gold, matched_gold: seen by some proposal)
    for code in codes:
        ids = sorted(pk for pk, lang in documents.items() if lang == code)
        gold_lists = [gold.get(pk, []) for pk in ids]
        gold_only = [_gold_only(spans) for spans in gold_lists]
        lists = {
            source: [pred[pk].get(source, []) if pk in pred else [] for pk in ids]
            for source in PREDICTING_SOURCES
        }
        lists[ALL_SOURCES] = [
            [s for source in PREDICTING_SOURCES for s in lists[source][i]] for i in range(len(ids))
        ]
        for source, pred_lists in lists.items():
            for mode in MODES:
                totals[code, source, mode] = _scores(mode, gold_lists, pred_lists, gold_only)
        # Any proposal over a gold span counts as seen, whatever label it gave it: each
        # proposal stands for every label of its document's gold, and relaxed recall per
        # label then counts the gold spans some proposal overlaps.
        every = lists[ALL_SOURCES]
        stand_ins = [
            [EngineSpan(s.start, s.end, label) for label in {g.label for g in golds} for s in preds]
            for golds, preds in zip(gold_lists, every, strict=True)
        ]
        _add(missed, _scores("relaxed", gold_lists, stand_ins, gold_only))

    def summed(source: str, mode: Mode) -> Totals:
        result: Totals = {}
        for code in codes:
            _add(result, totals[code, source, mode])
        return result

    sources = [
        SourceScores(source, *(_mode_scores(mode, summed(source, mode)) for mode in MODES))
        for source in (*PREDICTING_SOURCES, ALL_SOURCES)
    ]
    languages = [
        LanguageScores(
            code,
            sum(1 for lang in documents.values() if lang == code),
            *(sum(totals[code, ALL_SOURCES, mode].values(), Scores()) for mode in MODES),
        )
        for code in codes
    ]
    overall = sources[-1]
    strict_by = {row.label: row.scores for row in overall.strict.labels}
    relaxed_by = {row.label: row.scores for row in overall.relaxed.labels}
    misses = [
        Miss(
            label=label,
            gold=seen.gold,
            missed=seen.gold - seen.matched_gold,
            strict_recall=strict_by[label].recall,
            relaxed_recall=relaxed_by[label].recall,
        )
        for label, seen in sorted(missed.items())
    ]
    return Preannotation(
        scope=run, documents=len(documents), sources=sources, languages=languages, misses=misses
    )


# --- Agreement -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Pair:
    language: str
    finished: dt.datetime
    text: str
    tokens: int
    first: list[EngineSpan]
    second: list[EngineSpan]


def _week(moment: dt.datetime) -> dt.date:
    day = moment.date()
    return day - dt.timedelta(days=day.weekday())


def _agreement_row(key: str, pairs: Sequence[_Pair]) -> AgreementRow:
    first = [pair.first for pair in pairs]
    second = [pair.second for pair in pairs]
    texts = [pair.text for pair in pairs]
    return AgreementRow(
        key=key,
        pairs=len(pairs),
        tokens=sum(pair.tokens for pair in pairs),
        kappa=cohen_kappa_tokens(first, second, texts),
        f1=span_prf(first, second, mode="relaxed", by_label=False).micro.f1,
        first=sum(len(spans) for spans in first),
        second=sum(len(spans) for spans in second),
    )


def _label_rows(pairs: Sequence[_Pair]) -> list[AgreementRow]:
    """Per label: binary kappa (the label or not) and relaxed F1 over that label's spans."""
    texts = [pair.text for pair in pairs]
    labels = sorted({s.label for pair in pairs for s in (*pair.first, *pair.second)})
    everyone = sum(pair.tokens for pair in pairs)
    rows: list[AgreementRow] = []
    for label in labels:
        first = [[s for s in pair.first if s.label == label] for pair in pairs]
        second = [[s for s in pair.second if s.label == label] for pair in pairs]
        rows.append(
            AgreementRow(
                key=label,
                pairs=sum(1 for a, b in zip(first, second, strict=True) if a or b),
                tokens=everyone,
                kappa=cohen_kappa_tokens(first, second, texts),
                f1=span_prf(first, second, mode="relaxed", by_label=False).micro.f1,
                first=sum(len(spans) for spans in first),
                second=sum(len(spans) for spans in second),
            )
        )
    return rows


def _pairs(project: Project, language: str | None) -> list[_Pair]:
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
    spans: dict[int, list[EngineSpan]] = defaultdict(list)
    for chunk in _chunks(ids):
        rows = (
            Span.objects.filter(document_id__in=chunk, status=SpanStatus.ACCEPTED)
            .values_list("document_id", "start", "end", "label")
            .iterator(chunk_size=CHUNK)
        )
        for doc_id, start, end, label in rows:
            span = _engine_span(start, end, label)
            if span is not None:
                spans[doc_id].append(span)
    return [
        _Pair(
            language=lang,
            finished=updated,
            text=text,
            tokens=len(tokenize(text)),
            first=spans.get(original, []),
            second=spans.get(replica, []),
        )
        for replica, original, lang, updated, text, original_text in found
        # A replica is a copy of its original; one whose text differs cannot be compared.
        if text == original_text
    ]


def agreement(project: Project, *, language: str | None = None) -> Agreement:
    """Agreement between the two annotators of every finished original and replica."""
    pairs = _pairs(project, language)
    if not pairs:
        return Agreement(0, 0, None, [], [], [])
    by_language: dict[str, list[_Pair]] = defaultdict(list)
    by_week: dict[dt.date, list[_Pair]] = defaultdict(list)
    for pair in pairs:
        by_language[pair.language].append(pair)
        by_week[_week(pair.finished)].append(pair)
    weeks = []
    for week, of_week in sorted(by_week.items()):
        row = _agreement_row("", of_week)
        weeks.append(AgreementWeek(week=week, pairs=row.pairs, kappa=row.kappa, f1=row.f1))
    return Agreement(
        pairs=len(pairs),
        tokens=sum(pair.tokens for pair in pairs),
        overall=_agreement_row("", pairs),
        labels=_label_rows(pairs),
        languages=[_agreement_row(code, of) for code, of in sorted(by_language.items())],
        weeks=weeks,
    )


def _data_state(project: Project) -> str:
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


def project_quality(
    project: Project, *, language: str | None = None, run: RunScope = None
) -> Quality:
    """Everything the quality page and its endpoint show: computed once for a state of the
    project's spans and documents, then served from the cache until either changes (the
    scoring takes seconds on a large project; the state, tens of milliseconds)."""
    key = f"cloak:quality:{project.pk}:{language or ''}:{run or ''}:{_data_state(project)}"
    cached = cache.get(key)
    if isinstance(cached, Quality):
        return cached
    measured = Quality(
        language=language,
        run=run,
        agreement=agreement(project, language=language),
        preannotation=preannotation_quality(project, language=language, run=run),
    )
    cache.set(key, measured, timeout=QUALITY_CACHE_SECONDS)
    return measured
