"""Measured quality on a small project whose numbers are worked out by hand."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import pytest
from django.db.models import QuerySet

from annotator.models import (
    Document,
    DocumentStatus,
    PreannotationRun,
    Project,
    RunBatch,
    Span,
    SpanStatus,
)
from annotator.selectors.quality import (
    ALL_SOURCES,
    agreement,
    preannotation_quality,
    project_quality,
)
from pseudonymizer.evaluation import cohen_kappa_tokens, span_prf
from pseudonymizer.spans import Span as EngineSpan
from tests.factories import DocumentFactory, ProjectFactory, SpanFactory

pytestmark = pytest.mark.django_db

TEXT_A = "Moshe Chaya met Sara Mansour in Beirut on Monday."
TEXT_B = "Call +1 555 0100 now."
TEXT_D = "Il habite Rue Alphonse Metayer depuis Bob."


def at(text: str, surface: str) -> tuple[int, int]:
    start = text.index(surface)
    return start, start + len(surface)


def machine(
    document: Document,
    surface: str,
    label: str,
    *,
    source: str,
    status: str,
    run: PreannotationRun | None = None,
    proposed: str | None = None,
) -> Any:
    """A machine span now over `surface`, proposed over `proposed` (the same by default)."""
    start, end = at(document.text, surface)
    p_start, p_end = at(document.text, proposed or surface)
    return SpanFactory(
        document=document, start=start, end=end, label=label, source=source, status=status,
        run=run, proposed_start=p_start, proposed_end=p_end, proposed_label=label,
    )  # fmt: skip


def human(document: Document, surface: str, label: str, status: str = SpanStatus.ACCEPTED) -> Any:
    start, end = at(document.text, surface)
    return SpanFactory(
        document=document, start=start, end=end, label=label, source="human", status=status
    )


@dataclass
class Corpus:
    project: Project
    ner_run: PreannotationRun
    regex_run: PreannotationRun


@pytest.fixture
def corpus() -> Corpus:
    """A (en, done): Moshe Chaya proposed and accepted as is; Sara Mansour proposed as "Sara"
    and widened by a person (strict-wrong, relaxed-right); Monday proposed as LOC and rejected
    (a false positive); Beirut added by a person (a miss). B (en, done): a phone number found
    by regex. C (en, in progress): ignored. D (fr, reviewed): an import with one place accepted
    and one name rejected, and a replica of D (never counted as pre-annotation)."""
    project = ProjectFactory(languages=["en", "fr"])
    ner_run = PreannotationRun.objects.create(project=project, language="en", status="done")
    regex_run = PreannotationRun.objects.create(project=project, language="en", status="done")
    a = DocumentFactory(project=project, text=TEXT_A, status=DocumentStatus.DONE)
    b = DocumentFactory(project=project, text=TEXT_B, status=DocumentStatus.DONE)
    c = DocumentFactory(project=project, text=TEXT_A, status=DocumentStatus.IN_PROGRESS)
    d = DocumentFactory(project=project, language="fr", text=TEXT_D, status=DocumentStatus.REVIEWED)
    replica = DocumentFactory(
        project=project, language="fr", text=TEXT_D, status=DocumentStatus.DONE, replica_of=d
    )
    RunBatch.objects.create(run=ner_run, number=1, language="en", document_ids=[a.pk, c.pk])
    RunBatch.objects.create(run=regex_run, number=1, language="en", document_ids=[b.pk])

    ner = {"source": "ner", "run": ner_run}
    machine(a, "Moshe Chaya", "PER", status=SpanStatus.ACCEPTED, **ner)
    machine(a, "Sara Mansour", "PER", status=SpanStatus.ACCEPTED, proposed="Sara", **ner)
    machine(a, "Monday", "LOC", status=SpanStatus.REJECTED, **ner)
    human(a, "Beirut", "LOC")
    machine(b, "+1 555 0100", "PHONE", source="regex", status=SpanStatus.ACCEPTED, run=regex_run)
    machine(c, "Moshe Chaya", "PER", status=SpanStatus.ACCEPTED, **ner)
    machine(c, "Monday", "LOC", status=SpanStatus.REJECTED, **ner)
    machine(d, "Rue Alphonse Metayer", "LOC", source="import", status=SpanStatus.ACCEPTED)
    machine(d, "Bob", "PER", source="import", status=SpanStatus.REJECTED)
    machine(replica, "Bob", "PER", source="import", status=SpanStatus.ACCEPTED)
    return Corpus(project, ner_run, regex_run)


def by_source(result: Any, source: str) -> Any:
    return next(row for row in result.sources if row.source == source)


def label_scores(mode: Any) -> dict[str, tuple[int, int, int, int]]:
    return {
        row.label: (
            row.scores.gold,
            row.scores.pred,
            row.scores.matched_gold,
            row.scores.matched_pred,
        )
        for row in mode.labels
    }


def test_every_source_together_over_every_finished_original(corpus: Corpus) -> None:
    result = preannotation_quality(corpus.project)
    # A, B and D: the unfinished C and D's replica are left out.
    assert result.documents == 3
    overall = by_source(result, ALL_SOURCES)
    # Gold: Moshe, Sara Mansour, Beirut, the phone, the street: 5. Proposals: 3 NER, 1 regex,
    # 2 imported. Strict: Moshe, the phone, the street. Relaxed: "Sara" too.
    strict, relaxed = overall.strict.micro, overall.relaxed.micro
    assert (strict.gold, strict.pred, strict.matched_gold, strict.matched_pred) == (5, 6, 3, 3)
    assert (strict.precision, strict.recall) == (0.5, 0.6)
    assert (relaxed.matched_gold, relaxed.matched_pred) == (4, 4)
    assert relaxed.precision == pytest.approx(4 / 6)
    assert relaxed.recall == pytest.approx(4 / 5)
    assert label_scores(overall.strict) == {
        "LOC": (2, 2, 1, 1),  # Beirut missed, Monday wrong, the street right
        "PER": (2, 3, 1, 1),  # Moshe right, "Sara" moved, Bob rejected
        "PHONE": (1, 1, 1, 1),
    }
    assert label_scores(overall.relaxed)["PER"] == (2, 3, 2, 2)


def test_each_source_is_judged_on_every_final_span(corpus: Corpus) -> None:
    result = preannotation_quality(corpus.project)
    assert [row.source for row in result.sources] == [
        "regex",
        "ner",
        "known",
        "learned",
        "import",
        "all",
    ]
    ner = by_source(result, "ner")
    assert ner.proposed == 3
    assert (ner.strict.micro.matched_pred, ner.strict.micro.gold) == (1, 5)
    assert ner.strict.micro.precision == pytest.approx(1 / 3)
    assert ner.relaxed.micro.precision == pytest.approx(2 / 3)
    assert ner.relaxed.micro.recall == pytest.approx(2 / 5)
    regex = by_source(result, "regex")
    assert (regex.strict.micro.precision, regex.strict.micro.recall) == (1.0, 0.2)
    known = by_source(result, "known")
    assert (known.proposed, known.strict.micro.recall) == (0, 0.0)


def test_the_same_numbers_as_the_engine_on_the_same_spans(corpus: Corpus) -> None:
    result = preannotation_quality(corpus.project, language="en")
    gold = [
        [EngineSpan(*at(TEXT_A, s), label) for s, label in
         [("Moshe Chaya", "PER"), ("Sara Mansour", "PER"), ("Beirut", "LOC")]],
        [EngineSpan(*at(TEXT_B, "+1 555 0100"), "PHONE")],
    ]  # fmt: skip
    pred = [
        [EngineSpan(*at(TEXT_A, s), label) for s, label in
         [("Moshe Chaya", "PER"), ("Sara", "PER"), ("Monday", "LOC")]],
        [EngineSpan(*at(TEXT_B, "+1 555 0100"), "PHONE")],
    ]  # fmt: skip
    # Each source's proposals: NER's in A only, the regex's in B only.
    per_source = {ALL_SOURCES: pred, "ner": [pred[0], []], "regex": [[], pred[1]]}
    for source, proposals in per_source.items():
        for mode in ("strict", "relaxed"):
            engine = span_prf(gold, proposals, mode=mode)
            ours = getattr(by_source(result, source), mode)
            assert ours.micro == engine.micro, (source, mode)
            assert ours.macro == engine.macro, (source, mode)
            assert {row.label: row.scores for row in ours.labels} == engine.per_label


def test_per_language(corpus: Corpus) -> None:
    languages = {row.language: row for row in preannotation_quality(corpus.project).languages}
    assert (languages["en"].documents, languages["fr"].documents) == (2, 1)
    en, fr = languages["en"].strict, languages["fr"].strict
    assert (en.gold, en.pred, en.matched_gold) == (4, 4, 2)
    assert (fr.gold, fr.pred, fr.matched_gold, fr.precision, fr.recall) == (1, 2, 1, 0.5, 1.0)
    only_fr = preannotation_quality(corpus.project, language="fr")
    assert only_fr.documents == 1
    assert [row.language for row in only_fr.languages] == ["fr"]


def test_what_the_model_misses(corpus: Corpus) -> None:
    misses = {miss.label: miss for miss in preannotation_quality(corpus.project).misses}
    assert {label: (m.gold, m.missed) for label, m in misses.items()} == {
        "LOC": (2, 1),  # Beirut: nothing proposed there (Monday is elsewhere)
        "PER": (2, 0),  # "Sara" overlaps Sara Mansour
        "PHONE": (1, 0),
    }
    assert (misses["PER"].strict_recall, misses["PER"].relaxed_recall) == (0.5, 1.0)
    assert misses["LOC"].missed_share == 0.5


def test_a_proposal_under_another_label_is_no_miss_but_not_recall(corpus: Corpus) -> None:
    document = DocumentFactory(project=corpus.project, text=TEXT_A, status=DocumentStatus.DONE)
    span = machine(document, "Beirut", "PER", source="ner", status=SpanStatus.ACCEPTED)
    span.label = "LOC"  # the person relabelled it
    span.save()
    misses = {m.label: m for m in preannotation_quality(corpus.project).misses}
    assert (misses["LOC"].gold, misses["LOC"].missed) == (3, 1)
    assert misses["LOC"].relaxed_recall == pytest.approx(1 / 3)


def test_a_run_is_judged_on_its_own_documents_and_spans(corpus: Corpus) -> None:
    ner = preannotation_quality(corpus.project, run=corpus.ner_run.pk)
    # A only: C is unfinished, B not in the run.
    assert ner.documents == 1
    overall = by_source(ner, ALL_SOURCES)
    strict = overall.strict.micro
    assert (strict.gold, strict.pred, strict.matched_gold) == (3, 3, 1)
    assert by_source(ner, "regex").proposed == 0
    # A proposal that came from elsewhere (a decision propagated, no run) is not the run's.
    a = Document.objects.get(project=corpus.project, text=TEXT_A, status=DocumentStatus.DONE)
    machine(a, "Beirut", "LOC", source="known", status=SpanStatus.REJECTED)
    again = by_source(preannotation_quality(corpus.project, run=corpus.ner_run.pk), ALL_SOURCES)
    assert again.strict.micro == strict
    everything = by_source(preannotation_quality(corpus.project), "known")
    assert everything.proposed == 1
    regex = by_source(preannotation_quality(corpus.project, run=corpus.regex_run.pk), ALL_SOURCES)
    assert (regex.strict.micro.gold, regex.strict.micro.precision, regex.strict.micro.recall) == (
        1, 1.0, 1.0,
    )  # fmt: skip


def test_imports_are_grouped_on_the_documents_that_came_with_spans(corpus: Corpus) -> None:
    imported = preannotation_quality(corpus.project, run="import")
    assert imported.documents == 1  # D; its replica is no original
    strict = by_source(imported, ALL_SOURCES).strict.micro
    assert (strict.gold, strict.pred, strict.precision, strict.recall) == (1, 2, 0.5, 1.0)
    assert by_source(imported, "ner").proposed == 0


def test_unfinished_documents_are_ignored() -> None:
    project = ProjectFactory(languages=["en"])
    for status in (DocumentStatus.NEW, DocumentStatus.PREANNOTATED, DocumentStatus.IN_PROGRESS):
        document = DocumentFactory(project=project, text=TEXT_A, status=status)
        machine(document, "Moshe Chaya", "PER", source="ner", status=SpanStatus.ACCEPTED)
    result = preannotation_quality(project)
    assert result.documents == 0
    assert by_source(result, ALL_SOURCES).strict.micro.gold == 0
    assert result.misses == []


def test_a_span_without_a_recorded_proposal_is_taken_as_it_stands() -> None:
    project = ProjectFactory(languages=["en"])
    document = DocumentFactory(project=project, text=TEXT_A, status=DocumentStatus.DONE)
    start, end = at(TEXT_A, "Moshe Chaya")
    SpanFactory(document=document, start=start, end=end, label="PER", source="ner",
                status=SpanStatus.ACCEPTED)  # fmt: skip
    strict = by_source(preannotation_quality(project), ALL_SOURCES).strict.micro
    assert (strict.gold, strict.pred, strict.matched_gold) == (1, 1, 1)


def test_other_projects_do_not_count(corpus: Corpus) -> None:
    other = ProjectFactory(languages=["en"])
    document = DocumentFactory(project=other, text=TEXT_A, status=DocumentStatus.DONE)
    machine(document, "Moshe Chaya", "PER", source="ner", status=SpanStatus.ACCEPTED)
    assert preannotation_quality(corpus.project).documents == 3
    # Another project's run names no document of this one.
    run = PreannotationRun.objects.create(project=other, status="done")
    RunBatch.objects.create(run=run, number=1, language="en", document_ids=[document.pk])
    assert preannotation_quality(corpus.project, run=run.pk).documents == 0


# --- Agreement -------------------------------------------------------------------------------

PAIR_TEXT = "Moshe Chaya met Sara in Paris today."
FIRST = [("Moshe Chaya", "PER"), ("Sara", "PER"), ("Paris", "LOC")]
SECOND = [("Moshe Chaya", "PER"), ("Sara", "LOC")]


def annotate(document: Document, spans: list[tuple[str, str]]) -> None:
    for surface, label in spans:
        human(document, surface, label)


def pair(
    project: Project, *, language: str = "en", status: str = DocumentStatus.DONE
) -> tuple[Document, Document]:
    original = DocumentFactory(
        project=project, language=language, text=PAIR_TEXT, status=DocumentStatus.REVIEWED
    )
    replica = DocumentFactory(
        project=project, language=language, text=PAIR_TEXT, status=status, replica_of=original
    )
    annotate(original, FIRST)
    annotate(replica, SECOND)
    # A proposal nobody decided is no annotation of either.
    machine(replica, "Paris", "LOC", source="ner", status=SpanStatus.PROPOSED)
    return original, replica


def finished_on(documents: QuerySet[Document], day: dt.date) -> None:
    moment = dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)
    documents.update(updated_at=moment)


def engine_spans(spans: list[tuple[str, str]]) -> list[EngineSpan]:
    return [EngineSpan(*at(PAIR_TEXT, surface), label) for surface, label in spans]


def test_kappa_and_relaxed_f1_on_a_pair() -> None:
    project = ProjectFactory(languages=["en", "fr"])
    pair(project)
    result = agreement(project)
    assert (result.pairs, result.tokens) == (1, 7)
    assert result.overall is not None
    # Tokens: Moshe Chaya met Sara in Paris today. First: PER PER O PER O LOC O; second:
    # PER PER O LOC O O O. po = 5/7, pe = (3·2 + 3·4 + 1·1)/49 = 19/49: kappa = 16/30.
    assert result.overall.kappa == pytest.approx(16 / 30)
    engine = cohen_kappa_tokens([engine_spans(FIRST)], [engine_spans(SECOND)], [PAIR_TEXT])
    assert result.overall.kappa == pytest.approx(engine)
    # PER: Moshe found; LOC: nothing. P = 1/2, R = 1/3, F1 = 0.4, either way round.
    assert result.overall.f1 == pytest.approx(0.4)
    assert (result.overall.first, result.overall.second) == (3, 2)


def test_kappa_per_label_is_the_binary_one() -> None:
    project = ProjectFactory(languages=["en"])
    pair(project)
    labels = {row.key: row for row in agreement(project).labels}
    assert set(labels) == {"LOC", "PER"}
    assert labels["PER"].kappa == pytest.approx(16 / 23)
    assert labels["LOC"].kappa == pytest.approx(-2 / 12)
    for label, row in labels.items():
        first = [s for s in engine_spans(FIRST) if s.label == label]
        second = [s for s in engine_spans(SECOND) if s.label == label]
        assert row.kappa == pytest.approx(cohen_kappa_tokens([first], [second], [PAIR_TEXT]))
    assert labels["PER"].f1 == pytest.approx(2 / 3)  # P 1/1, R 1/2
    assert labels["LOC"].f1 == 0.0


def test_agreement_per_language_and_per_week() -> None:
    project = ProjectFactory(languages=["en", "fr"])
    _, first_replica = pair(project)
    _, second_replica = pair(project, language="fr")
    _, third_replica = pair(project, language="fr")
    # A perfect pair in French: the replica annotated exactly as the original.
    third_replica.spans.all().delete()
    annotate(third_replica, FIRST)
    finished_on(Document.objects.filter(pk=first_replica.pk), dt.date(2026, 3, 4))  # a Wednesday
    finished_on(Document.objects.filter(pk=second_replica.pk), dt.date(2026, 3, 8))  # Sunday
    finished_on(Document.objects.filter(pk=third_replica.pk), dt.date(2026, 3, 9))  # Monday
    result = agreement(project)
    assert result.pairs == 3
    languages = {row.key: row for row in result.languages}
    assert (languages["en"].pairs, languages["fr"].pairs) == (1, 2)
    assert languages["en"].kappa == pytest.approx(16 / 30)
    weeks = [(week.week, week.name, week.pairs) for week in result.weeks]
    assert weeks == [
        (dt.date(2026, 3, 2), "2026-W10", 2),
        (dt.date(2026, 3, 9), "2026-W11", 1),
    ]
    assert result.weeks[1].kappa == 1.0
    assert result.weeks[1].f1 == 1.0
    assert agreement(project, language="en").pairs == 1


def test_unfinished_pairs_are_ignored() -> None:
    project = ProjectFactory(languages=["en"])
    pair(project, status=DocumentStatus.IN_PROGRESS)
    original, _ = pair(project)
    Document.objects.filter(pk=original.pk).update(status=DocumentStatus.IN_PROGRESS)
    result = agreement(project)
    assert (result.pairs, result.overall, result.labels, result.weeks) == (0, None, [], [])


def test_project_quality_holds_both(corpus: Corpus) -> None:
    pair(corpus.project)
    quality = project_quality(corpus.project, language="en", run=corpus.ner_run.pk)
    assert quality.agreement.pairs == 1
    assert quality.preannotation.documents == 1
    assert (quality.language, quality.run) == ("en", corpus.ner_run.pk)


def test_the_numbers_are_computed_once_for_a_state_of_the_data(
    corpus: Corpus, monkeypatch: Any
) -> None:
    from annotator.selectors import quality

    calls: list[int] = []
    real = quality.preannotation_quality

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(quality, "preannotation_quality", counted)
    first = project_quality(corpus.project)
    again = project_quality(corpus.project)
    assert len(calls) == 1 and again == first

    # A person's change to one span (its version moves) is new data: computed again.
    span = Span.objects.filter(document__project=corpus.project, status=SpanStatus.REJECTED)[0]
    Span.objects.filter(pk=span.pk).update(status=SpanStatus.ACCEPTED, version=span.version + 1)
    changed = project_quality(corpus.project)
    assert len(calls) == 2
    assert changed.preannotation != first.preannotation
