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
        "names.txt",
        "Given names and surnames, lower case: the 1990 US census lists (public domain; the\n"
        f"{SURNAMES:,} most frequent surnames) and Faker {version('faker')}'s person providers\n"
        "(MIT). Written by pseudonymizer/recognizers/wordlists/build.py.",
        names(args.census),
    )


if __name__ == "__main__":
    main()
