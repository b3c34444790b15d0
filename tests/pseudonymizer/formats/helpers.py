"""Shared by the reader tests: where the fixture files are, and how to look at spans."""

from __future__ import annotations

from pathlib import Path

from pseudonymizer.formats.base import ImportedDocument

DATA = Path(__file__).parents[2] / "data" / "formats"
ACUTE = "e\u0301"  # "e" and a combining acute accent: two code points, one glyph


def surfaces(document: ImportedDocument) -> list[tuple[str, str]]:
    """(label, text[start:end]) for each span, in the order the reader gives them."""
    return [(span.label, document.text[span.start : span.end]) for span in document.spans]
