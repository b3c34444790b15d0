from __future__ import annotations

import json

import pytest

from pseudonymizer.recognizers import RegexRecognizer
from pseudonymizer.recognizers.regex import LABELS
from pseudonymizer.spans import Span
from tests.data import SAMPLE_CORPUS

RECOGNIZER = RegexRecognizer()

# (text, the surface expected with this label). The surface must be found once, with
# exactly these boundaries, and nothing else may carry the label.
POSITIVE: dict[str, list[tuple[str, str]]] = {
    "URL": [
        ("Moshe Chaya posted again on https://t.me/ironwolves_ma. Join!", "https://t.me/ironwolves_ma"),
        ("see https://wa.me/+93722758, now", "https://wa.me/+93722758"),
        ("(voir https://fr.wikipedia.org/wiki/Lyon_(ville)) merci", "https://fr.wikipedia.org/wiki/Lyon_(ville)"),
        ("go to www.example.org/x.", "www.example.org/x"),
        ("rejoignez example.org/path?ref=7 !", "example.org/path?ref=7"),
        ("lien : t.me/name; merci", "t.me/name"),
        ("wa.me/+93722758", "wa.me/+93722758"),
        ('"https://leetchi.example/c/soutien-kyle"', "https://leetchi.example/c/soutien-kyle"),
        ("visit google.com today", "google.com"),
        ("قناتنا الجديدة https://t.me/ironwolves_ma 🔥🔥 انشروا", "https://t.me/ironwolves_ma"),
        ("رابط https://ar.wikipedia.org/wiki/حلب مفيد", "https://ar.wikipedia.org/wiki/حلب"),
        ("قناتنا https://t.me/ironwolves_maانشروا", "https://t.me/ironwolves_ma"),
        ("HTTPS://EXAMPLE.COM/A?", "HTTPS://EXAMPLE.COM/A"),
        ("admin: http://192.168.0.1:8080/admin!", "http://192.168.0.1:8080/admin"),
    ],
    "EMAIL": [
        ("mail tom.reddle@protonmail.example. He lives", "tom.reddle@protonmail.example"),
        ("écrivez à je.lefevre@orange.example.", "je.lefevre@orange.example"),
        ("Contact : émilie.dupré@exemple.fr, merci", "émilie.dupré@exemple.fr"),
        ("البريد: a.haddad@northfield.example", "a.haddad@northfield.example"),
        ("راسلني على abukhaled@mail.example شكرا", "abukhaled@mail.example"),
        ("(first+tag@sub.domain.co.uk)", "first+tag@sub.domain.co.uk"),
        ("<x_y-z@example.com>", "x_y-z@example.com"),
        ("user@sub.domain.co.uk.", "user@sub.domain.co.uk"),
    ],
    "USERNAME": [
        ("Hit me up @marie.delattre1, ok", "@marie.delattre1"),
        ("Our admin @ProudWolves-Massachusetts-admin says", "@ProudWolves-Massachusetts-admin"),
        ("with @lenav_88.", "@lenav_88"),
        ("Contact : @emv_officiel.", "@emv_officiel"),
        ("تواصلوا مع @marie.delattre1 على انستغرام", "@marie.delattre1"),
        ("تابعوا @أحمد_الشامي الآن", "@أحمد_الشامي"),
        ("merci @Zoé-Lefèvre!", "@Zoé-Lefèvre"),
        ("(@user2024)", "@user2024"),
        ("Hello.@someone here", "@someone"),
        # Glued to punctuation
        ("thanks --@marie_d!", "@marie_d"),
        ("RT:@someone hi", "@someone"),
        ("so true…@name", "@name"),
        # Reddit
        ("ask u/spez about it", "u/spez"),
        ("as /u/Some_User said", "/u/Some_User"),
        ("posted on r/AskDocs.", "r/AskDocs"),
        ("(/r/france)", "/r/france"),
    ],
    "HASHTAG": [
        ("😡😡 #JusticeForKyle trending", "#JusticeForKyle"),
        ("c'est une honte #Marseille13", "#Marseille13"),
        ("انشروا #النصر_قادم", "#النصر_قادم"),
        ("#الحرية للجميع", "#الحرية"),
        ("vive #Égalité!", "#Égalité"),
        ("#2024elections are close", "#2024elections"),
        ("tag: #free_palestine.", "#free_palestine"),
        ("(#MeToo)", "#MeToo"),
    ],
    "PHONE": [
        ("Call Tom at +44 7700 900461 or mail", "+44 7700 900461"),
        ("Appelez au +33 6 12 34 56 78.", "+33 6 12 34 56 78"),
        ("اتصل +212 6 12 34 56 78 الآن", "+212 6 12 34 56 78"),
        ("dial 0044 7700 900461 now", "0044 7700 900461"),
        ("Appelez Jean au 06 12 34 56 78 ou écrivez", "06 12 34 56 78"),
        ("Son numéro : 01.99.00.12.34.", "01.99.00.12.34"),
        ("tél 06-12-34-56-78", "06-12-34-56-78"),
        ("tél 0612345678", "0612345678"),
        ("ring 07700 900461 tonight", "07700 900461"),
        ("office (020) 7946 0018.", "(020) 7946 0018"),
        ("office +1 508 555 0142. Post it", "+1 508 555 0142"),
        ("call (508) 555-0142 now", "(508) 555-0142"),
        ("رقمي +٤٤ ٧٧٠٠ ٩٠٠٤٤٨ شكرا", "+٤٤ ٧٧٠٠ ٩٠٠٤٤٨"),
        ("رقمي ٠٦١٢٣٤٥٦٧٨", "٠٦١٢٣٤٥٦٧٨"),
        ("شماره ۰۹۱۲ ۳۴۵ ۶۷۸۹", "۰۹۱۲ ۳۴۵ ۶۷۸۹"),
        ("للتواصل: +963 944 123 456 أو", "+963 944 123 456"),
        ("Algérie 0555 12 34 56", "0555 12 34 56"),
        ("مصر 010 1234 5678", "010 1234 5678"),
        ("السعودية 050 123 4567", "050 123 4567"),
        ("+966 50 123 4567", "+966 50 123 4567"),
        ("+33 (0)6 12 34 56 78", "+33 (0)6 12 34 56 78"),
    ],
    "IBAN": [
        ("IBAN FR76 3000 6000 0112 3456 7890 189 merci", "FR76 3000 6000 0112 3456 7890 189"),
        ("iban: FR7630006000011234567890189.", "FR7630006000011234567890189"),
        ("GB82 WEST 1234 5698 7654 32 BIC WEST", "GB82 WEST 1234 5698 7654 32"),
        ("Konto DE89370400440532013000", "DE89370400440532013000"),
        ("حساب SA03 8000 0000 6080 1016 7519 شكرا", "SA03 8000 0000 6080 1016 7519"),
        ("MA64 0115 1900 0001 2050 0053 4921", "MA64 0115 1900 0001 2050 0053 4921"),
        ("BE68 5390 0754 7034", "BE68 5390 0754 7034"),
        ("XX12 FR76 3000 6000 0112 3456 7890 189", "FR76 3000 6000 0112 3456 7890 189"),
    ],
    "IP": [
        ("server 192.168.1.1 down", "192.168.1.1"),
        ("from 10.0.0.255.", "10.0.0.255"),
        ("IP : 8.8.8.8, merci", "8.8.8.8"),
        ("العنوان 172.16.254.1 محظور", "172.16.254.1"),
        ("v6 2001:db8::1 ok", "2001:db8::1"),
        ("loopback ::1 here", "::1"),
        ("fe80::1ff:fe23:4567:890a%", "fe80::1ff:fe23:4567:890a"),
        ("full 2001:0db8:85a3:0000:0000:8a2e:0370:7334", "2001:0db8:85a3:0000:0000:8a2e:0370:7334"),
        ("mapped ::ffff:192.0.2.128 here", "::ffff:192.0.2.128"),
    ],
    "CARD": [
        ("carte 4111 1111 1111 1111 exp", "4111 1111 1111 1111"),
        ("card 4111-1111-1111-1111.", "4111-1111-1111-1111"),
        ("card 4111111111111111", "4111111111111111"),
        ("amex 3782 822463 10005", "3782 822463 10005"),
        ("mc 5555 5555 5555 4444", "5555 5555 5555 4444"),
        ("بطاقة ٤١١١ ١١١١ ١١١١ ١١١١", "٤١١١ ١١١١ ١١١١ ١١١١"),
        ("2024 4111 1111 1111 1111", "4111 1111 1111 1111"),
        ("visa 4012888888881881 ok", "4012888888881881"),
    ],
}  # fmt: skip

