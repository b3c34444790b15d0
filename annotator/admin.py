"""Django's admin for every model of `annotator`, and none of the keys'.

The admin is a tool for the people who run Cloak, not a way around the services: memberships
are written by `membership_set` and removed by `membership_remove`, with their checks and their
audit; the audit log and releases cannot be edited. The correspondence table is not here at
all: the admin runs on the web pages' database connection, whose role must not read the key
tables (`provision_keys_db`); leads and admins work on the table through the key pages, which
audit every look.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponseBase, HttpResponseRedirect
from django.urls import reverse

from annotator.audit import client_ip
from annotator.errors import DomainError
from annotator.models import (
    AuditEvent,
    Comment,
    CorpusWord,
    Document,
    HitDismissal,
    ImportJob,
    LearnedModel,
    Membership,
    PendingPropagation,
    PreannotationRun,
    Project,
    Release,
    ReleaseBatch,
    ReleaseLeak,
    ReleaseNerHits,
    ReviewItem,
    RunBatch,
    Span,
    UndoStep,
)
from annotator.services.projects import membership_remove, membership_set


class ReadOnlyAdminMixin:
    """View only: nothing can be added, changed or deleted through the admin."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --- Projects and people ---------------------------------------------------------------------


class _TrialOver(Exception):
    """Ends a trial write of `membership_set`, rolling it back."""


class MembershipForm(forms.ModelForm):  # type: ignore[type-arg]
    """A membership as the admin edits it, checked by the service that will write it.

    `membership_set` holds the rules (a known role, the project's languages, an annotator
    with one); the form asks it in a savepoint that is always rolled back, so that a refusal
    is shown on the form instead of failing the save, and no rule is copied here.
    """

    class Meta:
        model = Membership
        fields = ("user", "project", "role", "languages")

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        if self.instance.pk and {"user", "project"} & set(self.changed_data):
            raise forms.ValidationError(
                "a membership's user and project stay: remove it and add another"
            )
        # On a saved membership, user and project are read-only: the row's own.
        instance = self.instance
        user = cleaned.get("user") or (instance.user if instance.user_id else None)
        project = cleaned.get("project") or (instance.project if instance.project_id else None)
        if user is None or project is None or self.errors:
            return cleaned
        try:
            with transaction.atomic():
                membership_set(
                    project=project,
                    username=user.get_username(),
                    role=cleaned.get("role", ""),
                    languages=list(cleaned.get("languages") or []),
                )
                raise _TrialOver
        except _TrialOver:
            pass
        except DomainError as error:
            raise forms.ValidationError(str(error)) from None
        return cleaned


def _membership_write(request: HttpRequest, obj: Membership) -> None:
    """Write `obj`'s role and languages through the service (which audits), and give `obj`
    the row's id, as the admin expects of a saved object."""
    membership = membership_set(
        project=obj.project,
        username=obj.user.get_username(),
        role=obj.role,
        languages=list(obj.languages or []),
        actor=request.user,
        via="admin",
        ip_address=client_ip(request),
    )
    obj.pk = membership.pk
    obj.created_at = membership.created_at


def _membership_remove(request: HttpRequest, obj: Membership) -> None:
    """Take `obj`'s user out of its project through the service, which gives their unfinished
    documents back to the pool, audits, and refuses (DomainError) the project's last admin:
    the views below turn a refusal into a message (`_RefusalAsMessage`)."""
    membership_remove(
        project=obj.project,
        username=obj.user.get_username(),
        actor=request.user,
        via="admin",
        ip_address=client_ip(request),
    )


class _RefusalAsMessage(admin.ModelAdmin):
    """Admin pages whose writes a service may refuse (DomainError) after the form was valid,
    as `membership_remove` refuses the project's last admin: the whole request's writes are
    rolled back, and the page answers with the refusal as an error message, not a 500."""

    def _refusable(
        self, request: HttpRequest, view: Callable[[], HttpResponseBase | None], back: str
    ) -> HttpResponseBase | None:
        try:
            with transaction.atomic():
                return view()
        except DomainError as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(back)


class MembershipInline(admin.TabularInline):
    model = Membership
    form = MembershipForm
    extra = 0
    raw_id_fields = ("user",)
    fields = ("user", "role", "languages", "created_at")
    readonly_fields = ("created_at",)


