"""A whole [096] 名侦探柯南 game over real HTTP and real websockets (tests/werewolf/game_096.py):
the director creates it in the admin, pastes the 22 马甲, deals and sets the roles by hand,
starts; the players act over the API with their sockets open; the scheduler closes the days
and the nights, the director publishes each night in the night room. Each outcome asserted
here is a line of the rule post (seed 004) or of RULINGS [096]."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from games.models import Event, Game, GameStatus
from tests.werewolf.engine.support_096 import (
    DRUID,
    EXORCIST,
    GOLEM,
    MEDUSA,
    RANGER_A,
    RANGER_B,
    SEATS,
    WOLF_KING,
    WOLVES,
)
from tests.werewolf.game_096 import (
    BITTEN,
    BLESSED,
    HOLDER,
    PACK,
    STONED,
    play_096,
    sync,
)
from tests.werewolf.game_096 import NAMES as N
from werewolf import store
from werewolf.selectors import werewolf_state

pytestmark = pytest.mark.django_db(transaction=True)


def _elevators(game: Game) -> list[list[int]]:
    """The 电梯楼 order each game night opened with (the 开局夜's aside), as logged."""
    steps = Event.objects.filter(game=game, kind="engine_step", payload__op="night_open")
    return [list(e.payload["elevator"]) for e in steps.order_by("seq")][1:]


def _way(order: list[int], exorcist: int, holder: int) -> str:
    """正向 when the holder is no farther down the circle than up it."""
    down = (order.index(holder) - order.index(exorcist)) % len(order)
    return "正向" if down <= len(order) - down else "逆向"


async def test_a_096_game_from_the_admin_to_the_dungeons_bond(
    director: Any, director_client: Client, settings: Any
) -> None:
    settings.WEREWOLF_PREVIEW_RULESETS = True
    played = await play_096(director_client)
    r, ids = played.readers, played.ids
    everyone = list(r.values())

    def texts(who: int, kind: str) -> list[str]:
        return [str(f["text"]) for f in r[who].frames(kind)]

    for reader in everyone:
        # 总体流程 1: 第一天讨论日结束时，最先高票者当选神眷者 — 3 to 3, the 美杜莎 first to 3;
        # 公示. Day 1 puts nobody out.
        day1, day2 = reader.frames("vote_result")
        assert day1 == {
            "day": 1,
            "totals": [[ids[MEDUSA], N[MEDUSA], "3"], [ids[GOLEM], N[GOLEM], "3"]],
            "tie": True,
        }
        assert texts(reader.seat, "sheriff") == [f"{N[MEDUSA]}当选神眷者。"]
        # 伤害结算流程 (1): 侦探4, uniquely most blessed (2), survives the 撕咬: nobody out on
        # night 1 or 2; night 3's 撕咬 puts 侦探5 out, 公示 at day 4's open.
        opens = reader.frames("day_open")
        assert [o["night_out"] for o in opens] == [
            [],
            [],
            [],
            [{"id": ids[BITTEN], "name": N[BITTEN]}],
        ]
        assert opens[2]["yesterday_out"] == [
            {"id": ids[HOLDER], "name": N[HOLDER], "cause": "投票"}
        ]
        # 异常状态: 仅石化状态会公示 (魔眼 on night 1, announced at day 2's open).
        assert texts(reader.seat, "stone") == [f"{N[STONED]}进入石化状态。"]
        # 神眷者的投票计为1.5票: 1.5 + 3 on the holder; 侦探6's 石化 ballot was refused
        # (投票无效), 侦探5 has 侦探7's alone. 第二天及以后 … 即刻公示出局.
        assert day2 == {
            "day": 2,
            "totals": [[ids[HOLDER], N[HOLDER], "9/2"], [ids[BITTEN], N[BITTEN], "1"]],
            "tie": False,
        }
        assert [o["id"] for o in reader.frames("out")] == [ids[HOLDER]]
        # 翻转身份: 转化身份的角色收到通知 — the cursed holder alone.
        assert bool(reader.frames("flipped")) == (reader.seat == HOLDER)
        # 地下城阵营胜：亡灵圣物认主地下城阵营角色.
        (over,) = reader.frames("game_over")
        assert (over["winner"], over["winner_name"]) == ("dungeon", "地下城阵营")

    # 诅咒 at night 1's open (入夜 (1) 结算诅咒): the 精灵 holder flips to its [腐尸] and loses
    # its skills.
    assert r[HOLDER].frames("flipped") == [
        {"role": "corpse", "name": "腐尸", "skills": ["corrupt"]}
    ]
    # 灾厄: 夜晚结束时 an undead holder 得知存活角色名单 and may pass it (not used: kept).
    living = "、".join(N[s] for s in SEATS)
    assert texts(HOLDER, "relic") == [
        f"【灾厄】你持有亡灵圣物。存活角色：{living}。你可以将亡灵圣物转交给任意一名角色。"
    ]
    # 腐化: the 腐尸 voted out is asked to choose (forgone here).
    assert [w["skill"] for w in r[HOLDER].frames("window_open")] == ["calamity", "corrupt"]
    # 森林先知: 【亡灵阵营】 for the cursed 精灵, 【其他阵营】 for the 美杜莎.
    assert texts(DRUID, "feedback") == [
        f"【森林先知】：{N[HOLDER]}——【亡灵阵营】。",
        f"【森林先知】：{N[MEDUSA]}——【其他阵营】。",
    ]
    # 追踪: each day's open, a holder outside the pack not reported before.
    for w in PACK:
        assert [t for t in texts(w, "relic")] == [
            f"【追踪】亡灵圣物的持有者是{N[HOLDER]}。",
            f"【追踪】亡灵圣物的持有者是{N[MEDUSA]}。",
        ]
        # 撕咬 <冷却：1>: used on night 1, cooling through night 2 (refused), free on night 3;
        # 技能进入冷却与解除冷却都会有通知.
        assert texts(w, "cooldown") == [
            "【撕咬】进入冷却（1天）。",
            "【撕咬】解除冷却。",
            "【撕咬】进入冷却（1天）。",
        ]
    assert [j.get("code") for j in r[WOLVES[2]].json if isinstance(j, dict) and "code" in j] == [
        "skill_cooling"
    ]
    # 毒素箭 (by day): the 驱魔人's 九星金光咒 冷却+1 for night 1, recovered at its end; the
    # 游侠群's own 冷却：1 likewise.
    assert texts(EXORCIST, "cooldown") == [
        "【九星金光咒】进入冷却（1天）。",
        "【九星金光咒】解除冷却。",
    ]
    for ranger in (RANGER_A, RANGER_B):
        assert texts(ranger, "cooldown") == ["【毒素箭】进入冷却（1天）。", "【毒素箭】解除冷却。"]
    # 七轮感应法: the holder (侦探1 on night 1, the 美杜莎 on nights 2 and 3) by the nearest way
    # round the day's 电梯楼 (电梯楼角色顺序随机: the order each 入夜 was given) — 正向 down the
    # list, a tie 正向 (RULINGS 096-13).
    orders = await sync(_elevators)(played.game)
    expected = [
        _way(order, ids[EXORCIST], ids[holder])
        for order, holder in zip(orders, (HOLDER, MEDUSA, MEDUSA), strict=True)
    ]
    assert [f["way"] for f in r[EXORCIST].frames("relic")] == expected
    # 戈尔贡之血: the 美杜莎's vote on the holder voted out brings her the relic, 得到导演通知;
    # 认主 after two full nights held as a 生灵 (nights 2 and 3; 神恩 stops both curses).
    assert texts(MEDUSA, "relic") == [
        f"【戈尔贡之血】你的投票对象{N[HOLDER]}被投票出局，其持有的亡灵圣物转移给你。",
        "你以生灵身份持有亡灵圣物连续度过了2个完整的夜晚，亡灵圣物认你为主。",
    ]
    # 石化：投票无效 — the stoned player's ballot is refused.
    assert [j.get("code") for j in r[STONED].json if isinstance(j, dict) and "code" in j] == [
        "cannot_vote"
    ]

    # <团队>技能拥有者互知共群，需要在入夜前共同决定一个代表 (RULINGS 096-3): each pick of a team's
    # skill is a line of that team's room as it is made, read by its members and nobody else
    # (撕咬 refused on night 2 in its cooldown is no pick).
    pack_lines = [
        f"{N[WOLVES[0]]} 提交了【藏匿】：{N[HOLDER]}",
        f"{N[WOLVES[1]]} 提交了【撕咬】：{N[BLESSED]}",
        f"{N[WOLF_KING]} 提交了【撕咬】：{N[BITTEN]}",
    ]
    for seat, reader in r.items():
        decisions = [
            f["text"]
            for f in reader.json
            if isinstance(f, dict) and f.get("type") == "room" and f.get("kind") == "room_decision"
        ]
        if seat in PACK:
            assert decisions == pack_lines, seat
        elif seat in (RANGER_A, RANGER_B):
            assert decisions == [f"{N[RANGER_A]} 提交了【毒素箭】：{N[EXORCIST]}"], seat
        else:
            assert decisions == [], seat

    state = await sync(werewolf_state)(game=played.game)
    relic = state.flags["relic"]
    assert (relic["holder"], relic["bonded"], relic["curses"]) == (ids[MEDUSA], ids[MEDUSA], 2)
    assert state.players[ids[BLESSED]].alive
    assert state.players[ids[HOLDER]].role == "corpse"
    game = await sync(Game.objects.get)(pk=played.game.pk)
    assert game.status == GameStatus.FINISHED
    rebuilt = await sync(store.replay)(game=game)
    assert rebuilt.to_json() == (await sync(store.state_load)(game)).to_json()
