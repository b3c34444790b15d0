"""Signing in as deployed: failed sign-ins lock a username out from an address (the login page
and the token endpoint count together), the token endpoint is throttled per address, and
every password Cloak sets is validated. Tokens themselves: tests/annotator/api/test_tokens.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from annotator.api.authentication import SignInRateThrottle
from annotator.errors import DomainError
from annotator.models import Membership, Role
from annotator.services.projects import membership_set
from tests.conftest import PASSWORD, Team, client_for

pytestmark = pytest.mark.django_db

WRONG = "not-the-password"
ATTACKER = "203.0.113.7"
ELSEWHERE = "198.51.100.20"


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Iterator[None]:
    """The throttle counts in the cache, which outlives a test: these addresses start at zero
    and leave nothing behind (tests/conftest.py does it for the test client's own)."""
    keys = [SignInRateThrottle.key_for(address) for address in (ATTACKER, ELSEWHERE)]
    cache.delete_many(keys)
    yield
    cache.delete_many(keys)


def sign_in(username: str, password: str, address: str = ATTACKER, **headers: Any) -> Any:
    return Client(REMOTE_ADDR=address).post(
        reverse("login"), {"username": username, "password": password}, **headers
    )


def ask_token(username: str, password: str, address: str = ATTACKER, **headers: Any) -> Any:
    return Client(REMOTE_ADDR=address).post(
        reverse("api-token"),
        {"username": username, "password": password},
        content_type="application/json",
        **headers,
    )


def signed_in(response: Any) -> bool:
    return response.status_code == 302 and response["Location"] == reverse("home")


def fail(username: str, times: int, address: str = ATTACKER) -> list[int]:
    return [sign_in(username, WRONG, address).status_code for _ in range(times)]


# --- Lockout ------------------------------------------------------------------------------


def test_the_login_page_locks_a_username_out_from_an_address_after_the_limit(
    team: Team, settings: Any
) -> None:
    assert settings.AXES_FAILURE_LIMIT == 5  # CLOAK_LOGIN_FAILURE_LIMIT's default
    assert fail(team.lead.username, 5) == [200, 200, 200, 200, 429]

    locked = sign_in(team.lead.username, PASSWORD)

    assert locked.status_code == 429
    assert "_auth_user_id" not in locked.client.session  # the right password opens nothing
    page = locked.content.decode()
    assert "Sign-in paused" in page and "try again in 15 minutes" in page
    assert 14 * 60 < int(locked["Retry-After"]) <= 15 * 60


def test_a_lockout_holds_only_that_username_from_that_address(team: Team) -> None:
    fail(team.lead.username, 5)

    assert signed_in(sign_in(team.lead.username, PASSWORD, address=ELSEWHERE))
    assert signed_in(sign_in(team.admin.username, PASSWORD))


def test_x_forwarded_for_does_not_change_the_address_that_is_counted(team: Team) -> None:
    for number in range(5):
        sign_in(team.lead.username, WRONG, HTTP_X_FORWARDED_FOR=f"192.0.2.{number}")

    assert sign_in(team.lead.username, PASSWORD).status_code == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {ATTACKER}


def test_a_try_during_the_lockout_does_not_make_it_longer(team: Team) -> None:
    fail(team.lead.username, 5)
    before = AccessAttempt.objects.get()

    assert fail(team.lead.username, 3) == [429, 429, 429]

    after = AccessAttempt.objects.get()
    assert (after.failures_since_start, after.attempt_time) == (5, before.attempt_time)


def test_the_lockout_ends_after_the_cool_off(team: Team, settings: Any) -> None:
    fail(team.lead.username, 5)
    # As if the cool-off had passed since the last failure.
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time
        - settings.AXES_COOLOFF_TIME
        - timedelta(seconds=1)
    )

    assert signed_in(sign_in(team.lead.username, PASSWORD))


def test_an_admin_lifts_a_lockout_with_axes_reset_username(team: Team) -> None:
    fail(team.lead.username, 5)

    call_command("axes_reset_username", team.lead.username)

    assert signed_in(sign_in(team.lead.username, PASSWORD))


