"""Rooms in the archive: 游戏正式结束后，揭秘帖与树洞帖开启 — at game over every room's talk is
public, with who was in it and when; before, nothing of it shows anywhere public."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.test import Client

from games import services as game_services
from games.models import Room
from tests.conftest import bj
from tests.games.test_archive import page_text
from tests.werewolf.players import players, werewolf_game
from werewolf import services

pytestmark = pytest.mark.django_db

NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)
PACK_WORDS = "今晚刀十号ARCH7731"
QUESTION = "女巫能自救吗ARCH5521"
ANSWER = "第一夜可以ARCH9034"


def post(client: Client, game_id: int, token: str, body: str, **extra: Any) -> None:
    response = client.post(
        f"/api/games/{game_id}/rooms/{token}/messages",
        {"body": body, **extra},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content


def test_at_game_over_every_room_that_held_talk_is_in_the_archive(director: Any) -> None:
    game, ids = werewolf_game()
    game.directors.add(director)
    cast = players(game)
    boss = Client()
    boss.force_login(director)
    with time_machine.travel(NIGHT_1 + dt.timedelta(minutes=1), tick=False):
        services.werewolf_start(game=game, director=director, now=NIGHT_1)
        pack = Room.objects.get(game=game, key__startswith="team:")
        post(cast[1].client, game.pk, pack.token, PACK_WORDS)
        inbox = Room.objects.get(game=game, kind="inbox", owner_id=ids[15])
        post(cast[15].client, game.pk, inbox.token, QUESTION, topic="rule")
        post(boss, game.pk, inbox.token, ANSWER)

    # While the game runs, no page anyone may open shows the talk, nor a room's page.
    for url in ("/games/099/", "/games/099/archive/", f"/games/099/archive/room/{pack.token}/"):
        text = page_text(Client(), url, status=200 if url == "/games/099/" else 404)
        assert PACK_WORDS not in text
        assert QUESTION not in text

    game_services.game_finish(game=game, director=director, reason="赛后公开")
    archive = page_text(Client(), "/games/099/archive/")
    assert "群聊记录" in archive
    # The pack (狼群) with its four wolves, and P15's inbox, named with its player; inboxes and
    # the lobby where nobody spoke are not listed.
    assert "狼群" in archive
    assert "私聊导演 · P15" in archive
    assert "私聊导演 · P3" not in archive
    assert f"/games/099/archive/room/{inbox.token}/" in archive

    room_page = page_text(Client(), f"/games/099/archive/room/{pack.token}/")
    assert "P1、P2、P3、P4 加入了狼群" in room_page
    assert f"P1：{PACK_WORDS}" in room_page
    for seat in (1, 2, 3, 4):
        assert f"P{seat}<small>" in room_page  # each stay listed with its joining time
    assert "1 条消息" in room_page
    talk = page_text(Client(), f"/games/099/archive/room/{inbox.token}/")
    assert f"P15：【规则提问】{QUESTION}" in talk
    assert "2 条消息" in talk  # the question and the answer
    assert f"导演 {director.username}：{ANSWER}" in talk
    # A token that is no room of this game is no page.
    page_text(Client(), "/games/099/archive/room/nosuchroom/", status=404)
