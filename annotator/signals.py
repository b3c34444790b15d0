"""Receivers that AnnotatorConfig.ready() connects."""

from __future__ import annotations

from typing import Any

from annotator.services.tokens import api_tokens_revoke
from annotator.services.undo import undo_forget


def user_saved(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    """A new password revokes every API token of its user, whatever set it: the admin,
    `changepassword`, the password forms, `add_member`. So does an unusable password, and a
    deactivation (its sessions too).

    set_password() keeps the new raw password on the user until save(); the rehash that
    check_password() does at sign-in (a new hasher, more iterations) clears it before saving,
    so an upgraded hash of the same password revokes nothing."""
    if created:
        return
    update_fields = kwargs.get("update_fields")
    if not instance.is_active and (update_fields is None or "is_active" in update_fields):
        # Deactivated: their tokens and sessions go, or they would come back with a
        # reactivation (issue 32).
        api_tokens_revoke(user=instance)
        sessions_end(instance)
        undo_forget(instance)
        return
    if update_fields is not None and "password" not in update_fields:
        return
    if getattr(instance, "_password", None) is not None or not instance.has_usable_password():
        api_tokens_revoke(user=instance)


def sessions_end(user: Any) -> int:
    """Delete every session signed in as `user`: the session table has no user column, so
    each live session is decoded (a deactivation is rare); the number deleted."""
    from django.contrib.auth import SESSION_KEY
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    mine = [
        session.pk
        for session in Session.objects.filter(expire_date__gte=timezone.now()).iterator()
        if str(session.get_decoded().get(SESSION_KEY)) == str(user.pk)
    ]
    Session.objects.filter(pk__in=mine).delete()
    return len(mine)


def signed_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """A sign-out takes the person's undo stacks with it, as it takes their session."""
    if user is not None:
        undo_forget(user)
