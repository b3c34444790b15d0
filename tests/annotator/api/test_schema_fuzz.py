"""Fuzz every operation of the API's own OpenAPI schema, in process, as every role.

Whatever the schema lists is fuzzed, so an endpoint is covered the day it lands. Each request
must get a status code the schema documents, with a body and a content type that match, to
whatever Accept header a browser or a client sends; no 5xx; a request that breaks the schema
(an unknown query parameter, an ill-typed value, a number out of its bounds) must be refused,
and one the schema allows accepted, unless a rule about the rows it names refuses it. It
runs as a project admin, who reaches every operation, with the most examples; then as each
other role (anonymous, an outsider, an annotator of another language, the document's
annotator, a lead) with fewer: they mostly meet 401, 403 and 404, which the schema must
document too (annotator.api.schema).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest
import schemathesis
from django.contrib.auth.models import Permission
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.urls import Resolver404, resolve
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, settings
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import positive_data_acceptance

from annotator.models import ImportJob, ReviewItem, ReviewKind
from annotator.services.releases.build import release_build
from annotator.services.releases.create import release_create
from annotator.services.table import surface_decide
from annotator.services.tokens import api_token_issue
from annotator.wsgi import application
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

# Bounded per operation and role, so that the fuzz stays within a few minutes on two cores
# as endpoints land: the admin reaches every operation's logic, the others mostly its guard.
ADMIN_EXAMPLES = 10
OTHER_EXAMPLES = 3
# The other roles; the fixture's document is English, so annotator_fr is "another language".
OTHER_ROLES = ("anonymous", "outsider", "annotator_fr", "annotator_en", "lead")
# `{id}` after `documents/` names a document, and so on; other ids stay as drawn.
PATH_PARAMETER = re.compile(r"([a-z_]+)/\{([a-z_]+)\}")


def served_schema() -> dict[str, Any]:
    """What /api/schema/ serves, from the same generator but without a request: pytest needs
    the operations when it collects, before there is a database to log in to."""
    raw = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(raw))  # type: ignore[no-any-return]


def fuzzed_schema(max_examples: int) -> Any:
    loaded = schemathesis.openapi.from_dict(served_schema())
    loaded.app = application
    loaded.config.generation.update(max_examples=max_examples, database="none")
    # Every check runs; schemathesis's own positive_data_acceptance gives way to
    # `schema_valid_requests_are_accepted`, which knows what the schema cannot (below).
    loaded.config.checks.update(excluded_check_names=["positive_data_acceptance"])
    return loaded


# The one operation whose refusal of a schema-valid request depends on a secret: a username
# and password that match no account (schemathesis knows this of an OAuth2 `tokenUrl`, and
# Cloak's token header is no OAuth2 scheme).
_CREDENTIALS = "POST /api/auth/token/"


def schema_valid_requests_are_accepted(ctx: Any, response: Any, case: Any) -> bool | None:
    """schemathesis's positive_data_acceptance, less what no schema can know.

    A request the schema allows must not be refused by a serializer (a 400 with `errors`:
    the schema says less than the serializer checks). It may still break a rule about the
    rows it names, which a service refuses with a domain error (a 400 with `detail` alone):
    a span over one a person decided, an entity merged with itself, an alias already the
    entity's, a language the project does not have, a file that is no key file. Those, and
    wrong credentials, are not the schema's to express; nor is a body that is not valid.
    """
    # Every answer of the API is JSON (content_type_conformance checks that).
    if (
        response.status_code == 400
        and case.meta is not None
        and case.meta.generation.mode.is_positive
        and (
            case.operation.label == _CREDENTIALS
            or set(response.json()) == {"detail"}
            or breaks_its_body_schema(case)
        )
    ):
        return None
    return positive_data_acceptance(ctx, response, case)  # type: ignore[no-any-return]


_SERVED = served_schema()


def breaks_its_body_schema(case: Any) -> bool:
    """Whether a JSON body schemathesis calls valid breaks the operation's schema after all:
    its coverage phase drops an optional field from an example without looking at the
    body's anyOf (a resolution without its decision)."""
    operation = _SERVED["paths"][case.operation.path][case.operation.method.lower()]
    content = operation.get("requestBody", {}).get("content", {})
    if case.media_type != "application/json" or "application/json" not in content:
        return False
    root = {"allOf": [content["application/json"]["schema"]], "components": _SERVED["components"]}
    return not jsonschema.Draft4Validator(root).is_valid(case.body)


schema = fuzzed_schema(ADMIN_EXAMPLES)
other_roles_schema = fuzzed_schema(OTHER_EXAMPLES)


