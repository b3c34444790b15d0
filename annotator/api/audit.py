"""The audit log in the API: admins (Can.VIEW_AUDIT) read a project's events, filtered, newest
first, by limit and offset.

Like the page, reading the log is not itself an event (see annotator.views.audit); the CSV
download of the page is.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema_field
from rest_framework import generics, serializers

from annotator.api.fields import StrictCharField
from annotator.api.views import ProjectScoped
from annotator.models import AuditAction, AuditEvent
from annotator.permissions import Can
from annotator.selectors.audit import AuditFilter, action_label, audit_events

_ACTION = "(?:" + "|".join(AuditAction.values) + ")"
# One action or several, comma-separated, as the schema publishes it.
ACTIONS_PATTERN = f"^{_ACTION}(?:,{_ACTION})*$"


@extend_schema_field({"type": "string", "pattern": ACTIONS_PATTERN, "maxLength": 1000})
class ActionListField(serializers.CharField):
    """Actions, comma-separated (a query parameter may be given only once)."""

    def to_internal_value(self, data: Any) -> list[str]:  # type: ignore[override]
        text = super().to_internal_value(data)
        actions = text.split(",")
        unknown = sorted(set(actions) - set(AuditAction.values))
        if unknown:
            raise serializers.ValidationError(
                f"unknown action {', '.join(repr(a) for a in unknown)}; expected some of "
                f"{', '.join(AuditAction.values)}, comma-separated"
            )
        return list(dict.fromkeys(actions))


class AuditFilterSerializer(serializers.Serializer[Any]):
    """The filters of the audit log (query parameters); each may be left out."""

    action = ActionListField(
        required=False,
        max_length=1000,
        trim_whitespace=False,
        help_text="Actions, comma-separated: " + ", ".join(AuditAction.values),
    )
    actor = StrictCharField(
        required=False, max_length=150, help_text="The username of who acted (any case)"
    )
    since = serializers.DateField(required=False, help_text="From this day (UTC), inclusive")
    # Before `since`, the range is empty: no event, as a range no event falls in.
    until = serializers.DateField(required=False, help_text="Up to this day (UTC), inclusive")
    target = StrictCharField(
        required=False, max_length=200, help_text="Part of the target, in any case"
    )


class AuditEventSerializer(serializers.ModelSerializer[AuditEvent]):
    actor = StrictCharField(
        source="actor.username",
        read_only=True,
        default=None,
        allow_null=True,
        help_text="Username; null for the system (a worker, a command)",
    )
    action_label = serializers.SerializerMethodField()
    detail = serializers.SerializerMethodField()

    class Meta:
        model = AuditEvent
        fields = ["id", "created_at", "actor", "action", "action_label", "target", "detail",
                  "ip_address"]  # fmt: skip
        read_only_fields = fields

    def get_action_label(self, event: AuditEvent) -> str:
        return action_label(event.action)

    @extend_schema_field(serializers.DictField(help_text="Counts, ids and filters; no original"))
    def get_detail(self, event: AuditEvent) -> dict[str, Any]:
        return event.detail if isinstance(event.detail, dict) else {"value": event.detail}


class AuditList(ProjectScoped, generics.ListAPIView[AuditEvent]):
    """The project's audit log: who did what, when, to what, from where; newest first."""

    serializer_class = AuditEventSerializer
    required_capability = Can.VIEW_AUDIT
    query_serializer = AuditFilterSerializer

    def get_queryset(self) -> QuerySet[AuditEvent]:
        query = self.query
        filters = AuditFilter(
            actions=tuple(query.get("action", ())),
            actor=query.get("actor", "").strip(),
            since=query.get("since"),
            until=query.get("until"),
            target=query.get("target", "").strip(),
        )
        return audit_events(self.get_project(), filters)
