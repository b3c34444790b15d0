from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token

from annotator.api import views

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("auth/token/", obtain_auth_token, name="api-token"),
    path("projects/", views.ProjectList.as_view(), name="api-project-list"),
    path("projects/<slug:slug>/", views.ProjectDetail.as_view(), name="api-project-detail"),
    path("projects/<slug:slug>/members/", views.MemberList.as_view(), name="api-member-list"),
    path("projects/<slug:slug>/documents/", views.DocumentList.as_view(), name="api-document-list"),
    path(
        "projects/<slug:slug>/documents/<int:pk>/",
        views.DocumentDetail.as_view(),
        name="api-document-detail",
    ),
    path("projects/<slug:slug>/imports/", views.ImportJobList.as_view(), name="api-import-list"),
    path(
        "projects/<slug:slug>/imports/<int:pk>/",
        views.ImportJobDetail.as_view(),
        name="api-import-detail",
    ),
]