def test_a_sign_in_before_the_limit_forgets_the_failures(team: Team) -> None:
    fail(team.lead.username, 4)
    assert signed_in(sign_in(team.lead.username, PASSWORD))

    assert fail(team.lead.username, 4) == [200, 200, 200, 200]


def test_an_unknown_username_is_locked_out_like_a_known_one(team: Team) -> None:
    # Otherwise the lockout would tell who has an account.
    assert fail("nobody-here", 5) == [200, 200, 200, 200, 429]


def test_the_token_endpoint_locks_out_with_a_json_429(team: Team) -> None:
    answers = [ask_token(team.lead.username, WRONG) for _ in range(5)]
    assert [answer.status_code for answer in answers] == [400, 400, 400, 400, 429]

    locked = ask_token(team.lead.username, PASSWORD)

    assert locked.status_code == 429
    body = locked.json()
    assert list(body) == ["detail"] and "Too many failed sign-ins" in body["detail"]
    assert 14 * 60 < int(locked["Retry-After"]) <= 15 * 60


def test_the_login_page_and_the_token_endpoint_count_failures_together(team: Team) -> None:
    fail(team.lead.username, 3)
    assert [ask_token(team.lead.username, WRONG).status_code for _ in range(2)] == [400, 429]

    assert sign_in(team.lead.username, PASSWORD).status_code == 429


def test_the_django_admin_login_is_locked_out_too(team: Team) -> None:
    for _ in range(5):
        Client(REMOTE_ADDR=ATTACKER).post(
            "/admin/login/", {"username": team.admin.username, "password": WRONG}
        )

    answer = Client(REMOTE_ADDR=ATTACKER).post(
        "/admin/login/", {"username": team.admin.username, "password": PASSWORD}
    )

    assert answer.status_code == 429


def test_a_failed_sign_in_is_stored_without_its_password_or_form_token(team: Team) -> None:
    Client(REMOTE_ADDR=ATTACKER).post(
        reverse("login"),
        {"username": team.lead.username, "password": WRONG, "csrfmiddlewaretoken": "form-secret"},
    )

    stored = AccessAttempt.objects.get().post_data
    assert "csrfmiddlewaretoken=" in stored
    assert WRONG not in stored and "form-secret" not in stored


# --- The token endpoint's throttle ---------------------------------------------------------


def test_the_token_endpoint_answers_429_past_its_rate_per_address(team: Team) -> None:
    # Ten a minute (CLOAK_API_TOKEN_RATE), right or wrong, whatever the usernames.
    answers = [ask_token(f"someone-{number}", WRONG).status_code for number in range(10)]
    assert answers == [400] * 10

    throttled = ask_token(team.lead.username, PASSWORD)

    assert throttled.status_code == 429
    assert "throttled" in throttled.json()["detail"].lower()
    assert 0 < int(throttled["Retry-After"]) <= 60
    assert ask_token(team.lead.username, PASSWORD, address=ELSEWHERE).status_code == 200


def test_the_token_throttle_ignores_x_forwarded_for(team: Team) -> None:
    for number in range(10):
        ask_token(f"someone-{number}", WRONG, HTTP_X_FORWARDED_FOR=f"192.0.2.{number}")

    answer = ask_token(team.lead.username, PASSWORD, HTTP_X_FORWARDED_FOR="192.0.2.200")

    assert answer.status_code == 429


# --- Passwords -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("abc", "at least 12 characters"),
        ("1q2w3e4r5t6y7u", "too common"),
        ("20240611935712", "entirely numeric"),
        ("amina-hadad-1", "too similar"),
    ],
)
def test_add_member_refuses_a_weak_password_and_creates_nothing(
    team: Team, password: str, reason: str
) -> None:
    with pytest.raises(CommandError, match=reason) as refused:
        call_command(
            "add_member", team.project.slug, "amina-hadad", "--role", "lead",
            "--password", password, "--email", "amina.hadad@example.org",
        )  # fmt: skip

    assert password not in str(refused.value)
    assert not get_user_model().objects.filter(username="amina-hadad").exists()


