"""Cloak's domain: projects, members, documents, spans, review, runs, releases, audit.

The correspondence table (entities and aliases) lives in the keys app (`keys/`) so that it can be
kept in a database of its own; rows here refer to an entity by id only.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

from pseudonymizer.folding import fold
from pseudonymizer.strategies import Strategy
from pseudonymizer.vocabulary import DEFAULT_PROFILE, MAX_KEEP_REASON, Decision, Source


def new_project_secret() -> str:
    return secrets.token_urlsafe(32)


class Role(models.TextChoices):
    ANNOTATOR = "annotator", "Annotator"
    LEAD = "lead", "Lead"
    ADMIN = "admin", "Admin"


# The engine owns the vocabulary; the models take their choices from it.
SpanSource = Source
SOURCE_CHOICES = [(source.value, source.label) for source in Source]
DECISION_CHOICES = [(decision.value, decision.label) for decision in Decision]
STRATEGY_CHOICES = [(strategy.value, strategy.label) for strategy in Strategy]


class SpanStatus(models.TextChoices):
    PROPOSED = "proposed", "Proposed"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class ProjectQuerySet(models.QuerySet["Project"]):
    def for_user(self, user: Any) -> ProjectQuerySet:
        if not user.is_authenticated:
            return self.none()
        if user.is_superuser:
            return self
        return self.filter(memberships__user=user).distinct()


class Project(models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    languages = models.JSONField(default=list, help_text='ISO 639-1 codes, e.g. ["en", "fr"]')
    schema_preset = models.CharField(max_length=32, blank=True)
    label_schema = models.JSONField(default=dict)
    # Seeds deterministic pseudonyms: the same original gets the same suggestion in this
    # project only. Kept out of every release.
    secret = models.CharField(max_length=64, default=new_project_secret, editable=False)
    # How its documents are released unless a release says otherwise; the workspace's
    # preview shows a document so.
    strategy = models.CharField(
        max_length=16, choices=STRATEGY_CHOICES, default=Strategy.REALISTIC.value
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug

    @property
    def labels(self) -> list[str]:
        return [label["name"] for label in self.label_schema.get("labels", [])]


class Membership(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    # The languages an annotator works on; leads and admins see every language.
    languages = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "project"], name="membership_unique_user"),
            models.CheckConstraint(
                condition=Q(role__in=[r.value for r in Role]), name="membership_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.project} as {self.role}"


class DocumentStatus(models.TextChoices):
    NEW = "new", "New"
    PREANNOTATED = "preannotated", "Pre-annotated"
    IN_PROGRESS = "in_progress", "In progress"
    DONE = "done", "Done"
    REVIEWED = "reviewed", "Reviewed"


class DocumentQuerySet(models.QuerySet["Document"]):
    def for_project(self, project: Project) -> DocumentQuerySet:
        return self.filter(project=project)

    def in_languages(self, languages: list[str]) -> DocumentQuerySet:
        return self.filter(language__in=languages)

    def originals(self) -> DocumentQuerySet:
        """The corpus itself: no replica of a document given to a second annotator."""
        return self.filter(replica_of__isnull=True)

    def replicas(self) -> DocumentQuerySet:
        """Copies given to a second annotator for agreement (blind double annotation)."""
        return self.filter(replica_of__isnull=False)

    def listed_for(self, user: Any, *, blind: bool) -> DocumentQuerySet:
        """What a list shows `user`: the originals and `user`'s own replicas. `blind` (an
        annotator's lists) also leaves out the originals of those replicas: the second
        annotator does not see the first one's work."""
        mine = Q(replica_of__isnull=False, assignee=user)
        documents = self.filter(Q(replica_of__isnull=True) | mine)
        if blind:
            documents = documents.exclude(replicas__assignee=user)
        return documents


