"""Data the tests carry with them, so that a clone alone runs the suite."""

from pathlib import Path

DATA = Path(__file__).parent
# 24 fictional documents (8 en, 8 fr, 8 ar) with gold spans and decisions; see samples/NOTICE.md.
SAMPLE_CORPUS = DATA / "samples" / "corpus.jsonl"
