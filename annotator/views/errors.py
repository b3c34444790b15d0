"""What Cloak answers when a request fails before, or outside, a view: JSON `{"detail": ...}`
under /api/ (the API's one representation, which its schema documents), a page elsewhere.

Django's handlers (annotator.urls: handler400, handler403, handler404, handler500) and the
body limit (annotator.middleware) answer through `error_response`.
"""

from __future__ import annotations

from django.core.exceptions import (
    DisallowedHost,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.template import loader
from django.views import defaults

API_PREFIX = "/api/"
# Titles of the pages for the codes only this module answers with a page of its own.
_TITLES = {411: "Length required", 413: "Request too large"}


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def error_response(request: HttpRequest, status: int, detail: str) -> HttpResponseBase:
    """`{"detail": detail}` under /api/, else a page that says `detail`."""
    if is_api(request):
        return JsonResponse({"detail": detail}, status=status)
    page = loader.render_to_string(
        "request_refused.html", {"title": _TITLES.get(status, "Request refused"), "detail": detail}
    )
    return HttpResponse(page, status=status)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponseBase:
    # Django reads a form's fields late: one over DATA_UPLOAD_MAX_MEMORY_SIZE lands here.
    if isinstance(exception, RequestDataTooBig):
        return error_response(request, 413, "The request's form fields are over the size limit.")
    if not is_api(request):
        return defaults.bad_request(request, exception)
    # Fixed words: a SuspiciousOperation's message repeats what the client sent.
    if isinstance(exception, DisallowedHost):
        detail = "The Host header names a host this server does not answer for."
    elif isinstance(exception, TooManyFieldsSent | TooManyFilesSent):
        detail = "The request has more form fields or files than the API reads."
    else:
        detail = "Bad request."
    return JsonResponse({"detail": detail}, status=400)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponseBase:
    if is_api(request):
        return JsonResponse({"detail": "You may not do this."}, status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponseBase:
    if is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponseBase:
    if is_api(request):
        return JsonResponse({"detail": "Server error: it has been logged."}, status=500)
    return defaults.server_error(request)
