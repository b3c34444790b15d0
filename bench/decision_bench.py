"""What recording a new surface's decision costs on a large project, with and without the
corpus's vocabulary.

Builds release_bench's project (N short documents, default 100,000, written through the ORM
as that bench writes them, 931 surfaces decided), then records R new surfaces of each kind
(people, places, phone numbers: each drawn a pseudonym, and each pseudonym checked against
every document, `annotator.selectors.corpus.in_corpus`) through the correspondence table's
door, `surface_decide`, as the API and the pages do, one at a time, and prints p50, p95 and
the queries of one decision:

1. with no vocabulary: every document is one the vocabulary does not hold yet, so the check
   scans every text, as before the vocabulary existed;
2. then the worker's catch-up takes the documents' words in (`corpus_words_catch_up`, timed:
   what beat does for documents no import wrote);
3. the same number of other new surfaces again, with the vocabulary;
4. and others again, their pseudonyms drawn ahead first (`pseudonyms_draw_ahead`, timed: what
   the worker does for the proposals of a document someone opened), so that each decision
   takes its pseudonym instead of drawing it.

Target (issue 33): a decision on this project <= 30 ms p95 for a new surface.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_decision_bench \\
        python bench/decision_bench.py [--documents 100000] [--rounds 60]

The database named in DATABASE_URL is dropped and created again first: point it at a
database of its own.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api_load_bench import percentile  # noqa: E402
from bench.import_bench import django_on_fresh_database  # noqa: E402

# New surfaces, none of them in the documents: people, places and phone numbers.
FIRST = (
    "Bastien Coralie Dorian Estelle Fabrice Gaelle Hector Isaure Joachim Katell Leandre Maelys "
    "Nestor Oceane Perrine Quirin Romain Sacha Thibault Ursule Valentin Wendy Yvan Zelie"
).split()
LAST = (
    "Okoro Brandt Castellanos Dimitrov Eriksen Fontaine Gallo Horvath Ibarra Jovanovic Keller "
    "Lefebvre Moreno Nilsen Oliveira Pavlov Quintero Rinaldi Sato Toivonen Urbano Varga"
).split()
PLACES = (
    "Quimperle Saint-Flour Villeneuve-sur-Lot Tarascon Montbrison Paimpol Lodeve Millau "
    "Sarlat Figeac Cahors Gourdon Oloron Lectoure Nerac Marmande Pauillac Bazas Mimizan Dax"
).split()


def new_surfaces(rounds: int, offset: int) -> list[tuple[str, str]]:
    """`rounds` new surfaces of each kind, interleaved, from `offset` on (another offset,
    other surfaces)."""
    out: list[tuple[str, str]] = []
    for number in range(offset, offset + rounds):
        first, last = FIRST[number % len(FIRST)], LAST[(number // len(FIRST)) % len(LAST)]
        place = f"{PLACES[number % len(PLACES)]}-{number // len(PLACES) + 1}"
        phone = f"+33 7 {number // 100:02d} {number % 100:02d} 9{number % 10} 8{number % 7}"
        out += [(f"{first} {last}", "PER"), (place, "LOC"), (phone, "PHONE")]
    return out


def decide_all(project: Any, surfaces: list[tuple[str, str]]) -> dict[str, list[float]]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotator.services.table import surface_decide

    times: dict[str, list[float]] = {}
    queries: dict[str, list[int]] = {}
    for surface, label in surfaces:
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            surface_decide(
                project=project, surface=surface, language="en", label=label,
                decision="pseudonymize",
            )  # fmt: skip
            elapsed = time.perf_counter() - started
        times.setdefault(label, []).append(elapsed * 1000)
        queries.setdefault(label, []).append(len(captured.captured_queries))
    for label, values in times.items():
        print(
            f"  {label:6} p50 {statistics.median(values):7.1f} ms  "
            f"p95 {percentile(values, 95):7.1f} ms  max {max(values):7.1f} ms  "
            f"queries {statistics.median(queries[label]):.0f}  ({len(values)} decisions)"
        )
    every = [value for values in times.values() for value in values]
    print(f"  all    p50 {statistics.median(every):7.1f} ms  p95 {percentile(every, 95):7.1f} ms")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=60, help="new surfaces of each kind")
    args = parser.parse_args()

    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    os.environ.setdefault("CLOAK_LOG_LEVEL", "WARNING")
    django_on_fresh_database()

    from annotator.models import CorpusWord, Document
    from annotator.services.corpus_words import corpus_words_catch_up
    from annotator.services.table import pseudonyms_draw_ahead
    from bench.release_bench import make_project

    started = time.perf_counter()
    project, _ = make_project("release-bench", args.documents)
    print(f"set up {args.documents} documents in {time.perf_counter() - started:.1f} s")
    pending = Document.objects.filter(project=project, words_indexed=False).count()
    assert pending == args.documents and not CorpusWord.objects.exists(), pending

    print(f"{args.rounds} new surfaces of each kind, no vocabulary (every text scanned):")
    decide_all(project, new_surfaces(args.rounds, 0))

    cpu_start, wall_start = time.process_time(), time.perf_counter()
    done = corpus_words_catch_up(project_id=project.pk)
    cpu, wall = time.process_time() - cpu_start, time.perf_counter() - wall_start
    words = CorpusWord.objects.filter(project=project).count()
    print(
        f"catch-up: {done} documents, {words} words, {wall:.1f} s wall, {cpu:.1f} s CPU in "
        "this process"
    )

    print(f"{args.rounds} other new surfaces of each kind, with the vocabulary:")
    decide_all(project, new_surfaces(args.rounds, args.rounds))

    # As the worker does for the proposals of a document someone opened.
    ahead = new_surfaces(args.rounds, 2 * args.rounds)
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    drawn = pseudonyms_draw_ahead(project, [(surface, label, "en") for surface, label in ahead])
    cpu, wall = time.process_time() - cpu_start, time.perf_counter() - wall_start
    print(f"drawn ahead on the worker: {drawn} pseudonyms, {wall:.1f} s wall, {cpu:.1f} s CPU")
    print(f"{args.rounds} other new surfaces of each kind, their pseudonyms drawn ahead:")
    decide_all(project, ahead)


if __name__ == "__main__":
    main()
