"""How fast a lead lists and searches a correspondence table of 100,000 entities.

Builds a project whose table holds N entities (default 100,000: people, places and
organisations in Latin and Arabic script, a tenth of them kept), each alias encrypted and
indexed in the blind word index as the services write it, and 200,000 spans pointing at them.
Then times, one call at a time, through the API as a lead (`GET /api/projects/{slug}/entities/`:
permission check, search, the page's originals decrypted, span counts, the audit event):
listing page 1, filtering by label, and R searches of each kind (a full name, one word of a
name, a word of a pseudonym, an entity id). Prints p50, p95 and max of each. Target: a search
answers in ≤ 100 ms p95.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_keys_bench \\
        python bench/keys_bench.py [--entities 100000] [--rounds 200]

The database named in DATABASE_URL is dropped and created again first: point it at a
database of its own.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api_load_bench import percentile  # noqa: E402
from bench.import_bench import django_on_fresh_database  # noqa: E402

LATIN_FIRST = (
    "Moshe Sarah David Leila Omar Karim Fatima Youssef Amina Tom Marie Pierre Jean "
    "Lucie Hugo Ines Nadia Samir Yasmine Elias Noor Rami Hana Adam Lina"
).split()
ARABIC_FIRST = (
    "موشيه سارة داود ليلى عمر كريم فاطمة يوسف أمينة نادية سمير ياسمين إلياس نور رامي"
).split()
LATIN_SYLLABLES = "ba ka ri lo mu ne sa ti vo za de fi go hu ja le mo nu pa ro".split()
ARABIC_SYLLABLES = "با كا ري لو مو ني سا تي فو زا دي في غو هو جا لي مي نو بو رو".split()
LABELS = ("PER",) * 6 + ("LOC",) * 2 + ("ORG",) * 2


def word(number: int, syllables: list[str], size: int = 4) -> str:
    """A word of its own for every `number` below len(syllables) ** size."""
    parts = []
    for _ in range(size):
        number, index = divmod(number, len(syllables))
        parts.append(syllables[index])
    return "".join(parts).capitalize()


def build(project_id: int, secret: str, count: int, seed: int) -> list[tuple[str, str, int]]:
    """The table, in batches; a sample of (original, replacement, entity id) to search for."""
    from annotator.keys import crypto
    from annotator.keys.models import Alias, AliasWord, Entity
    from annotator.keys.words import alias_digests

    rng = random.Random(seed)
    sample: list[tuple[str, str, int]] = []
    batch = 5000
    for start in range(0, count, batch):
        entities: list[Entity] = []
        pending: list[tuple[str, str, str]] = []
        for number in range(start, min(count, start + batch)):
            arabic = number % 3 == 2
            first = rng.choice(ARABIC_FIRST if arabic else LATIN_FIRST)
            last = word(number, ARABIC_SYLLABLES if arabic else LATIN_SYLLABLES)
            kept = number % 10 == 9
            replacement = "" if kept else f"{word(number + 7, LATIN_SYLLABLES, 3)} {last}x"
            entities.append(
                Entity(
                    project_id=project_id,
                    label=rng.choice(LABELS),
                    decision="keep" if kept else "pseudonymize",
                    keep_reason="public figure" if kept else "",
                )
            )
            pending.append((f"{first} {last}", replacement, "ar" if arabic else "en"))
        Entity.objects.bulk_create(entities)
        aliases = []
        for entity, (original, replacement, language) in zip(entities, pending, strict=True):
            alias = Alias(
                entity_id=entity.pk,
                project_id=project_id,
                language=language,
                script="Arab" if language == "ar" else "Latn",
                original_encrypted=crypto.encrypt(original),
                original_digest=crypto.surface_digest(secret, original),
            )
            alias.set_replacement(replacement)
            aliases.append(alias)
            if rng.random() < 0.01:
                sample.append((original, replacement, entity.pk))
        Alias.objects.bulk_create(aliases)
        words = [
            AliasWord(alias_id=alias.pk, project_id=project_id, digest=digest)
            for alias, (original, replacement, _) in zip(aliases, pending, strict=True)
            for digest in alias_digests(secret, original, replacement)
        ]
        AliasWord.objects.bulk_create(words, batch_size=10000)
        print(f"  {min(count, start + batch):>7} entities", file=sys.stderr, end="\r")
    print(file=sys.stderr)
    return sample


def add_spans(project_id: int, count: int, entities: int, seed: int) -> None:
    from annotator.keys.models import Entity
    from annotator.models import Document, Span

    rng = random.Random(seed)
    first = min(Entity.objects.filter(project_id=project_id).values_list("pk", flat=True))
    document = Document.objects.create(
        project_id=project_id, language="en", external_id="bench", text="x" * 1000
    )
    spans = [
        Span(
            document=document,
            start=0,
            end=5,
            label="PER",
            source="human",
            status="accepted",
            entity_id=first + rng.randrange(entities),
        )
        for _ in range(count)
    ]
    Span.objects.bulk_create(spans, batch_size=10000)


def sample_of(project: Any, seed: int) -> list[tuple[str, str, int]]:
    """What `build` samples, from a table already built (decrypting 1% of it)."""
    from annotator.keys.models import Alias

    rng = random.Random(seed)
    fields = ("entity_id", "original_encrypted", "replacement")
    rows = Alias.objects.filter(project=project).only(*fields)
    return [
        (alias.original, alias.replacement, alias.entity_id)
        for alias in rows.iterator(chunk_size=5000)
        if rng.random() < 0.01
    ]


def timed(call: Callable[[], object], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        call()
        times.append((time.perf_counter() - began) * 1000)
    return times


def report(name: str, times: list[float]) -> None:
    print(
        f"{name:<28} n={len(times):<4} p50 {statistics.median(times):7.1f} ms   "
        f"p95 {percentile(times, 0.95):7.1f} ms   max {max(times):7.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--spans", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=200, help="searches of each kind")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--keep-db", action="store_true", help="time the table a previous run built, again"
    )
    args = parser.parse_args()

    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cloak_keys_bench")
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    django_on_fresh_database(keep_db=args.keep_db)
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from annotator.models import Membership, Project, Role
    from annotator.services.projects import project_create

    if args.keep_db:
        project = Project.objects.get(slug="keys-bench")
        sample = sample_of(project, args.seed)
        lead = get_user_model().objects.get(username="bench-lead")
    else:
        project = project_create(slug="keys-bench", languages=["en", "fr", "ar"])
        began = time.perf_counter()
        sample = build(project.pk, project.secret, args.entities, args.seed)
        add_spans(project.pk, args.spans, args.entities, args.seed)
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        built = time.perf_counter() - began
        print(f"built {args.entities} entities, {args.spans} spans in {built:.0f} s")
        lead = get_user_model().objects.create_user("bench-lead", password="x")
        Membership.objects.create(user=lead, project=project, role=Role.LEAD)
    client = Client()
    client.force_login(lead)
    url = reverse("api-entity-list", kwargs={"slug": project.slug})
    rng = random.Random(args.seed)

    def get(params: dict[str, str]) -> Callable[[], object]:
        def call() -> object:
            response = client.get(url, params)
            assert response.status_code == 200, response.content[:200]
            return response

        return call

    def searches(make: Callable[[tuple[str, str, int]], str]) -> list[float]:
        times: list[float] = []
        for _ in range(args.rounds):
            original, replacement, entity = rng.choice(sample)
            times += timed(get({"q": make((original, replacement, entity))}), 1)
        return times

    get({})()  # warm up
    report("list, page 1", timed(get({}), 50))
    report("list, page 100", timed(get({"offset": "2500"}), 50))
    report("filter label=LOC", timed(get({"label": "LOC"}), 50))
    report("filter language=ar", timed(get({"language": "ar"}), 50))
    report("search: full name", searches(lambda s: s[0].lower()))
    report("search: last name", searches(lambda s: s[0].split()[1]))
    report("search: first name (common)", searches(lambda s: s[0].split()[0]))
    report("search: pseudonym word", searches(lambda s: s[1].split()[0] if s[1] else s[0]))
    report("search: #id", searches(lambda s: f"#{s[2]}"))
    report("search + label=PER", timed(get({"q": sample[0][0], "label": "PER"}), 50))


if __name__ == "__main__":
    main()