class Document(models.Model):
    # Indexed by the queue's index and the unique external id, which begin with it.
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="documents", db_index=False
    )
    language = models.CharField(max_length=16)
    external_id = models.CharField(max_length=255)
    # Stored exactly as imported: no newline or Unicode normalisation, offsets count code points.
    text = models.TextField()
    # The text in the known-entity matcher's form (case, accents, Arabic letter variants and
    # white space folded: `pseudonymizer.folding.fold`), so that the database finds
    # the documents a decided surface occurs in with a plain substring test. Holds originals,
    # as `text` does; never shown.
    search_text = models.TextField(blank=True, editable=False)
    metadata = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=16, choices=DocumentStatus.choices, default=DocumentStatus.NEW
    )
    # When a person last marked it done; kept when it is reopened, so that a release that
    # leaves it out can say that someone had finished it.
    finished_at = models.DateTimeField(null=True, blank=True)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="assigned_documents",
        db_index=False,  # document_assignee_idx
    )
    import_job = models.ForeignKey(
        "ImportJob",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="documents",
        db_index=False,  # document_import_job_idx
    )
    # A blind second annotation for agreement: a copy of `replica_of` given to a second
    # annotator. It never reaches the correspondence table, the queues of others or a release.
    replica_of = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="replicas",
        db_index=False,  # document_replica_of_idx
    )
    version = models.PositiveIntegerField(default=1)
    # Whether the text's words are in the project's vocabulary (`CorpusWord`): an import
    # writes them with the document; a document written otherwise waits for the worker's
    # catch-up, and until then is read whenever the vocabulary is asked.
    words_indexed = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = DocumentQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "external_id"], name="document_unique_external_id"
            ),
            models.CheckConstraint(condition=~Q(text=""), name="document_text_not_empty"),
        ]
        indexes = [
            # An annotator's queue: their language, by status, in order.
            models.Index(fields=["project", "language", "status", "id"], name="document_queue_idx"),
            # The columns most documents leave empty are indexed where they are not: a lookup
            # by value is served all the same, and an import writes no index entry for them.
            models.Index(
                fields=["assignee", "status"],
                name="document_assignee_idx",
                condition=Q(assignee__isnull=False),
            ),
            models.Index(
                fields=["import_job"],
                name="document_import_job_idx",
                condition=Q(import_job__isnull=False),
            ),
            models.Index(
                fields=["replica_of"],
                name="document_replica_of_idx",
                condition=Q(replica_of__isnull=False),
            ),
            # The originals whose words the vocabulary does not hold yet: few, read whole.
            models.Index(
                fields=["project"],
                name="document_words_pending_idx",
                condition=Q(words_indexed=False, replica_of__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.project.slug}/{self.external_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Derived from the text, never written on its own (bulk writers call fold too).
        self.search_text = fold(self.text)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "text" in update_fields:
            kwargs["update_fields"] = {*update_fields, "search_text"}
        super().save(*args, **kwargs)

    @property
    def is_blind(self) -> bool:
        """A replica: a blind second annotation. Its decisions stay on its spans (never the
        table, propagation or learning), it receives none of the project's choices, and its
        annotator sees no other decision for its surfaces. Lists of the corpus leave it out
        (`DocumentQuerySet.originals`, `SpanQuerySet.on_originals`)."""
        return self.replica_of_id is not None


# The spans a person decided: added, accepted, or rejected by a person. A proposal set aside
# by a machine's rule or as a side effect of another span (`annotator.services.spans`) is
# rejected by nobody (`decided_by` empty): no person saw it.
PERSONS_SPANS = (
    Q(source=SpanSource.HUMAN)
    | Q(status=SpanStatus.ACCEPTED)
    | Q(status=SpanStatus.REJECTED, decided_by__isnull=False)
)


def span_by_person(status: str, source: str, decided_by_id: int | None) -> bool:
    """Whether a span with these columns is a person's decision (`PERSONS_SPANS`)."""
    return span_held_by_person(status, source) or (
        status == SpanStatus.REJECTED and decided_by_id is not None
    )


# The spans a person holds: added or accepted. A machine's proposal gives way to them (it is
# trimmed, or not proposed again over them); only a person's edit moves them.
PERSONS_HELD = Q(source=SpanSource.HUMAN) | Q(status=SpanStatus.ACCEPTED)


def span_held_by_person(status: str, source: str) -> bool:
    """Whether a span with these columns is one a person holds (`PERSONS_HELD`)."""
    return source == SpanSource.HUMAN or status == SpanStatus.ACCEPTED


class CorpusWord(models.Model):
    """A word of a project's documents, as the known-entity matcher reads them
    (`pseudonymizer.recognizers.known_words`), by its digest (`corpus_word_digest`): "could
    this surface occur in a document" is then a lookup of its words rather than a scan of
    every text. Words are only ever added: a word left by a deleted document costs a scan,
    never a miss."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, db_index=False)
    digest = models.BigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "digest"], name="corpus_word_unique")
        ]

    def __str__(self) -> str:
        return f"{self.project_id}:{self.digest}"


class SpanQuerySet(models.QuerySet["Span"]):
    def for_document(self, document: Document) -> SpanQuerySet:
        return self.filter(document=document)

    def proposed(self) -> SpanQuerySet:
        return self.filter(status=SpanStatus.PROPOSED)

    def accepted(self) -> SpanQuerySet:
        return self.filter(status=SpanStatus.ACCEPTED)

    def decided_by_person(self) -> SpanQuerySet:
        return self.filter(PERSONS_SPANS)

    def held_by_person(self) -> SpanQuerySet:
        return self.filter(PERSONS_HELD)

    def on_originals(self) -> SpanQuerySet:
        """The spans of the corpus itself: none of a replica's (`Document.is_blind`)."""
        return self.filter(document__replica_of__isnull=True)


class Span(models.Model):
    # Indexed by span_document_start_idx and span_document_status_idx, which begin with it.
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="spans", db_index=False
    )
    start = models.PositiveIntegerField(help_text="Code point offset, inclusive")
    end = models.PositiveIntegerField(help_text="Code point offset, exclusive")
    label = models.CharField(max_length=64)
    source = models.CharField(max_length=16, choices=SOURCE_CHOICES)
    # Every source that proposed exactly this span, `source` (the one the merge kept) first,
    # when more than one did (`pseudonymizer.spans.Span.also`); null when `source` alone did,
    # as on every span older than the column: nullable, so adding it rewrote no row.
    # `span_sources` reads it.
    sources = models.JSONField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=SpanStatus.choices, default=SpanStatus.PROPOSED
    )
    decision = models.CharField(
        max_length=16, choices=DECISION_CHOICES, default=Decision.PSEUDONYMIZE.value
    )
    keep_reason = models.CharField(max_length=MAX_KEEP_REASON, blank=True)
    # The entity of the correspondence table (the keys' Entity) by id: that table may
    # live in another database, so there is no foreign key to join through.
    entity_id = models.BigIntegerField(null=True, blank=True)
    run = models.ForeignKey(
        "PreannotationRun",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="spans",
        db_index=False,  # span_run_idx
    )
    # What a machine proposed, before a person moved or relabelled it: pre-annotation is
    # measured against the final decisions from these (null for a person's own span).
    proposed_start = models.PositiveIntegerField(null=True, blank=True)
    proposed_end = models.PositiveIntegerField(null=True, blank=True)
    proposed_label = models.CharField(max_length=64, blank=True)
    # Optimistic concurrency: a write names the version it read and fails if it moved.
    version = models.PositiveIntegerField(default=1)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,  # span_created_by_idx
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,  # span_decided_by_idx
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    # The last person to change the span, and when: a span a person has touched is never
    # replaced by a pre-annotation run.
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,  # span_updated_by_idx
    )
    updated_at = models.DateTimeField(auto_now=True)

    objects = SpanQuerySet.as_manager()

    class Meta:
        ordering = ["document_id", "start", "end"]
        constraints = [
            models.CheckConstraint(condition=Q(start__gte=0), name="span_start_non_negative"),
            models.CheckConstraint(condition=Q(start__lt=models.F("end")), name="span_not_empty"),
            models.CheckConstraint(
                condition=Q(score__isnull=True) | Q(score__gte=0.0, score__lte=1.0),
                name="span_score_in_unit_interval",
            ),
            models.CheckConstraint(
                condition=Q(source__in=[s.value for s in SpanSource]), name="span_source_valid"
            ),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in SpanStatus]), name="span_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(decision__in=[d.value for d in Decision]), name="span_decision_valid"
            ),
        ]
        indexes = [
            models.Index(fields=["document", "start"], name="span_document_start_idx"),
            models.Index(fields=["document", "status"], name="span_document_status_idx"),
            # Empty on most spans (every machine proposal): indexed where they are not.
            models.Index(
                fields=["entity_id"], name="span_entity_idx", condition=Q(entity_id__isnull=False)
            ),
            models.Index(fields=["run"], name="span_run_idx", condition=Q(run__isnull=False)),
            models.Index(
                fields=["created_by"],
                name="span_created_by_idx",
                condition=Q(created_by__isnull=False),
            ),
            models.Index(
                fields=["decided_by"],
                name="span_decided_by_idx",
                condition=Q(decided_by__isnull=False),
            ),
            models.Index(
                fields=["updated_by"],
                name="span_updated_by_idx",
                condition=Q(updated_by__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label}[{self.start}:{self.end}]"


def span_sources(source: str, sources: Sequence[str] | None) -> list[str]:
    """Every source that proposed a span, from its `source` and `sources` columns."""
    return list(sources) if sources else [source]


class PendingPropagation(models.Model):
    """A choice new to the correspondence table, waiting to be proposed wherever its surface
    occurs (annotator.services.propagation). Written in the transaction of the decision that
    made it, so that it commits or rolls back with it; a pass claims every row of its project
    (`claim`, `claimed_at`) and deletes them once their proposals are written."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    # The keys' alias (the table lives in a schema of its own: no foreign key).
    alias_id = models.BigIntegerField()
    # The span whose decision made the choice: propagation leaves its place alone.
    source_span_id = models.BigIntegerField(null=True, blank=True)
    # Only these documents (ids), which a pass had to skip (a person was writing to them);
    # null: every document of the project.
    document_ids = models.JSONField(null=True, blank=True)
    # The pass that holds it; a claim older than CLOAK_JOB_STALE_AFTER is a dead worker's.
    claim = models.UUIDField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["project", "claim"], name="pending_project_claim_idx")]

    def __str__(self) -> str:
        return f"alias {self.alias_id} to propagate in project {self.project_id}"


class JobStatus(models.TextChoices):
    """Where a job is in its lifecycle (annotator.services.jobs): queued, running, then done
    or failed. One enum for every kind of job; a kind's status field offers the lifecycle's
    four and what only that kind reaches (`job_status_field`)."""

    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    # Only a release: its check found a leak, and nothing was published.
    REFUSED = "refused", "Refused (leak)"
    FAILED = "failed", "Failed"
    # Only a run: a person stopped it.
    CANCELLED = "cancelled", "Cancelled"


# The states every job goes through.
JOB_LIFECYCLE = (JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.DONE, JobStatus.FAILED)


def job_statuses(*also: JobStatus, labels: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """The choices of a kind's status field: the lifecycle, what only that kind reaches
    (`also`), and the words its pages show where they are its own (`labels`)."""
    kept = {*JOB_LIFECYCLE, *also}
    words = labels or {}
    return [(s.value, words.get(s.value, s.label)) for s in JobStatus if s in kept]


# Each kind's choices (the API schema names its enums after them, annotator.settings).
JOB_STATUSES = job_statuses()
RUN_STATUSES = job_statuses(JobStatus.CANCELLED)
RELEASE_STATUSES = job_statuses(JobStatus.REFUSED)
LEARNED_MODEL_STATUSES = job_statuses(labels={"running": "Training", "done": "Ready"})


def job_status_field(choices: list[tuple[str, str]] = JOB_STATUSES) -> models.CharField[Any, Any]:
    return models.CharField(max_length=16, choices=choices, default=JobStatus.QUEUED)


class Job(models.Model):
    """What every job row holds (imports, runs and their batches, releases and their NER
    batches, learned models): its status, why it failed, and the claim's times. `started_at`
    is the claim's fence (annotator.services.jobs); `created_at` is each kind's own (a run's
    batch has none), and so is progress: a run and a release count documents in their rows,
    the others report to the cache only."""

    status = job_status_field()
    # Why it failed, shown to the project's admins: never an original. (A run also says
    # there what it went without: "the NER model for fr could not load".)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When the reaper last sent its work again, taken for lost from the broker (a job no
    # worker took while the workers were idle): once since its last sign of life, then it fails.
    resent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class ImportJob(Job):
    """One upload through the page or the API, imported by a worker."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="import_jobs")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    filename = models.CharField(max_length=255)
    stored_path = models.CharField(max_length=500, blank=True)
    format = models.CharField(max_length=16, default="auto")
    language = models.CharField(max_length=16, blank=True)
    size_bytes = models.BigIntegerField(default=0)
    documents_created = models.PositiveIntegerField(default=0)
    spans_created = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["project", "-created_at"], name="importjob_project_idx")]

    def __str__(self) -> str:
        return f"import {self.filename} into {self.project.slug}"


