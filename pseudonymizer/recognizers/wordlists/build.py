"""Writes the Latin-script word lists in `data/` (run by hand, once; the files are committed).

    python -m pseudonymizer.recognizers.wordlists.build --census DIR   # needs wordfreq, Faker

- `en_words.txt`, `fr_words.txt`: the 40,000 most frequent words of English and French, most
  frequent first (the line number is the rank), as the `wordfreq` package counts them over
  Wikipedia, subtitles, news, books, the web and social media (its data: CC BY-SA 4.0, by
  Robyn Speer and the wordfreq authors).
- `names.txt`: given names and surnames, lower case: the 1990 United States census lists
  (`dist.male.first`, `dist.female.first` and the 30,000 most frequent surnames of
  `dist.all.last`; public domain, as redistributed by the MIT-licensed `names` package on
  PyPI: pass its folder as `--census`), and the first and last names of Faker's English,
  French, Spanish, Italian, German, Portuguese, Dutch, Irish, Indian and Nigerian person
  providers (MIT), Latin letters only.

- `places.txt`: place names, lower case: the territories, continents and regions CLDR names in
  English and French (the `babel` package's copy; Unicode licence), the cities of the IANA
  time zone database (Python's `zoneinfo`: "America/New_York" → "new york"; public domain),
  and, written for Cloak, the states and provinces of the United States, Canada, Australia
  and India, the regions, counties and large towns of the United Kingdom, Ireland and
  France, and large cities of the world the time zones do not name. Places that are
  everyday words ("Turkey", "Nice", "Reading", "Bath") are left out (`EVERYDAY_PLACES`).

`shorthand.txt` is not written here: it is Cloak's own list (clinical abbreviations, units,
shorthand, drugs, chat abbreviations), edited by hand.

Nothing reads wordfreq, Faker or the census files at run time: the lists do not change with
their versions.
"""

from __future__ import annotations

import argparse
import importlib
import re
from importlib.metadata import version
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
COMMON_WORDS = 40_000
SURNAMES = 30_000
_LATIN_NAME = re.compile(r"^[a-zà-öø-ÿ'’\-]+$")
FAKER_LOCALES = (
    "en_US", "en_GB", "en_IE", "en_IN", "en_NZ", "en_AU", "en_CA", "fr_FR", "fr_CA", "fr_CH",
    "es_ES", "es_MX", "it_IT", "de_DE", "pt_PT", "pt_BR", "nl_NL", "yo_NG", "tw_GH",
)  # fmt: skip


def _write(name: str, header: str, words: list[str]) -> None:
    lines = [f"# {line}" if line else "#" for line in header.strip().splitlines()]
    (DATA / name).write_text("\n".join([*lines, *words]) + "\n", encoding="utf-8")


def common_words(language: str) -> list[str]:
    from wordfreq import top_n_list

    seen: dict[str, None] = {}
    for word in top_n_list(language, COMMON_WORDS * 2):
        if any(char.isalpha() for char in word):
            seen.setdefault(word.lower(), None)
        if len(seen) == COMMON_WORDS:
            break
    return list(seen)


def _census(path: Path, limit: int | None = None) -> list[str]:
    found = []
    for line in path.read_text(encoding="ascii").splitlines()[:limit]:
        if line.strip():
            found.append(line.split()[0].lower())
    return found


def names(census: Path) -> list[str]:
    found: set[str] = set()
    found.update(_census(census / "dist.male.first"))
    found.update(_census(census / "dist.female.first"))
    found.update(_census(census / "dist.all.last", SURNAMES))
    for locale in FAKER_LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ModuleNotFoundError:
            continue
        for attribute in ("first_names", "last_names", "first_names_male", "first_names_female"):
            for name in getattr(provider, attribute, ()):
                for part in re.split(r"[ ]+", str(name).lower()):
                    if _LATIN_NAME.match(part) and len(part) > 1:
                        found.add(part)
    return sorted(found)


