"""What Cloak answers when a request fails before, or outside, a view: JSON `{"detail": ...}`
under /api/ (the API's one representation, which its schema documents), a page elsewhere.

Django's handlers (annotator.urls: handler400, handler403, handler404, handler500) and the
body limit (annotator.middleware) answer through `error_response`.

A refusal (Http404, PermissionDenied) is answered by `RefusalMiddleware` with the same pages,
DEBUG on or off: with DEBUG on (`make run`, the demo) Django would answer a 404 with its
technical page, which lists the project's URL patterns, and it logs every 403 with a
traceback. A refusal is an answer, not a fault: Django logs it in one line ("Forbidden:
/path"), as any 4xx answer.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import (
    DisallowedHost,
    PermissionDenied,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.template import loader
from django.urls import Resolver404, resolve
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


class RefusalMiddleware:
    """Cloak's own 404 and 403 answers for a refusal, DEBUG on or off (see the module): the
    exception a view raises (`process_exception`), and with DEBUG on an address that names
    no page, which Django resolves before any view runs."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if settings.DEBUG:
            try:
                resolve(request.path_info, getattr(request, "urlconf", None))
            except Resolver404 as missing:
                return page_not_found(request, missing)
        return self.get_response(request)

    def process_exception(
        self, request: HttpRequest, exception: Exception
    ) -> HttpResponseBase | None:
        if isinstance(exception, Http404):
            return page_not_found(request, exception)
        if isinstance(exception, PermissionDenied):
            return permission_denied(request, exception)
        return None  # anything else is a fault: Django's handler500, with its traceback
