"""Shared fixtures: a trilingual project with a member of every role, and their clients."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from annotator.api.authentication import SignInRateThrottle
from annotator.celery import app as celery_app
from annotator.models import Project, Role
from tests.factories import MembershipFactory, ProjectFactory, UserFactory

PASSWORD = "correct-horse-battery"


@pytest.fixture(autouse=True)
def _eager_celery() -> Any:
    """Tasks run in-process unless a test starts a real worker."""
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _test_settings(settings: Any, tmp_path: Any) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"
    # Pages render `{% static %}`; the manifest storage would need collectstatic first.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # Each `team` makes six users; PBKDF2 would spend seconds on every test's setup.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_sign_in_throttle() -> None:
    """The token endpoint's throttle counts in the cache (Redis), which outlives a test: each
    test starts with the count of the test client's address at zero. (Failed sign-ins are
    counted in the database, which each test gets back as it was.)"""
    cache.delete(SignInRateThrottle.key_for("127.0.0.1"))


@dataclass
class Team:
    """Everyone who matters for one project, and one person from outside it."""

    project: Project
    admin: Any
    lead: Any
    annotator_en: Any
    annotator_fr: Any
    outsider: Any

    def by_role(self) -> dict[str, Any]:
        return {
            "admin": self.admin,
            "lead": self.lead,
            "annotator_en": self.annotator_en,
            "annotator_fr": self.annotator_fr,
            "outsider": self.outsider,
        }


@pytest.fixture
def team(db: Any) -> Team:
    project = ProjectFactory(slug="radical", languages=["en", "fr", "ar"])
    other = ProjectFactory(slug="elsewhere", languages=["en"])
    admin = MembershipFactory(project=project, role=Role.ADMIN, languages=[]).user
    lead = MembershipFactory(project=project, role=Role.LEAD, languages=[]).user
    annotator_en = MembershipFactory(project=project, role=Role.ANNOTATOR, languages=["en"]).user
    annotator_fr = MembershipFactory(project=project, role=Role.ANNOTATOR, languages=["fr"]).user
    # An admin of another project: belongs nowhere near this one.
    outsider = MembershipFactory(project=other, role=Role.ADMIN, languages=[]).user
    return Team(project, admin, lead, annotator_en, annotator_fr, outsider)


def client_for(user: Any | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def make_user(db: Any) -> Any:
    return UserFactory
