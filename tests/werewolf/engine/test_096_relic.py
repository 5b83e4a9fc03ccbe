"""[096] 名侦探柯南: the 亡灵圣物 (藏匿, 诅咒 and its immunities, 认主, 追踪, 七轮感应法, 灾厄,
馈赠, 戈尔贡之血, 龙息, 共鸣, 无限魔力, 全知, the 高塔 notice) — each test a line of the rule post,
with the post's numbers (诅咒次数 3, 认主 after 两个完整的夜晚). Seats as in ``support_096``."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from games.engine.events import GameEvent
from werewolf.engine import Forgo, apply_action, night_open
from werewolf.engine.conan_relic import _infinite_mana, move
from werewolf.engine.draft import open_draft
from werewolf.engine.state import GameState

from .support import DAY, MIN, rng
from .support_061 import submit as act
from .support_096 import (
    DRAGON,
    ELVES,
    EXORCIST,
    GENIE,
    GOLEM,
    MEDUSA,
    WIZARD,
    WOLF_KING,
    WOLVES,
    alive,
    close_at,
    cooldown,
    game,
    play,
    vote,
)

E1, E2, E3 = ELVES[0], ELVES[1], ELVES[2]
PACK = (*WOLVES, WOLF_KING)


def holding(
    state: GameState, holder: int, *, sheriff: int | None = None, **relic: Any
) -> GameState:
    """The relic with ``holder`` (藏匿 done), 诅咒次数 3 unless given."""
    d = open_draft(state, rng())
    base: dict[str, Any] = {
        "holder": holder,
        "curses": 3,
        "nights": 0,
        "bonded": None,
        "tracked": [],
        "owned": [],
    }
    d.set_flag("relic", {**base, **relic})
    if sheriff is not None:
        d.sheriff = sheriff
    return d.finish()


def texts(events: Sequence[GameEvent], pid: int, kind: str = "relic") -> list[str]:
    return [
        str(e.payload.get("text"))
        for e in events
        if e.kind == kind and e.audience.kind == "character" and e.audience.character == pid
    ]


def holder(state: GameState) -> int:
    return int(state.flags["relic"]["holder"])


def curses(state: GameState) -> int:
    return int(state.flags["relic"]["curses"])


def opened(state: GameState) -> float:
    """The moment the state's day opened (``support_096.play`` publishes at 关门 + 3 h)."""
    return close_at(state) - DAY + 3 * 3600


# --- 藏匿 -----------------------------------------------------------------------------------------


def test_hide_gives_the_relic_at_night_ones_open_and_its_recipient_is_not_told() -> None:
    """藏匿：第一日游戏夜晚之前，所有狼人选择一名群外角色，令该角色获得亡灵圣物 (RULINGS 15)."""
    state, events = play(game(), day_picks=[(WOLVES[1], "hide", GOLEM)])
    assert holder(state) == GOLEM
    assert not any("圣物" in t for t in texts(events, GOLEM)[:-1])  # only the 高塔 notice, below
    assert texts(events, GOLEM) == ["你持有亡灵圣物，<圣物>技能【共鸣】生效。"]


def test_a_missed_hide_is_drawn_from_the_seed_outside_the_pack() -> None:
    state, _ = play(game())
    pool = sorted(p for p in state.players if p not in PACK)
    assert holder(state) == random.Random(0).choice(pool)
    assert holder(state) not in PACK


# --- 诅咒 -----------------------------------------------------------------------------------------

# 诅咒：若持有者不属于亡灵阵营，减少一次诅咒次数，翻转其身份；诅咒次数为0时不再生效 — and a
# curse on an immune holder does nothing and keeps the count (RULINGS 11).
CURSE = [
    # (the holder, 神眷者, curses before, role after night 1, curses after)
    (E1, None, 3, "corpse", 2),  # 精灵 → 腐尸
    (E1, None, 1, "corpse", 0),
    (E1, None, 0, "elf", 0),  # 诅咒次数为0时不再生效
    (E1, E1, 3, "elf", 3),  # 神恩：神眷者免疫诅咒
    (GOLEM, None, 3, "golem", 3),  # 共鸣：免疫诅咒
    (WIZARD, None, 3, "necromancer", 2),  # 无限魔力 immune, but no 变羊 made: cursed (below)
    (GENIE, None, 3, "genie", 3),  # 全知：免疫诅咒
    (DRAGON, None, 3, "black_dragon", 3),  # 龙鳞：免疫一次诅咒
    (MEDUSA, None, 3, "corpse", 2),
]


