"""How fast the recognizers are: NER with and without the engine, batching, spaCy, regex.

For a transformers NER model (the tiny test model, trained on the spot, unless --model names
one) it times, on the same texts, batch size and loaded pipeline:

- the bare `transformers.pipeline("token-classification")` and `TransformersNerRecognizer`
  on short texts that need no window, and the engine's overhead over the bare pipeline;
- the gain from batching (batch size 1 against the others);
- long texts that need windows: the engine against the pipeline's own `stride` windowing.

Then spaCy NER (fr_core_news_md, en_core_web_sm) and, when bench/regex_bench.py is there, the
regex recognizer. Every figure is the best of --repeat runs. It prints numbers, no verdict.

    python bench/recognize_bench.py [--model PATH] [--device auto|cpu|cuda] [-n 2000]
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pseudonymizer.recognizers.ner import TransformersNerRecognizer, load_pipeline  # noqa: E402
from pseudonymizer.recognizers.spacy_ner import SpacyNerRecognizer  # noqa: E402
from tests.pseudonymizer.recognizers.tiny_model import (  # noqa: E402
    build_tiny_ner_model,
    synthetic_sentence,
)

FRENCH = (
    "Hier soir, {PER} a retrouvé ses amis à {LOC} pour parler du match.",
    "Le rendez-vous avec {PER} est fixé lundi prochain devant la mairie de {LOC}.",
    "Selon {PER}, la réunion de l'association se tiendra à {LOC} en mars.",
)
ENGLISH = (
    "Last night {PER} met his friends in {LOC} to talk about the game.",
    "The meeting with {PER} is set for next Monday in front of the {LOC} town hall.",
    "According to {PER}, the group will meet again in {LOC} in March.",
)
PEOPLE = ("Moshe Chaya", "Marie Delattre", "Karim Benali", "Emmanuel Macron", "John Smith")
PLACES = ("Lyon", "Marseille", "London", "Paris", "Shrewsbury")


@dataclass(frozen=True)
class Timing:
    wall: float  # seconds
    cpu: float  # seconds of this process on every core, so less disturbed by other processes


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """The shortest of `repeat` timings of `run`, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - began)
    return best


def compare(
    repeat: int, first: Callable[[], object], second: Callable[[], object]
) -> tuple[Timing, Timing]:
    """Best wall and CPU times of two runs, taken in turns so that load hits both alike."""
    timings = [Timing(float("inf"), float("inf")), Timing(float("inf"), float("inf"))]
    for _ in range(repeat):
        for index, run in enumerate((first, second)):
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            timings[index] = Timing(min(timings[index].wall, wall), min(timings[index].cpu, cpu))
    return timings[0], timings[1]


def overhead(engine: Timing, bare: Timing) -> str:
    wall = 100 * (engine.wall - bare.wall) / bare.wall
    cpu = 100 * (engine.cpu - bare.cpu) / bare.cpu
    return f"{wall:+5.1f}% wall, {cpu:+5.1f}% CPU"


def short_texts(count: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(word for word, _ in synthetic_sentence(rng, 40)) for _ in range(count)]


def long_texts(count: int, words: int, seed: int = 6) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        parts: list[str] = []
        while len(parts) < words:
            parts.extend(word for word, _ in synthetic_sentence(rng, 40))
        texts.append(" ".join(parts[:words]))
    return texts


def language_texts(templates: Sequence[str], count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(
            rng.choice(templates).format(PER=rng.choice(PEOPLE), LOC=rng.choice(PLACES))
            for _ in range(rng.randint(2, 5))
        )
        for _ in range(count)
    ]


def rate(count: int, tokens: int, seconds: float) -> str:
    return f"{count / seconds:9.1f} texts/s {tokens / seconds:11.0f} tokens/s"


