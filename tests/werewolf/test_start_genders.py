"""玩家在游戏中的性别将由马甲决定, and 梦中人[魅惑] is <强制> (RULINGS werewolf 9): a director who
starts a dealt [099] game from 开局与管理 before entering every 马甲's gender is told who has
none, and nothing changes; once the genders are in, the same click starts the game."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from games import services as game_services
from games.models import Character, Game, GameStatus
from tests.conftest import START
from tests.werewolf.engine.support import SEATS
from werewolf import services, store
from werewolf.engine.state import NIGHT, SETUP

pytestmark = pytest.mark.django_db

NAMES = {1: "凯尔希", 2: "阿米娅"}  # the two 马甲 whose gender the director has not entered


def _prepared(director: Any) -> tuple[Game, dict[int, int]]:
    """A [099] game not started yet: 18 characters with passwords, dealt on the engine tests'
    seats, day 1's date set."""
    game = game_services.game_create(
        kind="werewolf", ruleset="arknights_099", number="099", title="明日方舟", start_date=START
    )
    game.directors.add(director)
    names = {seat: NAMES.get(seat, f"干员{seat}") for seat in SEATS}
    Character.objects.bulk_create(Character(game=game, name=n) for n in names.values())
    ids = {seat: Character.objects.get(game=game, name=n).pk for seat, n in names.items()}
    game_services.character_passwords_generate(game=game, director=director)
    services.werewolf_setup(game=game, roles={ids[seat]: role for seat, role in SEATS.items()})
    return game, ids


def _start(client: Client, game: Game) -> str:
    """开始 on the game's 开局与管理 page, as the director clicks it; the page it returns to."""
    response = client.post(f"/admin/games/game/{game.pk}/prepare/", {"op": "start"}, follow=True)
    assert response.status_code == 200, response.content[:500]
    return html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_the_start_is_refused_naming_who_has_no_gender_and_nothing_changes(
    director: Any, director_client: Client
) -> None:
    game, ids = _prepared(director)
    genders = {pk: "男" if seat % 2 else "女" for seat, pk in ids.items() if seat not in NAMES}
    services.werewolf_auction_set(
        game=game, director=director, genders=genders, auction={}, reason="按马甲录入性别"
    )
    events = game.events.count()
    state = store.state_load(game).to_json()

    # The checklist says so before the click, the click is refused naming them.
    checklist = director_client.get(f"/admin/games/game/{game.pk}/prepare/").content.decode()
    assert "性别（凯尔希、阿米娅）" in html.unescape(checklist)
    page = _start(director_client, game)

    assert "还缺：性别（凯尔希、阿米娅）。" in page
    assert "游戏已开始。" not in page
    game.refresh_from_db()
    assert game.status == GameStatus.DRAFT
    assert game.events.count() == events  # no game_started, no night_open
    assert store.state_load(game).to_json() == state
    assert store.state_load(game).phase == SETUP

    # The two genders entered, the same click starts the game with night 1.
    services.werewolf_auction_set(
        game=game,
        director=director,
        genders={**genders, ids[1]: "女", ids[2]: "女"},
        auction={},
        reason="补录性别",
    )
    page = _start(director_client, game)
    assert "游戏已开始。" in page
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING
    assert store.state_load(game).phase == NIGHT


def test_the_night_rooms_start_refuses_the_same(director: Any, director_client: Client) -> None:
    """The night room's 开始 (werewolf_start) goes through the same core start."""
    game, _ids = _prepared(director)
    response = director_client.post(
        f"/admin/werewolf/werewolfgame/{game.pk}/night/start/", {}, follow=True
    )
    page = html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))
    assert "还缺：性别（凯尔希、阿米娅、干员3" in page
    game.refresh_from_db()
    assert game.status == GameStatus.DRAFT
