"""Usernames, hashtags, e-mail addresses, phones, URLs, IBANs, cards, IPs and dates keep shape."""

from __future__ import annotations

import ipaddress
import re

from pseudonymizer.checksums import luhn_valid
from pseudonymizer.pseudonyms import suggest
from pseudonymizer.pseudonyms.identifiers.network import mail_domains
from pseudonymizer.pseudonyms.locales import lexicon
from pseudonymizer.pseudonyms.shape import camel_parts, lookup_key, script_of

SECRET = "identifiers-secret"


def test_a_camel_case_username_gets_name_parts_and_a_plausible_year() -> None:
    # The Cloaked Classifiers paper's example: @MaryJohanson1987 → @LaraWilson1989.
    for suggestion in suggest("@MaryJohanson1987", "USERNAME", "en", SECRET, count=5):
        match = re.fullmatch(r"@([A-Z][a-z]+)([A-Z][a-z]+)(\d{4})", suggestion)
        assert match, suggestion
        first, _last, year = match.groups()
        assert lookup_key(first) in lexicon("en_US").female
        assert 1972 <= int(year) <= 2002 and year != "1987"


def test_a_dotted_username_keeps_its_dot_case_and_digit_count() -> None:
    for suggestion in suggest("@marie.delattre1", "USERNAME", "fr", SECRET):
        assert re.fullmatch(r"@[a-z]+\.[a-z]+\d", suggestion), suggestion
        assert lookup_key(suggestion[1:].split(".")[0]) in lexicon("fr_FR").female


def test_a_username_keeps_its_separators_and_its_meaningless_words() -> None:
    for suggestion in suggest("@ProudWolves-Massachusetts-admin", "USERNAME", "en", SECRET):
        head, middle, tail = suggestion[1:].split("-")
        assert suggestion.startswith("@")
        assert len(camel_parts(head)) == 2
        assert middle[0].isupper()
        assert tail == "admin"
    for suggestion in suggest("@emv_officiel", "USERNAME", "fr", SECRET):
        assert re.fullmatch(r"@[a-z]+_officiel", suggestion)


def test_a_lowercase_word_handle_gets_words_of_about_its_length() -> None:
    original = "@handsomephilantropist"
    for suggestion in suggest(original, "USERNAME", "en", SECRET):
        assert re.fullmatch(r"@[a-z]+", suggestion)
        assert abs(len(suggestion) - len(original)) <= len(original) // 4 + 1


def test_hashtags_keep_function_words_separators_and_script() -> None:
    for suggestion in suggest("#JusticeForKyle", "HASHTAG", "en", SECRET):
        parts = camel_parts(suggestion[1:])
        assert suggestion.startswith("#") and len(parts) == 3 and parts[1] == "For"
        assert lookup_key(parts[2]) in lexicon("en_US").male
    for suggestion in suggest("#النصر_قادم", "HASHTAG", "ar", SECRET):
        head, tail = suggestion[1:].split("_")
        assert suggestion.startswith("#") and head.startswith("ال")
        assert script_of(head) == script_of(tail) == "Arab"


def test_email_addresses_keep_public_providers_and_replace_other_domains() -> None:
    for suggestion in suggest("tom.reddle@protonmail.example", "EMAIL", "en", SECRET):
        assert re.fullmatch(r"[a-z]+\.[a-z]+@protonmail\.example", suggestion)
    for suggestion in suggest("Tom.Reddle@gmail.com", "EMAIL", "en", SECRET):
        assert re.fullmatch(r"[A-Z][a-z]+\.[A-Z][a-z]+@gmail\.com", suggestion)
    # A personal or a company's domain (it may name someone) becomes a public provider's,
    # plausible for the country or the language: never a made-up word ("before.fr").
    for suggestion in suggest("a.haddad@northfield.example", "EMAIL", "en", SECRET):
        local, domain = suggestion.split("@")
        assert re.fullmatch(r"[a-z]\.[a-z]+", local)
        assert domain in mail_domains("northfield.example", "en")
    for suggestion in suggest("j.doe@cs.uni-example.co.uk", "EMAIL", "en", SECRET):
        assert suggestion.split("@")[1] in mail_domains("cs.uni-example.co.uk", "en")
    for suggestion in suggest("isaac.lacroix@cabinet-lacroix.fr", "EMAIL", "fr", SECRET):
        assert suggestion.split("@")[1] in ("orange.fr", "free.fr", "sfr.fr", "laposte.net",
                                            "yahoo.fr", "hotmail.fr")  # fmt: skip


def test_phone_numbers_keep_country_code_grouping_and_trunk_prefix() -> None:
    for suggestion in suggest("+44 7700 900461", "PHONE", "en", SECRET):
        assert re.fullmatch(r"\+44 7\d{3} \d{6}", suggestion)
    for suggestion in suggest("06 12 34 56 78", "PHONE", "fr", SECRET):
        assert re.fullmatch(r"06( \d\d){4}", suggestion)
    for suggestion in suggest("(508) 555-0142", "PHONE", "en", SECRET):
        assert re.fullmatch(r"\([2-9]\d\d\) \d{3}-\d{4}", suggestion)
    for suggestion in suggest("+٩٦٣ ٩٤٤ ١٢٣ ٤٥٦", "PHONE", "ar", SECRET):
        assert re.fullmatch(r"\+٩٦٣ [٠-٩]{3} [٠-٩]{3} [٠-٩]{3}", suggestion)


