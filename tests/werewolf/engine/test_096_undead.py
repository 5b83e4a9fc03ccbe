"""[096] 名侦探柯南: the damage flow (伤害结算流程) step by step and the undead's skills — each test
a line of the rule post (seats as in ``support_096``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from games.engine.events import DIRECTORS, GameEvent
from games.eventlog import player_text_missing
from werewolf.engine import deadline_pass, night_open, night_publish, night_resolve
from werewolf.engine.conan import flip
from werewolf.engine.draft import open_draft
from werewolf.engine.errors import InvalidTarget, SkillUsedUp
from werewolf.engine.outcomes import eliminate
from werewolf.engine.state import CAUSE_VOTE, GameState
from werewolf.engine.views import player_view

from .support import MIN, rng
from .support_061 import submit as act
from .support_096 import (
    DRAGON,
    DRUID,
    ELVES,
    EXORCIST,
    GENIE,
    GOLEM,
    MEDUSA,
    RANGER_A,
    UNICORN,
    WIZARD,
    WOLVES,
    Pick,
    alive,
    close_at,
    game,
)

BITE = (WOLVES[0], "bite")
Setup = Callable[[GameState], GameState]


def edit(state: GameState, fn: Callable[[Any], object], now: float | None = None) -> GameState:
    d = open_draft(state, rng(), now)
    fn(d)
    return d.finish()


def undead(*pids: int) -> Setup:
    """These characters flipped to their 亡灵身份 before the night."""
    return lambda s: edit(s, lambda d: [flip(d, p, "测试") for p in pids])


def night(
    state: GameState,
    picks: Sequence[Pick] = (),
    *,
    choices: Sequence[Pick] = (),
    late: Sequence[Pick] = (),
) -> tuple[GameState, list[GameEvent]]:
    """The night from the day's close: ``picks`` at 21:01, ``choices`` (windows) at 21:02, the
    22:00 deadlines passed (招魂术 opens), ``late`` picks at 22:02, 22:16 passed, published."""
    events: list[GameEvent] = []
    at = close_at(state)
    state, ev = night_open(state, rng(), at)
    events += ev
    for pick in picks:
        state, ev = act(state, pick, at + MIN)
        events += ev
    for pick in choices:
        state, ev = act(state, pick, at + 2 * MIN)
        events += ev
    state, ev = deadline_pass(state, rng(), at + 60 * MIN)
    events += ev
    for pick in late:
        state, ev = act(state, pick, at + 62 * MIN)
        events += ev
    state, ev = deadline_pass(state, rng(), at + 76 * MIN)
    events += ev
    state, ev = night_resolve(state, rng())
    events += ev
    state, ev = night_publish(state, rng(), at + 3 * 3600)
    return state, events + ev


def told(events: Sequence[GameEvent], pid: int, kind: str = "feedback") -> list[str]:
    return [
        str(e.payload.get("text")) for e in events if e.kind == kind and e.audience.character == pid
    ]


def curses(state: GameState) -> int:
    return int((state.flags.get("relic") or {}).get("curses", 3))


NECRO = WIZARD  # 巫师[死灵法师]
X = ELVES[0]

# 伤害结算流程, one row per step: (rule line, setup, picks, choices, late, who, stays in).
FLOW: list[tuple[str, Setup | None, list[Pick], list[Pick], list[Pick], int, bool]] = [
    ("五龙分威术：第一天夜晚免疫所有伤害", None, [(*BITE, EXORCIST)], [], [], EXORCIST, True),
    (
        "（1）受到【祝福】作用，此次伤害无效",
        None,
        [(ELVES[1], "bless", X), (ELVES[2], "bless", X), (ELVES[3], "bless", 5), (*BITE, X)],
        [],
        [],
        X,
        True,
    ),
    (
        "（2）受到【许愿】作用，此次伤害无效",
        None,
        [(GENIE, "wish", X), (*BITE, X)],
        [(X, "wish_effect", (), "1")],
        [],
        X,
        True,
    ),
    ("（3）死灵法师当晚受到的首次伤害无效", undead(NECRO), [(*BITE, NECRO)], [], [], NECRO, True),
    (
        "（6）生灵且成为【招魂术】目标：不出局",
        undead(NECRO),
        [(*BITE, X)],
        [],
        [(NECRO, "summon", X)],
        X,
        True,
    ),
    ("（7）该角色出局", None, [(*BITE, X)], [], [], X, False),
]


@pytest.mark.parametrize(
    ("rule", "setup", "picks", "choices", "late", "who", "stays"),
    FLOW,
    ids=[row[0] for row in FLOW],
)
def test_the_damage_flow_step_by_step(
    rule: str,
    setup: Setup | None,
    picks: list[Pick],
    choices: list[Pick],
    late: list[Pick],
    who: int,
    stays: bool,
) -> None:
    state = game()
    if setup is not None:
        state = setup(state)
    state, _ = night(state, picks, choices=choices, late=late)
    assert alive(state, who) == [stays]


def test_gather_spirit_covers_only_the_first_damage_whatever_voided_it() -> None:
    """聚灵术：免疫每晚受到的第一次伤害 — the first was voided by 祝福, the second is not
    (RULINGS 096-10)."""
    picks = [(ELVES[1], "bless", NECRO), (*BITE, NECRO), (EXORCIST, "nine_stars", NECRO)]
    state, events = night(undead(NECRO)(game()), picks)
    # bite: 祝福; 九星金光咒 on an 亡灵 (two damages): the second one puts it out
    assert alive(state, NECRO) == [False]
    trace = next(e.payload["trace"] for e in events if e.kind == "night_draft")
    lines = {t["step"]: t["text"] for t in trace if t["step"].startswith("第")}
    assert "【祝福】作用" in lines["第1次伤害"]
    assert lines["第2次伤害"] == "P14出局。"


def test_five_dragons_is_night_one_only() -> None:
    state, _ = night(game(relic=False), [(EXORCIST, "nine_stars", WOLVES[1]), (*BITE, EXORCIST)])
    assert alive(state, EXORCIST) == [True]
    state, _ = night(state)  # 撕咬 cools down a day
    state, _ = night(state, [(WOLVES[2], "bite", EXORCIST)])
    assert alive(state, EXORCIST) == [False]


def test_bless_needs_a_unique_top_and_not_the_same_player_two_nights_running() -> None:
    """获得唯一最多祝福的角色当晚免疫一次伤害。（此效果对同一角色不会连续两天生效。）"""
    tie = [(ELVES[1], "bless", X), (ELVES[2], "bless", 5), (*BITE, X)]
    state, _ = night(game(), tie)
    assert alive(state, X) == [False]

    blessed = [(ELVES[1], "bless", 5), (ELVES[2], "bless", 5)]
    state, _ = night(game(), blessed)
    assert state.flags["cn_blessed"] == [5, 1]
    state, _ = night(state, [*blessed, (WOLVES[0], "bite", 5)])
    assert alive(state, 5) == [False]  # barred on night 2: nobody is immune (RULINGS 096-6)


def test_clover_tells_the_elf_and_the_unicorn_learns_the_first_elf() -> None:
    """四叶草：选择独角兽为祝福对象时，得到反馈【独角兽】。全场第一个触发此效果的精灵身份会被
    独角兽得知."""
    picks = [(ELVES[2], "bless", UNICORN), (ELVES[1], "bless", UNICORN)]
    state, events = night(game(), picks)
    assert told(events, ELVES[2]) == ["【四叶草】：P9是【独角兽】。"]
    assert told(events, ELVES[1]) == ["【四叶草】：P9是【独角兽】。"]
    assert told(events, UNICORN) == ["【四叶草】：全场第一个祝福你的是P3，其身份是【精灵】。"]
    state, events = night(state, [(ELVES[3], "bless", UNICORN)])
    assert told(events, UNICORN) == []  # 全场第一个: once


def test_wish_is_once_per_character_and_not_on_the_genie_unless_awakened() -> None:
    """许愿：<角色>; 契约解除：<觉醒> 许愿始终可以对灯神自己发动."""
    state = game()
    state, _ = night_open(state, rng(), close_at(state))
    with pytest.raises(InvalidTarget):
        act(state, (GENIE, "wish", GENIE), close_at(state) + MIN)
    awake = edit(state, lambda d: d.wp(GENIE).flags.update(awakened=True))
    after, _ = act(awake, (GENIE, "wish", GENIE), close_at(state) + MIN)
    assert after.night["subs"]["wish"] == {str(GENIE): GENIE}

    state, _ = night(game(), [(GENIE, "wish", X)], choices=[(X, "wish_effect", (), "1")])
    state, _ = night_open(state, rng(), close_at(state))
    with pytest.raises(InvalidTarget):
        act(state, (GENIE, "wish", X), close_at(state) + MIN)


def test_the_wished_ones_view_offers_the_choice_until_the_hour_after_the_close() -> None:
    """许愿：令该角色从如下效果中选择一项执行 — its window (opened by the handler, not one of
    the ruleset's ``windows``) is on the wished one's own page while it is open, not a crash."""
    state = game()
    at = close_at(state)
    state, _ = night_open(state, rng(), at)
    state, _ = act(state, (GENIE, "wish", X), at + MIN)
    view = player_view(state, X)
    (choice,) = [u for u in view["usable"] if u["skill"] == "wish_effect"]
    assert choice["until"] == at + 60 * MIN
    assert "closes" not in choice


def test_wish_effects_two_and_three() -> None:
    """2：选择获知一名角色的当前所属阵营。3：选择一名角色，若其持有亡灵圣物，获得之."""
    state = edit(game(), lambda d: d.set_flag("relic", {"holder": MEDUSA, "curses": 3}))
    choices = [(X, "wish_effect", (WOLVES[1],), "2")]
    _, events = night(state, [(GENIE, "wish", X)], choices=choices)
    assert told(events, X) == ["【许愿】：P17当前属于【地下城阵营】。"]

    choices = [(X, "wish_effect", (MEDUSA,), "3")]
    after, events = night(state, [(GENIE, "wish", X)], choices=choices)
    assert after.flags["relic"]["holder"] == X
    assert told(events, X) == ["【许愿】：你从P20处获得了亡灵圣物。"]


def test_a_missed_wish_choice_is_forfeited_and_no_card_is_proposed() -> None:
    """许愿 must be used; missed (or no effect chosen) it is forfeited, the directors told, no
    card (RULINGS 096-17)."""
    _, events = night(game(), [(BITE[0], "bite", X)])
    missed = [e.payload for e in events if e.kind == "forfeited" and e.audience == DIRECTORS]
    assert {"step": "genie", "actor": GENIE, "forced": []} in missed
    state, events = night(game(), [(GENIE, "wish", X), (*BITE, X)])
    missed = [e.payload for e in events if e.kind == "forfeited" and e.audience == DIRECTORS]
    assert {"skill": "wish_effect", "actor": X} in missed
    assert alive(state, X) == [False]


def test_commune_lists_who_is_about_to_go_out_and_summon_picks_from_it() -> None:
    """通灵术：每晚获得当晚即将出局角色的名单。招魂术：选择一名当晚即将出局的角色."""
    state = undead(NECRO)(game())
    with pytest.raises(InvalidTarget):
        night(state, [(*BITE, X)], late=[(NECRO, "summon", ELVES[1])])
    picks = [(*BITE, X), (ELVES[1], "bless", 5), (ELVES[2], "bless", 5)]
    picks.append((RANGER_A, "heart_arrow", 5))  # 祝福 saves P5: not on the list
    state, events = night(state, picks, late=[(NECRO, "summon", X)])
    assert told(events, NECRO, "sense") == ["【通灵术】：今晚即将出局的角色：P1。"]
    p = state.players[X]
    assert (p.alive, p.role, p.faction) == (True, "corpse", "undead")  # 翻转身份重新加入游戏
    assert state.players[NECRO].used["summon"] == 1


def test_summon_on_an_undead_does_nothing() -> None:
    """若为生灵，则其翻转身份 — an 亡灵 goes out."""
    state = undead(NECRO, ELVES[1])(game())
    state, _ = night(state, [(*BITE, ELVES[1])], late=[(NECRO, "summon", ELVES[1])])
    assert alive(state, ELVES[1]) == [False]
    assert state.players[NECRO].used["summon"] == 1  # <限定>: spent all the same


def test_burst_flips_the_living_elevator_neighbours_to_plague() -> None:
    """尸爆：当瘟疫尸在夜晚出局时，使电梯楼临近两名角色中的生灵翻转为[瘟疫尸] — the day's 电梯楼
    as a circle, skipping those out (RULINGS 096-13)."""
    order = [EXORCIST, 3, 7, 2, DRAGON]

    def setup(d: Any) -> None:
        flip(d, EXORCIST, "测试")
        flip(d, 3, "测试")  # an 亡灵 neighbour stays as it is
        eliminate(d, DRAGON, "测试", night=False)
        d.set_flag("elevator", order)

    state = edit(game(), setup)
    state, _ = night(state, [(*BITE, EXORCIST)])
    roles = {p: state.players[p].role for p in (3, 7, DRAGON, 2)}
    # EXORCIST's neighbours: 3 (down the list) and DRAGON (out: skipped) → 2
    assert roles == {3: "corpse", 7: "elf", DRAGON: "black_dragon", 2: "plague"}


def test_light_soul_goes_out_before_a_flip_and_adds_a_curse() -> None:
    """光明之魂：独角兽在翻转身份前立刻出局。独角兽因为此效果出局或被亡灵杀死时，圣物诅咒次数+1."""
    d = open_draft(game(), rng())
    assert not flip(d, UNICORN, "测试")
    assert (d.p(UNICORN).alive, d.p(UNICORN).role) == (False, "unicorn")
    assert curses(d.finish()) == 4

    state, _ = night(game(), [(*BITE, UNICORN)])  # a wolf is no 亡灵
    assert (alive(state, UNICORN), curses(state)) == ([False], 3)
    state = undead(WOLVES[0])(game())  # a 活尸 keeps 撕咬 (伪装) and is an 亡灵
    state, _ = night(state, [(*BITE, UNICORN)])
    assert (alive(state, UNICORN), curses(state)) == ([False], 4)


def test_spirit_a_wraith_born_adds_a_curse() -> None:
    """灵能：恶灵诞生时，亡灵圣物的诅咒次数+1 (德鲁伊[恶灵])."""
    d = open_draft(game(), rng())
    flip(d, DRUID, "测试")
    flip(d, ELVES[1], "测试")  # a 腐尸 is no 恶灵
    assert curses(d.finish()) == 4


def test_baptism_learns_the_count_then_flips_an_undead_back_without_skills() -> None:
    """净化洗礼：<限定> 得知场上亡灵数量，然后选择一名角色。如果是亡灵，此角色翻转身份，然后失去
    所有技能."""
    state = undead(ELVES[1], WOLVES[1])(game())
    state, events = night(state, [(UNICORN, "baptism", ()), (UNICORN, "baptism", ELVES[1])])
    assert told(events, UNICORN) == ["【净化洗礼】：场上亡灵数量为2。"]
    p = state.players[ELVES[1]]
    assert (p.role, p.faction, p.skills) == ("elf", "elf", ())
    state, _ = night_open(state, rng(), close_at(state))
    with pytest.raises(SkillUsedUp):
        act(state, (UNICORN, "baptism", WOLVES[1]), close_at(state) + MIN)


def test_cover_makes_what_aims_at_the_role_aim_at_the_golem_from_then_on() -> None:
    """援护：<限定> 选择一种身份，即刻起当晚所有指向此身份的技能均视为指向魔像."""
    picks = [(RANGER_A, "heart_arrow", ELVES[1]), (GOLEM, "cover", (), "elf"), (*BITE, X)]
    state, _ = night(game(relic=False), picks)  # (a golem holding the relic would resonate)
    # the arrow came before the 援护 and stands; the bite after it hits the golem
    assert alive(state, ELVES[1], X, GOLEM) == [False, True, False]
    assert state.players[GOLEM].used["cover"] == 1


def test_forest_seer_answers_elf_undead_or_other() -> None:
    """森林先知：反馈【精灵阵营】，或【亡灵阵营】，或【其他阵营】."""
    cases = [(X, "精灵阵营"), (ELVES[1], "亡灵阵营"), (GENIE, "其他阵营")]
    for target, word in cases:
        _, events = night(undead(ELVES[1])(game()), [(DRUID, "forest_seer", target)])
        assert told(events, DRUID) == [f"【森林先知】：P{target}——【{word}】。"]


def test_nine_stars_counts_each_undead_it_puts_out() -> None:
    """九星金光咒：此技能每造成一名亡灵出局，驱魔人判胜条件所需存活人数+2 (the count)."""
    state, _ = night(undead(ELVES[1])(game()), [(EXORCIST, "nine_stars", ELVES[1])])
    assert (alive(state, ELVES[1]), state.flags.get("cn_nine_star_undead")) == ([False], 1)
    state, _ = night(game(), [(EXORCIST, "nine_stars", X)])
    assert (alive(state, X), state.flags.get("cn_nine_star_undead")) == ([False], None)


def test_five_dragons_joins_the_first_faction_wholly_out() -> None:
    """五龙分威术：首次有非亡灵阵营全部出局后，驱魔人加入该阵营 (RULINGS 096-12)."""
    d = open_draft(game(), rng())
    eliminate(d, GOLEM, "测试", night=False)
    eliminate(d, WIZARD, "测试", night=False)
    assert d.p(EXORCIST).faction == "neutral"
    flip(d, GENIE, "测试")  # the last of 高塔 leaves it by a flip
    assert d.p(EXORCIST).faction == "tower"
    for m in (MEDUSA, DRAGON, *WOLVES, 19):
        eliminate(d, m, "测试", night=False)
    assert d.p(EXORCIST).faction == "tower"  # the first such faction only


def _voted_out(pid: int) -> Setup:
    return lambda s: edit(s, lambda d: eliminate(d, pid, CAUSE_VOTE, night=False), close_at(s))


def test_corrupt_a_voted_out_corpse_flips_a_living_one() -> None:
    """腐化：当腐尸因投票出局时，选择一名角色，若该角色属于生灵，翻转其身份."""
    state = _voted_out(ELVES[1])(undead(ELVES[1])(game()))
    assert [w["skill"] for w in state.windows] == ["corrupt"]
    state, _ = act(state, (ELVES[1], "corrupt", X), close_at(state) + 5 * MIN)
    assert (state.players[X].role, state.windows) == ("corpse", ())


def test_ethereal_a_voted_out_wraith_may_show_itself_and_keep_speech_and_vote() -> None:
    """虚体：恶灵因投票出局时，可明示身份。若如此做，其视为出局，但仍保留发言权和投票权."""
    state = _voted_out(DRUID)(undead(DRUID)(game()))
    state, events = act(state, (DRUID, "ethereal", ()), close_at(state) + 5 * MIN)
    p = state.players[DRUID]
    assert (p.alive, p.flags["ethereal"]) == (False, True)
    assert [e.payload["text"] for e in events if e.kind == "ethereal"] == ["P10明示身份：恶灵。"]


def test_every_event_a_player_sees_has_a_sentence() -> None:
    state = undead(NECRO, ELVES[1])(game())
    picks = [
        (GENIE, "wish", X),
        (ELVES[2], "bless", UNICORN),
        (DRUID, "forest_seer", ELVES[1]),
        (UNICORN, "baptism", ELVES[1]),
        (GOLEM, "cover", (), "dryad"),
        (*BITE, X),
    ]
    _, events = night(
        state, picks, choices=[(X, "wish_effect", (2,), "2")], late=[(NECRO, "summon", X)]
    )
    seen = [e for e in events if e.audience.kind != "directors"]
    kinds = {(e.kind, e.audience.character) for e in seen}
    assert {("window_open", X), ("sense", NECRO), ("feedback", DRUID)} <= kinds
    assert [e.kind for e in seen if player_text_missing("werewolf", e.kind, e.payload)] == []
    # flips are never announced (RULINGS 096-16)
    assert [e for e in seen if e.audience.kind == "public" and e.kind == "flipped"] == []


def test_wish_effect_three_from_the_genie_is_a_relic_move_with_its_curse() -> None:
    """许愿 effect 3 naming the 灯神 who holds the relic: 当圣物从灯神转移至其他角色时，立即执行一次
    诅咒和认主判定 (全知) — the new holder, a 精灵, is cursed at once and flips; 认主's count of
    full nights starts again."""
    relic: dict[str, Any] = {
        "holder": GENIE,
        "curses": 3,
        "nights": 1,
        "bonded": None,
        "tracked": [],
        "owned": [],
    }
    state = edit(game(), lambda d: d.set_flag("relic", relic))
    choices = [(X, "wish_effect", (GENIE,), "3")]
    after, _ = night(state, [(GENIE, "wish", X)], choices=choices)
    assert after.flags["relic"]["holder"] == X
    assert after.players[X].role == "corpse"  # the curse of 全知's move
    assert after.flags["relic"]["curses"] == 2
