"""Content negotiation for the API: every answer is JSON, whatever the client accepts.

A browser asks for `text/html`, a client for `*/*` or nothing; DRF would answer the first
with its browsable API (HTML, which the schema does not document, and which introspects
views a JSON client never reaches) or with 406. The API has one representation, so it is
the answer to every Accept header. File downloads (a release, a key file) build their own
response with the content type their schema documents.
"""

from __future__ import annotations

from collections.abc import Iterable

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class FirstRendererIfNoneAccepted(DefaultContentNegotiation):
    """DRF's negotiation, but a request that accepts none of the view's renderers gets the
    first (JSON for every API view) rather than 406."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderers = list(renderers)
        try:
            chosen: tuple[BaseRenderer, str] = super().select_renderer(
                request, renderers, format_suffix
            )
        except NotAcceptable:
            chosen = (renderers[0], str(renderers[0].media_type))
        return chosen
