"""The quality page's kept numbers: scoring only what changed gives what scoring everything
gives, on a varied project, after every kind of change."""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict
from typing import Any

import pytest
from django.core.cache import cache
from django.db.models import F

from annotator.models import (
    Document,
    DocumentStatus,
    PreannotationRun,
    Project,
    RunBatch,
    Span,
    SpanStatus,
)
from annotator.selectors import quality
from annotator.selectors.quality import (
    Agreement,
    AgreementRow,
    AgreementWeek,
    ConfusionCell,
    RunScope,
    preannotation_quality,
)
from annotator.services.quality import project_quality
from pseudonymizer.evaluation import span_confusion, span_prf, token_agreement
from pseudonymizer.spans import Span as EngineSpan
from tests.factories import DocumentFactory, ProjectFactory, SpanFactory

pytestmark = pytest.mark.django_db

TEXTS = {
    "en": "Moshe Chaya met Sara Mansour in Beirut on Monday; mail ana@example.org or call.",
    "fr": "Il habite Rue Alphonse Metayer depuis 2019 avec Bob et l'équipe d'Acme à Paris.",
    "ar": "التقى موشيه حايا 🙂 مع سارة منصور في بيروت يوم الاثنين وكتب إلى ana@example.org",
}
LABELS = ["PER", "LOC", "ORG", "DATE"]
MACHINES = ["regex", "ner", "known", "learned", "import"]


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    cache.clear()


@pytest.fixture
def small_blocks(monkeypatch: Any) -> None:
    """Three documents a block, so that a project of a few dozen has many."""
    monkeypatch.setattr(quality, "BLOCK", 3)


def random_span(rng: random.Random, document: Document, runs: list[PreannotationRun]) -> Span:
    length = len(document.text)
    start = rng.randrange(0, length - 1)
    end = rng.randrange(start + 1, min(length, start + 20) + 1)
    source = rng.choice([*MACHINES, "human", "human"])
    fields: dict[str, Any] = {
        "document": document,
        "start": start,
        "end": end,
        "label": rng.choice(LABELS),
        "source": source,
        "status": rng.choice(list(SpanStatus)),
    }
    if source != "human":
        fields["run"] = rng.choice([*runs, None]) if source in ("regex", "ner", "learned") else None
        shape = rng.randrange(5)
        if shape == 0:  # proposed where it stands
            fields.update(proposed_start=start, proposed_end=end, proposed_label=fields["label"])
        elif shape == 1:  # moved and relabelled by a person since
            p_start = max(0, start - rng.randrange(3))
            fields.update(proposed_start=p_start, proposed_end=end + 1,
                          proposed_label=rng.choice(LABELS))  # fmt: skip
        elif shape == 2:  # no label recorded with the proposal
            fields.update(proposed_start=start, proposed_end=max(start + 1, end - 2))
        elif shape == 3:  # offsets a row should never hold: the span as it stands
            fields.update(proposed_start=end, proposed_end=start, proposed_label="ORG")
    return SpanFactory(**fields)


def varied_project(seed: int = 3) -> tuple[Project, list[PreannotationRun]]:
    rng = random.Random(seed)
    project = ProjectFactory(languages=list(TEXTS))
    runs = [
        PreannotationRun.objects.create(project=project, status="done"),
        PreannotationRun.objects.create(project=project, status="done"),
    ]
    statuses = [DocumentStatus.DONE, DocumentStatus.REVIEWED, DocumentStatus.IN_PROGRESS,
                DocumentStatus.NEW]  # fmt: skip
    documents = []
    for number in range(30):
        language = rng.choice(list(TEXTS))
        document = DocumentFactory(
            project=project, language=language, text=TEXTS[language],
            status=rng.choice(statuses),
        )  # fmt: skip
        documents.append(document)
        for _ in range(rng.randrange(0, 9)):
            span = random_span(rng, document, runs)
            if rng.random() < 0.15:  # the same span twice (two sources, or twice one)
                SpanFactory(document=document, start=span.start, end=span.end, label=span.label,
                            source=rng.choice(MACHINES), status=span.status)  # fmt: skip
        if number % 3 == 0:  # double annotation, both sides mostly finished
            if number % 9:
                Document.objects.filter(pk=document.pk).update(status=DocumentStatus.REVIEWED)
            text = document.text if number % 12 else document.text + " (edited)"
            replica = DocumentFactory(
                project=project, language=language, text=text, replica_of=document,
                status=rng.choice([DocumentStatus.DONE, DocumentStatus.DONE,
                                   DocumentStatus.REVIEWED, DocumentStatus.IN_PROGRESS]),
            )  # fmt: skip
            for span in document.spans.all():  # the second annotator mostly agrees
                if rng.random() < 0.7:
                    label = span.label if rng.random() < 0.8 else rng.choice(LABELS)
                    SpanFactory(document=replica, start=span.start, end=span.end, label=label,
                                source="human", status=SpanStatus.ACCEPTED)  # fmt: skip
            for _ in range(rng.randrange(0, 4)):
                random_span(rng, replica, runs)
            moment = dt.datetime(2026, 3, 1 + number % 20, 12, tzinfo=dt.UTC)
            Document.objects.filter(pk=replica.pk).update(updated_at=moment)
    ids = [document.pk for document in documents]
    RunBatch.objects.create(run=runs[0], number=1, language="en", document_ids=ids[::2])
    RunBatch.objects.create(run=runs[1], number=1, language="fr", document_ids=ids[5:20])
    return project, runs


