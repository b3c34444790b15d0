"""Every gold span of the sample corpora through `suggest`, checked against the shape rules."""

from __future__ import annotations

import re

import pytest

from pseudonymizer.pseudonyms import suggest
from pseudonymizer.pseudonyms.identifiers.network import EMAIL_PROVIDERS, mail_domains
from pseudonymizer.pseudonyms.places import organisation_kind
from pseudonymizer.pseudonyms.shape import (
    case_of,
    digit_zero,
    lookup_key,
    script_of,
    split_whitespace,
)
from tests.pseudonymizer.pseudonyms.conftest import SECRET, GoldSpan, gold_spans

NAMES = gold_spans("PER", "LOC", "ADDRESS", "ORG", "COMP")
HANDLES = gold_spans("USERNAME", "HASHTAG")


def _suggestions(span: GoldSpan) -> list[str]:
    return suggest(span.text, span.label, span.language, SECRET)


def _common_rules(span: GoldSpan, suggestions: list[str]) -> None:
    assert len(suggestions) == 3
    assert len({lookup_key(s) for s in suggestions}) == 3
    assert all(lookup_key(s) != lookup_key(span.text) for s in suggestions)
    assert suggestions == _suggestions(span)  # deterministic


def _digit_runs(text: str) -> list[int]:
    return [len(run) for run in re.findall(r"\d+", text)]


def _separators(text: str) -> str:
    return "".join(re.findall(r"[^\w]|_", text))


@pytest.mark.parametrize("span", NAMES, ids=str)
def test_names_places_and_addresses_keep_tokens_case_and_script(span: GoldSpan) -> None:
    suggestions = _suggestions(span)
    _common_rules(span, suggestions)
    if span.label == "ORG" and organisation_kind(span.text, span.language):
        # A bank becomes a bank, a channel a channel: its own shape is not kept.
        for suggestion in suggestions:
            assert script_of(suggestion) == script_of(span.text), suggestion
        return
    before = split_whitespace(span.text)[0]
    for suggestion in suggestions:
        # French elides "de" before a vowel: "d'Angoulême" holds the original's two words.
        shape = (
            re.sub(r"\bd['’](?=[A-ZÀ-Ý])", "de ", suggestion)
            if span.language == "fr"
            else suggestion
        )
        after = split_whitespace(shape)[0]
        assert len(after) == len(before), suggestion
        assert [case_of(token) for token in after] == [case_of(token) for token in before]
        for old, new in zip(before, after, strict=True):
            assert script_of(new) == script_of(old), (old, new)
            assert _digit_runs(new) == _digit_runs(old)


@pytest.mark.parametrize("span", HANDLES, ids=str)
def test_usernames_and_hashtags_keep_prefix_separators_and_digit_runs(span: GoldSpan) -> None:
    suggestions = _suggestions(span)
    _common_rules(span, suggestions)
    for suggestion in suggestions:
        assert suggestion[0] == span.text[0]
        assert _separators(suggestion[1:]) == _separators(span.text[1:])
        assert _digit_runs(suggestion) == _digit_runs(span.text)
        assert script_of(suggestion) == script_of(span.text)
        assert " " not in suggestion


@pytest.mark.parametrize("span", gold_spans("EMAIL"), ids=str)
def test_email_addresses_keep_their_shape_and_public_providers(span: GoldSpan) -> None:
    suggestions = _suggestions(span)
    _common_rules(span, suggestions)
    local, domain = span.text.rsplit("@", 1)
    for suggestion in suggestions:
        new_local, new_domain = suggestion.rsplit("@", 1)
        assert _separators(new_local) == _separators(local)
        if lookup_key(domain.split(".")[-2]) in EMAIL_PROVIDERS:
            assert new_domain == domain
        else:
            assert new_domain in mail_domains(domain, span.language)


@pytest.mark.parametrize("span", gold_spans("PHONE"), ids=str)
def test_phone_numbers_keep_grouping_country_code_and_digit_script(span: GoldSpan) -> None:
    suggestions = _suggestions(span)
    _common_rules(span, suggestions)
    for suggestion in suggestions:
        assert len(suggestion) == len(span.text)
        for old, new in zip(span.text, suggestion, strict=True):
            assert old.isdigit() == new.isdigit()
            if not old.isdigit():
                assert old == new
            else:
                assert digit_zero(new) == digit_zero(old)  # Arabic-Indic stays Arabic-Indic
        if span.text.startswith("+"):
            code = span.text[1:].split()[0]
            assert suggestion.startswith("+" + code)


@pytest.mark.parametrize("span", gold_spans("URL"), ids=str)
def test_urls_keep_scheme_host_kind_and_structure(span: GoldSpan) -> None:
    suggestions = _suggestions(span)
    _common_rules(span, suggestions)
    scheme = span.text.split("://")[0]
    tld = span.text.split("://")[1].split("/")[0].rsplit(".", 1)[1]
    for suggestion in suggestions:
        assert suggestion.startswith(scheme + "://")
        assert suggestion.split("://")[1].split("/")[0].endswith("." + tld)
        assert suggestion.count("/") == span.text.count("/")
        assert _digit_runs(suggestion) == _digit_runs(span.text)


@pytest.mark.parametrize("span", gold_spans("DATE"), ids=str)
def test_dates_keep_their_shape(span: GoldSpan) -> None:
    suggestions = _suggestions(span)
    _common_rules(span, suggestions)
    for suggestion in suggestions:
        assert _separators(suggestion) == _separators(span.text)
        assert len(split_whitespace(suggestion)[0]) == len(split_whitespace(span.text)[0])


def test_the_sample_corpora_cover_every_kind_of_span() -> None:
    labels = {span.label for span in gold_spans("PER", "LOC", "ADDRESS", "ORG", "COMP")}
    assert labels == {"PER", "LOC", "ADDRESS", "ORG", "COMP"}
    assert {span.language for span in NAMES} == {"en", "fr", "ar"}
    assert len(NAMES) > 80
