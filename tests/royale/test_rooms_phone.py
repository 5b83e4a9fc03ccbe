"""[256] 电话: 若其同意，使用者与目标共群至投票结束 — the call's room over real HTTP and sockets:
the two ends talk, nobody else reads a word, and the day's close (the vote's end) ends it."""

from __future__ import annotations

import json
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async

from games import services as game_services
from tests.conftest import SocketReader, bj
from tests.royale.conftest import give, night_one, players, royale_game, spawn

pytestmark = pytest.mark.django_db(transaction=True)
sync = database_sync_to_async
WORDS = "我在医院等你CALL7731"


def rooms(player: Any) -> dict[str, dict[str, Any]]:
    answer = player.client.get(f"/api/games/{player.game.pk}/rooms")
    assert answer.status_code == 200, answer.content
    return {r["kind"]: r for r in answer.json()["rooms"]}


def say(player: Any, token: str, body: str) -> Any:
    return player.client.post(
        f"/api/games/{player.game.pk}/rooms/{token}/messages",
        {"body": body},
        content_type="application/json",
    )


def setup_day_two() -> tuple[Any, dict[str, Any]]:
    with time_machine.travel(bj(1, 21, 12), tick=False):
        game = royale_game("256", ("甲", "乙", "丙"))
        night_one(game)
        cast = players(game)
        spawn(cast, {"甲": "医院", "乙": "监狱", "丙": "墓地"})
    with time_machine.travel(bj(2, 9), tick=False):
        game_services.transitions_run_due(now=bj(2, 9))
    return game, cast


def read_all(reader: SocketReader) -> str:
    client = reader.player.client
    game = reader.game
    reader.json.append(client.get(f"/api/games/{game.pk}/events").json())
    reader.json.append(client.get(f"/api/games/{game.pk}/rooms").json())
    page = client.get(f"/play/{game.number}/me/").content.decode()
    return json.dumps(reader.json, ensure_ascii=False) + page


async def test_a_call_is_a_room_of_its_two_ends_until_the_vote_ends() -> None:
    game, cast = await sync(setup_day_two)()
    readers = {name: SocketReader(game, p) for name, p in cast.items()}
    for r in readers.values():
        await r.connect()
    with time_machine.travel(bj(2, 10), tick=False):
        phone = await sync(give)(game, "甲", "tool:电话")
        placed = await sync(cast["甲"].act)("phone", item=phone, target="乙")
        assert placed.status_code == 200, placed.content
        assert "phone" not in await sync(rooms)(cast["甲"])  # not before the answer
        (call,) = [f for f in await readers["乙"].drain() if f.get("kind") == "phone_call"]
        answered = await sync(cast["乙"].act)(
            "answer_phone", call=call["payload"]["call"], accept=True
        )
        assert answered.status_code == 200, answered.content
        room = (await sync(rooms)(cast["甲"]))["phone"]
        assert room["name"] == "通话：甲 与 乙"
        assert (await sync(rooms)(cast["乙"]))["phone"]["room"] == room["room"]
        assert "phone" not in await sync(rooms)(cast["丙"])
        assert (await sync(say)(cast["甲"], room["room"], WORDS)).status_code == 200
        frames = [f for f in await readers["乙"].drain() if f.get("type") == "room"]
        assert [f["text"] for f in frames][-1] == f"甲：{WORDS}"
        await readers["甲"].drain()
        await readers["丙"].drain()

    # 至投票结束: the day's close ends the call; neither end may speak in it again.
    with time_machine.travel(bj(2, 21, 1), tick=False):
        await sync(game_services.transitions_run_due)(now=bj(2, 21, 1))
        await readers["甲"].drain()
        assert "phone" not in await sync(rooms)(cast["甲"])
        late = await sync(say)(cast["乙"], room["room"], "还在吗")
        assert (late.status_code, late.json()["code"]) == (404, "room_not_found")
    await readers["乙"].drain()
    removed = [f for f in readers["乙"].json if f.get("kind") == "room_removed"]
    assert [f["text"] for f in removed] == ["你已不在通话：甲 与 乙中，此后不会再收到其中的消息"]

    # 丙 read nothing of it on any surface; the ends did.
    for name, reader in readers.items():
        text = await sync(read_all)(reader)
        assert (WORDS in text) == (name != "丙"), name
        assert ("通话：" in text) == (name != "丙"), name
        assert reader.socket is not None
        await reader.socket.disconnect()
