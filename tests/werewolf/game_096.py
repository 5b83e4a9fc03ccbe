"""A scripted [096] 名侦探柯南 game a director creates and runs in the admin over HTTP, the 22
players acting over the HTTP API with their websockets open (shared by test_live_096 and
test_leaks_096). Every surface a player reads is kept by its ``Reader`` (game_061.py's).

The director pastes the cast (侦探1 … 侦探22), hands out the credentials, deals from the seed
and then sets the roles by hand (调整身份, with a reason) on the engine tests' seats
(``support_096``: 1-7 精灵, 8 树妖, 9 独角兽, 10 德鲁伊, 11-12 游侠, 13 魔像, 14 巫师, 15 灯神,
16-18 狼人, 19 狼王, 20 美杜莎, 21 黑龙, 22 驱魔人), and starts (the empty 开局夜, published at
day 1's open). The game:

- day 1: the pack's 藏匿 names 侦探1 (an 精灵); the 游侠 aim 毒素箭 at the 驱魔人; the vote ties
  3–3 between the 美杜莎 and the 魔像, the 美杜莎 first to 3: she is the 神眷者 (公示);
- night 1: at the open 藏匿 gives 侦探1 the relic and the curse flips it (精灵 → 腐尸, 诅咒次数
  3 → 2); 毒素箭 cools the 驱魔人's 九星金光咒 (refused tonight, recovered at the end); the
  德鲁伊's 森林先知 on 侦探1 answers 【亡灵阵营】; 侦探2 and 侦探3 bless 侦探4, the pack bites
  侦探4: 祝福 voids it (nobody out); the 美杜莎's 魔眼 stones 侦探6; 撕咬 enters its cooldown;
  侦探1, an undead holder, is told 灾厄 and keeps the relic;
- day 2: 侦探6's 石化 is announced, 追踪 tells the pack 侦探1; the 美杜莎 switches 戈尔贡之血
  on and votes 侦探1 out with three others (1.5 + 3 = 4.5), 侦探6's ballot refused (投票无效):
  the relic goes to the 美杜莎 (told); 侦探1 forgoes 腐化;
- night 2: 撕咬 is refused (冷却), recovering at the night's end; 森林先知 on the 美杜莎:
  【其他阵营】; the 神眷者's 神恩 stops the curse;
- day 3: 追踪 tells the pack the 美杜莎; nobody votes;
- night 3: the pack bites 侦探5 (out); at the end the 美杜莎 has held the relic as a 生灵 for
  two full nights: 认主 — 地下城阵营 wins.
"""

from __future__ import annotations

import datetime as dt
import html
import json
from dataclasses import dataclass, field
from typing import Any

import time_machine
from django.test import Client

from games import services as game_services
from games.models import Game
from tests.conftest import START, bj
from tests.werewolf.admin_director import AdminDirector
from tests.werewolf.engine.support_096 import (
    DRUID,
    ELVES,
    EXORCIST,
    GENIE,
    GOLEM,
    MEDUSA,
    RANGER_A,
    SEATS,
    WOLF_KING,
    WOLVES,
)
from tests.werewolf.game_061 import Reader, drained, sync
from tests.werewolf.players import Player
from werewolf import services
from werewolf.selectors import werewolf_state

NAMES = {n: f"侦探{n}" for n in SEATS}
E1, E2, E3, E4, E5, E6, E7 = ELVES
PACK = (*WOLVES, WOLF_KING)
HOLDER = E1  # 藏匿's pick: cursed at night 1's open, voted out on day 2
BLESSED = E4  # bitten on night 1, saved by 祝福
STONED = E6  # 魔眼 on night 1: 石化 through day 2
BITTEN = E5  # night 3's bite: out
# Day 1's portal ballots, in the order cast: 3 for the 美杜莎 first, then 3 for the 魔像.
DAY_1 = [(E2, MEDUSA), (E3, MEDUSA), (GOLEM, MEDUSA), (E5, GOLEM), (E7, GOLEM), (E4, GOLEM)]
# Day 2: the 神眷者 (1.5) and three more on the holder; the stoned 侦探6's is refused.
DAY_2 = [(MEDUSA, HOLDER), (E2, HOLDER), (E3, HOLDER), (E4, HOLDER), (E7, E5)]
DIRECTORS_WORDS = ("按座位表调整身份", "核对无误")


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


def _set_up(client: Client) -> tuple[AdminDirector, dict[str, str]]:
    director = AdminDirector(client)
    director.create(ruleset="conan_096", number="096", title="名侦探柯南", start=START)
    director.cast([NAMES[s] for s in SEATS])
    shown = director.credentials()
    assert sorted(shown) == sorted(NAMES.values())
    director.room("deal")
    director.roles({NAMES[s]: role for s, role in SEATS.items()}, reason="按座位表调整身份")
    return director, shown


def due(game: Game, day: int, what: str) -> dt.datetime:
    """When the timetable has ``what`` (day_open, day_close) of ``day``."""
    game.refresh_from_db()
    return game.timetable().due_at(day, what)


