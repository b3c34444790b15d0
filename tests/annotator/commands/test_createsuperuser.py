"""`createsuperuser`, the README's first step of a deployment, obeys the password rules
(issue 32): Django's took "123" with --noinput and offered to bypass them when asked."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.management.commands import createsuperuser as django_command
from django.core.management import call_command
from django.core.management.base import CommandError

pytestmark = pytest.mark.django_db

GOOD = "quiet-harbour-lantern-42"


class TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("password", ["123", " " * 12, "aaaaaaaaaaaa", "ann_en_ann_en_", "root"])
def test_noinput_refuses_a_password_the_rules_refuse_and_creates_nobody(
    monkeypatch: pytest.MonkeyPatch, password: str
) -> None:
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", password)
    with pytest.raises(CommandError, match="DJANGO_SUPERUSER_PASSWORD is refused"):
        call_command("createsuperuser", interactive=False, username="root",
                     email="root@example.org", stdout=io.StringIO())  # fmt: skip
    assert not get_user_model().objects.filter(username="root").exists()


def test_noinput_takes_a_good_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", GOOD)
    call_command("createsuperuser", interactive=False, username="root",
                 email="root@example.org", stdout=io.StringIO())  # fmt: skip
    user = get_user_model().objects.get(username="root")
    assert user.is_superuser and user.check_password(GOOD)


def test_asked_for_a_password_it_never_offers_to_bypass_the_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    typed = iter(["123", "123", GOOD, GOOD])
    monkeypatch.setattr(django_command.getpass, "getpass", lambda *args: next(typed))
    questions: list[str] = []

    def person(prompt: str = "") -> Any:  # anything but the bypass question reaches here
        questions.append(prompt)
        return "y"

    monkeypatch.setattr("builtins.input", person)
    errors = io.StringIO()
    call_command("createsuperuser", interactive=True, username="root", email="root@example.org",
                 stdin=TTY(), stdout=io.StringIO(), stderr=errors)  # fmt: skip
    assert "creates no account with a password the rules refuse" in errors.getvalue()
    assert not any("Bypass" in question for question in questions)
    assert get_user_model().objects.get(username="root").check_password(GOOD)
    assert not hasattr(django_command, "input")  # Django's module as it was
