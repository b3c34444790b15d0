"""The correspondence table: one entity per real-world referent, its aliases and replacements."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.keys import crypto
from pseudonymizer.vocabulary import MAX_KEEP_REASON, Decision

# The engine's decisions, as `annotator.Span.decision` takes them.
DECISION_CHOICES = [(decision.value, decision.label) for decision in Decision]


class Entity(models.Model):
    # By id and without a database constraint: this table may live in another database.
    project = models.ForeignKey(
        "annotator.Project", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    label = models.CharField(max_length=64)
    decision = models.CharField(
        max_length=16, choices=DECISION_CHOICES, default=Decision.PSEUDONYMIZE.value
    )
    keep_reason = models.CharField(max_length=MAX_KEEP_REASON, blank=True)
    # Optimistic concurrency for the lead's edits (API conventions: a stale version gets 409).
    version = models.PositiveIntegerField(default=1)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "entities"
        indexes = [models.Index(fields=["project", "label"], name="entity_project_label_idx")]
        constraints = [
            models.CheckConstraint(
                condition=Q(decision__in=[d.value for d in Decision]), name="entity_decision_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label} entity #{self.pk}"


class Alias(models.Model):
    """One surface form of an entity in one language, with its replacement."""

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="aliases")
    project = models.ForeignKey(
        "annotator.Project", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    language = models.CharField(max_length=16)
    script = models.CharField(max_length=16, blank=True, help_text="e.g. Latn, Arab")
    original_encrypted = models.BinaryField()
    original_digest = models.CharField(max_length=64)
    replacement = models.CharField(max_length=500, blank=True)
    # The replacement as aliases are compared (the engine's `fold_key`): "Raj Avrom" and
    # "RAJ AVROM" are one pseudonym, and two surfaces may not share it.
    replacement_key = models.CharField(max_length=500, blank=True)
    # Whether a person chose the replacement (typed or picked it, a lead's edit, a key file)
    # rather than the server drawing it: a relabel draws again only what was drawn.
    replacement_typed = models.BooleanField(default=False)
    # A token-level alias ("Moshe" from "Moshe Chaya") points at the alias it was cut from.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="token_aliases"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "aliases"
        constraints = [
            # One surface, one replacement, in a project.
            models.UniqueConstraint(
                fields=["project", "original_digest"], name="alias_unique_surface"
            ),
            # Two surfaces never share a pseudonym: that would merge two people on release.
            models.UniqueConstraint(
                fields=["project", "replacement_key"],
                condition=~Q(replacement_key=""),
                name="alias_unique_replacement",
            ),
        ]
        indexes = [models.Index(fields=["entity", "language"], name="alias_entity_lang_idx")]

    def __str__(self) -> str:
        # Never the original: this string ends up in logs and admin history.
        return f"alias #{self.pk} of entity #{self.entity_id} ({self.language})"

    @property
    def original(self) -> str:
        return crypto.decrypt(self.original_encrypted)

    def set_original(self, surface: str, project_secret: str) -> None:
        self.original_encrypted = crypto.encrypt(surface)
        self.original_digest = crypto.surface_digest(project_secret, surface)

    def set_replacement(self, replacement: str) -> None:
        self.replacement = replacement
        self.replacement_key = crypto.normalise_surface(replacement)


class AliasWord(models.Model):
    """A blind index of an alias's words: the keyed digest of each word of its original, so
    that a lead's search for "Chaya" finds "Moshe Chaya" without the database ever holding
    or comparing a plaintext word."""

    alias = models.ForeignKey(Alias, on_delete=models.CASCADE, related_name="words")
    project = models.ForeignKey(
        "annotator.Project", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    digest = models.CharField(max_length=64)

    class Meta:
        indexes = [models.Index(fields=["project", "digest"], name="aliasword_project_digest_idx")]
        constraints = [
            models.UniqueConstraint(fields=["alias", "digest"], name="aliasword_unique_word")
        ]

    def __str__(self) -> str:
        return f"word of alias #{self.alias_id}"


class ReviewNote(models.Model):
    """What a review item of the lead's queue says that pairs an original with a pseudonym:
    the pseudonyms of a conflict, the one an annotator wanted and the one the table holds,
    the one the lead applied. The item itself (`annotator.ReviewItem`) names the document,
    span and entity, which the web role reads with the document's text: the pseudonyms are
    kept here, where only the keys' role reads them, and shown to leads through an audited
    read (`annotator.services.table.review_notes_read`)."""

    # By id and without a database constraint: this table may live in another database.
    project = models.ForeignKey(
        "annotator.Project", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    item_id = models.BigIntegerField(unique=True, help_text="The annotator.ReviewItem's id")
    # Merged into the item's `detail` and `resolution` when a lead reads the item.
    detail = models.JSONField(default=dict, blank=True)
    resolution = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        # Never a pseudonym: this string ends up in logs and admin history.
        return f"note of review item #{self.item_id}"


class UndoNote(models.Model):
    """The pseudonyms an undo step puts back (`annotator.UndoStep`): the step, in the web
    role's tables, holds a document's span ids, offsets and versions; with the document's
    text, a pseudonym beside them would pair an original with its replacement for whoever
    reads those tables (the page's undo stack did, in the session, before issue 32). So the
    pseudonyms the spans had before the step are kept here, by span id, and read back
    through the door when the step is undone."""

    # By id and without a database constraint: this table may live in another database.
    project = models.ForeignKey(
        "annotator.Project", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    step_id = models.BigIntegerField(unique=True, help_text="The annotator.UndoStep's id")
    # {span id: the pseudonym its surface had before the step}
    pseudonyms = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        # Never a pseudonym: this string ends up in logs and admin history.
        return f"note of undo step #{self.step_id}"


class DrawnAhead(models.Model):
    """A pseudonym drawn for a surface before anyone decided it: the worker draws, for the
    proposals of a document someone opened, what a decision would draw (`surfaces._draw`,
    the first free suggestion, checked against the documents), so that the decision, in the
    annotator's request, takes it (`drawn_ahead_take`) instead of drawing. By the surface's
    keyed digest, never the surface: the pair is key material, and lives with the keys."""

    # By id and without a database constraint: this table may live in another database.
    project = models.ForeignKey(
        "annotator.Project", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    original_digest = models.CharField(max_length=64)
    label = models.CharField(max_length=64)
    language = models.CharField(max_length=16)
    replacement = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "original_digest", "label", "language"],
                name="drawn_ahead_unique",
            )
        ]

    def __str__(self) -> str:
        # Never the pseudonym: this string ends up in logs and admin history.
        return f"pseudonym drawn ahead #{self.pk}"
