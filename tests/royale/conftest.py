from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from games import services as game_services
from games.models import Character, Game
from royale import services

BJ = dt.timezone(dt.timedelta(hours=8))
# Day 1 of the test games; night 1's window is 21:10–21:25 北京时间.
START = dt.date(2026, 11, 1)


def bj(day: int, hour: int, minute: int = 0, second: int = 0) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, minute, second, tzinfo=BJ)


def royale_game(number: str, names: tuple[str, ...], *, ruleset: str = "islington_256") -> Game:
    game = game_services.game_create(
        kind="royale",
        ruleset=ruleset,
        number=number,
        title="伊斯灵顿不眠夜",
        start_date=START,
        status="running",
    )
    Character.objects.bulk_create(Character(game=game, name=n) for n in names)
    services.royale_setup(game=game)
    return game


def night_one(game: Game) -> None:
    """Run the scheduler up to night 1's open window (21:12 on day 1)."""
    game_services.transitions_run_due(now=bj(1, 21, 12))


class Player:
    """A character's browser: logged in over HTTP, acting through the API."""

    def __init__(self, game: Game, name: str, password: str) -> None:
        self.game, self.name = game, name
        self.client = Client()
        url = f"/api/play/{game.number}/login"
        response = self.client.post(url, {"password": password}, content_type="application/json")
        assert response.status_code == 200, response.content
        self.id = Character.objects.get(game=game, name=name).pk

    def act(self, kind: str, *, key: str | None = None, **fields: Any) -> Any:
        return self.client.post(
            f"/api/royale/games/{self.game.pk}/actions",
            {"kind": kind, **fields},
            content_type="application/json",
            headers={"Idempotency-Key": key} if key else None,
        )

    def me(self) -> dict[str, Any]:
        response = self.client.get(f"/api/royale/games/{self.game.pk}/me")
        assert response.status_code == 200, response.content
        return dict(response.json()["me"])


@pytest.fixture
def at_night_one() -> Any:
    with time_machine.travel(bj(1, 21, 12), tick=False) as traveller:
        yield traveller


def players(game: Game) -> dict[str, Player]:
    issued = game_services.character_passwords_generate(game=game, director=None)
    return {i.character.name: Player(game, i.character.name, i.secret) for i in issued}


def now() -> dt.datetime:
    return timezone.now()
