"""A scripted night over real HTTP and real websockets: who receives what, and no leaks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games.models import Game
from tests.conftest import SocketReader
from tests.royale.conftest import Player, empty_royale_game, give, night_one, players

pytestmark = pytest.mark.django_db(transaction=True)


class Recorder(SocketReader):
    """Everything one character's browser receives: frames, API answers, pages."""

    async def act(self, kind: str, **fields: Any) -> Any:
        response = await database_sync_to_async(self.player.act)(kind, **fields)
        body = response.json()
        self.json.append(body)
        return body

    async def fetch_all(self) -> None:
        client = self.player.client
        me = await database_sync_to_async(client.get)(f"/api/royale/games/{self.game.pk}/me")
        body = me.json()
        self.json.append({k: v for k, v in body.items() if k != "map"})  # the map is public
        events = await database_sync_to_async(client.get)(f"/api/games/{self.game.pk}/events")
        self.json.append(events.json())
        page = await database_sync_to_async(client.get)(f"/play/{self.game.number}/me/")
        self.html.append(page.content.decode())

    def text(self) -> str:
        return json.dumps(self.json, ensure_ascii=False)

    def values(self, key: str) -> list[Any]:
        found: list[Any] = []

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                for k, v in node.items():
                    if k == key:
                        found.append(v)
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)

        walk(self.json)
        return found


@pytest.fixture
def scripted(at_night_one: Any) -> Any:
    game = empty_royale_game("256", ("甲", "乙", "丙"))
    give(game, "丙", "supply:[HP100]蜂王浆")  # 丙's item: nobody else may ever see it
    night_one(game)
    return game, players(game), at_night_one


async def spawned(game: Game, cast: dict[str, Player]) -> tuple[Recorder, Recorder, Recorder]:
    """甲 and 乙 at 监狱, 丙 alone at 医院, each with its socket open."""
    a, b, c = (Recorder(game, cast[n]) for n in ("甲", "乙", "丙"))
    for r in (a, b, c):
        await r.connect()
    await a.act("spawn", place="监狱")
    await b.act("spawn", place="监狱")
    await c.act("spawn", place="医院")
    return a, b, c


async def test_a_scripted_night_reaches_exactly_the_right_sockets(scripted: Any) -> None:
    game, cast, _ = scripted
    a, b, c = await spawned(game, cast)
    found = await a.act("search")
    assert found["me"]["found"]["kind"] == "character"  # the only other one at 监狱 is 乙
    result = await a.act("attack", handle=found["me"]["found"]["handle"])
    assert result["events"][0]["payload"]["outcome"] == "hit"
    await b.act("whisper", target="丙", text="<script>alert(1)</script>监狱有人")

    a_frames, b_frames, c_frames = await a.drain(), await b.drain(), await c.drain()
    assert [f["kind"] for f in a_frames] == ["spawned", "searched", "attack_result"]
    assert [f["kind"] for f in b_frames] == ["spawned", "hit", "whisper_sent"]
    assert [f["kind"] for f in c_frames] == ["spawned", "whisper"]
    assert b_frames[1]["payload"]["damage"] == 5  # fists
    whisper = c_frames[1]["payload"]
    assert (whisper["sender_name"], whisper["text"]) == ("乙", "<script>alert(1)</script>监狱有人")
    # each private stream is numbered without gaps
    for frames in (a_frames, b_frames, c_frames):
        assert [f["stream_seq"] for f in frames] == list(range(1, len(frames) + 1))
    for r in (a, b, c):
        assert r.socket is not None
        await r.socket.disconnect()


async def test_no_character_receives_a_hidden_fact(scripted: Any) -> None:
    game, cast, clock = scripted
    a, b, c = await spawned(game, cast)
    found = await a.act("search")
    await a.act("attack", handle=found["me"]["found"]["handle"])
    clock.shift(31)
    await b.act("search")  # finds 甲, through a handle
    await c.act("search")  # finds nothing: alone at 医院
    for r in (a, b, c):
        await r.drain()
        await r.fetch_all()

    ids = {name: cast[name].id for name in cast}
    # Nobody learns who a search found or who attacked: no other character's name or id
    # appears in anything a character received over the API or the socket.
    for me, r in (("甲", a), ("乙", b), ("丙", c)):
        others = [n for n in ids if n != me]
        text = r.text()
        for other in others:
            assert other not in text, f"{me} learned the name {other}"
        for key in ("character", "target", "actor", "id", "sender"):
            leaked = [v for v in r.values(key) if v in {ids[o] for o in others}]
            assert not leaked, f"{me} received {key}={leaked}"
    # Nobody learns another's HP: 乙, hit once by fists (5), is the only one who ever sees 95
    # (its own HP, after its own 100); 甲 and 丙 were never hurt and only ever see their 100.
    assert set(a.values("hp")) == {100}
    assert set(b.values("hp")) == {100, 95}
    assert set(c.values("hp")) == {100}
    # 丙's item and place reach nobody else, not even in a rendered page
    for r in (a, b):
        assert "蜂王浆" not in r.text()
        assert all("蜂王浆" not in page for page in r.html)
        assert "医院" not in json.dumps([v for v in r.values("place")], ensure_ascii=False)
    # the socket never carries global sequence numbers to a player
    assert [r.values("seq") for r in (a, b, c)] == [[], [], []]
    for r in (a, b, c):
        assert r.socket is not None
        await r.socket.disconnect()