@admin.register(Project)
class ProjectAdmin(_RefusalAsMessage):
    list_display = (
        "slug", "name", "languages", "schema_preset", "strategy", "created_by", "created_at"
    )  # fmt: skip
    search_fields = ("slug", "name")
    list_filter = ("schema_preset",)
    readonly_fields = ("created_by", "created_at")
    prepopulated_fields = {"slug": ("name",)}
    inlines = (MembershipInline,)
    list_select_related = ("created_by",)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A project's keys live where the admin cannot reach them, and its releases protect
        # it: `manage.py delete_project` deletes all of it (`project_delete`).
        return False

    def get_inlines(self, request: HttpRequest, obj: Project | None) -> list[Any]:
        # Members join a saved project: the service checks them against its languages.
        return list(self.inlines) if obj is not None else []

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        if formset.model is not Membership:
            super().save_formset(request, form, formset, change)
            return
        for obj in formset.save(commit=False):
            _membership_write(request, obj)
        for obj in formset.deleted_objects:
            _membership_remove(request, obj)

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> Any:
        # The inline's removals go through the service, which may refuse one.
        return self._refusable(
            request,
            partial(super().changeform_view, request, object_id, form_url, extra_context),
            request.get_full_path(),
        )


@admin.register(Membership)
class MembershipAdmin(_RefusalAsMessage):
    form = MembershipForm
    list_display = ("user", "project", "role", "languages", "created_at")
    list_filter = ("role", "project")
    search_fields = ("user__username", "project__slug")
    raw_id_fields = ("user",)
    list_select_related = ("user", "project")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("user", "project", "created_at") if obj is not None else ("created_at",)

    def save_model(self, request: HttpRequest, obj: Membership, form: Any, change: bool) -> None:
        _membership_write(request, obj)

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        _membership_remove(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        for obj in queryset.select_related("project", "user"):
            _membership_remove(request, obj)

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> Any:
        return self._refusable(
            request,
            partial(super().delete_view, request, object_id, extra_context),
            reverse("admin:annotator_membership_change", args=[object_id]),
        )

    def response_action(self, request: HttpRequest, queryset: QuerySet[Membership]) -> Any:
        # "Delete selected": all of them go, or, when the service refuses one, none.
        return self._refusable(
            request,
            partial(super().response_action, request, queryset),
            request.get_full_path(),
        )


# --- Documents and spans ---------------------------------------------------------------------


class SpanInline(admin.TabularInline):
    model = Span
    extra = 0
    can_delete = False
    show_change_link = True
    fields = ("start", "end", "label", "source", "status", "decision", "score", "entity_id")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ("external_id", "project", "language", "status", "assignee", "updated_at")
    list_filter = ("project", "language", "status")
    search_fields = ("external_id",)
    raw_id_fields = ("assignee", "import_job")
    # Set by whoever writes the words into the vocabulary: ticked by hand, a document's
    # words would be missing from it, and a pseudonym it holds taken for new.
    readonly_fields = ("version", "words_indexed", "created_at", "updated_at")
    list_select_related = ("project", "assignee")
    inlines = (SpanInline,)
    show_full_result_count = False


@admin.register(Span)
class SpanAdmin(admin.ModelAdmin):
    list_display = (
        "id", "document", "label", "start", "end", "source", "status", "decision", "score",
    )  # fmt: skip
    list_filter = ("source", "status", "decision", "label")
    search_fields = ("document__external_id", "label")
    raw_id_fields = ("document", "run", "created_by", "decided_by")
    readonly_fields = ("version", "created_at")
    list_select_related = ("document", "document__project")
    show_full_result_count = False


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    list_display = (
        "filename", "project", "status", "format", "language", "documents_created",
        "spans_created", "created_by", "created_at",
    )  # fmt: skip
    list_filter = ("status", "format", "project")
    search_fields = ("filename",)
    raw_id_fields = ("created_by",)
    readonly_fields = (
        "stored_path", "size_bytes", "documents_created", "spans_created", "error",
        "created_at", "started_at", "finished_at",
    )  # fmt: skip
    list_select_related = ("project", "created_by")


@admin.register(PreannotationRun)
class PreannotationRunAdmin(admin.ModelAdmin):
    list_display = (
        "id", "project", "language", "status", "documents_done", "documents_total",
        "spans_created", "created_by", "created_at",
    )  # fmt: skip
    list_filter = ("status", "project", "language")
    raw_id_fields = ("created_by",)
    readonly_fields = (
        "models_used", "error", "warnings", "created_at", "started_at", "finished_at",
    )  # fmt: skip
    list_select_related = ("project", "created_by")


@admin.register(LearnedModel)
class LearnedModelAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # Trained by a task from the decisions; the admin shows the versions and their scores.
    list_display = (
        "project", "language", "version", "status", "decisions_used", "decisions_held_out",
        "trigger", "created_at", "finished_at",
    )  # fmt: skip
    list_filter = ("status", "language", "project")
    list_select_related = ("project",)


@admin.register(RunBatch)
class RunBatchAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # Written by workers only; the admin shows where a run stands, batch by batch.
    list_display = ("id", "run", "number", "language", "status", "attempts", "spans_created")
    list_filter = ("status", "language")
    raw_id_fields = ("run",)


# --- Review ------------------------------------------------------------------------------------


class CommentInline(admin.TabularInline):
    model = Comment
    extra = 0
    raw_id_fields = ("author",)
    readonly_fields = ("created_at",)


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = ("id", "project", "kind", "status", "document", "raised_by", "created_at")
    list_filter = ("kind", "status", "project")
    search_fields = ("document__external_id", "rationale")
    raw_id_fields = ("document", "span", "raised_by", "resolved_by")
    readonly_fields = ("created_at",)
    list_select_related = ("project", "document", "raised_by")
    inlines = (CommentInline,)


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ("id", "review_item", "author", "created_at")
    search_fields = ("body",)
    raw_id_fields = ("review_item", "author")
    readonly_fields = ("created_at",)
    list_select_related = ("review_item", "author")


# --- Releases and the audit log (immutable) --------------------------------------------------


@admin.register(Release)
class ReleaseAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "project",
        "version",
        "strategy",
        "format",
        "status",
        "created_by",
        "created_at",
    )
    list_filter = ("status", "strategy", "format", "project")
    search_fields = ("project__slug", "sha256")
    list_select_related = ("project", "created_by")


