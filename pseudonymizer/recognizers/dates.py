"""Calendar dates: "1 November 1998", "13 and 14 January 1998", "November 1, 1998",
"1er novembre 1998", "5 mai", "12/03/2024", "2024-03-12", "3 يناير 2020".

NER models find most dates but often cut them ("November 1998" out of "1 November 1998",
which leaves the day in clear), and a date is among the most frequent quasi-identifiers of
court decisions and clinical letters. These patterns give the whole date, list of days
included, and overlap resolution prefers the longer span to the model's. Years alone and
times of day are left to NER: a bare "1998" is a date as often as a number.

Score 0.9, what is a date whatever surrounds it:

- a month and a day or a year, in either order: "Oct 3", "3rd of October", "October the 3rd",
  "Aug 10, '23", "May 2004" (a month alone, "in March", is too vague to mask; "may" and
  "mar" in lower case are verbs);
- three numbers with two equal separators that read as a day, a month and a year in either
  order: "12/03/2024", "04/22/1955" (month first, day over 12), "04/23/23", "2024-03-12".

Score 0.6, what is a date only where a date is expected, so that it is proposed for a person
to confirm, never ratios, scores or doses:

- a day and a month without the year, "10/3", "08/22", after a word that introduces a date
  ("on", "since", "until", "by", "dated", "seen", "admitted", "discharged", "d/c", "DOB",
  "of", "last", a weekday, "le", "depuis", ...; "Mon", "Sat", "Sun" capitalised only: "mon"
  is French for "my") or before a time ("10/3 at 14:00"); a range after one is included
  ("from 10/3 to 10/5"). Not when a dose, a unit or a scale follows ("1/2 tab", "3/4 of a
  cup", "3/4 hours") nor a score out of ten after "of";
- a month and a year, anywhere: "in 3/80", "compared with 8/79", "since 11/2019" (a
  number past 31 after the slash is no day), unless a quantity follows or "of" precedes;
- a day written as an ordinal after such a word and "the", or after a weekday: "on the 11th",
  "Monday the 11th", "since the 3rd-4th", "the 3rd of this month"; or as a bare number after
  a weekday ("Friday 13", "lundi 11") or before a time ("le 11 à 14h"); when nothing but
  punctuation, a time or a small word ("and", "at", "when", ...) follows it: "on the 3rd
  floor", "after the 2nd dose", "Monday 3 patients" are left alone;
- a year of two digits after such a word: "in '05", "since '98";
- a season or a part of a year with its year: "spring 2019", "summer of '19", "mid-2019",
  "early 2020", "début 2019".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
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
_SHORT_YEAR = "['’]" + rf"{_D}{{2}}"
_ANY_YEAR = rf"(?:{_YEAR}|{_SHORT_YEAR})"
_WORDED = re.compile(
    rf"(?<![\w])(?:"
    # November 1, 1998; Oct 3; October the 3rd-5th; Aug 10, '23; May 2004; (March)
    rf"(?P<m2>{_MONTH})(?:\s+(?:the\s+)?(?P<d2>{_DAY})"
    rf"(?:\s*(?:-|–|and|to|&)\s*{_DAY}|,?\s+{_ANY_YEAR})?|,?\s+{_ANY_YEAR})?"
    rf"|{_DAYS}\s+(?:of\s+)?(?P<m1>{_MONTH})(?:,?\s+{_ANY_YEAR})?"  # (1 and 2) November (1998)
    rf")(?![\w])",
    re.IGNORECASE,
)
_NUMERIC = re.compile(
    rf"(?<![\w./-])(?:{_YEAR}-[01]?{_D}-[0-3]?{_D}"
    rf"|[0-3]?{_D}([./-])[0-3]?{_D}\1(?:{_YEAR}|{_D}{{2}}))(?![\w]|[./-]{_D})"
)

# Partial dates (score 0.6). Each shape starts with a digit or an apostrophe, so that `re`
# skips quickly to where it may start; the words around it are read only there, from a
# window (`_WINDOW` characters) before it: a word that introduces a date (`_BEFORE`), or a
# season before a year (`_SEASON_BEFORE`), and what follows (`_QUANTITY_WORDS`,
# `_AFTER_ORDINAL`, `_TIME_AFTER`).
PARTIAL_SCORE = 0.6
_WINDOW = 40
_DATE_CUES = (
    "on", "since", "from", "until", "till", "til", "by", "dated", "date", "seen", "admitted",
    "admission", "discharged", "discharge", "d/c", "dob", "born", "of", "last", "next",
    "before", "after", "starting", "started", "due", "visit", "appt", "appointment", "surgery",
    "le", "du", "au", "depuis", "jusqu'au", "avant", "après",
)  # fmt: skip


def _alternatives(words: Iterable[str]) -> str:
    """A regular expression's alternatives, the longest first, for case-insensitive use."""
    return "|".join(sorted({re.escape(word.lower()) for word in words}, key=len, reverse=True))


