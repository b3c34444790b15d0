"""gunicorn's settings that the command lines (docker-compose.yml, the Dockerfile, the tests'
servers) leave out; gunicorn reads this file from the folder it starts in.

The limits on a request's line and header fields are Django's (annotator.middleware, with
CLOAK_REQUEST_LINE_MAX_BYTES, CLOAK_REQUEST_FIELDS_MAX and CLOAK_REQUEST_FIELD_MAX_BYTES in
annotator.settings): past them Django answers 414 or 431 with `{"detail": ...}` under /api/,
where gunicorn would answer with an HTML page. So gunicorn's own limits are set above
Django's, to bounds that still keep a worker's memory small (at most 200 fields of 16 KiB, a
few MiB, read before any answer). Past these, and for a request gunicorn cannot parse at all
(a malformed request line or header), gunicorn answers itself, in HTML: it has not read a
path to tell an API call by, and only a worker class of its own could answer otherwise.
"""

# gunicorn's maximum: 0 would mean no limit (up to a MiB with its C parser).
limit_request_line = 8190
limit_request_fields = 200
limit_request_field_size = 16384