def test_urls_keep_platform_hosts_page_words_and_numbers_in_international_form() -> None:
    for suggestion in suggest("https://t.me/ironwolves_ma", "URL", "en", SECRET):
        assert re.fullmatch(r"https://t\.me/[a-z]+_[a-z]{2}", suggestion)
    for suggestion in suggest("https://wa.me/447700900384", "URL", "en", SECRET):
        assert re.fullmatch(r"https://wa\.me/447\d{9}", suggestion)
    for suggestion in suggest("https://leetchi.example/c/soutien-kyle", "URL", "fr", SECRET):
        assert re.fullmatch(r"https://leetchi\.example/c/[a-z]+-[a-z]+", suggestion)
    for suggestion in suggest("https://www.youtube.com/watch?v=dQw4w9WgXcQ", "URL", "en", SECRET):
        assert suggestion.startswith("https://www.youtube.com/watch?v=")
        assert len(suggestion) == len("https://www.youtube.com/watch?v=dQw4w9WgXcQ")
    for suggestion in suggest("https://janedoe.wordpress.com/about", "URL", "en", SECRET):
        assert suggestion.startswith("https://") and ".wordpress.com/" in suggestion
        assert "janedoe" not in suggestion


def test_a_surface_that_is_plainly_an_address_or_handle_is_treated_as_one() -> None:
    assert suggest("@lenav_88", "PER", "en", SECRET)[0].startswith("@")
    assert "@" in suggest("lena@gmail.com", "PER", "en", SECRET)[0]
    assert suggest("https://t.me/x_y", "ORG", "en", SECRET)[0].startswith("https://t.me/")


def _iban_valid(iban: str) -> bool:
    compact = iban.replace(" ", "")
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def test_ibans_cards_and_ip_addresses_keep_shape_and_checksums() -> None:
    iban = "FR76 3000 6000 0112 3456 7890 189"
    assert _iban_valid(iban)
    for suggestion in suggest(iban, "IBAN", "fr", SECRET):
        assert suggestion.startswith("FR") and _iban_valid(suggestion)
        assert [len(group) for group in suggestion.split()] == [4, 4, 4, 4, 4, 4, 3]
    for suggestion in suggest("4111 1111 1111 1111", "CARD", "en", SECRET):
        assert re.fullmatch(r"4\d{3}( \d{4}){3}", suggestion)
        assert luhn_valid(suggestion.replace(" ", ""))
    for suggestion in suggest("192.168.1.10", "IP", "en", SECRET):
        ipaddress.IPv4Address(suggestion)
        assert [len(octet) for octet in suggestion.split(".")] == [3, 3, 1, 2]
    for suggestion in suggest("2001:db8::ff00:42:8329", "IP_ADDRESS", "en", SECRET):
        ipaddress.IPv6Address(suggestion)
        assert [len(group) for group in suggestion.split(":")] == [4, 3, 0, 4, 2, 4]


def test_dates_and_times_stay_valid_dates_and_times() -> None:
    weekdays = {"monday", "tuesday", "wednesday", "thursday", "saturday", "sunday"}
    assert {s.lower() for s in suggest("Friday", "DATE", "en", SECRET)} <= weekdays
    for suggestion in suggest("12/03/1987", "DATE", "fr", SECRET):
        day, month, year = map(int, suggestion.split("/"))
        assert 1 <= day <= 28 and 1 <= month <= 12 and 1972 <= year <= 2002
    for suggestion in suggest("14:30", "DATE", "en", SECRET):
        hours, minutes = map(int, suggestion.split(":"))
        assert 0 <= hours <= 23 and 0 <= minutes <= 59
    months = "janvier février avril mai juin juillet août septembre octobre novembre décembre"
    for suggestion in suggest("3 mars 2021", "DATE", "fr", SECRET):
        day_text, month_name, year_text = suggestion.split()
        assert month_name in months.split()
        assert 1 <= int(day_text) <= 28 and len(year_text) == 4
    for suggestion in suggest("March 3rd, 2021", "DATE", "en", SECRET):
        assert re.fullmatch(r"[A-Z][a-z]+ \d{1,2}(st|nd|rd|th), \d{4}", suggestion)


def test_other_labels_keep_the_shape_character_by_character() -> None:
    for suggestion in suggest("AB-1234-X", "ID", "en", SECRET):
        assert re.fullmatch(r"[A-Z]{2}-\d{4}-[A-Z]", suggestion)
    for suggestion in suggest("75011", "LOCATION_ZIP", "fr", SECRET):
        assert re.fullmatch(r"[1-9]\d{4}", suggestion)
