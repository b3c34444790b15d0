from typing import Any

from django.urls import path
from drf_spectacular.renderers import (
    OpenApiJsonRenderer,
    OpenApiJsonRenderer2,
    OpenApiYamlRenderer,
    OpenApiYamlRenderer2,
)
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from annotator.api import (
    audit,
    auth,
    double_annotation,
    key_transfer,
    keys,
    learning,
    members,
    quality,
    queues,
    releases,
    review,
    review_actions,
    runs,
    spans,
    views,
    workspace,
)


class JsonRefusals:
    """For drf-spectacular's views, whose renderers (YAML, Swagger UI's HTML) wrote their
    refusals too (an anonymous caller's 401): a refusal is `{"detail": ...}` in JSON, like
    every other answer under /api/, whichever representation was asked for."""

    request: Any

    def handle_exception(self, exc: Exception) -> Response:
        self._answer_json()
        response: Response = super().handle_exception(exc)  # type: ignore[misc]
        return response

    def options(self, request: Any, *args: Any, **kwargs: Any) -> Response:
        """What the route takes, in JSON like every OPTIONS under /api/ (Swagger UI's HTML
        renderer has no template for it: a 500)."""
        response: Response = super().options(request, *args, **kwargs)  # type: ignore[misc]
        self._answer_json()
        return response

    def _answer_json(self) -> None:
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type


class SchemaView(JsonRefusals, SpectacularAPIView):
    """GET /api/schema/: the schema in JSON, or in YAML for a client that asks for it
    (`Accept: application/yaml` or `application/vnd.oai.openapi`, `?format=yaml`); signed-in
    callers only, as SPECTACULAR_SETTINGS["SERVE_PERMISSIONS"] says. drf-spectacular's own
    view puts YAML first: a client that named no type got YAML."""

    renderer_classes = [
        OpenApiJsonRenderer2,  # application/json: the first, for a client that names none
        OpenApiJsonRenderer,
        OpenApiYamlRenderer,
        OpenApiYamlRenderer2,
    ]


class DocsView(JsonRefusals, SpectacularSwaggerSplitView):
    """GET /api/docs/: Swagger UI, a page for signed-in callers; its refusals are JSON."""