# Weekdays, the abbreviations capitalised only: "mon" is French for "my", "sat" a verb.
_ABBREVIATED = sorted((d for d in WEEKDAYS if d[0].isupper() and len(d) <= 5), key=len)[::-1]
_WEEKDAY = (
    _alternatives(day for day in WEEKDAYS if day.isascii() and day not in _ABBREVIATED)
    + "|(?-i:"
    + "|".join(f"{day}|{day.upper()}" for day in _ABBREVIATED)
    + ")"
)
_CUE = _alternatives(_DATE_CUES) + "|" + _WEEKDAY
_BEFORE = re.compile(rf"(?<![\w/'])(?:{_CUE})[,:.]?\s+(?:the\s+)?$", re.IGNORECASE)
_TIME = r"(?:[0-2]?\d(?::[0-5]\d|\s*[ap]\.?m\b\.?|\s?h(?:[0-5]\d)?\b)|[0-2]\d[0-5]\d\s?h(?:rs?)?\b)"
_TIME_AFTER = re.compile(rf",?\s+(?:(?:at|@|à)\s*)?{_TIME}", re.IGNORECASE)
_NEXT_WORD = re.compile(r"[\s/]*(\w+)")
# What makes "1/2" a fraction or "5/10" a score rather than a date.
_QUANTITY_WORDS = frozenset(
    "tab tabs tablet tablets pill pills cap caps capsule capsules dose doses cup cups "
    "teaspoon teaspoons tsp tbsp ml mg mcg g kg lb lbs oz inch inches cm mm mile miles km "
    "of strength pack packs ppd unit units times x hour hours hr hrs h min mins "
    "minute minutes day days d week weeks wk wks month months mo year years yr yrs "
    "ns nss pain score scale".split()
)  # fmt: skip
# The words that may follow "on the 11th" when it is a day: a time, a list, a clause.
_AFTER_ORDINAL = frozenset(
    "at and or to through thru till until when we i he she they it you his her in for "
    "with from before after around about but so then".split()
)  # fmt: skip
_MONTH_DAY = re.compile(
    r"\d(?<![\w./-]\d)\d?/\d\d?(?![\w/]|[.,:-]\d)"
    r"(?:\s*(?:-|–|to|through|thru|until|till|au)\s*\d\d?/\d\d?(?![\w/]|[.,:-]\d))?",
    re.IGNORECASE,
)
# A month and a year: "3/80", "11/2019" (a year past 31 cannot be a day).
_MONTH_YEAR = re.compile(r"\d(?<![\w./-]\d)\d?/(?P<year>\d\d|(?:19|20)\d\d)(?![\w/]|[.,:-]\d)")
_ORDINAL = re.compile(
    r"\d(?<![\w.,/-]\d)\d?(?:st|nd|rd|th)(?!\w)"
    r"(?:\s*(?:-|–|and|to|or|&)\s*\d\d?(?:st|nd|rd|th)(?!\w))?",
    re.IGNORECASE,
)
# Before an ordinal day: a cue then "the" ("on the 11th": "on 13th" is a street as often),
# or a weekday ("Monday the 11th", "Wed 15th"). "of" is left out: "end of the 3rd" (quarter).
_ORDINAL_CUE = _alternatives(cue for cue in _DATE_CUES if cue != "of")
_ORDINAL_BEFORE = re.compile(
    rf"(?<![\w/'])(?:(?:{_ORDINAL_CUE})[,:.]?\s+the|(?:{_WEEKDAY})\.?,?(?:\s+the)?)\s+$",
    re.IGNORECASE,
)
# Before a day written as a bare number: a weekday ("Friday 13", "lundi 11", "le mardi 3").
_BARE_DAY = re.compile(r"\d(?<![\w.,/:-]\d)\d?(?![\w]|[.,:/-]\d)")
_WEEKDAY_BEFORE = re.compile(
    rf"(?<![\w/'])(?:{_WEEKDAY})\.?,?(?:\s+(?:the|le))?\s+$", re.IGNORECASE
)
_LE = re.compile(r"(?<![\w'])(?:le|on the)\s+$", re.IGNORECASE)
_IN = re.compile(r"(?<!\w)(?:in|en)\s+$", re.IGNORECASE)
_OF_MONTH = re.compile(r"\s+of\s+(?:this|next|last|the|each|every|that)\s+month\b", re.I)
_YEAR_ALONE = re.compile(rf"(?:[12١٢]|['’])(?<![\w'’].){_D}{{2,3}}(?![\w'’])")
_SEASON_BEFORE = re.compile(
    r"(?<![\w-])(?:spring|summer|autumn|fall|winter|early|late|mid|christmas|easter|"
    r"printemps|été|automne|hiver|début|fin|mi)(?:\s+of)?(?:\s+|-)$",
    re.IGNORECASE,
)


