"""A scripted [061] 林峰 game a director creates and runs in the admin over HTTP, the 19 players
acting over the HTTP API with their websockets open (shared by test_live_061 and
test_leaks_061). Every surface a player reads is kept by its ``Reader``.

The director pastes the cast, hands out the credentials, deals from the seed and then sets the
roles by hand (调整身份, with a reason) on the engine tests' seats (林1 狼后 … 林19 人质, the
post's order), so the script knows who holds what. The game:

- prelude (night 0): the 幽灵 (18) possesses the 宝藏 (13), the 人质 (19) chooses the 天使 (7);
  the 铁柱 (12) puts ⌊19/3⌋ = 6 on the 票台 and curses the 宝藏 (被投票数加倍, secret);
- day 1: 3 ballots for the 宝藏 (doubled: 6) beat 4 for the 地雷 (15); the 天使 forgoes
  偏爱; the 宝藏 is out, its role announced (宝藏阵营); the 幽灵 takes its skills (公示
  "幽灵（林18）已经发动附身技能"); 公敌: each voter gets one 预言, the one drawn converts the
  天使 into its own faction (狼人阵营), and the 人质 follows the 天使 silently;
- night 1: most of the 13 steps act (独尊, 票台/诅咒, 狡黠 guessing the 游侠 right, 明察, 吹笛,
  统领, 审判, 查证 with 公示, 磐石, the 幽灵's 预言 and 传音 to the 守宝人, the voters' 预言,
  感知); the 狼后 forgoes her kill: a 平安夜;
- day 2: the 狼判官 (4) is voted out: the 毒士 gets a ‹炼›, the 守宝人 a 勾魂 window, and
  picks the 游侠 (10) — it joins 宝藏阵营 at the night's open;
- night 2: the 妖狐 uses the borrowed 查证; the 毒士 spends the ‹炼› (鸩毒 1: the count); 统领
  brings the 天使 into the 狼群, where the 狼王 spoke by day (the 天使 reads from its joining,
  and speaks on day 3); no kill: a second 平安夜;
- day 3: nobody votes; night 3: no kill, the third 平安夜 — 毒士阵营 wins (连续出现三个平安夜),
  before any other faction has won or all but one have lost.
"""

from __future__ import annotations

import datetime as dt
import html
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import time_machine
from channels.db import database_sync_to_async
from django.test import Client

from games import services as game_services
from games.models import Game
from tests.conftest import START, bj
from tests.werewolf.admin_director import AdminDirector
from tests.werewolf.engine import support_061 as seat
from tests.werewolf.engine.support_061 import SEATS
from tests.werewolf.players import Player
from tests.werewolf.players import Reader as PlayerReader
from werewolf import services
from werewolf.selectors import werewolf_state

NIGHT_0 = bj(1, 0) - dt.timedelta(hours=2)
NAMES = {n: f"林{n}" for n in SEATS}
WHISPER = "今晚小心狼王"
# The 狼群's talk: the 狼王's on day 2, before night 2's 统领 brings the 天使 in; the 天使's after.
PACK_BEFORE = "明晚统领天使PACK0611"
PACK_AFTER = "我进狼群了PACK0612"
# 票台 by the day it holds: ⌊living/3⌋ players, never the same player two days running.
STAGE = {
    1: (seat.PIPER, seat.SEER, seat.GHOST, seat.HOSTAGE, seat.SHADOW, seat.POISONER),
    2: (seat.QUEEN, seat.KING, seat.HUNTER, seat.FOX, seat.PSYCHIC, seat.AMBITIOUS),
    3: (seat.PIPER, seat.SEER, seat.GHOST, seat.SHADOW, seat.POISONER),
}


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    return database_sync_to_async(fn)