# Texts in which the label must not be found at all.
NEGATIVE: dict[str, list[str]] = {
    "URL": [
        "end.Then we go",
        "run script.py now",
        "e.g. i.e. U.S. Ph.D. St.Louis a.m.",
        "mail tom.reddle@protonmail.example",
        "version 1.2.3 and 3.14",
        "and/or km/h 24/7",
        "السلام.عليكم",
        "fin.Merci",
    ],
    "EMAIL": [
        "not an email: foo@bar",
        "@marie.delattre1 is a handle",
        "meet me @ home",
        "a@b",
        "user@localhost",
        "تواصلوا مع @marie.delattre1",
        "price: 5@3.50",
        "foo@.com",
    ],
    "USERNAME": [
        "mail tom.reddle@protonmail.example",
        "a.haddad@northfield.example",
        "see you @ 5",
        "@10 and @2024",
        "email@domain.com",
        "@ alone",
        "x@y",
        "البريد abukhaled@mail.example",
        "x-@y and a+@b and 50%@z",  # glued to a word
        "w/o r/o u/a s/p Tu/Th and/or",  # abbreviations, and a slash inside a word
        "https://reddit.com/r/france/x",  # a link
        "2/u/abc",
    ],
    "HASHTAG": [
        "#1 fan",
        "issue #42 fixed",
        "C# and F#",
        "&#39; entity",
        "# heading",
        "rang #٣",
        "foo#bar",
        "##",
    ],
    "PHONE": [
        "le 12/03/2024 à midi",
        "le 12.03.2024 à midi",
        "born 2024-03-12",
        "from 1990-2020 and in 2019",
        "prix 12 345 678 € et 1.000.000",
        "0.12345678 and 3.14159265",
        "IBAN FR76 3000 6000 0112 3456 7890 189",
        "card 4111 1111 1111 1111",
        "order 123456789",
        "ISBN 978-2-07-036822-8",
        "في عام ٢٠٢٤ دفع ١٢٣٤٥",
        "0.5 kg",
        "+12 345",
        "https://wa.me/+93722758",
    ],
    "IBAN": [
        "FR76 3000 6000 0112 3456 7890 188",
        "FR7630006000011234567890180",
        "GB82 WEST 1234 5698 7654 33",
        "DE89370400440532013001",
        "AB12 CDEF GHIJ KLMN",
        "ISO9001 certified",
        "NL91ABNA041716430",
        "MA64 0115 1900 0001 2050 0053 4922",
    ],
    "IP": [
        "256.1.1.1",
        "1.2.3.4.5",
        "192.168.01.1",
        "12:30:45",
        "std::vector",
        "00:1A:2B:3C:4D:5E",
        "v1.2.3.4",
        "1.2.3",
    ],
    "CARD": [
        "4111 1111 1111 1112",
        "1234 5678 9012 3456",
        "4111 11 111 111 1111",
        "0000 0000 0000 0000",
        "+44 7700 900461 12",
        "06 12 34 56 78 90 12",
        "4111.1111.1111.1111",
        "9111 1111 1111 1111",
    ],
}