@admin.register(ReleaseBatch)
class ReleaseBatchAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # Written by the `ner` queue's workers only: where a release's detection stands.
    list_display = ("id", "release", "number", "language", "status", "attempts")
    list_filter = ("status", "language")
    raw_id_fields = ("release",)


@admin.register(ReleaseNerHits)
class ReleaseNerHitsAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # Offsets and labels only, never text.
    list_display = ("id", "release", "document_id")
    raw_id_fields = ("release",)


@admin.register(PendingPropagation)
class PendingPropagationAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # Written by people's decisions and taken by the worker's passes: what is still to be
    # proposed, by ids (an alias of the table, never its surface).
    list_display = ("id", "project", "alias_id", "claim", "claimed_at", "created_at")
    list_filter = ("project",)
    raw_id_fields = ("project",)


@admin.register(CorpusWord)
class CorpusWordAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # The digests of a project's words (never a word): written by imports and the catch-up.
    list_display = ("id", "project", "digest")
    list_filter = ("project",)
    raw_id_fields = ("project",)
    show_full_result_count = False


@admin.register(UndoStep)
class UndoStepAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # A person's steps on a document, as the page's Undo takes them back: ids, offsets and
    # versions (the pseudonyms they put back are kept with the keys).
    list_display = ("id", "user", "document", "action", "created_at")
    list_filter = ("action",)
    raw_id_fields = ("user", "document")


@admin.register(ReleaseLeak)
class ReleaseLeakAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # Offsets, labels and detectors of what refused a release, never text.
    list_display = ("id", "release", "document_id", "external_id", "leaks", "hits")
    raw_id_fields = ("release",)


@admin.register(HitDismissal)
class HitDismissalAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # Made and audited through the release's page or API only. The reason is a person's
    # free text and may quote the document: it is not listed.
    list_display = ("id", "project", "document", "start", "end", "detector", "dismissed_by")
    list_filter = ("detector", "project")
    exclude = ("reason",)
    raw_id_fields = ("document", "release", "dismissed_by")
    list_select_related = ("project", "dismissed_by")


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "action", "actor", "project", "target", "ip_address")
    list_filter = ("action", "project")
    search_fields = ("target", "actor__username")
    date_hierarchy = "created_at"
    list_select_related = ("actor", "project")
    show_full_result_count = False
