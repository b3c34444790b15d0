"""What propagating a team's decisions costs on a large project: K decisions in one pass, and
the old way, one pass per decision.

Imports N synthetic documents (bench/import_bench.py's generator: trilingual posts where six
names recur, each in about one document of seven, with their spans imported), plus, for each
of K + OLD rare names, PER documents that name it (as most people are named in a project).
It records a decision for each of the K names (with --recurring, the six recurring ones too,
each proposed in some 14,000 documents) through the correspondence-table service, with the
pending row the decision's hook writes, and times the one pass that proposes them all
(`propagation_pass`, what the task runs). Then, for OLD more names, one pass per decision, as
every decision used to be propagated. For each it prints the wall time, the process's CPU
time, the time spent waiting on the database (every query, timed by a wrapper on the
connection; a streamed read's later fetches are not counted) and the database server's CPU
(its backend process, when it runs on this machine), and the CPU per 1,000 decisions.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_bench \\
        python bench/propagation_bench.py -n 100000 --decisions 1000 [--old 20] \\
        [--recurring] [--narrowing 50]

`--narrowing K2` also times the narrowing alone for K2 keys both ways: the database's
`LIKE` per key, and the automaton over the streamed search texts (annotator.selectors.corpus).

The database named in DATABASE_URL is dropped and created again first: point it at a
database of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bench import NAMES, django_on_fresh_database, write_corpus  # noqa: E402

FIRST = (
    "Adam Alice Amir Bruno Carla David Elena Farid Gina Hugo Ines Jonas Karim Laila Marco "
    "Nadia Omar Paula Rami Sofia Tariq Ula Victor Wafa Yusuf Zara Lucas Emma Noor Hana"
).split()
SYLLABLES = "ka lo mi ne ru sa ti vo ba de fi go ju la mo nu pe ri so ta".split()


def rare_name(number: int) -> str:
    """A distinct person's name for each number: a first name and a made-up surname."""
    syllables = []
    rest = number
    for _ in range(3):
        rest, digit = divmod(rest, len(SYLLABLES))
        syllables.append(SYLLABLES[digit])
    surname = "".join(syllables).capitalize() + ("" if rest == 0 else f"-{rest}")
    return f"{FIRST[number % len(FIRST)]} {surname}"


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


@dataclass
class Cost:
    wall: float = 0.0
    cpu: float = 0.0  # this process
    database: float = 0.0  # waiting on queries
    queries: int = 0
    server_cpu: float | None = None  # the database's backend process

    @property
    def total_cpu(self) -> float:
        return self.cpu + (self.server_cpu or 0.0)

    def line(self) -> str:
        server = f"{self.server_cpu:7.2f} s" if self.server_cpu is not None else "    n/a"
        return (
            f"{self.wall:7.2f} s wall, {self.cpu:7.2f} s CPU here, {server} CPU in the "
            f"database server, {self.database:7.2f} s waiting on {self.queries} queries"
        )