class Reader(PlayerReader):
    """One player's browser (tests/werewolf/players.py), acting over the API."""

    def act(self, kind: str, **fields: Any) -> dict[str, Any]:
        response = self.player.act(kind, **fields)
        assert response.status_code == 200, (self.seat, kind, fields, response.content.decode())
        body: dict[str, Any] = response.json()
        self.json.append(body)
        return body

    def say(self, room_name: str, body: str) -> dict[str, Any]:
        """Post in one of its rooms (by the name its tab shows) over the rooms' API."""
        client = self.player.client
        listing = client.get(f"/api/games/{self.game.pk}/rooms").json()
        self.json.append(listing)
        (token,) = [r["room"] for r in listing["rooms"] if r["name"] == room_name]
        response = client.post(
            f"/api/games/{self.game.pk}/rooms/{token}/messages",
            {"body": body},
            content_type="application/json",
        )
        assert response.status_code == 200, response.content.decode()
        answer: dict[str, Any] = response.json()
        self.json.append(answer)
        return answer

    def room_read(self, room_name: str) -> list[dict[str, Any]]:
        """A room's messages as the API gives them to this player after a reconnect."""
        client = self.player.client
        listing = client.get(f"/api/games/{self.game.pk}/rooms").json()
        (token,) = [r["room"] for r in listing["rooms"] if r["name"] == room_name]
        body = client.get(f"/api/games/{self.game.pk}/rooms/{token}/messages").json()
        self.json.append(body)
        return list(body["messages"])

    def use(self, skill: str, *targets: int, option: str | None = None) -> dict[str, Any]:
        fields: dict[str, Any] = {"skill": skill, "targets": list(targets)}
        if option is not None:
            fields["option"] = option
        return self.act("use_skill", **fields)

    def frames(self, kind: str) -> list[dict[str, Any]]:
        return [
            f["payload"]
            for f in self.json
            if isinstance(f, dict) and f.get("kind") == kind and "payload" in f
        ]


@dataclass
class Played:
    game: Game
    ids: dict[int, int]
    readers: dict[int, Reader]
    director: AdminDirector
    notes: dict[str, Any] = field(default_factory=dict)
    before_end: dict[int, tuple[int, int]] = field(default_factory=dict)

    def text_before_end(self, who: int) -> str:
        """Everything ``who`` had read before the game ended, as one text."""
        r = self.readers[who]
        n_json, n_html = self.before_end[who]
        return "\n".join(
            [json.dumps(j, ensure_ascii=False) for j in r.json[:n_json]]
            + [html.unescape(h) for h in r.html[:n_html]]
        )

    def name(self, who: int) -> str:
        return NAMES[who]


async def drained(readers: dict[int, Reader]) -> None:
    for r in readers.values():
        await r.drain(timeout=0.05)


def _set_up(client: Client) -> tuple[AdminDirector, dict[str, str]]:
    director = AdminDirector(client)
    director.create(ruleset="lin_feng_061", number="061", title="林峰", start=START)
    director.cast([NAMES[s] for s in SEATS])
    shown = director.credentials()
    assert sorted(shown) == sorted(NAMES.values())
    director.room("deal")
    director.roles({NAMES[s]: role for s, role in SEATS.items()}, reason="按座位表调整身份")
    return director, shown


