"""One folding: the matcher, the search pattern, the leak check and the table agree."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from pseudonymizer.evaluation import LeakChecker, leak_check
from pseudonymizer.folding import fold, fold_char, fold_key, fold_with_origin
from pseudonymizer.pseudonyms.determinism import seed_form
from pseudonymizer.recognizers import lexicons
from pseudonymizer.recognizers.known import (
    _FUNCTION_WORDS,
    KnownEntityRecognizer,
    _written,
    search_pattern,
)

ZWSP, ZWNJ, ZWJ, LRM, RLM, BOM, SHY = (
    "\u200b",
    "\u200c",
    "\u200d",
    "\u200e",
    "\u200f",
    "\ufeff",
    "\xad",
)
INVISIBLE = [ZWSP, ZWNJ, ZWJ, LRM, RLM, BOM, SHY, "\u2060", "\u2066", "\u2069", "\ufe0f", "\u034f"]


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _bold(text: str) -> str:
    """Mathematical bold letters: 𝐀 is U+1D400, 𝐚 U+1D41A."""
    out = []
    for char in text:
        if "A" <= char <= "Z":
            out.append(chr(0x1D400 + ord(char) - ord("A")))
        elif "a" <= char <= "z":
            out.append(chr(0x1D41A + ord(char) - ord("a")))
        else:
            out.append(char)
    return "".join(out)


# Arabic presentation forms, each letter in its initial, medial or final shape as a PDF
# extraction leaves them: محمد as ﻣﺤﻤﺪ.
_PRESENTATION = {
    "م": ("\ufee3", "\ufee4", "\ufee2"),
    "ح": ("\ufea3", "\ufea4", "\ufea2"),
    "د": ("\ufea9", "\ufeaa", "\ufeaa"),
    "ف": ("\ufed3", "\ufed4", "\ufed2"),
    "ا": ("\ufe8d", "\ufe8e", "\ufe8e"),
    "ط": ("\ufec3", "\ufec4", "\ufec2"),
    "ة": ("\ufe93", "\ufe94", "\ufe94"),
    "ي": ("\ufef3", "\ufef4", "\ufef2"),
    "ل": ("\ufedf", "\ufee0", "\ufede"),
    "ع": ("\ufecb", "\ufecc", "\ufeca"),
}


def _presentation(text: str) -> str:
    out = []
    for index, char in enumerate(text):
        forms = _PRESENTATION.get(char)
        if forms is None:
            out.append(char)
        else:
            out.append(forms[0 if index == 0 else 2 if index == len(text) - 1 else 1])
    return "".join(out)


def slices(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [text[start:end] for start, end in spans]


def leaks_of(text: str, original: str) -> list[tuple[int, int]]:
    return [(leak.start, leak.end) for leak in leak_check(text, [original])]


def matches_of(text: str, alias: str) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in KnownEntityRecognizer([(alias, "PER")]).recognize_one(text)]


# --- The variants the issue lists -------------------------------------------------------------

WRITTEN_ANOTHER_WAY = [
    pytest.param("محمد", "قال محمــد اليوم", "محمــد", id="tatweel"),
    pytest.param("مصطفى", "رأيت مصطفي أمس", "مصطفي", id="alef-maqsura"),
    pytest.param("فاطمة", "قالت فاطمه شيئا", "فاطمه", id="ta-marbuta"),
    pytest.param("فاطمه", "قالت فاطمة شيئا", "فاطمة", id="heh-for-ta-marbuta"),
    pytest.param("أحمد", "جاء احمد اليوم", "احمد", id="hamza"),
    pytest.param("مُحَمَّد", "قال محمد", "محمد", id="harakat-in-the-original"),
    pytest.param("محمد", "قال مُحَمَّدٌ", "مُحَمَّدٌ", id="harakat-in-the-text"),
    pytest.param("Moshe", f"Hi Mo{ZWSP}she!", f"Mo{ZWSP}she", id="zero-width-space"),
    pytest.param("Moshe", f"Hi Mo{ZWJ}she!", f"Mo{ZWJ}she", id="zero-width-joiner"),
    pytest.param("Moshe", f"Hi Mo{ZWNJ}sh{SHY}e!", f"Mo{ZWNJ}sh{SHY}e", id="zwnj-soft-hyphen"),
    pytest.param("محمد", f"قال مح{ZWJ}مد", f"مح{ZWJ}مد", id="zero-width-joiner-arabic"),
    pytest.param("Moshe", f"Hi {RLM}Mo{LRM}she{BOM}!", f"Mo{LRM}she{BOM}", id="direction-marks"),
    pytest.param(
        "Moshe Chaya", "To Ｍｏｓｈｅ　Ｃｈａｙａ.", "Ｍｏｓｈｅ　Ｃｈａｙａ", id="fullwidth"
    ),
    pytest.param("Moshe Chaya", f"To {_bold('Moshe Chaya')}.", _bold("Moshe Chaya"), id="bold"),
    pytest.param("محمد", "قال ﻣﺤﻤﺪ اليوم", "ﻣﺤﻤﺪ", id="presentation-forms"),
    pytest.param("علاء", "قال ﻋﻼء", "ﻋﻼء", id="lam-alef-ligature"),
    pytest.param("Métayer", "rue METAYER", "METAYER", id="accents"),
    pytest.param("Moshe Chaya", "Moshe \u2003\n Chaya", "Moshe \u2003\n Chaya", id="spaces"),
    pytest.param("O'Brien", "Mr O´Brien", "O´Brien", id="acute-for-apostrophe"),
    pytest.param("Room 12", "Room ١٢ again", "Room ١٢", id="arabic-indic-digits"),
    # Look-alike letters of other scripts, and Latin letters that do not decompose.
    pytest.param(
        "Evander Thistlewood",
        "To \u0395vander Thistlewood.",
        "\u0395vander Thistlewood",
        id="greek-capital-epsilon",
    ),
    pytest.param(
        "Evander Thistlewood",
        "To Ev\u0430nder Thistl\u0435w\u043e\u043ed.",
        "Ev\u0430nder Thistl\u0435w\u043e\u043ed",
        id="cyrillic-a-e-o",
    ),
    pytest.param(
        "Evander Thistlewood",
        "\u0395\u0474\u0391\u039dDER \u03a4\u0397\u0399STLEWOOD",
        "\u0395\u0474\u0391\u039dDER \u03a4\u0397\u0399STLEWOOD",
        id="greek-cyrillic-capitals",
    ),
    pytest.param(
        "Evander Thistlewood",
        "Evander Thistlew\u0585\u0585d!",
        "Evander Thistlew\u0585\u0585d",
        id="armenian-oh",
    ),
    pytest.param(
        "Evander Thistlewood",
        "\u13ac\u13d9\u13aaNDER Thistlewood",
        "\u13ac\u13d9\u13aaNDER Thistlewood",
        id="cherokee",
    ),
    pytest.param(
        "Evander Thistlewood",
        "Ev\u0251nder Th\u0131stlewood",
        "Ev\u0251nder Th\u0131stlewood",
        id="latin-alpha-and-dotless-i",
    ),
    pytest.param(
        "Søren Kjærgaard", "Hej Soren Kjaergaard.", "Soren Kjaergaard", id="not-decomposed"
    ),
    pytest.param(
        "Soren Kjaergaard", "Hej Søren Kjærgaard.", "Søren Kjærgaard", id="not-decomposed-text"
    ),
    pytest.param("Lukasz Wald", "Pan Łukasz Wałd", "Łukasz Wałd", id="l-with-stroke"),
]


@pytest.mark.parametrize(("original", "text", "written"), WRITTEN_ANOTHER_WAY)
def test_the_leak_check_finds_a_name_written_another_way(
    original: str, text: str, written: str
) -> None:
    assert slices(text, leaks_of(text, original)) == [written]


@pytest.mark.parametrize(("original", "text", "written"), WRITTEN_ANOTHER_WAY)
def test_the_matcher_finds_it_at_the_same_place(original: str, text: str, written: str) -> None:
    assert slices(text, matches_of(text, original)) == [written]
    assert matches_of(text, original) == leaks_of(text, original)


@pytest.mark.parametrize(("original", "text", "written"), WRITTEN_ANOTHER_WAY)
def test_the_search_pattern_hits_it(original: str, text: str, written: str) -> None:
    pattern = search_pattern(original)
    assert pattern is not None
    start = text.index(written)
    assert any(
        hit.start() < start + len(written) and hit.end() > start
        for hit in re.finditer(pattern, text)
    )


@pytest.mark.parametrize(("original", "text", "written"), WRITTEN_ANOTHER_WAY)
def test_the_table_takes_it_for_the_same_surface(original: str, text: str, written: str) -> None:
    assert fold_key(written) == fold_key(original)


def test_the_issue_examples_leak() -> None:
    assert leak_check("قال محمــد اليوم", ["محمد"])
    assert leak_check("مصطفي", ["مصطفى"])
    assert leak_check("فاطمه", ["فاطمة"])
    assert leak_check("Mo\u200bshe", ["Moshe"])
    assert leak_check("Ｍｏｓｈｅ", ["Moshe"])


def test_other_names_still_do_not_leak() -> None:
    assert leak_check("Moshes met Mosher and AMoshe", ["Moshe"]) == []
    assert leak_check("حلبي وسحلب", ["حلب"]) == []
    assert leak_check("Moshe Levi", ["Moshe Chaya"]) == []


def test_an_arabic_name_after_an_elided_article_leaks_as_the_matcher_finds_it() -> None:
    text = "سافر للقاهرة وللقاهرة"
    assert leaks_of(text, "القاهرة") == matches_of(text, "القاهرة")
    assert slices(text, leaks_of(text, "القاهرة")) == ["لقاهرة", "لقاهرة"]
    assert leak_check("لقاهرة", ["القاهرة"]) == []  # no ل before it: not the elided form


def test_a_proclitic_with_its_haraka_still_reads_as_a_proclitic() -> None:
    text = "وَمحمد قال"
    assert slices(text, leaks_of(text, "محمد")) == ["محمد"]


def test_the_leak_check_keeps_its_accent_strict_mode() -> None:
    text = "Metayer, Métayer, Me\u0301tayer, ＭÉＴＡＹＥＲ"
    strict = LeakChecker(["Métayer"], fold_accents=False)
    assert slices(text, [(leak.start, leak.end) for leak in strict(text)]) == [
        "Métayer",
        "Me\u0301tayer",
        "ＭÉＴＡＹＥＲ",
    ]


# --- The folding itself ------------------------------------------------------------------------


def test_each_fold_the_issue_names() -> None:
    assert fold("JOSÉ Jose\u0301") == "jose jose"
    assert fold("مُحَمَّدٌ") == "محمد"
    assert fold("محمــد") == "محمد"
    assert fold("أحمد إسلام آمنة ٱلله") == "احمد اسلام امنه الله"
    assert fold("مؤمن قائد") == "مومن قايد"
    assert fold("مصطفى ی") == "مصطفي ي"
    assert fold("فاطمة") == "فاطمه"
    assert fold("ک") == "ك"
    assert fold(f"M{ZWSP}o{ZWNJ}s{ZWJ}h{LRM}e{BOM}{SHY}") == "moshe"
    assert fold("Ｍｏｓｈｅ 𝐌𝐨𝐬𝐡𝐞 ﬁne") == "moshe moshe fine"
    assert fold("ﻣﺤﻤﺪ ﻻ") == "محمد لا"
    assert fold("a \t\u00a0\u3000 b") == "a b"
    assert fold("O’Brien O´Brien Jean‐Luc") == "o'brien o'brien jean-luc"
    assert fold("Straße") == "strasse"
    assert fold_key("  Moshe  ") == "moshe"


def test_look_alike_letters_read_as_the_latin_ones_they_pass_for() -> None:
    latin = "evander thistlewood"
    assert fold("\u0395vander Thistlewood") == latin  # Greek capital epsilon
    assert fold("Ev\u0430nder Thistlew\u043e\u043ed") == latin  # Cyrillic а, о
    assert fold("\u0395\u0474\u0391\u039dDER \u03a4\u0397\u0399STLEWOOD") == latin
    assert fold("Evander Thistlew\u0585\u0585d") == latin  # Armenian օ
    assert fold("\u13ac\u13d9\u13aaNDER") == "evander"  # Cherokee Ꭼ Ꮩ Ꭺ
    assert fold("\u0251 \u0131 \u0261 \u026a") == "a i g i"  # ɑ ı ɡ ɪ
    # Greek iota is in the class of "I" and "l": a capital reads as the capital, "I".
    assert fold("\u0399 \u03b9 \u0406 \u0456") == "i i i i"
    # Where the two cases pass for two letters (Ν "N", ν "v"), the capital's reading wins.
    assert fold("\u039d\u03bd \u0397\u03b7 \u03a5\u03c5") == "nn hh yy"


def test_letters_that_do_not_decompose_read_as_their_base_letters() -> None:
    assert fold("Søren Kjærgaard") == fold("Soren Kjaergaard") == "soren kjaergaard"
    assert fold("ø æ œ ł đ ð þ ħ ŧ ı ŀ ĸ") == "o ae oe l d d th h t i l k"
    assert fold("Ø Æ Œ Ł Đ Ð Þ Ħ Ŧ Ŀ") == "o ae oe l d d th h t l"
    assert fold("col·lega coŀlega") == "col·lega collega"  # only the ligature ŀ


def test_a_look_alike_reads_the_same_in_both_cases() -> None:
    for low, high in ((0x370, 0x3FF), (0x400, 0x52F), (0x531, 0x58F), (0x13A0, 0x13FF)):
        for code in range(low, high + 1):
            char = chr(code)
            for other in {char.upper(), char.lower()} - {char}:
                if len(other) == 1 and fold_char(char) != char.lower():
                    assert fold_char(other) == fold_char(char), (char, other)


@settings(max_examples=300)
@given(st.text(st.characters(max_codepoint=0x7F), max_size=40))
@example("m rn 0 O 1 l I | `")  # TR39 takes "m" for "rn", "0" for "O", "I" for "l"
def test_ascii_folds_as_it_always_did(text: str) -> None:
    # Before look-alikes were read: lower case, every white space one space, nothing else.
    before = re.sub(" +", " ", "".join(" " if c.isspace() else c.lower() for c in text))
    assert fold(text) == before


# Folding every character of the Arabic blocks, and every word of the Arabic lexicons, gave
# these digests before look-alikes were read (commit de02123): Arabic folds as it did. The
# lexicons' digest was taken again when issue 30 grew the lists, with the folding of commit
# bcf7139 and with this one alike.
_ARABIC_BLOCKS = (
    (0x0600, 0x06FF), (0x0750, 0x077F), (0x08A0, 0x08FF), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF),
    (0x1EE00, 0x1EEFF),
)  # fmt: skip
_ARABIC_CHARACTERS = "9468d27af864c3b285fc343bfb0216fc9f57999160e01e9865ab78ade33132c9"
_ARABIC_LEXICONS = "f507eb1b28e85591a813c64db7a3595ccb1f207a51a146369cb52a3335eab9df"


def test_arabic_folds_as_it_always_did() -> None:
    folded = [fold_char(chr(code)) for low, high in _ARABIC_BLOCKS for code in range(low, high + 1)]
    assert hashlib.sha256("\n".join(folded).encode()).hexdigest() == _ARABIC_CHARACTERS
    digest = hashlib.sha256()
    for path in sorted((Path(lexicons.__file__).parent / "data").glob("ar_*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                assert not re.search("[a-z]", fold(line)), line
                digest.update(fold(line).encode() + b"\n")
    assert digest.hexdigest() == _ARABIC_LEXICONS
    # ا is not "l", ه not "o", nor ١ "l": TR39 would read them so.
    assert fold("الله هو ١٢") == "الله هو 12"


@given(st.text(max_size=40))
@example("\u00a8 \u00a8")
@example("a\u200b \u200bb")
@example("ﷺ  x")
@example("ΟΔΥΣΣΕΑΣ ΠΑΠΑΣ, ΣΑΣ")  # a capital sigma ending a word (str.lower: ς)
@example("\u0395vander Ev\u0430nder Søren Kjærgaard ŀ Ŀ þ ĸ ı Ꭼ ꭼ ǅ Ю ы")  # look-alikes
@example("\u0345\u0399 \u1fb3 \u2c6d\u0251")  # ypogegrammeni, ᾳ, Ɑ ɑ
def test_folding_is_idempotent_and_the_origin_map_agrees(text: str) -> None:
    folded, origin = fold_with_origin(text)
    assert folded == fold(text)
    assert fold(folded) == folded
    assert len(origin) == len(folded)
    assert origin == sorted(origin)
    assert all(fold_char(text[index]) for index in origin)


# --- Whatever the matcher finds, the leak check finds ------------------------------------------

_LATIN_LETTERS = list("abcdefghijklmnopqrstuvwxyzéèêëàâäçîïôöùûüñ")
_ARABIC_LETTERS = list("ابتثجحخدذرزسشصضطظعغفقكلمنهوي") + ["ة", "ى", "أ", "إ", "آ", "ؤ", "ئ"]
_HARAKAT = ["\u064e", "\u064f", "\u0650", "\u0651", "\u0652", "\u064b", "\u0670"]
_ARABIC_SWAPS = {
    "ة": ["ه", "\ufe93", "\ufe94"],
    "ه": ["ة"],
    "ى": ["ي", "\ufeef", "\ufef0"],
    "ي": ["ى", "\u06cc"],
    "ا": ["أ", "إ", "آ", "\u0671", "\ufe8e"],
    "أ": ["ا", "إ", "\ufe83"],
    "إ": ["ا", "أ"],
    "آ": ["ا"],
    "ؤ": ["و"],
    "ئ": ["ي"],
    "ك": ["\u06a9"],
    "م": ["\ufee3", "\ufee4"],
    "ح": ["\ufea3", "\ufea4"],
}


@st.composite
def latin_names(draw: st.DrawFn) -> str:
    words = draw(
        st.lists(st.text(st.sampled_from(_LATIN_LETTERS), min_size=2, max_size=8), min_size=1,
                 max_size=3)
    )  # fmt: skip
    return " ".join(word.capitalize() for word in words)


@st.composite
def arabic_names(draw: st.DrawFn) -> str:
    words = draw(
        st.lists(st.text(st.sampled_from(_ARABIC_LETTERS), min_size=2, max_size=6), min_size=1,
                 max_size=3)
    )  # fmt: skip
    name = " ".join(words)
    if draw(st.booleans()):
        name = "ال" + name
    return name


@st.composite
def written_another_way(draw: st.DrawFn, name: str) -> str:
    """`name` as someone may type or paste it: other case, accents, harakat, tatweel, letter
    variants, zero-width characters, fullwidth, bold or presentation forms, other spaces."""
    out: list[str] = []
    for char in name:
        if char == " ":
            out.append(draw(st.sampled_from([" ", "  ", "\u00a0", "\n", "\u3000", " \u200b"])))
            continue
        how = draw(st.integers(0, 9))
        if char in _ARABIC_SWAPS and how < 4:
            char = draw(st.sampled_from(_ARABIC_SWAPS[char]))
        elif char.isascii() and how == 0:
            char = _fullwidth(char.upper() if draw(st.booleans()) else char)
        elif char.isascii() and how == 1:
            char = _bold(char)
        elif how == 2:
            char = char.swapcase()
        out.append(char)
        if "\u0600" <= char <= "\u06ff" and draw(st.integers(0, 3)) == 0:
            out.append(draw(st.sampled_from([*_HARAKAT, "\u0640"])))
        if char.isascii() and draw(st.integers(0, 5)) == 0:
            out.append("\u0301")
        if draw(st.integers(0, 6)) == 0:
            out.append(draw(st.sampled_from(INVISIBLE)))
    return "".join(out)


_FILLER = st.sampled_from(
    ["", " ", "Hi ", "said ", "(", "« ", "\n", "قال ", "و", "ب", "وبال", "ل", "x", "تم ", "1"]
)
_AFTER = st.sampled_from(["", " ", "!", ".", " again", "\n", "ي", "s", " و", "،", "2", ZWSP])


@st.composite
def a_name_in_a_text(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(st.one_of(latin_names(), arabic_names()))
    written = draw(written_another_way(name))
    text = draw(_FILLER) + written + draw(_AFTER) + draw(_FILLER) + name + draw(_AFTER)
    return name, text


@settings(max_examples=400, deadline=None)
@given(a_name_in_a_text())
@example(("Moshe Chaya", "To Ｍｏｓｈｅ Chaya."))
@example(("القاهرة", "سافر للقاهرة"))
@example(("علاء", "قال ﻋﻼء"))
def test_whatever_the_matcher_finds_the_leak_check_finds_at_the_same_place(
    case: tuple[str, str],
) -> None:
    name, text = case
    found = matches_of(text, name)
    leaks = set(leaks_of(text, name))
    assert set(found) <= leaks
    pattern = search_pattern(name)
    hits = [(m.start(), m.end()) for m in re.finditer(pattern, text)] if pattern else []
    for start, end in found:
        assert fold_key(text[start:end]) in {fold_key(name), fold_key(name)[1:]}
        assert any(low < end and high > start for low, high in hits)


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(latin_names(), arabic_names()).flatmap(
        lambda name: st.tuples(st.just(name), written_another_way(name))
    )
)
@example(("لآ", "لآ"))
def test_a_name_written_another_way_is_the_same_alias_and_leaks(case: tuple[str, str]) -> None:
    name, written = case
    assert fold_key(written) == fold_key(name)
    assert leaks_of(written, name)
    # The matcher never proposes an occurrence written as an Arabic function word ("لآ"
    # decided, "لا" written: "no"), by design; the leak check still finds it.
    assume(_written(written, 0, len(written)) not in _FUNCTION_WORDS)
    assert matches_of(written, name)


def test_the_seed_of_a_suggestion_stays_what_it_was() -> None:
    # The suggestion seed keeps the older, weaker form: accented spellings keep their draws.
    assert seed_form("  Moshé   CHAYA ") == "moshé chaya"
    assert fold_key("  Moshé   CHAYA ") == "moshe chaya"