class PreannotationRun(Job):
    """Recognizers run over a project's documents (one language or all), in batches."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    language = models.CharField(max_length=16, blank=True, help_text="Blank: every language")
    profile = models.CharField(max_length=16, default=DEFAULT_PROFILE)
    recognizers = models.JSONField(default=list, help_text='e.g. ["regex", "ner", "known"]')
    # Language → NER model spec the run used ("" when the language has none).
    models_used = models.JSONField(default=dict, blank=True)
    status = job_status_field(RUN_STATUSES)
    documents_total = models.PositiveIntegerField(default=0)
    documents_done = models.PositiveIntegerField(default=0)
    spans_created = models.PositiveIntegerField(default=0)
    # What each source proposed among `spans_created`: {source: {"proposed": n, "alone": m}},
    # `alone` counting the proposals no other source made (a span counts for every source
    # that proposed it). Moved with `spans_created`, once per batch.
    source_counts = models.JSONField(default=dict, blank=True)
    # Problems that did not stop the run: [{"language", "recognizer", "reason"}], deduplicated.
    warnings = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(documents_done__lte=models.F("documents_total")),
                name="run_progress_bounded",
            )
        ]
        indexes = [models.Index(fields=["project", "status"], name="run_project_status_idx")]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.project.slug}"


class RunBatch(Job):
    """Documents of one language that a run sends to a worker together, by id.

    A batch is done once its spans are written, in the same transaction; a run resumes by
    sending again the batches that are not done.
    """

    run = models.ForeignKey(PreannotationRun, on_delete=models.CASCADE, related_name="batches")
    number = models.PositiveIntegerField()
    language = models.CharField(max_length=16)
    document_ids = models.JSONField(default=list)
    attempts = models.PositiveIntegerField(default=0)
    spans_created = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["run", "number"]
        constraints = [
            models.UniqueConstraint(fields=["run", "number"], name="runbatch_unique_number"),
        ]
        indexes = [models.Index(fields=["run", "status"], name="runbatch_run_status_idx")]

    def __str__(self) -> str:
        return f"batch {self.number} of run {self.run_id}"


class ReviewKind(models.TextChoices):
    FLAG = "flag", "Flagged by an annotator"
    SURFACE_CONFLICT = "surface_conflict", "One surface, two decisions"
    ENTITY_CONFLICT = "entity_conflict", "One entity, two pseudonyms"
    KEEP_CONFLICT = "keep_conflict", "Kept in one language, replaced in another"
    ORIGINAL_REPLACEMENT = "original_replacement", "A pseudonym that is an original elsewhere"
    NAMED_APART = "named_apart", "One name with and without a head word, two entities"


class ReviewStatus(models.TextChoices):
    OPEN = "open", "Open"
    RESOLVED = "resolved", "Resolved"


class ReviewItem(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="review_items")
    kind = models.CharField(max_length=24, choices=ReviewKind.choices)
    status = models.CharField(
        max_length=16, choices=ReviewStatus.choices, default=ReviewStatus.OPEN
    )
    document = models.ForeignKey(
        Document, null=True, blank=True, on_delete=models.CASCADE, related_name="review_items"
    )
    span = models.ForeignKey(
        Span, null=True, blank=True, on_delete=models.SET_NULL, related_name="review_items"
    )
    entity_id = models.BigIntegerField(null=True, blank=True)
    # What the item is about, without originals or pseudonyms (those are kept with the keys,
    # `review_note_write`): ids, labels, languages, the decisions in conflict.
    detail = models.JSONField(default=dict, blank=True)
    # A conflict the system found, named so that finding it again does not raise it twice
    # (a hash of its kind and what it is about; blank for a flag).
    fingerprint = models.CharField(max_length=64, blank=True)
    # What the lead decided, without originals or pseudonyms: the action and decision applied
    # (the pseudonym applied is kept with the keys).
    resolution = models.JSONField(default=dict, blank=True)
    raised_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    rationale = models.TextField(blank=True, help_text="The lead's reason for the resolution")
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status=ReviewStatus.OPEN) | Q(resolved_at__isnull=False),
                name="review_resolved_has_time",
            ),
            models.UniqueConstraint(
                fields=["project", "fingerprint"],
                condition=Q(status="open") & ~Q(fingerprint=""),
                name="review_one_open_per_conflict",
            ),
        ]
        indexes = [models.Index(fields=["project", "status", "kind"], name="review_queue_idx")]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk}"


class Comment(models.Model):
    review_item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [models.CheckConstraint(condition=~Q(body=""), name="comment_not_empty")]

    def __str__(self) -> str:
        return f"comment #{self.pk} on review #{self.review_item_id}"


class UndoStep(models.Model):
    """One action a person took on a document's spans from the page, as undo puts it back
    (`annotator.services.undo`): each span it changed, by id, with its version after and its
    state before (offsets, label, status, decision; null for a span it made). Never a
    pseudonym or an original: the pseudonyms the spans had are kept with the keys
    (`annotator.keys.UndoNote`). A person's steps on a document are their stack, newest
    last, shared by their tabs; they go when the person signs out."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    action = models.CharField(max_length=32)
    spans = models.JSONField(default=list)
    # The comment a flag wrote, which its undo takes back.
    comment_id = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        indexes = [models.Index(fields=["user", "document", "-id"], name="undostep_stack_idx")]

    def __str__(self) -> str:
        return f"undo step #{self.pk} ({self.action})"


