"""How fast a release is cut, leak check included, and how much memory it takes.

Creates a project of N short documents (default 100,000), each finished, with three accepted
spans: one person who appears in every document ("Moshe Chaya"), one of 900 other people and
one of 200 phone numbers, all pseudonymized through the correspondence table. Then runs
`manage.py release SLUG --strategy realistic --format jsonl` in a child process (the command
an admin runs: streaming, rendering, the leak check against every original of the table and
the regex patterns, the manifest and the checksum), and prints its wall time and peak
resident memory. Then edits the replacement of the person found in every document (as a lead
does in the keys table, `annotator.keys.table.entity_update`) and releases again, checking
that the new pseudonym is what the release now holds. Targets: ≤ 60 s and ≤ 300 MB each.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_release_bench \\
        python bench/release_bench.py [--documents 100000]

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


def child_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def release(slug: str, out: Path) -> tuple[float, float, str]:
    """Run the command in a child process; its wall time, peak RSS (MB) and output."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "release", slug, "--strategy", "realistic",
         "--format", "jsonl", "--no-progress", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"release failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return wall, child_peak_mb(), done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=100_000)
    args = parser.parse_args()

    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    # Releases are written under CLOAK_VAR_DIR/media: a folder of the bench's own.
    os.environ["CLOAK_VAR_DIR"] = tempfile.mkdtemp(prefix="cloak-release-bench-")
    django_on_fresh_database()

    from annotator.keys.models import Alias
    from annotator.keys.services import surface_decide
    from annotator.keys.table import EntityChange, entity_update
    from annotator.models import Document, DocumentStatus, Span, SpanSource, SpanStatus
    from annotator.routers import keys_alias
    from annotator.services.projects import project_create
    from pseudonymizer.recognizers.known import fold

    project = project_create(slug="release-bench", languages=["en"])
    started = time.perf_counter()
    people = [f"{first} {last}" for first in FIRST_NAMES for last in LAST_NAMES]
    choices = {}
    for surface, label in [(STAR, "PER"), *((p, "PER") for p in people),
                           *((p, "PHONE") for p in PHONES)]:  # fmt: skip
        choices[surface] = surface_decide(
            project=project, surface=surface, language="en", label=label, decision="pseudonymize"
        )
    for start in range(0, args.documents, BATCH):
        documents = []
        for number in range(start, min(start + BATCH, args.documents)):
            person, phone = people[number % len(people)], PHONES[number % len(PHONES)]
            text = f"{STAR} met {person} on day {number}, call {phone} if needed."
            documents.append(
                Document(project=project, language="en", external_id=f"doc-{number}", text=text,
                         search_text=fold(text), status=DocumentStatus.DONE)
            )  # fmt: skip
        Document.objects.bulk_create(documents)
        spans = []
        for document in documents:
            text = document.text
            person = text[len(STAR) + 5 : text.index(" on day")]
            phone = text[text.index("+33") : text.index(" if needed")]
            for surface, label in ((STAR, "PER"), (person, "PER"), (phone, "PHONE")):
                begin = text.index(surface)
                spans.append(
                    Span(document=document, start=begin, end=begin + len(surface), label=label,
                         source=SpanSource.HUMAN, status=SpanStatus.ACCEPTED,
                         decision="pseudonymize", entity_id=choices[surface].entity_id)
                )  # fmt: skip
        Span.objects.bulk_create(spans)
    print(f"set up {args.documents} documents in {time.perf_counter() - started:.1f} s")

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "release.jsonl"
        wall, peak, said = release(project.slug, out)
        print(f"release 1: {wall:.1f} s, peak RSS {peak:.0f} MB ({said.splitlines()[0]})")
        with out.open(encoding="utf-8") as stream:
            first = json.loads(stream.readline())
        old = first["spans"][0]["text"]

        star = choices[STAR]
        entity_row = Alias.objects.using(keys_alias()).get(pk=star.alias_id).entity
        new = "Ezra Talmor"
        started = time.perf_counter()
        entity_update(
            project=project, entity_id=star.entity_id, actor=None, version=entity_row.version,
            change=EntityChange(replacements={star.alias_id: new}),
        )  # fmt: skip
        print(f"edited the replacement found in every document in "
              f"{time.perf_counter() - started:.2f} s")  # fmt: skip
        wall, peak, said = release(project.slug, out)
        print(f"release 2: {wall:.1f} s, peak RSS {peak:.0f} MB ({said.splitlines()[0]})")
        seen = 0
        with out.open(encoding="utf-8") as stream:
            for line in stream:
                record = json.loads(line)
                assert record["spans"][0]["text"] == new and old not in record["text"]
                seen += 1
        assert seen == args.documents, seen
        print(f"release 2 holds {new!r} in all {seen} documents (was {old!r})")


if __name__ == "__main__":
    main()
