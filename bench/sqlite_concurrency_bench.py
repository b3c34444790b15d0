"""Does the embedded default (SQLite, `make run`) hold while a large import runs?

Makes a fresh SQLite database in a temporary folder with the settings `make run` gets (no
Redis: a folder as the cache), writes N synthetic documents as one JSONL upload, and imports
it in a second process (the worker's service, as `celery worker` runs it) while this process
does what people do meanwhile: polls the import's status panel (htmx), opens an annotator's
document page, and signs in (a write). Prints how long those requests took, their statuses,
and how the import's progress moved.

    python bench/sqlite_concurrency_bench.py -n 60000
    python bench/sqlite_concurrency_bench.py -n 60000 --baseline   # SQLite as it was: no WAL,
                                                                   # the import in one long
                                                                   # transaction while reading
    python bench/sqlite_concurrency_bench.py -n 5000 --json        # what the test reads
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = (
    "the a and of to in is was for on that with as at by from this it be are have not or "
    "we they he she post video meeting group channel message share join tonight again "
    "dans les avec pour une sur est pas qui mais nous vous ils elle ville rue message في "
    "من على إلى عن مع هذا هذه كان قال اليوم غدا رسالة مدينة شارع"
).split()
NAMES = ["Moshe Chaya", "Tom Reddle", "Marie Delattre", "Karim Benali", "سارة منصور"]
PASSWORD = "correct-horse-battery"


def write_corpus(path: Path, count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for number in range(count):
            words = [rng.choice(WORDS) for _ in range(rng.randint(60, 100))]
            name = rng.choice(NAMES)
            text = f"{name} {' '.join(words)}"
            record = {
                "id": f"synthetic-{number:07d}",
                "lang": rng.choice(("en", "fr", "ar")),
                "text": text,
                "spans": [{"start": 0, "end": len(name), "label": "PER"}],
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def environment(folder: Path, baseline: bool) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "annotator.settings",
        "DATABASE_URL": f"sqlite:///{folder / 'cloak.sqlite3'}",
        "REDIS_URL": "",
        "CACHE_URL": "",
        "CELERY_BROKER_URL": "",
        "CLOAK_VAR_DIR": str(folder),
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY", "bench-session-key"),
        "CLOAK_KEYS_SECRET": os.environ.get("CLOAK_KEYS_SECRET", "bench-keys-secret"),
    }
    if baseline:
        env["CLOAK_BENCH_BASELINE"] = "1"
    return env


def setup_django() -> None:
    import django

    if os.environ.get("CLOAK_BENCH_BASELINE"):
        # SQLite as Django sets it up by default: rollback journal, deferred transactions,
        # a 5-second busy timeout.
        from annotator import env

        env.sqlite_options = lambda query: {}  # type: ignore[assignment]
    django.setup()
    from django.conf import settings

    # Pages render {% static %}: the manifest storage would need collectstatic first.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # Signing in should measure the database, not PBKDF2 (a second of CPU by design).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    if os.environ.get("CLOAK_BENCH_BASELINE"):
        from annotator.services import imports

        # As before: the file read inside the transaction, the rows written through the ORM.
        imports._write_after_reading = lambda: False
        imports._writer = lambda project, job: imports._OrmWriter(project, job)


def worker(job_id: int, pace: float) -> None:
    """The second process: import the job, as the Celery task does.

    `pace` slows the reading down (seconds per 1,000 documents), as a slower disk or a busier
    machine would, so that a short test still sees the import at work.
    """
    setup_django()
    from annotator.services import imports

    if pace:
        read = imports.read_documents

        def paced(*args: Any, **kwargs: Any) -> Any:
            for number, document in enumerate(read(*args, **kwargs)):
                if number % 100 == 0:
                    time.sleep(pace / 10)
                yield document

        imports.read_documents = paced
    imports.import_job_run(job_id=job_id)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def people(job_id: int, document_id: int, usernames: dict[str, str]) -> dict[str, Any]:
    """This process, while the worker imports: requests as people send them, every 0.2 s."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from annotator.models import Document, ImportJob, JobStatus
    from annotator.selectors.imports import import_job_progress

    users = get_user_model().objects.in_bulk(field_name="username")
    admin = Client()
    admin.force_login(users[usernames["admin"]])
    annotator = Client()
    annotator.force_login(users[usernames["annotator"]])
    status_url = reverse("import_detail", args=["bench", job_id])
    document_url = reverse("document_detail", args=["bench", document_id])
    login_url = reverse("login")

    requests: dict[str, list[tuple[float, int]]] = {
        "import page": [],
        "document page": [],
        "sign in": [],
    }
    samples: list[dict[str, Any]] = []
    started = time.perf_counter()
    job = ImportJob.objects.get(pk=job_id)
    while True:
        for kind, call in (
            ("import page", lambda: admin.get(status_url, headers={"HX-Request": "true"})),
            ("document page", lambda: annotator.get(document_url)),
            (
                "sign in",
                lambda: Client().post(
                    login_url, {"username": usernames["annotator"], "password": PASSWORD}
                ),
            ),
        ):
            before = time.perf_counter()
            try:
                code = call().status_code
            except Exception as error:  # a 500 under the test client raises
                code = 500
                print(f"{kind}: {type(error).__name__}: {error}", file=sys.stderr)
            requests[kind].append((time.perf_counter() - before, code))
        job.refresh_from_db()
        progress = import_job_progress(job)
        stored = Document.objects.filter(project__slug="bench").count()
        samples.append(
            {
                "t": round(time.perf_counter() - started, 3),
                "status": job.status,
                "stage": progress.stage,
                "documents": progress.documents,
                "bytes_read": progress.bytes_read,
                "bytes_total": progress.bytes_total,
                "done": progress.done,
                "total": progress.total,
                "documents_stored": stored,
            }
        )
        if job.status not in (JobStatus.QUEUED, JobStatus.RUNNING):
            break
        time.sleep(0.2)
    return {
        "requests": requests,
        "samples": samples,
        "job": {"status": job.status, "error": job.error, "documents": job.documents_created},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=60_000)
    parser.add_argument("--baseline", action="store_true", help="SQLite as it was before")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--pace", type=float, default=0.0, help="slow the reading: seconds per 1,000 documents"
    )
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.pace)
        return

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        env = environment(folder, args.baseline)
        os.environ.update(env)
        setup_django()
        from django.contrib.auth import get_user_model
        from django.core.files.uploadedfile import SimpleUploadedFile
        from django.core.management import call_command

        from annotator.models import Document, Membership, Role
        from annotator.services.imports import import_job_create
        from annotator.services.projects import project_create

        call_command("migrate", verbosity=0)
        project = project_create(slug="bench", languages=["en", "fr", "ar"])
        users = get_user_model().objects
        admin = users.create_user("bench-admin", password=PASSWORD)
        annotator = users.create_user("bench-annotator", password=PASSWORD)
        Membership.objects.create(user=admin, project=project, role=Role.ADMIN)
        Membership.objects.create(
            user=annotator, project=project, role=Role.ANNOTATOR, languages=["en"]
        )
        document = Document.objects.create(
            project=project, language="en", external_id="already-there", text="Moshe Chaya"
        )

        corpus = folder / "corpus.jsonl"
        write_corpus(corpus, args.documents)
        size = corpus.stat().st_size
        job = import_job_create(
            project=project,
            upload=SimpleUploadedFile("corpus.jsonl", corpus.read_bytes()),
            fmt="jsonl",
            actor=admin,
        )
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(job.pk), "--pace", str(args.pace)],
            env=env,
            cwd=ROOT,
        )
        try:
            result = people(
                job.pk, document.pk, {"admin": admin.username, "annotator": annotator.username}
            )
        finally:
            process.wait(timeout=600)
        result["import_seconds"] = round(time.perf_counter() - started, 2)
        result["documents"] = args.documents
        result["bytes"] = size
        result["baseline"] = args.baseline

    if args.json:
        print(json.dumps(result))
        return
    mode = (
        "baseline: no WAL, deferred transactions, the file read inside the transaction"
        if args.baseline
        else "WAL, IMMEDIATE, the file read first and written after"
    )
    job_state = result["job"]["status"]
    print(f"database        SQLite ({mode})")
    print(
        f"import          {args.documents} documents, {size / 1e6:.1f} MB: {job_state} "
        f"in {result['import_seconds']} s"
    )
    for kind, timings in result["requests"].items():
        seconds = [t for t, _ in timings]
        codes: dict[int, int] = {}
        for _, code in timings:
            codes[code] = codes.get(code, 0) + 1
        print(
            f"{kind:<15} {len(timings)} requests, statuses {codes}, "
            f"median {statistics.median(seconds) * 1000:.0f} ms, "
            f"p95 {percentile(seconds, 0.95) * 1000:.0f} ms, max {max(seconds) * 1000:.0f} ms"
        )
    print("progress (t s: stage, documents, MB read, written):")
    last = None
    for sample in result["samples"]:
        shown = (sample["stage"], sample["documents"], sample["bytes_read"], sample["done"])
        if shown != last:
            print(
                f"  {sample['t']:>7.2f}: {sample['stage']:<8} {sample['documents']:>7} docs, "
                f"{sample['bytes_read'] / 1e6:6.1f} of {sample['bytes_total'] / 1e6:.1f} MB, "
                f"{sample['done'] if sample['stage'] == 'writing' else '-'}"
            )
            last = shown


if __name__ == "__main__":
    main()
