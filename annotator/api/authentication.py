"""How an API request proves who sends it, and how often one address may ask for a token.

Kept apart from the views (annotator.api.auth): DRF's settings import the authentication
class while the views' module is still being imported.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from knox.auth import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.throttling import SimpleRateThrottle

from annotator.audit import client_ip

EXPIRED = (
    "Invalid or expired token: ask POST /api/auth/token/ for a new one "
    "(a token lasts a fixed time, and a password change revokes it)."
)


class ExpiringTokenAuthentication(TokenAuthentication):
    """django-rest-knox's tokens (`Authorization: Token <token>`), with a refusal that says
    what to do about it."""

    def authenticate_credentials(self, token: bytes) -> tuple[Any, Any]:
        try:
            return super().authenticate_credentials(token)  # type: ignore[no-any-return]
        except AuthenticationFailed:
            raise AuthenticationFailed(EXPIRED) from None


class ExpiringTokenScheme(OpenApiAuthenticationExtension):
    """The schema's `tokenAuth`: `Authorization: Token <token>`."""

    target_class = ExpiringTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return build_bearer_security_scheme_object(  # type: ignore[no-any-return]
            header_name="Authorization", token_prefix=self.target.authenticate_header(None)
        )


class SignInRateThrottle(SimpleRateThrottle):
    """Requests for a token per client address (DEFAULT_THROTTLE_RATES["sign-in"]).

    The address is REMOTE_ADDR, never X-Forwarded-For, which DRF's own throttles would
    believe: a client could name a new address in each request."""

    scope = "sign-in"

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.key_for(client_ip(request) or "unknown")

    @classmethod
    def key_for(cls, ident: str) -> str:
        """The cache key that counts `ident`'s requests (tests reset it)."""
        return cls.cache_format % {"scope": cls.scope, "ident": ident}
