from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.games.forum.fake_forum import FakeForum, running_forum


@pytest.fixture
def fake_forum() -> Iterator[FakeForum]:
    """A forum on loopback for this test (see ``fake_forum.py``); stopped afterwards."""
    yield from running_forum()
