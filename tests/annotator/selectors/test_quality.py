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
)
from annotator.services.quality import project_quality
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
    sources: list[str] | None = None,
) -> Any:
    """A machine span now over `surface`, proposed over `proposed` (the same by default)."""
    start, end = at(document.text, surface)
    p_start, p_end = at(document.text, proposed or surface)
    return SpanFactory(
        document=document, start=start, end=end, label=label, source=source, status=status,
        run=run, proposed_start=p_start, proposed_end=p_end, proposed_label=label,
        sources=sources,
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


def test_a_proposal_several_sources_made_counts_for_each_and_once_in_all(
    corpus: Corpus,
) -> None:
    # The model proposed Moshe Chaya as NER did, and Monday as NER did: both name it.
    moshe = Span.objects.get(document__status=DocumentStatus.DONE, label="PER", start=0)
    monday = Span.objects.get(document__status=DocumentStatus.DONE, label="LOC", source="ner")
    for span in (moshe, monday):
        Span.objects.filter(pk=span.pk).update(sources=["ner", "learned"])

    result = preannotation_quality(corpus.project)

    learned = by_source(result, "learned")
    assert learned.proposed == 2
    assert (learned.strict.micro.matched_pred, learned.strict.micro.gold) == (1, 5)
    assert by_source(result, "ner").proposed == 3  # still every NER proposal
    overall = by_source(result, ALL_SOURCES).strict.micro
    assert (overall.pred, overall.matched_pred) == (6, 3)  # each proposal once


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


def test_a_proposal_under_another_label_leaves_the_final_span_not_proposed(
    corpus: Corpus,
) -> None:
    document = DocumentFactory(project=corpus.project, text=TEXT_A, status=DocumentStatus.DONE)
    span = machine(document, "Beirut", "PER", source="ner", status=SpanStatus.ACCEPTED)
    span.label = "LOC"  # the person relabelled it
    span.save()
    misses = {m.label: m for m in preannotation_quality(corpus.project).misses}
    # LOC: Beirut in A (nothing proposed), the street (imported as LOC), Beirut in the new
    # document (proposed as PER: a proposal of something else). Not proposed: 2 of 3.
    assert (misses["LOC"].gold, misses["LOC"].missed) == (3, 2)
    assert misses["LOC"].relaxed_recall == pytest.approx(1 / 3)


def test_not_proposed_is_counted_per_label_and_agrees_with_recall() -> None:
    """Two e-mail addresses a person marked: one proposed as EMAIL, one only under a URL
    proposal (rejected) that overlaps it. Per label, what no proposal of the same label
    covered: one EMAIL not proposed, recall 1/2, whatever the URL proposal overlapped."""
    project = ProjectFactory(languages=["en"])
    text = "Write to ana@example.org or to www.bo@example.net today."
    document = DocumentFactory(project=project, text=text, status=DocumentStatus.DONE)
    machine(document, "ana@example.org", "EMAIL", source="regex", status=SpanStatus.ACCEPTED)
    machine(document, "www.bo", "URL", source="regex", status=SpanStatus.REJECTED)
    human(document, "bo@example.net", "EMAIL")
    result = preannotation_quality(project)
    misses = {m.label: (m.gold, m.missed, m.relaxed_recall) for m in result.misses}
    assert misses == {"EMAIL": (2, 1, 0.5)}
    assert (result.gold, result.missed) == (2, 1)
    # Not proposed is what relaxed recall leaves: gold × (1 − recall), label by label.
    for miss in result.misses:
        assert miss.missed == round(miss.gold * (1 - miss.relaxed_recall))


def test_the_label_average_is_over_the_labels_with_final_spans() -> None:
    """A label only ever proposed (DATE, rejected) has no recall to average: the F1 average
    is PER's alone, while the rejected proposal still lowers the precision of every label."""
    project = ProjectFactory(languages=["en"])
    document = DocumentFactory(project=project, text=TEXT_A, status=DocumentStatus.DONE)
    machine(document, "Moshe Chaya", "PER", source="ner", status=SpanStatus.ACCEPTED)
    machine(document, "Monday", "DATE", source="ner", status=SpanStatus.REJECTED)
    ner = by_source(preannotation_quality(project), "ner")
    for mode in (ner.strict, ner.relaxed):
        assert label_scores(mode) == {"DATE": (0, 1, 0, 0), "PER": (1, 1, 1, 1)}
        assert (mode.macro.precision, mode.macro.recall, mode.macro.f1) == (1.0, 1.0, 1.0)
        assert (mode.micro.precision, mode.micro.recall) == (0.5, 1.0)
    nothing = by_source(preannotation_quality(project), "known")
    assert nothing.strict.macro.f1 == 0.0  # PER found by no known span


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


LONG_TEXT = (
    "Acme Corp and Globex signed in Paris with Lina Haddad on Monday, and the deal was"
    " announced to the press by the two companies."
)
LONG_FIRST = [("Acme Corp", "COMP"), ("Globex", "COMP"), ("Paris", "LOC"), ("Lina Haddad", "PER")]
LONG_SECOND = [
    ("Acme Corp", "ORG"), ("Globex", "ORG"), ("Lina Haddad", "PER"), ("Monday", "DATE"),
]  # fmt: skip


def long_pair(project: Project) -> None:
    original = DocumentFactory(project=project, text=LONG_TEXT, status=DocumentStatus.REVIEWED)
    replica = DocumentFactory(
        project=project, text=LONG_TEXT, status=DocumentStatus.DONE, replica_of=original
    )
    for document, spans in ((original, LONG_FIRST), (replica, LONG_SECOND)):
        for surface, label in spans:
            start, end = at(LONG_TEXT, surface)
            SpanFactory(document=document, start=start, end=end, label=label, source="human",
                        status=SpanStatus.ACCEPTED)  # fmt: skip


def test_labels_between_the_annotators_and_words_per_label() -> None:
    """24 words. The companies are COMP for the first annotator and ORG for the second, Paris
    a place only for the first, Monday a date only for the second."""
    project = ProjectFactory(languages=["en"])
    long_pair(project)
    result = agreement(project)
    assert result.tokens == 24
    cells = {(cell.first, cell.second): cell.spans for cell in result.confusion}
    assert cells == {("COMP", "ORG"): 2, ("PER", "PER"): 1, ("LOC", None): 1, (None, "DATE"): 1}
    # Labels in order, none last.
    assert [(c.first, c.second) for c in result.confusion] == [
        ("COMP", "ORG"), ("LOC", None), ("PER", "PER"), (None, "DATE"),
    ]  # fmt: skip
    labels = {row.key: row for row in result.labels}
    # Words per label: those either annotator gave it (Acme, Corp, Globex; Paris; ...).
    assert {key: row.tokens for key, row in labels.items()} == {
        "COMP": 3, "ORG": 3, "LOC": 1, "PER": 2, "DATE": 1,
    }  # fmt: skip
    assert {key: (row.first, row.second) for key, row in labels.items()} == {
        "COMP": (2, 0), "ORG": (0, 2), "LOC": (1, 0), "PER": (1, 1), "DATE": (0, 1),
    }  # fmt: skip
    # COMP, never used by the second: po = 21/24 = pe, kappa 0, F1 0; a real 0 on 24 words.
    assert (labels["COMP"].kappa, labels["COMP"].f1, labels["COMP"].kappa_reason) == (
        0.0, 0.0, None,
    )  # fmt: skip
    assert labels["PER"].reported_kappa == 1.0
    # Overall: 7 words labelled; agreement on Lina, Haddad and the 17 words neither marked:
    # po = 19/24; pe = (O 18·18 + PER 2·2) / 576 = 328/576; kappa = (456 − 328) / (576 − 328).
    assert result.overall is not None
    assert result.overall.tokens == 24
    assert result.overall.kappa_reason is None
    assert result.overall.reported_kappa == pytest.approx(128 / 248)


def test_kappa_on_too_small_a_sample_is_not_reported() -> None:
    project = ProjectFactory(languages=["en"])
    pair(project)  # 7 words
    result = agreement(project)
    assert result.overall is not None
    assert result.overall.kappa == pytest.approx(16 / 30)  # computed, but not to be shown
    reason = "only 7 words compared; kappa needs at least 20"
    assert (result.overall.reported_kappa, result.overall.kappa_reason) == (None, reason)
    assert all(row.reported_kappa is None for row in result.labels)
    assert all(week.kappa_reason == reason for week in result.weeks)
    # 24 words that neither annotator marked: kappa would read 1.0.
    blank = ProjectFactory(languages=["en"])
    original = DocumentFactory(project=blank, text=LONG_TEXT, status=DocumentStatus.DONE)
    DocumentFactory(project=blank, text=LONG_TEXT, status=DocumentStatus.DONE, replica_of=original)
    overall = agreement(blank).overall
    assert overall is not None
    assert (overall.kappa, overall.reported_kappa) == (1.0, None)
    assert overall.kappa_reason == "no word was labelled by either annotator"


def test_what_the_learned_model_proposed_in_runs() -> None:
    from annotator.selectors import quality
    from annotator.services.runs import LEARNED_PREFIX

    assert quality.LEARNED_PREFIX == LEARNED_PREFIX
    project = ProjectFactory(languages=["en", "fr", "ar"])
    older = PreannotationRun.objects.create(
        project=project, status="done", models_used={"learned:en": "v1"}
    )
    newer = PreannotationRun.objects.create(
        project=project, status="done", models_used={"learned:en": "v2", "learned:fr": "v1"}
    )
    PreannotationRun.objects.create(project=project, status="done", models_used={"en": "spacy"})
    english = DocumentFactory(project=project, text=TEXT_A, status=DocumentStatus.DONE)
    french = DocumentFactory(project=project, language="fr", text=TEXT_D)
    learned = {"source": "learned", "run": newer}
    machine(english, "Moshe Chaya", "PER", status=SpanStatus.ACCEPTED, **learned)
    machine(english, "Sara Mansour", "PER", status=SpanStatus.ACCEPTED, **learned)
    machine(english, "Monday", "LOC", status=SpanStatus.REJECTED, **learned)
    # Counted, not alone: a known entity the model proposed too.
    machine(english, "Sara", "PER", source="known", sources=["known", "learned"],
            status=SpanStatus.ACCEPTED, run=newer)  # fmt: skip
    # Not counted: the older run's, the NER source's of the same run, and NER's shared
    # with another recognizer.
    machine(english, "Beirut", "LOC", source="learned", status=SpanStatus.PROPOSED, run=older)
    machine(english, "Beirut", "LOC", source="ner", status=SpanStatus.ACCEPTED, run=newer)
    machine(english, "Mansour", "PER", source="ner", sources=["ner", "regex"],
            status=SpanStatus.PROPOSED, run=newer)  # fmt: skip
    machine(french, "Bob", "PER", source="ner", status=SpanStatus.PROPOSED, run=newer)
    found = {row.language: row for row in quality.learned_proposals(project)}
    assert [row.language for row in quality.learned_proposals(project)] == ["en", "fr", "ar"]
    en, fr, ar = found["en"], found["fr"], found["ar"]
    assert (en.run, en.model_version, en.proposed, en.alone, en.accepted, en.note) == (
        newer.pk, "v2", 4, 3, 3, "",
    )  # fmt: skip
    # The French model ran but proposed nothing that run stored: 0, and why.
    assert (fr.run, fr.proposed, fr.accepted) == (newer.pk, 0, 0)
    assert fr.note == "the model proposed nothing that run stored in this language"
    assert (ar.run, ar.proposed) == (None, 0)
    assert ar.note == "no run has used a learned model for this language yet"


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
    real = quality._measure

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(quality, "_measure", counted)
    first = project_quality(corpus.project)
    again = project_quality(corpus.project)
    assert len(calls) == 1 and again == first

    # A person's change to one span (its version moves) is new data: computed again.
    span = Span.objects.filter(document__project=corpus.project, status=SpanStatus.REJECTED)[0]
    Span.objects.filter(pk=span.pk).update(status=SpanStatus.ACCEPTED, version=span.version + 1)
    changed = project_quality(corpus.project)
    assert len(calls) == 2
    assert changed.preannotation != first.preannotation
    assert changed.preannotation == preannotation_quality(corpus.project)
