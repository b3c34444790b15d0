"""Django's admin for every model of `annotator` and `annotator.keys`.

The admin is a tool for the people who run Cloak, not a way around the services: what the
services audit (memberships, reads of the correspondence table) is audited here too, the
audit log and releases cannot be edited, and an alias never shows its original.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse

from annotator.keys.models import Alias, Entity
from annotator.models import (
    AuditAction,
    AuditEvent,
    Comment,
    Document,
    ImportJob,
    Membership,
    PreannotationRun,
    Project,
    Release,
    ReviewItem,
    RunBatch,
    Span,
)
from annotator.services.audit import audit_record


def _client_ip(request: HttpRequest) -> str | None:
    return request.META.get("REMOTE_ADDR") or None


class ReadOnlyAdminMixin:
    """View only: nothing can be added, changed or deleted through the admin."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --- Projects and people ---------------------------------------------------------------------


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)
    fields = ("user", "role", "languages", "created_at")
    readonly_fields = ("created_at",)


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = (
        "slug", "name", "languages", "schema_preset", "strategy", "created_by", "created_at"
    )  # fmt: skip
    search_fields = ("slug", "name")
    list_filter = ("schema_preset",)
    readonly_fields = ("created_by", "created_at")
    prepopulated_fields = {"slug": ("name",)}
    inlines = (MembershipInline,)
    list_select_related = ("created_by",)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "project", "role", "languages", "created_at")
    list_filter = ("role", "project")
    search_fields = ("user__username", "project__slug")
    raw_id_fields = ("user",)
    list_select_related = ("user", "project")

    def save_model(self, request: HttpRequest, obj: Membership, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        audit_record(
            action=AuditAction.MEMBER_CHANGE,
            actor=request.user,
            project=obj.project,
            target=f"user:{obj.user_id}",
            detail={
                "event": "changed" if change else "added",
                "role": obj.role,
                "languages": obj.languages,
                "via": "admin",
            },
            ip_address=_client_ip(request),
        )

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        audit_record(
            action=AuditAction.MEMBER_CHANGE,
            actor=request.user,
            project=obj.project,
            target=f"user:{obj.user_id}",
            detail={"event": "removed", "via": "admin"},
            ip_address=_client_ip(request),
        )
        super().delete_model(request, obj)


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
    readonly_fields = ("version", "created_at", "updated_at")
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


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "action", "actor", "project", "target", "ip_address")
    list_filter = ("action", "project")
    search_fields = ("target", "actor__username")
    date_hierarchy = "created_at"
    list_select_related = ("actor", "project")
    show_full_result_count = False


# --- The correspondence table ----------------------------------------------------------------
# It may live in another database (annotator.routers): no joins to projects or users here,
# ids only. Every look at it by a person is audited, as the design requires.


class KeysAuditMixin:
    def _audit_read(self, request: HttpRequest, target: str) -> None:
        audit_record(
            action=AuditAction.KEY_READ,
            actor=request.user,
            target=target,
            detail={"via": "admin"},
            ip_address=_client_ip(request),
        )

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        if request.method == "GET":
            self._audit_read(request, f"admin:{self.model._meta.model_name}:list")  # type: ignore[attr-defined]
        return super().changelist_view(request, extra_context)  # type: ignore[misc]

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        if request.method == "GET":
            self._audit_read(request, f"{self.model._meta.model_name}:{object_id}")  # type: ignore[attr-defined]
        return super().change_view(request, object_id, form_url, extra_context)  # type: ignore[misc]


class AliasInline(admin.TabularInline):
    model = Alias
    fk_name = "entity"
    extra = 0
    can_delete = False
    fields = ("digest_prefix", "language", "script", "replacement", "parent")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="digest")
    def digest_prefix(self, obj: Alias) -> str:
        return f"{obj.original_digest[:12]}…"


@admin.register(Entity)
class EntityAdmin(KeysAuditMixin, admin.ModelAdmin):
    list_display = ("id", "project_id", "label", "decision", "keep_reason", "created_at")
    list_filter = ("label", "decision")
    search_fields = ("=id", "label")
    raw_id_fields = ("project", "created_by")
    readonly_fields = ("created_at", "updated_at")
    inlines = (AliasInline,)


@admin.register(Alias)
class AliasAdmin(KeysAuditMixin, admin.ModelAdmin):
    # The original is never shown: not in the list, not on the page, not in __str__.
    list_display = ("id", "digest_prefix", "entity_id", "project_id", "language", "script",
                    "replacement")  # fmt: skip
    list_filter = ("language", "script")
    search_fields = ("replacement", "=original_digest")
    exclude = ("original_encrypted",)
    raw_id_fields = ("entity", "project", "parent")
    readonly_fields = ("entity", "project", "original_digest", "language", "parent", "created_at")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # An alias needs its original encrypted and digested: the services make them.
        return False

    @admin.display(description="digest", ordering="original_digest")
    def digest_prefix(self, obj: Alias) -> str:
        return f"{obj.original_digest[:12]}…"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Alias]:
        # Never load the ciphertext for a list: it is not shown, and need not travel.
        return super().get_queryset(request).defer("original_encrypted")
