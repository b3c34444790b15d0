"""The limits on a request's line, header fields and body, applied before anything reads it.

A request line over CLOAK_REQUEST_LINE_MAX_BYTES is refused with 414, more header fields
than CLOAK_REQUEST_FIELDS_MAX or one over CLOAK_REQUEST_FIELD_MAX_BYTES with 431: gunicorn's
own limits, which gunicorn.conf.py raises so that these answers are Django's (`{"detail": ...}`
under /api/, a page elsewhere) rather than gunicorn's HTML. Only past gunicorn's raised limits,
or for a request it cannot parse at all, does gunicorn answer itself.

Django applies DATA_UPLOAD_MAX_MEMORY_SIZE only when a form's fields are read, and answers
with its HTML 400 page; DRF reads a JSON body without any limit. Here the limit is read from
the headers, first: a body over it gets 413, with `{"detail": ...}` under /api/ and a page
elsewhere. File uploads are what the 10 MiB limit leaves out (Django counts only the fields
around them): a multipart body may be as large as the biggest import, CLOAK_IMPORT_MAX_BYTES,
plus the form's own fields.

A server that answers while its client is still sending, and closes, makes the kernel reset
the connection: the client then sees "connection reset" instead of the answer. So what is
left of a body the application did not read is read and thrown away, a chunk at a time and
up to DRAIN_AT_MOST, before the answer goes out. Only under a server that ends the body
where the request does (gunicorn sets `wsgi.input_terminated`): elsewhere reading on could
block on the next request.

A chunked body (no Content-Length) is read here, under the same limit, into a file that
holds up to the form limit in memory; Django then reads it as if its length had been given.
A server that cannot end a chunked body for us gets 411: send a Content-Length. A chunked body
the server cannot read (a bad chunk size, a missing terminator) is a 400.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from typing import IO, BinaryIO, cast

from django.conf import settings
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponseBase

from annotator.views.errors import error_response

try:  # what gunicorn's reader raises on a body it cannot parse
    from gunicorn.http.errors import ParseException as _ServerParseError
except ImportError:  # pragma: no cover - gunicorn is a dependency; another server may serve

    class _ServerParseError(Exception):  # type: ignore[no-redef]
        pass


# Reading a client's body can fail on the client: a body the server cannot parse, or a
# connection that breaks. Either way the request is bad, not the server.
BODY_READ_ERRORS = (_ServerParseError, OSError, ValueError)

CHUNK = 64 * 1024
# The most of a refused or unread body read only to throw it away; past it the connection
# is closed under the client, which then sees a reset instead of the answer.
DRAIN_AT_MOST = 1024 * 1024 * 1024
MULTIPART = "multipart/form-data"


def body_limit(request: HttpRequest) -> int | None:
    """The largest body `request` may carry, in bytes; None for no limit."""
    fields = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if fields is None:
        return None
    if request.META.get("CONTENT_TYPE", "").lower().startswith(MULTIPART):
        return int(settings.CLOAK_IMPORT_MAX_BYTES) + fields
    return int(fields)


def _size(limit: int) -> str:
    mebibytes = limit / (1024 * 1024)
    return f"{mebibytes:g} MiB" if mebibytes >= 1 else f"{limit} bytes"


def _drain(stream: IO[bytes], at_most: int = DRAIN_AT_MOST) -> None:
    """Read `stream` to its end, or `at_most` bytes, keeping nothing; stop where it cannot be
    read (the answer goes out anyway, and the server closes the connection)."""
    read = 0
    while read < at_most:
        try:
            chunk = stream.read(min(CHUNK, at_most - read))
        except BODY_READ_ERRORS:
            return
        if not chunk:
            return
        read += len(chunk)


def _ends_its_body(request: HttpRequest) -> bool:
    return bool(request.META.get("wsgi.input_terminated"))


def _too_large(request: HttpRequest, limit: int, length: int | None) -> HttpResponseBase:
    told = f"of {length} bytes " if length is not None else ""
    return error_response(
        request, 413, f"The request body {told}is over the limit of {_size(limit)} ({limit} bytes)."
    )


def _header_fields(request: HttpRequest) -> list[tuple[str, str]]:
    """The request's header fields as (name, value), from the WSGI environ (which joins a
    repeated field into one)."""
    fields = []
    for key, value in request.META.items():
        if key.startswith("HTTP_"):
            name = key[5:]
        elif key in ("CONTENT_TYPE", "CONTENT_LENGTH") and value:
            name = key
        else:
            continue
        fields.append((name.replace("_", "-").title(), str(value)))
    return fields


def _over_header_limits(request: HttpRequest) -> HttpResponseBase | None:
    """414 for a request line over its limit, 431 for too many or too large header fields:
    measured in bytes as gunicorn measures them (the environ holds them as latin-1 text)."""
    target = request.META.get("RAW_URI") or request.get_full_path()
    line = " ".join(
        (request.META.get("REQUEST_METHOD", ""), target, request.META.get("SERVER_PROTOCOL", ""))
    )
    limit = settings.CLOAK_REQUEST_LINE_MAX_BYTES
    if len(line) > limit:
        return error_response(
            request, 414, f"The request line is {len(line)} bytes, over the limit of {limit}."
        )
    fields = _header_fields(request)
    limit = settings.CLOAK_REQUEST_FIELDS_MAX
    if len(fields) > limit:
        return error_response(
            request, 431, f"The request has {len(fields)} header fields, over the limit of {limit}."
        )
    limit = settings.CLOAK_REQUEST_FIELD_MAX_BYTES
    for name, value in fields:
        size = len(name) + len(": ") + len(value) + len("\r\n")
        if size > limit:
            # The name only: a value may be a credential.
            return error_response(
                request, 431, f"The header field {name} is {size} bytes, over the limit of {limit}."
            )
    return None


class RequestBodyLimitMiddleware:
    """Refuse a body over `body_limit` with 413 before anything reads it; read what is left
    of every body before answering, so the client gets the answer (see the module)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        # Closes the file a chunked body was read into, once the view has answered.
        with ExitStack() as cleanup:
            refusal = self.refuse(request, cleanup)
            if refusal is not None:
                return refusal
            response = self.get_response(request)
            if _ends_its_body(request) and "wsgi.input" in request.META:
                # The view may have answered without reading the body (a 401, a 404).
                _drain(request.META["wsgi.input"])
            return response

    def refuse(self, request: HttpRequest, cleanup: ExitStack) -> HttpResponseBase | None:
        over = _over_header_limits(request)
        if over is not None:
            if _ends_its_body(request):
                _drain(request.META["wsgi.input"])
            return over
        limit = body_limit(request)
        chunked = "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked:
            return self.read_chunked(request, limit, cleanup)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0  # as Django reads it: no body
        if limit is None or length <= limit:
            return None
        if _ends_its_body(request):
            _drain(request.META["wsgi.input"])
        return _too_large(request, limit, length)

    def read_chunked(
        self, request: HttpRequest, limit: int | None, cleanup: ExitStack
    ) -> HttpResponseBase | None:
        if not _ends_its_body(request) or not isinstance(request, WSGIRequest):
            return error_response(
                request, 411, "This server reads no chunked body: send a Content-Length."
            )
        stream = request.META["wsgi.input"]
        # In memory up to the form limit, on disk past it (a chunked upload of an import).
        in_memory = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
        spooled = cast(BinaryIO, tempfile.SpooledTemporaryFile(max_size=in_memory))  # noqa: SIM115
        cleanup.callback(spooled.close)
        size = 0
        while True:
            try:
                chunk = stream.read(CHUNK)
            except BODY_READ_ERRORS:
                # Its reason is not repeated: it quotes what the client sent.
                return error_response(
                    request, 400, "The chunked request body is malformed: it cannot be read."
                )
            if not chunk:
                break
            size += len(chunk)
            if limit is not None and size > limit:
                _drain(stream)
                return _too_large(request, limit, None)
            spooled.write(chunk)
        spooled.seek(0)
        request.META["CONTENT_LENGTH"] = str(size)
        # What Django's WSGIRequest reads its body from: the file ends where the body does.
        request._stream = spooled
        return None