def _found(text: str, label: str | None = None) -> list[tuple[str, str]]:
    spans = RECOGNIZER.recognize_one(text)
    return [(s.surface(text), s.label) for s in spans if label is None or s.label == label]


@pytest.mark.parametrize(
    ("label", "text", "surface"),
    [(label, text, surface) for label, cases in POSITIVE.items() for text, surface in cases],
)
def test_it_finds_each_identifier_with_exact_boundaries(
    label: str, text: str, surface: str
) -> None:
    assert _found(text, label) == [(surface, label)]


@pytest.mark.parametrize(
    ("label", "text"),
    [(label, text) for label, texts in NEGATIVE.items() for text in texts],
)
def test_it_does_not_find_look_alikes(label: str, text: str) -> None:
    assert _found(text, label) == []


def test_every_label_has_eight_cases_each_way() -> None:
    assert set(POSITIVE) == set(NEGATIVE) == set(LABELS)
    assert all(len(POSITIVE[label]) >= 8 and len(NEGATIVE[label]) >= 8 for label in LABELS)


@pytest.mark.parametrize(
    "prefix",
    ["", "😡😡 ", "🇺🇸🔥 ", "e\u0301e\u0301 ", "موشيه حايا ", "line\r\nnext ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 "],
)
def test_offsets_are_code_points_whatever_comes_before(prefix: str) -> None:
    body = "@marie.delattre1 +44 7700 900461 https://t.me/x #tag a@b.example"
    text = prefix + body

    spans = RECOGNIZER.recognize_one(text)

    assert [s.surface(text) for s in spans] == [
        "@marie.delattre1",
        "+44 7700 900461",
        "https://t.me/x",
        "#tag",
        "a@b.example",
    ]
    assert spans[0].start == len(prefix)
    assert all(s.score == 1.0 and s.source == "regex" for s in spans)


