"""A scripted [099] game over real HTTP and real websockets, from the deal to the village's
victory: who receives what, and no player ever learns another's role or night result."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import services as game_services
from games.models import Game, GameStatus
from tests.conftest import ORIGIN, bj, session_cookie, socket_open
from tests.werewolf.engine.support import SEATS
from tests.werewolf.players import Player, players, werewolf_game
from werewolf import services, store
from werewolf.engine import tally

pytestmark = pytest.mark.django_db(transaction=True)

NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)
ROLE_NAMES = {
    "wolf": "狼人",
    "white_wolf": "白眼狼",
    "seer": "先知",
    "witch": "女巫",
    "guard": "守护",
    "lover": "情痴",
    "chief": "村长",
    "hunter": "猎人",
    "monk": "高僧",
    "idiot": "白痴",
    "dreamer": "梦中人",
    "villager": "村民",
}
# Only the directors ever see these.
DIRECTORS_ONLY = {"engine_step", "deal", "night_draft", "night_override", "faction_lost"}


class Browser:
    """Everything one character's browser receives: socket frames and API answers."""

    def __init__(self, game: Game, player: Player) -> None:
        self.game, self.player = game, player
        self.received: list[Any] = []
        self.frames: list[dict[str, Any]] = []
        self.socket: WebsocketCommunicator | None = None

    async def connect(self) -> None:
        self.socket, hello = await socket_open(
            self.game, ORIGIN, session_cookie(self.player.client)
        )
        self.received.append(hello)

    async def use(self, skill: str, *targets: int) -> dict[str, Any]:
        body = await database_sync_to_async(self.player.use)(skill, *targets)
        self.received.append(body)
        return body

    async def act(self, kind: str, **fields: Any) -> dict[str, Any]:
        response = await database_sync_to_async(self.player.act)(kind, **fields)
        assert response.status_code == 200, response.content
        body: dict[str, Any] = response.json()
        self.received.append(body)
        return body

    async def drain(self) -> list[dict[str, Any]]:
        assert self.socket is not None
        frames = []
        while not await self.socket.receive_nothing(timeout=0.1):
            frames.append(await self.socket.receive_json_from())
        self.frames.extend(frames)
        self.received.extend(frames)
        return frames

    async def fetch_all(self) -> None:
        self.received.append(await database_sync_to_async(self.player.me)())
        self.received.append(await database_sync_to_async(self.player.events)())

    def heard(self, kind: str) -> list[dict[str, Any]]:
        return [f["payload"] for f in self.frames if f.get("kind") == kind]


def roles_seen(data: Any) -> Iterator[tuple[int | None, str]]:
    """Every (character, role) a payload tells: ``role`` beside an ``id`` or a ``target``, or
    alone (a role card: the reader's own)."""
    if isinstance(data, dict):
        if "role" in data and isinstance(data["role"], str):
            who = data.get("id", data.get("target"))
            yield (who if isinstance(who, int) else None), data["role"]
        for value in data.values():
            yield from roles_seen(value)
    elif isinstance(data, list):
        for value in data:
            yield from roles_seen(value)


