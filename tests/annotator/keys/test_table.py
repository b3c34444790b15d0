"""The lead's table: search by blind word index, pages, edits, merge, split, link."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from annotator.errors import DomainError, StaleVersion
from annotator.keys.models import Alias, AliasWord, Entity
from annotator.keys.reads import entity_page as records_page
from annotator.keys.words import query_digests
from annotator.models import AuditAction, AuditEvent, Span, SpanStatus
from annotator.services.table import (
    Choice,
    EntityChange,
    EntityPage,
    KeyFilters,
    ReplacementRefused,
    alias_link,
    entity_get,
    entity_merge,
    entity_split,
    entity_update,
    surface_decide,
)
from annotator.services.table.reads import entity_rows
from tests.factories import DocumentFactory, ProjectFactory, SpanFactory, UserFactory


def decide(project: Any, surface: str, replacement: str | None = None, **kw: Any) -> Choice:
    options: dict[str, Any] = {"language": "en", "label": "PER", "decision": "pseudonymize"}
    options.update(kw)
    return surface_decide(project=project, surface=surface, replacement=replacement, **options)


def entity_page(project: Any, filters: KeyFilters, **kw: Any) -> EntityPage:
    """A page of the table as the door shows it, unaudited (the door audits a person's
    read: `annotator.services.table.entity_page`)."""
    found = records_page(project, filters, **kw)
    return EntityPage(entity_rows(found.records), found.total, found.limit, found.offset)


def ids(project: Any, **filters: Any) -> list[int]:
    return [row.id for row in entity_page(project, KeyFilters(**filters), limit=100).rows]


def span_on(document: Any, surface: str, entity_id: int, **kw: Any) -> Span:
    start = document.text.index(surface)
    return SpanFactory(
        document=document,
        start=start,
        end=start + len(surface),
        status=SpanStatus.ACCEPTED,
        entity_id=entity_id,
        **kw,
    )


@pytest.fixture
def project(db: Any) -> Any:
    return ProjectFactory()


def test_an_alias_is_indexed_by_digests_of_its_folded_words(project: Any) -> None:
    choice = decide(project, "Moshe Châya", "Raj Avrom")
    digests = set(
        AliasWord.objects.filter(alias_id=choice.alias_id).values_list("digest", flat=True)
    )
    assert set(query_digests(project.secret, "moshe CHAYA")) <= digests
    # Nothing in the index reads as a word of the original.
    assert not any("moshe" in digest or "chaya" in digest for digest in digests)
    # The words cut from it ("Moshe" → "Raj") are indexed too.
    token = Alias.objects.get(parent_id=choice.alias_id, replacement="Raj")
    assert AliasWord.objects.filter(alias=token).count() == 1


def test_search_finds_a_word_whatever_its_case_accents_or_arabic_variants(project: Any) -> None:
    moshe = decide(project, "Moshe Châya", "Raj Avrom").entity_id
    arabic = decide(project, "أحمد الفاسي", "كريم منصور", language="ar").entity_id
    decide(project, "Tom Reddle", "Sam Bell")
    assert ids(project, q="chaya") == [moshe]
    assert ids(project, q="MOSHE   châya") == [moshe]
    assert ids(project, q="احمد") == [arabic]  # hamza seat folded
    assert ids(project, q="moshe reddle") == []  # every word, in one alias
    assert ids(project, q="avrom") == [moshe]  # a word of the replacement
    assert ids(project, q=f"#{arabic}") == [arabic]
    assert ids(project, q="nobody") == []


def test_filters_and_pages(project: Any) -> None:
    people = [decide(project, f"Person{n} Name", f"Pseudo{n} Other").entity_id for n in range(5)]
    place = decide(project, "Rue Alphonse", "Rue Hubert", label="LOC", language="fr").entity_id
    kept = decide(project, "Emmanuel Macron", decision="keep", keep_reason="public").entity_id
    assert ids(project, label="LOC") == [place]
    assert ids(project, language="fr") == [place]
    assert ids(project, decision="keep") == [kept]
    first = entity_page(project, KeyFilters(label="PER"), limit=4)
    second = entity_page(project, KeyFilters(label="PER"), limit=4, offset=4)
    assert first.total == second.total == 6
    assert first.has_next and not second.has_next and second.has_previous
    assert [r.id for r in first.rows + second.rows] == sorted([*people, kept], reverse=True)


def test_a_row_decrypts_its_aliases_and_counts_its_spans(project: Any) -> None:
    lead = UserFactory()
    choice = decide(project, "Moshe Chaya", "Raj Avrom", actor=lead)
    document = DocumentFactory(project=project)
    span_on(document, "Moshe Chaya", choice.entity_id)
    row = entity_get(project, choice.entity_id)
    assert row.span_count == 1
    assert row.created_by == lead.username
    assert [(a.original, a.replacement, a.token) for a in row.aliases] == [
        ("Moshe Chaya", "Raj Avrom", False),
        ("Moshe", "Raj", True),
        ("Chaya", "Avrom", True),
    ]


def test_a_page_costs_the_same_few_queries_whatever_its_size(
    project: Any, django_assert_max_num_queries: Any
) -> None:
    for n in range(30):
        decide(project, f"Person{n} Name{n}", f"Pseudo{n} Other{n}")
    with django_assert_max_num_queries(5):
        page = entity_page(project, KeyFilters(q="name3"), limit=25)
    assert page.total == 1


def test_editing_a_replacement_recuts_its_words_and_is_audited_without_originals(
    project: Any,
) -> None:
    lead = UserFactory()
    choice = decide(project, "Moshe Chaya", "Raj Avrom")
    entity = Entity.objects.get(pk=choice.entity_id)
    row = entity_update(
        project=project,
        entity_id=entity.pk,
        actor=lead,
        version=entity.version,
        change=EntityChange(replacements={choice.alias_id: "Ezra Lamm"}),
    )
    assert row.version == entity.version + 1
    assert {(a.original, a.replacement) for a in row.aliases} == {
        ("Moshe Chaya", "Ezra Lamm"),
        ("Moshe", "Ezra"),
        ("Chaya", "Lamm"),
    }
    assert ids(project, q="lamm") == [entity.pk]
    assert ids(project, q="avrom") == []
    event = AuditEvent.objects.get(action=AuditAction.KEY_EDIT)
    assert event.target == f"entity:{entity.pk}" and event.actor == lead
    assert "Moshe" not in str(event.detail) and "Chaya" not in str(event.detail)


def test_a_stale_version_changes_nothing(project: Any) -> None:
    choice = decide(project, "Moshe Chaya", "Raj Avrom")
    with pytest.raises(StaleVersion):
        entity_update(
            project=project,
            entity_id=choice.entity_id,
            actor=None,
            version=99,
            change=EntityChange(replacements={choice.alias_id: "Ezra Lamm"}),
        )
    assert Alias.objects.get(pk=choice.alias_id).replacement == "Raj Avrom"


@pytest.mark.parametrize(
    ("replacement", "reason"),
    [
        ("", "empty"),
        ("moshe chaya", "the original itself"),
        ("Tom Reddle", "an original in the project's table"),
        ("Sam Bell", "another surface already has"),
        ("Alphonse Metayer", "occurs in a document"),  # as the document writes it
        ("ALPHONSE MÉTAYER", "occurs in a document"),  # case and accents folded
    ],
)
def test_a_replacement_that_is_an_original_or_taken_is_refused(
    project: Any, replacement: str, reason: str
) -> None:
    DocumentFactory(project=project)  # "… At Rue Alphonse Metayer."
    choice = decide(project, "Moshe Chaya", "Raj Avrom")
    decide(project, "Tom Reddle", "Sam Bell")
    with pytest.raises(ReplacementRefused, match=reason):
        entity_update(
            project=project,
            entity_id=choice.entity_id,
            actor=None,
            version=1,
            change=EntityChange(replacements={choice.alias_id: replacement}),
        )
    assert Alias.objects.get(pk=choice.alias_id).replacement == "Raj Avrom"
    # Audited as refused (issue 32): its kind, never the pseudonym asked for.
    (refused,) = AuditEvent.objects.all()
    assert refused.detail == {"action": "edit", "refused": "refused"}


def test_a_pseudonym_inside_a_longer_word_of_a_document_is_allowed(project: Any) -> None:
    DocumentFactory(project=project, text="Shoutout to Moshe Chaya at Metayerville.")
    choice = decide(project, "Moshe Chaya", "Raj Avrom")
    row = entity_update(
        project=project,
        entity_id=choice.entity_id,
        actor=None,
        version=1,
        change=EntityChange(replacements={choice.alias_id: "Metayer Ville"}),
    )
    assert row.names[0].replacement == "Metayer Ville"


def test_a_decision_change_reaches_every_span_of_the_entity(project: Any) -> None:
    choice = decide(project, "Moshe Chaya", "Raj Avrom")
    document = DocumentFactory(project=project)
    span = span_on(document, "Moshe Chaya", choice.entity_id)
    other = span_on(DocumentFactory(project=project), "Moshe Chaya", choice.entity_id)
    row = entity_update(
        project=project,
        entity_id=choice.entity_id,
        actor=None,
        version=1,
        change=EntityChange(decision="keep", keep_reason="a public figure"),
    )
    assert row.decision == "keep" and all(a.replacement == "" for a in row.aliases)
    for before in (span, other):
        after = Span.objects.get(pk=before.pk)
        assert (after.decision, after.keep_reason) == ("keep", "a public figure")
        assert after.version == before.version + 1
    # And back: a pseudonym is drawn, and its words cut again.
    row = entity_update(
        project=project,
        entity_id=choice.entity_id,
        actor=None,
        version=2,
        change=EntityChange(decision="pseudonymize"),
    )
    assert row.names[0].replacement and len(row.aliases) == 3
    assert Span.objects.get(pk=span.pk).keep_reason == ""


def test_keeping_needs_a_reason(project: Any) -> None:
    choice = decide(project, "Moshe Chaya", "Raj Avrom")
    with pytest.raises(DomainError, match="say why"):
        entity_update(
            project=project,
            entity_id=choice.entity_id,
            actor=None,
            version=1,
            change=EntityChange(decision="keep"),
        )


def test_merge_moves_aliases_and_spans_and_needs_a_decision_when_they_differ(
    project: Any,
) -> None:
    english = decide(project, "Moshe Chaya", "Raj Avrom")
    arabic = decide(project, "موشيه حايا", language="ar", decision="keep", keep_reason="x")
    document = DocumentFactory(project=project, language="ar", text="قال موشيه حايا شيئا")
    span = span_on(document, "موشيه حايا", arabic.entity_id, decision="keep", keep_reason="x")
    with pytest.raises(DomainError, match="say which decision"):
        entity_merge(
            project=project,
            entity_id=english.entity_id,
            other_id=arabic.entity_id,
            actor=None,
            version=1,
            other_version=1,
        )
    row = entity_merge(
        project=project,
        entity_id=english.entity_id,
        other_id=arabic.entity_id,
        actor=None,
        version=1,
        other_version=1,
        decision="pseudonymize",
    )
    assert not Entity.objects.filter(pk=arabic.entity_id).exists()
    by_original = {a.original: a.replacement for a in row.aliases}
    assert by_original["Moshe Chaya"] == "Raj Avrom"
    assert by_original["موشيه حايا"]  # drawn now that it is pseudonymized
    moved = Span.objects.get(pk=span.pk)
    assert (moved.entity_id, moved.decision, moved.keep_reason) == (row.id, "pseudonymize", "")


def test_split_moves_chosen_aliases_and_the_spans_of_their_surfaces(project: Any) -> None:
    english = decide(project, "Moshe Chaya", "Raj Avrom")
    arabic = decide(project, "موشيه حايا", language="ar")
    entity_merge(
        project=project,
        entity_id=english.entity_id,
        other_id=arabic.entity_id,
        actor=None,
        version=1,
        other_version=1,
    )
    ar_doc = DocumentFactory(project=project, language="ar", text="قال موشيه حايا شيئا")
    en_doc = DocumentFactory(project=project)
    ar_span = span_on(ar_doc, "موشيه حايا", english.entity_id)
    en_span = span_on(en_doc, "Moshe Chaya", english.entity_id)
    word_span = span_on(en_doc, "Moshe", english.entity_id)  # the token-level alias's
    with pytest.raises(DomainError, match="at least one"):
        entity_split(
            project=project,
            entity_id=english.entity_id,
            alias_ids=[english.alias_id, arabic.alias_id],
            actor=None,
            version=2,
        )
    kept, new = entity_split(
        project=project,
        entity_id=english.entity_id,
        alias_ids=[english.alias_id],
        actor=None,
        version=2,
    )
    assert {a.original for a in new.aliases} == {"Moshe Chaya", "Moshe", "Chaya"}
    assert {a.original for a in kept.aliases} == {"موشيه حايا", "موشيه", "حايا"}
    assert Span.objects.get(pk=en_span.pk).entity_id == new.id
    assert Span.objects.get(pk=word_span.pk).entity_id == new.id
    assert Span.objects.get(pk=ar_span.pk).entity_id == kept.id
    assert (new.label, new.decision) == (kept.label, kept.decision)


def test_a_word_cut_from_a_name_splits_off_as_another_persons_name(project: Any) -> None:
    """Issue 29, 6: "Postlethwaite" of "Ottoline Postlethwaite" is another person elsewhere;
    the lead splits the word alone, which takes its spans and a pseudonym of its own."""
    full = decide(project, "Ottoline Postlethwaite", "Mabel Thornbury")
    row = entity_get(project=project, entity_id=full.entity_id)
    (word,) = [a for a in row.aliases if a.original == "Postlethwaite"]
    assert word.token and word.replacement == "Thornbury"
    document = DocumentFactory(
        project=project, text="Charles Postlethwaite and Ottoline Postlethwaite."
    )
    alone = span_on(document, "Postlethwaite", full.entity_id)
    whole = span_on(document, "Ottoline Postlethwaite", full.entity_id)
    with pytest.raises(DomainError, match="is not a name of entity"):
        entity_split(project=project, entity_id=full.entity_id, alias_ids=[10**9], actor=None,
                     version=1)  # fmt: skip

    kept, new = entity_split(project=project, entity_id=full.entity_id, alias_ids=[word.id],
                             actor=None, version=1)  # fmt: skip

    (moved,) = new.aliases
    assert (moved.id, moved.original, moved.token) == (word.id, "Postlethwaite", False)
    assert moved.replacement and "Thornbury" not in moved.replacement
    assert {a.original for a in kept.aliases} == {"Ottoline Postlethwaite", "Ottoline"}
    assert Span.objects.get(pk=alone.pk).entity_id == new.id
    assert Span.objects.get(pk=whole.pk).entity_id == kept.id
    # Cutting the longer name's words again leaves the word where it is now.
    entity_update(project=project, entity_id=kept.id, actor=None, version=kept.version,
                  change=EntityChange(replacements={full.alias_id: "Agnes Pike"}))  # fmt: skip
    again = entity_get(project=project, entity_id=kept.id)
    assert {a.original for a in again.aliases} == {"Ottoline Postlethwaite", "Ottoline"}
    assert entity_get(project=project, entity_id=new.id).aliases[0].id == word.id


def test_link_moves_one_alias_and_its_spans_and_drops_an_emptied_entity(project: Any) -> None:
    english = decide(project, "Moshe Chaya", "Raj Avrom")
    arabic = decide(project, "موشيه حايا", language="ar")
    document = DocumentFactory(project=project, language="ar", text="قال موشيه حايا شيئا")
    span = span_on(document, "موشيه حايا", arabic.entity_id)
    row = alias_link(
        project=project,
        entity_id=english.entity_id,
        alias_id=arabic.alias_id,
        actor=None,
        version=1,
    )
    assert arabic.alias_id in {a.id for a in row.aliases}
    assert not Entity.objects.filter(pk=arabic.entity_id).exists()
    assert Span.objects.get(pk=span.pk).entity_id == english.entity_id
    with pytest.raises(DomainError, match="already"):
        alias_link(
            project=project,
            entity_id=english.entity_id,
            alias_id=arabic.alias_id,
            actor=None,
            version=None,
        )
    token = Alias.objects.filter(parent_id=english.alias_id).first()
    assert token is not None
    other = decide(project, "Tom Reddle", "Sam Bell")
    with pytest.raises(DomainError, match="cut from a longer name"):
        alias_link(
            project=project, entity_id=other.entity_id, alias_id=token.pk, actor=None, version=None
        )


def test_entities_of_another_project_are_out_of_reach(project: Any) -> None:
    mine = decide(project, "Moshe Chaya", "Raj Avrom")
    theirs = decide(ProjectFactory(), "Tom Reddle", "Sam Bell")
    with pytest.raises(DomainError, match="no entity"):
        entity_merge(
            project=project,
            entity_id=mine.entity_id,
            other_id=theirs.entity_id,
            actor=None,
            version=None,
            other_version=None,
        )
    with pytest.raises(DomainError, match="no alias"):
        alias_link(
            project=project, entity_id=mine.entity_id, alias_id=theirs.alias_id, actor=None,
            version=None,
        )  # fmt: skip
    assert ids(project, q=f"#{theirs.entity_id}") == []


def test_the_backfill_indexes_aliases_recorded_before_the_index(project: Any) -> None:
    from importlib import import_module

    from django.apps import apps

    choice = decide(project, "Moshe Chaya", "Raj Avrom")
    AliasWord.objects.all().delete()
    assert ids(project, q="chaya") == []
    migration = import_module("annotator.keys.migrations.0004_backfill_alias_words")
    with connection.schema_editor() as editor:
        migration.backfill(apps, editor)
    assert ids(project, q="chaya") == [choice.entity_id]


def test_no_edit_event_holds_an_original(project: Any) -> None:
    english = decide(project, "Moshe Chaya", "Raj Avrom")
    arabic = decide(project, "موشيه حايا", language="ar")
    entity_merge(
        project=project,
        entity_id=english.entity_id,
        other_id=arabic.entity_id,
        actor=None,
        version=1,
        other_version=1,
    )
    entity_split(
        project=project, entity_id=english.entity_id, alias_ids=[arabic.alias_id], actor=None,
        version=2,
    )  # fmt: skip
    alias_link(
        project=project,
        entity_id=english.entity_id,
        alias_id=arabic.alias_id,
        actor=None,
        version=3,
    )
    details = [str(e.detail) + e.target for e in AuditEvent.objects.all()]
    assert len(details) == 4  # merge, split (both entities), link
    for original in ("Moshe", "Chaya", "موشيه", "حايا"):
        assert not any(original in detail for detail in details)
