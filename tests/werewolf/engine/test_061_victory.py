"""[061] 林峰's 胜负判定: losses first and sticky, the last faction not lost wins, the priority
list 吹笛者 > 野心家 > 毒士 > 宝藏 > 妖狐 > 狼人 for simultaneous wins, nobody when every faction
loses at once (RULINGS 061-4)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import pytest

from werewolf.engine import victory
from werewolf.engine.draft import open_draft
from werewolf.engine.state import GameState

from .support import edit, rng
from .support_061 import AMBITIOUS, KEEPER, PIPER, QUEEN, SEATS, SEER, TREASURE, game, play

WOLVES = (1, 2, 3, 4)
FOXES = (5, 6, 7)
AMBITION = (8, 9, 10)
POISON = (11, 12)
TREASURES = (13, 14, 15)
PIPERS = (16, 17)


def day1() -> GameState:
    return game(possess=1, hostage=PIPER)  # 幽灵 → 狼人阵营, 人质 → 吹笛者阵营


def out(state: GameState, pids: Iterable[int]) -> GameState:
    for pid in pids:
        state = edit(state, pid, alive=False)
    return state


def piped(state: GameState, pids: Iterable[int]) -> GameState:
    for pid in pids:
        state = edit(state, pid, statuses={**state.players[pid].statuses, "piped": 1})
    return state


def judge(state: GameState) -> tuple[str | None, tuple[str, ...]]:
    d = open_draft(state, rng())
    victory.check(d)
    return d.winner, d.lost


@pytest.mark.parametrize(
    ("rule", "outs_", "pipes", "winner", "lost"),
    [
        ("nothing yet", (), (), None, ("drifter",)),
        ("【狼人阵营】负 1、狼人阵营的角色全部出局", (*WOLVES, 18), (), None,
         ("drifter", "wolves")),
        ("【狼人阵营】负 2、狼人阵营的角色全部进入吹笛状态", (), (*WOLVES, 18), None,
         ("drifter", "wolves")),
        ("【吹笛者阵营】胜 1、所有吹笛者阵营外的角色均被吹笛", (),
         [p for p in SEATS if p not in (*PIPERS, 19)], "piper",
         ("drifter", "ambition", "poison", "treasure", "fox", "wolves")),  # (losses first)
        ("【吹笛者阵营】胜 2、场上不存在存活的狼人阵营、宝藏阵营、野心家阵营角色",
         (*WOLVES, 18, *TREASURES, *AMBITION), (), "piper", None),
        ("【妖狐阵营】胜 1、场上不存在存活的狼人阵营、毒士阵营、野心家阵营角色",
         (*WOLVES, 18, *POISON, *AMBITION), (), "fox", None),
        ("【毒士阵营】负 2、毒士阵营的角色全部进入吹笛状态", (), POISON, None,
         ("drifter", "poison")),
        # 吹笛者、宝藏 both win (no wolves, ambition, piper … and no wolves, treasure, ambition):
        # 吹笛者 first in the priority list.
        ("priority: 宝藏 and 妖狐 both win — 宝藏 comes first",
         (*WOLVES, 18, *AMBITION, *POISON, *PIPERS, 19), (), "treasure", None),
        ("场上仅有一个阵营尚未被判负时，宣布此阵营胜利",
         (*WOLVES, 18, *AMBITION, *POISON, *PIPERS, 19, *TREASURES), (), "fox", None),
        ("every faction lost at once: nobody wins", tuple(SEATS), (), "", None),
    ],
)  # fmt: skip
def test_wins_and_losses(
    rule: str,
    outs_: Iterable[int],
    pipes: Iterable[int],
    winner: str | None,
    lost: tuple[str, ...] | None,
) -> None:
    state = piped(out(day1(), outs_), pipes)
    got_winner, got_lost = judge(state)
    assert got_winner == winner, rule
    if lost is not None:
        assert got_lost == lost, rule


def test_a_lost_faction_never_wins_again() -> None:
    """已经判负的阵营无法再次获得胜利: the wolves all piped lose; when the 吹笛者 lose and the
    pipes are lifted, the wolves stay lost."""
    state = piped(day1(), (*WOLVES, 18))
    d = open_draft(state, rng())
    victory.check(d)
    assert "wolves" in d.lost
    state = out(d.finish(), (*PIPERS, 19, *AMBITION, *POISON, *TREASURES, 7, 6))
    winner, lost = judge(state)
    assert "wolves" in lost
    assert winner == "fox"


def test_ambition_wins_when_every_other_living_vote_on_it_is_void() -> None:
    """【野心家阵营】胜 1、…场上所有野心家阵营之外的存活角色对该角色的投票均无效."""
    state = day1()
    others = [p for p in SEATS if state.players[p].faction != "ambition"]
    state = edit(state, AMBITIOUS, flags={"void_voters": others[:-1]})
    assert judge(state)[0] is None
    state = edit(state, AMBITIOUS, flags={"void_voters": others})
    assert judge(state)[0] == "ambition"


def test_poison_wins_after_three_peaceful_nights() -> None:
    """【毒士阵营】胜 1、连续出现三个平安夜."""
    state = day1()
    for night in range(1, 4):
        state, _ = play(state)
        assert state.flags["lf_peaceful"] == night
    assert state.winner == "poison"


def test_a_night_with_an_out_resets_the_count() -> None:
    state, _ = play(day1())
    state, _ = play(state, [(QUEEN, "kill", 13)])
    assert state.flags["lf_peaceful"] == 0


@pytest.mark.parametrize(
    ("gone", "winner"),
    [((), "treasure"), ((TREASURE,), "treasure"), ((TREASURE, KEEPER), None)],
)
def test_treasure_wins_at_the_open_of_day_6(gone: tuple[int, ...], winner: str | None) -> None:
    """【宝藏阵营】胜 2、第六天白天开始时，宝藏或护宝人仍然存活且仍属于宝藏阵营."""
    state = out(dataclasses.replace(day1(), day=5), gone)
    state = edit(state, 11, skills=())  # no 毒士 win on the way
    state, _ = play(state, [(QUEEN, "kill", SEER)])
    assert state.day == 6
    assert state.winner == winner


def test_pipes_are_lifted_and_announced_when_the_piper_faction_loses() -> None:
    """吹笛状态…当且仅当吹笛者阵营判负时才会解除，此事件发生时会进行公示."""
    from .support_061 import POISONER

    state = piped(day1(), (5, 6))
    state = out(state, (SEER, 19))
    state = edit(state, POISONER, skills=("poison_kill",))
    state, events = play(state, [(POISONER, "poison_kill", PIPER)])
    assert "piper" in state.lost
    assert not any("piped" in p.statuses for p in state.players.values())
    assert [e.payload["text"] for e in events if e.kind == "unpipe"] == [
        "吹笛者阵营判负，所有吹笛状态解除。"
    ]
