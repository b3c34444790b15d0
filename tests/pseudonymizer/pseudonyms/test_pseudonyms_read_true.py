"""Issue 31: pseudonyms that read true. 1,000 draws per label and language, each checked
against the rules: no name with a suffix glued on ("TraoreVille", "Anthonyberg"), no
organisation replaced by a bare surname, a street keeps its type word, an e-mail at a
personal domain moves to a provider plausible for the country."""

from __future__ import annotations

import re

import pytest

from pseudonymizer.pseudonyms import suggest
from pseudonymizer.pseudonyms.identifiers.network import mail_domains
from pseudonymizer.pseudonyms.locales import is_last_name, lookup_locales
from pseudonymizer.pseudonyms.organisations import _PATTERNS, _PLATFORM_ENDINGS
from pseudonymizer.pseudonyms.shape import script_of
from pseudonymizer.pseudonyms.towns import towns

DRAWS = 1000

ORIGINALS = {
    ("LOC", "en"): ["Bristol", "Leeds", "Boston", "Nottingham", "Portland"],
    ("LOC", "fr"): ["Lyon", "Marseille", "Nantes", "Grenoble", "Saint-Étienne"],
    ("LOC", "ar"): ["الإسكندرية", "القاهرة", "وهران", "الرباط", "صفاقس"],
    ("ORG", "en"): ["Barclays", "Facebook", "Thornbury", "Ministry of Defence", "Arsenal"],
    ("ORG", "fr"): [
        "Crédit Agricole",
        "Telegram",
        "Ministère de l'Intérieur",
        "Stade Rennais",
        "Le Monde",
    ],
    ("ORG", "ar"): ["الجزيرة", "فيسبوك", "الوداد", "التجاري وفا بنك", "جازي"],
    ("ADDRESS", "fr"): ["rue de la République", "avenue Jean Jaurès", "boulevard Voltaire"],
    ("ADDRESS", "en"): ["Baker Street", "Mill Road", "Station Lane"],
    ("EMAIL", "fr"): ["isaac.lacroix@cabinet-lacroix.fr", "m.dupont@asso-quartier.org"],
    ("EMAIL", "en"): ["margaret.thornbury@thornbury-law.co.uk", "j.smith@smithfamily.net"],
}
# A glued suffix: a lower-case letter then a capital inside one word (TraoreVille), or one of
# Faker's city endings glued to a name.
_BAD_ELISION = re.compile(r"\b[lLdD]['’][BCDFGJKLMNPQRSTVWXZ]|\b[dD]e [AEIOUYÉÈÊÀÂÎÔÛ]")
_INNER_CAPITAL = re.compile(r"[a-zà-ÿ][A-Z]")
_GLUED = re.compile(r"[a-zà-ÿ][A-Z]|(?:berg|burgh|furt|mouth|chester|view|ville|fort|haven)$")


def _draws(original: str, label: str, language: str, count: int) -> list[str]:
    return [suggest(original, label, language, f"secret-{index}", count=1)[0]
            for index in range(count)]  # fmt: skip


@pytest.mark.parametrize(("label", "language"), sorted(ORIGINALS))
def test_a_thousand_pseudonyms_per_label_and_language_read_true(label: str, language: str) -> None:
    originals = ORIGINALS[(label, language)]
    per = -(-DRAWS // len(originals))
    seen = 0
    place_names = set(towns(language)) | set(towns("en"))
    kind_words = {
        word.casefold()
        for kind in _PATTERNS.values()
        for patterns in kind.values()
        for pattern in patterns
        for word in pattern.replace("{town}", " ").split()
    }
    for original in originals:
        for drawn in _draws(original, label, language, per):
            seen += 1
            assert drawn.casefold() != original.casefold()
            if language == "fr":  # French elides: "d'Angoulême", "de Chartres", never "l'Chartres"
                assert not _BAD_ELISION.search(drawn), (original, drawn)
            if label == "LOC":
                assert drawn in place_names or not any(
                    _GLUED.search(word) and word not in place_names for word in drawn.split()
                ), (original, drawn)
                assert script_of(drawn) == script_of(original), (original, drawn)
            elif label == "ORG":
                words = drawn.split()
                platform = len(words) == 1 and drawn.endswith(_PLATFORM_ENDINGS)
                has_kind = any(word.casefold() in kind_words for word in words)
                locales = lookup_locales({"en": "en_US", "fr": "fr_FR", "ar": "ar_SA"}[language])
                bare_surname = len(words) == 1 and is_last_name(drawn, locales)
                assert (platform or has_kind) and not bare_surname, (original, drawn)
            elif label == "ADDRESS":
                types = {"rue", "avenue", "boulevard", "street", "road", "lane"}
                kept = [word for word in original.split() if word.casefold() in types]
                assert kept and all(word in drawn.split() for word in kept), (original, drawn)
                assert not any(_INNER_CAPITAL.search(word) for word in drawn.split()), drawn
            elif label == "EMAIL":
                domain = original.rpartition("@")[2]
                assert drawn.rpartition("@")[2] in mail_domains(domain, language), drawn
    assert seen >= DRAWS
