"""API tokens: issued for a username and password with an expiry, refused once expired,
revoked by a log-out and by any change of their user's password, stored only as digests."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.forms import PasswordChangeForm, SetPasswordForm
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from knox.models import AuthToken

from annotator.models import Role
from annotator.services.projects import membership_set
from annotator.services.tokens import api_token_issue
from tests.conftest import PASSWORD, Team, client_for

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "violet-lantern-orchard"


class OneIteration(PBKDF2PasswordHasher):
    iterations = 1


class TwoIterations(PBKDF2PasswordHasher):
    iterations = 2


def members(token: str) -> int:
    """The status of an API call made with `token`."""
    url = reverse("api-member-list", kwargs={"slug": "radical"})
    return Client().get(url, HTTP_AUTHORIZATION=f"Token {token}").status_code


def ask_token(username: str, password: str) -> Any:
    return Client().post(
        reverse("api-token"),
        {"username": username, "password": password},
        content_type="application/json",
    )


def test_a_token_is_issued_with_its_expiry_and_authenticates(team: Team, settings: Any) -> None:
    before = timezone.now()

    answer = ask_token(team.lead.username, PASSWORD)

    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == {"token", "expiry"}
    expiry = datetime.fromisoformat(body["expiry"])
    ttl = timedelta(hours=settings.CLOAK_API_TOKEN_TTL_HOURS)
    assert before + ttl <= expiry <= timezone.now() + ttl
    assert members(body["token"]) == 200


def test_the_token_endpoint_still_reads_a_form(team: Team) -> None:
    answer = Client().post(
        reverse("api-token"), {"username": team.lead.username, "password": PASSWORD}
    )
    assert answer.status_code == 200 and members(answer.json()["token"]) == 200


def test_the_database_keeps_a_digest_never_the_token(team: Team) -> None:
    token = ask_token(team.lead.username, PASSWORD).json()["token"]

    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM knox_authtoken")
        stored = " ".join(str(value) for row in cursor.fetchall() for value in row)
    assert token not in stored


def test_wrong_credentials_and_an_inactive_user_get_no_token(team: Team) -> None:
    wrong = ask_token(team.lead.username, "not-the-password")
    assert wrong.status_code == 400
    assert wrong.json()["detail"] == "Unable to log in with provided credentials."

    team.lead.is_active = False
    team.lead.save(update_fields=["is_active"])
    assert ask_token(team.lead.username, PASSWORD).status_code == 400
    assert not AuthToken.objects.exists()


def test_an_expired_token_gets_a_401_that_says_what_to_do(team: Team) -> None:
    token = api_token_issue(user=team.lead).token
    AuthToken.objects.update(expiry=timezone.now() - timedelta(seconds=1))

    answer = Client().get(reverse("api-project-list"), HTTP_AUTHORIZATION=f"Token {token}")

    assert answer.status_code == 401
    assert "expired" in answer.json()["detail"] and "/api/auth/token/" in answer.json()["detail"]
    assert answer["WWW-Authenticate"] == "Token"
    assert not AuthToken.objects.exists()  # an expired token is deleted when it is shown


def test_a_token_of_an_inactive_user_is_refused(team: Team) -> None:
    token = api_token_issue(user=team.lead).token
    team.lead.is_active = False
    team.lead.save(update_fields=["is_active"])

    assert members(token) == 401


def test_a_new_token_clears_the_expired_ones_of_its_user_only(team: Team) -> None:
    api_token_issue(user=team.lead)
    api_token_issue(user=team.admin)
    AuthToken.objects.update(expiry=timezone.now() - timedelta(seconds=1))

    api_token_issue(user=team.lead)

    assert AuthToken.objects.filter(user=team.lead).count() == 1
    assert AuthToken.objects.filter(user=team.admin).count() == 1


# --- Revocation ----------------------------------------------------------------------------


def test_set_password_revokes_every_token_of_that_user_only(team: Team) -> None:
    first, second = (api_token_issue(user=team.lead).token for _ in range(2))
    admins = api_token_issue(user=team.admin).token

    team.lead.set_password(NEW_PASSWORD)
    team.lead.save()

    assert (members(first), members(second), members(admins)) == (401, 401, 200)


@pytest.mark.parametrize("form", ["change", "set"])
def test_the_password_forms_revoke_the_tokens(team: Team, form: str) -> None:
    token = api_token_issue(user=team.lead).token
    data = {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    if form == "change":
        changed: Any = PasswordChangeForm(team.lead, {**data, "old_password": PASSWORD})
    else:
        changed = SetPasswordForm(team.lead, data)
    assert changed.is_valid(), changed.errors

    changed.save()

    assert members(token) == 401


def test_a_password_set_by_add_member_revokes_the_tokens(team: Team) -> None:
    token = api_token_issue(user=team.lead).token

    membership_set(  # as add_member does
        project=team.project, username=team.lead.username, role=Role.LEAD, password=NEW_PASSWORD,
        password_resets=True,
    )  # fmt: skip

    assert members(token) == 401


def test_an_unusable_password_revokes_the_tokens(team: Team) -> None:
    token = api_token_issue(user=team.lead).token

    team.lead.set_unusable_password()
    team.lead.save()

    assert members(token) == 401


def test_other_changes_to_a_user_keep_the_tokens(team: Team) -> None:
    token = api_token_issue(user=team.lead).token

    team.lead.email = "lead@example.org"
    team.lead.save()
    client_for(team.lead)  # a browser sign-in saves last_login

    assert members(token) == 200


def test_a_rehash_of_the_same_password_at_sign_in_keeps_the_tokens(
    team: Team, settings: Any
) -> None:
    settings.PASSWORD_HASHERS = [f"{__name__}.OneIteration"]
    team.lead.set_password(PASSWORD)
    team.lead.save()
    token = api_token_issue(user=team.lead).token
    settings.PASSWORD_HASHERS = [f"{__name__}.TwoIterations"]

    assert ask_token(team.lead.username, PASSWORD).status_code == 200

    team.lead.refresh_from_db()
    assert team.lead.password.startswith("pbkdf2_sha256$2$")  # rehashed at sign-in
    assert members(token) == 200


# --- Log-out -------------------------------------------------------------------------------


def test_logout_revokes_the_token_it_is_sent_with_only(team: Team) -> None:
    first, second = (api_token_issue(user=team.lead).token for _ in range(2))

    answer = Client().post(reverse("api-token-logout"), HTTP_AUTHORIZATION=f"Token {first}")

    assert answer.status_code == 204
    assert (members(first), members(second)) == (401, 200)


def test_logout_all_revokes_every_token_of_the_caller_only(team: Team) -> None:
    first, second = (api_token_issue(user=team.lead).token for _ in range(2))
    admins = api_token_issue(user=team.admin).token

    answer = Client().post(reverse("api-token-logout-all"), HTTP_AUTHORIZATION=f"Token {first}")

    assert answer.status_code == 204
    assert (members(first), members(second), members(admins)) == (401, 401, 200)


def test_a_browser_session_can_revoke_its_users_tokens(team: Team) -> None:
    token = api_token_issue(user=team.lead).token
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(team.lead)
    url = reverse("api-token-logout-all")

    assert browser.post(url).status_code == 403  # without the CSRF token
    assert members(token) == 200
    browser.get(reverse("home"))
    csrf = browser.cookies["csrftoken"].value
    assert browser.post(url, HTTP_X_CSRFTOKEN=csrf).status_code == 204
    assert members(token) == 401


def test_logout_needs_a_token(team: Team) -> None:
    answer = client_for(team.lead).post(reverse("api-token-logout"))
    assert answer.status_code == 401 and "detail" in answer.json()
