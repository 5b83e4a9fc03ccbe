"""A whole [061] 林峰 game over real HTTP and real websockets (tests/werewolf/game_061.py): the
director creates it in the admin, pastes the 19 马甲, deals and sets the roles by hand, starts;
the players act over the API with their sockets open; the director publishes each night in the
night room and closes the days. Each outcome asserted here is a line of the rule post."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from games.models import Game, GameStatus
from tests.werewolf.engine import support_061 as seat
from tests.werewolf.engine.support_061 import SEATS
from tests.werewolf.game_061 import NAMES as N
from tests.werewolf.game_061 import PACK_AFTER, PACK_BEFORE, STAGE, WHISPER, play_061, sync
from werewolf import store

pytestmark = pytest.mark.django_db(transaction=True)


def names(*seats: int) -> str:
    return "、".join(N[s] for s in seats)


async def test_a_061_game_from_the_admin_to_the_poisoners_three_peaceful_nights(
    director: Any, director_client: Client
) -> None:
    played = await play_061(director_client)
    r, ids = played.readers, played.ids
    everyone = list(r.values())

    # 流程 3: the 铁柱's first 票台 is announced: ⌊19/3⌋ = 6 names.
    for reader in everyone:
        (first, second, third, fourth) = [p["text"] for p in reader.frames("stage")]
        assert first == f"铁柱<票台>：第1天不可被投票出局的玩家：{names(*STAGE[1])}。"
        assert second.endswith(f"第2天不可被投票出局的玩家：{names(*STAGE[2])}。")
        assert third.endswith(f"第3天不可被投票出局的玩家：{names(*STAGE[3])}。")
        assert len(fourth.split("：")[-1].split("、")) == 17 // 3  # drawn: the 铁柱 forgot
    # 流程 2: the 狼王 learns the 狼人阵营's names; 妖狐/毒士阵营 (互知) their rosters, the
    # 人质 (遇难: the 天使's faction) listed among 妖狐阵营 but not told.
    (roster,) = r[seat.KING].frames("roster")
    assert [m["id"] for m in roster["members"]] == [
        ids[s] for s in (seat.QUEEN, seat.KING, seat.HUNTER, seat.JUDGE)
    ]
    for who in (seat.FOX, seat.PSYCHIC, seat.ANGEL):
        (fox_roster,) = r[who].frames("roster")
        assert {m["id"] for m in fox_roster["members"]} == {
            ids[s] for s in (seat.FOX, seat.PSYCHIC, seat.ANGEL, seat.HOSTAGE)
        }
    assert [m["id"] for m in r[seat.POISONER].frames("roster")[0]["members"]] == [
        ids[seat.POISONER],
        ids[seat.PILLAR],
    ]
    assert r[seat.HOSTAGE].frames("roster") == []
    assert r[seat.GHOST].frames("roster") == []

    # Day 1. 诅咒 doubles the 宝藏's 3 ballots: 6 against the 地雷's 4; the tally names no
    # modifier. 宝藏阵营's role is announced; 附身 is announced with the 幽灵's name.
    for reader in everyone:
        day1 = reader.frames("vote_result")[0]
        assert day1 == {
            "day": 1,
            "totals": [
                [ids[seat.TREASURE], N[seat.TREASURE], "6"],
                [ids[seat.MINE], N[seat.MINE], "4"],
            ],
            "tie": False,
        }
        assert f"{N[seat.TREASURE]}出局，其身份为宝藏。" in [
            p["text"] for p in reader.frames("role_shown")
        ]
        assert [p["text"] for p in reader.frames("possessed")] == [
            f"幽灵（{N[seat.GHOST]}）已经发动附身技能"
        ]
    (gained,) = [f for f in r[seat.GHOST].frames("feedback") if f["kind"] == "possess"]
    assert gained["skills"] == ["enemy", "prophecy", "whisper"]  # 获得该角色的全部技能
    # 公敌 (voted out): every voter gets one 预言 that night; the drawn one converts the 天使,
    # who loses its skills; the 人质 follows its host into 狼人阵营 and is not told.
    for who in (seat.QUEEN, seat.KING, seat.HUNTER):
        (once,) = [f for f in r[who].frames("feedback") if f["kind"] == "prophecy"]
        assert once["text"] == f"{N[seat.PIPER]}属于吹笛者阵营。"
    assert r[seat.ANGEL].frames("converted") == [
        {"faction": "wolves", "faction_name": "狼人阵营", "why": "公敌"}
    ]
    assert [s for s, x in r.items() if x.frames("converted")] == [seat.ANGEL]

    # Night 1's results, each to its actor alone.
    def told(who: int, kind: str) -> list[str]:
        return [f["text"] for f in r[who].frames("feedback") if f["kind"] == kind]

    assert told(seat.JUDGE, "judge") == ["其中不存在宝藏。"]  # 林5, 林14, 林15: no 宝藏 role
    assert told(seat.QUEEN, "advise") == [f"狼判官献策：{N[seat.FOX]}。"]
    assert told(seat.FOX, "cunning") == [
        f"猜测成功：{N[seat.RANGER]}的技能为天罡护体、查证、守护、磐石。"
    ]
    assert told(seat.RANGER, "verify") == [f"{N[seat.QUEEN]}属于狼人阵营。"]
    assert told(seat.PSYCHIC, "perceive") == [f"{N[seat.TREASURE]}的身份为宝藏，属于宝藏阵营。"]
    assert told(seat.GHOST, "prophecy") == [f"{N[seat.PILLAR]}属于毒士阵营。"]
    assert told(seat.KEEPER, "whisper") == [f"宝藏传音：{WHISPER}"]
    # 统领: the two named wolves join the 狼群 (told to the pack); night 2's brings the 天使.
    packs = [[m["id"] for m in p["members"]] for p in r[seat.KING].frames("team") if p.get("pack")]
    pack_1 = [ids[seat.KING], ids[seat.QUEEN], ids[seat.HUNTER]]
    assert packs[-2:] == [pack_1, [*pack_1, ids[seat.ANGEL]]]
    # The 狼群's room follows: the 天使 reads it from its joining, numbered from 1, without the
    # 狼王's words of day 2; the others read both.
    angel = [
        (f["seq"], f["kind"], f["text"]) for f in r[seat.ANGEL].json if f.get("type") == "room"
    ]
    assert angel == [
        (1, "room_joined", f"{N[seat.ANGEL]} 加入了狼群"),
        (2, "room_message", f"{N[seat.ANGEL]}：{PACK_AFTER}"),
    ]
    assert [m["text"] for m in played.notes["angel_pack"]] == [x[2] for x in angel]
    for who in (seat.KING, seat.QUEEN, seat.HUNTER):
        said = [f["body"] for f in r[who].json if f.get("kind") == "room_message"]
        assert said == [PACK_BEFORE, PACK_AFTER]
    for who in set(SEATS) - {seat.KING, seat.QUEEN, seat.HUNTER, seat.ANGEL}:
        assert not [f for f in r[who].json if f.get("kind") == "room_message"]
    for reader in everyone:
        texts = [p["text"] for p in reader.frames("pipe") + reader.frames("verify")]
        assert texts == [
            f"{N[seat.HUNTER]}进入吹笛状态。",
            f"游侠公示查证结果：{N[seat.QUEEN]}属于狼人阵营。",
        ]
        assert [o["night_out"] for o in reader.frames("day_open")] == [[], [], [], []]

    # Day 2: the 狼判官 out by 3 ballots to the 地雷's 1, doubled by night 1's 诅咒; 炼狱
    # gives the 毒士 a ‹炼›, spent on 鸩毒 (1): the living count of each faction (the 天使
    # and the 人质 now among the wolves).
    for reader in everyone:
        assert reader.frames("vote_result")[1]["totals"] == [
            [ids[seat.JUDGE], N[seat.JUDGE], "3"],
            [ids[seat.MINE], N[seat.MINE], "2"],
        ]
    assert told(seat.POISONER, "purgatory") == ["一名狼人阵营的角色出局，你获得一个<炼>标记。"]
    assert told(seat.POISONER, "zhen") == [
        "场上存活：狼人阵营5人，妖狐阵营2人，野心家阵营3人，毒士阵营2人，宝藏阵营3人，吹笛者阵营2人。"
    ]
    # 狡黠's borrowed 查证, used at the 妖狐's step the next night.
    assert told(seat.FOX, "verify") == [f"{N[seat.SHADOW]}属于其他阵营。"]

    # The director's night room listed night 1's submissions in words (targets, options).
    room = played.director.rooms[2]
    assert f"{N[seat.FOX]}：狡黠 → {N[seat.RANGER]}（猜测身份：游侠）" in room
    assert f"{N[seat.RANGER]}：查证 → {N[seat.QUEEN]}（公示结果）" in room
    assert f"{N[seat.KING]}：统领 → {names(seat.QUEEN, seat.HUNTER)}" in room
    assert f"{N[seat.GHOST]}：传音 → 无目标（“{WHISPER}”）" in room

    # 胜负判定: 毒士阵营 wins by 连续出现三个平安夜 (nights 1-3); 不定阵营 never could.
    for reader in everyone:
        (over,) = reader.frames("game_over")
        assert (over["winner"], over["winner_name"]) == ("poison", "毒士阵营")
        assert over["lost"] == ["drifter"]
        factions = {x["id"]: x["faction"] for x in over["roles"]}
        assert factions[ids[seat.ANGEL]] == factions[ids[seat.HOSTAGE]] == "wolves"
        assert factions[ids[seat.GHOST]] == "treasure"  # 附身: the 宝藏's faction
    game = await sync(Game.objects.get)(pk=played.game.pk)
    assert game.status == GameStatus.FINISHED
    rebuilt = await sync(store.replay)(game=game)
    assert rebuilt.to_json() == (await sync(store.state_load)(game)).to_json()