def bench_transformers(arguments: argparse.Namespace, model: str) -> None:
    recognizer = TransformersNerRecognizer(model, device=arguments.device)
    recognizer.load()
    pipe = load_pipeline(model, arguments.device)
    print(
        f"NER model {model} on {pipe.device}: {recognizer.window_tokens} text tokens a window,"
        f" aggregation {recognizer.aggregation_strategy!r}"
    )

    texts = short_texts(arguments.n)
    counts = recognizer.token_counts(texts)
    tokens, longest = sum(counts), max(counts)
    print(f"short texts: {len(texts)} texts, {tokens} tokens, longest {longest} tokens (no window)")
    rates: dict[int, float] = {}
    for batch_size in arguments.batch_sizes:
        recognizer.batch_size = batch_size

        def bare(size: int = batch_size) -> object:
            return pipe(texts, batch_size=size, aggregation_strategy="first")

        def engine() -> object:
            return recognizer.recognize(texts, "en")

        bare()  # warm up
        bare_time, engine_time = compare(arguments.repeat, bare, engine)
        rates[batch_size] = len(texts) / engine_time.wall
        print(f"  batch {batch_size:3d}  bare pipeline {rate(len(texts), tokens, bare_time.wall)}")
        print(
            f"  batch {batch_size:3d}  engine        {rate(len(texts), tokens, engine_time.wall)}"
            f"   overhead {overhead(engine_time, bare_time)}"
        )
    if 1 in rates:
        gains = ", ".join(
            f"batch {size}: x{speed / rates[1]:.2f}" for size, speed in rates.items() if size != 1
        )
        print(f"  batching gain over batch 1 (engine): {gains}")

    texts = long_texts(arguments.long, arguments.long_words)
    tokens = sum(recognizer.token_counts(texts))
    batch_size = max(arguments.batch_sizes)
    recognizer.batch_size = batch_size
    windows = recognizer.count_windows(texts)
    stride = recognizer.stride
    print(
        f"long texts: {len(texts)} texts of {arguments.long_words} words, {tokens} tokens,"
        f" {windows} windows, batch {batch_size}"
    )
    # transformers' own windowing is the nearest bare equivalent; its overlap is in tokens.
    native_stride = min(stride, pipe.tokenizer.model_max_length // 2)

    def native() -> object:
        return pipe(
            texts, batch_size=batch_size, aggregation_strategy="first", stride=native_stride
        )

    def windowed() -> object:
        return recognizer.recognize(texts, "en")

    native_time, engine_time = compare(arguments.repeat, native, windowed)
    print(f"  pipeline stride={native_stride:<4d} {rate(len(texts), tokens, native_time.wall)}")
    print(
        f"  engine windows     {rate(len(texts), tokens, engine_time.wall)}"
        f"   vs pipeline {overhead(engine_time, native_time)}"
    )


def bench_spacy(arguments: argparse.Namespace) -> None:
    for package, templates in (("fr_core_news_md", FRENCH), ("en_core_web_sm", ENGLISH)):
        recognizer = SpacyNerRecognizer(package)
        try:
            recognizer.load()
        except Exception as error:  # a missing package is a line of output, not a crash
            print(f"spaCy {package}: {error}")
            continue
        texts = language_texts(templates, arguments.n)
        megabytes = sum(len(text.encode("utf-8")) for text in texts) / 1_000_000
        words = sum(len(text.split()) for text in texts)
        for batch_size in (16, 64, 256):
            recognizer.batch_size = batch_size
            recognizer.recognize(texts[:50], "x")  # warm up

            seconds = best_of(arguments.repeat, functools.partial(recognizer.recognize, texts, "x"))
            print(
                f"spaCy {package:16s} batch {batch_size:3d}: {len(texts) / seconds:8.1f} texts/s"
                f" {words / seconds:9.0f} words/s {megabytes / seconds:6.2f} MB/s"
            )


def bench_regex() -> None:
    path = ROOT / "bench" / "regex_bench.py"
    if not path.exists():
        print("regex: bench/regex_bench.py is not there")
        return
    spec = importlib.util.spec_from_file_location("regex_bench", path)
    assert spec is not None and spec.loader is not None
    module: Any = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    print(f"{module.regex_throughput(density=0.01)}  [1 identifier in 100 words]")
    print(f"{module.regex_throughput(density=0.1)}  [1 identifier in 10 words]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a token-classification model (default: the tiny one)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("-n", type=int, default=2000, help="short texts (default 2000)")
    parser.add_argument("--long", type=int, default=100, help="long texts (default 100)")
    parser.add_argument("--long-words", type=int, default=600, help="words a long text")
    parser.add_argument(
        "--batch-sizes",
        type=lambda value: [int(size) for size in value.split(",")],
        default=[1, 16, 32],
        help="comma-separated (default 1,16,32)",
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure, best kept")
    parser.add_argument("--no-spacy", action="store_true")
    parser.add_argument("--no-regex", action="store_true")
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        model = arguments.model
        if model is None:
            began = time.perf_counter()
            model = str(build_tiny_ner_model(Path(folder) / "tiny-ner"))
            print(f"tiny model trained in {time.perf_counter() - began:.1f} s")
        bench_transformers(arguments, model)
    if not arguments.no_spacy:
        bench_spacy(arguments)
    if not arguments.no_regex:
        bench_regex()


if __name__ == "__main__":
    main()