class ReleaseFormat(models.TextChoices):
    JSONL = "jsonl", "JSONL"
    CSV = "csv", "CSV"
    CONLL = "conll", "CoNLL"


class Release(Job):
    """An immutable, versioned rendering of a project's reviewed documents."""

    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="releases")
    version = models.PositiveIntegerField()
    strategy = models.CharField(max_length=16, choices=STRATEGY_CHOICES)
    format = models.CharField(max_length=8, choices=ReleaseFormat.choices)
    status = job_status_field(RELEASE_STATUSES)
    # Blank: every language of the project.
    language = models.CharField(max_length=16, blank=True)
    # Progress while it runs (a job: status, done / total, error and timestamps).
    documents_total = models.PositiveIntegerField(default=0)
    documents_done = models.PositiveIntegerField(default=0)
    manifest = models.JSONField(default=dict, blank=True)
    # The NER model of each language the release covers ("" for none), as it was cut: the
    # `ner` queue finds names in its documents with these (annotator.services.releases).
    ner_models = models.JSONField(default=dict, blank=True)
    file_path = models.CharField(max_length=500, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["project", "version"], name="release_unique_version"),
            models.CheckConstraint(
                condition=Q(strategy__in=[s.value for s in Strategy]), name="release_strategy_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.project.slug} v{self.version} ({self.strategy})"


class ReleaseBatch(Job):
    """Documents of one language whose NER a release needs, sent together to the `ner` queue.

    A job of its own (annotator.services.jobs): claimed, done once the model's hits are stored
    (`ReleaseNerHits`), or failed. The last batch done sends the release's build to the
    default queue; the reaper fails a release whose batch's worker died.
    """

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="batches")
    number = models.PositiveIntegerField()
    language = models.CharField(max_length=16)
    document_ids = models.JSONField(default=list)
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["release", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "number"], name="releasebatch_unique_number"
            ),
        ]
        indexes = [
            models.Index(fields=["release", "status"], name="releasebatch_status_idx"),
        ]

    def __str__(self) -> str:
        return f"NER batch {self.number} of release {self.release_id}"


