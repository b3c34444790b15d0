"""No answer of Cloak's is kept by a browser or a proxy.

Pages, their htmx fragments and the API's answers hold originals: a document's text, the
surface of a span, a decrypted alias, the context of a review item. A browser keeps what it
may in its disk cache, where it outlives the sign-out ("Dear John Smith…" was still there),
and Back shows it again without asking the server, so without an audit. So every answer a
view writes says `Cache-Control: no-store` (with what Django's `never_cache` says beside it,
`private`, `no-cache`, `max-age=0` and an `Expires` in the past, for older caches), unless the
view chose a Cache-Control of its own: one that means to be kept says so explicitly.

Static files never come here: WhiteNoise, before this middleware, answers them with its own
long-lived caching, and they hold nothing of a project. Every kind of answer is covered, not
only a signed-in person's: an error page, a sign-in page with a `next=` address, an API
answer authenticated by a token (DRF authenticates inside the view) are all kept from caches
by one rule that no new view can forget.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import add_never_cache_headers, patch_cache_control

AnyResponse = TypeVar("AnyResponse", bound=HttpResponseBase)


def never_store(response: AnyResponse) -> AnyResponse:
    """Mark `response` as one no browser or proxy may keep, nor show again unasked (the
    middleware does it to every answer that chose no Cache-Control; a view that builds its
    answer before the middleware sees it calls this)."""
    add_never_cache_headers(response)
    patch_cache_control(response, no_store=True, private=True)
    return response


class NoStoreMiddleware:
    """`never_store` on every answer whose view set no Cache-Control of its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if not response.has_header("Cache-Control"):
            never_store(response)
        return response
