"""Cloak as deployed under a team's load, beside doccano 1.8.4 in the same run.

Cloak runs as docker-compose runs it: gunicorn sync workers (2 × cores + 1), the Celery worker
on the same machine (queues default and ner), PostgreSQL, Redis as the broker. The data is
issue 21's: one document of 6,000 Arabic words with 400 machine proposals (names and places
that repeat, handles, phone numbers), in 51 copies, so that a decision in one document starts
propagation work over the others on the worker. The same client code, on 127.0.0.1, then
times, one request at a time on the first document:

- open: the API's JSON (the document with its spans) and the workspace page (its weight too);
- one accept from the page: the htmx request the page sends, saying what it shows, answered
  with the patch the page applies (as bench/workspace_bench.py sends it);
- add a span (API): three words no span touches, accepted with a label;
- relabel (API): each span just added takes another label;

and then every client at once, each on a copy of its own: 50 clients × 20 adds. Before each
step the worker is given up to --drain seconds to finish what the previous one started; how
long it took is printed (propagation's lag).

With --doccano-python (a virtual environment with doccano==1.8.4 and gunicorn), the same run
then starts doccano with its own SQLite and media folder in a temporary directory, creates
the same project (a sequence-labeling project, its labels, the 51 documents with the same 400
spans, per annotator as doccano keeps them) through its ORM in a setup process, serves its
WSGI app with gunicorn (the same worker count), and drives it with the same client: open (the
example and its spans, as its page asks for them), add + refetch (its page fetches the spans
again after an add: the counterpart of one accept), add, relabel, and 50 × 20 adds at the same
places. Cloak's server and worker are stopped first: the two never share the CPU.

Prints one table, Cloak beside doccano (p50 / p95 ms, rate, errors, and the CPU seconds the
servers and the worker spent per request, steadier than wall time on a shared machine), the
ratio, and issue 21's targets.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_load_bench \\
    REDIS_URL=redis://127.0.0.1:6379/4 \\
        python bench/load_bench.py [--doccano-python /path/to/doccano-venv/bin/python] \\
            [--rounds 50] [--clients 50] [--adds 20] [--worker-nice N] [--no-worker]

Traffic goes to 127.0.0.1 only, in a bounded number of requests. The database named in
DATABASE_URL is dropped and created again first, and the Redis database in REDIS_URL is
emptied (the broker's queues): point them at ones of their own.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import partial
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api_load_bench import free_port, percentile  # noqa: E402
from bench.import_bench import django_on_fresh_database  # noqa: E402
from bench.workspace_bench import WORDS, arabic_document  # noqa: E402

# What an add labels three words with, by their text: the same surface always takes the same
# label (a team agrees), and a relabel takes the next one.
ADD_LABELS = ("PER", "LOC", "ORG")
PASSWORD = "load-bench-password-1"


# -- the data -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    """One document (text and proposals), copied `copies` times, and where an annotator adds
    spans: three words of the text that no proposal touches, with their label."""

    text: str
    spans: list[tuple[int, int, str]]
    free: list[tuple[int, int, str]]
    copies: int


def add_label(surface: str) -> str:
    return ADD_LABELS[zlib.crc32(surface.encode()) % len(ADD_LABELS)]


def relabel(label: str) -> str:
    return ADD_LABELS[(ADD_LABELS.index(label) + 1) % len(ADD_LABELS)]


def corpus(words: int, spans: int, copies: int) -> Corpus:
    text, found = arabic_document(words, spans, seed=7)
    filler = set(WORDS)
    taken = sorted((start, end) for start, end, _ in found)
    tokens = list(re.finditer(r"[^ ]+", text))
    free_token = []
    cursor = 0
    for token in tokens:
        while cursor < len(taken) and taken[cursor][1] <= token.start():
            cursor += 1
        touched = cursor < len(taken) and taken[cursor][0] < token.end()
        free_token.append(token.group() in filler and not touched)
    free: list[tuple[int, int, str]] = []
    index = 0
    while index + 2 < len(tokens):
        if all(free_token[index : index + 3]):
            start, end = tokens[index].start(), tokens[index + 2].end()
            free.append((start, end, add_label(text[start:end])))
            index += 3
        else:
            index += 1
    return Corpus(text=text, spans=found, free=free, copies=copies)


# -- measuring ------------------------------------------------------------------------------


@dataclass
class Result:
    """One step: each operation's wall time, what failed, and what the servers spent."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    web_cpu: float = 0.0
    worker_cpu: float = 0.0
    drained: str = ""

    @property
    def ops(self) -> int:
        return len(self.latencies)

    def ms(self, fraction: float) -> float:
        return 1000 * percentile(self.latencies, fraction) if self.latencies else float("nan")

    @property
    def rate(self) -> float:
        succeeded = self.ops - len(self.errors)
        return succeeded / self.seconds if self.seconds else float("nan")


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of `pid` and its living descendants, from /proc."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The command may hold spaces and parentheses: the fields start after the last ')'.
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    total, stack = 0.0, [pid]
    while stack:
        current = stack.pop()
        total += times.get(current, 0.0)
        stack.extend(child for child, parent in parents.items() if parent == current)
    return total