class ReleaseNerHits(models.Model):
    """What the NER model found in one document for one release, on the `ner` queue: offsets
    and labels, never text, and a digest of the text it read (the build checks it)."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="+")
    document_id = models.BigIntegerField()
    digest = models.CharField(max_length=64)
    # [[start, end, label], ...] in code points of the document as stored.
    spans = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["release", "document_id"], name="releasenerhits_unique_document"
            ),
        ]

    def __str__(self) -> str:
        return f"NER hits of document {self.document_id} for release {self.release_id}"


class ReleaseLeak(models.Model):
    """One document that refused a release: how many leaks of its rendered text and how many
    detector hits no person decided on it holds, and the first of them (offsets, labels and
    detectors, never text). Every leaking document has one."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="leaks")
    document_id = models.BigIntegerField()
    external_id = models.CharField(max_length=255, blank=True)
    # The document's text and decisions when it was checked (pseudonymizer.release
    # .document_fingerprint): a dismissal holds to it.
    fingerprint = models.CharField(max_length=64, blank=True)
    leaks = models.PositiveIntegerField(default=0)
    hits = models.PositiveIntegerField(default=0)
    findings = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["release", "document_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "document_id"], name="releaseleak_unique_document"
            ),
        ]

    def __str__(self) -> str:
        return f"leaks of document {self.document_id} in release {self.release_id}"


