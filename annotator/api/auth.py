"""Signing in to the API: a token for a username and password, and logging tokens out.

POST /api/auth/token/ answers `{"token", "expiry"}`; send the token as
`Authorization: Token <token>` until its expiry (CLOAK_API_TOKEN_TTL_HOURS after it was
issued). POST /api/auth/logout/ revokes the token it is sent with, /api/auth/logout-all/ every
token of its caller; a password change revokes them all too (annotator.signals).

The token endpoint is guarded twice: django-axes refuses a username from an address after
repeated failures (the lockout answer is annotator.views.signin.lockout_response), and a
throttle bounds how often one address may ask at all, whatever the usernames.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.signals import user_logged_in
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.authentication import ExpiringTokenAuthentication, SignInRateThrottle
from annotator.api.serializers import ErrorSerializer
from annotator.api.views import StrictQueryMixin
from annotator.services.tokens import api_token_issue, api_token_revoke, api_tokens_revoke

REFUSED = "Unable to log in with provided credentials."


class TokenRequestSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(max_length=150, trim_whitespace=False)
    password = serializers.CharField(
        max_length=4096, trim_whitespace=False, write_only=True, style={"input_type": "password"}
    )


class TokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(
        help_text="Send it as `Authorization: Token <token>`; it is shown this once"
    )
    expiry = serializers.DateTimeField(help_text="When the token stops working")


TOO_MANY = OpenApiResponse(
    ErrorSerializer,
    description="Too many requests from your address, or too many failed sign-ins of this "
    "username from it: `Retry-After` says how many seconds to wait.",
)


class TokenObtain(StrictQueryMixin):
    """A token for a username and password."""

    authentication_classes = ()
    permission_classes = ()
    throttle_classes = (SignInRateThrottle,)

    @extend_schema(
        request=TokenRequestSerializer,
        responses={200: TokenSerializer, 429: TOO_MANY},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        form = TokenRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        # Django's request, not DRF's: axes marks a locked-out sign-in on it, and its
        # middleware answers with the lockout (429) in place of this view's answer.
        http_request = request._request
        user = authenticate(
            http_request,
            username=form.validated_data["username"],
            password=form.validated_data["password"],
        )
        if user is None:
            raise ValidationError({"non_field_errors": [REFUSED]}, code="authorization")
        issued = api_token_issue(user=user)
        # As a page sign-in does: last_login, and axes forgets this pair's failures.
        user_logged_in.send(sender=user.__class__, request=http_request, user=user)
        return Response(TokenSerializer(issued).data)


class TokenLogout(StrictQueryMixin):
    """Revoke the token this request is sent with."""

    authentication_classes = (ExpiringTokenAuthentication,)
    permission_classes = (IsAuthenticated,)

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        api_token_revoke(token=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenLogoutAll(StrictQueryMixin):
    """Revoke every token of the caller (signed in by a token or in the browser)."""

    permission_classes = (IsAuthenticated,)

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        api_tokens_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
