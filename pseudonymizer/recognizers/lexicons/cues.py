"""People named after a cue in Arabic texts: a title or a verb of saying.

A foreign person's name written in Arabic letters ("ليونيل ميسي", "إيمانويل ماكرون") is in no
list, and Arabic has no capitals to tell a name from a word. What often tells it is what
comes before it:

- a title or an occupation with the article: "الرئيس", "اللاعب", "الكاتبة", "الدكتور";
- a title in a construct with its domain: "وزير الخارجية", "رئيس الوزراء", "ملك الأردن";
- a verb of saying, whose subject follows it in Arabic: "قال", "وأكدت", "صرح";
- weak cues, where the name ends at its last word that is a listed name or a word no
  frequency table holds (`unknown`), and is none without one: a verb of a life ("ولد",
  "أسس", "فاز", "تخرج", "هاجر", "توفي"), a kinsman or follower ("ابنه", "زوجته",
  "تلميذه"), who led or reigned ("بقيادة", "في عهد"), and a country's or people's
  adjective used as a noun, masculine (the feminine is as often the country: "السعودية")
  ("الألماني مايكل شوماخر").
- a nisba alone after any cue ("قال الطبري", "الإمام البخاري"): a word ال…ي that no
  frequency table holds (`unknown`) is the whole name.

Between the cue and the name may stand a country's adjective, a qualifier ("الرئيس
الأمريكي السابق باراك أوباما") or a listed organisation or place ("الأمين العام للأمم
المتحدة كوفي أنان"). The name is then the words that follow, each without the
article (but a family name ال…ي last: "عبد الفتاح السيسي", or a word after عبد) and none a
function word, a cue or a qualifier, up to the first punctuation: two words no list holds
(a given name and a family name) at most, up to five when the others are listed names or
particles (بن، أبو), never ending on a particle. The cue itself is not part of the
span (a pseudonym replaces the name; the title stays). After a title the span scores
`TITLE_SCORE`; after a verb of saying, whose subject is as often "مصدر" (a source) or
"مسؤول" (an official) as a name, `SAYING_SCORE`, and never a word of `_SUBJECTS`.

`cued_names` works on the words the lexicon recognizer reads (start, end, folded form, as
written) and knows nothing of its lists but what it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Protocol

from pseudonymizer.folding import fold
from pseudonymizer.recognizers.lexicons.words import ARTICLE as _ARTICLE
from pseudonymizer.recognizers.lexicons.words import bare_forms

TITLE_SCORE = 0.7
SAYING_SCORE = 0.5
# Words of a name no list holds: a given name and a family name. A listed name, a particle
# (بن، أبو) or a family name with the article carries it further, up to MAX_NAME_WORDS.
MAX_UNLISTED_WORDS = 2
MAX_NAME_WORDS = 5
MAX_QUALIFIERS = 3


def _folded(words: str) -> frozenset[str]:
    return frozenset(fold(word) for word in words.split())


# Titles and occupations that name the person who follows them (with the article).
TITLES = _folded(
    """
    الرئيس الرئيسة الملك الملكة الأمير الأميرة الشيخ الشيخة السيد السيدة الآنسة الدكتور
    الدكتورة الأستاذ الأستاذة المهندس المهندسة الحاج الحاجة الإمام القاضي القاضية المحامي
    المحامية الوزير الوزيرة النائب النائبة اللاعب اللاعبة المدرب المدربة الكاتب الكاتبة
    الروائي الروائية الشاعر الشاعرة الفنان الفنانة المغني المغنية المطرب المطربة الممثل
    الممثلة المخرج المخرجة الباحث الباحثة الفيزيائي الكيميائي الفيلسوف المؤرخ الجنرال
    العقيد المشير القائد البابا الكاردينال الصحفي الصحفية المراسل المراسلة الخليفة السلطان
    الزعيم المستشار المستشارة المبرمج المبرمجة المطور المؤلف المؤلفة الملحن الرسام الرسامة
    النجم النجمة الحارس المهاجم المدافع البطل البطلة العداء العداءة الملاكم المصارع
    الناشط الناشطة المعارض المعارضة المفكر الأديب الأديبة الداعية العلامة الفقيه المغرد
    المدون المدونة الطبيب الطبيبة الجراح البروفيسور البروفسور المخترع المستكشف الرحالة
    القديس الراهب الحاخام الموسيقار المصور المصورة الأمين الأمينة
    الإمبراطور الإمبراطورة القيصر الفرعون الخديوي الشاه الوالي الصحابي الصحابية التابعي
    المطران الأسقف البطريرك النبي الملا اللواء النقيب المستشرق الجغرافي اللغوي النحوي
    المحدث المفسر المتصوف الفلكي الرياضياتي المؤرخة الفيلسوفة
    """
)
# Titles in a construct: the title, then its domain with the article, then the name.
CONSTRUCT_TITLES = _folded(
    """
    رئيس رئيسة وزير وزيرة سفير سفيرة مدير مديرة محافظ أمين قائد مدرب نائب وكيل مستشار
    ملك ملكة أمير أميرة شيخ سلطان مفتي مرشد حاكم عمدة زعيم متحدث
    عالم عالمة إمبراطور والي قاضي
    """
)
# Verbs of saying (past and present, either gender): their subject follows them. Not those
# that are as often a noun: ذكر (male), كتب (books), طالب (a student), وصف, حذر.
SAYING = _folded(
    """
    قال قالت يقول تقول صرح صرحت أكد أكدت يؤكد تؤكد أضاف أضافت أوضح أوضحت أعلن أعلنت ذكرت
    أشار أشارت كتبت أفاد أفادت اعتبر اعتبرت رأى رأت وصفت روى روت نفى نفت طالبت دعا دعت حذرت
    غرد غردت
    """
)
# Verbs of a life whose subject follows them ("ولد ألبرت أينشتاين", "أسس ريتشارد ستالمان"),
# weak cues: their subject is as often a word ("فاز الفريق", "لعب دورا"), so the name must
# hold a listed name or a word no frequency table holds (`unknown`). Not ألف (also "a
# thousand": "ألف مبروك") or حكم (a ruling, a referee).
LIFE_VERBS = _folded(
    """
    ولد ولدت توفي توفيت درس درست انضم انضمت فاز فازت لعب لعبت أسس أسست اخترع اخترعت اكتشف
    اكتشفت نشر نشرت اقترح اقترحت طور طورت صمم صممت قاد قادت غادر غادرت زار زارت
    التقى التقت استقبل استقبلت اتهم اتهمت يتهم تتهم شن هاجم هاجمت انتقد انتقدت سجل سجلت
    عاش عاشت تزوج تزوجت يسمى يدعى تدعى تسمى
    تخرج تخرجت نشأ نشأت هاجر هاجرت انتقل انتقلت رحل استشهد اغتيل اغتيلت قتل قتلت تولى تولت
    انتخب انتخبت كتب حصل حصلت ترجم
    """
)
# Kin and followers, and who led or reigned, whose name follows them ("ابنه عبد الله",
# "زوجته ماري", "بقيادة خالد بن الوليد", "في عهد هارون الرشيد"): weak cues as well.
KIN = _folded(
    """
    ابنه ابنته ابنها ابنتها زوجته زوجها والده والدته أبوه أمه شقيقه شقيقته شقيقها أخوه أخته
    أخيه جده جدته حفيده حفيدته عمه خاله تلميذه تلاميذه أستاذه خليفته قيادة زعامة رئاسة عهد
    """
)
WEAK_SCORE = 0.5
# What stands between a cue and the name: qualifiers of the title.
QUALIFIERS = _folded(
    """
    السابق السابقة الأسبق الراحل الراحلة الحالي الحالية الجديد الجديدة الشهير الشهيرة
    المخضرم المخضرمة الأسطوري المعروف المعروفة البارز البارزة الشاب الشابة العالمي
    العالمية الدولي الدولية المنتخب المنتخبة المؤقت المكلف المقبل المستقيل الأعلى الأول
    العام العامة التنفيذي التنفيذية
    """
)
# Subjects of a verb of saying that name no one.
_SUBJECTS = _folded(
    """
    مصدر مصادر مسؤول مسؤولون مسؤولين بيان تقرير شهود ناشطون ناشطين مراسل متحدث خبراء محللون
    مراقبون سكان مواطنون مواطن شاهد طبيب أطباء مسعفون عناصر مقاتلون جنود ضابط مصدرا مسؤولا
    مندوب مندوبة ممثل ممثلة عضو أعضاء ناطق ناطقة باحث باحثون صحفي صحفيون موظف موظفون طلاب
    طالب معلم معلمون رجل امرأة شاب شابة أحد بعض كثيرون الجميع
    """
)
# Function words, pronouns, and words of time that never begin or continue a name.
_FUNCTION = _folded(
    """
    في من إلى الى على علي عن مع أن إن ان لا ما لم لن قد كان كانت يكون تكون هو هي هم هن نحن
    أنا انا أنت انت هذا هذه ذلك تلك هناك هنا الذي التي الذين بعد قبل عند عندما حين حتى ثم
    أو او أم بل لكن لكنه كل بين خلال منذ أمام امام وراء فوق تحت حول ضد دون غير أي اي إذا
    اذا لو كما أيضا ايضا يوم عام سنة مساء صباح له لها لهم به بها فيه فيها عنه عنها منه منها
    إنه انه إنها انها أنه أنها لقد وقد فقد ليس ليست كيف متى لماذا أين اين نحو عبر لدى سوى
    مثل أكثر اكثر أقل جدا فقط الآن الان
    """
)


# Particles inside a name: "بن", "أبو" (folded).
_PARTICLES = _folded("بن ابن بنت أبو أم آل")


class Word(Protocol):
    """A word of the text as the lexicon recognizer reads it."""

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...

    @property
    def key(self) -> str: ...  # folded

    @property
    def written(self) -> str: ...  # as written, harakat and tatweel removed


def article(word: Word) -> bool:
    """Whether `word` begins with the article as written: "ال", not "أل" ("ألبرت", "ألونسو"
    fold to a form that begins like the article, and are names)."""
    return word.key.startswith(_ARTICLE) and word.written.startswith("\u0627\u0644")


def is_stop(key: str, adjectives: Collection[str]) -> bool:
    return (
        key in _FUNCTION
        or key in TITLES
        or key in SAYING
        or key in QUALIFIERS
        or key in KIN
        or key in adjectives
        or _ARTICLE + key in adjectives  # "مصري": an adjective, without the article
        or len(key) < 2
    )


def cued_names(
    text: str,
    words: Sequence[Word],
    joined: Callable[[int], bool],
    *,
    adjectives: Collection[str] = frozenset(),
    names: Collection[str] = frozenset(),
    blocked: Collection[int] = frozenset(),
    unknown: Callable[[int], bool] = lambda index: False,
    nisba: Callable[[int], bool] | None = None,
) -> list[tuple[int, int, float]]:
    """(start, end, score) of each name a cue announces in `text`, read from `words` (in
    order); `joined(i)` says whether word i follows word i - 1 with spaces only.
    `adjectives` are the countries' and peoples' adjectives that may stand between a cue
    and its name; `names` are listed given and family names (folded): "ال" + one of them is
    a family name a name may end with ("الهاشمي"); no word of `blocked` (indexes of words a
    listed place or organisation covers) is part of a name. After a weak cue a word of the
    name is a listed name or one `unknown(i)` says no frequency table holds. A word with the
    article that `nisba(i)` accepts is a whole name after any cue ("قال الطبري")."""
    found: list[tuple[int, int, float]] = []
    index = 0
    while index < len(words):
        cue = _cue_at(text, words, joined, index, adjectives)
        if cue is None:
            index += 1
            continue
        after, score, weak = cue
        first = after
        qualifiers = 0
        while first < len(words) and qualifiers < MAX_QUALIFIERS and joined(first):
            if words[first].key in QUALIFIERS or words[first].key in adjectives:
                first += 1
            elif first in blocked and first + 1 < len(words):
                # A listed organisation or place the title belongs to ("الأمين العام للأمم
                # المتحدة كوفي أنان"): the name follows it.
                while first in blocked and first + 1 < len(words):
                    first += 1
            else:
                break
            qualifiers += 1
        last = _name_end(
            words, joined, first, adjectives, names, blocked, saying=score == SAYING_SCORE,
            nisba=nisba,
        )  # fmt: skip
        if last is not None and weak:
            last = _weak_name_end(words, first, last, names, unknown)
        if last is None:
            index = max(index + 1, first)
            continue
        found.append((words[first].start, words[last].end, score))
        index = last + 1
    return found


def _weak_name_end(
    words: Sequence[Word],
    first: int,
    last: int,
    names: Collection[str],
    unknown: Callable[[int], bool],
) -> int | None:
    """The end of a name a weak cue announces (words `first` to `last` read as a name): its
    last word that is a listed name or one `unknown` says no frequency table holds, or None
    when none is ("لعب دورا كبيرا"). What follows that word is no part of the name: "زار
    أيمن سليمان مقر النادي" names "أيمن سليمان", "الألماني مايكل شوماخر" the two words."""
    for end in range(last, first - 1, -1):
        if words[end].key in names or unknown(end):
            return end
    return None