@pytest.fixture
def _keep_the_test_connection() -> Iterator[None]:
    """Calls go through the real WSGI handler, which closes the database connection after each
    request; the test's transaction lives on that connection (Django's test client does this)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def rows(team: Team, _keep_the_test_connection: None) -> dict[str, Any]:
    """A project with a document and a span in each language, and an import; its admin's
    token. The ids are keyed by the collection that names them in a path, a member by their
    username. The admin may also create projects, so that creating one is fuzzed past its
    guard."""
    project = team.project
    team.admin.user_permissions.add(
        Permission.objects.get(content_type__app_label="annotator", codename="add_project")
    )
    documents = [
        DocumentFactory(project=project, language=language, external_id=f"fuzz-{language}")
        for language in project.languages
    ]
    spans = [SpanFactory(document=document) for document in documents]
    job = ImportJob.objects.create(project=project, filename="a.jsonl", status="done")
    entity = surface_decide(
        project=project, surface="Moshe Chaya", language="en", label="PER",
        decision="pseudonymize",
    )  # fmt: skip
    flag = ReviewItem.objects.create(project=project, kind=ReviewKind.FLAG, span=spans[0],
                                     document=documents[0])  # fmt: skip
    release = release_create(project=project, strategy="S2", format="jsonl", dispatch=False)
    release_build(release.pk)
    headers: dict[str, dict[str, str]] = {"anonymous": {}}
    for role, user in team.by_role().items():
        headers[role] = {"Authorization": f"Token {api_token_issue(user=user).token}"}
    return {
        "headers": headers,
        "projects": project.slug,
        "documents": documents[0].pk,
        "spans": spans[0].pk,
        "imports": job.pk,
        "entities": entity.entity_id,
        "review": flag.pk,
        "releases": release.pk,
        "members": team.annotator_fr.username,
    }


# The coverage phase tries each of its scenarios with several values (five wrong types for
# one integer, every value of an enum): one value per scenario, parameter and mode is enough
# here, and keeps the time bounded as the API grows. Its cases are drawn once, when pytest
# collects, and each role's run replays them.
_COVERED: set[tuple[Any, ...]] = set()


def filter_case(context: Any, case: Any) -> bool:
    scenario = getattr(case.meta.phase.data, "scenario", None) if case.meta else None
    if scenario is None:
        return True  # the fuzzing phase: max_examples bounds it
    data = case.meta.phase.data
    key = (
        id(case.operation.schema), case.operation.label, case.meta.generation.mode, scenario,
        data.location, data.parameter,
    )  # fmt: skip
    if key in _COVERED:
        return False
    _COVERED.add(key)
    return True


schema.hook(filter_case)
other_roles_schema.hook(filter_case)


def aim_at_rows(case: Any, rows: dict[str, Any]) -> None:
    """Send a well-formed case to the fixture's rows: a random slug only ever finds 404.

    Done at call time, not in a generation hook: the coverage phase draws its cases when
    pytest collects, before the rows exist.
    """
    if case.meta is not None and case.meta.is_negative_at(ParameterLocation.PATH):
        return
    for collection, name in PATH_PARAMETER.findall(case.operation.path):
        value = case.path_parameters.get(name)
        # Every fourth drawn id is kept, so that a missing row is asked for too.
        keep = isinstance(value, int) and value % 4 == 3
        if collection in rows and not keep:
            case.path_parameters[name] = rows[collection]


def routed(path: str) -> bool:
    try:
        resolve(unquote(path))
    except Resolver404:
        return False
    return True


_ACCEPT_TURN = itertools.count()
# What browsers and clients send: the API answers JSON to each, as its schema documents.
ACCEPT = ("application/json", "text/html,application/xhtml+xml,*/*;q=0.8", "*/*", None)


def check_case(case: Any, rows: dict[str, Any], role: str) -> None:
    aim_at_rows(case, rows)
    accept = ACCEPT[_ACCEPT_TURN.__next__() % len(ACCEPT)]
    headers = {**rows["headers"][role], **({"Accept": accept} if accept else {})}
    response = case.call(headers=headers)
    if routed(case.formatted_path):
        case.validate_response(
            response,
            headers=headers,
            transport_kwargs={"headers": headers},
            additional_checks=[schema_valid_requests_are_accepted],
        )
    else:
        # A path the URL patterns do not match (an ill-typed id) never reaches the API: Django
        # answers with its own 404 page.
        assert response.status_code == 404


@pytest.mark.slow  # make test runs it; `-m "not slow"` leaves it out of a quick loop
@pytest.mark.django_db
@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_api_answers_every_request_as_its_schema_says(case: Any, rows: dict[str, Any]) -> None:
    check_case(case, rows, "admin")


@pytest.fixture(params=OTHER_ROLES)
def role(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.slow
@pytest.mark.django_db
@other_roles_schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_every_role_gets_an_answer_the_schema_documents(
    case: Any, rows: dict[str, Any], role: str
) -> None:
    check_case(case, rows, role)


@pytest.mark.django_db
def test_the_fuzzed_schema_is_the_one_the_api_serves(team: Team) -> None:
    response = client_for(team.admin).get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert json.loads(response.content) == served_schema()