async def play_096(director_client: Client, *, read_pages: bool = False) -> Played:
    """The game above, to its end; with ``read_pages`` every player also fetches its pages and
    its API page and log at each phase (for the leak test)."""
    start = bj(1, 0) - dt.timedelta(hours=2)
    with time_machine.travel(start - dt.timedelta(hours=1), tick=False):
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

    def refused(who: int, skill: str, *targets: int) -> Any:
        return sync(readers[who].refused)(
            "use_skill", skill=skill, targets=[ids[t] for t in targets]
        )

    async def ballots(day: int, cast: list[tuple[int, int]]) -> None:
        """The day's portal ballots (no forum vote thread), a minute apart from noon."""
        for n, (voter, target) in enumerate(cast):
            with time_machine.travel(bj(day, 12, n), tick=False):
                await act(voter, "vote", target=ids[target])
        await read_all()

    async def close(day: int) -> None:
        """关门 (21:00): the scheduler settles the day's vote and opens the night."""
        at = await sync(due)(game, day, "day_close") + dt.timedelta(minutes=1)
        with time_machine.travel(at, tick=False):
            await sync(game_services.transitions_run_due)(now=at)
            state = await sync(werewolf_state)(game=game)
            assert (state.phase, state.day) == ("night", day), (state.phase, state.day)
        await read_all()

    async def night_closed(day: int) -> None:
        """Every deadline of the night passes (22:15, the scheduler's deadlines task)."""
        at = await sync(due)(game, day, "day_close") + dt.timedelta(minutes=76)
        with time_machine.travel(at, tick=False):
            await sync(services.werewolf_deadlines_run)(now=at)
            state = await sync(werewolf_state)(game=game)
            assert state.phase in ("late", "over"), state.phase
        await read_all()

    async def day_open(day: int, phase: str = "day") -> None:
        """The scheduler opens ``day``; the director reads the draft in the night room and
        publishes it (批准并发布)."""
        at = await sync(due)(game, day, "day_open") + dt.timedelta(minutes=1)
        with time_machine.travel(at, tick=False):
            await sync(game_services.transitions_run_due)(now=at)
            room = await sync(director.room_page)()
            director.rooms[day] = html.unescape(room)
            if (await sync(werewolf_state)(game=game)).phase == "late":
                await sync(director.room)("publish", reason="核对无误")
            state = await sync(werewolf_state)(game=game)
            assert (state.phase, state.day) == (phase, day), (state.phase, state.day)
        await read_all()

    # The start: the empty 开局夜, published at day 1's open.
    with time_machine.travel(start, tick=False):
        await sync(director.prepare)("start")
        await read_all()
    await day_open(1)

    # Day 1: 藏匿 and 毒素箭 by day; the 神眷者's election.
    with time_machine.travel(bj(1, 10), tick=False):
        await use(WOLVES[0], "hide", HOLDER)
        await use(RANGER_A, "toxin_arrow", EXORCIST)
    await ballots(1, DAY_1)
    await close(1)

    # Night 1.
    with time_machine.travel(bj(1, 21, 2), tick=False):
        await refused(EXORCIST, "nine_stars", WOLVES[1])  # 毒素箭: 冷却
        await use(DRUID, "forest_seer", HOLDER)
        await use(E2, "bless", BLESSED)
        await use(E3, "bless", BLESSED)
        await use(BLESSED, "bless", E5)
        await use(MEDUSA, "evil_eye", STONED)
        await use(WOLVES[1], "bite", BLESSED)
        await use(GENIE, "wish", E7)
        await read_all()
    await night_closed(1)
    await day_open(2)

    # Day 2: 戈尔贡之血 on; the holder voted out.
    with time_machine.travel(bj(2, 10), tick=False):
        await use(MEDUSA, "gorgon_blood", option="on")
    with time_machine.travel(bj(2, 11), tick=False):
        await sync(readers[STONED].refused)("vote", target=ids[E5])  # 石化：投票无效
    await ballots(2, DAY_2)
    await close(2)

    # Night 2: 撕咬 in cooldown; 腐化 forgone.
    with time_machine.travel(bj(2, 21, 2), tick=False):
        await act(HOLDER, "forgo", skill="corrupt")
        await refused(WOLVES[2], "bite", E5)
        await use(DRUID, "forest_seer", MEDUSA)
        await use(GENIE, "wish", E2)
        await read_all()
    await night_closed(2)
    await day_open(3)

    # Day 3: nobody votes. Night 3: the bite; 认主 at its end.
    await close(3)
    with time_machine.travel(bj(3, 21, 2), tick=False):
        await use(WOLF_KING, "bite", BITTEN)
        await use(GENIE, "wish", E3)
        await read_all()
    await night_closed(3)
    # What each player held before the end (game_over reveals every role).
    played.before_end = {who: (len(r.json), len(r.html)) for who, r in readers.items()}
    await day_open(4, "over")
    for r in readers.values():
        assert r.socket is not None
        await r.socket.disconnect()
    return played