def _day_and_month(first: int, second: int) -> bool:
    """Whether the two numbers are a day and a month, in either order."""
    return (1 <= first <= 31 and 1 <= second <= 12) or (1 <= first <= 12 and 1 <= second <= 31)


def _cued(text: str, start: int) -> bool:
    return _BEFORE.search(text, max(0, start - _WINDOW), start) is not None


def _next_word(text: str, end: int) -> str:
    match = _NEXT_WORD.match(text, end)
    return "" if match is None else match.group(1).lower()


def _month_days(text: str) -> list[Span]:
    found = []
    for match in _MONTH_DAY.finditer(text):
        start, end = match.span()
        dates = re.findall(r"(\d+)/(\d+)", match.group())
        if not all(_day_and_month(int(a), int(b)) for a, b in dates):
            continue
        timed = _TIME_AFTER.match(text, end) is not None
        if not (timed or _cued(text, start)):
            continue
        if not timed and _next_word(text, end) in _QUANTITY_WORDS:
            continue  # "1/2 tab", "of 3/4 the dose", "5/10 pain"
        if dates[0][1] == "10" and not timed and text[max(0, start - 4) : start].strip() == "of":
            continue  # "a pain of 5/10"
        found.append(Span(start, end, LABEL, score=PARTIAL_SCORE, source=SOURCE))
    return found


def _months_and_years(text: str) -> list[Span]:
    """ "in 3/80", "compared with 8/79", "since 11/2019": a month of the year, in any
    context, unless a quantity follows ("3/40 tab") or it is a score ("of 3/45")."""
    found = []
    for match in _MONTH_YEAR.finditer(text):
        start, end = match.span()
        month, year = int(match.group().split("/")[0]), match.group("year")
        if not 1 <= month <= 12 or (len(year) == 2 and int(year) <= 31):
            continue
        if _next_word(text, end) in _QUANTITY_WORDS or text[max(0, start - 4) : start] == " of ":
            continue
        found.append(Span(start, end, LABEL, score=PARTIAL_SCORE, source=SOURCE))
    return found


def _followed_as_a_day(text: str, end: int) -> bool:
    """Whether what follows a day's number is punctuation, a time or a small word."""
    return (
        _TIME_AFTER.match(text, end) is not None
        or _next_word(text, end) in ("", *_AFTER_ORDINAL)
        or not text[end:].lstrip(" ")[:1].isalnum()
    )


def _ordinals(text: str) -> list[Span]:
    found = []
    for match in _ORDINAL.finditer(text):
        start, end = match.span()
        if not all(1 <= int(day) <= 31 for day in re.findall(r"\d+", match.group())):
            continue
        if text[end : end + 1] == "-":
            continue  # "19th-century"
        of_month = _OF_MONTH.match(text, end)
        cued = _ORDINAL_BEFORE.search(text, max(0, start - _WINDOW), start) is not None
        if not (cued or (of_month and text[max(0, start - 4) : start] == "the ")):
            continue
        if of_month is not None:
            end = of_month.end()
        elif not _followed_as_a_day(text, end):
            continue  # "on the 3rd floor", "after the 2nd dose"
        found.append(Span(start, end, LABEL, score=PARTIAL_SCORE, source=SOURCE))
    return found


