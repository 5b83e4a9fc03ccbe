from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection

from games import services
from games.models import Character, Game


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if connection.vendor == "postgresql":
        return
    skip = pytest.mark.skip(
        reason=f"needs PostgreSQL (row locks, concurrency); this run uses {connection.vendor}"
    )
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _actions_in_the_test_thread(settings: Any) -> None:
    # The test's database transaction lives in its own thread; a shared pool would not see it.
    settings.ACTIONS_SHARED_THREADS = False


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # Login limits live in Redis; each test starts with no failures counted.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def director(django_user_model: Any) -> Any:
    services.groups_ensure()
    user = django_user_model.objects.create_user(
        username="daoyan", password="director-pass-123", is_staff=True
    )
    from django.contrib.auth.models import Group

    user.groups.add(Group.objects.get(name=services.DIRECTORS_GROUP))
    return user


def make_game(number: str = "256", *, characters: tuple[str, ...] = ("甲", "乙", "丙")) -> Game:
    game = services.game_create(
        kind="royale",
        ruleset="islington_256",
        number=number,
        title="伊斯灵顿不眠夜",
        start_date=dt.date(2026, 11, 1),
        status="running",
    )
    Character.objects.bulk_create(Character(game=game, name=n) for n in characters)
    return game


@pytest.fixture
def game(director: Any) -> Game:
    game = make_game()
    game.directors.add(director)
    return game


@pytest.fixture
def passwords(game: Game) -> dict[str, str]:
    issued = services.character_passwords_generate(game=game, director=None)
    return {item.character.name: item.secret for item in issued}
