"""The pages' URLs; the API lives under api/ in annotator/urls.py."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from annotator.views import (
    assignments,
    documents,
    health,
    imports,
    projects,
    runs,
    span_actions,
    workspace,
)

urlpatterns = [
    path("healthz/", health.healthz, name="healthz"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", projects.home, name="home"),
    path("projects/<slug:slug>/", projects.project_detail, name="project_detail"),
    path("projects/<slug:slug>/documents/", documents.document_list, name="document_list"),
    path(
        "projects/<slug:slug>/documents/assign/",
        assignments.documents_assign_view,
        name="documents_assign",
    ),
    path("projects/<slug:slug>/next/", assignments.next_document_view, name="next_document"),
    path(
        "projects/<slug:slug>/documents/<int:pk>/",
        workspace.document_detail,
        name="document_detail",
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
    path("projects/<slug:slug>/runs/", runs.run_list, name="run_list"),
    path("projects/<slug:slug>/runs/<int:pk>/", runs.run_detail, name="run_detail"),
    path("projects/<slug:slug>/runs/<int:pk>/resume/", runs.run_resume, name="run_resume"),
]
