"""How fast the quality page opens on a large project, first visit after a change included.

Creates a project with N finished documents (default 10,000; English and French, about 80
words each) holding 12 spans each: machine proposals of two runs and an import, some
accepted as proposed, some moved by a person, some rejected, and spans people added; and a
replica for one document in twenty (double annotation). One name ("Moshe Chaya") is an entity
of the correspondence table, its spans in about a fifth of the documents.

Then opens the quality page as a lead (its view, through Django's test client), R rounds of
each case, each round right after its change:

- repeat visit: nothing changed since the last visit;
- after a resolution: the lead resolves a review item on the entity with another decision
  (every span of the entity changes; its propagation task is not run);
- after a resolution that relabels: the same, giving the entity another label (the gold of
  every document with the name changes);
- after done, no warm-up: an annotator marks one more document done, and the page is opened
  before the warm-up task (`quality_warm`, 60 s later) has run;
- after done, warm-up ran: the same, the warm-up task run first (not timed);
- nothing kept: the cache emptied (the first visit ever, or after the cache was lost).

Prints the median and max wall time of each, and the process's CPU time (the database's
own time is in the wall time only). With --selectors it also times the full computation of
each selector once. The numbers are the same before and after (the `check:` line).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_bench \\
        python bench/quality_bench.py [-n 10000] [--rounds 5] [--selectors]

The database named in DATABASE_URL is dropped and created again first: point it at a
database of its own. Tasks are not sent (no broker is needed).
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
ENTITY = NAMES[0]  # the name a lead's resolutions are about


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


def timed(
    rounds: int, change: Callable[[], Any], call: Callable[[], Any]
) -> tuple[float, float, float]:
    """`change`, then `call` timed, `rounds` times: the median and max wall time of `call`,
    and its median CPU time in this process."""
    times, cpu = [], []
    for _ in range(rounds):
        change()
        started, started_cpu = time.perf_counter(), time.process_time()
        call()
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(times), max(times), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=10_000)
    parser.add_argument("--spans", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--selectors", action="store_true", help="time each selector in full")
    args = parser.parse_args()

    django_on_fresh_database()
    from django.conf import settings
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client, override_settings

    from annotator.models import (
        Document,
        DocumentStatus,
        PreannotationRun,
        ReviewItem,
        ReviewKind,
        RunBatch,
        Span,
        SpanStatus,
    )
    from annotator.selectors.quality import agreement, preannotation_quality
    from annotator.services import jobs
    from annotator.services.projects import membership_set, project_create
    from annotator.services.quality import project_quality, quality_warm
    from annotator.services.review.resolve import review_resolve
    from annotator.services.spans import document_status_set
    from annotator.services.table import surface_decide
    from pseudonymizer.folding import fold

    unsent: list[str] = []
    # No broker here: the tasks a write sends after commit are noted, not sent.
    jobs._send_task = lambda name, args, countdown: unsent.append(name)  # type: ignore[assignment]

    rng = random.Random(7)
    project = project_create(slug="quality-bench", languages=["en", "fr"])
    lead = membership_set(
        project=project, username="bench-lead", role="lead", password="bench-lead-password"
    ).user
    entity = surface_decide(
        project=project, surface=ENTITY, language="en", label="PER", decision="pseudonymize",
        actor=lead,
    ).entity_id  # fmt: skip
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
            named = entity if doc.text[start:end] == ENTITY else None
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
                    entity_id=named,
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
    # Documents an annotator is finishing, all their spans decided: marked done one a round.
    waiting = Document.objects.bulk_create(
        Document(
            project=project,
            language="en",
            external_id=f"w{number}",
            text=text,
            search_text=fold(text),
            status=DocumentStatus.IN_PROGRESS,
        )  # fmt: skip
        for number, (text, _) in enumerate(texts[: 2 * args.rounds])
    )
    for doc, (_, found) in zip(waiting, texts, strict=False):
        spans.extend(
            Span(
                document=doc,
                start=start,
                end=end,
                label=label,
                source="ner",
                run=runs[0],
                status=SpanStatus.REJECTED if k % 4 == 3 else SpanStatus.ACCEPTED,
                proposed_start=start,
                proposed_end=end,
                proposed_label=label,
            )  # fmt: skip
            for k, (start, end, label) in enumerate(found)
        )
    Span.objects.bulk_create(spans, batch_size=5000)
    flagged = Span.objects.filter(entity_id=entity, status=SpanStatus.ACCEPTED).first()
    assert flagged is not None
    print(
        f"{len(originals)} documents, {len(replicas)} replicas, {len(spans)} spans"
        f" created in {time.perf_counter() - started:.1f} s"
    )

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # as autovacuum would, after so many rows

    if args.selectors:
        for name, call in [
            ("pre-annotation, every source", lambda: preannotation_quality(project)),
            ("pre-annotation, one run", lambda: preannotation_quality(project, run=runs[0].pk)),
            ("pre-annotation, imports", lambda: preannotation_quality(project, run="import")),
            ("pre-annotation, one language", lambda: preannotation_quality(project, language="fr")),
            ("agreement", lambda: agreement(project)),
        ]:
            wall, worst, cpu = timed(1, lambda: None, call)
            print(f"full: {name:<29} {wall:6.2f} s   cpu {cpu:6.2f} s")

    # A cache of this process's own, so that clearing it touches no one else's.
    local = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # The page as served, its static files named without a collected manifest.
    plain = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    storages = {**settings.STORAGES, "staticfiles": plain}
    with override_settings(CACHES=local, ALLOWED_HOSTS=["*"], STORAGES=storages):
        client = Client()
        client.force_login(lead)
        url = f"/projects/{project.slug}/quality/"

        def visit() -> None:
            response = client.get(url)
            assert response.status_code == 200, response.status_code

        visit()
        decisions = iter(["keep", "pseudonymize"] * args.rounds)
        # A label the entity has not had yet each round: a label it had before would find
        # the numbers of that state still kept.
        labels = iter([label for label in project.labels if label != "PER"] * args.rounds)
        spare = iter(waiting)

        def resolve(label: str | None = None) -> None:
            item = ReviewItem.objects.create(
                project=project, kind=ReviewKind.FLAG, document_id=flagged.document_id,
                span=flagged, entity_id=entity,
            )  # fmt: skip
            review_resolve(item=item, actor=lead, rationale="bench", decision=next(decisions),
                           label=label)  # fmt: skip

        def done(warm: bool) -> None:
            document_status_set(document=next(spare), actor=lead, status=DocumentStatus.DONE)
            if warm:
                quality_warm(project.pk)

        for name, change in [
            ("repeat visit", lambda: None),
            ("after a resolution", resolve),
            ("after a resolution that relabels", lambda: resolve(next(labels))),
            ("after done, no warm-up", lambda: done(False)),
            ("after done, warm-up ran", lambda: done(True)),
            ("nothing kept", cache.clear),
        ]:
            wall, worst, cpu = timed(args.rounds, change, visit)
            print(f"{name:<34} median {wall:6.3f} s   max {worst:6.3f} s   cpu {cpu:6.3f} s")
        result = project_quality(project)
    overall = result.preannotation.overall
    kappa = result.agreement.overall.kappa if result.agreement.overall else float("nan")
    print(
        f"check: strict F1 {overall.strict.micro.f1:.6f},"
        f" relaxed F1 {overall.relaxed.micro.f1:.6f},"
        f" kappa {kappa:.6f} over {result.agreement.pairs} pairs,"
        f" {result.preannotation.documents} documents"
    )
    print(f"tasks not sent: {sorted(set(unsent))}")


if __name__ == "__main__":
    main()
