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
- relabel (API): each span just added takes another label (confirmed: by then propagation
  proposed its surface in the other copies, whose spans follow the relabel);

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

The open loop (issue 33; `--mode open`, or after the steps above with `--mode both`, the
default) models a team's pace instead of clients that wait for each other: --open-annotators
annotators (50), each acting every --open-every seconds on average (2.0: 25 actions a second
in all), the gaps drawn from an exponential distribution (a Poisson process per annotator,
seeded by --open-seed so that a run repeats), for --open-seconds (60) after --open-warmup
(10) seconds that are not measured. Each action is sent at its scheduled time, whether the
others have answered or not (a thread per annotator; one annotator's next action waits for
their previous answer, as a person does), and its latency runs from its scheduled time to its
answer, so that a slow answer is counted in every action it holds up (no coordinated
omission; bench/open_loop.py). Each annotator works on a copy of their own, in a project of
its own (the same document, the same proposals), with their own session and token, and the
actions mix (--open-mix, default accept=0.5,add=0.35,relabel=0.15):

- accept: the next proposal of the annotator's page (in an order drawn for them), with the
  htmx request the page sends, its patch applied as the page does (the page opened first);
- add (API): --open-shared (0.3) of them one of 10 surfaces shared by the team, each added
  by many annotators in their own documents (the correspondence table and propagation work
  across annotators), the others a surface new to the table, no two annotators the same;
- relabel (API): the annotator's next new span not relabelled yet (in the order they added
  them) takes another label (a relabel drawn before there is one is an add instead; the
  timetable says so up front, so that both tools get the same one).

The Celery worker runs meanwhile, so the propagation the decisions start competes for the
CPU; once the loop ends it gets --drain seconds to finish, and the time it took is printed.
doccano, with --doccano-python, runs the same timetable once Cloak is stopped, with its
counterparts: add + refetch for an accept (at a place of the document no other action of the
annotator uses), add, relabel. The open loop prints, per action and per tool, the count,
p50 / p95 / p99 / max ms, the errors (each kind once, with its first message) and the rate
achieved; how late the client sent; the cores busy over the window (web, worker, PostgreSQL,
this client, the whole machine: on a shared machine, what the neighbours took) and the CPU
ms each action cost; how long after the window the last answer came, when the server fell
behind; and issue 33's targets (open loop, 50 annotators every 2 s: accept p95 ≤ 100 ms, add
p95 ≤ 100 ms, 0 errors). An action still unanswered 180 s after the last one was due is an
error, and the rest of that annotator's timetable is not sent.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_load_bench \\
    REDIS_URL=redis://127.0.0.1:6379/4 \\
        python bench/load_bench.py [--doccano-python /path/to/doccano-venv/bin/python] \\
            [--mode {closed,open,both}] [--rounds 50] [--clients 50] [--adds 20] \\
            [--open-annotators 50] [--open-every 2.0] [--open-seconds 60] \\
            [--open-warmup 10] [--open-seed 1] [--open-shared 0.3] \\
            [--open-mix accept=0.5,add=0.35,relabel=0.15] [--worker-nice N] [--no-worker]

