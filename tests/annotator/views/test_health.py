from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError
from django.test import Client
from django.urls import reverse

from annotator.views import health


@pytest.mark.django_db
def test_it_answers_ok_without_login() -> None:
    response = Client().get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_it_answers_503_when_the_database_fails(monkeypatch: Any) -> None:
    class BrokenConnection:
        def cursor(self) -> Any:
            raise OperationalError("connection refused")

    monkeypatch.setattr(health, "connection", BrokenConnection())
    response = Client().get(reverse("healthz"))
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "error"}
