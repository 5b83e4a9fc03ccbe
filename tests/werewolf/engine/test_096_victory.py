"""[096] 胜负判定 — 本规则胜利条件实时结算，满足时立即结束游戏 — one row per condition of the post,
on the seats of ``support_096`` with the 亡灵圣物 out of play; 中立阵营 wins beside another
faction (允许与其他阵营同时满足胜利条件、共同胜利)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from werewolf.engine import victory
from werewolf.engine.draft import Draft, open_draft
from werewolf.engine.state import GameState

from .support import rng
from .support_096 import (
    DRAGON,
    DRUID,
    DRYAD,
    ELVES,
    EXORCIST,
    GENIE,
    GOLEM,
    MEDUSA,
    RANGER_A,
    RANGER_B,
    SEATS,
    UNICORN,
    WIZARD,
    WOLF_KING,
    WOLVES,
    game,
)

DUNGEON = (*WOLVES, WOLF_KING, MEDUSA, DRAGON)
TOWER = (GOLEM, WIZARD, GENIE)
ELF_FACTION = (*ELVES, DRYAD, UNICORN, DRUID, RANGER_A, RANGER_B)


def out(*pids: int) -> Callable[[Draft], None]:
    def edit(d: Draft) -> None:
        for pid in pids:
            d.wp(pid).alive = False

    return edit


def undead(*pids: int) -> Callable[[Draft], None]:
    def edit(d: Draft) -> None:
        for pid in pids:
            d.wp(pid).faction = "undead"

    return edit


def sheep(*pids: int) -> Callable[[Draft], None]:
    def edit(d: Draft) -> None:
        for pid in pids:
            d.wp(pid).statuses["sheep"] = 10**6

    return edit


def judge(edits: Iterable[Callable[[Draft], None]]) -> tuple[str | None, list[str]]:
    state: GameState = game(relic=False)
    d = open_draft(state, rng())
    for edit in edits:
        edit(d)
    victory.check(d)
    return d.winner, list(d.flags.get("co_winners", []))


LIVING_ELVES_TWO = [e for e in ELF_FACTION if e not in (ELVES[0], ELVES[1])]

ROWS: list[tuple[str, list[Callable[[Draft], None]], str | None, list[str]]] = [
    ("nothing yet", [], None, []),
    ("精灵阵营 胜：不存在存活的地下城阵营角色且不存在存活的亡灵阵营角色",
     [out(*DUNGEON)], "elf", []),
    ("…an undead alive keeps it from winning", [out(*DUNGEON), undead(ELVES[0])], None, []),
    ("高塔阵营 胜（特殊情况）：所有非高塔阵营角色进入变羊状态",
     [sheep(*(s for s in SEATS if s not in TOWER))], "tower", []),
    ("亡灵阵营 胜 1：存活亡灵数量超过存活人数的一半",
     [undead(*ELF_FACTION)], "undead", []),
    ("…exactly half (11 of 22) is not more than half",
     [undead(*ELF_FACTION[:11])], None, []),
    ("亡灵阵营 胜 2：高塔、狼人、精灵均不多于1，且至少有一个存活亡灵",
     [out(GOLEM, WIZARD, *WOLVES, ELVES[1], ELVES[2], ELVES[3], ELVES[4], ELVES[5], ELVES[6]),
      undead(ELVES[0])], "undead", []),
    ("中立阵营 共同胜利：无存活亡灵，存活人数≤5，且有其他阵营宣告胜利",
     [out(*DUNGEON, *TOWER, *ELF_FACTION[:-4])], "elf", ["neutral"]),
    ("…not with 6 alive", [out(*DUNGEON, *TOWER, *ELF_FACTION[:-5])], "elf", []),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "edits", "winner", "co"), ROWS)
def test_wins_in_real_time(
    rule: str, edits: list[Callable[[Draft], None]], winner: str | None, co: list[str]
) -> None:
    assert judge(edits) == (winner, co), rule


def test_the_neutral_bonus_of_nine_stars_raises_the_living_count_it_allows() -> None:
    """九星金光咒：此技能每造成一名亡灵出局，驱魔人判胜条件所需存活人数+2 — 7 alive wins beside
    with one such out (5 + 2)."""

    def bonus(d: Draft) -> None:
        d.set_flag("cn_nine_star_undead", 1)

    assert judge([out(*DUNGEON, *TOWER, *ELF_FACTION[:-6]), bonus]) == ("elf", ["neutral"])
    assert judge([out(*DUNGEON, *TOWER, *ELF_FACTION[:-6])]) == ("elf", [])


def test_a_joined_exorcist_wins_with_its_new_faction_not_beside_it() -> None:
    """五龙分威术: once the 驱魔人 has joined a faction it is no longer 中立."""

    def joined(d: Draft) -> None:
        d.wp(EXORCIST).faction = "elf"

    assert judge([out(*DUNGEON, *TOWER, *ELF_FACTION[:-4]), joined]) == ("elf", [])


def test_the_end_names_the_co_winner() -> None:
    state = game(relic=False)
    d = open_draft(state, rng())
    out(*DUNGEON, *TOWER, *ELF_FACTION[:-4])(d)
    victory.check(d)
    (end,) = [e.payload for e in d.events if e.kind == "game_over"]
    assert (end["winner_name"], end["co_winner_names"]) == ("精灵阵营", ["中立阵营"])


def test_the_players_sentence_of_the_end_names_the_co_winner() -> None:
    from werewolf.eventtext import player_line

    state = game(relic=False)
    d = open_draft(state, rng())
    out(*DUNGEON, *TOWER, *ELF_FACTION[:-4])(d)
    victory.check(d)
    (end,) = [e.payload for e in d.events if e.kind == "game_over"]
    line = player_line({"kind": "game_over", "payload": end})
    assert line.startswith("游戏结束：精灵阵营获胜（中立阵营共同胜利）。身份揭晓：")
