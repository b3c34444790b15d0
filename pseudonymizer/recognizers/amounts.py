"""Amounts of money: "GBP 150.20", "TRL 2,677,533,000", "€1 500", "3 000 euros", "USD 790".

What someone was awarded, fined or paid singles them out in a court decision, and NER
models trained on news miss amounts written the way judgments write them (an ISO code
before the number). Part of the `recall` profile (the default), not of `precise`. Label
MONEY, which a schema maps to MISC or OTHER, or to a MONEY label of its own.
"""

from __future__ import annotations

import re

from pseudonymizer.recognizers.base import PatternRecognizer
from pseudonymizer.spans import Span

LABEL = "MONEY"
SOURCE = "regex"

CODES = (
    "EUR", "USD", "GBP", "CHF", "JPY", "CNY", "RUB", "RUR", "UAH", "PLN", "CZK", "SKK", "HUF",
    "RON", "ROL", "BGN", "HRK", "RSD", "TRY", "TRL", "YTL", "GEL", "AMD", "AZN", "MDL", "SEK",
    "NOK", "DKK", "ISK", "FRF", "DEM", "ITL", "ESP", "PTE", "GRD", "BEF", "NLG", "ATS", "IEP",
    "FIM", "LTL", "LVL", "EEK", "SIT", "MKD", "ALL", "BAM", "CAD", "AUD", "MAD", "DZD", "TND",
    "EGP", "SAR", "AED", "ILS", "INR",
)  # fmt: skip
WORDS = (
    "euros?", "dollars?", "pounds?(?: sterling)?", "francs?", "lire", "liras?", "roubles?",
    "rubles?", "zlotys?", "korun[ay]?", "forints?", "dinars?", "dirhams?", "riyals?", "livres?",
    "pence", "cents?", "centimes?",
)  # fmt: skip
_SYMBOLS = "€$£¥₺₽₴"
_NUMBER = r"\d{1,3}(?:[,.\u00a0\u202f ]\d{3})*(?:[.,]\d{1,2})?(?!\d)|\d+(?:[.,]\d{1,2})?(?!\d)"
_SCALE = r"(?:\s?(?:million|billion|thousand|millions?|milliards?|mille|k|m|bn))?"
_AMOUNT = re.compile(
    rf"(?<![\w])(?:(?:{'|'.join(CODES)})\s?|[{_SYMBOLS}]\s?)(?:{_NUMBER}){_SCALE}(?!\w)"
    rf"|(?<![\w.,])(?:{_NUMBER}){_SCALE}\s?(?:(?:{'|'.join(CODES)})|[{_SYMBOLS}]"
    rf"|(?:{'|'.join(WORDS)}))(?![\w-])",
    re.IGNORECASE,
)
_CODE_PREFIX = re.compile(rf"(?:{'|'.join(CODES)})\s?", re.IGNORECASE)


class AmountRecognizer(PatternRecognizer):
    """Proposes MONEY for an amount with its currency (source "regex", score 0.9)."""

    name = "amounts"

    def recognize_one(self, text: str) -> list[Span]:
        spans = []
        for match in _AMOUNT.finditer(text):
            code = _CODE_PREFIX.match(match.group())
            # "all 3" or "esp 12" in running text: an ISO code is written in capitals.
            if code and not code.group().strip().isupper():
                continue
            end = match.end()
            while end > match.start() and text[end - 1] in " \u00a0\u202f":
                end -= 1
            spans.append(Span(match.start(), end, LABEL, score=0.9, source=SOURCE))
        return spans