urlpatterns = [
    path("schema/", SchemaView.as_view(), name="api-schema"),
    # Swagger UI's start-up script is a file of its own (docs/?script), and its page's style
    # a stylesheet: the Content-Security-Policy allows no inline script or style.
    path(
        "docs/",
        DocsView.as_view(url_name="api-schema", template_name="annotator/api_docs.html"),
        name="api-docs",
    ),
    path("auth/token/", auth.TokenObtain.as_view(), name="api-token"),
    path("auth/logout/", auth.TokenLogout.as_view(), name="api-token-logout"),
    path("auth/logout-all/", auth.TokenLogoutAll.as_view(), name="api-token-logout-all"),
    path("projects/", views.ProjectList.as_view(), name="api-project-list"),
    path("projects/<slug:slug>/", views.ProjectDetail.as_view(), name="api-project-detail"),
    path("projects/<slug:slug>/members/", members.MemberList.as_view(), name="api-member-list"),
    path(
        "projects/<slug:slug>/members/<str:username>/",
        members.MemberDetail.as_view(),
        name="api-member-detail",
    ),
    path("projects/<slug:slug>/documents/", views.DocumentList.as_view(), name="api-document-list"),
    path(
        "projects/<slug:slug>/documents/assign/",
        queues.DocumentAssign.as_view(),
        name="api-document-assign",
    ),
    path("projects/<slug:slug>/queues/", queues.QueueList.as_view(), name="api-queue-list"),
    path(
        "projects/<slug:slug>/double/",
        double_annotation.DoubleList.as_view(),
        name="api-double-list",
    ),
    path("projects/<slug:slug>/queues/next/", queues.NextDocument.as_view(), name="api-queue-next"),
    path(
        "projects/<slug:slug>/documents/<int:pk>/",
        views.DocumentDetail.as_view(),
        name="api-document-detail",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/spans/",
        spans.SpanList.as_view(),
        name="api-span-list",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/spans/<int:span_id>/",
        spans.SpanDetail.as_view(),
        name="api-span-detail",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/spans/<int:span_id>/suggestions/",
        spans.SpanSuggestions.as_view(),
        name="api-span-suggestions",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/spans/bulk/",
        workspace.SpansBulk.as_view(),
        name="api-spans-bulk",
    ),
    path(
        "projects/<slug:slug>/documents/<int:pk>/preview/",
        workspace.DocumentPreview.as_view(),
        name="api-document-preview",
    ),
    path("projects/<slug:slug>/imports/", views.ImportJobList.as_view(), name="api-import-list"),
    path(
        "projects/<slug:slug>/imports/<int:pk>/",
        views.ImportJobDetail.as_view(),
        name="api-import-detail",
    ),
    path("projects/<slug:slug>/quality/", quality.QualityView.as_view(), name="api-quality"),
    path("projects/<slug:slug>/audit/", audit.AuditList.as_view(), name="api-audit-list"),
    path(
        "projects/<slug:slug>/keys/export/",
        key_transfer.KeyExport.as_view(),
        name="api-key-export",
    ),
    path(
        "projects/<slug:slug>/keys/import/",
        key_transfer.KeyImport.as_view(),
        name="api-key-import",
    ),
    path(
        "projects/<slug:slug>/learned/",
        learning.LearnedModelList.as_view(),
        name="api-learned-list",
    ),
    path("projects/<slug:slug>/runs/", runs.RunList.as_view(), name="api-run-list"),
    path("projects/<slug:slug>/runs/<int:pk>/", runs.RunDetail.as_view(), name="api-run-detail"),
    path(
        "projects/<slug:slug>/runs/<int:pk>/resume/",
        runs.RunResume.as_view(),
        name="api-run-resume",
    ),
    path(
        "projects/<slug:slug>/releases/",
        releases.ReleaseList.as_view(),
        name="api-release-list",
    ),
    path(
        "projects/<slug:slug>/releases/<int:pk>/",
        releases.ReleaseDetail.as_view(),
        name="api-release-detail",
    ),
    path(
        "projects/<slug:slug>/releases/<int:pk>/download/",
        releases.ReleaseDownload.as_view(),
        name="api-release-download",
    ),
    path(
        "projects/<slug:slug>/releases/<int:pk>/manifest/",
        releases.ReleaseManifest.as_view(),
        name="api-release-manifest",
    ),
    path(
        "projects/<slug:slug>/releases/<int:pk>/leaks/",
        releases.ReleaseLeakList.as_view(),
        name="api-release-leaks",
    ),
    path(
        "projects/<slug:slug>/releases/<int:pk>/dismissals/",
        releases.ReleaseDismiss.as_view(),
        name="api-release-dismiss",
    ),
    path("projects/<slug:slug>/review/", review.ReviewList.as_view(), name="api-review-list"),
    path(
        "projects/<slug:slug>/review/<int:pk>/",
        review.ReviewDetail.as_view(),
        name="api-review-detail",
    ),
    path(
        "projects/<slug:slug>/review/<int:pk>/resolve/",
        review.ReviewResolve.as_view(),
        name="api-review-resolve",
    ),
    path(
        "projects/<slug:slug>/review/<int:pk>/comments/",
        review_actions.ReviewComment.as_view(),
        name="api-review-comment",
    ),
    path(
        "projects/<slug:slug>/review/scan/",
        review_actions.ReviewScan.as_view(),
        name="api-review-scan",
    ),
    path("projects/<slug:slug>/entities/", keys.EntityList.as_view(), name="api-entity-list"),
    path(
        "projects/<slug:slug>/entities/candidates/",
        keys.EntityCandidates.as_view(),
        name="api-entity-candidates",
    ),
    path(
        "projects/<slug:slug>/entities/<int:pk>/",
        keys.EntityDetail.as_view(),
        name="api-entity-detail",
    ),
    path(
        "projects/<slug:slug>/entities/<int:pk>/merge/",
        keys.EntityMerge.as_view(),
        name="api-entity-merge",
    ),
    path(
        "projects/<slug:slug>/entities/<int:pk>/split/",
        keys.EntitySplit.as_view(),
        name="api-entity-split",
    ),
    path(
        "projects/<slug:slug>/entities/<int:pk>/link/",
        keys.EntityLink.as_view(),
        name="api-entity-link",
    ),
]
