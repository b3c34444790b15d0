"""How fast the regex recognizer scans text.

Generates a few MB of mixed English, French and Arabic social-media text (about one
identifier every ten words: links, e-mail addresses, handles, hashtags, phone numbers in
several national forms and digit systems, IBANs, IP addresses, card numbers, plus dates,
prices and years that must not match) and times `RegexRecognizer` over it in batches.
MB are millions of UTF-8 bytes.

    python bench/regex_bench.py [--mb 4] [--per-label] [--profiles]

prints one line for sparse text (1 identifier in 100 words, closer to real posts) and one
for dense text (1 in 10); `--profiles` adds every pattern recognizer of each detection
profile (references, dates, numbers, titles, facilities; amounts, occupations, initials and proper
nouns in `recall`), merged as the engine merges them.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pseudonymizer.recognizers import Recognizer, recognize_all  # noqa: E402
from pseudonymizer.recognizers.profiles import PROFILES, pattern_recognizers  # noqa: E402
from pseudonymizer.recognizers.regex import LABELS, RegexRecognizer  # noqa: E402

WORDS = {
    "en": (
        "the a and of to in is was for on that with as at by from this it be are have not or "
        "we they he she post video meeting group channel message share join tonight again "
        "friday march brothers sisters city street call read more news truth people world "
        "Tom Reddle Moshe Chaya London Shrewsbury council police said report protest march"
    ).split(),
    "fr": (
        "dans les avec pour une sur est pas qui mais nous vous ils elle ville rue message "
        "appelez écrivez réunion demain soir association quartier lycée Marseille Lyon "
        "Jean-Édouard Lefèvre Sœur Anne-Cécile paroisse c'est l'école d'été à côté"
    ).split(),
    "ar": (
        "في من على إلى عن مع هذا هذه كان قال اليوم غدا رسالة مدينة شارع تواصلوا انشروا "
        "قناتنا الجديدة التقى بالأخ القاهرة حلب الرباط مسجد حي الزهور الشيخ يوم الثلاثاء "
        "موشيه حايا محمد العلي كريم بن علي ولندن بالقاهرة"
    ).split(),
}
IDENTIFIERS = [
    "https://t.me/ironwolves_ma",
    "https://wa.me/+93722758",
    "www.example.org/join?ref=7",
    "example.org/path",
    "(see https://en.wikipedia.org/wiki/Foo_(bar))",
    "tom.reddle@protonmail.example",
    "je.lefevre@orange.example.",
    "@marie.delattre1,",
    "@ProudWolves-Massachusetts-admin",
    "@أحمد_الشامي",
    "#JusticeForKyle",
    "#النصر_قادم",
    "#Marseille13",
    "+44 7700 900461",
    "06 12 34 56 78",
    "01.99.00.12.34",
    "(020) 7946 0018",
    "+٤٤ ٧٧٠٠ ٩٠٠٤٤٨",
    "+963 944 123 456",
    "010 1234 5678",
    "FR76 3000 6000 0112 3456 7890 189",
    "192.168.1.12",
    "2001:db8::1",
    "4111 1111 1111 1111",
    # Look-alikes that must not match.
    "12/03/2024",
    "12.03.2024",
    "1990-2020",
    "12 345 678 €",
    "#1",
    "😡😡🔥",
]


@dataclass(frozen=True)
class RegexThroughput:
    """One timing of the regex recognizer."""

    megabytes: float
    seconds: float
    spans: int
    name: str = "regex"

    @property
    def mb_per_s(self) -> float:
        return self.megabytes / self.seconds if self.seconds else float("inf")

    def __str__(self) -> str:
        return (
            f"{self.name}: {self.megabytes:.1f} MB in {self.seconds:.2f} s = "
            f"{self.mb_per_s:.1f} MB/s ({self.spans} spans)"
        )


def generate_texts(megabytes: float = 4.0, *, density: float = 0.1, seed: int = 0) -> list[str]:
    """Social-media-like documents of 40-120 words, en/fr/ar mixed, about `megabytes` MB;
    each word is an identifier (or a look-alike) with probability `density`.
    """
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    texts: list[str] = []
    size = 0
    while size < target:
        words = WORDS[rng.choice(("en", "fr", "ar"))]
        parts = [
            rng.choice(IDENTIFIERS) if rng.random() < density else rng.choice(words)
            for _ in range(rng.randint(40, 120))
        ]
        text = " ".join(parts) + rng.choice((".", "!", "\r\n", " 🙏"))
        texts.append(text)
        size += len(text.encode("utf-8"))
    return texts


def regex_throughput(
    megabytes: float = 4.0,
    *,
    density: float = 0.1,
    seed: int = 0,
    batch_size: int = 64,
    labels: tuple[str, ...] | None = None,
    profile: str | None = None,
    repeat: int = 3,
) -> RegexThroughput:
    """Time `RegexRecognizer.recognize` over about `megabytes` MB of generated text (best of
    `repeat` runs, so that a busy machine disturbs the number less). With `profile`, time
    every pattern recognizer of that detection profile instead (merged as the engine does).
    """
    texts = generate_texts(megabytes, density=density, seed=seed)
    size = sum(len(text.encode("utf-8")) for text in texts) / 1_000_000
    recognizers: list[Recognizer] = (
        [RegexRecognizer(labels)] if profile is None else pattern_recognizers(profile)
    )
    best = float("inf")
    spans = 0
    for _ in range(max(1, repeat)):
        began = time.perf_counter()
        spans = 0
        for index in range(0, len(texts), batch_size):
            batch = texts[index : index + batch_size]
            for found in recognize_all(batch, "en", recognizers).spans:
                spans += len(found)
        best = min(best, time.perf_counter() - began)
    name = "regex" if profile is None else f"{profile} patterns"
    return RegexThroughput(size, best, spans, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0, help="how much text (default 4)")
    parser.add_argument("--per-label", action="store_true", help="also time each label alone")
    parser.add_argument(
        "--profiles", action="store_true", help="also time each detection profile's patterns"
    )
    arguments = parser.parse_args()
    print(f"{regex_throughput(arguments.mb, density=0.01)}  [1 identifier in 100 words]")
    print(f"{regex_throughput(arguments.mb, density=0.1)}  [1 identifier in 10 words]")
    if arguments.profiles:
        for profile in PROFILES:
            print(f"{regex_throughput(arguments.mb, density=0.01, profile=profile)}  [sparse]")
    if arguments.per_label:
        for label in LABELS:
            print(f"  {label}: {regex_throughput(arguments.mb, labels=(label,))}")


if __name__ == "__main__":
    main()
