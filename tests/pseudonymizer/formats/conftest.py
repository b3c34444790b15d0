from __future__ import annotations

from pathlib import Path

import pytest

from tests.pseudonymizer.formats.helpers import DATA


@pytest.fixture
def data() -> Path:
    """The folder of fixture files, written as the real tools write them."""
    return DATA
