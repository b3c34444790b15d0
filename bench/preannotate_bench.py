"""How fast a pre-annotation run goes: documents per second, without NER and with a model.

Imports N synthetic English documents (those of bench/import_bench.py, 60-100 words) into a
fresh project, then pre-annotates them twice through annotator.services.runs, in this process
(as `manage.py preannotate --here` does; a worker runs the same code per batch, plus the
broker's round trip): once with patterns and known entities only, once with the language's NER
model (settings.CLOAK_NER_MODELS, or --model). The second run replaces the first's proposals,
as a re-run does. Prints seconds, documents per second and spans per run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_bench \
        python bench/preannotate_bench.py -n 1000

The database named in DATABASE_URL is dropped and created again first (unless --keep-db):
point it at a database of its own.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bench import django_on_fresh_database, synthetic_document  # noqa: E402


def write_corpus(path: Path, count: int, seed: int) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for number in range(count):
            document = synthetic_document(rng, number)
            document["lang"] = "en"
            document["spans"] = []  # what the run finds, not what the file says
            out.write(json.dumps(document, ensure_ascii=False) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--model", default=None, help="the English NER model (default: settings)")
    parser.add_argument("--profile", default="recall")
    parser.add_argument("--keep-db", action="store_true", help="do not drop and recreate it")
    args = parser.parse_args()

    django_on_fresh_database(keep_db=args.keep_db)
    from django.conf import settings
    from django.db import connection

    from annotator.services.imports import documents_import
    from annotator.services.projects import project_create
    from annotator.services.runs import run_create, run_execute
    from pseudonymizer.detection import Detector

    project = project_create(slug=f"bench-{int(time.time())}", languages=["en"])
    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "synthetic.jsonl"
        write_corpus(corpus, args.documents, args.seed)
        documents_import(project=project, path=corpus, fmt="jsonl")
    if args.model is not None:
        settings.CLOAK_NER_MODELS = {**settings.CLOAK_NER_MODELS, "en": args.model}

    print(f"database          {connection.vendor} ({connection.settings_dict['NAME']})")
    print(f"documents         {args.documents} (English, 60-100 words)")
    print(f"batch size        {settings.CLOAK_RUN_BATCH_SIZE}")
    for use_ner in (False, True):
        run = run_create(
            project=project, actor=None, profile=args.profile, use_ner=use_ner, dispatch=False
        )
        model = run.models_used.get("en") or "none"
        if use_ner:
            # A worker loads its model once; the load is not part of a run's throughput.
            started = time.perf_counter()
            Detector(ner_models=run.models_used).ner(["Warm up."], "en")
            print(f"model load        {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        run = run_execute(run=run)
        seconds = time.perf_counter() - started
        assert run.status == "done", (run.error, run.warnings)
        rate = run.documents_done / seconds
        print(f"NER {model:<28} {seconds:7.1f} s  {rate:7.1f} docs/s  {run.spans_created} spans")
        for warning in run.warnings:
            print(f"  warning: {warning}")


if __name__ == "__main__":
    main()
