"""How fast Cloak imports documents, and how much memory it takes, beside doccano.

Generates N synthetic documents (60-100 words, 2-5 spans each, about 3.5 on average) as
JSONL, imports them into a fresh project through the same service the command, the page
and the API use, and prints seconds, CPU seconds, documents per second and the peak memory
of the importing process. That process is a fresh one, started for the import alone (as a
worker or `manage.py import_documents` would be): the bench's own migrations and file
generation are not in its peak.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_bench \
        python bench/import_bench.py -n 100000 --doccano-python /path/to/doccano/bin/python

With --doccano-python, the same run imports the same documents into doccano 1.8.4 (installed
in its own virtual environment; never into Cloak's), with its own SQLite database and media
folder in a temporary directory, through doccano's own import task (bench/doccano_import.py),
timed and measured the same way, and prints both and the ratio. doccano reads its own JSONL
(`{"text", "label": [[start, end, label], …]}`, other keys kept as its metadata), so it gets
the same documents written that way.

The database named in DATABASE_URL is dropped and created again first (unless --keep-db):
point it at a database of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
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


def doccano_record(document: dict[str, object]) -> dict[str, object]:
    """A synthetic document in doccano's JSONL: its spans as `label`, its id and language
    beside them (doccano keeps what is neither text nor label as the example's metadata)."""
    spans: list[dict[str, object]] = document["spans"]  # type: ignore[assignment]
    return {
        "text": document["text"],
        "label": [[span["start"], span["end"], span["label"]] for span in spans],
        "id": document["id"],
        "lang": document["lang"],
    }


def write_corpus(
    path: Path,
    count: int,
    seed: int,
    *,
    record: Callable[[dict[str, object]], dict[str, object]] | None = None,
) -> int:
    """Write `count` synthetic documents as JSONL, each as `record` makes it (by default
    Cloak's own JSONL; `doccano_record` for doccano's); the number of spans."""
    rng = random.Random(seed)
    spans = 0
    with path.open("w", encoding="utf-8") as out:
        for number in range(count):
            document = synthetic_document(rng, number)
            spans += len(document["spans"])  # type: ignore[arg-type]
            line = record(document) if record else document
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
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


def django_on_fresh_database(*, keep_db: bool = False, migrate: bool = True) -> str:
    """Point Django at DATABASE_URL (default: a `cloak_bench` database on this machine), drop
    and create that database unless `keep_db`, set Django up and migrate (unless not
    `migrate`); the URL."""
    url = os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cloak_bench")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    # Deployed settings (DEBUG off) refuse to start without a keys secret of their own.
    os.environ.setdefault("CLOAK_KEYS_SECRET", "bench-keys-secret")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-session-key-not-for-deployments")
    if not keep_db:
        reset_database(url)

    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
    return url


def peak_rss_mb() -> float:
    """This process's peak resident memory, in MB (MiB).

    VmHWM, where Linux has it: it starts afresh at exec, whereas ru_maxrss carries the
    peak of the process that forked this one (the bench, after its migrations)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def backend_cpu_seconds(pid: int) -> float | None:
    """CPU seconds the process `pid` has used (a PostgreSQL backend on this machine), None
    when it cannot be read (the database is elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # utime and stime, the 14th and 15th fields, counted from the state (the 3rd).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def import_in_this_process(project_id: int, corpus: Path) -> dict[str, object]:
    """Import `corpus` into the project, in this process (a fresh one); what it measured."""
    django_on_fresh_database(keep_db=True, migrate=False)
    from django.db import connection

    from annotator.models import Project
    from annotator.services.imports import documents_import

    project = Project.objects.get(pk=project_id)
    backend = 0
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            backend = cursor.fetchone()[0]
    backend_before = backend_cpu_seconds(backend) if backend else None
    rss_before = peak_rss_mb()
    started = time.perf_counter()
    cpu = time.process_time()
    summary = documents_import(project=project, path=corpus, fmt="jsonl")
    backend_after = backend_cpu_seconds(backend) if backend else None
    return {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": time.process_time() - cpu,
        "database_cpu_seconds": (
            None
            if backend_before is None or backend_after is None
            else backend_after - backend_before
        ),
        "peak_rss_mb": peak_rss_mb(),
        "rss_before_mb": rss_before,
        "documents": summary.documents,
        "spans": summary.spans,
    }


def _child(command: list[str], env: dict[str, str] | None = None) -> dict[str, object]:
    """Run a measuring child process; the JSON object its last line of output prints."""
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-4000:])
        raise SystemExit(f"{command[:3]} failed with exit status {done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def doccano_import(python: str, corpus: Path, folder: Path) -> dict[str, object]:
    """doccano's import of `corpus`, with its own database and media in `folder`."""
    script = str(ROOT / "bench" / "doccano_import.py")
    # doccano's settings read these; Cloak's must not leak into its process.
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE", "REDIS_URL", "PYTHONPATH")
    }
    migrated = subprocess.run(
        [python, script, "migrate", str(folder)], env=env, capture_output=True
    )
    if migrated.returncode != 0:
        sys.stderr.write(migrated.stderr.decode(errors="replace")[-4000:])
        raise SystemExit("doccano's migrations failed")
    return _child([python, script, "import", str(folder), str(corpus)], env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep-db", action="store_true", help="do not drop and recreate it")
    parser.add_argument(
        "--annotators",
        action="store_true",
        help="give the project an annotator per language, as the design has it, so that "
        "the import also assigns every document it writes",
    )
    parser.add_argument(
        "--doccano-python", metavar="PATH", help="doccano 1.8.4's interpreter, to compare"
    )
    parser.add_argument(
        "--import-into", nargs=2, metavar=("PROJECT_ID", "FILE"), help=argparse.SUPPRESS
    )  # the measured child: imports FILE into the project and prints what it measured
    args = parser.parse_args()
    if args.import_into:
        print(
            json.dumps(import_in_this_process(int(args.import_into[0]), Path(args.import_into[1])))
        )
        return

    django_on_fresh_database(keep_db=args.keep_db)
    from django.db import connection

    from annotator.models import Document, Span
    from annotator.services.projects import membership_set, project_create

    project = project_create(slug=f"bench-{int(time.time())}", languages=["en", "fr", "ar"])
    for language in project.languages if args.annotators else ():
        membership_set(
            project=project,
            username=f"annotator-{language}-{project.pk}",
            role="annotator",
            languages=[language],
            password="bench-annotator-password",
        )

    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "synthetic.jsonl"
        spans_written = write_corpus(corpus, args.documents, args.seed)
        size_mb = corpus.stat().st_size / 1e6
        # os.environ holds the settings django_on_fresh_database chose: the child's too.
        cloak = _child([sys.executable, __file__, "--import-into", str(project.pk), str(corpus)])
        doccano: dict[str, object] | None = None
        if args.doccano_python:
            doccano_corpus = Path(folder) / "doccano.jsonl"
            write_corpus(doccano_corpus, args.documents, args.seed, record=doccano_record)
            doccano_folder = Path(folder) / "doccano"
            doccano_folder.mkdir()
            doccano = doccano_import(args.doccano_python, doccano_corpus, doccano_folder)

    assert cloak["documents"] == args.documents
    assert cloak["spans"] == spans_written
    stored_docs = Document.objects.filter(project=project).count()
    stored_spans = Span.objects.filter(document__project=project).count()
    assert (stored_docs, stored_spans) == (args.documents, spans_written)
    seconds, cpu = float(cloak["seconds"]), float(cloak["cpu_seconds"])  # type: ignore[arg-type]
    print(f"database          {connection.vendor} ({connection.settings_dict['NAME']})")
    print(f"documents         {args.documents} ({stored_docs} stored)")
    print(f"spans             {spans_written} ({stored_spans} stored, "
          f"{spans_written / args.documents:.2f} per document)")  # fmt: skip
    print(f"file              {size_mb:.1f} MB of JSONL")
    print(f"import seconds    {seconds:.1f} (CPU {cpu:.1f} s in the importing process)")
    if cloak["database_cpu_seconds"] is not None:
        print(f"database CPU      {cloak['database_cpu_seconds']:.1f} s in its PostgreSQL backend")
    print(f"documents/second  {args.documents / seconds:,.0f}")
    print(f"peak RSS          {cloak['peak_rss_mb']:.0f} MB, the importing process "
          f"({cloak['rss_before_mb']:.0f} MB before the import)")  # fmt: skip
    if doccano is not None:
        d_seconds = float(doccano["seconds"])  # type: ignore[arg-type]
        d_cpu = float(doccano["cpu_seconds"])  # type: ignore[arg-type]
        print(f"doccano 1.8.4     {d_seconds:.1f} s (CPU {d_cpu:.1f} s), "
              f"{args.documents / d_seconds:,.0f} documents/second, "
              f"peak RSS {doccano['peak_rss_mb']:.0f} MB; stored {doccano['documents']} "
              f"documents, {doccano['spans']} spans, {doccano['errors']} errors")  # fmt: skip
        print(
            f"Cloak vs doccano  {d_seconds / seconds:.1f}x faster (CPU {d_cpu / cpu:.1f}x), "
            f"{float(doccano['peak_rss_mb']) / float(cloak['peak_rss_mb']):.1f}x "  # type: ignore[arg-type]
            "less memory"
        )


if __name__ == "__main__":
    main()