def engine_agreement(project: Project, language: str | None) -> Agreement:
    """Agreement as the engine gives it on the pairs' spans, every grouping computed afresh."""
    replicas = Document.objects.filter(
        project=project, replica_of__isnull=False, status__in=quality.FINISHED,
        replica_of__status__in=quality.FINISHED,
    ).order_by("id")  # fmt: skip
    if language:
        replicas = replicas.filter(language=language)
    pairs = []
    for replica in replicas:
        original = replica.replica_of
        assert original is not None
        if replica.text != original.text:
            continue
        spans = [
            [EngineSpan(s.start, s.end, s.label) for s in document.spans.all()
             if s.status == SpanStatus.ACCEPTED]
            for document in (original, replica)
        ]  # fmt: skip
        pairs.append((replica, spans[0], spans[1]))
    if not pairs:
        return Agreement(0, 0, None, [], [], [])

    def row(key: str, group: list[Any], label: str | None = None) -> AgreementRow:
        first = [[s for s in a if label is None or s.label == label] for _, a, _ in group]
        second = [[s for s in b if label is None or s.label == label] for _, _, b in group]
        tokens = token_agreement(first, second, [replica.text for replica, _, _ in group])
        return AgreementRow(
            key=key,
            pairs=len(group)
            if label is None
            else sum(1 for a, b in zip(first, second, strict=True) if a or b),
            tokens=tokens.tokens if label is None else tokens.labelled,
            kappa=tokens.kappa,
            f1=span_prf(first, second, mode="relaxed", by_label=False).micro.f1,
            first=sum(map(len, first)),
            second=sum(map(len, second)),
            kappa_reason=tokens.too_small,
        )

    by_language: dict[str, list[Any]] = defaultdict(list)
    by_week: dict[dt.date, list[Any]] = defaultdict(list)
    for pair in pairs:
        by_language[pair[0].language].append(pair)
        day = pair[0].updated_at.date()
        by_week[day - dt.timedelta(days=day.weekday())].append(pair)
    labels = sorted({s.label for _, a, b in pairs for s in (*a, *b)})
    counts = span_confusion([a for _, a, _ in pairs], [b for _, _, b in pairs])
    return Agreement(
        pairs=len(pairs),
        tokens=row("", pairs).tokens,
        overall=row("", pairs),
        labels=[row(label, pairs, label) for label in labels],
        languages=[row(code, group) for code, group in sorted(by_language.items())],
        weeks=[
            AgreementWeek(week, w.pairs, w.kappa, w.f1, w.kappa_reason)
            for week, w in ((week, row("", group)) for week, group in sorted(by_week.items()))
        ],
        confusion=[
            ConfusionCell(first, second, n)
            for (first, second), n in sorted(
                counts.items(),
                key=lambda item: [(label is None, label or "") for label in item[0]],
            )
        ],
    )


def scopes(runs: list[PreannotationRun]) -> list[tuple[str | None, RunScope]]:
    return [
        (language, run)
        for language in (None, "en", "fr", "ar")
        for run in (None, "import", runs[0].pk, runs[1].pk)
    ]


def assert_as_if_scored_afresh(
    project: Project, runs: list[PreannotationRun], change: int | None = None
) -> None:
    for language, run in scopes(runs):
        kept = project_quality(project, language=language, run=run)
        fresh = preannotation_quality(project, language=language, run=run)
        assert kept.preannotation == fresh, (change, language, run)
        assert kept.agreement == engine_agreement(project, language), (change, language, run)


