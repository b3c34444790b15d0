"""How long propagating one decision takes across a large project.

Imports N synthetic documents (bench/import_bench.py's generator: trilingual posts where a
handful of names recur, each in about one document of seven; and 100 posts that name one more
person, as most people are named in a project), records a decision for one surface through the
correspondence-table service, and times `propagate_choice` (what the task runs) twice: the
first run proposes the choice at every occurrence, the second finds everything in place (a
retried task). Prints the wall time, the time spent in the database (every query, timed by a
wrapper on the connection) and what was proposed. Target: ≤ 2 s of database work for 100,000
documents.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_bench \
        python bench/propagation_bench.py -n 100000 [--surface "Moshe Chaya"]

The database named in DATABASE_URL is dropped and created again first: point it at a
database of its own.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bench import django_on_fresh_database, write_corpus  # noqa: E402

RARE = 100


class QueryTimer:
    """Sums the time of every query run on a connection while installed."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.queries = 0

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started
            self.queries += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--surface",
        action="append",
        help='surface to decide and propagate (default: "Dana Levi", in 100 documents, then '
        '"Moshe Chaya" and "سارة منصور", each in about one document of seven)',
    )
    args = parser.parse_args()
    # A name in 100 documents (as most people are), then one in every seventh document.
    surfaces = args.surface or ["Dana Levi", "Moshe Chaya", "سارة منصور"]

    django_on_fresh_database()
    from django.db import connection

    from annotator.models import Document, Span
    from annotator.services.imports import documents_import
    from annotator.services.projects import project_create
    from annotator.services.propagation import propagate_choice
    from annotator.services.table import surface_decide

    project = project_create(slug="propagation-bench", languages=["en", "fr", "ar"])
    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "synthetic.jsonl"
        write_corpus(corpus, args.documents - RARE, args.seed)
        with corpus.open("a", encoding="utf-8") as out:
            for number in range(RARE):
                text = f"Post {number}: Dana Levi shared the video again tonight."
                out.write(json.dumps({"id": f"rare-{number}", "lang": "en", "text": text}) + "\n")
        documents_import(project=project, path=corpus, fmt="jsonl")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"database            {connection.vendor} ({connection.settings_dict['NAME']})")
    print(f"documents           {Document.objects.filter(project=project).count():,}")
    for surface in surfaces:
        choice = surface_decide(
            project=project, surface=surface, language="en", label="PER", decision="pseudonymize"
        )
        before = Span.objects.filter(document__project=project).count()
        for attempt in ("first run", "second run"):
            timer = QueryTimer()
            started = time.perf_counter()
            with connection.execute_wrapper(timer):
                summary = propagate_choice(project_id=project.pk, alias_id=choice.alias_id)
            wall = time.perf_counter() - started
            print(
                f"{surface!r:22} {attempt}: {wall:6.2f} s wall, {timer.seconds:6.2f} s in the "
                f"database ({timer.queries} queries); {summary.documents_searched:,} documents "
                f"matched the filter, {summary.proposed:,} proposed, {summary.updated:,} "
                f"updated, {summary.conflicts} conflicts"
            )
        after = Span.objects.filter(document__project=project).count()
        print(f"{'':22} spans {before:,} -> {after:,}")


if __name__ == "__main__":
    main()