def test_numbers_in_a_row_are_found_one_by_one() -> None:
    text = "06 12 34 56 78 07 12 34 56 78 +44 7700 900461 4111 1111 1111 1111"
    assert _found(text) == [
        ("06 12 34 56 78", "PHONE"),
        ("07 12 34 56 78", "PHONE"),
        ("+44 7700 900461", "PHONE"),
        ("4111 1111 1111 1111", "CARD"),
    ]


def test_a_number_after_a_link_is_not_swallowed_by_it() -> None:
    text = "https://wa.me/+93722758 06 12 34 56 78"
    assert _found(text) == [("https://wa.me/+93722758", "URL"), ("06 12 34 56 78", "PHONE")]


def test_what_is_inside_a_link_or_an_address_is_part_of_it() -> None:
    text = "https://medium.com/@someone/post#anchor and someone@example.com"
    assert _found(text) == [
        ("https://medium.com/@someone/post#anchor", "URL"),
        ("someone@example.com", "EMAIL"),
    ]


def test_two_ibans_in_a_row_are_both_found() -> None:
    iban = "FR76 3000 6000 0112 3456 7890 189"
    assert _found(f"{iban} {iban}") == [(iban, "IBAN"), (iban, "IBAN")]


def test_the_batch_api_returns_one_list_per_text_in_order() -> None:
    texts = ["nothing here", "@a_b", "", "#x and @y"]
    result = RECOGNIZER.recognize(texts, "fr")
    assert [[s.label for s in spans] for spans in result] == [
        [],
        ["USERNAME"],
        [],
        ["HASHTAG", "USERNAME"],
    ]


def test_labels_can_be_restricted() -> None:
    recognizer = RegexRecognizer(["EMAIL"])
    assert [s.label for s in recognizer.recognize_one("@x a@b.example #y")] == ["EMAIL"]
    with pytest.raises(ValueError, match="PER"):
        RegexRecognizer(["PER"])


def test_results_never_overlap() -> None:
    text = " ".join(surface for cases in POSITIVE.values() for _, surface in cases)
    spans = RECOGNIZER.recognize_one(text)
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))


REGEX_LABELS = {"URL", "EMAIL", "USERNAME", "HASHTAG", "PHONE"}


def test_every_pattern_span_of_the_sample_corpus_is_found_exactly() -> None:
    gold: set[tuple[str, int, int, str]] = set()
    found: set[tuple[str, int, int, str]] = set()
    for line in SAMPLE_CORPUS.read_text(encoding="utf-8").splitlines():
        document = json.loads(line)
        for span in document["spans"]:
            if span["label"] in REGEX_LABELS:
                gold.add((document["id"], span["start"], span["end"], span["label"]))
        for span in RECOGNIZER.recognize_one(document["text"]):
            found.add((document["id"], span.start, span.end, span.label))

    assert len(gold) == 27
    assert gold <= found  # recall 100%, exact offsets
    assert found == gold  # and nothing else of these labels in this corpus


def test_spans_are_frozen_spans() -> None:
    (span,) = RECOGNIZER.recognize_one("x @abc")
    assert span == Span(2, 6, "USERNAME", score=1.0, source="regex")