@pytest.mark.parametrize(("pid", "sheriff", "before", "role", "after"), CURSE)
def test_the_curse_at_the_nights_open(
    pid: int, sheriff: int | None, before: int, role: str, after: int
) -> None:
    state, _ = play(holding(game(), pid, sheriff=sheriff, curses=before))
    assert (state.players[pid].role, curses(state)) == (role, after)


def test_an_undead_holder_is_not_cursed() -> None:
    state, _ = play(holding(game(), E1))
    assert state.players[E1].role == "corpse"
    state, _ = play(state)  # 持有者属于亡灵阵营: nothing
    assert (state.players[E1].role, curses(state)) == ("corpse", 2)


def test_dragon_scales_stop_one_curse_then_cool_a_day() -> None:
    """龙鳞：<被动><冷却：1> 免疫一次诅咒: triggered at night 1's open, it does not recover at
    that night's end, so night 2's curse flips the 黑龙."""
    state, _ = play(holding(game(), DRAGON))
    assert (state.players[DRAGON].role, cooldown(state, DRAGON, "scales")) == ("black_dragon", 1)
    state, _ = play(state)
    assert (state.players[DRAGON].role, curses(state)) == ("ghost_dragon", 2)


# --- 认主 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pid", "sheriff", "winner"),
    [
        (GOLEM, None, "tower"),  # 高塔阵营胜：亡灵圣物认主高塔阵营角色
        (MEDUSA, MEDUSA, "dungeon"),  # 地下城阵营胜：亡灵圣物认主地下城阵营角色
        (E1, E1, None),  # another's 认主 is a notice only (RULINGS 2)
    ],
)
def test_two_full_nights_held_by_a_living_identity_bond_the_relic(
    pid: int, sheriff: int | None, winner: str | None
) -> None:
    """认主：以人类身份持有[亡灵圣物]连续度过两个完整的夜晚时，将得到导演通知."""
    state, _ = play(holding(game(), pid, sheriff=sheriff))
    assert state.winner is None
    state, events = play(state)
    assert any("认你为主" in t for t in texts(events, pid))
    assert state.winner == winner
    assert state.flags["relic"]["bonded"] == (pid if winner else None)


def test_a_night_begun_without_the_relic_does_not_count() -> None:
    """连续度过两个完整的夜晚: the relic given by day counts from the next night's open only."""
    state, _ = play(holding(game(), GOLEM, nights=1))
    assert state.winner == "tower"
    d = open_draft(holding(game(), E1, sheriff=E1, nights=1), rng())
    move(d, GOLEM, "测试")  # moved by day: the count starts again
    state, _ = play(d.finish())
    assert state.winner is None
    assert state.flags["relic"]["nights"] == 1


# --- 追踪, 七轮感应法, the 高塔 notice ------------------------------------------------------------


def test_tracking_tells_the_pack_the_holders_character_once() -> None:
    """追踪：白天开始时，若亡灵圣物的持有者不在狼人群内且未曾被追踪反馈，反馈当前亡灵圣物持有者的角色
    (角色: the character, not its 身份)."""
    state, events = play(holding(game(), E1, sheriff=E1))
    for w in PACK:
        assert texts(events, w) == ["【追踪】亡灵圣物的持有者是P1。"]
    state, events = play(state)
    assert texts(events, WOLVES[0]) == []


def test_tracking_says_nothing_of_a_holder_inside_the_pack() -> None:
    state, events = play(holding(game(), WOLVES[0]))
    assert all("追踪" not in t for w in PACK for t in texts(events, w))
    d = open_draft(state, rng())
    move(d, E1, "测试")
    d.sheriff = E1
    _, events = play(d.finish())  # out of the pack now: told
    assert texts(events, WOLVES[1]) == ["【追踪】亡灵圣物的持有者是P1。"]