def test_a_new_password_for_a_member_is_validated_and_a_refusal_keeps_the_old_one(
    team: Team,
) -> None:
    with pytest.raises(DomainError, match="password refused"):
        membership_set(  # as the command line does: the only way to reset one
            project=team.project, username=team.lead.username, role=Role.ADMIN, password="abc",
            password_resets=True,
        )  # fmt: skip

    team.lead.refresh_from_db()
    assert team.lead.check_password(PASSWORD)
    assert Membership.objects.get(user=team.lead, project=team.project).role == Role.LEAD


def test_a_strong_password_is_accepted(team: Team) -> None:
    membership_set(
        project=team.project, username="amina-hadad", role=Role.LEAD,
        password="violet-lantern-orchard",
    )  # fmt: skip

    assert signed_in(sign_in("amina-hadad", "violet-lantern-orchard"))


def test_load_demo_makes_passwords_as_long_as_the_minimum_asks(
    settings: Any, tmp_path: Any
) -> None:
    settings.VAR_DIR = tmp_path
    settings.CLOAK_PASSWORD_MIN_LENGTH = 20
    settings.AUTH_PASSWORD_VALIDATORS = [
        {
            "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
            "OPTIONS": {"min_length": 20},
        },
    ]

    call_command("load_demo", "--quiet-passwords")

    credentials = json.loads((tmp_path / "demo-credentials.json").read_text())
    assert len(credentials) == 5
    for username, password in credentials.items():
        assert len(password) >= 20
        assert get_user_model().objects.get(username=username).check_password(password)


def test_beat_clears_the_expired_sessions(team: Team, settings: Any) -> None:
    """Issue 32: a session row, which the web role reads, lived two weeks past its use and
    nothing cleared it: beat runs sessions_clear."""
    from datetime import timedelta

    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    from annotator import tasks

    old, live = SessionStore(), SessionStore()
    old["x"], live["x"] = 1, 2
    old.create()
    live.create()
    Session.objects.filter(session_key=old.session_key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    assert tasks.sessions_clear() == 1
    assert list(Session.objects.values_list("session_key", flat=True)) == [live.session_key]
    assert (
        settings.CELERY_BEAT_SCHEDULE["sessions-clear"]["task"] == "annotator.tasks.sessions_clear"
    )


@pytest.mark.parametrize("password", [" " * 12, "a" * 12, "ann_en_ann_en_", "abcdefabcdef"])
def test_a_password_of_little_variety_is_refused_on_every_path(team: Team, password: str) -> None:
    """Issue 32: twelve spaces, "aaaaaaaaaaaa" and "ann_en_ann_en_" passed every path."""
    with pytest.raises(DomainError, match="password refused"):
        membership_set(project=team.project, username="newcomer-x", role=Role.LEAD,
                       password=password)  # fmt: skip
    assert not get_user_model().objects.filter(username="newcomer-x").exists()


def test_deactivating_a_person_ends_their_sessions_and_tokens(team: Team) -> None:
    """Issue 32: a deactivated person's tokens and sessions came back with a reactivation."""
    from django.contrib.sessions.models import Session

    from annotator.services.tokens import AuthToken, api_token_issue

    api_token_issue(user=team.lead)
    client_for(team.lead).get(reverse("home"))
    client_for(team.admin).get(reverse("home"))
    assert AuthToken.objects.filter(user=team.lead).exists()
    sessions = Session.objects.count()
    team.lead.is_active = False
    team.lead.save(update_fields=["is_active"])
    assert not AuthToken.objects.filter(user=team.lead).exists()
    assert Session.objects.count() == sessions - 1  # the lead's; the admin's stays
    team.lead.is_active = True
    team.lead.save(update_fields=["is_active"])
    assert Session.objects.count() == sessions - 1