Traffic goes to 127.0.0.1 only, in a bounded number of requests. The database named in
DATABASE_URL is dropped and created again first, and the Redis database in REDIS_URL is
emptied (the broker's queues): point them at ones of their own.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
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
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from functools import partial
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import open_loop  # noqa: E402
from bench.api_load_bench import free_port, percentile  # noqa: E402
from bench.import_bench import django_on_fresh_database  # noqa: E402
from bench.open_loop import Action, OpenRun  # noqa: E402
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
        """The `fraction` percentile in ms (0.5, 0.95, 0.99; 1.0 is the slowest)."""
        return 1000 * percentile(self.latencies, fraction) if self.latencies else float("nan")

    @property
    def rate(self) -> float:
        succeeded = self.ops - len(self.errors)
        return succeeded / self.seconds if self.seconds else float("nan")


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _processes() -> Iterator[tuple[int, str, list[str]]]:
    """Each process of /proc: its pid, its name, and the fields of its stat after the name
    (the name may hold spaces and parentheses: they start after the last ')')."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        yield int(entry), name, stat[stat.rindex(")") + 2 :].split()


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of `pid` and its living descendants, from /proc."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for process, _, fields in _processes():
        parents[process] = int(fields[1])
        times[process] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    total, stack = 0.0, [pid]
    while stack:
        current = stack.pop()
        total += times.get(current, 0.0)
        stack.extend(child for child, parent in parents.items() if parent == current)
    return total


def named_cpu(name: str) -> float:
    """CPU seconds (user + system) of every process called `name`, and of the children each
    has waited for: PostgreSQL's, its postmaster counting the backends that have ended (all
    the cluster's databases, this run's and any other's)."""
    return sum(
        sum(int(value) for value in fields[11:15]) / CLOCK_TICKS
        for _, called, fields in _processes()
        if called == name
    )


def machine_cpu() -> float:
    """CPU seconds the whole machine has been busy (all its cores, neighbours included)."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields[:8]) - idle) / CLOCK_TICKS


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

    def __init__(
        self, slug: str, documents: list[int], tokens: list[str], sessions: list[str]
    ) -> None:
        # A signed-in session per user, in the order of the tokens: the page's.
        self.slug, self.documents, self.tokens, self.sessions = slug, documents, tokens, sessions

    def session(self, number: int | None) -> str:
        return self.sessions[0 if number is None else number + 1]

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
        # Confirmed: once propagation proposed the surface elsewhere, its entity is held by
        # other spans, which follow the relabel; unconfirmed, that is refused (400).
        payload = {"version": span.version, "label": label, "confirm": True}
        status, body = http.json("PATCH", path, payload)
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


# The start tags PageRows reads, and their attributes, read with expressions: HTMLParser over
# the whole page (the text with its marks, 150 KB and more, which an accept's answer carries
# whole when much changed meanwhile) costs the client a third of a second, which 50
# annotators' threads, under one interpreter lock, cannot spare. Attribute values hold no ">"
# (the templates escape it); tests/test_open_loop.py checks the two readings agree.
READ_TAGS = re.compile(
    r"<[a-zA-Z][^>]*?(?:data-span-id|csrfmiddlewaretoken|hx-headers|data-document-stamp)[^>]*>"
)
TAG_NAME = re.compile(r"<([^\s/>]+)")
ATTRIBUTE = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")


def parsed(html: str) -> PageRows:
    rows = PageRows()
    for tag in READ_TAGS.findall(html):
        name = TAG_NAME.match(tag)
        assert name is not None  # READ_TAGS found a name
        attrs: list[tuple[str, str | None]] = []
        for key, double, single, bare in ATTRIBUTE.findall(tag, name.end(), len(tag) - 1):
            value = double or single or bare
            attrs.append((key.lower(), unescape(value) if "&" in value else value))
        rows.handle_starttag(name.group(1).lower(), attrs)
    return rows


class Page:
    """The annotator's page as its script drives it: what it shows, and one action."""

    def __init__(self, cloak: Cloak, document: int, number: int | None = None) -> None:
        """The page of `document` as the sequential annotator (None) or annotator `number`
        (a concurrent client, an annotator of the open loop) sees it."""
        from django.urls import reverse

        self.cloak, self.document, self.number = cloak, document, number
        self.path = reverse("document_detail", args=[cloak.slug, document])
        self.http = Http(cloak.port, {})
        self.http.cookies["sessionid"] = cloak.session(number)
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

        http = self.cloak.client(self.number)
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
            # What the page would say (a stale version, a refusal), when it says it.
            alert = re.search(r'class="alert alert-error"[^>]*>(.*?)</div>', fragment, re.S)
            said = re.sub(r"<[^>]+>|\s+", " ", alert.group(1)).strip()[:160] if alert else ""
            with suppress(ValueError):  # the patch still tells the page what changed
                self.apply(parsed(fragment))
            return f"accept: {status} {said}".rstrip()
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
    # A surface the relabel gave another label is that label in the project now: the
    # clients' adds leave it, or each would be refused (one surface, one label).
    relabelled = {data.text[start:end] for start, end, _ in second}
    results["concurrent"] = concurrent(tool, data, args, leave=relabelled)
    return results


def concurrent(
    tool: Tool, data: Corpus, args: argparse.Namespace, leave: Collection[str] = ()
) -> Result:
    result = Result()
    free = [place for place in data.free if data.text[place[0] : place[1]] not in leave]
    barrier = threading.Barrier(args.clients + 1)
    lock = threading.Lock()

    def annotate(number: int) -> None:
        http = tool.client(number)
        document = tool.document(number)
        mine = Result()
        places = free[number * args.adds % len(free) :][: args.adds]
        places += free[: args.adds - len(places)]
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


# -- the open loop (issue 33) -----------------------------------------------------------------


Place = tuple[int, int, str]


@dataclass(frozen=True)
class OpenPlaces:
    """Where the open loop's annotators add spans: the team's shared surfaces, each
    annotator's new surfaces (no two alike, in the table's sense: folded), and, for doccano's
    counterpart of an accept, places of the annotator's document no other action of theirs
    uses. The free places of the text never overlap one another."""

    shared: list[Place]
    new: list[list[Place]]
    spare: list[list[Place]]


def open_places(data: Corpus, plan: list[list[Action]]) -> OpenPlaces:
    from pseudonymizer.folding import fold_key

    surfaces: dict[str, Place] = {}
    for place in data.free:
        surfaces.setdefault(fold_key(data.text[place[0] : place[1]]), place)
    unique = list(surfaces.values())
    shared, rest = unique[: open_loop.SHARED_SURFACES], unique[open_loop.SHARED_SURFACES :]
    count = len(plan)
    new = [rest[number::count] for number in range(count)]
    adds, accepts = open_loop.needs(plan, "add"), open_loop.needs(plan, "accept")
    if len(shared) < open_loop.SHARED_SURFACES or any(adds[n] > len(new[n]) for n in range(count)):
        raise SystemExit(
            f"{len(rest)} surfaces for {sum(adds)} adds of new ones, at most {len(rest) // count}"
            " an annotator: more --words, fewer --open-annotators or a shorter run"
        )
    spare = []
    for number in range(count):
        mine = set(new[number][: adds[number]]) | set(shared)
        free = [place for place in data.free if place not in mine]
        turn = number * 37 % len(free)
        spare.append((free[turn:] + free[:turn])[: accepts[number]])
        if len(spare[-1]) < accepts[number]:
            raise SystemExit(f"{len(free)} places for {accepts[number]} accepts: more --words")
    return OpenPlaces(shared, new, spare)


class OpenAnnotator:
    """One annotator of the open loop: their client, their document (a copy of their own),
    their page (Cloak's) and the proposals they will accept in turn, their places, and the
    spans they added on new surfaces (by the add's number), which their relabels change."""

    def __init__(self, tool: Tool, number: int, places: OpenPlaces, page: Page | None,
                 proposals: list[str]) -> None:  # fmt: skip
        self.tool, self.number, self.places = tool, number, places
        self.page, self.proposals = page, proposals
        self.http = tool.client(number)
        self.document = tool.document(number)
        self.made: dict[int, Added] = {}

    def act(self, action: Action) -> str | None:
        tool, http, document = self.tool, self.http, self.document
        if action.kind == "accept":
            if self.page is not None:
                if action.number >= len(self.proposals):
                    return "accept: the page has no proposal left"
                return self.page.accept(self.proposals[action.number])
            if not isinstance(tool, Doccano):
                raise TypeError(f"{tool.name} accepts from its page")
            start, end, label = self.places.spare[self.number][action.number]
            return tool.add(http, document, start, end, label, []) or tool.refetch(http, document)
        if action.kind == "add":
            if action.shared:
                start, end, label = self.places.shared[action.number]
                return tool.add(http, document, start, end, label, [])
            start, end, label = self.places.new[self.number][action.number]
            made: list[Added] = []
            error = tool.add(http, document, start, end, label, made)
            if made:
                self.made[action.number] = made[0]
            return error
        span = self.made.get(action.number)
        if span is None:
            return "relabel: the add it relabels failed"
        return tool.relabel(http, document, span)

    def close(self) -> None:
        self.http.close()
        if self.page is not None:
            self.page.http.close()


def open_mix(args: argparse.Namespace) -> dict[str, float]:
    try:
        return open_loop.parse_mix(args.open_mix)
    except ValueError as error:
        raise SystemExit(f"--open-mix: {error}") from None


def open_plan(args: argparse.Namespace) -> list[list[Action]]:
    return open_loop.timetable(
        args.open_annotators, args.open_every, args.open_seconds, args.open_warmup,
        open_mix(args), args.open_seed, shared=args.open_shared,
    )  # fmt: skip


def run_open(tool: Tool, data: Corpus, args: argparse.Namespace,
             page_of: Callable[[int], Page] | None) -> OpenRun:  # fmt: skip
    """The open loop's timetable on `tool`: each annotator's page opened first (Cloak's), then
    the warm-up and the measured window, then the worker's backlog; what it measured."""
    plan = open_plan(args)
    places = open_places(data, plan)
    accepts = open_loop.needs(plan, "accept")
    progress(f"{tool.name}: the open loop's {len(plan)} annotators open their documents")
    annotators = []
    for number in range(len(plan)):
        page, proposals = None, []
        if page_of is not None:
            page = page_of(number)
            error = page.open()
            if error:
                raise SystemExit(f"{tool.name}: annotator {number}: {error}")
            proposals = page.proposals()
            random.Random(f"accept/{args.open_seed}/{number}").shuffle(proposals)
            if len(proposals) < accepts[number]:
                raise SystemExit(f"{len(proposals)} proposals for {accepts[number]} accepts: "
                                 "more --spans or a shorter run")  # fmt: skip
        annotator = OpenAnnotator(tool, number, places, page, proposals)
        if page is None:
            error = tool.open_api(annotator.http, annotator.document)
            if error:
                raise SystemExit(f"{tool.name}: annotator {number}: {error}")
        annotators.append(annotator)
    cpu: dict[str, dict[str, float]] = {}

    def snapshot(name: str) -> None:
        # The client's too (its threads share the machine with the servers), PostgreSQL's and
        # the machine's: what the servers' own numbers leave out.
        cpu[name] = {
            "web": tool.web_cpu(), "worker": tool.worker_cpu(), "client": time.process_time(),
            "postgres": named_cpu("postgres"), "machine": machine_cpu(),
        }  # fmt: skip

    window = args.open_warmup + args.open_seconds
    progress(f"{tool.name}: open loop, {args.open_warmup:g} s of warm-up, {args.open_seconds:g} s "
             f"measured, {sum(map(len, plan))} actions")  # fmt: skip
    samples = open_loop.drive(
        plan, lambda action: annotators[action.annotator].act(action),
        marks=[(0.0, partial(snapshot, "start")), (args.open_warmup, partial(snapshot, "from")),
               (window, partial(snapshot, "to"))],
    )  # fmt: skip
    for annotator in annotators:
        annotator.close()
    worker = "; the worker finishes its work" if tool.worker_pid is not None else ""
    progress(f"{tool.name}: the open loop is over{worker}")
    drained = tool.drain(args.drain)
    snapshot("end")
    measured = [sample for sample in samples if sample.action.measured]
    # The rate over the time the measured actions took to be answered: the window, or longer
    # when the server fell behind (an action's answer at its time plus its latency).
    overrun = max([0.0] + [s.action.at + s.latency - window for s in measured if not s.error])
    rows = {key: Result(seconds=args.open_seconds + overrun) for key, _ in open_loop.ROWS}
    for sample in measured:
        for key in open_loop.rows_of(sample):
            rows[key].latencies.append(sample.latency)
            if sample.error:
                rows[key].errors.append(sample.error)
    spent = {key: cpu["to"][key] - cpu["from"][key] for key in cpu["to"]}
    if tool.worker_pid is None:
        del spent["worker"]
    if not isinstance(tool, Cloak):
        del spent["postgres"]  # doccano keeps its data in SQLite, in the web workers
    # What one action costs, steadier than its wall time on a shared machine: the whole loop
    # (warm-up included, and the worker's work until it finished) over the actions answered.
    answered = sum(1 for sample in samples if not math.isnan(sample.lag))
    each: dict[str, float] = {
        key: 1000 * (cpu["end"][key] - cpu["start"][key]) / max(1, answered)
        for key in ("web", "worker", "postgres") if key in spent
    }  # fmt: skip
    return OpenRun(
        tool.name, dict(rows), lags=[s.lag for s in measured], cpu=spent, each=each,
        drained=drained, seconds=args.open_seconds, overrun=overrun,
    )  # fmt: skip


# -- Cloak -----------------------------------------------------------------------------------


def cloak_setup(
    data: Corpus, clients: int, slug: str = "load-bench", prefix: str = "annotator"
) -> Cloak:
    """A project of `data.copies` documents, and `clients` + 1 annotators (`prefix` and their
    number), each with a token and a signed-in session."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from knox.models import AuthToken

    from annotator.models import Document, Span, SpanSource
    from annotator.services.projects import membership_set, project_create

    project = project_create(slug=slug, languages=["ar"])
    tokens: list[str] = []
    users = []
    for number in range(clients + 1):
        user = membership_set(
            project=project, username=f"{prefix}{number}", role="annotator",
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
    sessions = []
    for user in users:
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        # The backend that signs people in (the first one, axes', only counts failures).
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        sessions.append(session.session_key or "")
    return Cloak(project.slug, documents, tokens, sessions)


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


def run_cloak(
    data: Corpus, args: argparse.Namespace, logs: Path
) -> tuple[dict[str, Result] | None, OpenRun | None, str]:
    """The steps (closed loop) and the open loop the mode asks for, each in a project of its
    own, on one server and worker; their results and a word on the worker and the page."""
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
    closed = cloak_setup(closed_data(data, args), args.clients) if args.mode != "open" else None
    opened = None
    if args.mode != "closed":
        progress("Cloak: the open loop's project")
        opened = cloak_setup(open_data(data, args), args.open_annotators, slug="load-bench-open",
                             prefix="open")  # fmt: skip
    first = closed or opened
    assert first is not None
    processes = start_cloak(first, args, logs)
    for other in (closed, opened):
        if other is not None and other is not first:
            other.port, other.pids, other.worker_pid = first.port, first.pids, first.worker_pid
    results, run, page = None, None, None
    try:
        worker = worker_niceness(first.worker_pid)
        if closed is not None:
            page = Page(closed, closed.document(None))
            results = run_steps(closed, closed_data(data, args), args, page)
        if opened is not None:
            if closed is not None:
                drained = opened.drain(args.drain)
                progress(f"Cloak: the worker finished the steps' work ({drained or 'no worker'})")
            run = run_open(opened, open_data(data, args), args, partial(annotator_page, opened))
    finally:
        stop(processes)
    said = f", the page {page.kilobytes:,.0f} KB" if page is not None else ""
    return results, run, f"{worker}{said}"


def annotator_page(cloak: Cloak, number: int) -> Page:
    """The page of annotator `number`'s own document, as they see it."""
    return Page(cloak, cloak.document(number), number)


def closed_data(data: Corpus, args: argparse.Namespace) -> Corpus:
    return replace(data, copies=max(data.copies, args.clients + 1))


def open_data(data: Corpus, args: argparse.Namespace) -> Corpus:
    return replace(data, copies=max(data.copies, args.open_annotators + 1))


# -- doccano ---------------------------------------------------------------------------------

# Run by doccano's interpreter, in its Django: the same documents and spans, in a project per
# run (the steps', the open loop's), its labels, a superuser who owns them and one annotator
# per client, each with a token, a member of every project.
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
annotator = Role.objects.get(name=settings.ROLE_ANNOTATOR)
users, tokens = [], []
for number in range(max(wanted["clients"] for wanted in spec["projects"]) + 1):
    user = User.objects.create_user(f"annotator{number}", password=spec["password"])
    users.append(user)
    tokens.append(Token.objects.create(user=user).key)
made = []
for wanted in spec["projects"]:
    project = SequenceLabelingProject.objects.create(
        name=wanted["name"], description="issues 21 and 33",
        project_type=ProjectType.SEQUENCE_LABELING, created_by=admin,
    )
    Member.objects.create(user=admin, project=project,
                          role=Role.objects.get(name=settings.ROLE_PROJECT_ADMIN))
    for user in users[: wanted["clients"] + 1]:
        Member.objects.create(user=user, project=project, role=annotator)
    labels = {name: SpanType.objects.create(text=name, project=project).pk
              for name in spec["labels"]}
    examples = []
    for number in range(wanted["copies"]):
        example = Example.objects.create(project=project, text=spec["text"],
                                         upload_name=f"copy-{number}.txt")
        # doccano keeps spans per annotator: each client's copy holds its annotator's.
        owner = users[min(number, wanted["clients"])]
        Span.objects.bulk_create(
            Span(example=example, user=owner, label_id=labels[label], start_offset=start,
                 end_offset=end, prob=0.9)
            for start, end, label in spec["spans"]
        )
        examples.append(example.pk)
    made.append({"project": project.pk, "examples": examples, "tokens": tokens,
                 "labels": labels})
print(json.dumps(made))
"""


def run_doccano(
    data: Corpus, args: argparse.Namespace, logs: Path
) -> tuple[dict[str, Result] | None, OpenRun | None]:
    """The same runs as `run_cloak`, on doccano: a project for each, one server."""
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
    projects = []
    if args.mode != "open":
        projects.append({"name": "load bench", "copies": closed_data(data, args).copies,
                         "clients": args.clients})  # fmt: skip
    if args.mode != "closed":
        projects.append({"name": "load bench, open loop", "copies": open_data(data, args).copies,
                         "clients": args.open_annotators})  # fmt: skip
    spec = {"text": data.text, "spans": data.spans, "labels": labels, "password": PASSWORD,
            "projects": projects}  # fmt: skip
    progress("doccano: a fresh SQLite, the documents")
    done = subprocess.run(
        [python, "-c", DOCCANO_SETUP], input=json.dumps(spec), env=env, cwd=backend,
        capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"doccano's setup failed:\n{done.stderr[-3000:]}")
    made = [Doccano(setup) for setup in json.loads(done.stdout.strip().splitlines()[-1])]
    closed = made.pop(0) if args.mode != "open" else None
    opened = made.pop(0) if args.mode != "closed" else None
    doccano = closed or opened
    assert doccano is not None
    doccano.port = free_port()
    web = subprocess.Popen(
        [python, "-m", "gunicorn", "config.wsgi", "--chdir", backend,
         "--bind", f"127.0.0.1:{doccano.port}", "--workers", str(args.web_workers),
         "--timeout", "120", "--log-level", "warning"],
        cwd=backend, env=env, stdout=(logs / "doccano-web.log").open("wb"),
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    doccano.pids = (web.pid,)
    if opened is not None:
        opened.port, opened.pids = doccano.port, doccano.pids
    results, run = None, None
    try:
        # Not /v1/health/: it asks a Celery worker, which this run does not start.
        wait_for(doccano.port, "/v1/projects")
        if closed is not None:
            results = run_steps(closed, closed_data(data, args), args, None)
        if opened is not None:
            run = run_open(opened, open_data(data, args), args, None)
    finally:
        stop([web])
    return results, run


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
    parser.add_argument(
        "--mode", choices=("closed", "open", "both"), default="both",
        help="the steps one at a time and the clients at once (closed), the open loop "
        "(open), or both, in that order (default)",
    )  # fmt: skip
    parser.add_argument("--rounds", type=int, default=50, help="requests per sequential step")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--adds", type=int, default=20, help="adds per concurrent client")
    parser.add_argument("--copies", type=int, default=51,
                        help="documents (≥ clients + 1, and ≥ open annotators + 1)")  # fmt: skip
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
    group = parser.add_argument_group("the open loop (issue 33)")
    group.add_argument("--open-annotators", type=int, default=50, help="annotators (50)")
    group.add_argument(
        "--open-every",
        type=float,
        default=2.0,
        help="seconds between one annotator's actions, on average (2.0)",
    )
    group.add_argument(
        "--open-seconds", type=float, default=60.0, help="seconds measured, after the warm-up (60)"
    )
    group.add_argument(
        "--open-warmup",
        type=float,
        default=10.0,
        help="seconds of the timetable run first and not measured (10)",
    )
    group.add_argument("--open-seed", type=int, default=1, help="the timetable's seed (1)")
    group.add_argument(
        "--open-mix",
        default=open_loop.DEFAULT_MIX,
        help=f"the actions' shares, kind=weight ({open_loop.DEFAULT_MIX})",
    )
    group.add_argument(
        "--open-shared", type=float, default=0.3,
        help=f"the share of adds on one of the {open_loop.SHARED_SURFACES} surfaces the team "
        "shares, the others on new ones (0.3)",
    )  # fmt: skip
    args = parser.parse_args()
    if args.mode != "closed":
        if args.open_annotators < 1 or args.open_every <= 0 or args.open_seconds <= 0:
            parser.error("--open-annotators ≥ 1, --open-every and --open-seconds > 0")
        open_mix(args)  # refused now rather than after the setup

    data = corpus(args.words, args.spans, copies=args.copies)
    logs = Path(tempfile.mkdtemp(prefix="cloak-load-"))
    started = time.perf_counter()
    try:
        cloak, cloak_open, worker = run_cloak(data, args, logs)
        doccano, doccano_open = (
            run_doccano(data, args, logs) if args.doccano_python else (None, None)
        )
    except BaseException:
        print(f"the servers' logs are kept in {logs}", file=sys.stderr)
        raise
    if cloak is not None:
        report(cloak, doccano, worker, args, closed_data(data, args))
    if cloak_open is not None:
        open_loop.report(
            [run for run in (cloak_open, doccano_open) if run is not None],
            annotators=args.open_annotators, every=args.open_every, seconds=args.open_seconds,
            warmup=args.open_warmup, mix=open_mix(args), shared=args.open_shared,
            seed=args.open_seed, accept_names={"doccano 1.8.4": "add + refetch"},
        )  # fmt: skip
    print(f"\nwhole run {time.perf_counter() - started:.0f} s")
    shutil.rmtree(logs, ignore_errors=True)


if __name__ == "__main__":
    main()