EXTRA_PLACES = """
alabama alaska arizona arkansas california colorado connecticut delaware florida georgia
hawaii idaho illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts
michigan minnesota mississippi missouri montana nebraska nevada new_hampshire new_jersey
new_mexico new_york north_carolina north_dakota ohio oklahoma oregon pennsylvania
rhode_island south_carolina south_dakota tennessee texas utah vermont virginia washington
west_virginia wisconsin wyoming alberta british_columbia manitoba new_brunswick
newfoundland nova_scotia ontario quebec québec saskatchewan yukon nunavut queensland
tasmania new_south_wales western_australia south_australia punjab kerala maharashtra
gujarat karnataka bengal bihar rajasthan tamil_nadu telangana uttar_pradesh kashmir
england scotland wales northern_ireland cornwall devon dorset somerset kent essex sussex
surrey yorkshire lancashire cheshire norfolk suffolk cumbria northumberland durham
hampshire berkshire oxfordshire cambridgeshire lincolnshire derbyshire staffordshire
shropshire herefordshire worcestershire warwickshire leicestershire nottinghamshire
gloucestershire wiltshire merseyside manchester birmingham liverpool leeds sheffield
bristol newcastle nottingham leicester coventry bradford cardiff swansea edinburgh
glasgow aberdeen dundee belfast southampton portsmouth plymouth brighton norwich
cambridge oxford leicester sunderland wolverhampton stoke middlesbrough huddersfield
blackpool bolton bournemouth milton_keynes northampton peterborough preston york
galway limerick waterford kilkenny sligo donegal kerry wexford wicklow
île-de-france normandie normandy bretagne brittany provence alsace lorraine bourgogne
burgundy aquitaine occitanie auvergne corse corsica picardie champagne marseille lyon
toulouse bordeaux lille strasbourg nantes montpellier rennes grenoble toulon dijon
angers nîmes reims saint-étienne clermont-ferrand limoges tours amiens metz perpignan
besançon orléans rouen mulhouse caen nancy avignon poitiers versailles
boston philadelphia houston dallas austin atlanta miami seattle portland baltimore
pittsburgh cleveland cincinnati milwaukee minneapolis nashville memphis orlando tampa
charlotte raleigh richmond sacramento san_diego san_francisco san_jose oakland las_vegas
salt_lake_city albuquerque tucson omaha kansas_city st._louis new_orleans brooklyn
manhattan queens bronx harlem hollywood beverly_hills ottawa calgary edmonton montreal
montréal quebec_city hamilton brisbane perth adelaide canberra auckland wellington
mumbai bombay delhi new_delhi bangalore bengaluru chennai madras hyderabad pune ahmedabad
karachi lahore islamabad peshawar dhaka kabul kandahar tehran isfahan mashhad baghdad
mosul basra erbil aleppo homs damascus beirut tripoli benghazi amman jerusalem gaza
ramallah hebron nablus jenin tel_aviv haifa mecca makkah medina jeddah riyadh dammam
doha dubai abu_dhabi sharjah muscat manama kuwait sanaa aden cairo alexandria giza luxor
aswan khartoum casablanca rabat marrakech marrakesh fes fez tangier tunis sfax sousse
algiers oran constantine annaba istanbul ankara izmir antalya raqqa idlib fallujah
lagos abuja kano nairobi mombasa addis_ababa mogadishu kampala kigali accra dakar
johannesburg cape_town durban pretoria harare lusaka luanda kinshasa
beijing shanghai shenzhen guangzhou wuhan chengdu hong_kong taipei seoul busan tokyo
osaka kyoto manila jakarta bangkok hanoi ho_chi_minh_city kuala_lumpur singapore
moscow kyiv kiev kharkiv odessa minsk warsaw krakow prague budapest vienna munich berlin
hamburg frankfurt cologne stuttgart düsseldorf zurich geneva brussels antwerp amsterdam
rotterdam copenhagen stockholm oslo helsinki barcelona madrid seville valencia lisbon
porto milan rome naples turin florence venice athens sofia bucharest belgrade zagreb
sarajevo
""".split()
# Places that are everyday words, in English or French: proposed only as the names NER or
# the capitalised words find, never from the list in lower case.
EVERYDAY_PLACES = frozenset(
    """turkey china chad jordan georgia nice reading bath mobile split orange victoria
    phoenix cork deal wells hull derby sale eye ware rye cable mali guinea chile niger
    iran oman peru cuba man wales jersey kent durham essex norfolk surrey lincoln
    hamilton richmond portland charlotte austin houston dallas memphis tampa oxford
    cambridge preston york stoke perth tours nancy caen metz reims angers nantes
    lyon lille dijon grenoble toulon queens bronx aden homs erbil sfax luxor
    maine indiana montana virginia washington florida carolina dakota kansas
    india america europe africa asia north south east west central world union
    christmas island islands saint st canada france spain general act center wake
    virgin oral davis stanley easter réunion vienne eastern pacific atlantic mountain
    arctic continental north south west east samoa midway""".split()
)


def places() -> list[str]:
    from zoneinfo import available_timezones

    from babel import Locale

    found: set[str] = set()
    for locale in ("en", "fr"):
        data = Locale.parse(locale)
        for code, name in data.territories.items():
            if code.isalpha() and code not in ("EU", "EZ", "UN", "QO", "XA", "XB", "ZZ"):
                found.add(name.lower())
        found.update(zone["city"].lower() for zone in data.time_zones.values() if zone.get("city"))
    for zone in available_timezones():
        parts = zone.split("/")
        if len(parts) >= 2 and parts[0] not in ("Etc", "SystemV", "US", "Canada", "Brazil"):
            if parts[-1].isupper():
                continue  # "Australia/ACT", "Australia/NSW"
            found.add(parts[-1].replace("_", " ").lower())
    found.update(place.replace("_", " ") for place in EXTRA_PLACES)
    kept = {
        place
        for place in found
        if place not in EVERYDAY_PLACES and re.fullmatch(r"[^\W\d_][\w .'’\-]*", place)
    }
    return sorted(kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--census", type=Path, required=True, help="the `names` package's folder")
    args = parser.parse_args()
    for language in ("en", "fr"):
        _write(
            f"{language}_words.txt",
            f"The {COMMON_WORDS:,} most frequent {language} words, most frequent first, as\n"
            f"wordfreq {version('wordfreq')} counts them (data: CC BY-SA 4.0, Robyn Speer and\n"
            "the wordfreq authors). Written by pseudonymizer/recognizers/wordlists/build.py.",
            common_words(language),
        )
    _write(
        "places.txt",
        "Place names, lower case: CLDR's territories in English and French (babel "
        f"{version('babel')};\nUnicode licence), the IANA time zones' cities (public domain) "
        "and places written for\nCloak. Written by pseudonymizer/recognizers/wordlists/build.py.",
        places(),
    )
    _write(
        "names.txt",
        "Given names and surnames, lower case: the 1990 US census lists (public domain; the\n"
        f"{SURNAMES:,} most frequent surnames) and Faker {version('faker')}'s person providers\n"
        "(MIT). Written by pseudonymizer/recognizers/wordlists/build.py.",
        names(args.census),
    )


if __name__ == "__main__":
    main()