class Http:
    """One client's keep-alive connection to 127.0.0.1, with the headers it always sends."""

    def __init__(self, port: int, headers: dict[str, str]) -> None:
        self.port, self.headers = port, headers
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.cookies: dict[str, str] = {}

    def send(
        self, method: str, path: str, body: bytes | str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes]:  # fmt: skip
        sent = {**self.headers, **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            self.conn.request(method, path, body=body, headers=sent)
            response = self.conn.getresponse()
        except (http.client.HTTPException, ConnectionError):
            # A worker closed the kept-alive connection (gunicorn's sync workers do): reopen.
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            self.conn.request(method, path, body=body, headers=sent)
            response = self.conn.getresponse()
        data = response.read()
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
        return response.status, data

    def json(self, method: str, path: str, payload: Any = None) -> tuple[int, Any]:
        body = None if payload is None else json.dumps(payload)
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        status, data = self.send(method, path, body, headers)
        try:
            return status, json.loads(data) if data else None
        except ValueError:
            return status, data[:200].decode(errors="replace")

    def close(self) -> None:
        self.conn.close()


def timed(result: Result, operation: Callable[[], str | None]) -> None:
    """Run one operation, which returns what went wrong or None, and record it."""
    started = time.perf_counter()
    try:
        error = operation()
    except Exception as failure:  # a bench reports every failure, whatever it is
        error = f"{type(failure).__name__}: {failure}"
    result.latencies.append(time.perf_counter() - started)
    if error:
        result.errors.append(error)


def wait_for(port: int, path: str, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", path)
            conn.getresponse().read()
            conn.close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


# -- the tools, behind the same client ---------------------------------------------------------


@dataclass
class Added:
    """A span an add made: its id and version (doccano keeps no version)."""

    id: int
    version: int
    label: str


class Tool:
    """What the steps do, said once for both tools."""

    name = ""
    port = 0
    pids: tuple[int, ...] = ()
    worker_pid: int | None = None
    # Both tools use DRF's header: `Authorization: Token <token>` (knox's in Cloak). The
    # first token and document are the sequential annotator's, then one per client.
    tokens: list[str]
    documents: list[int]

    def client(self, number: int | None) -> Http:
        """The HTTP client of the sequential annotator (None) or of concurrent client n."""
        token = self.tokens[0 if number is None else number + 1]
        return Http(self.port, {"Authorization": f"Token {token}"})

    def document(self, number: int | None) -> int:
        return self.documents[0 if number is None else number + 1]

    def open_api(self, http: Http, document: int) -> str | None:
        raise NotImplementedError

    def add(self, http: Http, document: int, start: int, end: int, label: str,
            made: list[Added]) -> str | None:  # fmt: skip
        raise NotImplementedError

    def relabel(self, http: Http, document: int, span: Added) -> str | None:
        raise NotImplementedError

    def web_cpu(self) -> float:
        return sum(tree_cpu(pid) for pid in self.pids)

    def worker_cpu(self) -> float:
        return tree_cpu(self.worker_pid) if self.worker_pid else 0.0

    def drain(self, seconds: float) -> str:
        return ""


def failed(what: str, status: int, body: Any) -> str:
    detail = body.get("detail", body) if isinstance(body, dict) else body
    return f"{what}: {status} {str(detail)[:160]}"


class Cloak(Tool):
    name = "Cloak"

    def __init__(self, slug: str, documents: list[int], tokens: list[str], session: str) -> None:
        self.slug, self.documents, self.tokens, self.session = slug, documents, tokens, session

    def open_api(self, http: Http, document: int) -> str | None:
        status, body = http.json("GET", f"/api/projects/{self.slug}/documents/{document}/")
        if status != 200 or len(body["spans"]) < 1:
            return failed("open", status, body)
        return None

    def add(self, http: Http, document: int, start: int, end: int, label: str,
            made: list[Added]) -> str | None:  # fmt: skip
        path = f"/api/projects/{self.slug}/documents/{document}/spans/"
        status, body = http.json("POST", path, {"start": start, "end": end, "label": label})
        if status != 201:
            return failed("add", status, body)
        made.append(Added(body["id"], body["version"], label))
        return None

    def relabel(self, http: Http, document: int, span: Added) -> str | None:
        path = f"/api/projects/{self.slug}/documents/{document}/spans/{span.id}/"
        label = relabel(span.label)
        status, body = http.json("PATCH", path, {"version": span.version, "label": label})
        if status != 200 or body["label"] != label:
            return failed("relabel", status, body)
        return None

    def drain(self, seconds: float) -> str:
        """Wait until the worker has nothing queued or under way; how long that took."""
        if self.worker_pid is None:
            return ""
        import redis

        broker = redis.Redis.from_url(os.environ["REDIS_URL"])
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            # kombu's Redis transport: a list per queue (and priority), and the messages a
            # worker took but has not acknowledged yet (acks_late) in one hash.
            waiting = sum(
                int(broker.llen(key))
                for pattern in ("default*", "ner*")
                for key in broker.scan_iter(pattern)
                if broker.type(key) == b"list"
            )
            if waiting == 0 and int(broker.hlen("unacked")) == 0:
                return f"{time.monotonic() - started:.1f} s"
            time.sleep(0.25)
        return f"busy after {seconds:.0f} s"


class PageRows(HTMLParser):
    """What the workspace page (or a patch of it) shows: each span's row by its data-*
    attributes, whatever their order, the CSRF token and the status bar's stamp."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: dict[str, dict[str, str]] = {}
        self.csrf = ""
        self.document_stamp: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if "data-span-id" in values and tag == "tr":
            self.rows[values["data-span-id"]] = values
        if values.get("name") == "csrfmiddlewaretoken" and values.get("value"):
            self.csrf = values["value"]
        if "hx-headers" in values and not self.csrf:
            with suppress(ValueError):
                self.csrf = json.loads(values["hx-headers"]).get("X-CSRFToken", "")
        if "data-document-stamp" in values:
            self.document_stamp = values["data-document-stamp"]


def parsed(html: str) -> PageRows:
    rows = PageRows()
    rows.feed(html)
    return rows


class Page:
    """The annotator's page as its script drives it: what it shows, and one action."""

    def __init__(self, cloak: Cloak, document: int) -> None:
        from django.urls import reverse

        self.cloak, self.document = cloak, document
        self.path = reverse("document_detail", args=[cloak.slug, document])
        self.http = Http(cloak.port, {})
        self.http.cookies["sessionid"] = cloak.session
        self.shown: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.urls: dict[str, str] = {}
        self.document_stamp = ""
        self.csrf = ""
        self.kilobytes = 0.0

    def open(self) -> str | None:
        status, data = self.http.send("GET", self.path)
        if status != 200:
            return f"open the page: {status}"
        self.kilobytes = len(data) / 1024
        page = parsed(data.decode())
        self.csrf = page.csrf or self.csrf
        self.document_stamp = page.document_stamp or ""
        self.shown.clear()
        self.apply(page)
        return None

    def apply(self, page: PageRows) -> None:
        for pk, row in page.rows.items():
            if "data-version" in row:
                self.versions[pk] = int(row["data-version"])
            if row.get("data-action-url"):
                self.urls[pk] = row["data-action-url"]
            start, end, *_ = (row.get("data-order") or "0 0").split()
            self.shown[pk] = f"{pk}:{row.get('data-stamp', '')}:{start}:{end}"
        if page.document_stamp is not None:
            self.document_stamp = page.document_stamp

    def proposals(self) -> list[str]:
        """The spans the page offers to accept, in text order; from the API when the page
        lists no rows of its own (it may load them later)."""
        if self.versions:
            return sorted(self.versions, key=lambda pk: int(self.shown[pk].split(":")[2]))
        from django.urls import reverse

        http = self.cloak.client(None)
        status, body = http.json(
            "GET", f"/api/projects/{self.cloak.slug}/documents/{self.document}/spans/?limit=1000"
        )
        http.close()
        for span in body["results"]:
            pk = str(span["id"])
            self.versions[pk] = span["version"]
            self.urls[pk] = reverse(
                "span_action", args=[self.cloak.slug, self.document, span["id"]]
            )
        return [str(span["id"]) for span in body["results"] if span["status"] == "proposed"]

    def accept(self, pk: str) -> str | None:
        from django.urls import reverse

        # A row names no URL of its own when the page builds it from the span's id.
        url = self.urls.get(pk) or reverse(
            "span_action", args=[self.cloak.slug, self.document, int(pk)]
        )
        body = urlencode(
            {
                "csrfmiddlewaretoken": self.csrf,
                "version": self.versions[pk],
                "action": "accept",
                "known": " ".join(self.shown.values()),
                "known_document": self.document_stamp,
            },
            quote_via=quote,
        )
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "HX-Request": "true",
            "HX-Target": "workspace-patch",
            "HX-Current-URL": f"http://127.0.0.1:{self.cloak.port}{self.path}",
            "X-CSRFToken": self.csrf,
            "Referer": f"http://127.0.0.1:{self.cloak.port}{self.path}",
        }
        version = self.versions[pk]
        status, data = self.http.send("POST", url, body, headers)
        fragment = data.decode()
        if status != 200 or "alert-error" in fragment:
            return f"accept: {status}"
        self.apply(parsed(fragment))
        if self.versions[pk] <= version:
            return "accept: the patch did not show the span accepted"
        return None


class Doccano(Tool):
    name = "doccano 1.8.4"

    def __init__(self, setup: dict[str, Any]) -> None:
        self.project: int = setup["project"]
        self.documents = setup["examples"]
        self.tokens = setup["tokens"]
        self.labels: dict[str, int] = setup["labels"]
        self.names = {pk: name for name, pk in self.labels.items()}

    def open_api(self, http: Http, document: int) -> str | None:
        base = f"/v1/projects/{self.project}/examples/{document}"
        status, body = http.json("GET", base)
        if status != 200:
            return failed("open", status, body)
        status, body = http.json("GET", f"{base}/spans")
        if status != 200 or len(body) < 1:
            return failed("open: spans", status, body)
        return None

    def add(self, http: Http, document: int, start: int, end: int, label: str,
            made: list[Added]) -> str | None:  # fmt: skip
        path = f"/v1/projects/{self.project}/examples/{document}/spans"
        payload = {"start_offset": start, "end_offset": end, "label": self.labels[label]}
        status, body = http.json("POST", path, payload)
        if status != 201:
            return failed("add", status, body)
        made.append(Added(body["id"], 0, label))
        return None

    def refetch(self, http: Http, document: int) -> str | None:
        status, body = http.json("GET", f"/v1/projects/{self.project}/examples/{document}/spans")
        return None if status == 200 else failed("refetch", status, body)

    def relabel(self, http: Http, document: int, span: Added) -> str | None:
        path = f"/v1/projects/{self.project}/examples/{document}/spans/{span.id}"
        label = self.labels[relabel(span.label)]
        status, body = http.json("PATCH", path, {"label": label})
        if status != 200 or body["label"] != label:
            return failed("relabel", status, body)
        return None


# -- the steps -------------------------------------------------------------------------------


@contextmanager
def step(tool: Tool, result: Result, name: str, drain: float) -> Iterator[None]:
    """Time the requests made inside, then give the worker up to `drain` seconds to finish
    what they started: its CPU counts until then, the web's until the last answer."""
    progress(f"{tool.name}: {name}")
    web, worker = tool.web_cpu(), tool.worker_cpu()
    started = time.perf_counter()
    yield
    result.seconds = time.perf_counter() - started
    result.web_cpu = tool.web_cpu() - web
    result.drained = tool.drain(drain)
    result.worker_cpu = tool.worker_cpu() - worker


def progress(what: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {what}", file=sys.stderr, flush=True)


def sequential(tool: Tool, name: str, rounds: int, operation: Callable[[int], str | None],
               drain: float) -> Result:  # fmt: skip
    result = Result()
    with step(tool, result, name, drain):
        for number in range(rounds):
            timed(result, partial(operation, number))
    return result


def run_steps(tool: Tool, data: Corpus, args: argparse.Namespace,
              page: Page | None) -> dict[str, Result]:  # fmt: skip
    """Every step on `tool`, in order; the results by step."""
    results: dict[str, Result] = {}
    http = tool.client(None)
    document = tool.document(None)
    # The sequential annotator's places come from the end of the list; the concurrent
    # clients' from its start, each in a copy of its own.
    # Each surface once: a relabel of a surface another span decided too is refused (409,
    # one surface has one choice), as it should be, and would count as an error here.
    surfaces: dict[str, tuple[int, int, str]] = {}
    for start, end, label in reversed(data.free):
        surfaces.setdefault(data.text[start:end], (start, end, label))
    places = list(surfaces.values())
    if len(places) < 2 * args.rounds or len(data.free) < args.adds:
        raise SystemExit(f"{len(data.free)} places to add a span: fewer rounds or adds")
    timed(Result(), lambda: tool.open_api(http, document))  # warm the workers
    rounds, drain = args.rounds, args.drain
    results["open"] = sequential(tool, "open (API)", rounds,
                                 lambda _: tool.open_api(http, document), drain)  # fmt: skip
    made: list[Added] = []
    if page is not None:
        timed(Result(), page.open)
        results["page"] = sequential(tool, "open the page", rounds, lambda _: page.open(), drain)
        proposals = page.proposals()
        # Names, places, handles and numbers alike, spread through the text.
        chosen = sorted(random.Random(3).sample(proposals, min(rounds, len(proposals))),
                        key=proposals.index)  # fmt: skip
        results["accept"] = sequential(tool, "accept from the page", len(chosen),
                                       lambda n: page.accept(chosen[n]), drain)  # fmt: skip
    elif isinstance(tool, Doccano):
        first = places[:rounds]

        def add_refetch(number: int) -> str | None:
            start, end, label = first[number]
            return tool.add(http, document, start, end, label, []) or tool.refetch(http, document)

        results["accept"] = sequential(tool, "add + refetch", rounds, add_refetch, drain)
    second = places[rounds : 2 * rounds]

    def add(number: int) -> str | None:
        start, end, label = second[number]
        return tool.add(http, document, start, end, label, made)

    results["add"] = sequential(tool, "add (API)", rounds, add, drain)

    def change(number: int) -> str | None:
        return tool.relabel(http, document, made[number])

    results["relabel"] = sequential(tool, "relabel (API)", len(made), change, drain)
    http.close()
    results["concurrent"] = concurrent(tool, data, args)
    return results


def concurrent(tool: Tool, data: Corpus, args: argparse.Namespace) -> Result:
    result = Result()
    barrier = threading.Barrier(args.clients + 1)
    lock = threading.Lock()

    def annotate(number: int) -> None:
        http = tool.client(number)
        document = tool.document(number)
        mine = Result()
        places = data.free[number * args.adds % len(data.free) :][: args.adds]
        places += data.free[: args.adds - len(places)]
        barrier.wait()
        try:
            for start, end, label in places:
                timed(mine, partial(tool.add, http, document, start, end, label, []))
        finally:
            http.close()
            with lock:
                result.latencies += mine.latencies
                result.errors += mine.errors

    threads = [threading.Thread(target=annotate, args=(n,), daemon=True)
               for n in range(args.clients)]  # fmt: skip
    for thread in threads:
        thread.start()
    with step(tool, result, f"{args.clients} clients × {args.adds} adds", args.drain):
        barrier.wait()
        for thread in threads:
            thread.join(timeout=600)
    return result


# -- Cloak -----------------------------------------------------------------------------------


def cloak_setup(data: Corpus, clients: int) -> Cloak:
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from knox.models import AuthToken

    from annotator.models import Document, Span, SpanSource
    from annotator.services.projects import membership_set, project_create

    project = project_create(slug="load-bench", languages=["ar"])
    tokens: list[str] = []
    users = []
    for number in range(clients + 1):
        user = membership_set(
            project=project, username=f"annotator{number}", role="annotator",
            languages=["ar"], password=PASSWORD,
        ).user  # fmt: skip
        users.append(user)
        tokens.append(AuthToken.objects.create(user, expiry=None)[1])
    documents = []
    for number in range(data.copies):
        document = Document.objects.create(
            project=project, language="ar", external_id=f"copy-{number}", text=data.text
        )
        Span.objects.bulk_create(
            Span(document=document, start=s, end=e, label=label, source=SpanSource.NER, score=0.9)
            for s, e, label in data.spans
        )
        documents.append(document.pk)
    session = SessionStore()
    session[SESSION_KEY] = str(users[0].pk)
    # The backend that signs people in (the first one, axes', only counts failures).
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = users[0].get_session_auth_hash()
    session.create()
    return Cloak(project.slug, documents, tokens, session.session_key or "")


def start_cloak(
    cloak: Cloak, args: argparse.Namespace, logs: Path
) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "DJANGO_DEBUG": "0"}
    if args.worker_nice is not None:
        env["CLOAK_WORKER_NICE"] = str(args.worker_nice)
    bin_dir = Path(sys.executable).parent
    cloak.port = free_port()
    web = subprocess.Popen(
        [str(bin_dir / "gunicorn"), "annotator.wsgi:application",
         "--bind", f"127.0.0.1:{cloak.port}", "--workers", str(args.web_workers),
         "--timeout", "120", "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=(logs / "cloak-web.log").open("wb"), stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    started = [web]
    cloak.pids = (web.pid,)
    if not args.no_worker:
        command = [
            str(bin_dir / "celery"), "-A", "annotator", "worker", "-Q", "default,ner",
            "--loglevel", "WARNING", "--hostname", f"load-bench-{os.getpid()}@%h",
        ]  # fmt: skip
        if args.worker_concurrency:
            command += ["--concurrency", str(args.worker_concurrency)]
        worker = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=(logs / "cloak-worker.log").open("wb"),
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        started.append(worker)
        cloak.worker_pid = worker.pid
    wait_for(cloak.port, "/healthz/")
    if cloak.worker_pid is not None:
        from annotator.celery import app

        deadline = time.monotonic() + 90
        while not app.control.ping(timeout=1.0):
            if time.monotonic() > deadline or started[-1].poll() is not None:
                raise SystemExit(f"the worker did not start: see {logs / 'cloak-worker.log'}")
    return started


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """Stop the servers this run started, each with its workers (a session of its own). A
    worker shutting down warm would finish every task it holds first: 15 s, then it goes."""
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def worker_niceness(pid: int | None) -> str:
    if pid is None:
        return "stopped"
    try:
        return f"nice {os.getpriority(os.PRIO_PROCESS, pid)}"
    except OSError:
        return "gone"


def run_cloak(data: Corpus, args: argparse.Namespace, logs: Path) -> tuple[dict[str, Result], str]:
    import redis

    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/4")
    os.environ["CLOAK_STATIC_ROOT"] = str(logs / "static")
    progress("Cloak: a fresh database, the documents")
    django_on_fresh_database()
    # A queue left by an earlier run would keep this run's worker busy.
    redis.Redis.from_url(os.environ["REDIS_URL"]).flushdb()
    from django.core.management import call_command

    # Pages name their static files through the manifest, as in a deployment: collect them.
    call_command("collectstatic", interactive=False, verbosity=0)
    cloak = cloak_setup(data, args.clients)
    processes = start_cloak(cloak, args, logs)
    try:
        worker = worker_niceness(cloak.worker_pid)
        page = Page(cloak, cloak.document(None))
        results = run_steps(cloak, data, args, page)
    finally:
        stop(processes)
    return results, f"{worker}, the page {page.kilobytes:,.0f} KB"


# -- doccano ---------------------------------------------------------------------------------

# Run by doccano's interpreter, in its Django: the same documents and spans, a project, its
# labels, a superuser who owns it and one annotator per client, each with a token.
DOCCANO_SETUP = """
import json, sys
spec = json.load(sys.stdin)
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("create_roles", verbosity=0)
from django.conf import settings
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from examples.models import Example
from label_types.models import SpanType
from labels.models import Span
from projects.models import Member, ProjectType, SequenceLabelingProject
from roles.models import Role

admin = User.objects.create_superuser("admin", "admin@example.org", spec["password"])
project = SequenceLabelingProject.objects.create(
    name="load bench", description="issue 21", project_type=ProjectType.SEQUENCE_LABELING,
    created_by=admin,
)
Member.objects.create(user=admin, project=project,
                      role=Role.objects.get(name=settings.ROLE_PROJECT_ADMIN))
annotator = Role.objects.get(name=settings.ROLE_ANNOTATOR)
labels = {name: SpanType.objects.create(text=name, project=project).pk for name in spec["labels"]}
users, tokens = [], []
for number in range(spec["clients"] + 1):
    user = User.objects.create_user(f"annotator{number}", password=spec["password"])
    Member.objects.create(user=user, project=project, role=annotator)
    users.append(user)
    tokens.append(Token.objects.create(user=user).key)
examples = []
for number in range(spec["copies"]):
    example = Example.objects.create(project=project, text=spec["text"],
                                     upload_name=f"copy-{number}.txt")
    # doccano keeps spans per annotator: each client's copy holds its annotator's.
    owner = users[min(number, len(users) - 1)]
    Span.objects.bulk_create(
        Span(example=example, user=owner, label_id=labels[label], start_offset=start,
             end_offset=end, prob=0.9)
        for start, end, label in spec["spans"]
    )
    examples.append(example.pk)
print(json.dumps({"project": project.pk, "examples": examples, "tokens": tokens,
                  "labels": labels}))
"""


def run_doccano(data: Corpus, args: argparse.Namespace, logs: Path) -> dict[str, Result]:
    python = args.doccano_python
    backend = subprocess.run(
        [python, "-c", "import backend, os; print(os.path.dirname(backend.__file__))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    home = logs / "doccano"
    home.mkdir()
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        STANDALONE="True",  # as `doccano webserver` runs it
        DEBUG="False",
        SECRET_KEY="doccano-load-bench-secret",
        DATABASE_URL=f"sqlite:///{home / 'db.sqlite3'}",
        MEDIA_ROOT=str(home / "media"),
        DOCCANO_HOME=str(home),
        PYTHONPATH=backend,
    )
    labels = sorted({label for *_, label in data.spans} | set(ADD_LABELS))
    spec = {"text": data.text, "spans": data.spans, "copies": data.copies,
            "clients": args.clients, "labels": labels, "password": PASSWORD}  # fmt: skip
    progress("doccano: a fresh SQLite, the documents")
    done = subprocess.run(
        [python, "-c", DOCCANO_SETUP], input=json.dumps(spec), env=env, cwd=backend,
        capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"doccano's setup failed:\n{done.stderr[-3000:]}")
    doccano = Doccano(json.loads(done.stdout.strip().splitlines()[-1]))
    doccano.port = free_port()
    web = subprocess.Popen(
        [python, "-m", "gunicorn", "config.wsgi", "--chdir", backend,
         "--bind", f"127.0.0.1:{doccano.port}", "--workers", str(args.web_workers),
         "--timeout", "120", "--log-level", "warning"],
        cwd=backend, env=env, stdout=(logs / "doccano-web.log").open("wb"),
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    doccano.pids = (web.pid,)
    try:
        # Not /v1/health/: it asks a Celery worker, which this run does not start.
        wait_for(doccano.port, "/v1/projects")
        return run_steps(doccano, data, args, None)
    finally:
        stop([web])


# -- the table -------------------------------------------------------------------------------

ROWS = [
    ("open", "open: the API's JSON", "open: example + spans JSON"),
    ("page", "open: the page", ""),
    ("accept", "one accept from the page (htmx)", "add + refetch"),
    ("add", "add a span (API)", ""),
    ("relabel", "relabel (API)", ""),
    ("concurrent", "clients × adds at once", ""),
]


def cells(result: Result | None) -> str:
    if result is None or not result.latencies:
        return f"{'—':>9}{'':45}"
    web = 1000 * result.web_cpu / result.ops
    worker = 1000 * result.worker_cpu / result.ops
    return (
        f"{result.ms(0.5):9.1f}{result.ms(0.95):9.1f}{result.rate:8.1f}{len(result.errors):5d}"
        f"{web:8.1f}{worker:8.1f}   "
    )


def report(cloak: dict[str, Result], doccano: dict[str, Result] | None, worker: str,
           args: argparse.Namespace, data: Corpus) -> None:  # fmt: skip
    words = len(data.text.split())
    print(f"\n{data.copies} documents of {words:,} Arabic words with {len(data.spans)} spans; "
          f"{args.rounds} requests one at a time per step, then {args.clients} clients × "
          f"{args.adds} adds at once; gunicorn {args.web_workers} sync workers each; "
          f"Cloak's worker {worker}; {os.cpu_count()} cores")  # fmt: skip
    print("ms: p50 and p95 of each request's wall time; /s: requests answered per second "
          "(one client at a time but in the last row); cpu: the servers' CPU ms per request, "
          "web and worker (the worker's until it finished what the step started)\n")  # fmt: skip
    head = f"{'p50 ms':>9}{'p95 ms':>9}{'/s':>8}{'err':>5}{'web cpu':>8}{'worker':>8}   "
    title = f"{'Cloak':^52}" + (f"{'doccano 1.8.4':^52}Cloak ÷ doccano" if doccano else "")
    print(f"{'':34}{title}")
    print(f"{'':34}{head}{head if doccano else ''}{'p95' if doccano else ''}")
    for key, ours, theirs in ROWS:
        label = ours if key != "concurrent" else f"{args.clients} × {args.adds} adds at once"
        line = f"{label:34}{cells(cloak.get(key))}"
        if doccano:
            line += cells(doccano.get(key))
            if key in doccano and key in cloak:
                line += f"{cloak[key].ms(0.95) / doccano[key].ms(0.95):5.2f}×"
                if key == "concurrent":
                    line += f"  rate {cloak[key].rate / doccano[key].rate:.2f}×"
        print(line)
        if doccano and theirs:
            print(f"{'':88}  (doccano: {theirs})")
    print("\nCloak's worker: how long it took to finish what each step had started")
    for key, ours, _ in ROWS:
        if key in cloak and cloak[key].drained:
            print(f"  {ours if key != 'concurrent' else 'the adds at once':34}{cloak[key].drained}")
    errors = [e for r in cloak.values() for e in r.errors]
    errors += [e for r in (doccano or {}).values() for e in r.errors]
    for error in errors[:10]:
        print(f"  error: {error}")
    targets(cloak, doccano)


def targets(cloak: dict[str, Result], doccano: dict[str, Result] | None) -> None:
    """Issue 21's targets, for reference: this is a measurement, not a test."""

    def mark(ok: bool) -> str:
        return "met" if ok else "NOT met"

    print("\nIssue 21's targets (with the worker running on the same machine):")
    accept = cloak["accept"].ms(0.95)
    print(f"  one accept from the page p95 ≤ 30 ms: {accept:.1f} ms, {mark(accept <= 30)}")
    many = cloak["concurrent"]
    print(
        f"  {many.ops} adds at once p95 ≤ 200 ms, 0 errors: {many.ms(0.95):.1f} ms, "
        f"{len(many.errors)} errors, {mark(many.ms(0.95) <= 200 and not many.errors)}"
    )
    if doccano is None:
        return
    theirs = doccano["accept"].ms(0.95)
    print(
        f"  accept p95 ≤ half doccano's add + refetch ({theirs:.1f} ms): "
        f"{accept:.1f} ms, {mark(accept <= theirs / 2)}"
    )
    page, opened = cloak["page"].ms(0.95), doccano["open"].ms(0.95)
    print(f"  the page p95 no slower than doccano's JSON open ({opened:.1f} ms): {page:.1f} ms, "
          f"{mark(page <= opened)}")  # fmt: skip
    rate = doccano["concurrent"].rate
    print(f"  adds at once ≥ 2× doccano's rate ({rate:.1f}/s): {many.rate:.1f}/s, "
          f"{mark(many.rate >= 2 * rate)}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--doccano-python", help="the python of a venv with doccano==1.8.4")
    parser.add_argument("--rounds", type=int, default=50, help="requests per sequential step")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--adds", type=int, default=20, help="adds per concurrent client")
    parser.add_argument("--copies", type=int, default=51, help="documents (≥ clients + 1)")
    parser.add_argument("--words", type=int, default=6000)
    parser.add_argument("--spans", type=int, default=400)
    parser.add_argument("--web-workers", type=int, default=2 * (os.cpu_count() or 1) + 1)
    parser.add_argument("--worker-concurrency", type=int, help="Celery's default: the cores")
    parser.add_argument("--worker-nice", type=int, help="CLOAK_WORKER_NICE for the worker")
    parser.add_argument("--no-worker", action="store_true", help="run Cloak without its worker")
    parser.add_argument(
        "--drain", type=float, default=60.0,
        help="seconds the worker gets to finish a step's work before the next",
    )  # fmt: skip
    args = parser.parse_args()

    data = corpus(args.words, args.spans, copies=max(args.copies, args.clients + 1))
    logs = Path(tempfile.mkdtemp(prefix="cloak-load-"))
    started = time.perf_counter()
    try:
        cloak, worker = run_cloak(data, args, logs)
        doccano = run_doccano(data, args, logs) if args.doccano_python else None
    except BaseException:
        print(f"the servers' logs are kept in {logs}", file=sys.stderr)
        raise
    report(cloak, doccano, worker, args, data)
    print(f"\nwhole run {time.perf_counter() - started:.0f} s")
    shutil.rmtree(logs, ignore_errors=True)


if __name__ == "__main__":
    main()
