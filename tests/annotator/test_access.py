"""Every URL and API endpoint, as every role: anonymous, outsider, annotator of another
language, annotator, lead and admin. A new URL fails this test until it is given a row."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from annotator.models import ImportJob, PreannotationRun, ReviewItem, RunBatch
from annotator.services.releases.build import release_build
from annotator.services.releases.create import release_create
from annotator.services.table import surface_decide
from tests.conftest import PASSWORD, Team, client_for
from tests.factories import DocumentFactory, SpanFactory

ROLES = ("anonymous", "outsider", "annotator_fr", "annotator_en", "lead", "admin")
LOGIN = 302  # pages send anonymous people to the login page

# name: (method, {role: status}); the document is English, the job belongs to the project.
MEMBERS_ONLY = {"anonymous": LOGIN, "outsider": 404, "annotator_fr": 200, "annotator_en": 200,
                "lead": 200, "admin": 200}  # fmt: skip
ENGLISH_READERS = {**MEMBERS_ONLY, "annotator_fr": 404}
ADMINS_ONLY = {**MEMBERS_ONLY, "annotator_fr": 403, "annotator_en": 403, "lead": 403}
LEADS_UP = {**MEMBERS_ONLY, "annotator_fr": 403, "annotator_en": 403}
EVERYONE = dict.fromkeys(ROLES, 200)
LOGGED_IN = {**EVERYONE, "anonymous": LOGIN}


def api(table: dict[str, int]) -> dict[str, int]:
    return {**table, "anonymous": 401}


MATRIX: dict[str, tuple[str, dict[str, int]]] = {
    "healthz": ("get", EVERYONE),
    "login": ("get", EVERYONE),
    "logout": ("post", dict.fromkeys(ROLES, 302)),
    "home": ("get", LOGGED_IN),
    "project_detail": ("get", MEMBERS_ONLY),
    # Creating a project is Cloak's administrators' (superusers): no role of a project's.
    "project_new": ("get", {**dict.fromkeys(ROLES, 403), "anonymous": LOGIN}),
    "project_new_labels": ("get", {**dict.fromkeys(ROLES, 403), "anonymous": LOGIN}),
    "members": ("get", LEADS_UP),
    # An empty form: refused with the page (400), or sent back to the page (302).
    "member_set": ("post", {**ADMINS_ONLY, "admin": 400}),
    "member_remove": ("post", {**ADMINS_ONLY, "admin": 302}),
    "api-member-detail": ("get", api(LEADS_UP)),
    "document_list": ("get", MEMBERS_ONLY),
    "document_detail": ("get", ENGLISH_READERS),
    "document_preview": ("get", ENGLISH_READERS),
    # What changed since the page was shown: whoever may open the English document asks, and
    # a question that does not say what the page shows is refused (400).
    "document_changes": (
        "post",
        {**ENGLISH_READERS, "annotator_en": 400, "lead": 400, "admin": 400},
    ),
    # The page's actions: whoever may open the English document acts and is sent back to it.
    "span_action": ("post", {**ENGLISH_READERS, "annotator_en": 302, "lead": 302, "admin": 302}),
    "span_suggestions": ("get", ENGLISH_READERS),
    "span_editor": ("get", ENGLISH_READERS),
    "span_add": ("post", {**ENGLISH_READERS, "annotator_en": 302, "lead": 302, "admin": 302}),
    "spans_bulk": ("post", {**ENGLISH_READERS, "annotator_en": 302, "lead": 302, "admin": 302}),
    "document_done": ("post", {**ENGLISH_READERS, "annotator_en": 302, "lead": 302, "admin": 302}),
    "span_undo": ("post", {**ENGLISH_READERS, "annotator_en": 302, "lead": 302, "admin": 302}),
    "import_list": ("get", ADMINS_ONLY),
    # To the next document of one's queue, or back to the project when it is empty.
    "next_document": ("get", {**MEMBERS_ONLY, **dict.fromkeys(ROLES[2:], 302)}),
    # Admins give documents to members; a form without documents sends them back to the list.
    "documents_assign": ("post", {**ADMINS_ONLY, "admin": 302}),
    # Blind double annotation: admins give a sample to a second annotator and follow the pairs.
    "double_list": ("get", ADMINS_ONLY),
    "double_assign": ("get", ADMINS_ONLY),
    "api-double-list": ("get", api(ADMINS_ONLY)),
    "import_detail": ("get", ADMINS_ONLY),
    # The audit log and key export / import: admins only. The key API's export reads JSON only
    # (an empty form is 415), its import needs a file (400).
    "audit_list": ("get", ADMINS_ONLY),
    "audit_export": ("get", ADMINS_ONLY),
    "api-audit-list": ("get", api(ADMINS_ONLY)),
    "key_export": ("get", ADMINS_ONLY),
    "key_import": ("get", ADMINS_ONLY),
    "api-key-export": ("post", api({**ADMINS_ONLY, "admin": 415})),
    "api-key-import": ("post", api({**ADMINS_ONLY, "admin": 400})),
    "api-schema": ("get", api(LOGGED_IN)),
    "api-docs": ("get", api(LOGGED_IN)),
    # Anonymous by nature: a wrong password is a 400, the right one a token.
    "api-token": ("post", {**EVERYONE, "anonymous": 400}),
    # Logging a token out needs the token: a browser's session is not one.
    "api-token-logout": ("post", dict.fromkeys(ROLES, 401)),
    "api-token-logout-all": ("post", api(dict.fromkeys(ROLES, 204))),
    "api-project-list": ("get", api(LOGGED_IN)),
    "api-project-detail": ("get", api(MEMBERS_ONLY)),
    "api-member-list": ("get", api(LEADS_UP)),
    "api-document-list": ("get", api(MEMBERS_ONLY)),
    "api-document-detail": ("get", api(ENGLISH_READERS)),
    "api-queue-list": ("get", api(MEMBERS_ONLY)),
    "api-queue-next": ("get", api(MEMBERS_ONLY)),
    # A JSON body only: an admin's empty form is refused as a media type (415).
    "api-document-assign": ("post", api({**ADMINS_ONLY, "admin": 415})),
    "api-import-list": ("get", api(ADMINS_ONLY)),
    "api-import-detail": ("get", api(ADMINS_ONLY)),
    # Spans: whoever may open the English document reads and annotates them.
    "api-span-list": ("get", api(ENGLISH_READERS)),
    "api-span-detail": ("get", api(ENGLISH_READERS)),
    "api-span-suggestions": ("get", api(ENGLISH_READERS)),
    # The page's bulk accept / reject and preview (annotator.api.workspace): JSON bodies only,
    # so a form is refused (415) once the caller may write.
    "api-spans-bulk": (
        "post",
        api({**ENGLISH_READERS, "annotator_en": 415, "lead": 415, "admin": 415}),
    ),
    "api-document-preview": ("get", api(ENGLISH_READERS)),
    # Runs: leads and admins follow them, admins start and resume them (a failed run here).
    "run_list": ("get", LEADS_UP),
    "run_detail": ("get", LEADS_UP),
    "run_resume": ("post", {**ADMINS_ONLY, "admin": 302}),
    "api-run-list": ("get", api(LEADS_UP)),
    "api-run-detail": ("get", api(LEADS_UP)),
    "api-run-resume": ("post", api({**ADMINS_ONLY, "admin": 202})),
    # The review queue: leads and admins; an empty comment or resolution is refused (400).
    "review_list": ("get", LEADS_UP),
    "review_detail": ("get", LEADS_UP),
    "review_comment": ("post", {**LEADS_UP, "lead": 400, "admin": 400}),
    "api-review-list": ("get", api(LEADS_UP)),
    "api-review-detail": ("get", api(LEADS_UP)),
    "api-review-resolve": ("post", api({**LEADS_UP, "lead": 400, "admin": 400})),
    "api-review-comment": ("post", api({**LEADS_UP, "lead": 415, "admin": 415})),
    "api-review-scan": ("post", api({**LEADS_UP, "lead": 202, "admin": 202})),
    # The keys: leads and admins read and edit them; a write without its form is a 400 on a
    # page, a 415 in the API (JSON only).
    "key_list": ("get", LEADS_UP),
    "key_candidates": ("get", LEADS_UP),
    "key_entity": ("get", LEADS_UP),
    "key_merge": ("post", {**LEADS_UP, "lead": 400, "admin": 400}),
    "key_split": ("post", {**LEADS_UP, "lead": 400, "admin": 400}),
    "key_link": ("post", {**LEADS_UP, "lead": 400, "admin": 400}),
    "api-entity-list": ("get", api(LEADS_UP)),
    "api-entity-candidates": ("get", api(LEADS_UP)),
    "api-entity-detail": ("get", api(LEADS_UP)),
    "api-entity-merge": ("post", api({**LEADS_UP, "lead": 415, "admin": 415})),
    "api-entity-split": ("post", api({**LEADS_UP, "lead": 415, "admin": 415})),
    "api-entity-link": ("post", api({**LEADS_UP, "lead": 415, "admin": 415})),
    # Measured quality: leads and admins.
    "quality": ("get", LEADS_UP),
    "api-quality": ("get", api(LEADS_UP)),
    # Learned models: leads and admins read them; admins train (an empty form is refused).
    "learned_models": ("get", LEADS_UP),
    "api-learned-list": ("get", api(LEADS_UP)),
    # Releases: admins cut and download them, pages and API; a form without a format is
    # refused (400); the release is done, so its files download. Leads and admins follow them
    # and dismiss a finding of a refused one (an empty form: 400 on the page, 415 in the API).
    "release_list": ("get", LEADS_UP),
    "release_create": ("post", {**ADMINS_ONLY, "admin": 400}),
    "release_detail": ("get", LEADS_UP),
    "release_download": ("get", ADMINS_ONLY),
    "release_manifest": ("get", ADMINS_ONLY),
    "release_dismiss": ("post", {**LEADS_UP, "lead": 400, "admin": 400}),
    "api-release-list": ("get", api(LEADS_UP)),
    "api-release-detail": ("get", api(LEADS_UP)),
    "api-release-download": ("get", api(ADMINS_ONLY)),
    "api-release-manifest": ("get", api(ADMINS_ONLY)),
    "api-release-leaks": ("get", api(LEADS_UP)),
    "api-release-dismiss": ("post", api({**LEADS_UP, "lead": 415, "admin": 415})),
}
# Writes: an admin without a file gets 400; nobody else gets past the permission check.
WRITES: dict[str, dict[str, int]] = {
    "api-project-list": api(dict.fromkeys(ROLES, 403)),
    "api-member-list": api({**ADMINS_ONLY, "admin": 415}),  # JSON only
    "import_list": {**ADMINS_ONLY, "admin": 400},
    "key_entity": {**LEADS_UP, "lead": 400, "admin": 400},
    # Key export and import: a form without a passphrase (or a file) is refused.
    "key_export": {**ADMINS_ONLY, "admin": 400},
    "key_import": {**ADMINS_ONLY, "admin": 400},
    "api-import-list": api({**ADMINS_ONLY, "admin": 400}),
    # The span API reads JSON only: a form body is refused (415) once the caller may write.
    "api-span-list": api({**ENGLISH_READERS, "annotator_en": 415, "lead": 415, "admin": 415}),
    # The page's form needs a profile; the API's run is refused while the resumed one is queued.
    "run_list": {**ADMINS_ONLY, "admin": 400},
    # Review: "look for conflicts now" sends the lead back to the queue; a resolution without
    # a rationale is refused.
    "review_list": {**LEADS_UP, "lead": 302, "admin": 302},
    "review_detail": {**LEADS_UP, "lead": 400, "admin": 400},
    # Double annotation: an empty form is refused (400); the API reads JSON only (415).
    "double_assign": {**ADMINS_ONLY, "admin": 400},
    "api-double-list": api({**ADMINS_ONLY, "admin": 415}),
    "api-run-list": api({**ADMINS_ONLY, "admin": 400}),
    "learned_models": {**ADMINS_ONLY, "admin": 400},
    "api-learned-list": api({**ADMINS_ONLY, "admin": 400}),
    "api-release-list": api({**ADMINS_ONLY, "admin": 400}),
}


def url_names(patterns: list[Any], namespace: str = "") -> set[str]:
    names: set[str] = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                continue  # Django's admin: staff only, checked below
            names |= url_names(pattern.url_patterns, pattern.namespace or namespace)
        elif isinstance(pattern, URLPattern) and pattern.name:
            names.add(pattern.name)
    return names


def test_every_named_url_has_a_row() -> None:
    names = url_names(get_resolver().url_patterns)
    assert names == set(MATRIX), f"give these a row in MATRIX: {names ^ set(MATRIX)}"


@pytest.fixture
def targets(team: Team) -> dict[str, str]:
    document = DocumentFactory(project=team.project, language="en")
    job = ImportJob.objects.create(project=team.project, filename="a.jsonl", status="done")
    run = PreannotationRun.objects.create(project=team.project, status="failed")
    release = release_create(project=team.project, strategy="S2", format="jsonl", dispatch=False)
    release = release_build(release.pk)
    assert release.status == "done", release.error
    RunBatch.objects.create(run=run, number=1, language="en", document_ids=[document.pk])
    span = SpanFactory(document=document, start=0, end=4, source="ner")
    item = ReviewItem.objects.create(
        project=team.project, kind="flag", document=document, span=span
    )
    entity = surface_decide(
        project=team.project, surface="Moshe Chaya", language="en", label="PER",
        decision="pseudonymize", replacement="Raj Avrom",
    ).entity_id  # fmt: skip
    slug = {"slug": team.project.slug}
    on_entity = {**slug, "pk": entity}
    on_release = {**slug, "pk": release.pk}
    on_span = {**slug, "pk": document.pk, "span_id": span.pk}
    return {
        "healthz": reverse("healthz"),
        "login": reverse("login"),
        "logout": reverse("logout"),
        "home": reverse("home"),
        "project_detail": reverse("project_detail", kwargs=slug),
        "document_list": reverse("document_list", kwargs=slug),
        "document_detail": reverse("document_detail", kwargs={**slug, "pk": document.pk}),
        "document_preview": reverse("document_preview", kwargs={**slug, "pk": document.pk}),
        "document_changes": reverse("document_changes", kwargs={**slug, "pk": document.pk}),
        "span_action": reverse("span_action", kwargs=on_span),
        "span_suggestions": reverse("span_suggestions", kwargs=on_span),
        "span_editor": reverse("span_editor", kwargs=on_span),
        "span_add": reverse("span_add", kwargs={**slug, "pk": document.pk}),
        "spans_bulk": reverse("spans_bulk", kwargs={**slug, "pk": document.pk}),
        "document_done": reverse("document_done", kwargs={**slug, "pk": document.pk}),
        "span_undo": reverse("span_undo", kwargs={**slug, "pk": document.pk}),
        "import_list": reverse("import_list", kwargs=slug),
        "next_document": reverse("next_document", kwargs=slug),
        "documents_assign": reverse("documents_assign", kwargs=slug),
        "double_list": reverse("double_list", kwargs=slug),
        "double_assign": reverse("double_assign", kwargs=slug),
        "api-double-list": reverse("api-double-list", kwargs=slug),
        "import_detail": reverse("import_detail", kwargs={**slug, "pk": job.pk}),
        "audit_list": reverse("audit_list", kwargs=slug),
        "audit_export": reverse("audit_export", kwargs=slug),
        "api-audit-list": reverse("api-audit-list", kwargs=slug),
        "key_export": reverse("key_export", kwargs=slug),
        "key_import": reverse("key_import", kwargs=slug),
        "api-key-export": reverse("api-key-export", kwargs=slug),
        "api-key-import": reverse("api-key-import", kwargs=slug),
        "api-schema": reverse("api-schema"),
        "api-docs": reverse("api-docs"),
        "api-token": reverse("api-token"),
        "api-token-logout": reverse("api-token-logout"),
        "api-token-logout-all": reverse("api-token-logout-all"),
        "api-project-list": reverse("api-project-list"),
        "project_new": reverse("project_new"),
        "project_new_labels": reverse("project_new_labels"),
        "members": reverse("members", kwargs=slug),
        "member_set": reverse("member_set", kwargs=slug),
        "member_remove": reverse("member_remove", kwargs=slug),
        "api-member-detail": reverse(
            "api-member-detail", kwargs={**slug, "username": team.annotator_en.username}
        ),
        "api-project-detail": reverse("api-project-detail", kwargs=slug),
        "api-member-list": reverse("api-member-list", kwargs=slug),
        "api-document-list": reverse("api-document-list", kwargs=slug),
        "api-document-detail": reverse("api-document-detail", kwargs={**slug, "pk": document.pk}),
        "api-queue-list": reverse("api-queue-list", kwargs=slug),
        "api-queue-next": reverse("api-queue-next", kwargs=slug),
        "api-document-assign": reverse("api-document-assign", kwargs=slug),
        "api-import-list": reverse("api-import-list", kwargs=slug),
        "api-import-detail": reverse("api-import-detail", kwargs={**slug, "pk": job.pk}),
        "api-span-list": reverse("api-span-list", kwargs={**slug, "pk": document.pk}),
        "api-span-detail": reverse("api-span-detail", kwargs=on_span),
        "api-span-suggestions": reverse("api-span-suggestions", kwargs=on_span),
        "api-spans-bulk": reverse("api-spans-bulk", kwargs={**slug, "pk": document.pk}),
        "api-document-preview": reverse("api-document-preview", kwargs={**slug, "pk": document.pk}),
        "run_list": reverse("run_list", kwargs=slug),
        "run_detail": reverse("run_detail", kwargs={**slug, "pk": run.pk}),
        "run_resume": reverse("run_resume", kwargs={**slug, "pk": run.pk}),
        "api-run-list": reverse("api-run-list", kwargs=slug),
        "api-run-detail": reverse("api-run-detail", kwargs={**slug, "pk": run.pk}),
        "api-run-resume": reverse("api-run-resume", kwargs={**slug, "pk": run.pk}),
        "review_list": reverse("review_list", kwargs=slug),
        "review_detail": reverse("review_detail", kwargs={**slug, "pk": item.pk}),
        "review_comment": reverse("review_comment", kwargs={**slug, "pk": item.pk}),
        "api-review-list": reverse("api-review-list", kwargs=slug),
        "api-review-detail": reverse("api-review-detail", kwargs={**slug, "pk": item.pk}),
        "api-review-resolve": reverse("api-review-resolve", kwargs={**slug, "pk": item.pk}),
        "api-review-comment": reverse("api-review-comment", kwargs={**slug, "pk": item.pk}),
        "api-review-scan": reverse("api-review-scan", kwargs=slug),
        "key_list": reverse("key_list", kwargs=slug),
        "key_candidates": reverse("key_candidates", kwargs=slug),
        "key_entity": reverse("key_entity", kwargs=on_entity),
        "key_merge": reverse("key_merge", kwargs=on_entity),
        "key_split": reverse("key_split", kwargs=on_entity),
        "key_link": reverse("key_link", kwargs=on_entity),
        "api-entity-list": reverse("api-entity-list", kwargs=slug),
        "api-entity-candidates": reverse("api-entity-candidates", kwargs=slug),
        "api-entity-detail": reverse("api-entity-detail", kwargs=on_entity),
        "api-entity-merge": reverse("api-entity-merge", kwargs=on_entity),
        "api-entity-split": reverse("api-entity-split", kwargs=on_entity),
        "api-entity-link": reverse("api-entity-link", kwargs=on_entity),
        "quality": reverse("quality", kwargs=slug),
        "api-quality": reverse("api-quality", kwargs=slug),
        "learned_models": reverse("learned_models", kwargs=slug),
        "api-learned-list": reverse("api-learned-list", kwargs=slug),
        "release_list": reverse("release_list", kwargs=slug),
        "release_create": reverse("release_create", kwargs=slug),
        "release_detail": reverse("release_detail", kwargs=on_release),
        "release_download": reverse("release_download", kwargs=on_release),
        "release_manifest": reverse("release_manifest", kwargs=on_release),
        "api-release-list": reverse("api-release-list", kwargs=slug),
        "api-release-detail": reverse("api-release-detail", kwargs=on_release),
        "api-release-download": reverse("api-release-download", kwargs=on_release),
        "api-release-manifest": reverse("api-release-manifest", kwargs=on_release),
        "release_dismiss": reverse("release_dismiss", kwargs=on_release),
        "api-release-leaks": reverse("api-release-leaks", kwargs=on_release),
        "api-release-dismiss": reverse("api-release-dismiss", kwargs=on_release),
    }


def user_for(team: Team, role: str) -> Any:
    return None if role == "anonymous" else team.by_role()[role]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_every_url_answers_each_role_as_it_should(
    team: Team, targets: dict[str, str], role: str
) -> None:
    user = user_for(team, role)
    wrong: list[str] = []
    for name, (method, expected) in MATRIX.items():
        client = client_for(user)
        data: dict[str, str] = {}
        if name == "api-token" and user is not None:
            data = {"username": user.username, "password": PASSWORD}
        response = getattr(client, method)(targets[name], data)
        if response.status_code != expected[role]:
            wrong.append(f"{method.upper()} {name}: {response.status_code} != {expected[role]}")
        if role == "anonymous" and expected[role] == LOGIN:
            assert response["Location"].startswith(reverse("login")), name
    for name, expected in WRITES.items():
        response = client_for(user).post(targets[name], {})
        if response.status_code != expected[role]:
            wrong.append(f"POST {name}: {response.status_code} != {expected[role]}")
    assert not wrong, f"as {role}:\n" + "\n".join(wrong)


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_django_admin_is_for_staff_only(team: Team, role: str) -> None:
    response = client_for(user_for(team, role)).get("/admin/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


@pytest.mark.django_db
def test_a_superuser_reaches_the_django_admin(team: Team) -> None:
    team.admin.is_staff = team.admin.is_superuser = True
    team.admin.save(update_fields=["is_staff", "is_superuser"])
    assert client_for(team.admin).get("/admin/").status_code == 200


@pytest.mark.django_db
def test_an_api_token_authenticates(team: Team, targets: dict[str, str]) -> None:
    from django.test import Client

    token = (
        Client()
        .post(targets["api-token"], {"username": team.lead.username, "password": PASSWORD})
        .json()["token"]
    )
    response = Client().get(targets["api-member-list"], HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 200
    assert Client().get(targets["api-member-list"]).status_code == 401


def _kept_by_browsers(response: Any) -> bool:
    policy = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return not {"no-store", "private"} <= policy


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_no_answer_is_kept_by_a_browser_after_sign_out(
    team: Team, targets: dict[str, str], role: str
) -> None:
    """Pages, their htmx fragments and API answers hold originals; a browser's disk cache
    would keep them past the sign-out. Every answer of every URL, as every role, as a page
    and as an htmx request, says no-store (whatever its status and type)."""
    user = user_for(team, role)
    kept: list[str] = []
    for name, (method, _) in MATRIX.items():
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
            response = getattr(client_for(user), method)(targets[name], {}, **headers)
            if _kept_by_browsers(response):
                kept.append(f"{method.upper()} {name} {headers}: {response.status_code} "
                            f"{response.get('Cache-Control')!r}")  # fmt: skip
    for name in WRITES:
        response = client_for(user).post(targets[name], {})
        if _kept_by_browsers(response):
            kept.append(f"POST {name}: {response.status_code} {response.get('Cache-Control')!r}")
    assert not kept, f"as {role}:\n" + "\n".join(kept)