def kinds(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        if isinstance(data.get("kind"), str) and "payload" in data:
            yield data["kind"]
        for value in data.values():
            yield from kinds(value)
    elif isinstance(data, list):
        for value in data:
            yield from kinds(value)


async def all_drained(browsers: dict[int, Browser]) -> None:
    for b in browsers.values():
        await b.drain()


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    return database_sync_to_async(fn)


async def test_a_099_game_from_the_deal_to_victory(director: Any) -> None:
    game, ids = await sync(werewolf_game)()
    seat_of = {pk: s for s, pk in ids.items()}
    cast = await sync(players)(game)
    browsers = {s: Browser(game, p) for s, p in cast.items()}
    for b in browsers.values():
        await b.connect()

    # Night 1 (总体流程: 进入夜晚).
    with time_machine.travel(NIGHT_1, tick=False):
        await sync(services.werewolf_start)(game=game, director=director, now=NIGHT_1)
        await all_drained(browsers)
        assert all(b.heard("night_open") == [{"day": 1}] for b in browsers.values())
        # Every wolf sees the team's election as it goes; nobody else does.
        for s in (1, 2, 3, 4):
            await browsers[s].use("elect", ids[1])
        await all_drained(browsers)
        leaders = [b.heard("leader_elected") for b in browsers.values()]
        assert [s for s, heard in zip(browsers, leaders, strict=True) if heard] == [1, 2, 3, 4]
        assert browsers[2].heard("leader_elected")[0]["leader"] == ids[1]
        await browsers[1].use("wolf_kill", ids[15])
        await browsers[5].use("white_kill", ids[16])
        await browsers[6].use("divine", ids[1])
        await browsers[8].use("protect", ids[17])
        # The kills are final: the 女巫 is told who is under them (通灵), nobody else is.
        await all_drained(browsers)
        sensed = browsers[7].heard("sense")
        assert sorted(t["id"] for t in sensed[0]["targets"]) == [ids[15], ids[16]]
        assert all(not b.heard("sense") for s, b in browsers.items() if s != 7)
        await browsers[7].use("poison", ids[5])  # one potion a night: her step is done
    # The 情痴 never answers: forfeited at 关门 + 30 min, and the night is drafted.
    late = NIGHT_1 + dt.timedelta(minutes=31)
    with time_machine.travel(late, tick=False):
        assert await sync(services.werewolf_deadlines_run)(now=late) == 1
        await all_drained(browsers)
        assert browsers[9].heard("forfeited")
    state = await sync(store.state_load)(game)
    assert state.phase == "late"  # drafted, waiting for the director

    # Day 1: the director publishes; deaths without roles, in order (枪-毒-刀).
    with time_machine.travel(bj(1, 8), tick=False):
        await sync(game_services.transitions_run_due)(now=bj(1, 8))
        draft = await sync(services.werewolf_night_resolve)(game=game, director=director)
        assert draft["trace"]
        await sync(services.werewolf_night_publish)(game=game, director=director, reason="")
        await all_drained(browsers)
    for b in browsers.values():
        (opened,) = b.heard("day_open")
        assert next(o["id"] for o in opened["night_out"]) == ids[5]  # poison before the kills
        assert {o["id"] for o in opened["night_out"]} == {ids[5], ids[15], ids[16]}
        assert all("role" not in o for o in opened["night_out"])
    assert browsers[6].heard("feedback")[0]["role"] == "狼人"
    assert [b.heard("you_are_out") != [] for b in browsers.values()].count(True) == 3

    # The day's vote: P1 out by vote, announced with the role.
    with time_machine.travel(bj(1, 20), tick=False):
        state = await sync(store.state_load)(game)
        ballots = {ids[s]: ids[1] for s in (6, 7, 8, 9, 10, 11)}
        await sync(services.werewolf_day_vote)(
            game=game, director=director, totals=tally(state, ballots)
        )
        await all_drained(browsers)
    for b in browsers.values():
        assert b.heard("out")[0] == {"id": ids[1], "name": "P1", "role": "狼人", "cause": "投票"}

    # 关门: the scheduler opens night 2; the wolves surrender and the village wins.
    with time_machine.travel(bj(1, 21, 1), tick=False):
        await sync(game_services.transitions_run_due)(now=bj(1, 21, 1))
        await all_drained(browsers)
        assert browsers[15].heard("night_open")[-1] == {"day": 2}
        for b in browsers.values():
            await b.fetch_all()
        before_the_end = {s: list(b.received) for s, b in browsers.items()}
        await browsers[2].act("surrender")
        await browsers[3].act("surrender_answer", accept=True)
        await browsers[4].act("surrender_answer", accept=True)
        await all_drained(browsers)
    for b in browsers.values():
        (over,) = b.heard("game_over")
        assert over["winner"] == "village"
        assert b.heard("surrender")
        assert {r["id"] for r in over["roles"]} == set(ids.values())  # 揭秘
    await sync(game.refresh_from_db)()
    assert game.status == GameStatus.FINISHED
    rebuilt = await sync(store.replay)(game=game)
    assert rebuilt.to_json() == (await sync(store.state_load)(game)).to_json()
    for b in browsers.values():
        assert b.socket is not None
        await b.socket.disconnect()

    # No leak: before the end, a player knew only its own role, its team, its own night
    # results and the roles of day deaths; it never saw a directors' event.
    day_outs = {ids[1]}
    assert (ids[1], "狼人") in set(roles_seen(before_the_end[6]))  # the seer's own result
    for s, received in before_the_end.items():
        me = SEATS[s]
        allowed = {ids[s], *day_outs}
        if me == "wolf":
            allowed |= {ids[w] for w in (1, 2, 3, 4)}
        if me == "seer":
            allowed.add(ids[1])
        for who, role in roles_seen(received):
            if who is None:
                assert role in (me, ROLE_NAMES[me]), (s, role)
            else:
                assert who in allowed, (s, seat_of.get(who), role)
        assert not DIRECTORS_ONLY & set(kinds(received)), s
