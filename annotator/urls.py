from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("annotator.views.urls")),
    path("api/", include("annotator.api.urls")),
]

# JSON `{"detail": ...}` under /api/, Cloak's pages elsewhere (annotator.views.errors).
handler400 = "annotator.views.errors.bad_request"
handler403 = "annotator.views.errors.permission_denied"
handler404 = "annotator.views.errors.page_not_found"
handler500 = "annotator.views.errors.server_error"
