"""A night played through the HTTP API: outcomes in submission order, with the rules' numbers."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Event
from royale.engine.state import GameState
from royale.models import RoyaleGame
from tests.royale.conftest import night_one, players, royale_game

pytestmark = pytest.mark.django_db


def state_of(game: Any) -> GameState:
    return GameState.from_json(RoyaleGame.objects.get(pk=game.pk).state)


def test_a_scripted_first_night(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    cast = players(game)
    a, b = cast["甲"], cast["乙"]
    assert a.act("spawn", place="监狱").status_code == 200
    assert b.act("spawn", place="监狱").status_code == 200
    moved = a.act("move", place="教堂")
    assert moved.status_code == 200
    assert moved.json()["me"]["mp"] == 95  # 移动 −5 体力
    assert moved.json()["me"]["place"] == "教堂"
    first = a.act("search")
    assert first.status_code == 200
    assert first.json()["me"]["mp"] == 90  # 搜索 −5 体力
    again = a.act("search")
    assert again.status_code == 409 or again.status_code == 400
    assert again.json()["code"] == "search_cooldown"
    assert 0 < again.json()["detail"]["seconds_left"] <= 30
    assert a.me()["mp"] == 90  # the refused search cost nothing
    assert Event.objects.filter(game=game, kind="engine_step").count() >= 5
