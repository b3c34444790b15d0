"""Many annotators at once against the span API, on loopback: gunicorn + PostgreSQL.

Creates a project with A annotators, each with their own English document holding D machine
proposals (distinct people, places and handles), starts gunicorn on 127.0.0.1, and lets every
annotator, in a thread of its own and all at once, open their document's spans and make D span
decisions through the API (accept with the suggested pseudonym, reject, keep with a reason,
relabel), as the annotator's page does. Prints request latencies (p50, p95, p99, max), span
decisions per second over the whole run, and every error. Targets: p95 ≤ 200 ms, ≥ 300
decisions/s, 0 errors, at 50 annotators × 20 decisions.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_bench \
        python bench/api_load_bench.py [--annotators 50] [--decisions 20] \
            [--workers 4] [--threads 1]

Traffic goes to 127.0.0.1 only, in a bounded number of requests. The database named in
DATABASE_URL is dropped and created again first: point it at a database of its own.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bench import django_on_fresh_database  # noqa: E402

FIRST = ["Moshe", "Dana", "Karim", "Marie", "Tom", "Ana", "Lucas", "Sofia", "Omar", "Lea"]
LAST = ["Chaya", "Levi", "Benali", "Delattre", "Reddle", "Silva", "Moreau", "Haddad", "Roux"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def document_for(annotator: int, proposals: int) -> tuple[str, list[tuple[int, int, str]]]:
    """A post with `proposals` identifiers no other annotator's document holds."""
    parts: list[str] = []
    spans: list[tuple[int, int, str]] = []
    offset = 0
    for number in range(proposals):
        kind = number % 3
        if kind == 0:
            first, last = FIRST[number % len(FIRST)], LAST[annotator % len(LAST)]
            surface = f"{first} {last}{annotator}x{number}"
            label = "PER"
        elif kind == 1:
            surface = f"@user_{annotator}_{number}"
            label = "USERNAME"
        else:
            surface = f"Rue Numero{annotator}x{number}"
            label = "ADDRESS"
        lead = "Met " if number else "Shoutout to "
        parts.append(lead)
        offset += len(lead)
        spans.append((offset, offset + len(surface), label))
        parts.append(surface)
        offset += len(surface)
        parts.append(" today. ")
        offset += len(" today. ")
    return "".join(parts), spans


def setup(annotators: int, proposals: int) -> tuple[str, list[tuple[str, int]]]:
    from knox.models import AuthToken

    from annotator.models import Document, Span, SpanSource
    from annotator.services.projects import membership_set, project_create

    project = project_create(slug="load-bench", languages=["en"])
    people: list[tuple[str, int]] = []
    for number in range(annotators):
        username = f"annotator{number}"
        user = membership_set(
            project=project, username=username, role="annotator", languages=["en"],
            password="load-bench-password",
        ).user  # fmt: skip
        _, token = AuthToken.objects.create(user)
        text, spans = document_for(number, proposals)
        document = Document.objects.create(
            project=project, language="en", external_id=f"load-{number}", text=text
        )
        Span.objects.bulk_create(
            Span(document=document, start=s, end=e, label=label, source=SpanSource.NER, score=0.9)
            for s, e, label in spans
        )
        people.append((token, document.pk))
    return project.slug, people


class Annotator(threading.Thread):
    def __init__(
        self, port: int, slug: str, token: str, document: int, start: threading.Barrier, seed: int
    ) -> None:
        super().__init__(daemon=True)
        self.port, self.slug, self.token, self.document = port, slug, token, document
        self.start_barrier = start
        self.rng = random.Random(seed)
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.decisions = 0

    def request(self, conn: http.client.HTTPConnection, method: str, path: str,
                body: dict[str, Any] | None = None) -> tuple[int, Any]:  # fmt: skip
        headers = {"Authorization": f"Token {self.token}", "Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body)
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        data = response.read()
        self.latencies.append(time.perf_counter() - started)
        return response.status, json.loads(data) if data else None

    def run(self) -> None:
        base = f"/api/projects/{self.slug}/documents/{self.document}/spans/"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        self.start_barrier.wait()
        try:
            code, listed = self.request(conn, "GET", base + "?limit=1000")
            if code != 200:
                self.errors.append(f"GET spans: {code}")
                return
            for span in listed["results"]:
                roll = self.rng.random()
                change: dict[str, Any] = {"version": span["version"]}
                if roll < 0.55:
                    change["status"] = "accepted"
                elif roll < 0.8:
                    change["status"] = "rejected"
                elif roll < 0.9:
                    change.update(decision="keep", keep_reason="public figure")
                else:
                    relabel = "ORG" if span["label"] != "ORG" else "PER"
                    change.update(status="accepted", label=relabel)
                code, answer = self.request(conn, "PATCH", f"{base}{span['id']}/", change)
                if code == 200:
                    self.decisions += 1
                else:
                    self.errors.append(f"PATCH: {code} {answer}")
        except Exception as error:  # a bench reports every failure, whatever it is
            self.errors.append(f"{type(error).__name__}: {error}")
        finally:
            conn.close()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--decisions", type=int, default=20, help="proposals per document")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    # Sync workers, as docker-compose runs them (WEB_CONCURRENCY). With threads (gthread), each
    # client keeps its connection alive and the first worker to wake takes nearly all 50:
    # one process, one core, and the GIL between its threads (measured: 29 against 45/s).
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker")
    args = parser.parse_args()

    # Propagation tasks go to a Redis database of the bench's own (no worker consumes it).
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    django_on_fresh_database()
    slug, people = setup(args.annotators, args.decisions)

    port = free_port()
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "annotator.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(args.workers),
            "--threads",
            str(args.threads),
            "--log-level",
            "warning",
        ],  # fmt: skip
        cwd=ROOT,
        env={**os.environ, "DJANGO_DEBUG": "0"},
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        barrier = threading.Barrier(len(people) + 1)
        threads = [
            Annotator(port, slug, token, document, barrier, seed)
            for seed, (token, document) in enumerate(people)
        ]
        for thread in threads:
            thread.start()
        barrier.wait()
        started = time.perf_counter()
        for thread in threads:
            thread.join(timeout=600)
        seconds = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(timeout=30)

    latencies = [value for thread in threads for value in thread.latencies]
    decisions = sum(thread.decisions for thread in threads)
    errors = [error for thread in threads for error in thread.errors]
    print(f"annotators          {len(threads)} × {args.decisions} decisions, gunicorn "
          f"{args.workers} workers × {args.threads} threads, {os.cpu_count()} cores")  # fmt: skip
    print(f"requests            {len(latencies)} in {seconds:.2f} s")
    if latencies:
        p50, p95, p99 = (1000 * percentile(latencies, f) for f in (0.5, 0.95, 0.99))
        print(
            f"latency ms          p50 {p50:.0f}  p95 {p95:.0f}  p99 {p99:.0f}  "
            f"max {1000 * max(latencies):.0f}  mean {1000 * statistics.fmean(latencies):.0f}"
        )
    print(f"decisions/second    {decisions / seconds:.0f} ({decisions} decisions)")
    print(f"errors              {len(errors)}")
    for error in errors[:10]:
        print(f"  {error}")


if __name__ == "__main__":
    main()
