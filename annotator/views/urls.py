"""The pages' URLs; the API lives under api/ in annotator/urls.py."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from annotator.views import (
    assignments,
    audit,
    documents,
    double_annotation,
    health,
    imports,
    key_transfer,
    keys,
    learning,
    members,
    projects,
    quality,
    releases,
    review,
    runs,
    span_actions,
    workspace,
)

urlpatterns = [
    path("healthz/", health.healthz, name="healthz"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", projects.home, name="home"),
    path("projects/new/", members.project_new, name="project_new"),
    path("projects/new/labels/", members.project_new_labels, name="project_new_labels"),
    path("projects/<slug:slug>/", projects.project_detail, name="project_detail"),
    path("projects/<slug:slug>/members/", members.members, name="members"),
    path("projects/<slug:slug>/members/set/", members.member_set, name="member_set"),
    path("projects/<slug:slug>/members/remove/", members.member_remove, name="member_remove"),
    path("projects/<slug:slug>/documents/", documents.document_list, name="document_list"),
    path(
        "projects/<slug:slug>/documents/assign/",
        assignments.documents_assign_view,
        name="documents_assign",
    ),
    path("projects/<slug:slug>/next/", assignments.next_document_view, name="next_document"),
    path("projects/<slug:slug>/double/", double_annotation.double_list, name="double_list"),
    path(
        "projects/<slug:slug>/double/assign/",
        double_annotation.double_assign_view,
        name="double_assign",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/",
        workspace.document_detail,
        name="document_detail",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/changes/",
        workspace.document_changes,
        name="document_changes",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/preview/",
        workspace.document_preview,
        name="document_preview",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/spans/<int:span_id>/",
        span_actions.span_action,
        name="span_action",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/spans/",
        span_actions.span_add,
        name="span_add",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/spans/<int:span_id>/editor/",
        span_actions.span_editor,
        name="span_editor",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/spans/<int:span_id>/suggestions/",
        span_actions.span_suggestions,
        name="span_suggestions",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/spans/bulk/",
        span_actions.spans_bulk,
        name="spans_bulk",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/undo/",
        span_actions.span_undo,
        name="span_undo",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/done/",
        span_actions.document_done,
        name="document_done",
    ),
    path("projects/<slug:slug>/imports/", imports.import_list, name="import_list"),
    path("projects/<slug:slug>/imports/<int:pk>/", imports.import_detail, name="import_detail"),
    path("projects/<slug:slug>/quality/", quality.quality, name="quality"),
    path("projects/<slug:slug>/audit/", audit.audit_list, name="audit_list"),
    path("projects/<slug:slug>/audit/export/", audit.audit_export, name="audit_export"),
    path("projects/<slug:slug>/keys/export/", key_transfer.key_export, name="key_export"),
    path("projects/<slug:slug>/keys/import/", key_transfer.key_import, name="key_import"),
    path("projects/<slug:slug>/keys/", keys.key_list, name="key_list"),
    path("projects/<slug:slug>/keys/candidates/", keys.key_candidates, name="key_candidates"),
    path("projects/<slug:slug>/keys/<int:pk>/", keys.key_entity, name="key_entity"),
    path("projects/<slug:slug>/keys/<int:pk>/merge/", keys.key_merge, name="key_merge"),
    path("projects/<slug:slug>/keys/<int:pk>/split/", keys.key_split, name="key_split"),
    path("projects/<slug:slug>/keys/<int:pk>/link/", keys.key_link, name="key_link"),
    path("projects/<slug:slug>/runs/", runs.run_list, name="run_list"),
    path("projects/<slug:slug>/learned/", learning.learned_models, name="learned_models"),
    path("projects/<slug:slug>/runs/<int:pk>/", runs.run_detail, name="run_detail"),
    path("projects/<slug:slug>/runs/<int:pk>/resume/", runs.run_resume, name="run_resume"),
    path("projects/<slug:slug>/releases/", releases.release_list, name="release_list"),
    path("projects/<slug:slug>/releases/create/", releases.release_create, name="release_create"),
    path("projects/<slug:slug>/releases/<int:pk>/", releases.release_detail, name="release_detail"),
    path(
        "projects/<slug:slug>/releases/<int:pk>/download/",
        releases.release_download,
        name="release_download",
    ),
    path(
        "projects/<slug:slug>/releases/<int:pk>/manifest/",
        releases.release_manifest,
        name="release_manifest",
    ),
    path(
        "projects/<slug:slug>/releases/<int:pk>/dismiss/",
        releases.release_dismiss,
        name="release_dismiss",
    ),
    path("projects/<slug:slug>/review/", review.review_list, name="review_list"),
    path("projects/<slug:slug>/review/<int:pk>/", review.review_detail, name="review_detail"),
    path(
        "projects/<slug:slug>/review/<int:pk>/comments/",
        review.review_comment,
        name="review_comment",
    ),
]
