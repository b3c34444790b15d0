"""Django's `createsuperuser`, with the password rules every other way of setting one obeys
(issue 32): Django's own takes any password given with `--noinput`
(DJANGO_SUPERUSER_PASSWORD, "123" included) and offers to bypass the validators when asked
for one. The first account of a deployment is its most powerful: here a refused password is
refused, with the reasons, and asked again (or the command fails, with `--noinput`)."""

from __future__ import annotations

import builtins
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.management.commands import createsuperuser as django_command
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

BYPASS_QUESTION = "Bypass password validation"


class Command(django_command.Command):
    help = (
        "Create a superuser. The password must pass the validators (no bypass), the one in "
        "DJANGO_SUPERUSER_PASSWORD with --noinput too."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["interactive"]:
            self._check_given(options)
        with self._no_bypass():
            super().handle(*args, **options)

    def _check_given(self, options: Any) -> None:
        password = os.environ.get("DJANGO_SUPERUSER_PASSWORD")
        if password is None:
            return  # Django creates the account with an unusable password
        user_model = get_user_model()
        username = options[user_model.USERNAME_FIELD] or os.environ.get(
            "DJANGO_SUPERUSER_" + user_model.USERNAME_FIELD.upper(), ""
        )
        fields = {user_model.USERNAME_FIELD: username}
        for name in user_model.REQUIRED_FIELDS:
            value = options.get(name) or os.environ.get("DJANGO_SUPERUSER_" + name.upper())
            if value and not user_model._meta.get_field(name).many_to_many:
                fields[name] = value
        try:
            validate_password(password, user_model(**fields))
        except ValidationError as refused:
            raise CommandError(
                "DJANGO_SUPERUSER_PASSWORD is refused: " + " ".join(refused.messages)
            ) from None

    @contextmanager
    def _no_bypass(self) -> Iterator[None]:
        """Answer Django's offer to bypass the validators "no", saying why, so that it asks
        for another password; every other question goes to the person as before."""

        def asked(prompt: str = "") -> str:
            if prompt.startswith(BYPASS_QUESTION):
                self.stderr.write("Cloak creates no account with a password the rules refuse.")
                return "n"
            return builtins.input(prompt)

        django_command.input = asked  # type: ignore[attr-defined]
        try:
            yield
        finally:
            del django_command.input  # type: ignore[attr-defined]
