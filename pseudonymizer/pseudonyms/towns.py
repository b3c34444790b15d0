"""Real towns per locale, what a place's pseudonym is drawn from. Faker's cities are made up of
a name and a glued suffix ("Anthonyberg", "TraoreVille", "Port Janetchester", "رمضانfort"),
which read false in a release (issue 31); a town of the country reads true. The lists are of
middle-sized towns, none of them a capital, so that a pseudonym does not read as a famous
place either.
"""

from __future__ import annotations

import re
from functools import cache

from pseudonymizer.pseudonyms.locales import (
    is_first_name,
    is_last_name,
    locale_for,
    lookup_locales,
)

_EN = """
Aldershot Ashford Barnsley Basingstoke Bedford Blackburn Bolton Bournemouth Bracknell
Burnley Carlisle Chelmsford Cheltenham Chesterfield Colchester Crawley Darlington Derby
Doncaster Dudley Durham Eastbourne Exeter Gloucester Grimsby Guildford Halifax Harlow
Harrogate Hastings Hereford Huddersfield Ipswich Kendal Kettering Lancaster Lincoln Luton
Maidstone Mansfield Middlesbrough Northampton Norwich Nuneaton Oldham Peterborough Plymouth
Preston Reading Redditch Rochdale Rotherham Salisbury Scunthorpe Shrewsbury Slough Stafford
Stevenage Stockport Swindon Taunton Telford Wakefield Warrington Watford Weymouth Wigan
Worcester Worthing Yeovil Akron Albany Amarillo Asheville Bakersfield Billings Boise
Burlington Cedar\u00a0Rapids Charleston Chattanooga Columbia Dayton Duluth Eugene Evansville
Fargo Flagstaff Fresno Greenville Harrisburg Knoxville Lafayette Lansing Lexington Lincoln
Lubbock Macon Madison Mobile Modesto Montgomery Odessa Peoria Pueblo Raleigh Reno Roanoke
Rochester Rockford Salem Savannah Scranton Spokane Springfield Syracuse Tacoma Toledo Topeka
Tulsa Waco Wichita Yakima
"""

_FR = """
Abbeville Agen Albi Alès Angoulême Annecy Arles Arras Aurillac Auxerre Avignon Bayonne
Beauvais Belfort Besançon Béziers Blois Bourges Brest Brive-la-Gaillarde Cahors Calais
Carcassonne Chambéry Charleville-Mézières Chartres Châteauroux Cholet Colmar Compiègne
Dax Dieppe Dole Douai Dunkerque Épinal Évreux Fréjus Gap Granville Guéret Laval Lens
Limoges Lorient Mâcon Montauban Montbéliard Montluçon Morlaix Moulins Mulhouse Nevers
Niort Orange Périgueux Perpignan Poitiers Quimper Rodez Roanne Royan Saintes Saint-Brieuc
Saint-Dié-des-Vosges Saint-Malo Saint-Nazaire Saumur Sète Soissons Tarbes Thionville
Troyes Valence Vannes Vichy Vienne Vierzon
"""

_AR = """
البويرة المغير بسكرة باتنة تبسة سطيف جيجل سكيكدة قالمة عنابة المسيلة الأغواط غرداية ورقلة
تيارت معسكر سعيدة مستغانم تلمسان بشار أدرار الجلفة المدية البليدة بجاية خنشلة سوق\u00a0أهراس
القنيطرة تطوان الناظور وجدة خريبكة بني\u00a0ملال آسفي الجديدة سطات تازة الحسيمة ورزازات
العرايشة القصر\u00a0الكبير صفاقس سوسة القيروان قابس بنزرت المنستير نابل قفصة توزر مدنين
الزقازيق المنصورة طنطا دمنهور أسيوط سوهاج قنا المنيا بنها شبين\u00a0الكوم الفيوم دمياط
إربد الزرقاء السلط الكرك معان مادبا جرش حمص حماة اللاذقية طرطوس إدلب دير\u00a0الزور
صيدا صور طرابلس زحلة جبيل النبطية الموصل كركوك البصرة الناصرية الحلة
"""

_LISTS = {"en": _EN, "fr": _FR, "ar": _AR}


@cache
def towns(language: str) -> tuple[str, ...]:
    """The towns of `language`'s list (English for a language without one); a town of more
    than one word is written with its spaces. None that is also a first name or a surname
    of the language ("Preston", "Madison"): a place's pseudonym would then be a person's
    surname pseudonym too, and the key table gives one pseudonym to one surface only, so
    the person's word would lose its own (the token "Marchbanks" of a name went unpaired)."""
    code = language.split("_")[0].split("-")[0].lower()
    text = _LISTS.get(code, _EN)
    # Split at plain spaces and newlines only: str.split() would cut at the no-break spaces.
    names = {name.replace("\u00a0", " ") for name in re.split(r"[ \n]+", text.strip())}
    people = lookup_locales(locale_for(code if code in _LISTS else "en"))
    return tuple(
        sorted(
            name
            for name in names
            if not any(is_first_name(w, people) or is_last_name(w, people) for w in name.split())
        )
    )
