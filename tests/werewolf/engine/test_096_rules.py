"""[096] rule lines the area tables leave out, each a test that reads like its line (seats as
in ``support_096``; the 亡灵圣物 out of play unless a test gives it)."""

from __future__ import annotations

import pytest

from werewolf.engine import Forgo, apply_action, night_open
from werewolf.engine.draft import open_draft
from werewolf.engine.errors import ForcedSkill, InvalidTarget, SkillUsedUp, StepClosed
from werewolf.engine.outcomes import eliminate
from werewolf.engine.state import GameState

from .support import MIN, rng
from .support_096 import (
    DRAGON,
    ELVES,
    EXORCIST,
    GENIE,
    MEDUSA,
    WIZARD,
    WOLVES,
    act,
    alive,
    close_at,
    cooldown,
    game,
    play,
)
from .test_096_relic import holding


def quiet() -> GameState:
    return game(relic=False)


def test_hex_cools_down_a_day() -> None:
    """咒术：<冷却：1>: used on night 1, refused on night 2 (冷却中), free on night 3."""
    state, _ = play(quiet(), [(WIZARD, "hex", (ELVES[0], ELVES[1]))])
    assert cooldown(state, WIZARD, "hex") == 1
    with pytest.raises(StepClosed):
        play(state, [(WIZARD, "hex", (ELVES[0], ELVES[1]))])
    state, _ = play(state)
    state, _ = play(state, [(WIZARD, "hex", (ELVES[2], ELVES[3]))])
    assert cooldown(state, WIZARD, "hex") == 1


def test_the_wish_cannot_be_forgone() -> None:
    """许愿：此技能不允许放弃发动."""
    state, _ = night_open(quiet(), rng(), close_at(quiet()))
    with pytest.raises(ForcedSkill):
        apply_action(state, Forgo(actor=GENIE, skill="wish"), rng(), close_at(quiet()) + MIN)


def test_nine_stars_hits_a_living_relic_holder_twice() -> None:
    """九星金光咒：如果此角色是亡灵或圣物持有者，额外造成一次伤害 — the holder with 2 HP (the 树妖
    at day 3's 长生 would be one; here a 精灵 with HP given) still goes out."""
    state = holding(quiet(), ELVES[0], curses=0)
    d = open_draft(state, rng())
    d.wp(ELVES[0]).counters["hp"] = 2
    state = d.finish()
    state, _ = play(state, [(EXORCIST, "nine_stars", ELVES[0])])
    assert alive(state, ELVES[0]) == [False]
    assert cooldown(state, EXORCIST, "nine_stars") == 1  # 是圣物持有者: no extra cooldown


def test_nine_stars_on_anyone_else_cools_one_more() -> None:
    """…不是则冷却额外+1."""
    state, _ = play(quiet(), [(EXORCIST, "nine_stars", ELVES[0])])
    assert cooldown(state, EXORCIST, "nine_stars") == 2


def test_the_ghost_dragons_majesty_is_three_votes() -> None:
    """鬼龙 龙威：<开关> 鬼龙的投票视为3票."""
    from werewolf.engine import tally
    from werewolf.engine.conan import flip

    d = open_draft(quiet(), rng())
    flip(d, DRAGON, "测试")
    assert d.p(DRAGON).role == "ghost_dragon"
    state = d.finish()
    state, _ = act(state, (DRAGON, "majesty_undead", (), "on"), close_at(state) - 3600)
    assert tally(state, {DRAGON: ELVES[0], ELVES[1]: ELVES[0]}) == {ELVES[0]: 4}


@pytest.mark.parametrize(
    "targets",
    [
        (ELVES[0], WOLVES[0], WIZARD),  # 精灵、地下城、高塔: each hurt
        (ELVES[0], ELVES[1]),  # not of different factions: nobody
    ],
)
def test_nether_breath_hurts_only_players_of_different_factions(targets: tuple[int, ...]) -> None:
    """冥炎吐息：<限定> 选择任意名角色，若这些角色各自属于不同阵营，则鬼龙对这些角色各造成
    一次伤害."""
    from werewolf.engine.conan import flip

    d = open_draft(quiet(), rng())
    flip(d, DRAGON, "测试")
    state = d.finish()
    state, _ = play(state, [(DRAGON, "nether_breath", targets)])
    different = len(targets) == 3
    assert alive(state, *targets) == ([False] * len(targets) if different else [True, True])
    with pytest.raises(SkillUsedUp):
        play(state, [(DRAGON, "nether_breath", (ELVES[3],))])


def test_bond_gives_no_immunity_to_the_curse() -> None:
    """认主不会令角色对<诅咒>技能免疫: a 精灵 the relic bonded is still cursed at the next open."""
    state = holding(quiet(), ELVES[0], bonded=None, owned=[ELVES[0]], nights=2)
    state, _ = night_open(state, rng(), close_at(state))
    assert state.players[ELVES[0]].role == "corpse"


@pytest.mark.parametrize(
    ("step", "minutes"),
    [("golem", 10), ("dryad", 10), ("wizard", 20), ("genie", 30), ("elves", 30), ("pack", 60),
     ("summon", 75)],
)  # fmt: skip
def test_the_night_stages_close_at_the_posts_hours(step: str, minutes: int) -> None:
    """行动时限 (关门 21:00): 21:10 援护/缠绕, 21:20 咒术/变羊术/森林先知,
    21:30 许愿/祝福/魔眼/净化洗礼,
    22:00 穿心箭/撕咬/龙息/啃咬/冥炎吐息/九星金光咒, 22:15 招魂术."""
    state, _ = night_open(quiet(), rng(), close_at(quiet()))
    deadline = state.night["steps"][step]["deadline"]
    if deadline is None:  # 招魂术 opens once the damage steps close
        assert step == "summon"
        return
    assert deadline == close_at(quiet()) + minutes * 60


def test_an_out_player_is_out_once_and_no_target() -> None:
    """每名角色仅能出局一次; 已经公示的出局角色…不允许被选为技能或投票的目标."""
    d = open_draft(quiet(), rng())
    eliminate(d, ELVES[0], "投票", night=False)
    eliminate(d, ELVES[0], "投票", night=False)
    assert [o.id for o in d.outs] == [ELVES[0]]
    state = d.finish()
    with pytest.raises(InvalidTarget):
        play(state, [(MEDUSA, "evil_eye", ELVES[0])])