def _cue_at(
    text: str,
    words: Sequence[Word],
    joined: Callable[[int], bool],
    index: int,
    adjectives: Collection[str] = frozenset(),
) -> tuple[int, float, bool] | None:
    """Where the words after a cue at word `index` begin, the score of what they name, and
    whether the cue is a weak one."""
    word = words[index]
    forms = bare_forms(text, word.start, word.end, word.key, elided=True)
    for key, _ in forms:
        if key in TITLES:
            return index + 1, TITLE_SCORE, False
        if key in SAYING:
            return index + 1, SAYING_SCORE, False
        if (
            key in CONSTRUCT_TITLES
            and index + 1 < len(words)
            and joined(index + 1)
            and words[index + 1].key.startswith(_ARTICLE)
        ):
            return index + 2, TITLE_SCORE, False
    for key, _ in forms:
        # A feminine adjective is as often a country ("السعودية"): only the masculine cues.
        adjective = key.startswith(_ARTICLE) and key in adjectives and not key.endswith("ه")
        if key in LIFE_VERBS or key in KIN or adjective:
            return index + 1, WEAK_SCORE, True
    return None


def _name_end(
    words: Sequence[Word],
    joined: Callable[[int], bool],
    first: int,
    adjectives: Collection[str],
    names: Collection[str],
    blocked: Collection[int],
    *,
    saying: bool,
    nisba: Callable[[int], bool] | None = None,
) -> int | None:
    """The last word of the name that begins at word `first`, or None when none does."""
    if first >= len(words) or not joined(first) or first in blocked:
        return None
    head = words[first].key
    if article(words[first]) and nisba is not None and nisba(first):
        return first  # "قال الطبري", "الإمام البخاري"
    if article(words[first]) or is_stop(head, adjectives):
        return None
    if saying and head in _SUBJECTS:
        return None
    if (
        head in CONSTRUCT_TITLES
        and first + 1 < len(words)
        and joined(first + 1)
        and words[first + 1].key.startswith(_ARTICLE)
    ):
        return None  # a title of its own ("وزير الخارجية"): the name comes after it
    last = first
    unlisted = int(head not in names)
    while last + 1 < len(words) and last + 1 - first < MAX_NAME_WORDS and joined(last + 1):
        if last + 1 in blocked:
            break
        key = words[last + 1].key
        if key in _PARTICLES and last + 2 < len(words) and joined(last + 2):
            last += 1
            continue
        if article(words[last + 1]):
            # "عبد الرحمن": the article after عبد; a family name last ("السيسي", "الهاشمي").
            stem = key[len(_ARTICLE) :]
            if words[last].key == "عبد" or (len(key) >= 5 and key.endswith("ي")) or stem in names:
                last += 1
                if words[last - 1].key != "عبد":
                    break
                continue
            break
        if is_stop(key, adjectives):
            break
        if key in _PARTICLES or words[last].key in _PARTICLES or key in names:
            last += 1
            continue
        if unlisted >= MAX_UNLISTED_WORDS:
            break
        unlisted += 1
        last += 1
    while words[last].key in _PARTICLES:  # a particle ends no name
        last -= 1
    return last