ALL = list(range(1, 23))


@pytest.mark.parametrize(
    ("order", "out", "held_by", "way"),
    [
        ([EXORCIST, *ALL[:-1]], (), 5, "正向"),  # one down the list
        ([5, EXORCIST, *[i for i in ALL[:-1] if i != 5]], (), 5, "逆向"),  # one up
        ([EXORCIST, *ALL[:-1]], (), 11, "正向"),  # 11 either way: a tie is 正向
        ([EXORCIST, *ALL[:-1]], (), 12, "逆向"),  # 12 down, 10 up
        ([EXORCIST, *ALL[:-1]], (1, 2), 12, "正向"),  # those out skipped: 10 and 10
    ],
)
def test_seven_wheels_tells_the_way_round_the_elevator(
    order: list[int], out: tuple[int, ...], held_by: int, way: str
) -> None:
    """七轮感应法：夜晚开始时，反馈圣物持有者的位置，在【正向】或者【逆向】（由电梯楼最近距离决定）."""
    d = open_draft(holding(game(), held_by, sheriff=held_by), rng())
    d.set_flag("elevator", order)
    for pid in out:
        d.wp(pid).alive = False
    state = d.finish()
    _, events = night_open(state, rng(), close_at(state))
    assert texts(events, EXORCIST) == [f"【七轮感应法】亡灵圣物持有者的位置在【{way}】。"]


# --- 灾厄, 馈赠 -----------------------------------------------------------------------------------


def test_calamity_lets_an_undead_holder_pass_it_or_keep_it() -> None:
    """灾厄：夜晚结束时，若持有者属于亡灵阵营，其得知存活角色名单并可以将圣物转交给任意一名角色."""
    state, events = play(holding(game(), E1))  # cursed at the open: a 腐尸 at the end
    assert texts(events, E1)[0].startswith("【灾厄】你持有亡灵圣物。存活角色：P1、P2")
    state, _ = act(state, (E1, "calamity", E2), opened(state) + MIN)
    assert holder(state) == E2
    state, events = play(holding(game(), E1))
    state, _ = play(state)  # not passed: kept (and asked again)
    assert holder(state) == E1


def _day_two(holder_id: int, **kw: Any) -> GameState:
    state, _ = play(holding(game(), holder_id, **kw))
    return state


def test_gift_the_holder_voted_out_names_the_next_who_is_not_told() -> None:
    """馈赠：[亡灵圣物]的持有者出局时，选择一名角色转交亡灵圣物."""
    state = _day_two(E1)
    state, _ = vote(state, [(E2, E1), (E3, E1)])
    assert alive(state, E1) == [False]
    state, events = act(state, (E1, "gift", GOLEM), close_at(state))
    assert holder(state) == GOLEM
    assert texts(events, GOLEM) == []


def test_a_gift_not_chosen_by_the_next_days_open_is_drawn_from_the_seed() -> None:
    state = _day_two(E1)
    state, _ = vote(state, [(E2, E1)])
    state, _ = play(state)
    assert holder(state) != E1
    assert state.players[holder(state)].alive


def test_a_forgone_gift_is_drawn_at_once() -> None:
    state = _day_two(E1)
    state, _ = vote(state, [(E2, E1)])
    state, _ = apply_action(state, Forgo(actor=E1, skill="gift"), rng(), close_at(state))
    assert holder(state) != E1


@pytest.mark.parametrize(("on", "to_medusa"), [(True, True), (False, False)])
def test_gorgon_blood_takes_the_relic_of_the_one_she_voted_out(on: bool, to_medusa: bool) -> None:
    """戈尔贡之血：<开关> 美杜莎的投票对象被投票出局时，其持有的亡灵圣物转移给美杜莎；以此法获得
    亡灵圣物时，将得到导演通知."""
    state = _day_two(E1)
    state, _ = act(
        state, (MEDUSA, "gorgon_blood", (), "on" if on else "off"), close_at(state) - DAY
    )
    state, events = vote(state, [(MEDUSA, E1), (E2, E1)])
    assert (holder(state) == MEDUSA) is to_medusa
    told = texts(events, MEDUSA)
    assert told == (
        ["【戈尔贡之血】你的投票对象P1被投票出局，其持有的亡灵圣物转移给你。"] if on else []
    )