async def play_061(director_client: Client, *, read_pages: bool = False) -> Played:
    """The game above, to its end; with ``read_pages`` every player also fetches its pages and
    its API page and log at each phase (for the leak test)."""
    with time_machine.travel(NIGHT_0 - dt.timedelta(hours=1), tick=False):
        director, shown = await sync(_set_up)(director_client)
    game = director.game
    assert game is not None
    cast = {s: await sync(Player)(game, NAMES[s], shown[NAMES[s]]) for s in SEATS}
    readers = {s: Reader(game, s, p) for s, p in cast.items()}
    ids = {s: p.id for s, p in cast.items()}
    for r in readers.values():
        await r.connect()
    played = Played(game, ids, readers, director)

    async def read_all() -> None:
        await drained(readers)
        if read_pages:
            for r in readers.values():
                await sync(r.read_everything)()

    def use(who: int, skill: str, *targets: int, option: str | None = None) -> Any:
        return sync(readers[who].use)(skill, *(ids[t] for t in targets), option=option)

    def act(who: int, kind: str, **fields: Any) -> Any:
        return sync(readers[who].act)(kind, **fields)

    async def ballots(by_target: dict[int, tuple[int, ...]]) -> None:
        """The day's portal ballots (the day has no forum vote thread)."""
        for target, voters in by_target.items():
            for voter in voters:
                await act(voter, "vote", target=ids[target])
        await read_all()

    # Prelude (night 0): 附身 then 遇难, the 铁柱's first 票台 and 诅咒.
    with time_machine.travel(NIGHT_0, tick=False):
        await sync(director.prepare)("start")
        await read_all()
    with time_machine.travel(NIGHT_0 + dt.timedelta(minutes=5), tick=False):
        # A refusal is read too: 幽灵/人质 may not choose themselves (RULINGS 061-5).
        await sync(readers[seat.GHOST].refused)(
            "use_skill", skill="possess", targets=[ids[seat.GHOST]]
        )
        await use(seat.GHOST, "possess", seat.TREASURE)
        await use(seat.HOSTAGE, "hostage", seat.ANGEL)
        await use(seat.PILLAR, "stage", *STAGE[1])
        await use(seat.PILLAR, "curse", seat.TREASURE)
        await read_all()
    await day_open(director, readers, 1)
    await read_all()

    # Day 1: the portal's ballots; the director closes the day (手动推进).
    with time_machine.travel(bj(1, 12), tick=False):
        await ballots(
            {
                seat.TREASURE: (seat.QUEEN, seat.KING, seat.HUNTER),
                seat.MINE: (seat.FOX, seat.PSYCHIC, seat.AMBITIOUS, seat.SHADOW),
            }
        )
    with time_machine.travel(bj(1, 20), tick=False):
        await sync(director.advance)("导演关门")
        await read_all()
    with time_machine.travel(bj(1, 20, 2), tick=False):
        await act(seat.ANGEL, "forgo", skill="favor")  # 偏爱 not used: the 宝藏 goes out
        await read_all()

    # Night 1 (the 13 steps). 公敌: the voter the seed drew brings the 天使 into its faction.
    with time_machine.travel(bj(1, 20, 5), tick=False):
        drawn = [
            s
            for s in (seat.QUEEN, seat.KING, seat.HUNTER)
            if "enemy_convert" in await sync(usable)(readers[s])
        ]
        assert len(drawn) == 1, drawn
        played.notes["drawn"] = drawn[0]
        await use(drawn[0], "enemy_convert", seat.ANGEL)
        await use(seat.AMBITIOUS, "supreme", seat.FOX)
        await use(seat.PILLAR, "stage", *STAGE[2])
        await use(seat.PILLAR, "curse", seat.MINE)
        await use(seat.FOX, "cunning", seat.RANGER, option="ranger")
        await use(seat.SEER, "insight", seat.QUEEN)
        await use(seat.PIPER, "pipe", seat.HUNTER)
        await use(seat.KING, "command", seat.QUEEN, seat.HUNTER)
        await use(seat.JUDGE, "judge", seat.FOX, seat.KEEPER, seat.MINE)
        await use(seat.JUDGE, "advise", seat.FOX)
        await use(seat.RANGER, "verify", seat.QUEEN, option="publish")
        await use(seat.RANGER, "rock", seat.KEEPER)
        await use(seat.GHOST, "prophecy", seat.PILLAR)
        await use(seat.GHOST, "whisper", option=WHISPER)
        for s in (seat.QUEEN, seat.KING, seat.HUNTER):
            await use(s, "prophecy_once", seat.PIPER)
        await use(seat.PSYCHIC, "perceive")
        await act(seat.QUEEN, "forgo", skill="kill")
        await act(seat.RANGER, "forgo", skill="guard")
        await read_all()
    await day_open(director, readers, 2)
    await read_all()

    # Day 2: the 狼判官 is voted out (炼狱: the 毒士's ‹炼›). The 狼王 talks in the 狼群.
    with time_machine.travel(bj(4, 12), tick=False):
        await sync(readers[seat.KING].say)("狼群", PACK_BEFORE)
        await ballots(
            {seat.JUDGE: (seat.SHADOW, seat.RANGER, seat.POISONER), seat.MINE: (seat.FOX,)}
        )
    with time_machine.travel(bj(4, 20), tick=False):
        await sync(director.advance)("导演关门")
        await read_all()
    # Night 2: the 妖狐's borrowed 查证, the 毒士's 鸩毒 (one ‹炼›: the count); no kill.
    with time_machine.travel(bj(4, 20, 5), tick=False):
        await use(seat.FOX, "borrowed", seat.SHADOW, option="verify")
        await use(seat.POISONER, "zhen", option="1")
        await use(seat.PILLAR, "stage", *STAGE[3])
        # 统领 again: the 天使, a 狼人阵营 character since 公敌, joins the 狼群; the 地雷 does not.
        await use(seat.KING, "command", seat.ANGEL, seat.MINE)
        await act(seat.QUEEN, "forgo", skill="kill")
        await read_all()
    await night_closed(game, bj(4, 21, 30))
    await day_open(director, readers, 3)
    await read_all()

    # Day 3: nobody votes; night 3: no kill — the third 平安夜.
    day3 = await sync(opens)(game, 3)
    with time_machine.travel(day3 + dt.timedelta(hours=12), tick=False):
        await sync(readers[seat.ANGEL].say)("狼群", PACK_AFTER)
        await read_all()
        played.notes["angel_pack"] = await sync(readers[seat.ANGEL].room_read)("狼群")
    with time_machine.travel(day3 + dt.timedelta(hours=20), tick=False):
        await sync(director.advance)("导演关门")
        await read_all()
    await night_closed(game, day3 + dt.timedelta(hours=21, minutes=30))
    await read_all()
    # What each player held before the end (game_over reveals every role: 揭秘).
    played.before_end = {who: (len(r.json), len(r.html)) for who, r in readers.items()}
    await day_open(director, readers, 4)
    await read_all()
    for r in readers.values():
        assert r.socket is not None
        await r.socket.disconnect()
    return played


