"""The answer to a sign-in that django-axes refused (AXES_LOCKOUT_CALLABLE): too many failed
attempts for this username from this address.

One answer for every door: the login pages get a page that says until when, the API
(POST /api/auth/token/) `{"detail": ...}`; both are 429 with `Retry-After`.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off
from django.db.models import Max
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone

API_PREFIX = "/api/"


def lockout_until(request: HttpRequest, credentials: dict[str, Any] | None) -> datetime:
    """When this username may try again from this address: a cool-off after its last failure
    (failures during the lockout are not counted, so this does not move)."""
    cool_off = get_cool_off(request) or timedelta(0)
    latest: datetime | None = None
    # The database handler keeps the attempts; another handler (the cache's) cannot say when
    # the last one was, and then the cool-off counts from now.
    handler = AxesProxyHandler.get_implementation()
    for attempts in getattr(handler, "get_user_attempts", lambda *_: [])(request, credentials):
        found = attempts.aggregate(latest=Max("attempt_time"))["latest"]
        if found is not None and (latest is None or found > latest):
            latest = found
    return (latest or timezone.now()) + cool_off


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    until = lockout_until(request, credentials)
    seconds = max(1, math.ceil((until - timezone.now()).total_seconds()))
    minutes = math.ceil(seconds / 60)
    wait = f"{minutes} minute{'s' if minutes != 1 else ''}"
    response: HttpResponse
    if request.path_info.startswith(API_PREFIX):
        response = JsonResponse(
            {
                "detail": "Too many failed sign-ins for this username from your address: "
                f"try again in {wait} (after {until:%H:%M} UTC), or ask an admin to unlock it."
            },
            status=429,
        )
    else:
        context = {"until": until, "wait": wait}
        response = render(request, "registration/locked_out.html", context, status=429)
    response["Retry-After"] = str(seconds)
    return response
