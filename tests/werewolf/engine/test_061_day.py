"""[061] 林峰's day vote: 票台 (not votable out), 诅咒 ×2, 独尊's void ballots, 天罡护体 and 守护
(nobody out), ties, 偏爱, 怨恨, 共死 by the first voter, 公敌's voters, 感知, 遗志
(RULINGS 061-2, 8, 12). The first day's 票台 is seats 19–14 unless a test says otherwise."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from werewolf.engine import tally, vote_modifiers
from werewolf.engine.errors import InvalidTarget
from werewolf.engine.state import GameState

from .support import outs
from .support_061 import (
    AMBITIOUS,
    ANGEL,
    GHOST,
    HOSTAGE,
    MINE,
    PILLAR,
    PIPER,
    PSYCHIC,
    RANGER,
    SEER,
    TREASURE,
    faction,
    game,
    play,
    vote,
    window,
    windows,
)


def day1(**kw: object) -> GameState:
    return game(possess=1, hostage=PIPER, **kw)  # type: ignore[arg-type]


def texts(events: list, kind: str) -> list[str]:
    return [e.payload["text"] for e in events if e.kind == kind and e.audience.kind == "public"]


def test_stage_ballots_for_a_player_on_the_stage_count_for_nobody() -> None:
    """<票台>：成为第二天不可被投票出局的玩家 (RULINGS 061-2: the top of the rest is out)."""
    state = day1()
    assert vote_modifiers(state, 1).immune.keys() == {14, 15, 16, 17, 18, 19}
    state, _ = vote(state, [(1, 19), (2, 19), (3, 19), (4, 13), (5, 13)])
    assert outs(state) == [(13, "投票")]


def test_curse_doubles_the_votes_received() -> None:
    """<诅咒>：使其第二天被投票数加倍（暗记）."""
    state = day1(picks=[(PILLAR, "curse", 13)])
    assert tally(state, {1: 12, 2: 12, 3: 12, 4: 13, 5: 13}) == {12: 3, 13: 4}
    mods = vote_modifiers(state, 1)
    assert mods.multipliers[13].value == Fraction(2)
    state, _ = vote(state, [(1, 12), (2, 12), (3, 12), (4, 13), (5, 13)])
    assert outs(state) == [(13, "投票")]


def test_supreme_votes_on_the_ambitious_are_void_for_ever() -> None:
    """<独尊>：选择一名角色，对自己的投票永久无效 (never named in a published tally)."""
    state, _ = play(day1(), [(AMBITIOUS, "supreme", 3)], votable=(AMBITIOUS, 13))
    mods = vote_modifiers(state, 2)
    assert (3, AMBITIOUS) in mods.void_pairs
    assert mods.void_pairs[(3, AMBITIOUS)].public is False
    state, events = vote(state, [(3, AMBITIOUS), (4, AMBITIOUS), (5, 13)])
    assert outs(state) == []
    assert texts(events, "no_one_out") == ["投票出现平票，无人出局。"]


@pytest.mark.parametrize(("day", "out"), [(1, False), (2, False), (3, True)])
def test_tiangang_the_top_voted_ranger_means_nobody_is_out_on_days_1_and_2(
    day: int, out: bool
) -> None:
    state = dataclasses.replace(day1(), day=day)
    state, events = vote(state, [(1, RANGER), (2, RANGER), (3, 13)])
    assert ((RANGER, "投票") in outs(state)) is out
    if not out:
        assert texts(events, "no_one_out") == ["P10得票最高，但今日不会出局，无人出局。"]


def test_guard_holds_the_night_and_the_next_day() -> None:
    state, _ = play(day1(), [(RANGER, "guard", 13)], votable=(13,))
    state, _ = vote(state, [(1, 13), (2, 13), (3, 12)])
    assert outs(state) == []
    state, _ = play(state, [], votable=(13,))
    state, _ = vote(state, [(1, 13), (2, 13), (3, 12)])
    assert outs(state) == [(13, "投票")]


def test_favor_another_goes_out_in_the_place_of_the_one_voted_out() -> None:
    state, events = vote(day1(), [(1, 13), (2, 13)], favor=12)
    assert outs(state) == [(12, "偏爱")]
    assert texts(events, "favor") == ["天使P7发动<偏爱>，P12代替P13出局。"]
    assert state.players[ANGEL].used == {"favor": 1}
    assert ANGEL in state.flags["shown_roles"]  # 发动此技能后公示天使马甲
    # 限定: the next vote-out is not asked again.
    state, _ = play(state, [], votable=(13, 11))
    state, _ = vote(state, [(1, 11), (2, 11)])
    assert outs(state)[-1] == (11, "投票")


def test_favor_never_a_player_on_the_stage() -> None:
    with pytest.raises(InvalidTarget):
        vote(day1(), [(1, 13), (2, 13)], favor=19)


def test_grudge_the_seer_voted_out_takes_one_of_its_voters() -> None:
    state = game(possess=1, hostage=2, votable=(SEER,))
    state, _ = vote(state, [(1, SEER), (2, SEER), (3, SEER)])
    assert (SEER, "grudge") in windows(state)
    with pytest.raises(InvalidTarget):
        window(state, SEER, "grudge", 4)  # 只能从投票给洞察者的角色中选择
    state, _ = window(state, SEER, "grudge", 3)
    assert outs(state) == [(SEER, "投票"), (3, "怨恨")]


def test_together_the_mine_voted_out_takes_its_first_voter() -> None:
    state, _ = vote(day1(votable=(MINE,)), [(3, MINE), (5, MINE), (4, MINE)])
    assert outs(state) == [(MINE, "投票"), (3, "共死")]


def test_enemy_the_treasures_voters_get_a_prophecy_and_one_of_them_a_convert() -> None:
    state, _ = vote(day1(), [(5, TREASURE), (6, TREASURE), (3, 12)])
    assert [p for p in (5, 6) if "prophecy_once" in state.players[p].skills] == [5, 6]
    picker = next(a for a, s in windows(state) if s == "enemy_convert")
    assert picker in (5, 6)
    state, _ = window(state, picker, "enemy_convert", 12)
    assert faction(state, 12) == "fox"
    state, _ = play(state, [(5, "prophecy_once", 3)], votable=(12,))
    assert "prophecy_once" not in state.players[5].skills  # 在当晚可以使用一次


def test_perceive_tells_the_role_and_faction_of_the_one_voted_out() -> None:
    state, _ = vote(day1(), [(1, 13), (2, 13)])
    state, _ = play(state, [(PSYCHIC, "perceive", ())])
    told = [f["text"] for f in state.players[PSYCHIC].flags["feedback"] if f["kind"] == "perceive"]
    assert told == ["P13的身份为宝藏，属于宝藏阵营。"]


def test_treasure_faction_roles_are_announced_when_out() -> None:
    _, events = vote(day1(), [(1, 13), (2, 13)])
    assert texts(events, "role_shown") == ["P13出局，其身份为宝藏。"]


def test_legacy_the_hostage_out_by_its_host_reveals_a_role() -> None:
    state, _ = vote(game(possess=1, hostage=13), [(1, 13), (2, 13)])
    assert outs(state) == [(13, "投票"), (HOSTAGE, "遇难")]
    state, events = window(state, HOSTAGE, "legacy", GHOST)
    assert texts(events, "legacy") == ["人质P19发动<遗志>：P18的身份为幽灵。"]


def test_only_treasure_roles_are_public_when_out_by_day() -> None:
    """RULINGS 061-3: only 宝藏阵营 members have their role announced."""
    from werewolf.engine import player_view

    state, events = vote(day1(), [(1, 12), (2, 12)])
    shown = [e.payload for e in events if e.kind == "out" and e.audience.kind == "public"]
    assert shown == [{"id": 12, "name": "P12", "cause": "投票"}]
    state, _ = play(state, [], votable=(13,))
    state, _ = vote(state, [(1, 13), (2, 13)])
    roles = {p["id"]: p.get("role") for p in player_view(state, 3)["players"]}
    assert roles[12] is None
    assert roles[13] == "宝藏"
