"""A project's members in the API: who is in it, and, for its admins, adding, changing and
removing them.

    GET    /api/projects/{slug}/members/               leads and admins
    POST   /api/projects/{slug}/members/               username, role, languages, password?, email?
    GET    /api/projects/{slug}/members/{username}/    leads and admins
    PATCH  /api/projects/{slug}/members/{username}/    role and/or languages
    DELETE /api/projects/{slug}/members/{username}/    their unfinished documents go back

Writes are the admins' (Can.MANAGE_PROJECT): a lead gets 403, an annotator 403 on every
operation, an outsider 404. The rules (a role's languages, the last admin, a new account's
password) and the audit log are annotator.services.projects's, as for the pages.
"""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictCharField
from annotator.api.parsers import BoundedJSONParser
from annotator.api.serializers import MembershipSerializer, language_code_field
from annotator.api.views import ProjectScoped
from annotator.audit import client_ip
from annotator.models import Membership, Role
from annotator.permissions import Can
from annotator.services.projects import membership_remove, membership_set

# What Django's username validator allows; a name with a slash could not be addressed in
# this API's URLs.
USERNAME = RegexValidator(r"^[\w.@+-]+$", "letters, digits and @ . + - _ only")


def member_languages_field(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(
        child=language_code_field(),
        max_length=100,
        help_text="The project's languages they work on (an annotator needs one at least)",
        **kwargs,
    )


class MemberSetSerializer(serializers.Serializer[Any]):
    username = StrictCharField(max_length=150, validators=[USERNAME])
    role = serializers.ChoiceField(choices=Role.choices)
    languages = member_languages_field(required=False, default=list)
    # Not trimmed: white space is part of a password.
    password = StrictCharField(
        max_length=128, required=False, trim_whitespace=False, write_only=True,
        help_text="Only to create an account for someone new to Cloak",
    )  # fmt: skip
    email = serializers.EmailField(
        max_length=254, required=False, allow_blank=True, default="",
        help_text="The new account's address",
    )  # fmt: skip


class MemberPatchSerializer(serializers.Serializer[Any]):
    role = serializers.ChoiceField(choices=Role.choices, required=False)
    languages = member_languages_field(required=False)

    # What does not change is left out; something must change (the schema says so too).
    schema_any_of = ({"required": ["role"]}, {"required": ["languages"]})

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "role" not in attrs and "languages" not in attrs:
            raise serializers.ValidationError("give a role, languages or both")
        return attrs


class MemberScoped(ProjectScoped):
    """Member views read JSON bodies only: a form would read an absent list of languages as
    an empty one."""

    parser_classes = [BoundedJSONParser]

    def member_set(self, request: Request, **fields: Any) -> Membership:
        membership = membership_set(
            project=self.get_project(),
            actor=request.user,
            via="api",
            ip_address=client_ip(request),
            **fields,
        )
        # The answer names its user: no query for it.
        return Membership.objects.select_related("user").get(pk=membership.pk)


class MemberList(MemberScoped, generics.ListAPIView[Membership]):
    """The project's members; POST adds one (creating their account when a password comes)
    or changes the role and languages of someone already in it."""

    serializer_class = MembershipSerializer
    required_capability = Can.VIEW_MEMBERS
    capability_by_method = {"POST": Can.MANAGE_PROJECT}

    def get_queryset(self) -> QuerySet[Membership]:
        return Membership.objects.filter(project=self.get_project()).select_related("user")

    @extend_schema(
        request=MemberSetSerializer,
        responses={
            201: OpenApiResponse(MembershipSerializer, description="They joined the project"),
            200: OpenApiResponse(MembershipSerializer, description="Their membership changed"),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        form = MemberSetSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        joined = not self.get_queryset().filter(user__username=data["username"]).exists()
        membership = self.member_set(
            request,
            username=data["username"],
            role=data["role"],
            languages=data["languages"],
            password=data.get("password") or None,
            email=data["email"],
        )
        code = status.HTTP_201_CREATED if joined else status.HTTP_200_OK
        return Response(MembershipSerializer(membership).data, status=code)


class MemberDetail(MemberScoped, generics.RetrieveAPIView[Membership]):
    """One member; PATCH changes their role or languages, DELETE takes them out of the
    project (the unfinished documents they held go back to their language's pool). The
    project's last admin can neither leave nor be removed."""

    serializer_class = MembershipSerializer
    required_capability = Can.VIEW_MEMBERS
    capability_by_method = {"PATCH": Can.MANAGE_PROJECT, "DELETE": Can.MANAGE_PROJECT}

    def get_object(self) -> Membership:
        members = Membership.objects.select_related("user")
        return get_object_or_404(
            members, project=self.get_project(), user__username=self.kwargs["username"]
        )

    @extend_schema(request=MemberPatchSerializer, responses={200: MembershipSerializer})
    def patch(self, request: Request, slug: str, username: str) -> Response:
        membership = self.get_object()  # 404 before the body is read
        form = MemberPatchSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        changed = self.member_set(
            request,
            username=membership.user.username,
            role=form.validated_data.get("role", membership.role),
            languages=form.validated_data.get("languages", membership.languages),
        )
        return Response(MembershipSerializer(changed).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, slug: str, username: str) -> Response:
        membership = self.get_object()
        membership_remove(
            project=self.get_project(),
            username=membership.user.username,
            actor=request.user,
            ip_address=client_ip(request),
        )
        return Response(status=status.HTTP_204_NO_CONTENT)
