"""The labels' colours, as cloak.css gives them: every label of each preset schema has a
colour of its own, and each holds its text in AA contrast.

Measured from the stylesheet itself, with WCAG's relative luminance: the text (--text) and
the muted text of a rejected row (--muted) on each label's background at 4.5:1 at least;
the underline that marks a highlight at 3:1 against the page (white, and --bg); the label
shown after a highlight (--text on white at 75% over the background) at 4.5:1. Two labels
of one schema never share a background, nor have two closer than a CIE76 ΔE of 8 (a
just-noticeable difference is about 2.3)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from annotator.views.workspace import PALETTE_SIZE, label_colour
from pseudonymizer.schemas import PRESETS

CSS = (Path(__file__).resolve().parents[3] / "static" / "css" / "cloak.css").read_text()
RULE = re.compile(
    r"^\.c(\d+) \{ background: (#[0-9a-f]{6}); border-bottom-color: (#[0-9a-f]{6}); \}$", re.M
)
PALETTE = {f"c{n}": (background, underline) for n, background, underline in RULE.findall(CSS)}
TEXT = re.search(r"--text: (#[0-9a-f]{6});", CSS)[1]  # type: ignore[index]
PAGE = re.search(r"--bg: (#[0-9a-f]{6});", CSS)[1]  # type: ignore[index]
MUTED = re.search(r"--muted: (#[0-9a-f]{6});", CSS)[1]  # type: ignore[index]


def rgb(colour: str) -> tuple[float, float, float]:
    return tuple(int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]


def luminance(colour: tuple[float, float, float]) -> float:
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


RGB = tuple[float, float, float]


def over(top: RGB, alpha: float, bottom: RGB) -> RGB:
    return tuple(alpha * t + (1 - alpha) * b for t, b in zip(top, bottom, strict=True))  # type: ignore[return-value]


def lab(colour: tuple[float, float, float]) -> tuple[float, float, float]:
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in colour)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(v: float) -> float:
        return v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a: str, b: str) -> float:
    return sum((p - q) ** 2 for p, q in zip(lab(rgb(a)), lab(rgb(b)), strict=True)) ** 0.5


def test_the_stylesheet_has_a_class_for_each_colour() -> None:
    assert sorted(PALETTE, key=lambda name: int(name[1:])) == [f"c{n}" for n in range(PALETTE_SIZE)]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_label_of_a_preset_schema_has_its_own_colour_in_aa_contrast(name: str) -> None:
    labels = [label["name"] for label in PRESETS[name]["labels"]]
    colours = {label: label_colour(labels, label) for label in labels}
    assert len(set(colours.values())) == len(labels), "two labels share a colour"
    for label, colour in colours.items():
        background, underline = PALETTE[colour]
        assert ratio(rgb(TEXT), rgb(background)) >= 4.5, (label, colour)
        assert ratio(rgb(MUTED), rgb(background)) >= 4.5, (label, colour)
        tag = over((1.0, 1.0, 1.0), 0.75, rgb(background))
        assert ratio(rgb(TEXT), tag) >= 4.5, (label, colour)
        for page in ("#ffffff", PAGE):
            assert ratio(rgb(underline), rgb(page)) >= 3, (label, colour, page)
    for a, b in itertools.combinations(labels, 2):
        first, second = PALETTE[colours[a]][0], PALETTE[colours[b]][0]
        assert delta_e(first, second) >= 8, (a, b, first, second)
