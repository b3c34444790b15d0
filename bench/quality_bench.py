"""How fast the quality page's numbers compute on a large project.

Creates a project with N finished documents (default 10,000; English and French, about 80
words each) holding 12 spans each: machine proposals of two runs and an import, some
accepted as proposed, some moved by a person, some rejected, and spans people added; and a
replica for one document in twenty (double annotation). Then times, R rounds each, the
selectors the page and the API call: pre-annotation over every source, one run, agreement,
and the whole of `project_quality`, on a first and a repeat visit (cached). Prints the
median and max of each. Target: seconds.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_bench \\
        python bench/quality_bench.py [-n 10000] [--rounds 3]

The database named in DATABASE_URL is dropped and created again first: point it at a
database of its own.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bench import django_on_fresh_database  # noqa: E402

WORDS = "the a of and to in is was for on that with as by at from this it be".split()
NAMES = ["Moshe Chaya", "Sara Mansour", "Karim Ben Ali", "Layla Haddad", "Omar Fassi"]
PLACES = ["Beirut", "Cairo", "Tunis", "Amman", "Rabat"]
LABELS = ["PER", "LOC", "ORG", "EMAIL"]


def document(rng: random.Random, words: int, spans: int) -> tuple[str, list[tuple[int, int, str]]]:
    parts: list[str] = []
    found: list[tuple[int, int, str]] = []
    offset = 0
    every = max(1, words // spans)
    for number in range(words):
        if number % every == 0 and len(found) < spans:
            surface, label = [
                (rng.choice(NAMES), "PER"),
                (rng.choice(PLACES), "LOC"),
                (f"Acme {number} Ltd", "ORG"),
                (f"user{number}@mail.example", "EMAIL"),
            ][len(found) % 4]
            found.append((offset, offset + len(surface), label))
        else:
            surface = rng.choice(WORDS)
        parts.append(surface)
        offset += len(surface) + 1
    return " ".join(parts), found


def timed(rounds: int, call: Callable[[], Any]) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=10_000)
    parser.add_argument("--spans", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    django_on_fresh_database()
    from annotator.models import (
        Document,
        DocumentStatus,
        PreannotationRun,
        RunBatch,
        Span,
        SpanStatus,
    )
    from annotator.selectors.quality import agreement, preannotation_quality, project_quality
    from annotator.services.projects import project_create
    from pseudonymizer.folding import fold

    rng = random.Random(7)
    project = project_create(slug="quality-bench", languages=["en", "fr"])
    runs = [
        PreannotationRun.objects.create(project=project, status="done", recognizers=["ner"]),
        PreannotationRun.objects.create(project=project, status="done", recognizers=["regex"]),
    ]
    started = time.perf_counter()
    texts: list[tuple[str, list[tuple[int, int, str]]]] = []
    rows: list[Document] = []
    for number in range(args.documents):
        text, found = document(rng, 80, args.spans)
        texts.append((text, found))
        rows.append(
            Document(
                project=project,
                language=("en", "fr")[number % 2],
                external_id=f"d{number}",
                text=text,
                search_text=fold(text),
                status=DocumentStatus.DONE,
            )  # fmt: skip
        )
    originals = Document.objects.bulk_create(rows, batch_size=2000)
    replicas = Document.objects.bulk_create(
        [
            Document(
                project=project,
                language=doc.language,
                external_id=f"{doc.external_id}-2",
                text=doc.text,
                search_text=doc.search_text,
                status=DocumentStatus.DONE,
                replica_of=doc,
            )  # fmt: skip
            for doc in originals[::20]
        ],
        batch_size=2000,
    )
    for index, run in enumerate(runs):
        ids = [doc.pk for doc in originals[index::2]]
        RunBatch.objects.bulk_create(
            RunBatch(run=run, number=n + 1, language="en", document_ids=ids[i : i + 500])
            for n, i in enumerate(range(0, len(ids), 500))
        )
    spans: list[Span] = []
    for index, (doc, (_, found)) in enumerate(zip(originals, texts, strict=True)):
        run = runs[index % 2]
        for k, (start, end, label) in enumerate(found):
            kind = k % 6
            source, run_of = ("import", None) if k % 5 == 0 else ("ner", run)
            if kind == 5:  # added by a person: a miss
                spans.append(Span(document=doc, start=start, end=end, label=label,
                                  source="human", status=SpanStatus.ACCEPTED))  # fmt: skip
                continue
            moved = kind == 1  # proposed one character short, widened by a person
            status = SpanStatus.REJECTED if kind == 4 else SpanStatus.ACCEPTED
            spans.append(
                Span(
                    document=doc,
                    start=start,
                    end=end,
                    label=label,
                    source=source,
                    run=run_of,
                    status=status,
                    proposed_start=start,
                    proposed_end=end - 1 if moved else end,
                    proposed_label=label,
                )  # fmt: skip
            )
    by_pk = {doc.pk: found for doc, (_, found) in zip(originals, texts, strict=True)}
    for replica in replicas:
        assert replica.replica_of_id is not None
        for k, (start, end, label) in enumerate(by_pk[replica.replica_of_id]):
            if k % 7 == 3:
                continue  # the second annotator missed one in seven
            spans.append(
                Span(
                    document=replica,
                    start=start,
                    end=end,
                    label=LABELS[(LABELS.index(label) + 1) % 4] if k % 9 == 4 else label,
                    source="human",
                    status=SpanStatus.ACCEPTED,
                )  # fmt: skip
            )
    Span.objects.bulk_create(spans, batch_size=5000)
    print(
        f"{len(originals)} documents, {len(replicas)} replicas, {len(spans)} spans"
        f" created in {time.perf_counter() - started:.1f} s"
    )

    for name, call in [
        ("pre-annotation, every source", lambda: preannotation_quality(project)),
        ("pre-annotation, one run", lambda: preannotation_quality(project, run=runs[0].pk)),
        ("pre-annotation, imports", lambda: preannotation_quality(project, run="import")),
        ("pre-annotation, one language", lambda: preannotation_quality(project, language="fr")),
        ("agreement", lambda: agreement(project)),
    ]:
        median, worst = timed(args.rounds, call)
        print(f"{name:<32} median {median:6.2f} s   max {worst:6.2f} s")
    # The page caches its numbers per state of the data: a first visit computes them, a
    # repeat visit only reads the state. A cache of this process's own, so that clearing it
    # touches no one else's.
    from django.core.cache import cache
    from django.test import override_settings

    def first_visit() -> Any:
        cache.clear()
        return project_quality(project)

    local = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with override_settings(CACHES=local):
        for name, call in [
            ("the page, first visit", first_visit),
            ("the page, repeat visit", lambda: project_quality(project)),
        ]:
            median, worst = timed(args.rounds, call)
            print(f"{name:<32} median {median:6.3f} s   max {worst:6.3f} s")
    result = project_quality(project)
    overall = result.preannotation.overall
    kappa = result.agreement.overall.kappa if result.agreement.overall else float("nan")
    print(
        f"check: strict F1 {overall.strict.micro.f1:.3f},"
        f" relaxed F1 {overall.relaxed.micro.f1:.3f},"
        f" kappa {kappa:.3f} over {result.agreement.pairs} pairs"
    )


if __name__ == "__main__":
    main()
