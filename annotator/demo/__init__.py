"""A small fictional trilingual demo corpus (en, fr, ar) with gold spans.

`corpus.jsonl` holds one document a line: `{"id", "lang", "text", "spans": [{"start", "end",
"label", "decision", "text"}]}`, offsets in code points. The people, places, organisations and
contact data are invented (reserved example.com/example.org domains, +44 7700 900xxx and
01 99 00 xx xx numbers); the same people recur across documents and languages.
"""

from __future__ import annotations

from pathlib import Path

CORPUS_PATH = Path(__file__).resolve().with_name("corpus.jsonl")