def _backend_cpu(pid: int | None) -> float | None:
    """CPU seconds of the database's backend process, when it runs on this machine."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def measured(cost: Cost) -> Iterator[None]:
    from django.db import connection

    connection.ensure_connection()
    pid: int | None = None
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
    timer = QueryTimer()
    server = _backend_cpu(pid)
    cpu, wall = time.process_time(), time.perf_counter()
    with connection.execute_wrapper(timer):
        yield
    cost.wall += time.perf_counter() - wall
    cost.cpu += time.process_time() - cpu
    cost.database += timer.seconds
    cost.queries += timer.queries
    after = _backend_cpu(pid)
    if server is not None and after is not None:
        cost.server_cpu = (cost.server_cpu or 0.0) + after - server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=100_000)
    parser.add_argument("--decisions", type=int, default=1000, help="decided in one pass")
    parser.add_argument("--old", type=int, default=20, help="decisions propagated one by one")
    parser.add_argument("--per", type=int, default=5, help="documents naming each rare name")
    parser.add_argument(
        "--recurring", action="store_true", help="decide the six names that recur in the batch too"
    )
    parser.add_argument("--narrowing", type=int, default=0, help="time the narrowing alone")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rare = [rare_name(number) for number in range(args.decisions + args.old)]
    batch, one_by_one = rare[: args.decisions], rare[args.decisions :]
    if args.recurring:
        batch += NAMES

    django_on_fresh_database()
    from django.db import connection

    from annotator.models import Document, PendingPropagation, Span
    from annotator.selectors import corpus
    from annotator.services.imports import documents_import
    from annotator.services.projects import project_create
    from annotator.services.propagation import propagation_pass
    from annotator.services.table import surface_decide
    from pseudonymizer.folding import fold_key

    project = project_create(slug="propagation-bench", languages=["en", "fr", "ar"])
    named = len(rare) * args.per
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "synthetic.jsonl"
        write_corpus(path, max(0, args.documents - named), args.seed)
        with path.open("a", encoding="utf-8") as out:
            for number in range(named):
                name = rare[number % len(rare)]
                text = f"Post {number}: {name} shared the video again tonight."
                out.write(json.dumps({"id": f"rare-{number}", "lang": "en", "text": text}) + "\n")
        started = time.perf_counter()
        documents_import(project=project, path=path, fmt="jsonl")
        imported = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"database            {connection.vendor} ({connection.settings_dict['NAME']})")
    print(f"documents           {Document.objects.filter(project=project).count():,} "
          f"(imported in {imported:.1f} s)")  # fmt: skip

    def decide(surfaces: list[str]) -> list[int]:
        aliases = []
        for surface in surfaces:
            choice = surface_decide(project=project, surface=surface, language="en",
                                    label="PER", decision="pseudonymize")  # fmt: skip
            aliases.append(choice.alias_id)
        return aliases

    def spans() -> int:
        return Span.objects.filter(document__project=project).count()

    if args.narrowing:
        keys = [fold_key(name) for name in rare[: args.narrowing]]
        for label, few in (("automaton", 0), ("LIKE per key", len(keys))):
            corpus.FEW_KEYS = few
            cost = Cost()
            with measured(cost):
                found = sum(1 for _ in corpus.documents_holding(project.pk, keys))
            print(f"narrowing {len(keys)} keys, {label:12}: {cost.line()}; {found:,} documents")
        corpus.FEW_KEYS = 4

    started = time.perf_counter()
    aliases = decide(batch)
    print(f"decisions           {len(batch):,} through the table service in "
          f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    before = spans()
    PendingPropagation.objects.bulk_create(
        PendingPropagation(project=project, alias_id=alias_id) for alias_id in aliases
    )
    cost = Cost()
    with measured(cost):
        summary = propagation_pass(project_id=project.pk)
    print(f"one pass, {summary.choices:,} decisions: {cost.line()}")
    print(f"{'':20}{summary.documents_searched:,} documents read, {summary.proposed:,} "
          f"proposed, {summary.updated:,} updated, {summary.conflicts} conflicts, "
          f"{summary.skipped} skipped; spans {before:,} -> {spans():,}")  # fmt: skip
    print(f"{'':20}CPU per 1,000 decisions: {cost.cpu * 1000 / len(batch):.2f} s here + "
          f"{(cost.server_cpu or 0) * 1000 / len(batch):.2f} s in the database server")  # fmt: skip

    if one_by_one:
        old = Cost()
        for alias_id in decide(one_by_one):
            PendingPropagation.objects.create(project=project, alias_id=alias_id)
            with measured(old):
                propagation_pass(project_id=project.pk)
        count = len(one_by_one)
        print(f"one pass each, {count} decisions: {old.line()}")
        print(f"{'':20}per decision: {old.wall / count:.3f} s wall, "
              f"{old.total_cpu / count:.3f} s CPU; CPU per 1,000 decisions: "
              f"{old.cpu * 1000 / count:.1f} s here + "
              f"{(old.server_cpu or 0) * 1000 / count:.1f} s in the database server")  # fmt: skip


if __name__ == "__main__":
    main()