@pytest.mark.parametrize(
    ("picks", "to_dragon"),
    [
        ([(DRAGON, "breath", (E1,))], True),  # 龙息 twice on one
        ([(WOLVES[0], "bite", E1), (DRAGON, "breath", (E1, E2))], False),  # the bite came first
    ],
)
def test_dragon_breath_takes_the_relic_of_the_one_it_puts_out(
    picks: list[Any], to_dragon: bool
) -> None:
    """龙息：因此技能出局的角色所持有的亡灵圣物转移给黑龙；以此法获得亡灵圣物时，将得到通知."""
    state, events = play(holding(game(), E1, sheriff=E1), picks)
    assert alive(state, E1) == [False]
    assert (holder(state) == DRAGON) is to_dragon
    notice = "【龙息】P1因龙息出局，其持有的亡灵圣物转移给你。"
    assert (notice in texts(events, DRAGON)) is to_dragon


# --- 共鸣, 无限魔力, 全知 ------------------------------------------------------------------------


def test_resonance_voids_the_golems_out_and_its_pass_curses_at_once() -> None:
    """共鸣：魔像即将受到伤害出局时，魔像必须将圣物转交给一名其他角色，并免疫此次伤害；因此效果
    转移的圣物立即执行一次诅咒."""
    state, events = play(holding(game(), GOLEM), [(WOLVES[0], "bite", GOLEM)])
    assert alive(state, GOLEM) == [True]
    assert "【共鸣】你免疫了此次伤害，必须将亡灵圣物转交给一名其他角色。" in texts(events, GOLEM)
    state, _ = act(state, (GOLEM, "resonance_pass", E1), opened(state) + MIN)
    assert (holder(state), state.players[E1].role, curses(state)) == (E1, "corpse", 2)


def test_resonance_holds_once_a_night() -> None:
    """The bite is void (共鸣), the first breath puts the 魔像 out: its relic goes to the 黑龙."""
    picks = [(WOLVES[0], "bite", GOLEM), (DRAGON, "breath", (GOLEM,))]
    state, _ = play(holding(game(), GOLEM), picks)
    assert alive(state, GOLEM) == [False]
    assert holder(state) == DRAGON
    trace = state.flags["history"][-1]["trace"]
    damage = [line for line in trace if line["step"].endswith("次伤害")]
    assert sum("【共鸣】" in line["text"] for line in damage) == 1


def test_an_unchosen_resonance_pass_is_drawn_at_the_next_days_open() -> None:
    state, _ = play(holding(game(), GOLEM), [(WOLVES[0], "bite", GOLEM)])
    state, _ = play(state)
    assert holder(state) != GOLEM


@pytest.mark.parametrize(("new_sheep", "role"), [(False, "necromancer"), (True, "wizard")])
def test_infinite_mana_curses_the_wizard_who_makes_no_new_sheep(new_sheep: bool, role: str) -> None:
    """无限魔力：每晚必须发动变羊术，未成功发动时（没有产生新的变羊状态角色），圣物对巫师执行一次
    无视免疫的诅咒."""
    d = open_draft(holding(game(), WIZARD, open=WIZARD), rng())
    d.set_night(cn_sheep_open=[])
    if new_sheep:
        d.wp(E1).statuses["sheep"] = 99
    _infinite_mana(d)
    assert d.p(WIZARD).role == role


def test_omniscience_tells_the_genie_the_wished_ones_role() -> None:
    """全知：获知许愿角色的身份及当夜该角色所有的反馈信息."""
    _, events = play(holding(game(), GENIE), [(GENIE, "wish", MEDUSA)])
    assert any(t.startswith("【全知】许愿角色P20的身份是美杜莎") for t in texts(events, GENIE))


def test_the_relic_leaving_the_genie_curses_at_once() -> None:
    """全知：当圣物从灯神转移至其他角色时，立即执行一次诅咒和认主判定."""
    d = open_draft(holding(game(), GENIE), rng())
    move(d, E1, "测试")
    assert (d.p(E1).role, d.flags["relic"]["curses"]) == ("corpse", 2)
