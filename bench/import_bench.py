"""How fast Cloak imports documents, and how much memory it takes.

Generates N synthetic documents (60-100 words, 2-5 spans each, about 3.5 on average) as
JSONL, imports them into a fresh project through the same service the command, the page
and the API use, and prints seconds, documents per second and peak memory.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_bench \
        python bench/import_bench.py -n 100000

The database named in DATABASE_URL is dropped and created again first (unless --keep-db):
point it at a database of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = (
    "the a and of to in is was for on that with as at by from this it be are have not or "
    "we they he she post video meeting group channel message share join tonight again "
    "friday march brothers sisters city street call read more news truth people world "
    "dans les avec pour une sur est pas qui mais nous vous ils elle ville rue message في "
    "من على إلى عن مع هذا هذه كان قال اليوم غدا رسالة مدينة شارع"
).split()
NAMES = ["Moshe Chaya", "Tom Reddle", "Marie Delattre", "Karim Benali", "سارة منصور", "Ana Silva"]
PLACES = ["Shrewsbury", "Lyon", "Rue Alphonse Metayer", "Marseille", "الرباط"]
HANDLES = ["@ironwolf_77", "@marie.delattre1", "@night-owl", "@x_karim"]
LINKS = ["https://t.me/ironwolves_ma", "https://wa.me/+93722758", "example.org/join"]
LABELED = [("PER", NAMES), ("LOC", PLACES), ("USERNAME", HANDLES), ("URL", LINKS)]


def synthetic_document(rng: random.Random, number: int) -> dict[str, object]:
    words = [rng.choice(WORDS) for _ in range(rng.randint(60, 100))]
    n_spans = rng.choice((2, 3, 3, 4, 4, 5)) if rng.random() < 0.98 else 3
    positions = sorted(rng.sample(range(len(words)), n_spans))
    chosen = {position: rng.choice(LABELED) for position in positions}
    text_parts: list[str] = []
    spans: list[dict[str, object]] = []
    offset = 0
    for index, word in enumerate(words):
        if index:
            text_parts.append(" ")
            offset += 1
        if index in chosen:
            label, options = chosen[index]
            surface = rng.choice(options)
            spans.append({"start": offset, "end": offset + len(surface), "label": label})
            word = surface
        text_parts.append(word)
        offset += len(word)
    return {
        "id": f"synthetic-{number:07d}",
        "lang": rng.choice(("en", "fr", "ar")),
        "text": "".join(text_parts),
        "spans": spans,
    }


def write_corpus(path: Path, count: int, seed: int) -> int:
    rng = random.Random(seed)
    spans = 0
    with path.open("w", encoding="utf-8") as out:
        for number in range(count):
            document = synthetic_document(rng, number)
            spans += len(document["spans"])  # type: ignore[arg-type]
            out.write(json.dumps(document, ensure_ascii=False) + "\n")
    return spans


def _setting(value: object) -> str | None:
    """A connection setting from Django's DATABASES form, None when empty."""
    return str(value) if value else None


def reset_database(url: str) -> None:
    import psycopg

    from annotator.env import database_from_url

    config = database_from_url(url)
    if config["ENGINE"] != "django.db.backends.postgresql":
        return
    name = config["NAME"]
    with psycopg.connect(
        host=_setting(config["HOST"]),
        port=_setting(config["PORT"]),
        user=_setting(config["USER"]),
        password=_setting(config["PASSWORD"]),
        dbname="postgres",
        autocommit=True,
    ) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def django_on_fresh_database(*, keep_db: bool = False) -> str:
    """Point Django at DATABASE_URL (default: a `cloak_bench` database on this machine), drop
    and create that database unless `keep_db`, set Django up and migrate; the URL."""
    url = os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cloak_bench")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    # Deployed settings (DEBUG off) refuse to start without a keys secret of their own.
    os.environ.setdefault("CLOAK_KEYS_SECRET", "bench-keys-secret")
    if not keep_db:
        reset_database(url)

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return url


def peak_rss_mb() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep-db", action="store_true", help="do not drop and recreate it")
    args = parser.parse_args()

    django_on_fresh_database(keep_db=args.keep_db)
    from django.db import connection

    from annotator.models import Document, Span
    from annotator.services.imports import documents_import
    from annotator.services.projects import project_create

    project = project_create(slug=f"bench-{int(time.time())}", languages=["en", "fr", "ar"])

    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "synthetic.jsonl"
        spans_written = write_corpus(corpus, args.documents, args.seed)
        size_mb = corpus.stat().st_size / 1e6
        rss_before = peak_rss_mb()
        started = time.perf_counter()
        summary = documents_import(project=project, path=corpus, fmt="jsonl")
        seconds = time.perf_counter() - started
        rss_after = peak_rss_mb()

    assert summary.documents == args.documents
    assert summary.spans == spans_written
    stored_docs = Document.objects.filter(project=project).count()
    stored_spans = Span.objects.filter(document__project=project).count()
    print(f"database          {connection.vendor} ({connection.settings_dict['NAME']})")
    print(f"documents         {summary.documents} ({stored_docs} stored)")
    print(f"spans             {summary.spans} ({stored_spans} stored, "
          f"{summary.spans / summary.documents:.2f} per document)")  # fmt: skip
    print(f"file              {size_mb:.1f} MB of JSONL")
    print(f"import seconds    {seconds:.1f}")
    print(f"documents/second  {summary.documents / seconds:,.0f}")
    print(f"peak RSS          {rss_after:.0f} MB for the whole process "
          f"({rss_before:.0f} MB before the import)")  # fmt: skip


if __name__ == "__main__":
    main()