async def night_closed(game: Game, at: dt.datetime) -> None:
    """Every deadline of the night passes (the scheduler's deadlines task)."""
    with time_machine.travel(at, tick=False):
        await sync(services.werewolf_deadlines_run)(now=at)
        state = await sync(werewolf_state)(game=game)
        assert state.phase == "late", state.phase


def opens(game: Game, day: int) -> dt.datetime:
    """When the timetable opens ``day`` (after a close the director made early, the rest of
    the day's schedule stands)."""
    game.refresh_from_db()
    return game.timetable().due_at(day, "day_open")


async def day_open(director: AdminDirector, readers: dict[int, Reader], day: int) -> None:
    """The scheduler runs what is due up to ``day``'s open; the director reads the draft in
    the night room and publishes it (批准并发布)."""
    assert director.game is not None
    at = await sync(opens)(director.game, day) + dt.timedelta(minutes=1)
    with time_machine.travel(at, tick=False):
        await sync(game_services.transitions_run_due)(now=at)
        await sync(director.game.refresh_from_db)()
        assert (director.game.day, director.game.phase) == (day, "day")
        room = await sync(director.room_page)()
        assert "结算草稿" in room
        director.rooms[day] = html.unescape(room)
        await sync(director.room)("publish", reason="核对无误")
        await drained(readers)


def usable(reader: Reader) -> set[str]:
    """The skills the player's own page offers it now (the page is kept as read)."""
    me = reader.player.me()
    reader.json.append({"me": me})
    return {u["skill"] for u in me["usable"]}