def _bare_days(text: str) -> list[Span]:
    """ "Friday 13", "lundi 11", and "le 11" before a time ("le 11 à 14h")."""
    found = []
    for match in _BARE_DAY.finditer(text):
        start, end = match.span()
        if not 1 <= int(match.group()) <= 31:
            continue
        if _WEEKDAY_BEFORE.search(text, max(0, start - 16), start) is not None:
            if not _followed_as_a_day(text, end):
                continue  # "Monday 3 patients"
        elif not (_TIME_AFTER.match(text, end) and _LE.search(text, max(0, start - 8), start)):
            continue
        found.append(Span(start, end, LABEL, score=PARTIAL_SCORE, source=SOURCE))
    return found


def _years(text: str) -> list[Span]:
    """ "in '05", "since '98", and a year after a season: "spring 2019", "mid-2019"."""
    found = []
    for match in _YEAR_ALONE.finditer(text):
        start, end = match.span()
        year = match.group()
        short = year[0] in "'’"
        if not (len(year) == 3 if short else re.fullmatch(_YEAR, year)):
            continue
        season = _SEASON_BEFORE.search(text, max(0, start - _WINDOW), start)
        if season is not None:
            start = season.start()
        elif not short or not (_cued(text, start) or _IN.search(text, max(0, start - 4), start)):
            continue
        found.append(Span(start, end, LABEL, score=PARTIAL_SCORE, source=SOURCE))
    return found


class DateRecognizer(PatternRecognizer):
    """Proposes DATE for a calendar date (source "regex"): score 0.9 for a date with a day or
    a year, `PARTIAL_SCORE` for one that is a date only where a date is expected."""

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
        partial = [
            *_month_days(text),
            *_months_and_years(text),
            *_ordinals(text),
            *_bare_days(text),
            *_years(text),
        ]
        if partial:
            spans += [
                span
                for span in partial
                if not any(span.start < other.end and other.start < span.end for other in spans)
            ]
        return sorted(spans, key=lambda span: span.start)

    @staticmethod
    def _is_date(match: re.Match[str]) -> bool:
        month = match.group("m1") or match.group("m2")
        if month in _VERBS:  # "the 3 may be", "to mar 2 days"
            return False
        day = match.group("d2")
        if day is not None and not 1 <= int(re.sub(r"\D", "", day.translate(_ARABIC_DIGITS))) <= 31:
            return False
        # A month alone ("in March") is too vague to mask: a day or a year must come with it.
        return match.group().strip().rstrip(".") != month.rstrip(".")

    @staticmethod
    def _valid_numeric(date: str) -> bool:
        numbers = [int(part) for part in re.split(r"[./-]", date.translate(_ARABIC_DIGITS))]
        if len(str(numbers[0])) == 4 or numbers[0] > 31:  # ISO: year-month-day
            numbers = [numbers[2], numbers[1], numbers[0]]
        # Day first (Europe) or month first (the United States): either must be a date.
        return _day_and_month(numbers[0], numbers[1])


_ARABIC_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789")


@cache
def _date_words() -> frozenset[str]:
    words: set[str] = set()
    for phrase in (*MONTHS, *WEEKDAYS, *RELATIVE_DATE_WORDS):
        words.update(_WORDS.findall(fold(phrase)))
    return frozenset(words)


@cache
def _plain_date_words() -> frozenset[str]:
    words: set[str] = set()
    for phrase in (*MONTHS, *WEEKDAYS, *RELATIVE_DATE_WORDS):
        for word in _WORDS.findall(phrase.lower()):
            words.add(word)
            words.add(_unaccented(word))
    return frozenset(words)


def _unaccented(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def is_date_word(word: str) -> bool:
    """Whether one word is a month, a weekday or a word of a relative date, in any case and
    with or without its accents ("Jan", "TONIGHT", "fevrier"): the cheap test, for the words
    detection reads one by one; `only_date_words` folds look-alike letters too."""
    lowered = word.lower()
    return lowered in _plain_date_words() or _unaccented(lowered) in _plain_date_words()


def only_date_words(text: str) -> bool:
    """Whether every word of `text` is a month, a weekday or a word of a relative date
    ("March", "last Monday", "hier soir", "الشهر الماضي"), with no digit: a moment no reader
    can place, that a release's checks do not look for elsewhere."""
    words = _WORDS.findall(fold(text))
    return bool(words) and all(word in _date_words() for word in words)
