"""Calendar dates: "1 November 1998", "13 and 14 January 1998", "November 1, 1998",
"1er novembre 1998", "5 mai", "12/03/2024", "2024-03-12", "3 يناير 2020".

NER models find most dates but often cut them ("November 1998" out of "1 November 1998",
which leaves the day in clear), and a date is among the most frequent quasi-identifiers of
court decisions and clinical letters. These patterns give the whole date, list of days
included, and overlap resolution prefers the longer span to the model's. Years alone and
times of day are left to NER: a bare "1998" is a date as often as a number.
"""

from __future__ import annotations

import re
from functools import cache

from pseudonymizer.folding import fold
from pseudonymizer.recognizers.base import PatternRecognizer
from pseudonymizer.spans import Span

LABEL = "DATE"
SOURCE = "regex"
_WORDS = re.compile(r"\w+")

MONTHS = (
    # English, full and abbreviated
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep",
    "Sept", "Oct", "Nov", "Dec",
    # French
    "janvier", "février", "fevrier", "mars", "avril", "mai", "juin", "juillet", "août", "aout",
    "septembre", "octobre", "novembre", "décembre", "decembre", "janv", "févr", "avr", "juil",
    "déc",
    # Arabic: the Egyptian and Maghrebi names, then the Levantine ones
    "يناير", "فبراير", "مارس", "أبريل", "ابريل", "مايو", "يونيو", "يوليو", "أغسطس", "اغسطس",
    "سبتمبر", "أكتوبر", "اكتوبر", "نوفمبر", "ديسمبر", "جانفي", "فيفري", "أفريل", "ماي", "جوان",
    "جويلية", "أوت", "كانون الثاني", "شباط", "آذار", "نيسان", "أيار", "حزيران", "تموز", "آب",
    "أيلول", "تشرين الأول", "تشرين الثاني", "كانون الأول",
)  # fmt: skip
# Days of the week and words that place a moment relative to now: with the months, the words
# a date is written with that name no day in particular (`only_date_words`).
WEEKDAYS = (
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "Mon", "Tue",
    "Tues", "Wed", "Thu", "Thur", "Thurs", "Fri", "Sat", "Sun",
    "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
    "الاثنين", "الإثنين", "الثلاثاء", "الأربعاء", "الخميس", "الجمعة", "السبت", "الأحد",
)  # fmt: skip
RELATIVE_DATE_WORDS = (
    "today", "yesterday", "tomorrow", "tonight", "morning", "afternoon", "evening", "night",
    "day", "days", "week", "weeks", "weekend", "month", "months", "year", "years", "last",
    "next", "this", "ago", "the", "of", "in", "on", "early", "late", "mid", "spring", "summer",
    "autumn", "fall", "winter",
    "aujourd", "hui", "hier", "demain", "matin", "soir", "soirée", "nuit", "jour", "jours",
    "semaine", "semaines", "mois", "an", "ans", "année", "années", "dernier", "dernière",
    "prochain", "prochaine", "le", "la", "de", "du", "en", "début", "fin", "printemps", "été",
    "automne", "hiver",
    "اليوم", "أمس", "امس", "البارحة", "غدا", "غداً", "الليلة", "صباح", "مساء", "الأسبوع",
    "الشهر", "العام", "السنة", "الماضي", "المقبل", "القادم",
)  # fmt: skip
# English month abbreviations that are verbs when written in lower case.
_VERBS = frozenset({"may", "mar"})

_D = "[0-9\u0660-\u0669]"
_DAY = rf"(?:[0-3]?{_D})(?:st|nd|rd|th|er)?"
_YEAR = rf"(?:[1\u0661][5-9\u0665-\u0669]|[2\u0662][0\u0660]){_D}{{2}}"
_MONTH = "(?:" + "|".join(sorted(map(re.escape, MONTHS), key=len, reverse=True)) + r")\.?"
_DAYS = rf"{_DAY}(?:(?:,\s*|\s*(?:-|–|and|to|et|au|ou|or)\s*){_DAY})*"
_WORDED = re.compile(
    rf"(?<![\w])(?:"
    rf"(?P<m2>{_MONTH})\s+{_DAY},?\s+{_YEAR}"  # November 1, 1998
    rf"|(?:{_DAYS}\s+)?(?P<m1>{_MONTH})(?:,?\s+{_YEAR})?"  # (1 and 2) November (1998)
    rf")(?![\w])",
    re.IGNORECASE,
)
_NUMERIC = re.compile(
    rf"(?<![\w./-])(?:{_YEAR}-[01]?{_D}-[0-3]?{_D}"
    rf"|[0-3]?{_D}([./-])[01]?{_D}\1(?:{_YEAR}|{_D}{{2}}))(?![\w]|[./-]{_D})"
)


class DateRecognizer(PatternRecognizer):
    """Proposes DATE for a calendar date with a day or a year (source "regex", score 0.9)."""

    name = "dates"

    def recognize_one(self, text: str) -> list[Span]:
        spans = [
            Span(m.start(), m.end(), LABEL, score=0.9, source=SOURCE)
            for m in _WORDED.finditer(text)
            if self._is_date(m)
        ]
        spans += [
            Span(m.start(), m.end(), LABEL, score=0.9, source=SOURCE)
            for m in _NUMERIC.finditer(text)
            if self._valid_numeric(m.group())
        ]
        return sorted(spans, key=lambda span: span.start)

    @staticmethod
    def _is_date(match: re.Match[str]) -> bool:
        month = match.group("m1") or match.group("m2")
        if month in _VERBS:  # "the 3 may be", "to mar 2 days"
            return False
        # A month alone ("in March") is too vague to mask: a day or a year must come with it.
        return match.group().strip().rstrip(".") != month.rstrip(".")

    @staticmethod
    def _valid_numeric(date: str) -> bool:
        numbers = [int(part) for part in re.split(r"[./-]", date.translate(_ARABIC_DIGITS))]
        if len(str(numbers[0])) == 4 or numbers[0] > 31:  # ISO: year-month-day
            numbers = [numbers[2], numbers[1], numbers[0]]
        day, month = numbers[0], numbers[1]
        # Day first (Europe) or month first (the United States): either must be a date.
        return (1 <= day <= 31 and 1 <= month <= 12) or (1 <= month <= 31 and 1 <= day <= 12)


_ARABIC_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789")


@cache
def _date_words() -> frozenset[str]:
    words: set[str] = set()
    for phrase in (*MONTHS, *WEEKDAYS, *RELATIVE_DATE_WORDS):
        words.update(_WORDS.findall(fold(phrase)))
    return frozenset(words)


def only_date_words(text: str) -> bool:
    """Whether every word of `text` is a month, a weekday or a word of a relative date
    ("March", "last Monday", "hier soir", "الشهر الماضي"), with no digit: a moment no reader
    can place, that a release's checks do not look for elsewhere."""
    words = _WORDS.findall(fold(text))
    return bool(words) and all(word in _date_words() for word in words)