def test_kept_numbers_are_those_of_a_full_computation(small_blocks: None) -> None:
    project, runs = varied_project()
    assert_as_if_scored_afresh(project, runs)
    # The project is varied enough to mean something.
    overall = project_quality(project).preannotation.overall
    assert overall.strict.micro.pred > 20 and overall.relaxed.micro.matched_gold > 5
    assert project_quality(project).agreement.pairs >= 3
    assert {row.language for row in project_quality(project).preannotation.languages} == set(TEXTS)


def test_after_each_kind_of_change_the_numbers_are_those_of_a_full_computation(
    small_blocks: None,
) -> None:
    project, runs = varied_project(seed=11)
    assert_as_if_scored_afresh(project, runs)
    rng = random.Random(5)
    spans = Span.objects.filter(document__project=project)
    finished = Document.objects.filter(project=project, status__in=quality.FINISHED)
    bump = {"version": F("version") + 1}  # as every write of a person or a machine does
    changes = [
        lambda: spans.filter(pk=rng.choice(list(spans.values_list("pk", flat=True)))).update(
            label="ORG", **bump
        ),
        lambda: spans.filter(status=SpanStatus.PROPOSED).update(status=SpanStatus.ACCEPTED, **bump),
        lambda: spans.filter(pk=spans.filter(status=SpanStatus.ACCEPTED)[0].pk).delete(),
        lambda: (
            Document.objects.filter(project=project, status=DocumentStatus.IN_PROGRESS)
            .filter(pk__in=[d.pk for d in Document.objects.filter(project=project)[:15]])
            .update(status=DocumentStatus.DONE, **bump)
        ),
        lambda: finished.filter(replica_of__isnull=False).update(
            status=DocumentStatus.IN_PROGRESS, **bump
        ),
        lambda: spans.filter(start__lt=10).update(end=40, proposed_start=None, **bump),
        # A run's batches change with the proposals it writes.
        lambda: (
            RunBatch.objects.filter(run=runs[1]).update(document_ids=[]),
            spans.filter(run=runs[1]).update(run=runs[0], **bump),
        ),
        # Who else proposed a span: it counts for them too (the digest reads `sources`).
        lambda: spans.filter(source="ner").update(sources=["ner", "learned"], **bump),
    ]
    for number, change in enumerate(changes):
        change()
        assert_as_if_scored_afresh(project, runs, number)


def measured_documents(monkeypatch: Any) -> list[set[int]]:
    """The documents of each block scored from now on."""
    scored: list[set[int]] = []
    real = quality._measure

    def counted(project: Project, documents: dict[int, str], run: RunScope) -> Any:
        scored.append(set(documents))
        return real(project, documents, run)

    monkeypatch.setattr(quality, "_measure", counted)
    return scored


def test_a_change_to_one_document_scores_its_block_alone(
    small_blocks: None, monkeypatch: Any
) -> None:
    project, runs = varied_project()
    project_quality(project)
    scored = measured_documents(monkeypatch)
    span = Span.objects.filter(
        document__project=project,
        document__status=DocumentStatus.DONE,
        document__replica_of__isnull=True,
    ).first()
    assert span is not None
    label = "DATE" if span.label != "DATE" else "PER"
    Span.objects.filter(pk=span.pk).update(label=label, version=F("version") + 1)
    changed = project_quality(project)
    assert len(scored) == 1 and span.document_id in scored[0] and len(scored[0]) <= 3
    assert changed.preannotation == preannotation_quality(project)


def test_a_decision_on_spans_scores_nothing_again(monkeypatch: Any) -> None:
    """What a lead's resolution changes on every span of an entity (its decision, keep reason,
    version) is nothing the numbers read: they are served as they were, scoring nothing."""
    project, runs = varied_project()
    before = project_quality(project)
    scored = measured_documents(monkeypatch)
    paired: list[int] = []
    real = quality._agreement
    monkeypatch.setattr(quality, "_agreement", lambda rows: paired.append(1) or real(rows))
    Span.objects.filter(document__project=project).update(
        decision="keep", keep_reason="a public figure", version=7, entity_id=12
    )
    after = project_quality(project)
    assert (scored, paired) == ([], [])
    assert after == before
    # A relabel is another matter: the blocks and the pairs it touches are scored again.
    Span.objects.filter(document__project=project, label="PER").update(
        label="ORG", version=F("version") + 1
    )
    relabelled = project_quality(project)
    assert scored and paired
    assert relabelled.preannotation == preannotation_quality(project)
    assert relabelled.agreement == engine_agreement(project, None)
