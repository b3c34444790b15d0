"""Writes the Arabic lexicons in `data/` (run by hand, once; the files are committed).

    python -m pseudonymizer.recognizers.lexicons.build      # needs Faker and Babel (`ml`)

Sources, merged, deduplicated and sorted (UTF-8, one entry a line, `#` comments):

- `ar_first_male.txt`, `ar_first_female.txt`, `ar_family.txt`: Faker's Arabic person
  providers (`faker.providers.person.ar_AA`, `ar_DZ`, `ar_PS`, `ar_SA`: first names by sex and
  last names; Faker is MIT-licensed), plus the common given and family names below, written
  for Cloak from general knowledge of names frequent across the Arab world.
- `ar_places.txt`: the Arabic names CLDR gives every territory, continent and world region
  (295, less the world itself, the unknown region, the test locales and the unions, which
  are organisations) and the exemplar city of every time zone (about 420), read from the
  `babel` package's copy of CLDR (Unicode licence), parts in brackets or after a comma
  apart ("ميانمار (بورما)" → "ميانمار", "بورما"); the Arab League's members, other countries,
  their capitals and large cities, in the spelling of Arabic Wikipedia's article titles, and
  historical and geographical regions (written for Cloak: what CLDR lacks); Algeria's wilayas
  and communes from `faker.providers.address.ar_DZ`. Places whose name is also a given name
  ("بشار", "جميلة") or an everyday word ("العيون" eyes, "نوم" sleep) are left out.
- `ar_nationalities.txt`: the adjectives of the countries and regions among the places
  (CLDR's territories and the countries written for Cloak): "مصر" → "المصري", "المصرية";
  "السعودية" → "السعودي"; "ألمانيا" → "الألماني"; plus those of peoples and regions written
  for Cloak ("العربي", "الأوروبي"). An organisation named by a head word and one of them
  ("المنتخب المصري", "الجامعة الأمريكية") is found with them.
- `ar_organisations.txt`: international bodies, Arab and international media, universities,
  companies and sports bodies often named in Arabic news, written for Cloak.
- `ar_common_words.txt`: the 20,000 most frequent Arabic words (Wikipedia, subtitles, news,
  the web and social media, as the `wordfreq` package counts them; its data is CC BY-SA 4.0),
  folded, less those the name, place and organisation lists hold. A word after a head
  ("قرية", "جامعة") that is none of them is read as the name it introduces; one of them
  ("مدينة كبيرة", a big city) is not.

Nothing reads Faker, Babel or wordfreq at run time: the recognizer reads only the files, so
its lists do not change with their versions. Spelling variants need no entries of their own:
the matcher folds hamza forms, alef maqsura, tatweel and harakat
(`pseudonymizer.recognizers.known`), and the recognizer adds the final ه spelling of a final ة.
"""

from __future__ import annotations