class HitDismissal(models.Model):
    """A person's judgement that what a detector found at a place of a document (or a pattern
    left in its rendering) is harmless, with the reason: a release no longer counts it while
    the document's text and decisions stay as they were (`fingerprint`). Audited."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="hit_dismissals")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    detector = models.CharField(max_length=32)
    label = models.CharField(max_length=64, blank=True)
    fingerprint = models.CharField(max_length=64)
    reason = models.TextField()
    release = models.ForeignKey(
        Release, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    dismissed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["document", "start", "end"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "start", "end", "detector", "fingerprint"],
                name="hitdismissal_unique_place",
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="hitdismissal_has_reason"),
            models.CheckConstraint(
                condition=Q(start__lt=models.F("end")), name="hitdismissal_not_empty"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.detector} hit [{self.start}, {self.end}) of document {self.document_id}"


class LearnedModel(Job):
    """One version of a project's model for one language, trained on its own decisions
    (`pseudonymizer.learning`); the latest ready one proposes spans (source `learned`) in the
    next pre-annotation run. The files live under MEDIA_ROOT (`path`)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="learned_models")
    language = models.CharField(max_length=16)
    version = models.PositiveIntegerField()
    status = job_status_field(LEARNED_MODEL_STATUSES)
    path = models.CharField(max_length=500, blank=True)
    # How many decisions it learned from, and how many were held out to measure it.
    decisions_used = models.PositiveIntegerField(default=0)
    decisions_held_out = models.PositiveIntegerField(default=0)
    # Precision, recall and F1 on the held-out decisions, per label and overall (no originals).
    scores = models.JSONField(default=dict, blank=True)
    # The ids of the documents held out (the split the seed chose): the scores are theirs, so
    # scoring the model on them again checks them. Empty for a model trained before it was kept.
    held_out_documents = models.JSONField(default=list, blank=True)
    labels = models.JSONField(default=list, blank=True)
    trigger = models.CharField(max_length=16, default="decisions", help_text="decisions or admin")
    seconds = models.FloatField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "language", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "language", "version"], name="learned_unique_version"
            )
        ]

    def __str__(self) -> str:
        return f"{self.project.slug} {self.language} model v{self.version}"


