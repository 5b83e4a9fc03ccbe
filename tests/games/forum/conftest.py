"""The adapters under test, made against the fake forum (the ``fake_forum`` fixture is in
``tests/conftest.py``, for every package) and closed after the test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from games.forum.discourse import DiscourseAdapter
from games.forum.discuz import DiscuzAdapter
from tests.games.forum.fake_forum import FakeForum

DIRECTOR = "导演B"
DIRECTOR_PASSWORD = "dao-yan-pass"

MakeDiscuz = Callable[..., DiscuzAdapter]
MakeDiscourse = Callable[..., DiscourseAdapter]


@pytest.fixture
def discuz(fake_forum: FakeForum) -> Iterator[MakeDiscuz]:
    """``discuz(**options)``: an adapter logged in as 导演B, whose account it opens on first use
    (so the forum's other accounts keep their uids); options override."""
    with ExitStack() as made:

        def make(**options: Any) -> DiscuzAdapter:
            options = {"username": DIRECTOR, "password": DIRECTOR_PASSWORD, **options}
            fake_forum.user(str(options["username"]), DIRECTOR_PASSWORD)
            return made.enter_context(DiscuzAdapter(fake_forum.base_url, **options))

        yield make


@pytest.fixture
def discourse(fake_forum: FakeForum) -> Iterator[MakeDiscourse]:
    """``discourse(**options)``: an adapter with the forum's API key; options override."""
    with ExitStack() as made:

        def make(**options: Any) -> DiscourseAdapter:
            options = {
                "api_key": fake_forum.api_key,
                "api_username": fake_forum.api_username,
                **options,
            }
            return made.enter_context(DiscourseAdapter(fake_forum.base_url, **options))

        yield make


def pages_asked(forum: FakeForum) -> list[str]:
    """The ``page`` of each Discuz ``viewthread`` request the forum served, in order."""
    return [
        part.removeprefix("page=")
        for _, path in forum.requests
        if "module=viewthread" in path
        for part in path.split("&")
        if part.startswith("page=")
    ]
