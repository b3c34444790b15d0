"""API tokens: issued for a username and password, valid for a fixed time, revoked by a log-out
or by a change of their user's password.

Tokens are django-rest-knox's: the database keeps a digest, never the token, so a copy of the
database opens no API session; each has an expiry (REST_KNOX["TOKEN_TTL"], from
CLOAK_API_TOKEN_TTL_HOURS) that use does not extend.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from knox.models import AuthToken


@dataclass(frozen=True)
class IssuedToken:
    """A token as its owner sees it, once: afterwards only its digest exists."""

    token: str
    expiry: datetime


@transaction.atomic
def api_token_issue(*, user: Any) -> IssuedToken:
    """A new token for `user` (who has just proved their password), valid for the TTL."""
    # Expired tokens are of no use to anyone: they go when their owner asks for a new one.
    AuthToken.objects.filter(user=user, expiry__lt=timezone.now()).delete()
    instance, token = AuthToken.objects.create(user=user)
    return IssuedToken(token=token, expiry=instance.expiry)


def api_token_revoke(*, token: AuthToken) -> None:
    """Log one token out: it authenticates nothing from now on."""
    token.delete()


def api_tokens_revoke(*, user: Any) -> int:
    """Log every token of `user` out; how many there were."""
    count, _ = AuthToken.objects.filter(user=user).delete()
    return int(count)
