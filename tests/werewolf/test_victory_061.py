"""[061] 林峰's end on a game a director prepared by hand: two factions meet their win at the
same moment and the post's priority list decides (如果有多个阵营同时获得胜利，则判定优先顺序为：
吹笛者阵营、野心家阵营、毒士阵营、宝藏阵营、妖狐阵营、狼人阵营). The director reaches the end
through the night room's override, as one would to enter outs decided off the site."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
import time_machine
from django.test import Client

from games import services as game_services
from games.models import Event, GameStatus
from tests.conftest import bj
from tests.werewolf.test_portal_061 import Table
from werewolf import services, store

pytestmark = pytest.mark.django_db


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_treasure_and_fox_both_win_and_the_priority_list_gives_it_to_treasure(
    director: Any, director_client: Client
) -> None:
    table = Table(director)
    table.to_day_1()
    with time_machine.travel(bj(3, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(3, 21, 1))
    services.werewolf_deadlines_run(now=bj(3, 22, 5))
    state = store.state_load(table.game)
    assert state.phase == "late"
    # 宝藏阵营 wins once no 狼人/野心家/吹笛者阵营 role lives; 妖狐阵营 once no 狼人/毒士/野心家
    # 阵营 role does. Every living member of those four factions goes out tonight; the 游侠
    # (野心家阵营 here) by 空救, since <天罡护体> keeps it from a 杀人 on the first two days.
    gone = [
        p.id
        for p in state.players.values()
        if p.alive and p.faction in ("wolves", "ambition", "poison", "piper")
    ]
    ranger = next(p.id for p in state.players.values() if p.role == "ranger")
    assert state.players[ranger].faction == "ambition"
    gone.remove(ranger)
    url = f"/admin/werewolf/werewolfgame/{table.game.pk}/night/override/"
    with time_machine.travel(bj(4, 8), tick=False):
        response = director_client.post(
            url, {"hit0": [str(g) for g in gone], "hit1": [str(ranger)], "reason": "场外结算"}
        )
    assert response.status_code in (200, 302)
    state = store.state_load(table.game)
    living = {p.faction for p in state.players.values() if p.alive}
    assert {"treasure", "fox"} <= living
    assert not living & {"wolves", "ambition", "poison", "piper"}
    assert state.phase == "over"
    assert state.winner == "treasure"
    table.game.refresh_from_db()
    assert table.game.status == GameStatus.FINISHED
    end = Event.objects.get(game=table.game, kind="game_over")
    assert end.payload["winner"] == "treasure"
    with time_machine.travel(bj(4, 9), tick=False):
        for role in ("fox", "treasure", "seer"):
            page = _text(table.page(role))
            assert "宝藏阵营获胜" in page, role
            assert "妖狐阵营获胜" not in page, role
        room = director_client.get(f"/admin/werewolf/werewolfgame/{table.game.pk}/night/")
    assert re.search(r"胜者\s+宝藏阵营", _text(room.content.decode()))


@pytest.mark.django_db(transaction=True)
async def test_the_priority_end_reaches_every_players_socket_and_api(
    director: Any, director_client: Client
) -> None:
    """The same end, read where players read it: each socket open since day 1 receives the end
    once, naming 宝藏阵营 (not 妖狐阵营, which met its condition too), and the API's /me says
    the game is won by 宝藏阵营."""
    from channels.db import database_sync_to_async as sync

    from tests.werewolf.players import Player, Reader

    table = await sync(Table)(director)
    await sync(table.to_day_1)()
    watchers = ("fox", "treasure", "wolf_queen")

    def readers() -> dict[str, Reader]:
        found = {}
        for role in watchers:
            name = table.names[role]
            player = Player(table.game, name, table.passwords[name])
            found[role] = Reader(table.game, table.ids[role], player)
        return found

    r = await sync(readers)()
    for reader in r.values():
        await reader.connect()

    def to_the_end() -> None:
        with time_machine.travel(bj(3, 21, 1), tick=False):
            game_services.transitions_run_due(now=bj(3, 21, 1))
        services.werewolf_deadlines_run(now=bj(3, 22, 5))
        state = store.state_load(table.game)
        ranger = next(p.id for p in state.players.values() if p.role == "ranger")
        gone = [
            p.id
            for p in state.players.values()
            if p.alive and p.faction in ("wolves", "ambition", "poison", "piper") and p.id != ranger
        ]
        url = f"/admin/werewolf/werewolfgame/{table.game.pk}/night/override/"
        with time_machine.travel(bj(4, 8), tick=False):
            director_client.post(
                url, {"hit0": [str(g) for g in gone], "hit1": [str(ranger)], "reason": "场外结算"}
            )

    await sync(to_the_end)()
    for role, reader in r.items():
        frames = await reader.drain()
        ends = [f["payload"] for f in frames if f.get("kind") == "game_over"]
        assert [(e["winner"], e["winner_name"]) for e in ends] == [("treasure", "宝藏阵营")], role
        me = await sync(reader.player.me)()
        assert me["winner"] == "treasure", role
        assert reader.socket is not None
        await reader.socket.disconnect()
