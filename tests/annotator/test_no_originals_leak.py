"""No original leaves the correspondence table except where a person may see it.

An *original* is a surface recorded in the correspondence table (`Alias`, token-level aliases
included): a name as it is written in a document. The table keeps it encrypted and looks it up
by keyed digest. Three places must never hold one in clear:

(a) a dump of the key tables (`keys_entity`, `keys_alias`, `keys_aliasword`,
    `keys_reviewnote`), taken by `pg_dump`, as someone who steals the database would;
(b) the logs, at DEBUG for every logger (Django's SQL and its parameters included), while
    people decide, propose (propagation, known-entity pre-annotation) and open pages;
(c) any page or API answer an annotator can request. An annotator may read the documents of
    their languages, originals and all. An original they *may not see* is one that occurs in
    none of those documents (compared as the table compares surfaces: case, NFC and spaces
    folded): for an annotator of French, the names decided in the English and Arabic
    documents. No answer they get, 200, 403 or 404, may contain one.

Each check also looks for the original's case-folded form, and proves it would see a leak
(the dump holds the key rows; the logs hold the SQL that touched the key tables).

And the web role's own tables (`annotator_*`) hold no pseudonym beside what names its
original: a review item names a document, a span and an entity, so a pseudonym in it would
pair with the document's text. After a conflict of every kind and a resolution, a dump of
those tables (the documents' own text aside) holds neither an original nor a pseudonym.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from typing import Any

import pytest
from django.db import connections
from django.urls import reverse

from annotator.keys import crypto
from annotator.keys.models import Alias, ReviewNote
from annotator.models import AuditAction, AuditEvent, Project, ReviewItem, ReviewKind, Role
from annotator.routers import keys_alias
from annotator.services.review.resolve import review_resolve
from annotator.services.review.scan import review_scan
from annotator.services.runs import run_create
from annotator.services.spans import span_create
from annotator.services.table import SurfaceConflict, surface_decide
from tests.annotator.test_access import MATRIX, targets  # noqa: F401  (a fixture)
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

ENGLISH = "Moshe Chaya"
ARABIC = "موشيه حايا"
FRENCH = "Élodie Brûlé"
OTHER_TEXT = "Rue Alphonse Metayer"  # in the English document, never a French reader's


def _decide(project: Project, surface: str, language: str, replacement: str | None = None) -> None:
    surface_decide(
        project=project,
        surface=surface,
        language=language,
        label="PER",
        decision="pseudonymize",
        replacement=replacement,
    )


def _originals(project: Project) -> list[str]:
    """Every original of the table, decrypted (the test's own look, never the app's)."""
    rows = Alias.objects.using(keys_alias()).filter(project_id=project.pk)
    return [alias.original for alias in rows]


def _leaks(text: str, originals: list[str]) -> list[str]:
    folded = text.casefold()
    return [o for o in originals if o in text or crypto.normalise_surface(o) in folded]


@pytest.fixture
def corpus(team: Team) -> Team:
    """Three documents, one per language, each with a decided name."""
    DocumentFactory(project=team.project, language="ar", text=f"كتب {ARABIC} رسالة.", assignee=None)
    DocumentFactory(
        project=team.project,
        language="fr",
        text=f"Merci à {FRENCH} pour son aide.",
        assignee=team.annotator_fr,
    )
    _decide(team.project, ENGLISH, "en", "Raj Avrom")  # as the access matrix's `targets`
    _decide(team.project, ARABIC, "ar")
    _decide(team.project, FRENCH, "fr")
    return team


@pytest.mark.django_db(transaction=True)
def test_a_dump_of_the_key_tables_holds_no_original(corpus: Team) -> None:
    pg_dump = shutil.which("pg_dump")
    database = connections[keys_alias()].settings_dict
    if not str(database["ENGINE"]).endswith("postgresql") or pg_dump is None:
        pytest.skip("needs PostgreSQL and pg_dump")
    originals = _originals(corpus.project)
    assert {ENGLISH, ARABIC, FRENCH, "Moshe", "Chaya"} <= set(originals)
    replacements = list(
        Alias.objects.using(keys_alias())
        .exclude(replacement="")
        .values_list("replacement", flat=True)
    )

    dump = subprocess.run(
        [
            pg_dump,
            "--data-only",
            "--no-owner",
            "-t",
            "keys_alias",
            "-t",
            "keys_entity",
            "-t",
            "keys_aliasword",
            "-t",
            "keys_reviewnote",
            "-h",
            database["HOST"] or "127.0.0.1",
            "-p",
            str(database["PORT"] or 5432),
            "-U",
            database["USER"],
            database["NAME"],
        ],  # fmt: skip
        env={**os.environ, "PGPASSWORD": database["PASSWORD"] or ""},
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode("utf-8")

    assert "COPY public.keys_alias" in dump or "keys_alias" in dump
    assert all(replacement in dump for replacement in replacements)  # the rows are there
    assert _leaks(dump, originals) == []


@pytest.mark.django_db
def test_no_original_reaches_the_logs_at_debug(
    corpus: Team, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # Django logs every query with its parameters at DEBUG, when DEBUG is on.
    settings.DEBUG = True
    for name in (None, "django", "django.db.backends", "annotator", "celery", "pseudonymizer"):
        caplog.set_level(logging.DEBUG, logger=name)
    team = corpus
    slug = team.project.slug
    first = DocumentFactory(project=team.project, language="en", assignee=team.annotator_en)
    second = DocumentFactory(
        project=team.project, language="en", text=f"Again {ENGLISH}.", assignee=team.annotator_en
    )
    annotator = client_for(team.annotator_en)
    lead = client_for(team.lead)
    caplog.clear()

    # Deciding: a new surface through the span API (its propagation proposes it elsewhere),
    # and a known one by the service.
    start = first.text.index(OTHER_TEXT)
    created = annotator.post(
        reverse("api-span-list", kwargs={"slug": slug, "pk": first.pk}),
        {"start": start, "end": start + len(OTHER_TEXT), "label": "LOC"},
        content_type="application/json",
    )
    assert created.status_code == 201, created.content
    _decide(team.project, ENGLISH.upper(), "en")
    # Proposing: the known entities pre-annotate every English document.
    run_create(project=team.project, actor=team.admin, language="en", use_ner=False)
    # Pages: the workspace and its suggestions, the lead's table and a search by name.
    span = SpanFactory(document=second, start=6, end=6 + len(ENGLISH), label="PER")
    on_span = {"slug": slug, "pk": second.pk, "span_id": span.pk}
    for url in (
        reverse("document_detail", kwargs={"slug": slug, "pk": second.pk}),
        reverse("span_suggestions", kwargs=on_span),
        reverse("api-span-list", kwargs={"slug": slug, "pk": second.pk}),
    ):
        assert annotator.get(url).status_code == 200, url
    searched = lead.get(reverse("key_list", kwargs={"slug": slug}), {"q": "Chaya"}, follow=True)
    assert searched.status_code == 200  # a search in the address goes to a sealed one

    originals = _originals(team.project)
    assert OTHER_TEXT in originals
    logged = caplog.text + "\n".join(str(record.args) for record in caplog.records)
    assert "keys_alias" in logged  # the SQL that read and wrote the table was logged
    assert _leaks(logged, originals) == []


@pytest.mark.django_db
def test_no_answer_to_an_annotator_shows_an_original_they_may_not_see(
    corpus: Team,
    targets: dict[str, str],  # noqa: F811  (the fixture imported above)
) -> None:
    team = corpus
    reader = team.annotator_fr
    readable = [d.text for d in team.project.documents.filter(language__in=["fr"])]
    forbidden = [
        original
        for original in _originals(team.project)
        if not any(
            crypto.normalise_surface(original) in crypto.normalise_surface(t) for t in readable
        )
    ] + [OTHER_TEXT]
    assert {ENGLISH, ARABIC} <= set(forbidden)
    assert FRENCH not in forbidden
    own = team.project.documents.get(language="fr")
    span = SpanFactory(document=own, start=8, end=8 + len(FRENCH), label="PER")
    slug = team.project.slug
    on_span = {"slug": slug, "pk": own.pk, "span_id": span.pk}
    # Every page and endpoint of the access matrix, but the API's schema and docs: they are
    # built from the code alone, the same for everyone (and their examples name Moshe Chaya).
    static = {"api-schema", "api-docs"}
    urls = [
        url for name, url in targets.items() if MATRIX[name][0] == "get" and name not in static
    ] + [
        reverse("document_detail", kwargs={"slug": slug, "pk": own.pk}),
        reverse("document_preview", kwargs={"slug": slug, "pk": own.pk}),
        reverse("span_suggestions", kwargs=on_span),
        reverse("span_editor", kwargs=on_span),
        reverse("api-document-detail", kwargs={"slug": slug, "pk": own.pk}),
        reverse("api-span-list", kwargs={"slug": slug, "pk": own.pk}),
        reverse("api-span-suggestions", kwargs=on_span),
    ]
    client = client_for(reader)
    assert team.project.memberships.get(user=reader).role == Role.ANNOTATOR

    answers = {url: client.get(url) for url in urls}

    assert answers[urls[-7]].status_code == 200  # their own document opens
    assert FRENCH in answers[urls[-7]].content.decode()  # ... with its own original
    for url, answer in answers.items():
        assert _leaks(answer.content.decode(), forbidden) == [], (url, answer.status_code)


def _dump_web_tables(*tables: str) -> str:
    """The web role's tables, as `pg_dump` gives them (their data only)."""
    pg_dump = shutil.which("pg_dump")
    database = connections["default"].settings_dict
    if not str(database["ENGINE"]).endswith("postgresql") or pg_dump is None:
        pytest.skip("needs PostgreSQL and pg_dump")
    names = [argument for table in tables for argument in ("-t", table)]
    return subprocess.run(
        [pg_dump, "--data-only", "--no-owner", *names, "-T", "annotator_document",
         "-h", database["HOST"] or "127.0.0.1", "-p", str(database["PORT"] or 5432),
         "-U", database["USER"], database["NAME"]],
        env={**os.environ, "PGPASSWORD": database["PASSWORD"] or ""},
        capture_output=True, check=True, timeout=60,
    ).stdout.decode("utf-8")  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_no_review_item_pairs_an_original_with_its_pseudonym_for_the_web_role(
    corpus: Team,
) -> None:
    team = corpus
    project = team.project
    text = f"Dear {ENGLISH}, write to Zorba Quintrell at {OTHER_TEXT}."
    # A pseudonym that occurs as an original: "Zorba Quintrell" is written in the document,
    # imported after the choice (a pseudonym found in the corpus is refused when given).
    surface_decide(
        project=project, surface="Acme Corp", language="en", label="ORG",
        decision="pseudonymize", replacement="Zorba Quintrell",
    )  # fmt: skip
    document = DocumentFactory(project=project, language="en", text=text)
    # One word given two pseudonyms: "Moshe" is "Raj" in "Raj Avrom" and "Dov" in "Dov Levi".
    choice = surface_decide(
        project=project, surface=ENGLISH, language="en", label="PER", decision="pseudonymize"
    )
    entity_id = choice.entity_id
    alias = Alias(entity_id=entity_id, project_id=project.pk, language="en")
    alias.set_original("Moshe Cohen", project.secret)
    alias.set_replacement("Dov Levi")
    alias.save(using=keys_alias())
    # A choice the table refused: the annotator wanted another pseudonym for Moshe Chaya.
    start = text.index(ENGLISH)
    with pytest.raises(SurfaceConflict):
        span_create(
            document=document, actor=team.annotator_en, start=start, end=start + len(ENGLISH),
            label="PER", decision="pseudonymize", replacement="Quill Wanted",
        )  # fmt: skip
    review_scan(project=project)
    kinds = set(ReviewItem.objects.filter(project=project).values_list("kind", flat=True))
    assert {ReviewKind.ENTITY_CONFLICT, ReviewKind.ORIGINAL_REPLACEMENT,
            ReviewKind.SURFACE_CONFLICT} <= kinds  # fmt: skip
    # The lead resolves the entity conflict with a pseudonym of their own.
    conflict = ReviewItem.objects.get(project=project, kind=ReviewKind.ENTITY_CONFLICT)
    review_resolve(
        item=conflict, actor=team.lead, rationale="One name, one pseudonym.",
        decision="pseudonymize", replacement="Ezra Vantongeren",
    )  # fmt: skip
    pseudonyms = ["Raj Avrom", "Dov Levi", "Zorba Quintrell", "Quill Wanted", "Ezra Vantongeren"]
    current = [a.replacement for a in Alias.objects.using(keys_alias()).filter(entity_id=entity_id)]
    assert "Ezra Vantongeren" in current  # the resolution applied it
    pseudonyms += [p for p in current if p and " " in p]
    kept = ReviewNote.objects.using(keys_alias()).filter(project_id=project.pk)
    assert kept.count() >= 3  # the pseudonyms are kept, with the keys

    dump = _dump_web_tables("annotator_*")

    assert "original_replacement" in dump and "entity_conflict" in dump  # the items are there
    found = [p for p in pseudonyms if p.casefold() in dump.casefold()]
    assert found == []
    assert _leaks(dump, [ENGLISH, "Moshe Cohen", "Acme Corp", OTHER_TEXT]) == []

    # The lead still reads them, each read audited as one of the table.
    lead = client_for(team.lead)
    slug = project.slug
    reads = AuditEvent.objects.filter(project=project, action=AuditAction.KEY_READ).count()
    queue = lead.get(reverse("review_list", kwargs={"slug": slug}), {"status": "all"})
    answer = lead.get(reverse("api-review-list", kwargs={"slug": slug}), {"status": "all"})
    page = lead.get(reverse("review_detail", kwargs={"slug": slug, "pk": conflict.pk}))
    assert queue.status_code == answer.status_code == page.status_code == 200
    assert "Zorba Quintrell" in queue.content.decode()
    assert "Dov Levi" in answer.content.decode() and "Quill Wanted" in answer.content.decode()
    assert "Ezra Vantongeren" in page.content.decode()
    events = AuditEvent.objects.filter(project=project, action=AuditAction.KEY_READ)
    assert events.count() == reads + 3
    assert all(event.detail.get("view") == "review" for event in events.order_by("-pk")[:3])
