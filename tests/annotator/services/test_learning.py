"""The project's learned models: examples from decisions, the training task, retraining after
N decisions, and a pre-annotation run that uses the newest ready model."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.forms.models import model_to_dict

from annotator import tasks
from annotator.errors import DomainError
from annotator.models import (
    AuditAction,
    AuditEvent,
    Document,
    DocumentStatus,
    JobStatus,
    LearnedModel,
    Project,
    Span,
    SpanSource,
    SpanStatus,
)
from annotator.selectors.learning import learning_examples, learning_partial_examples
from annotator.services import learning, runs
from annotator.services.spans import SpanChange, span_update
from pseudonymizer.detection import Detector
from pseudonymizer.vocabulary import Source
from tests.annotator.services.test_runs import fake_ner
from tests.factories import DocumentFactory, SpanFactory, UserFactory

pytestmark = pytest.mark.django_db

NAMES = ["Alice Martin", "Bruno Keller", "Clara Osei", "David Novak", "Elena Rossi"]
TEMPLATES = [
    "Yesterday {name} wrote to the forum again.",
    "I agree with {name} about the meeting.",
    "The post by {name} was removed.",
]


@pytest.fixture(autouse=True)
def _learning_settings(settings: Any) -> None:
    settings.CLOAK_NER_MODELS = {"en": "", "fr": "", "ar": ""}
    settings.CLOAK_LEARN_MIN_SPANS = 3
    settings.CLOAK_LEARN_ITERATIONS = 8
    settings.CLOAK_LEARN_EVERY = 200


def decided_document(
    project: Project,
    text: str,
    spans: list[tuple[int, int, str]],
    *,
    status: str = DocumentStatus.DONE,
    language: str = "en",
    rejected: list[tuple[int, int, str]] = (),  # type: ignore[assignment]
    replica_of: Document | None = None,
) -> Document:
    document = DocumentFactory(
        project=project, text=text, language=language, status=status, replica_of=replica_of
    )
    for start, end, label in spans:
        SpanFactory(
            document=document, start=start, end=end, label=label,
            source=SpanSource.HUMAN, status=SpanStatus.ACCEPTED,
        )  # fmt: skip
    for start, end, label in rejected:
        SpanFactory(
            document=document, start=start, end=end, label=label, source=Source.REGEX,
            status=SpanStatus.REJECTED, decided_by=UserFactory(),
        )  # fmt: skip
    return document


def corpus(project: Project, count: int = 30) -> list[Document]:
    """`count` finished English documents, each naming one person (PER, accepted)."""
    documents = []
    for index in range(count):
        name = NAMES[index % len(NAMES)]
        text = TEMPLATES[index % len(TEMPLATES)].format(name=name)
        start = text.index(name)
        documents.append(decided_document(project, text, [(start, start + len(name), "PER")]))
    return documents


def trained(project: Project, capture: Any, language: str = "en") -> LearnedModel:
    with capture(execute=True):
        model = learning.learned_model_train(project, language, trigger="admin")
    model.refresh_from_db()
    return model


# --- Examples ---------------------------------------------------------------------------------


def test_examples_are_the_finished_originals_with_accepted_and_rejected_spans(team: Any) -> None:
    project = team.project
    done = decided_document(
        project, "Alice Martin posted.", [(0, 12, "PER")], rejected=[(13, 19, "ORG")]
    )
    reviewed = decided_document(
        project, "Ask Bruno Keller.", [(4, 16, "PER")], status=DocumentStatus.REVIEWED
    )
    empty = decided_document(project, "Nothing to hide here.", [])
    decided_document(project, "Clara Osei is busy.", [(0, 10, "PER")], status="in_progress")
    decided_document(project, "David Novak left.", [(0, 11, "PER")], replica_of=done)
    decided_document(project, "Élena Rossi est là.", [(0, 11, "PER")], language="fr")
    # A proposal still open is no decision: neither positive nor negative; nor is one set
    # aside by nobody (as a side effect of a person's span over part of it).
    SpanFactory(document=done, start=13, end=19, label="PER", status=SpanStatus.PROPOSED)
    SpanFactory(document=done, start=6, end=19, label="PER", status=SpanStatus.REJECTED)

    pairs = list(learning_examples(project, "en"))

    assert [pk for pk, _ in pairs] == [done.pk, reviewed.pk, empty.pk]
    examples = [example for _, example in pairs]
    assert [e.text for e in examples] == [done.text, reviewed.text, empty.text]
    first = examples[0]
    assert [(s.start, s.end, s.label) for s in first.spans] == [(0, 12, "PER")]
    assert [(s.start, s.end, s.label) for s in first.rejected] == [(13, 19, "ORG")]
    assert [(s.start, s.end) for s in examples[1].spans] == [(4, 16)]
    assert examples[2].spans == [] and examples[2].rejected == []


def test_unfinished_originals_give_partial_examples_of_what_the_table_proposed(
    team: Any,
) -> None:
    project = team.project
    decided_document(project, "Alice Martin posted.", [(0, 12, "PER")])  # finished: not here
    table = decided_document(
        project,
        "Bruno Keller met Clara Osei.",
        [],
        status="in_progress",
        rejected=[(17, 21, "ORG")],
    )
    SpanFactory(document=table, start=0, end=12, label="PER", source=SpanSource.KNOWN,
                status=SpanStatus.PROPOSED)  # fmt: skip
    # A machine's guess nobody decided is no example; a person's accepted span is.
    SpanFactory(document=table, start=17, end=27, label="PER", source=Source.NER,
                status=SpanStatus.PROPOSED)  # fmt: skip
    accepted = decided_document(project, "Ask David Novak.", [(4, 15, "PER")], status="new")
    guessed = decided_document(project, "Elena Rossi wrote.", [], status="in_progress")
    SpanFactory(document=guessed, start=0, end=11, label="PER", source=Source.NER,
                status=SpanStatus.PROPOSED)  # fmt: skip
    decided_document(project, "Bruno Keller ici.", [], status="in_progress", replica_of=table)

    pairs = list(learning_partial_examples(project, "en"))

    assert [pk for pk, _ in pairs] == [table.pk, accepted.pk]
    first, second = (example for _, example in pairs)
    assert first.partial and second.partial
    assert [(s.start, s.end, s.label) for s in first.spans] == [(0, 12, "PER")]
    assert [(s.start, s.end) for s in first.rejected] == [(17, 21)]
    assert [(s.start, s.end) for s in second.spans] == [(4, 15)]


def test_a_model_trains_on_the_tables_occurrences_and_holds_out_only_finished_documents(
    team: Any, django_capture_on_commit_callbacks: Any
) -> None:
    project = team.project
    finished = corpus(project, 20)
    unfinished = []
    for index in range(10):
        name = NAMES[index % len(NAMES)]
        text = f"Nobody has read this yet, but {name} is named in it."
        document = decided_document(project, text, [], status="in_progress")
        start = text.index(name)
        SpanFactory(document=document, start=start, end=start + len(name), label="PER",
                    source=SpanSource.KNOWN, status=SpanStatus.PROPOSED)  # fmt: skip
        unfinished.append(document.pk)

    model = trained(project, django_capture_on_commit_callbacks)

    assert model.status == JobStatus.DONE, model.error
    held = set(model.held_out_documents)
    assert held and held <= {document.pk for document in finished}
    assert model.decisions_used == 20 - len(held) + len(unfinished)


def test_examples_use_the_current_offsets_and_label(team: Any) -> None:
    document = decided_document(team.project, "Alice Martin posted.", [])
    span = SpanFactory(
        document=document, start=0, end=5, label="ORG", source=Source.NER,
        status=SpanStatus.ACCEPTED, proposed_start=0, proposed_end=5, proposed_label="ORG",
    )  # fmt: skip
    Span.objects.filter(pk=span.pk).update(end=12, label="PER")

    ((_, example),) = learning_examples(team.project, "en")

    assert [(s.start, s.end, s.label) for s in example.spans] == [(0, 12, "PER")]


# --- Queueing ---------------------------------------------------------------------------------


def test_too_few_decisions_are_refused_up_front(team: Any, settings: Any) -> None:
    settings.CLOAK_LEARN_MIN_SPANS = 20
    corpus(team.project, 5)

    with pytest.raises(DomainError, match="at least 20"):
        learning.learned_model_train(team.project, "en", trigger="admin", actor=team.admin)

    assert not LearnedModel.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditAction.LEARN).exists()


def test_bad_language_or_trigger_is_refused(team: Any) -> None:
    corpus(team.project, 5)
    with pytest.raises(DomainError, match="not one of the project's"):
        learning.learned_model_train(team.project, "de", trigger="admin")
    with pytest.raises(DomainError, match="unknown trigger"):
        learning.learned_model_train(team.project, "en", trigger="whim")
    assert not LearnedModel.objects.exists()


def test_one_model_at_a_time_per_language_and_versions_go_up(
    team: Any, django_capture_on_commit_callbacks: Any
) -> None:
    corpus(team.project, 5)
    decided_document(team.project, "Élena Rossi écrit.", [(0, 11, "PER")] * 1, language="fr")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = learning.learned_model_train(team.project, "en", trigger="admin", actor=team.admin)
        again = learning.learned_model_train(team.project, "en", trigger="decisions")
    assert again.pk == first.pk
    assert len(callbacks) == 1
    assert (first.version, first.status, first.trigger) == (1, JobStatus.QUEUED, "admin")
    assert first.created_by == team.admin
    event = AuditEvent.objects.get(action=AuditAction.LEARN)
    assert event.actor == team.admin
    assert event.detail == {"language": "en", "version": 1, "trigger": "admin"}

    LearnedModel.objects.filter(pk=first.pk).update(status=JobStatus.DONE)
    second = learning.learned_model_train(team.project, "en", trigger="admin")
    assert second.version == 2


# --- The task ---------------------------------------------------------------------------------


def test_the_task_trains_records_scores_and_is_idempotent(
    team: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    corpus(team.project, 30)

    model = trained(team.project, django_capture_on_commit_callbacks)

    assert model.status == JobStatus.DONE, model.error
    assert model.path == f"learned/{team.project.slug}/en/1.sealed"
    assert (Path(settings.MEDIA_ROOT) / model.path).is_file()  # one sealed file
    assert model.labels == ["PER"]
    assert model.decisions_held_out == 6  # a fifth of 30 finished documents
    assert model.decisions_used == 24
    assert set(model.scores["*"]) == {"precision", "recall", "f1"}
    assert "PER" in model.scores
    assert model.seconds is not None and model.started_at and model.finished_at

    # The split is kept with the model: six of the corpus's documents.
    assert len(model.held_out_documents) == 6 == len(set(model.held_out_documents))
    assert set(model.held_out_documents) <= set(
        Document.objects.filter(project=team.project).values_list("pk", flat=True)
    )

    before = model_to_dict(LearnedModel.objects.get(pk=model.pk))
    assert tasks.learn(model.pk) is False  # delivered twice: the second changes nothing
    assert model_to_dict(LearnedModel.objects.get(pk=model.pk)) == before


def test_the_stored_split_is_the_one_the_scores_were_computed_on(
    team: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # People disagree on a third of the names (ORG): held-out scores below 1.0 to compare.
    documents = corpus(team.project, 30)
    Span.objects.filter(document__in=documents[::3]).update(label="ORG")
    model = trained(team.project, django_capture_on_commit_callbacks)
    assert model.status == JobStatus.DONE, model.error
    held = model.held_out_documents
    assert model.scores["*"]["f1"] < 1.0

    recognizer = learning.learned_recognizer(model)
    examples = [example for _, example in learning_examples(team.project, "en", ids=held)]

    assert len(examples) == len(held) == model.decisions_held_out
    # Scoring the stored model on the stored split gives its stored scores, every label.
    assert recognizer.score(examples) == model.scores
    # The model's own description, sealed with it, names the same documents.
    ids = [pk for pk, _ in learning_examples(team.project, "en")]
    assert [ids[index] for index in recognizer.meta["held_out_indexes"]] == held


def test_a_model_whose_examples_shrank_fails_with_a_reason(
    team: Any, django_capture_on_commit_callbacks: Any
) -> None:
    documents = corpus(team.project, 4)
    with django_capture_on_commit_callbacks(execute=False):
        model = learning.learned_model_train(team.project, "en", trigger="admin")
    Document.objects.filter(pk__in=[d.pk for d in documents[:3]]).update(status="in_progress")

    assert learning.learned_model_run(model.pk) is True

    model.refresh_from_db()
    assert model.status == JobStatus.FAILED
    assert "1 accepted spans" in model.error and "at least 3" in model.error
    assert learning.learned_model_run(model.pk) is False


def test_a_crash_fails_the_model_without_quoting_a_text(
    team: Any, django_capture_on_commit_callbacks: Any, monkeypatch: Any, caplog: Any
) -> None:
    corpus(team.project, 5)

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise ValueError(f"{NAMES[0]} broke it")  # a message quoting a document

    monkeypatch.setattr(learning, "train_bytes", boom)
    with caplog.at_level(logging.INFO):
        model = trained(team.project, django_capture_on_commit_callbacks)

    assert model.status == JobStatus.FAILED
    assert model.error == "internal error (ValueError); the worker's log has the trace"
    assert "Alice" not in caplog.text


# --- Retraining after N decisions -------------------------------------------------------------


def test_every_nth_decision_queues_a_retraining(
    team: Any, settings: Any, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    settings.CLOAK_LEARN_EVERY = 3
    settings.CLOAK_LEARN_MIN_SPANS = 1
    project = team.project
    cache.delete(learning._counter_key(project.pk, "en"))
    corpus(project, 2)
    sent: list[int] = []
    monkeypatch.setattr(tasks.learn, "delay", lambda model_id: sent.append(model_id))
    document = DocumentFactory(project=project, text="Alice Martin and Bruno Keller and Clara.")
    replica = DocumentFactory(project=project, text=document.text, replica_of=document)
    proposals = [
        SpanFactory(document=document, start=start, end=end, status=SpanStatus.PROPOSED)
        for start, end in [(0, 12), (17, 29), (34, 39)]
    ]
    replica_span = SpanFactory(document=replica, start=0, end=12, status=SpanStatus.PROPOSED)

    def decide(doc: Document, span: Span) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            span_update(
                document=doc, span_id=span.pk, actor=team.annotator_en, version=span.version,
                change=SpanChange(status=SpanStatus.REJECTED),
            )  # fmt: skip

    decide(document, proposals[0])
    decide(replica, replica_span)  # a replica's decision is not the project's: not counted
    decide(document, proposals[1])
    assert not LearnedModel.objects.exists()

    decide(document, proposals[2])

    model = LearnedModel.objects.get()
    assert (model.trigger, model.status, model.created_by) == (
        "decisions",
        JobStatus.QUEUED,
        None,
    )
    assert sent == [model.pk]


def test_the_counter_never_fails_a_decision(team: Any, settings: Any, monkeypatch: Any) -> None:
    settings.CLOAK_LEARN_EVERY = 1
    settings.CLOAK_LEARN_MIN_SPANS = 1000  # too few decisions: nothing is queued, no error
    cache.delete(learning._counter_key(team.project.pk, "fr"))
    assert learning.learning_note_decision(team.project, "fr") is None

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("cache away")

    monkeypatch.setattr(learning.cache, "incr", broken)
    assert learning.learning_note_decision(team.project, "fr") is None
    assert not LearnedModel.objects.exists()


# --- The run uses the model -------------------------------------------------------------------


def test_the_next_run_proposes_the_learned_models_spans(
    team: Any, django_capture_on_commit_callbacks: Any, caplog: Any
) -> None:
    project = team.project
    corpus(project, 30)
    with caplog.at_level(logging.DEBUG):
        model = trained(project, django_capture_on_commit_callbacks)
    assert model.status == JobStatus.DONE, model.error
    fresh = DocumentFactory(project=project, text="I agree with Clara Osei about the meeting.")

    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_create(project=project, actor=team.admin, language="en", profile="precise")
    run.refresh_from_db()

    assert run.models_used == {"en": "", "ar": "", "learned:en": "v1"}
    assert Source.LEARNED.value in run.recognizers
    learned = Span.objects.filter(document=fresh, source=Source.LEARNED)
    assert [(s.start, s.end, s.label) for s in learned] == [(13, 23, "PER")]
    span = learned.get()
    assert (span.proposed_start, span.proposed_end, span.proposed_label, span.run_id) == (
        13,
        23,
        "PER",
        run.pk,
    )
    assert span.status == SpanStatus.PROPOSED

    # No original in the model's row, its audit events or the logs.
    row = json.dumps(model_to_dict(LearnedModel.objects.get(pk=model.pk)), default=str)
    audit = json.dumps(
        list(AuditEvent.objects.filter(action=AuditAction.LEARN).values("target", "detail")),
        default=str,
    )
    for name in NAMES:
        for where in (row, audit, caplog.text):
            assert name not in where and name.split()[0] not in where


def test_the_model_serves_the_runs_language_whatever_spacy_calls_it(
    team: Any, django_capture_on_commit_callbacks: Any
) -> None:
    corpus(team.project, 30)
    model = trained(team.project, django_capture_on_commit_callbacks)
    # spaCy names some languages otherwise than a project may ("iw" is its "he").
    learning.learned_recognizer(model).language = "xx"  # the loaded model the run will use
    fresh = DocumentFactory(project=team.project, text="The post by Bruno Keller was removed.")

    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_create(project=team.project, actor=team.admin, language="en")

    assert Span.objects.filter(document=fresh, run=run, source=Source.LEARNED).exists()


def test_a_run_without_a_ready_model_records_none(
    team: Any, django_capture_on_commit_callbacks: Any
) -> None:
    corpus(team.project, 5)
    with django_capture_on_commit_callbacks(execute=False):
        learning.learned_model_train(team.project, "en", trigger="admin")  # queued only
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_create(project=team.project, actor=team.admin, language="en")
    run.refresh_from_db()
    assert run.models_used == {"en": "", "ar": ""}
    assert Source.LEARNED.value not in run.recognizers


def test_a_run_stores_the_learned_models_share_beside_ner_and_known_entities(
    team: Any, settings: Any, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    project = team.project
    corpus(project, 30)
    model = trained(project, django_capture_on_commit_callbacks)
    assert model.status == JobStatus.DONE, model.error
    alone = DocumentFactory(project=project, text="The post by Bruno Keller was removed.")
    known = DocumentFactory(project=project, text="I agree with Clara Osei about the meeting.")
    ner = DocumentFactory(project=project, text="Yesterday David Novak wrote to the forum again.")
    settings.CLOAK_NER_MODELS = {"en": "some-model", "fr": "", "ar": ""}
    monkeypatch.setattr(Detector, "ner", fake_ner({ner.text: [(10, 21, "PER")]}))
    monkeypatch.setattr(runs, "known_surfaces", lambda project: [("Clara Osei", "PER")])

    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_create(project=project, actor=team.admin, language="en", profile="precise")
    run.refresh_from_db()

    assert run.status == JobStatus.DONE and run.recognizers == ["regex", "known", "ner", "learned"]
    stored = {
        document.pk: list(
            Span.objects.filter(document=document, run=run).values_list(
                "start", "end", "label", "source", "sources"
            )
        )
        for document in (alone, known, ner)
    }
    # The model alone: its own source.
    assert stored[alone.pk] == [(12, 24, "PER", "learned", None)]
    # A known entity the model found too: kept as the known entity's, naming both.
    assert stored[known.pk] == [(13, 23, "PER", "known", ["known", "learned"])]
    # NER's scored span wins over the model's unscored one, and still names the model.
    assert stored[ner.pk] == [(10, 21, "PER", "ner", ["ner", "learned"])]
    assert run.spans_created == 3
    assert run.source_counts == {
        "learned": {"proposed": 3, "alone": 1},
        "known": {"proposed": 1, "alone": 0},
        "ner": {"proposed": 1, "alone": 0},
    }