class AuditAction(models.TextChoices):
    KEY_READ = "key_read", "Read the correspondence table"
    KEY_EXPORT = "key_export", "Exported the keys"
    IMPORT = "import", "Imported documents"
    PREANNOTATE = "preannotate", "Started pre-annotation"
    RELEASE = "release", "Cut a release"
    MEMBER_CHANGE = "member_change", "Changed a membership"
    PROJECT_CHANGE = "project_change", "Changed a project"
    ASSIGN = "assign", "Assigned documents"
    KEY_SEARCH = "key_search", "Searched the correspondence table"
    KEY_EDIT = "key_edit", "Edited the correspondence table"
    KEY_IMPORT = "key_import", "Imported keys"
    REVIEW_RESOLVE = "review_resolve", "Resolved a review item"
    DOUBLE_ASSIGN = "double_assign", "Assigned documents for double annotation"
    AUDIT_READ = "audit_read", "Read the audit log"
    LEARN = "learn", "Trained a model on the decisions"
    HIT_DISMISS = "hit_dismiss", "Dismissed a detector's hit as harmless"


class AuditEvent(models.Model):
    """Append-only: who did what to which project. Never holds an original surface."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.SET_NULL, related_name="audit_events"
    )
    action = models.CharField(max_length=32, choices=AuditAction.choices)
    target = models.CharField(max_length=200, blank=True, help_text="e.g. entity:42")
    detail = models.JSONField(default=dict, blank=True)
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["project", "-created_at"], name="audit_project_idx")]

    def __str__(self) -> str:
        return f"{self.action} by {self.actor_id} at {self.created_at:%Y-%m-%d %H:%M}"