import re
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
# Organisations above that are also everyday words are worth their false alarms: Hamas
# (حماس, also "enthusiasm") and al-Qaeda (القاعدة, also "the base") are named constantly in
# the corpora Cloak serves; "فتح" (opened) only with its حركة. Never alone: "العربية"
# (Arabic; the channel is "قناة العربية"), "ميلان" (a leaning), "نيسان" (April).
# Faker's given names that are common nouns far more often than names: "رئيس" (president),
# "نظام" (system), "لقاء" (meeting)... (on ANERcorp, رئيس alone was proposed 200 times).
NOT_GIVEN_NAMES = frozenset("رئيس صاحب لقاء نظام قائد قادة سفير نادي".split())
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
أديس أبابا|نيروبي|داكار|لاغوس|مانشستر|ليفربول|برمنغهام|غلاسكو|إدنبرة|هامبورغ|فرانكفورت|كولونيا
شتوتغارت|دوسلدورف|نابولي|تورينو|فلورنسا|باليرمو|إشبيلية|فالنسيا|غرناطة|قرطبة|بلنسية|نيس|بوردو
تولوز|ستراسبورغ|نانت|مونبلييه|لييج|أنتويرب|روتردام|لاهاي|زيورخ|بازل|سان فرانسيسكو|بوسطن|ميامي
هيوستن|دالاس|أتلانتا|سياتل|فيلادلفيا|لاس فيغاس|ديترويت|شيكاغو|مومباي|بومباي|كلكتا|بنغالور
حيدر آباد|تشيناي|مدراس|لاهور|بيشاور|سيول|أوساكا|كيوتو|هيروشيما|شنغهاي|هونغ كونغ|سانت بطرسبرغ
ستالينغراد|فولغوغراد|إزمير|أنطاليا|قونية|تبريز|أصفهان|شيراز|الأحواز|دمياط|المنصورة|طنطا
الزقازيق|أسيوط|المنيا|سوهاج|الفيوم|الإسماعيلية|العريش|شرم الشيخ|الغردقة|بني سويف|الكرك|إربد|جرش
مادبا|السلط|دير الزور|الرقة|إدلب|درعا|السويداء|طرطوس|القامشلي|الحسكة|كركوك|السليمانية|دهوك
الفلوجة|تكريت|سامراء|الناصرية|الكوت|الديوانية|بعقوبة|زحلة|بعلبك|جونية|النبطية|جبيل|خان يونس|رفح
دير البلح|بيت حانون|طولكرم|قلقيلية|أريحا|حيفا|يافا|عكا|الناصرة|تل أبيب|بئر السبع|إيلات|المكلا
الحديدة|ذمار|صعدة|حضرموت|المكلا|نزوى|صحار|الجهراء|المحرق|الرفاع|رأس الخيمة|الفجيرة|أم القيوين
بريدة|نجران|جازان|الظهران|الأحساء|القطيف|خميس مشيط|الجبيل|القيروان|بنزرت|قابس|المنستير|نابل
سطيف|باتنة|تلمسان|بجاية|بسكرة|تيزي وزو|وجدة|تطوان|القنيطرة|العيون الساقية الحمراء|درنة|طبرق
بورتسودان|كسلا|نيالا|الفاشر|واد مدني|هرجيسا|كيسمايو
""".replace("\n", "|").split("|")

# Historical and geographical regions, seas, rivers and mountains often named in Arabic
# texts, which CLDR's territories and cities do not hold (written for Cloak). Like the cities
# above, none that is also an everyday word: "الريف" (the countryside), "نجد" (we find),
# "الصعيد" (the level), "الجديدة" (the new), "الخبر" (the news), "بورصة" (a stock exchange).
REGIONS = """
الشرق الأوسط|الشرق الأدنى|الشرق الأقصى|المغرب العربي|بلاد المغرب|المشرق العربي|المشرق
بلاد الشام|الشام|الخليج|الخليج العربي|الخليج الفارسي|شبه الجزيرة العربية|الجزيرة العربية|جزيرة العرب
الحجاز|تهامة|الأحساء|بلاد الرافدين|بلاد ما بين النهرين|بلاد فارس|الأندلس|الأناضول|القوقاز
البلقان|سيبيريا|آسيا الوسطى|آسيا الصغرى|بلاد ما وراء النهر|خراسان|كردستان|إقليم كردستان
الهلال الخصيب|سيناء|شبه جزيرة سيناء|صعيد مصر|دارفور|كردفان|برقة|فزان|طرابلس الغرب
الصحراء الكبرى|الصحراء الغربية|الساحل الأفريقي|القرن الأفريقي|النقب|الضفة الغربية|قطاع غزة
الجولان|هضبة الجولان|البقاع|جبل لبنان|الجبل الأسود|جبال الأطلس|جبال الألب|الهيمالايا|الأمازون
البحر الأبيض المتوسط|البحر المتوسط|البحر الأحمر|البحر الأسود|البحر الميت|بحر قزوين|بحر العرب
المحيط الأطلسي|المحيط الهادئ|المحيط الهندي|المحيط المتجمد الشمالي|نهر النيل|النيل|دجلة|الفرات
نهر الأردن|قناة السويس|مضيق هرمز|مضيق جبل طارق|باب المندب|اسكندنافيا|أمريكا الشمالية
أمريكا الجنوبية|أمريكا اللاتينية|أوروبا الشرقية|أوروبا الغربية|شرق أوروبا|غرب أوروبا
جنوب شرق آسيا|شرق آسيا|أفريقيا|إفريقيا|آسيا|أوروبا|أستراليا|القارة الأوروبية|القارة الأفريقية
القارة الآسيوية|الأمريكتين|الإمبراطورية العثمانية|الدولة العثمانية|بيزنطة
الإمبراطورية الرومانية|الإمبراطورية البيزنطية|الاتحاد السوفيتي|الاتحاد السوفياتي|يوغوسلافيا
تشيكوسلوفاكيا|بروسيا|بلاد الغال|قرطاج|بابل|آشور|نينوى|سومر|الكوفة|سمرقند|بخارى
""".replace("\n", "|").split("|")

# Below country level, in Arab countries: governorates, provinces, regions and their large
# towns (Arabic Wikipedia titles, written for Cloak), none an everyday word ("البيضاء" white,
# "صور" pictures, "العين" the eye, "الباب" the door, "قم" rise, "مشهد" a scene).
ARAB_SUBDIVISIONS = """
الدقهلية|القليوبية|كفر الشيخ|المنوفية|الوادي الجديد|مطروح|مرسى مطروح|شمال سيناء|جنوب سيناء
المحلة الكبرى|شبين الكوم|بنها|دمنهور|كفر الدوار|حلوان|العلمين|سفاجا|مرسى علم|دهب|نويبع|طابا|سيوة
حائل|الجوف|سكاكا|عرعر|القصيم|عنيزة|الباحة|ينبع|الهفوف|عسير|حفر الباطن|القريات|رابغ|الدرعية
نينوى|الأنبار|ديالى|القادسية|واسط|ميسان|ذي قار|حلبجة|الرمادي|تلعفر|سنجار
السماوة|الكاظمية|الأعظمية|بيجي|الشرقاط|زاخو|الحويجة|خانقين
ريف دمشق|القنيطرة|منبج|عفرين|جرابلس|كوباني|عين العرب|تدمر|البوكمال|جبلة
بانياس|معرة النعمان|سراقب|داريا|الزبداني|القلمون|الغوطة|الغوطة الشرقية|تل أبيض|رأس العين
البترون|الهرمل|عكار|الشوف|كسروان|بنت جبيل|مرجعيون|بعبدا|حاصبيا
عجلون|البلقاء|الطفيلة|الرمثا|البتراء|وادي رم
بيت جالا|بيت ساحور|سلفيت|طوباس|الرملة|اللد|عسقلان|أسدود|المجدل|صفد|طبريا|بيسان
مرج ابن عامر|الخضيرة|نتانيا|هرتسليا|بئر سبع|ديمونا|أم الفحم|شفاعمرو|سخنين|باقة الغربية
الفروانية|مبارك الكبير|الريان|الوكرة|الخور|مسيعيد|مدينة عيسى|مدينة حمد|خورفكان|كلباء
ظفار|مسندم|البريمي|إبراء|الرستاق|صلالة
سيئون|شبوة|مأرب|أبين|لحج|سقطرى|المخا|زبيد|تريم
القضارف|كادقلي|الدمازين|عطبرة|دنقلا|سنار|النيل الأزرق|النيل الأبيض|جنوب كردفان|شمال كردفان
جنوب دارفور|شمال دارفور|غرب دارفور|جوبا|ملكال|وادي حلفا
سبها|زوارة|غريان|أجدابيا|البريقة|راس لانوف|الزنتان|ترهونة|بني وليد|غدامس
أريانة|بن عروس|منوبة|زغوان|باجة|جندوبة|سليانة|المهدية|القصرين|سيدي بوزيد|مدنين|تطاوين
قفصة|توزر|جربة
سلا|آسفي|الناظور|بني ملال|خريبكة|الحسيمة|تازة|العرائش|ورزازات|الصويرة|إفران|الراشيدية|سطات
كلميم|طانطان|شفشاون|سوس ماسة|الدار البيضاء سطات|فاس مكناس|طنجة تطوان الحسيمة
نواذيبو|روصو|بربرة|بيدوا|بوصاصو|غالكعيو|بلدوين|تاجورة|موروني
""".replace("\n", "|").split("|")

# Below country level in the rest of the world: states, provinces, regions and large cities
# (Arabic Wikipedia titles, written for Cloak), none an everyday word or a given name
# ("فيكتوريا", "جورجيا" the state is the country, "بالي" worn, "مين" who, "كان" was).
WORLD_SUBDIVISIONS = """
كاليفورنيا|تكساس|فلوريدا|إلينوي|بنسلفانيا|أوهايو|ميشيغان|كارولاينا الشمالية|كارولاينا الجنوبية
فرجينيا|فيرجينيا|فرجينيا الغربية|أريزونا|ماساتشوستس|تينيسي|إنديانا|ميزوري|ماريلاند|ويسكونسن
كولورادو|مينيسوتا|ألاباما|لويزيانا|كنتاكي|أوريغون|أوكلاهوما|كونيتيكت|يوتا|أيوا|نيفادا|أركنساس
ميسيسيبي|كانساس|نيومكسيكو|نيو مكسيكو|نبراسكا|أيداهو|هاواي|ألاسكا|مونتانا|وايومنغ|داكوتا الشمالية
داكوتا الجنوبية|ديلاوير|رود آيلاند|فيرمونت|نيوهامشير|نيو هامشير|نيوجيرسي|نيو جيرسي|ولاية واشنطن
سان دييغو|سان خوسيه|دنفر|فينيكس|بالتيمور|بيتسبرغ|كليفلاند|سينسيناتي|نيو أورليانز|ناشفيل
ممفيس|بورتلاند|مينيابوليس|أورلاندو|تامبا|سانت لويس|كانساس سيتي|سولت ليك سيتي|هونولولو|أنكوريج
سان أنطونيو|سكرامنتو|برينستون|أوكلاند|بروكلين|مانهاتن|هوليوود|كوينز|برونكس|وادي السيليكون
أونتاريو|كيبك|كيبيك|كولومبيا البريطانية|ألبرتا|مانيتوبا|ساسكاتشوان|نوفا سكوشا|نيوفاوندلاند
أوتاوا|فانكوفر|كالغاري|إدمونتون|وينيبيغ|هاليفاكس|مكسيكو سيتي|غوادالاخارا|مونتيري|تيخوانا
ساو باولو|ريو دي جانيرو|برازيليا|بيلو هوريزونتي|ريسيفي|بورتو أليغري|ميديلين|قرطاجنة
بوينس آيرس|روساريو|باتاغونيا|الأنديز|فالبارايسو|غواياكيل|ماراكايبو|كوسكو
اسكتلندا|ويلز|أيرلندا الشمالية|كورنوال|يوركشاير|لانكشاير|ساسكس|أكسفورد|كامبريدج|بريستول
ليدز|شيفيلد|نيوكاسل|نوتنغهام|ليستر|ساوثهامبتون|بورتسموث|برايتون|كارديف|بلفاست|أبردين|دبلن
إيل دو فرانس|بروفانس|نورماندي|الألزاس|اللورين|الألزاس واللورين|بورغونيا|أكيتين|كورسيكا|لانغدوك
ليموج|أورليان|ديجون|غرونوبل|أفينيون|طولون|كاليه|لو هافر|أميان|فرساي
بافاريا|ساكسونيا|هسن|بادن فورتمبيرغ|براندنبورغ|تورينغن|شليسفيغ هولشتاين|ميكلنبورغ|راينلاند
سارلاند|وستفاليا|شمال الراين وستفاليا|بريمن|هانوفر|لايبزيغ|دريسدن|نورنبيرغ|نورمبرغ|دورتموند
إيسن|مانهايم|كارلسروه|فرايبورغ|هايدلبرغ|فيسبادن|ماينتس|بوخوم|كايزرسلاوترن|فولفسبورغ|آخن
مونستر|لوبيك|روستوك|ماغدبورغ|بوتسدام|فايمار
لومبارديا|بييمونتي|توسكانا|فينيتو|صقلية|سردينيا|كالابريا|بوليا|كامبانيا|لاتسيو|أومبريا|ليغوريا
فينيسيا|جنوة|بولونيا|فيرونا|بيزا|سيينا|كاتانيا|بادوفا|بيروجيا|تريستي|بيرغامو
كتالونيا|كاتالونيا|إقليم الباسك|بلاد الباسك|غاليسيا|أراغون|قشتالة|قشتالة وليون|قشتالة لا مانتشا
إكستريمادورا|مورسيا|نافارا|أستورياس|كانتابريا|جزر البليار|جزر الكناري|مالقة|ملقة|سرقسطة|بلد الوليد
بلباو|سان سيباستيان|طليطلة|سلامنكا|قادس|ألميريا|هويلفا|أليكانتي|مايوركا|إيبيزا
لشبونة|براغا|كويمبرا|الغارف|ماديرا|الأزور|أوترخت|آيندهوفن|فلاندرز|والونيا|غنت|بروج|لوكسمبورغ
برن|لوزان|لوسيرن|سالزبورغ|إنسبروك|غراتس|لينتس|تيرول|أوسلو|بيرغن|كوبنهاغن|هلسنكي|غوتنبرغ|مالمو
وارسو|كراكوف|غدانسك|فروتسواف|براغ|برنو|بودابست|بوخارست|ترانسيلفانيا|بلغراد|زغرب|سراييفو
ليوبليانا|سكوبيي|تيرانا|بريشتينا|بودغوريتسا|كيشيناو|مينسك|كييف|خاركيف|أوديسا|لفيف|دونيتسك
لوغانسك|دونباس|القرم|شبه جزيرة القرم|سيفاستوبول|ريغا|تالين|فيلنيوس|البوسنة|الهرسك|دالماتيا
نوفوسيبيرسك|يكاترينبورغ|قازان|نيجني نوفغورود|سامارا|أوفا|روستوف|كالينينغراد|فلاديفوستوك|سوتشي
الشيشان|غروزني|داغستان|تتارستان|باشكيريا|إنغوشيا|أوسيتيا|أوسيتيا الشمالية|أوسيتيا الجنوبية
أبخازيا|ياقوتيا|الأورال|ثيسالونيكي|سالونيك|كريت|رودس|مقدونيا|بيلوبونيز
أضنة|غازي عنتاب|ديار بكر|شانلي أورفا|ماردين|طرابزون|قيصري|أرضروم|ملاطية|كوجالي|سامسون
هاتاي|إسكندرون|لواء إسكندرون|أنطاكية|كيليكيا|بودروم|إسكي شهير|نيقوسيا|ليماسول|لارنكا
الأهواز|كرمان|كرمانشاه|همدان|يزد|رشت|أردبيل|زاهدان|بندر عباس|خوزستان|عربستان|بلوشستان
سيستان وبلوشستان|جيلان|مازندران|طشقند|ألماتي|أستانا|بشكيك|دوشنبه|عشق آباد|فرغانة
هرات|قندهار|مزار شريف|جلال آباد|قندوز|غزني|هلمند|كشمير|جامو وكشمير|البنجاب|خيبر بختونخوا
راولبندي|فيصل آباد|ملتان|كويتا|بيهار|أوتار براديش|راجستان|غوجارات|ماهاراشترا|كيرلا|تاميل نادو
كارناتاكا|البنغال|آسام|أغرا|جايبور|أحمد آباد|بونه|سورات|كانبور|لكناو|فاراناسي|أمريتسار|دكا
شيتاغونغ|كاتماندو|كولومبو|قوانغتشو|غوانغتشو|شنتشن|تيانجين|ووهان|تشونغتشينغ|تشنغدو|نانجينغ
هانغتشو|شيآن|هاربين|التبت|شينجيانغ|تركستان الشرقية|منغوليا الداخلية|سيتشوان
غوانغدونغ|فوجيان|هونان|ماكاو|تايبيه|يوكوهاما|ناغويا|سابورو|فوكوكا|ناغازاكي|أوكيناوا
هوكايدو|بوسان|إنتشون|بيونغ يانغ|بانكوك|هانوي|هو تشي منه|سايغون|مانيلا|جاوة|سومطرة|بورنيو
آتشيه|مينداناو|رانغون|يانغون|بنوم بنه|فينتيان|سورابايا|باندونغ|بينانغ
أبوجا|أكرا|كوماسي|باماكو|واغادوغو|نيامي|نجامينا|ياوندي|دوالا|ليبرفيل|كينشاسا|برازافيل
لواندا|لوساكا|هراري|جوهانسبرغ|كيب تاون|بريتوريا|ديربان|دار السلام|زنجبار|كمبالا|كيغالي|أسمرة
مومباسا|أنتاناناريفو|ويندهوك|غابورون|مابوتو|ليلونغوي|ناتال|بيافرا|أوغادين|بونتلاند|أرض الصومال
تمبكتو|بريزبن|بيرث|أديلايد|كانبرا|ولينغتون|كوينزلاند|نيو ساوث ويلز|تسمانيا|تاسمانيا
""".replace("\n", "|").split("|")

# Historical places, states and empires, and natural features that no head word announces
# (written for Cloak).
HISTORICAL = """
القسطنطينية|الفسطاط|القطائع|يثرب|الرها|نيقية|طيسفون|سلوقية|منف|النوبة|بلاد النوبة
الحبشة|بلاد الحبشة|بلاد السند|بلاد الروم|خوارزم|طبرستان|جرجان|نيسابور|مرو|بلخ|غزنة|سجستان
الجزيرة الفراتية|ديار ربيعة|ديار مضر|المغرب الأوسط|المغرب الأقصى|المغرب الأدنى
بلاد السودان|اليمامة|دلمون|سبأ|مملكة سبأ|البتراء|إيبلا|أوغاريت|قيسارية|السامرة|فينيقيا
عيلام|بارثيا|الشام القديمة|مصر القديمة|روما القديمة|اليونان القديمة|بلاد الإغريق
الدولة الأموية|الدولة العباسية|الدولة الفاطمية|الدولة الأيوبية|الدولة المملوكية|دولة المماليك
الدولة السلجوقية|الدولة الصفوية|الدولة الغزنوية|الدولة الحمدانية|الدولة الطولونية|الدولة الإخشيدية
الدولة المرابطية|دولة المرابطين|الدولة الموحدية|دولة الموحدين|الدولة الحفصية|الدولة المرينية
الدولة السعدية|الدولة العلوية|الدولة الرستمية|الدولة الأغلبية|الدولة الإدريسية|الدولة الزيانية
الخلافة العباسية|الخلافة الأموية|الخلافة الراشدة|الخلافة الفاطمية|الخلافة العثمانية
الإمبراطورية الفارسية|الإمبراطورية الساسانية|الإمبراطورية المغولية|الإمبراطورية البريطانية
الإمبراطورية الروسية|الإمبراطورية النمساوية المجرية|الإمبراطورية الرومانية المقدسة
الإمبراطورية الفرنسية
الإمبراطورية الإسبانية|الإمبراطورية البرتغالية|الإمبراطورية اليابانية|الإمبراطورية الألمانية
الإمبراطورية الأخمينية|الإمبراطورية الصفوية|الإمبراطورية المغولية الهندية|الدولة الساسانية
الدولة البيزنطية|الرايخ الثالث|ألمانيا النازية|ألمانيا الشرقية|ألمانيا الغربية|الاتحاد اليوغوسلافي
المملكة المتحدة لبريطانيا العظمى وأيرلندا الشمالية|بريطانيا العظمى|الجمهورية العربية المتحدة
جبال الأنديز|جبال الروكي|جبال الأورال|جبال زاغروس|جبال طوروس|جبال القوقاز|جبال البرانس|جبال الأبلاش
إيفرست|قمة إيفرست|كليمنجارو|الدانوب|الراين|الفولغا|المسيسيبي|الغانج|اليانغتسي|الميكونغ|الزامبيزي
التايمز|اللوار|الرون|الأمازون|الليطاني|اليرموك|الخابور|بردى|أبو رقراق|الشلف
بحر الشمال|بحر البلطيق|البحر الكاريبي|بحر إيجة|البحر الأدرياتيكي|بحر اليابان|بحر الصين الجنوبي
بحر الصين الشرقي|بحر مرمرة|بحر آزوف|خليج عدن|خليج عمان|خليج المكسيك|خليج العقبة|خليج السويس
خليج البنغال|خليج غينيا|البوسفور|مضيق البوسفور|الدردنيل|مضيق الدردنيل|بحر العرب|بحر إيجه
الربع الخالي|صحراء كالاهاري|صحراء غوبي|صحراء أتاكاما|بادية الشام|الهضبة الإيرانية|هضبة التبت
سهل البقاع|غور الأردن|وادي النيل|دلتا النيل|وادي عربة|بحيرة طبريا|بحيرة فيكتوريا|بحيرة ناصر
""".replace("\n", "|").split("|")

# Countries and regions whose adjective the rules of `adjectives` do not give, and peoples.
ADJECTIVES = """
العربي|الأوروبي|الأفريقي|الإفريقي|الآسيوي|الخليجي|الكردي|الأمازيغي|الفارسي|العثماني|الأندلسي
المغاربي|الشامي|اللاتيني|الأمريكي|الأميركي|البريطاني|الإنجليزي|الإنكليزي|الهولندي|الإماراتي
الفلسطيني|الإسرائيلي|الصهيوني|السوفيتي|السوفياتي|الأممي|القبرصي|السويسري|الدنماركي|البلجيكي
""".replace("\n", "|").split("|")


def adjectives(places: Iterable[str]) -> list[str]:
    """The relative adjectives (nisba) of one-word place names, with the article, masculine
    and feminine: "مصر" → "المصري", "المصرية"; "السعودية" → "السعودي"; "ألمانيا" →
    "الألماني"; "غزة" → "الغزي". Stems of fewer than three letters give none."""
    found: set[str] = set()
    for place in places:
        if " " in place:
            continue
        stem = place[2:] if place.startswith("ال") else place
        if stem.endswith(("ية", "يه", "يا")):
            stem = stem[:-2]
        elif stem.endswith(("ا", "ة", "ه")):
            stem = stem[:-1]
        if len(stem) < 3:
            continue
        found.update({f"ال{stem}ي", f"ال{stem}ية"})
    return sorted(found)


# CLDR territory codes that name no place: the world, the unknown region, the test locales;
# and unions, which are organisations (the European Union, the eurozone, the United Nations).
# Algerian communes (Faker) that are everyday words: the days of the week, "تنس" (tennis),
# "معسكر" (a camp), "البيض" (eggs), "سعيدة" (happy).
COMMUNES_EVERYDAY = frozenset(
    "الأحد الاثنين الإثنين الثلاثاء الأربعاء الخميس الجمعة السبت تنس معسكر البيض سعيدة".split()
)
CLDR_NOT_PLACES = frozenset({"001", "ZZ", "XA", "XB", "EU", "EZ", "UN"})
# CLDR's Arabic names that are everyday words, or worse as places than as what else they
# spell: "مالي" (financial), "بنين" (sons), "ماهي" (what is she), "العيون" (the eyes), "نوم"
# (sleep), "ترك" (left), "سنتر" (centre), "كريسماس" (Christmas), "كناري" (canary),
# "مدينة غير معروفة" (an unknown city), "منطقة إدارية خاصة" (a special administrative
# region: Hong Kong's bracket), a given name ("جوني", "سمراء").
CLDR_EVERYDAY = frozenset(
    "مالي|بنين|ماهي|العيون|نوم|ترك|سنتر|كريسماس|كناري|مدينة غير معروفة|سول|واك|ثيل|بلم|جوني"
    "|سمراء|ترول|نيو ساليم|منطقة إدارية خاصة".split("|")
)


def _cldr_parts(name: str) -> list[str]:
    """The place names in one CLDR display name: "ميانمار (بورما)" → "ميانمار", "بورما";
    "بيولا، داكوتا الشمالية" → both; "الكونغو - كينشاسا" → "الكونغو", "كينشاسا" and the
    whole without its dash."""
    parts = [name]
    for opening, closing in (("(", ")"),):
        if opening in name:
            before, _, rest = name.partition(opening)
            parts = [before.strip(), rest.partition(closing)[0].strip()]
    found: list[str] = []
    for part in parts:
        for piece in part.split("،"):
            piece = piece.strip()
            if " - " in piece:
                found.extend(p.strip() for p in piece.split(" - "))
                piece = piece.replace(" - ", " ")
            found.append(piece)
    return [part for part in found if part]


def with_jim(places: Iterable[str]) -> list[str]:
    """Each place, and, for a foreign name written with غ for a hard g, the same with ج as
    Egyptian spelling has it ("هونغ كونغ" → "هونج كونج", "بنغلاديش" → "بنجلاديش"). Names
    with the article are Arabic ones ("المغرب") and keep their غ."""
    found: list[str] = []
    for place in places:
        found.append(place)
        if "غ" in place and not place.startswith("ال") and place not in _ARABIC_WITH_GHAIN:
            found.append(place.replace("غ", "ج"))
    return found


# Places written with غ that are Arabic names, not a foreign g.
_ARABIC_WITH_GHAIN = frozenset("غزة بغداد بنغازي غرداية غليزان مستغانم تغنيف".split())


def cldr_territories(locale: str = "ar") -> list[str]:
    """The territories, continents and world regions CLDR names in `locale`, less what
    names no place."""
    from babel import Locale

    data = Locale.parse(locale)
    names = [name for code, name in data.territories.items() if code not in CLDR_NOT_PLACES]
    return sorted({part for name in names for part in _cldr_parts(name)} - CLDR_EVERYDAY)


def cldr_places(locale: str = "ar") -> list[str]:
    """Every territory, continent and world region CLDR names in `locale`, and the exemplar
    city of every time zone (babel's copy of CLDR), less what names no place."""
    from babel import Locale

    data = Locale.parse(locale)
    names = [name for code, name in data.territories.items() if code not in CLDR_NOT_PLACES]
    names += [zone["city"] for zone in data.time_zones.values() if zone.get("city")]
    found = {part for name in names for part in _cldr_parts(name)}
    return sorted(place for place in found if place not in CLDR_EVERYDAY)


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
حماس|حركة حماس|طالبان|حركة طالبان|القاعدة|تنظيم القاعدة|داعش|تنظيم داعش|الدولة الإسلامية
جبهة النصرة|هيئة تحرير الشام|الجهاد الإسلامي|حركة الجهاد الإسلامي|الإخوان المسلمون
الإخوان المسلمين|جماعة الإخوان|بوكو حرام|الشباب المجاهدين|حركة الشباب|حزب الله|حركة فتح
جبهة البوليساريو|البوليساريو|حزب العمال الكردستاني|الحشد الشعبي|الكونغرس|الكونجرس|الكرملين
البنتاغون|البنتاجون|البيت الأبيض|الإليزيه|داوننغ ستريت|الموساد|السي آي إيه|الإنتربول|اليوروبول
الفيفا|اليويفا|الكنيست|البرلمان الأوروبي|المفوضية الأوروبية|الناتو|فرانس برس|أسوشيتد برس
رويترز|الجزيرة|سي إن إن|الويبو|مانشستر يونايتد|مانشستر سيتي|تشيلسي|تشلسي|ليفربول
أرسنال|ارسنال|يوفنتوس|بايرن ميونخ|بايرن ميونيخ|إنتر ميلان|إيه سي ميلان|ريال مدريد|برشلونة
باريس سان جيرمان
نوكيا|سامسونج|سامسونغ|أبل|آبل|مايكروسوفت|جوجل|غوغل|فيسبوك|تويتر|تويوتا|نيسان موتورز|هوندا|ميتسوبيشي
متسوبيشي|فولكسفاغن|فولكس فاجن|مرسيدس|بي إم دبليو|فيراري|إنرون|انرون|بوينغ|بوينج|إيرباص
""".replace("\n", "|").split("|")


# Organisations a text names with no head word: companies and brands, clubs, media and
# periodicals, international and national bodies (written for Cloak). None whose name is also
# an everyday word ("الحياة" life, "النهار" the day, "الوطن" the homeland, "الأهلي" national,
# "الاتحاد" a union), which the head-word rule finds with their head ("صحيفة الحياة").
MORE_ORGANISATIONS = """
جنرال موتورز|فورد|كرايسلر|رينو|بيجو|سيتروين|فيات|بورشه|أودي|فولفو|هيونداي|كيا موتورز|سوني|باناسونيك
توشيبا|هيتاشي|إل جي|سيمنز|بي إيه إس إف|نستله|يونيليفر|بروكتر آند غامبل|كوكا كولا|كوكاكولا|بيبسي
بيبسيكو|ماكدونالدز|ستاربكس|وول مارت|إكسون موبيل|رويال داتش شل|بريتيش بتروليوم|توتال|شيفرون
غازبروم|لوك أويل|روسنفت|إنتل|آي بي إم|أوراكل|سيسكو|هيوليت باكارد|لينوفو|هواوي|شاومي|تينسنت
بايدو|نتفليكس|ويكيبيديا|إنستغرام|إنستجرام|واتساب|سناب شات|تيك توك|لينكد إن|ياهو|سبيس إكس|تسلا
لوكهيد مارتن|رايثيون|نوفارتيس|فايزر|موديرنا|أسترازينيكا|جونسون آند جونسون|لوريال|إيكيا|أديداس
نايكي|غوتشي|شانيل|لويس فويتون|رولكس|الخطوط الجوية البريطانية|لوفتهانزا|الخطوط الجوية الفرنسية
الخطوط الجوية التركية|الاتحاد للطيران|طيران الخليج|الملكية الأردنية|الخطوط الملكية المغربية
والت ديزني|ديزني|وارنر براذرز|باراماونت|مترو غولدوين ماير|يونيفرسال|كولومبيا بيكتشرز
نيويورك تايمز|واشنطن بوست|وول ستريت جورنال|الغارديان|الإندبندنت|ديلي تلغراف|ديلي ميل|لوموند
لو فيغارو|دير شبيغل|فاينانشال تايمز|الإيكونوميست|نيوزويك|فوربس|ناشيونال جيوغرافيك|هافينغتون بوست
بلومبرغ|فوكس نيوز|سي بي إس|إن بي سي|دويتشه فيله|يورونيوز|روسيا اليوم|شينخوا|كيودو|إيتار تاس
اليوم السابع|المصري اليوم|روز اليوسف|عكاظ|القبس|الشرق الأوسط اللندنية|النهار اللبنانية
الحياة اللندنية|السفير اللبنانية|الخليج الإماراتية|تشرين السورية|البعث السورية|الوطن السعودية
الإسكوا|الفاو|الأونكتاد|اليونيدو|الإيسيسكو|الألكسو|الأوابك|الآسيان|الإيكواس|الكومنولث|مجموعة العشرين
مجموعة السبع|مجموعة الثماني|ناسا|وكالة ناسا|مكتب التحقيقات الفيدرالي|وكالة المخابرات المركزية
الكي جي بي|ويكيليكس|غرينبيس|أطباء بلا حدود|الوكالة الدولية للطاقة الذرية|منظمة العمل الدولية
منظمة الأغذية والزراعة|منظمة شنغهاي للتعاون|منظمة الدول الأمريكية|منظمة الأمن والتعاون في أوروبا
الأزهر|الأزهر الشريف|الفاتيكان|الكرسي الرسولي|مجمع اللغة العربية|الأكاديمية الفرنسية
معهد ماساتشوستس للتقنية|جامعة ستانفورد|جامعة ييل|جامعة برينستون|جامعة كولومبيا|جامعة شيكاغو
جامعة بيركلي|جامعة تورنتو|جامعة ماكغيل|جامعة هايدلبرغ|جامعة بولونيا|جامعة القرويين|جامعة الزيتونة
أتلتيكو مدريد|بوروسيا دورتموند|باير ليفركوزن|شالكه|فيردر بريمن|أياكس|أيندهوفن|بنفيكا|سبورتنغ لشبونة
سلتيك|رينجرز|توتنهام|توتنهام هوتسبير|إيفرتون|أستون فيلا|نيوكاسل يونايتد|وست هام|وست هام يونايتد
أولمبيك مرسيليا|أولمبيك ليون|ميلان الإيطالي|روما الإيطالي|لاتسيو الإيطالي|نابولي الإيطالي|غلطة سراي
غلطه سراي|فنربخشة|فنربغشة|بشكتاش|النادي الإسماعيلي|الإسماعيلي|النجم الساحلي|الصفاقسي|النادي الصفاقسي
الترجي|الأفريقي التونسي|شبيبة القبائل|مولودية الجزائر|الوداد|الفيصلي|العربي القطري
السد القطري|الريان القطري|الشباب السعودي|الاتفاق السعودي|الأهلي السعودي|الأهلي المصري
المريخ السوداني
الهلال السوداني|الكويت الكويتي|القادسية الكويتي|الجيش الملكي|الأنصار اللبناني|النجمة اللبناني
""".replace("\n", "|").split("|")

# Foreign given names as Arabic writes them (written for Cloak): one begins a name that a word
# no frequency table holds continues ("ألبرت أينشتاين"). None that is an everyday word ("مارس"
# March, "بول" urine, "جان" jinn is kept only as a start).
FOREIGN_GIVEN = """
جون جورج مايكل ديفيد ديفد توماس وليام ويليام هنري إدوارد ريتشارد روبرت تشارلز جيمس بيتر فرانك
جاك جاكوب جوزيف جوزف دانيال دانيل صموئيل كريستوفر ستيفن ستيفان ستيف أندرو أنتوني أنطوني بنيامين
بنجامين برنارد بيل بيلي دونالد رونالد جيرالد هارولد هاري آرثر ألبرت ألفريد ألكسندر أليكسندر
أليكس إريك فريدريك فريدريش فرديناند فرانسيس فرانسوا فرنسيس شارل لويس بيير جان ميشيل ميشال كلود
جيرار إيمانويل نيكولا نيكولاس فيليب ليونيل كريستيانو تييري ديدييه أرسين جوزيه خوسيه خوان كارلوس
أنطونيو فرناندو بابلو مانويل ميغيل رافائيل رفائيل دييغو سيرجيو أليساندرو جوزيبي جوفاني ماركو
لوكا فرانشيسكو باولو ماريو سيلفيو جورجيو فلاديمير ديمتري دميتري ميخائيل سيرغي سيرجي إيفان ألكسي
أليكسي بوريس نيكولاي فيكتور يوري إيغور أندريه أناتولي ليونيد كونستانتين بيوتر يوهان يوهانس
فولفغانغ لودفيغ هانز هانس كارل أوتو هيلموت غيرهارد فالتر فيرنر كلاوس يورغن غونتر هاينريش مارتن
ماكس ماكسيميليان سيغموند غوستاف فريدريتش إرنست رودولف أدولف هيرمان فرانز إسحاق ونستون باراك
هيلاري كوندوليزا كولن مايك نانسي سارة أنجيلا إنجيلا تيريزا ماري ماريا إليزابيث اليزابيث كاثرين
كاترين مارغريت مارجريت جينيفر جنيفر جوليا جوليانا ليندا باربرا سوزان ديانا فيكتوريا صوفي
إيزابيل كاترينا ناتالي نتاليا أولغا تاتيانا إيلينا يلينا سفيتلانا فالنتينا إيرينا كريستينا
كريستين لورا ماريان ماريانا مادونا شاكيرا بريتني جوليو روبرتو ريكاردو أليخاندرو إنريكي بيدرو
هوغو أوغستو سيمون جيفري غريغوري ماثيو ماتيو لوسيان أنطوان جيروم سيباستيان سباستيان ديدي يواكيم
أرنولد سيلفستر كيفن براد توم توني جيمي جيري روجر رافاييل نوفاك
""".split()


def _entries(values: Iterable[str]) -> list[str]:
    return sorted({value.replace("_", " ").strip() for value in values if value.strip()})


def _write(name: str, header: str, values: Iterable[str]) -> None:
    entries = _entries(values)
    lines = [f"# {line}" if line else "#" for line in header.strip().splitlines()]
    (DATA / name).write_text("\n".join([*lines, *entries]) + "\n", encoding="utf-8")


COMMON_WORDS = 20_000
ARABIC_WORD = re.compile("[\u0621-\u064a]+")


def common_words(known: Iterable[str], count: int = COMMON_WORDS) -> list[str]:
    """The `count` most frequent Arabic words (wordfreq's "large" list), folded, Arabic letters
    only, less the one-word entries of `known` (names, places, organisations), folded, with
    the article or without ("الخليل", "خليل")."""
    from wordfreq import top_n_list

    from pseudonymizer.folding import fold

    listed = set()
    for entry in known:
        folded = fold(entry.replace("_", " ")).strip()
        listed.add(folded)
        if folded.startswith("ال"):
            listed.add(folded[2:])
    found = []
    for word in top_n_list("ar", count, wordlist="large"):
        key = fold(word).strip()
        if len(key) >= 2 and ARABIC_WORD.fullmatch(key) and key not in listed:
            found.append(key)
    return found


def _is_name(place: str, names: Iterable[str]) -> bool:
    """Whether a commune's name is also a given name ("بشار", "جميلة"): left out of the
    places, where it would hide a person (and "جميلة" is also "beautiful")."""
    from pseudonymizer.folding import fold

    return fold(place).strip() in {fold(name.replace("_", " ")).strip() for name in names}


def main() -> None:
    import babel
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
    algerian = [
        place
        for place in [*address_dz.Provider.wilayas, *address_dz.Provider.cities]
        if place not in COMMUNES_EVERYDAY
    ]
    note = "Generated by pseudonymizer/recognizers/lexicons/build.py: edit that, not this file."
    faker = "Faker (MIT): faker.providers.person.{}; common names written for Cloak."
    _write(
        "ar_first_male.txt",
        f"Arabic male given names.\n{faker.format('ar_AA, ar_DZ')}\n{note}",
        [
            name
            for name in [
                *ar_AA.Provider.first_names_male,
                *ar_DZ.Provider.first_names_male,
                *COMMON_MALE,
            ]
            if name not in NOT_GIVEN_NAMES
        ],
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
        "Territories, continents, world regions and time zones' exemplar cities from CLDR\n"
        f"(Unicode licence), as babel {babel.__version__} ships it; countries, capitals, large\n"
        "cities and historical regions in Arabic (Arabic Wikipedia titles, written for Cloak);\n"
        "provinces, regions and large towns of Arab countries and of the world, historical\n"
        "places, states and empires, rivers, seas and mountain ranges (written for Cloak);\n"
        f"Algeria's wilayas and communes from Faker (MIT): faker.providers.address.ar_DZ.\n{note}",
        [
            place
            for place in [
                *with_jim(cldr_places("ar")),
                *PLACES,
                *REGIONS,
                *algerian,
                *with_jim([*ARAB_SUBDIVISIONS, *WORLD_SUBDIVISIONS, *HISTORICAL]),
            ]
            if not _is_name(place, names)
        ],
    )
    countries = [*cldr_territories("ar"), *PLACES[: PLACES.index("القاهرة")]]
    _write(
        "ar_nationalities.txt",
        "Adjectives of the countries and regions among the places (CLDR's territories and the\n"
        "countries written for Cloak), and of peoples and regions written for Cloak.\n"
        f"{note}",
        [*adjectives(place for place in countries if not _is_name(place, names)), *ADJECTIVES],
    )
    _write(
        "ar_organisations.txt",
        "International bodies, media, universities, ministries, companies and sports bodies\n"
        "often named in Arabic news; companies and brands, clubs, media and periodicals,\n"
        f"international and national bodies named without a head word; written for Cloak.\n{note}",
        [*ORGANISATIONS, *MORE_ORGANISATIONS],
    )
    _write(
        "ar_first_foreign.txt",
        "Foreign given names as Arabic writes them, written for Cloak: each begins a name that\n"
        f"a word no frequency table holds continues (never a name alone).\n{note}",
        FOREIGN_GIVEN,
    )
    from importlib.metadata import version

    family = [*ar_AA.Provider.last_names, *ar_DZ.Provider.last_names, *COMMON_FAMILY]
    family += [*ar_PS.Provider.last_names, *ar_SA.Provider.last_names]
    places = [*cldr_places("ar"), *PLACES, *REGIONS, *algerian]
    places += [*ARAB_SUBDIVISIONS, *WORLD_SUBDIVISIONS, *HISTORICAL]
    _write(
        "ar_common_words.txt",
        f"The {COMMON_WORDS:,} most frequent Arabic words as wordfreq {version('wordfreq')}\n"
        "counts them (its data: CC BY-SA 4.0, by Robyn Speer and the wordfreq authors),\n"
        f"folded, less the one-word names, places and organisations of the other lists.\n{note}",
        common_words([*names, *family, *places, *ORGANISATIONS, *MORE_ORGANISATIONS]),
    )


if __name__ == "__main__":
    main()
