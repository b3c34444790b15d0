"""Receivers that AnnotatorConfig.ready() connects."""

from __future__ import annotations

from typing import Any

from annotator.services.tokens import api_tokens_revoke


def user_saved(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    """A new password revokes every API token of its user, whatever set it: the admin,
    `changepassword`, the password forms, `add_member`. So does an unusable password.

    set_password() keeps the new raw password on the user until save(); the rehash that
    check_password() does at sign-in (a new hasher, more iterations) clears it before saving,
    so an upgraded hash of the same password revokes nothing."""
    if created:
        return
    update_fields = kwargs.get("update_fields")
    if update_fields is not None and "password" not in update_fields:
        return
    if getattr(instance, "_password", None) is not None or not instance.has_usable_password():
        api_tokens_revoke(user=instance)
