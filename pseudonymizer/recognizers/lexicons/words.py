"""What the Arabic lexicon rules share about a word: its proclitics and the article.

A word may carry a one-letter proclitic or two (و ف and ب ل ك: "وبالرياض"), and after ل the
article's alef is elided ("للمنتخب" = ل + المنتخب). `bare_forms` gives a word's folded form
and the forms it has without them, each with where it then begins in the text, for the
people, organisation and cue rules alike.
"""

from __future__ import annotations

from pseudonymizer.folding import fold_with_origin

ARTICLE = "ال"
PROCLITICS = ("و", "ف", "ب", "ل", "ك", "وب", "ول", "وك", "فب", "فل")


def bare_forms(
    text: str, start: int, end: int, key: str, *, shortest: int = 2, elided: bool = False
) -> list[tuple[str, int]]:
    """The word `text[start:end]` (folded: `key`), then the same without each proclitic it
    may carry when at least `shortest` letters remain, with where each form begins: "وقال"
    → [("وقال", s), ("قال", s + 1)]. With `elided`, ل + an article whose alef is elided
    gives the form with the article: "للمنتخب" → ("المنتخب", s + 1)."""
    forms = [(key, start)]
    normalized, origin = fold_with_origin(text[start:end])
    for proclitic in PROCLITICS:
        rest = normalized[len(proclitic) :]
        if normalized.startswith(proclitic) and len(rest) >= shortest:
            forms.append((rest, start + origin[len(proclitic)]))
    if elided and normalized.startswith("لل") and len(normalized) > 3:
        forms.append((ARTICLE + normalized[2:], start + origin[1]))
    return forms
