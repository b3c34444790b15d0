"""Writes the Arabic lexicons in `data/` (run by hand, once; the files are committed).

    python -m pseudonymizer.recognizers.lexicons.build      # needs Faker (the `ml` extra)

Sources, merged, deduplicated and sorted (UTF-8, one entry a line, `#` comments):

- `ar_first_male.txt`, `ar_first_female.txt`, `ar_family.txt`: Faker's Arabic person
  providers (`faker.providers.person.ar_AA`, `ar_DZ`, `ar_PS`, `ar_SA`: first names by sex and
  last names; Faker is MIT-licensed), plus the common given and family names below, written
  for Cloak from general knowledge of names frequent across the Arab world.
- `ar_places.txt`: the Arab League's members, other countries often named in Arabic news,
  their capitals and large cities, in the spelling of Arabic Wikipedia's article titles
  (written for Cloak), plus Algeria's wilayas and communes from `faker.providers.address.ar_DZ`
  (less those whose name is also a given name: "بشار", "جميلة").
- `ar_organisations.txt`: international bodies, Arab and international media, universities,
  companies and sports bodies often named in Arabic news, written for Cloak.

Nothing reads Faker at run time: the recognizer reads only the files, so its lists do not
change with Faker's version. Spelling variants need no
entries of their own: the matcher folds hamza forms, alef maqsura, tatweel and harakat
(`pseudonymizer.recognizers.known`), and the recognizer adds the final ه spelling of a final ة.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

COMMON_MALE = """
محمد أحمد محمود مصطفى علي عمر عثمان خالد يوسف إبراهيم إسماعيل حسن حسين عبد_الله عبد_الرحمن
عبد_العزيز عبد_الكريم عبد_الرحيم عبد_الحليم عبد_الناصر عبد_القادر عبد_المجيد سلمان سليمان
بكر هشام طه جمال نجيب نزار محمود صلاح صلاح_الدين نور_الدين عز_الدين خير_الدين سامي طارق ياسر
وليد ماجد حمزة أسامة زياد فيصل فهد سعود تركي نايف بندر راشد حمد جاسم عيسى موسى هارون داود
سليم رامي باسل بشار مازن معاذ أنس بلال حمدي مجدي شادي عمرو منصور قاسم ناصر رياض كمال
""".split()
COMMON_FEMALE = """
فاطمة عائشة خديجة مريم زينب ليلى سارة هدى رانيا سلمى دينا منى ريم نادية إيمان أسماء هند
رقية سمية آمنة حليمة كلثوم زهراء نوال سعاد هالة رشا دعاء آية شيماء ياسمين لينا رنا سحر
فيروز نجلاء عبير غادة وفاء سوسن هيفاء لمى جنى تسنيم
""".split()
# Compound names are written with "_" for the space between their words.
COMMON_FAMILY = """
الهاشمي العتيبي الشمري المصري الخطيب حداد منصور القحطاني الزعبي النجار الحسيني البرغوثي
التميمي الدوسري العلي سليمان الحربي الغامدي الزهراني المطيري العنزي السبيعي الشهري المالكي
الخالدي الجبوري الدليمي العبيدي الكعبي المنصوري الشامسي البلوشي الأنصاري الأيوبي البغدادي
الحلبي الشامي الدمشقي الصالح العمر الأحمد الحسن الحسين الموسى الخوري حداد صباغ عطية
عبد_الله عبد_الرحمن عبد_العزيز الصديق الخطاب الوليد محفوظ حافظ درويش قباني عبد_الناصر صلاح
""".split()

# Arab League members, other countries, capitals and large cities (Arabic Wikipedia titles).
PLACES = """
مصر|السعودية|المملكة العربية السعودية|الأردن|لبنان|سوريا|سورية|العراق|المغرب|الجزائر|تونس|ليبيا
السودان|جنوب السودان|اليمن|قطر|الكويت|البحرين|عمان|سلطنة عمان|الإمارات|الإمارات العربية المتحدة
فلسطين|موريتانيا|الصومال|جيبوتي|جزر القمر|فرنسا|ألمانيا|بريطانيا|المملكة المتحدة|إنجلترا
إسبانيا|إيطاليا|تركيا|إيران|روسيا|الصين|اليابان|الهند|باكستان|أفغانستان|إندونيسيا|ماليزيا
الولايات المتحدة|أمريكا|أميركا|كندا|البرازيل|الأرجنتين|المكسيك|نيجيريا|إثيوبيا|كينيا|السنغال
النيجر|تشاد|بلجيكا|هولندا|سويسرا|السويد|النرويج|اليونان|قبرص|أوكرانيا|بولندا|النمسا|القاهرة
الإسكندرية|الجيزة|أسوان|الأقصر|بورسعيد|السويس|الرياض|جدة|مكة|مكة المكرمة|المدينة المنورة|الدمام
الطائف|تبوك|أبها|دبي|أبوظبي|أبو ظبي|الشارقة|عجمان|بيروت|طرابلس|صيدا|عمان|دمشق|حلب|حمص|حماة
اللاذقية|بغداد|البصرة|الموصل|أربيل|النجف|كربلاء|الدار البيضاء|الرباط|مراكش|فاس|طنجة|أكادير
مكناس|الجزائر العاصمة|وهران|قسنطينة|عنابة|تونس العاصمة|صفاقس|سوسة|بنغازي|مصراتة|الخرطوم
أم درمان|صنعاء|عدن|تعز|الدوحة|الكويت العاصمة|المنامة|مسقط|صلالة|غزة|القدس|رام الله|نابلس|الخليل
جنين|بيت لحم|نواكشوط|مقديشو|باريس|لندن|برلين|مدريد|روما|بروكسل|أمستردام|جنيف|فيينا|موسكو
إسطنبول|أنقرة|طهران|بكين|طوكيو|نيودلهي|واشنطن|نيويورك|لوس أنجلوس|تورونتو|مونتريال|سيدني|ملبورن
مرسيليا|ليون|ميونخ|ميلانو|برشلونة|أثينا|ستوكهولم|كوالالمبور|جاكرتا|كراتشي|إسلام آباد|كابول
أديس أبابا|نيروبي|داكار|لاغوس
""".replace("\n", "|").split("|")

ORGANISATIONS = """
الأمم المتحدة|منظمة الأمم المتحدة|مجلس الأمن|الجمعية العامة للأمم المتحدة|جامعة الدول العربية
الجامعة العربية|منظمة الصحة العالمية|اليونسكو|اليونيسف|الأونروا|المفوضية السامية لشؤون اللاجئين
برنامج الأغذية العالمي|منظمة العفو الدولية|هيومن رايتس ووتش|الصليب الأحمر
اللجنة الدولية للصليب الأحمر|الهلال الأحمر|الهلال الأحمر المصري|البنك الدولي|صندوق النقد الدولي
منظمة التجارة العالمية|الاتحاد الأوروبي|الاتحاد الأفريقي|الاتحاد الإفريقي|حلف الناتو
حلف شمال الأطلسي|الناتو|مجلس التعاون الخليجي|منظمة التعاون الإسلامي|أوبك|منظمة أوبك
محكمة العدل الدولية|المحكمة الجنائية الدولية|الجزيرة|قناة الجزيرة|الجزيرة نت|قناة العربية
بي بي سي|بي بي سي عربي|سكاي نيوز عربية|فرانس 24|رويترز|وكالة الأنباء الفرنسية|أسوشيتد برس
سي إن إن|الأهرام|جريدة الشرق الأوسط|جريدة النهار|القدس العربي|وكالة الأنباء السعودية
جامعة القاهرة|جامعة الأزهر|جامعة عين شمس|جامعة الإسكندرية|جامعة الملك سعود
جامعة الملك عبد_العزيز|جامعة الملك عبدالعزيز|الجامعة الأمريكية في بيروت
الجامعة الأمريكية بالقاهرة|الجامعة الأردنية|جامعة دمشق|جامعة بغداد|جامعة الكويت|جامعة قطر
جامعة محمد الخامس|جامعة السوربون|جامعة هارفارد|جامعة أكسفورد|جامعة كامبريدج|وزارة الصحة
وزارة الخارجية|وزارة الداخلية|وزارة الدفاع|وزارة التربية والتعليم|وزارة التعليم
وزارة التعليم العالي|وزارة العدل|وزارة المالية|وزارة الاقتصاد|وزارة الثقافة|وزارة الإعلام
وزارة الأوقاف|أرامكو|أرامكو السعودية|سابك|طيران الإمارات|الخطوط الجوية القطرية|مصر للطيران
الخطوط السعودية|موبايلي|فودافون|أورنج|جوجل|غوغل|فيسبوك|مايكروسوفت|أمازون|تويتر|يوتيوب
النادي الأهلي|الزمالك|نادي الزمالك|نادي الهلال|نادي النصر|نادي الاتحاد|الوداد البيضاوي
الرجاء البيضاوي|الترجي التونسي|ريال مدريد|برشلونة|الفيفا|الاتحاد الدولي لكرة القدم
اللجنة الأولمبية الدولية|البنك المركزي المصري|البنك الأهلي|مؤسسة النقد العربي السعودي
""".replace("\n", "|").split("|")


def _entries(values: Iterable[str]) -> list[str]:
    return sorted({value.replace("_", " ").strip() for value in values if value.strip()})


def _write(name: str, header: str, values: Iterable[str]) -> None:
    entries = _entries(values)
    lines = [f"# {line}" if line else "#" for line in header.strip().splitlines()]
    (DATA / name).write_text("\n".join([*lines, *entries]) + "\n", encoding="utf-8")


def _is_name(place: str, names: Iterable[str]) -> bool:
    """Whether a commune's name is also a given name ("بشار", "جميلة"): left out of the
    places, where it would hide a person (and "جميلة" is also "beautiful")."""
    from pseudonymizer.folding import fold

    return fold(place).strip() in {fold(name.replace("_", " ")).strip() for name in names}


def main() -> None:
    from faker.providers.address import ar_DZ as address_dz
    from faker.providers.person import ar_AA, ar_DZ, ar_PS, ar_SA

    DATA.mkdir(exist_ok=True)
    names = {
        *ar_AA.Provider.first_names_male,
        *ar_AA.Provider.first_names_female,
        *ar_DZ.Provider.first_names_male,
        *ar_DZ.Provider.first_names_female,
        *COMMON_MALE,
        *COMMON_FEMALE,
    }
    algerian = [*address_dz.Provider.wilayas, *address_dz.Provider.cities]
    note = "Generated by pseudonymizer/recognizers/lexicons/build.py: edit that, not this file."
    faker = "Faker (MIT): faker.providers.person.{}; common names written for Cloak."
    _write(
        "ar_first_male.txt",
        f"Arabic male given names.\n{faker.format('ar_AA, ar_DZ')}\n{note}",
        [*ar_AA.Provider.first_names_male, *ar_DZ.Provider.first_names_male, *COMMON_MALE],
    )
    _write(
        "ar_first_female.txt",
        f"Arabic female given names.\n{faker.format('ar_AA, ar_DZ')}\n{note}",
        [*ar_AA.Provider.first_names_female, *ar_DZ.Provider.first_names_female, *COMMON_FEMALE],
    )
    _write(
        "ar_family.txt",
        f"Arabic family names.\n{faker.format('ar_AA, ar_DZ, ar_PS, ar_SA')}\n{note}",
        [
            *ar_AA.Provider.last_names,
            *ar_DZ.Provider.last_names,
            *ar_PS.Provider.last_names,
            *ar_SA.Provider.last_names,
            *COMMON_FAMILY,
        ],
    )
    _write(
        "ar_places.txt",
        "Countries, capitals and large cities in Arabic (Arabic Wikipedia titles, written for\n"
        "Cloak); Algeria's wilayas and communes from Faker (MIT): "
        f"faker.providers.address.ar_DZ.\n{note}",
        [*PLACES, *(place for place in algerian if not _is_name(place, names))],
    )
    _write(
        "ar_organisations.txt",
        "International bodies, media, universities, ministries, companies and sports bodies\n"
        f"often named in Arabic news, written for Cloak.\n{note}",
        ORGANISATIONS,
    )


if __name__ == "__main__":
    main()
