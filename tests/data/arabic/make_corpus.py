"""Writes `corpus.jsonl`: short fictional Arabic sentences with gold PER, LOC and ORG spans.

    python tests/data/arabic/make_corpus.py        # rewrites tests/data/arabic/corpus.jsonl

Deterministic (a fixed seed): running it twice writes the same file. Sentences are built from
templates whose slots are filled from the pools below, so every offset is computed, not typed.

A slot is `[[LABEL]]` or `[[PROCLITIC|LABEL]]`. The proclitic (و ف ب ك ل and their
combinations) is written glued to the name and left out of the gold span, the way the engine's
known-entity matcher reports it: "وباريس" → "باريس", "بالقاهرة" → "القاهرة". Before a name
that begins with the article, a proclitic ending in ل elides the article's alef ("ل" +
"القاهرة" → "للقاهرة") and the span is the written "لقاهرة", as in `known.py`.

Names are varied on purpose: hamza forms (أحمد/احمد), ta marbuta and alef maqsura
(مكة/مكه, مصطفى/مصطفي), tatweel and harakat, patronymic chains (بن، بنت، أبو، أم), family
names with ال, and names and places that no list Cloak ships carries, so that recall below 1
is an honest number. Private people are invented combinations of common names; the public
figures, places and organisations are public.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "corpus.jsonl"
SEED = 11
COUNT = 180

FIRST_MALE = (
    "محمد", "أحمد", "خالد", "عمر", "يوسف", "إبراهيم", "مصطفى", "علي", "حسن", "سامي", "طارق",
    "كريم", "ياسر", "عادل", "وليد", "هشام", "أيمن", "ماجد", "حمزة", "أسامة", "عبد الله",
)  # fmt: skip
FIRST_FEMALE = (
    "فاطمة", "مريم", "ليلى", "سارة", "هدى", "رانيا", "سلمى", "دينا", "زينب", "عائشة",
    "خديجة", "منى", "ريم", "نادية", "إيمان", "أسماء",
)  # fmt: skip
FAMILY = (
    "الهاشمي", "العتيبي", "الشمري", "المصري", "الخطيب", "حداد", "منصور", "القحطاني",
    "الزعبي", "النجار", "الحسيني", "البرغوثي", "التميمي", "الدوسري", "العلي", "سليمان",
)  # fmt: skip
# Rarer names: most are in no list Cloak ships.
RARE_FIRST = ("غيث", "تيم", "رهف", "جود", "سديم", "لجين", "نوفل", "قصي", "ميار", "بيلسان")
RARE_FAMILY = ("الدباغ", "القطان", "الفاخوري", "القباني", "الطرابلسي", "الزيات", "بوزيدي")
PUBLIC_PEOPLE = (
    "محمد بن سلمان", "أبو بكر الصديق", "أم كلثوم", "خالد بن الوليد", "عمر بن الخطاب",
    "فاطمة الزهراء", "نجيب محفوظ", "طه حسين", "جمال عبد الناصر", "عبد الحليم حافظ",
    "فيروز", "محمد صلاح", "نزار قباني", "محمود درويش",
)  # fmt: skip

PLACES = (
    "مصر", "السعودية", "الأردن", "لبنان", "سوريا", "العراق", "المغرب", "الجزائر", "تونس",
    "ليبيا", "السودان", "اليمن", "قطر", "الكويت", "الإمارات", "فلسطين", "فرنسا", "ألمانيا",
    "تركيا", "القاهرة", "الإسكندرية", "الرياض", "جدة", "مكة المكرمة", "مكة", "المدينة المنورة",
    "دبي", "أبوظبي", "بيروت", "عمان", "دمشق", "حلب", "بغداد", "البصرة", "الدار البيضاء",
    "الرباط", "مراكش", "وهران", "الخرطوم", "صنعاء", "الدوحة", "مسقط", "غزة", "القدس",
    "رام الله", "باريس", "لندن", "برلين", "إسطنبول", "نيويورك", "مدريد", "روما", "طوكيو",
)  # fmt: skip
RARE_PLACES = (
    "طولكرم", "ميت غمر", "سيدي بوزيد", "بني ملال", "الزرقاء", "إربد", "المنصورة", "طنطا",
    "صفاقس", "جرش", "الفيوم", "تطوان",
)  # fmt: skip
ORGS = (
    "الأمم المتحدة", "جامعة الدول العربية", "منظمة الصحة العالمية", "اليونسكو", "اليونيسف",
    "الجزيرة", "بي بي سي", "جامعة القاهرة", "جامعة الملك سعود", "الجامعة الأمريكية في بيروت",
    "البنك الدولي", "صندوق النقد الدولي", "الهلال الأحمر", "وزارة الصحة", "وزارة الخارجية",
    "وزارة التربية والتعليم", "أرامكو", "طيران الإمارات", "الاتحاد الأوروبي", "جامعة الأزهر",
    "الأونروا", "رويترز", "النادي الأهلي", "الفيفا", "حلف الناتو",
)  # fmt: skip
RARE_ORGS = (
    "شركة النور للتجارة", "جمعية الأمل الخيرية", "مدرسة الفجر الثانوية", "مكتبة دار الحكمة",
    "مستشفى الرحمة", "شركة الواحة للبرمجيات", "نادي شباب الحي",
)  # fmt: skip

# Spelling variants a writer may use; the gold span covers what is written.
VARIANTS = {
    "أحمد": ("احمد",), "إبراهيم": ("ابراهيم", "إبراهيـم"), "مصطفى": ("مصطفي",),
    "أسامة": ("اسامه", "أسامه"), "فاطمة": ("فاطمه",), "إيمان": ("ايمان",), "أسماء": ("اسماء",),
    "عبد الله": ("عبدالله",), "مكة": ("مكه",), "الإسكندرية": ("الاسكندرية", "الإسكندريه"),
    "إسطنبول": ("اسطنبول",), "أبوظبي": ("أبو ظبي", "ابوظبي"), "عمان": ("عمّان",),
    "محمد": ("مُحَمَّد", "محـمد", "محمّد"), "القاهرة": ("القاهره", "القاهـرة"),
    "الأمم المتحدة": ("الامم المتحدة",), "الأردن": ("الاردن",), "خالد": ("خالـد", "خَالِد"),
    "ليلى": ("ليلي",), "الإمارات": ("الامارات",), "منظمة الصحة العالمية": ("منظمه الصحه العالميه",),
}  # fmt: skip

TEMPLATES = (
    # news-like
    "التقى [[PER]] بوزير الخارجية في [[LOC]] صباح اليوم.",
    "أعلنت [[ORG]] عن برنامج جديد لدعم اللاجئين في [[LOC]].",
    "قال [[PER]] في تصريح [[ل|ORG]] إن المفاوضات مستمرة.",
    "وصل الوفد إلى [[LOC]] [[و|PER]] في مقدمته.",
    "افتتح [[PER]] معرض الكتاب [[ب|LOC]] بحضور ممثلين عن [[ORG]].",
    "نشرت [[ORG]] تقريرا عن الأوضاع الإنسانية [[ب|LOC]].",
    "زار [[PER]] مقر [[ORG]] [[ب|LOC]] أمس.",
    "تستضيف [[LOC]] مؤتمرا دوليا تنظمه [[ORG]] الأسبوع المقبل.",
    "أكد مندوب [[LOC]] [[ل|ORG]] أن بلاده تدعم الحل السلمي.",
    "حصلت [[PER]] على منحة من [[ORG]] للدراسة في [[LOC]].",
    "عاد [[PER]] من [[LOC]] [[و|LOC]] بعد جولة استمرت أسبوعا.",
    "ذكرت [[ORG]] أن [[PER]] سيلقي كلمة أمام الطلاب.",
    "وقعت [[LOC]] [[و|LOC]] اتفاقية للتعاون التجاري.",
    "يعمل [[PER]] باحثا في [[ORG]] منذ عشر سنوات.",
    "غنت [[PER]] في [[LOC]] أمام آلاف المعجبين.",
    "تخرج [[PER]] في [[ORG]] عام ألفين وعشرة.",
    "رحبت [[ORG]] بقرار [[ORG]] الأخير.",
    "انتقلت عائلة [[PER]] من [[LOC]] إلى [[LOC]] في الصيف.",
    "شارك [[PER]] [[و|PER]] في ندوة عن الأدب العربي.",
    "قدمت [[ORG]] مساعدات طبية [[ل|LOC]].",
    # social-media-like
    "صباح الخير من [[LOC]] ☀️ القهوة هنا لا تقاوم",
    "مبروك [[ل|PER]] على التخرج 🎓🎉",
    "شكرا [[PER]] على الهدية الجميلة ❤️",
    "حد يعرف مطعم حلو في [[LOC]]؟ 🙏",
    "اشتقت [[ل|LOC]] كثير 😢",
    "@nour_22 شفت مقابلة [[PER]] على [[ORG]]؟ 😂",
    "رايحين [[LOC]] الشهر الجاي انا [[و|PER]] 🚗",
    "عيد ميلاد سعيد يا [[PER]] 🎂 كل عام وانت بخير",
    "متابعين [[ORG]] من [[LOC]] 👋",
    "اليوم قابلت [[PER]] بالصدفة في المطار ✈️",
    "الزحمة [[ب|LOC]] اليوم مو طبيعية 🙄",
    "تحية [[ل|PER]] [[و|PER]] على المجهود 👏",
    "أخيرا وصلت [[LOC]] بعد رحلة طويلة\r\nالحمد لله على السلامة",
    "ماتش [[ORG]] اليوم نار 🔥🔥",
    "الله يرحمك يا [[PER]] 🤍",
    "نزلت صور الرحلة [[ل|LOC]] على الانستا 📸",
    "قرأت رواية [[ل|PER]] وأعجبتني جدا",
    "هل صحيح أن [[ORG]] أغلقت مكتبها [[ب|LOC]]؟",
    "كلمت [[PER]] امبارح وقال إنه راجع من [[LOC]]",
    "ألف مبروك يا [[PER]] 🌹\r\nتستاهل كل خير",
)
# Sentences with no name, some with words that are also first names (أمل، سعيد، كريم، نور،
# جميلة): what a lexicon proposes there is a false positive.
PLAIN = (
    "الجو اليوم جميل جدا والشمس مشرقة.",
    "عندي أمل كبير أن تتحسن الأمور قريبا 🙏",
    "كان يوما سعيدا مع الأصدقاء والعائلة.",
    "الرجل كريم جدا مع جيرانه.",
    "نور الشمس يدخل من النافذة كل صباح ☀️",
    "رأيت زهرة جميلة في الحديقة.",
    "ارتفعت أسعار الخبز والوقود هذا الشهر.",
    "المباراة انتهت بالتعادل بدون أهداف.",
    "أنا تعبان اليوم ومش رايح الشغل 😴",
    "الامتحانات الأسبوع الجاي والكل متوتر",
    "قرر المجلس تأجيل الاجتماع إلى موعد لاحق.",
    "سعيد بلقائكم جميعا في هذا الحفل.",
    "الأمل موجود دائما مهما صعبت الظروف.",
    "كل عام وأنتم بخير بمناسبة العيد 🌙",
)

_SLOT = re.compile(r"\[\[(?:([^|\]]*)\|)?([^\]]+)\]\]")
_ARTICLE = "ال"


def _person(rng: random.Random) -> str:
    roll = rng.random()
    male = rng.random() < 0.6
    first = rng.choice(FIRST_MALE if male else FIRST_FEMALE)
    if roll < 0.15:
        return rng.choice(PUBLIC_PEOPLE)
    if roll < 0.3:
        return (
            f"{first} {rng.choice(RARE_FAMILY)}"
            if rng.random() < 0.5
            else (f"{rng.choice(RARE_FIRST)} {rng.choice(FAMILY + RARE_FAMILY)}")
        )
    if roll < 0.45:
        particle = "بن" if male else "بنت"
        return f"{first} {particle} {rng.choice(FIRST_MALE)} {rng.choice(FAMILY)}"
    if roll < 0.55:
        return f"{'أبو' if rng.random() < 0.6 else 'أم'} {rng.choice(FIRST_MALE)}"
    if roll < 0.65:
        return f"{first} {rng.choice(FIRST_MALE)} {rng.choice(FAMILY)}"
    if roll < 0.72:
        return first  # a first name alone, as people write to friends
    return f"{first} {rng.choice(FAMILY)}"


def _vary(name: str, rng: random.Random) -> str:
    words = name.split(" ")
    for index, word in enumerate(words):
        if word in VARIANTS and rng.random() < 0.45:
            words[index] = rng.choice(VARIANTS[word])
    varied = " ".join(words)
    if varied in VARIANTS and rng.random() < 0.45:
        varied = rng.choice(VARIANTS[varied])
    return varied


def _fill(label: str, rng: random.Random) -> str:
    if label == "PER":
        name = _person(rng)
    elif label == "LOC":
        name = rng.choice(RARE_PLACES) if rng.random() < 0.2 else rng.choice(PLACES)
    elif label == "ORG":
        name = rng.choice(RARE_ORGS) if rng.random() < 0.2 else rng.choice(ORGS)
    else:
        raise ValueError(f"unknown slot label {label!r}")
    return _vary(name, rng)


def render(template: str, rng: random.Random) -> tuple[str, list[dict[str, object]]]:
    """The text of `template` with its slots filled, and the gold spans (code points)."""
    text = ""
    spans: list[dict[str, object]] = []
    position = 0
    for match in _SLOT.finditer(template):
        text += template[position : match.start()]
        position = match.end()
        proclitic, label = match.group(1) or "", match.group(2)
        name = _fill(label, rng)
        if proclitic.endswith("ل") and name.startswith(_ARTICLE):
            name = name[1:]  # ل + القاهرة → للقاهرة; the span is the written لقاهرة
        text += proclitic
        start = len(text)
        text += name
        spans.append({"start": start, "end": len(text), "label": label, "text": name})
    text += template[position:]
    return text, spans


def build() -> list[dict[str, object]]:
    rng = random.Random(SEED)
    records: list[dict[str, object]] = []
    plain = iter(PLAIN)
    for number in range(1, COUNT + 1):
        if number % 12 == 0 and (sentence := next(plain, None)) is not None:
            text, spans = sentence, list[dict[str, object]]()
        else:
            text, spans = render(TEMPLATES[(number - 1) % len(TEMPLATES)], rng)
        records.append({"id": f"ar-{number:03d}", "lang": "ar", "text": text, "spans": spans})
    return records


def main() -> None:
    with OUT.open("w", encoding="utf-8", newline="\n") as handle:
        for record in build():
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
