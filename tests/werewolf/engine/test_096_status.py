"""[096] 名侦探柯南: the statuses (束缚, 变羊, 石化), 咒术's chain, 龙鳞 and the day vote's weights
and ties — each test a line of the rule post or of RULINGS 096 (seats as in ``support_096``)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest

from games.engine.events import PUBLIC, GameEvent, to_character
from werewolf.engine import deadline_pass, tally
from werewolf.engine.conan import flip
from werewolf.engine.conan_status import FOREVER
from werewolf.engine.draft import Draft, open_draft
from werewolf.engine.errors import InvalidTarget, RepeatTarget
from werewolf.engine.state import GameState

from .support import MIN, rng
from .support_061 import submit as act
from .support_096 import (
    DRAGON,
    DRYAD,
    ELVES,
    EXORCIST,
    GOLEM,
    MEDUSA,
    RANGER_A,
    RANGER_B,
    WIZARD,
    WOLF_KING,
    WOLVES,
    alive,
    close_at,
    cooldown,
    play,
    vote,
)
from .support_096 import game as dealt

E1, E2, E3, E4, E5 = ELVES[:5]


def game() -> GameState:
    """Day 1 with the 亡灵圣物 out of play: no rule here involves it, and its curses (a drawn
    藏匿 flipping its holder each night) would change these nights."""
    return dealt(relic=False)


def changed(state: GameState, edit: Callable[[Draft], None]) -> GameState:
    d = open_draft(state, rng())
    edit(d)
    return d.finish()


def awake(state: GameState) -> GameState:
    """变羊术 <觉醒>: unlocked (高塔阵营最后一人)."""
    return changed(state, lambda d: d.wp(WIZARD).flags.__setitem__("awakened", True))


def chosen(state: GameState, pid: int) -> GameState:
    def edit(d: Draft) -> None:
        d.sheriff = pid

    return changed(state, edit)


def public(events: list[GameEvent]) -> list[str]:
    return [
        str(e.payload.get("text")) for e in events if e.audience == PUBLIC and "text" in e.payload
    ]


def told(events: list[GameEvent], pid: int, kind: str = "status") -> list[str]:
    return [
        str(e.payload["text"]) for e in events if e.audience == to_character(pid) and e.kind == kind
    ]


def statuses(state: GameState, pid: int) -> dict[str, int]:
    return dict(state.players[pid].statuses)


# --- 缠绕 / 束缚 ------------------------------------------------------------------------------


def test_bound_at_once_its_skills_must_name_the_dryad() -> None:
    """缠绕：选择一名角色进入束缚状态 …（处于束缚状态的角色，主动技能目标必须包含“树妖”）."""
    state = game()
    at = close_at(state)
    from werewolf.engine import night_open

    state, _ = night_open(state, rng(), at)
    state, events = act(state, (DRYAD, "entangle", MEDUSA), at + MIN)
    assert told(events, MEDUSA)[0].startswith("你进入束缚状态")
    assert public(events) == []  # 束缚 is never announced (RULINGS 16)
    with pytest.raises(InvalidTarget):
        act(state, (MEDUSA, "evil_eye", E1), at + 2 * MIN)
    act(state, (MEDUSA, "evil_eye", DRYAD), at + 2 * MIN)


@pytest.mark.parametrize(
    ("picks", "nine_stars_cooldown"),
    [
        # 不发动则进入至少为1的冷却: max(c, 1) for each unused active skill (RULINGS 7)
        ([(DRYAD, "entangle", EXORCIST)], 1),
        # used on the 树妖: the skill's own cooldown (1), no more
        ([(DRYAD, "entangle", EXORCIST), (EXORCIST, "nine_stars", DRYAD)], 2),
        # not bound: nothing
        ([], 0),
    ],
)
def test_bound_penalty_at_the_nights_end(
    picks: list[tuple[int, str, int]], nine_stars_cooldown: int
) -> None:
    state, _ = play(game(), picks)
    assert cooldown(state, EXORCIST, "nine_stars") == nine_stars_cooldown
    assert "bound" not in statuses(state, EXORCIST)  # 持续至当晚结束


def test_entangle_names_each_character_once_a_game() -> None:
    """缠绕：<角色> 对每个角色只能发动一次."""
    state, _ = play(game(), [(DRYAD, "entangle", E1)])
    with pytest.raises(InvalidTarget):
        play(state, [(DRYAD, "entangle", E1)])
    state, _ = play(state, [(DRYAD, "entangle", E2)])
    assert state.phase == "day"


# --- 变羊 ---------------------------------------------------------------------------------------


def test_a_sheep_votes_and_skills_are_void_against_the_wizard_and_it_is_told_privately() -> None:
    """变羊术：进入变羊状态的角色，投票和技能均对巫师无效 (never announced, RULINGS 16)."""
    state = awake(game())
    state, events = play(state, [(WIZARD, "sheep", WOLVES[0])])
    assert statuses(state, WOLVES[0])["sheep"] == FOREVER  # until the game ends
    assert told(events, WOLVES[0]) == [
        "你进入变羊状态：投票和技能均对巫师无效，且每次发言必须有“咩”字。"
    ]
    assert not any("羊" in t for t in public(events))
    assert tally(state, {WOLVES[0]: WIZARD, E1: WIZARD, WOLVES[1]: E2}) == {WIZARD: 1, E2: 1}
    assert tally(state, {WOLVES[0]: E2}) == {E2: 1}  # against anyone else it counts
    state, _ = vote(state, [])
    state, _ = play(state, [(WOLVES[0], "bite", WIZARD)])
    assert alive(state, WIZARD) == [True]
    state, _ = vote(state, [])
    state, _ = play(state, [(RANGER_A, "heart_arrow", WIZARD)])  # not a sheep: it lands
    assert alive(state, WIZARD) == [False]


def test_the_wizards_flip_frees_every_sheep() -> None:
    """RULINGS 9: 变羊 lasts until the game ends, unless the 巫师 flips."""
    state, _ = play(awake(game()), [(WIZARD, "sheep", E1)])
    d = open_draft(state, rng())
    flip(d, WIZARD, "测试")
    assert "sheep" not in d.p(E1).statuses
    assert [e.payload["text"] for e in d.events if e.kind == "status"] == ["你的变羊状态已解除。"]


# --- 魔眼 / 石化 ---------------------------------------------------------------------------------


def test_stone_until_the_next_days_end_announced_and_its_votes_void() -> None:
    """魔眼：石化状态，持续至下一日白天结束；仅石化状态会公示；石化的角色投票无效."""
    state, events = play(game(), [(MEDUSA, "evil_eye", E1)])
    assert public(events)[-1] == "P1进入石化状态。"
    assert statuses(state, E1) == {"stone": 2}
    assert tally(state, {E1: E2, E3: E4}) == {E4: 1}
    state, _ = vote(state, [])
    state, _ = play(state, [(MEDUSA, "evil_eye", E2)])
    assert statuses(state, E1) == {}
    assert tally(state, {E1: E3}) == {E3: 1}


def test_stone_never_the_same_character_two_days_running() -> None:
    """此技能对同一角色不会连续两天生效."""
    state, _ = play(game(), [(MEDUSA, "evil_eye", E1)])
    state, _ = vote(state, [])
    with pytest.raises(RepeatTarget):
        play(state, [(MEDUSA, "evil_eye", E1)])


def test_a_stone_chosen_ones_vote_still_counts_one_and_a_half() -> None:
    """神恩：神眷者的投票视为1.5票，投票效力不受异常状态影响."""
    state, _ = play(chosen(game(), E1), [(MEDUSA, "evil_eye", E1)])
    assert tally(state, {E1: E2}) == {E2: Fraction(3, 2)}


# --- 咒术 ---------------------------------------------------------------------------------------


def test_hex_copies_a_damage_to_the_partner_and_not_back() -> None:
    """咒术：当晚其中一名角色受到的伤害 … 会额外传递给另一名角色; a copy is not copied back
    (RULINGS 8): the 魔像 with 2 HP takes one damage, its partner the copy."""
    state = changed(game(), lambda d: d.wp(GOLEM).counters.__setitem__("hp", 2))
    state, _ = play(state, [(WIZARD, "hex", (GOLEM, E1)), (WOLVES[0], "bite", GOLEM)])
    assert alive(state, GOLEM, E1) == [True, False]


def test_hex_copies_a_status_and_the_copy_is_announced() -> None:
    """… 或异常状态（变羊，束缚，石化）."""
    state, events = play(game(), [(WIZARD, "hex", (E1, E2)), (MEDUSA, "evil_eye", E1)])
    assert statuses(state, E2) == {"stone": 2}
    assert public(events)[-2:] == ["P1进入石化状态。", "P2进入石化状态。"]


def test_hex_copies_binding_even_when_chained_after_it() -> None:
    """当晚: the chain covers the night's 束缚 whichever was submitted first."""
    from werewolf.engine import night_open

    state = game()
    at = close_at(state)
    state, _ = night_open(state, rng(), at)
    state, _ = act(state, (DRYAD, "entangle", E1), at + MIN)
    state, events = act(state, (WIZARD, "hex", (E1, MEDUSA)), at + 2 * MIN)
    assert told(events, MEDUSA)[0].startswith("你进入束缚状态")
    with pytest.raises(InvalidTarget):
        act(state, (MEDUSA, "evil_eye", E2), at + 3 * MIN)


# --- 龙鳞 ---------------------------------------------------------------------------------------


def test_scales_take_one_damage_then_cool_for_a_day() -> None:
    """龙鳞：<被动><冷却：1> 免疫一次伤害: the second that night lands; cooling the next night."""
    state, _ = play(game(), [(RANGER_A, "heart_arrow", DRAGON)])
    assert alive(state, DRAGON) == [True]
    assert cooldown(state, DRAGON, "scales") == 1
    state, _ = vote(state, [])
    state, _ = play(state, [(RANGER_B, "heart_arrow", DRAGON)])
    assert alive(state, DRAGON) == [False]


def test_scales_take_only_the_first_damage_of_a_night() -> None:
    state, _ = play(game(), [(RANGER_A, "heart_arrow", DRAGON), (WOLVES[0], "bite", DRAGON)])
    assert alive(state, DRAGON) == [False]


def test_scales_take_a_status() -> None:
    """… /异常状态: no 石化, nothing announced, then cooling."""
    state, events = play(game(), [(MEDUSA, "evil_eye", DRAGON)])
    assert statuses(state, DRAGON) == {}
    assert public(events)[-1:] != ["P21进入石化状态。"]
    assert cooldown(state, DRAGON, "scales") == 1


def test_scales_take_a_vote_out_and_the_tally_names_no_skill() -> None:
    """… /投票出局: RULINGS 14: the tally is published with 无人出局, no skill named."""
    state, _ = play(game())
    state, events = vote(state, [(E1, DRAGON), (E2, DRAGON), (E3, E4)])
    assert state.players[DRAGON].alive
    assert public(events) == ["无人出局。"]
    assert cooldown(state, DRAGON, "scales") == 1


# --- the day vote -------------------------------------------------------------------------------


def test_day_one_elects_day_two_puts_the_top_out() -> None:
    """第一天 … 选出神眷; 第二天及以后的白天，获得投票最多的的角色将即刻公示出局."""
    state, _ = vote(game(), [(E1, E2), (E3, E2)])
    assert alive(state, E2) == [True]
    state, _ = play(state)
    state, _ = vote(state, [(E1, E2), (E3, E2), (E4, E5)])
    assert alive(state, E2, E5) == [False, True]


@pytest.mark.parametrize(
    ("ballots", "out"),
    [
        # E2 reaches 2 with the third ballot, E4 with the fourth
        ([(E1, E2), (E3, E4), (E5, E2), (ELVES[5], E4)], E2),
        ([(E1, E4), (E3, E2), (E5, E4), (ELVES[5], E2)], E4),
        # a stone voter's ballot counts for nobody: E4's last counted ballot is the earlier
        ([(E3, E4), (E1, E2), (E5, E4), (ELVES[5], E2), (DRYAD, E2)], E4),
    ],
)
def test_a_tie_goes_to_whoever_reached_the_top_first(
    ballots: list[tuple[int, int]], out: int
) -> None:
    """RULINGS 14: a tie from day 2 goes to whoever reached the top first, as on day 1."""
    state, _ = play(game(), [(MEDUSA, "evil_eye", DRYAD)])
    state, _ = vote(state, ballots)
    assert [p for p in (E2, E4) if not state.players[p].alive] == [out]


@pytest.mark.parametrize(
    ("toggles", "sheriff", "weights"),
    [
        ([], None, {DRAGON: 1, WOLF_KING: 1}),
        # 龙威：黑龙的投票视为3票 — whoever holds it, the 神眷者 included (RULINGS 14)
        ([(DRAGON, "majesty")], None, {DRAGON: 3, WOLF_KING: 1}),
        ([(DRAGON, "majesty")], DRAGON, {DRAGON: 3, WOLF_KING: 1}),
        # 咆哮：每名已出局的狼群内角色使得狼王投票计数+1 (two out); 1.5 + n for the 神眷者
        ([(WOLF_KING, "roar")], None, {DRAGON: 1, WOLF_KING: 3}),
        ([(WOLF_KING, "roar")], WOLF_KING, {DRAGON: 1, WOLF_KING: Fraction(7, 2)}),
        # a toggle is off by default (<开关> 默认关闭)
        ([], WOLF_KING, {DRAGON: 1, WOLF_KING: Fraction(3, 2)}),
    ],
)
def test_vote_weights(
    toggles: list[tuple[int, str]], sheriff: int | None, weights: dict[int, Fraction]
) -> None:
    state = game()

    def two_wolves_out(d: Draft) -> None:
        d.wp(WOLVES[0]).alive = False
        d.wp(WOLVES[1]).alive = False
        d.sheriff = sheriff

    state = changed(state, two_wolves_out)
    for pid, skill in toggles:
        state, _ = act(state, (pid, skill, (), "on"), close_at(state) - 30 * MIN)
    got = {pid: tally(state, {pid: E1})[E1] for pid in (DRAGON, WOLF_KING)}
    assert got == weights


# --- 蛇发诅咒 ------------------------------------------------------------------------------------


def test_medusa_voted_out_stones_one_for_good_announced() -> None:
    """蛇发诅咒：美杜莎出局时，令一名角色永久进入石化状态并公示."""
    state, _ = play(game())
    state, _ = vote(state, [(E1, MEDUSA)])
    assert [w["skill"] for w in state.windows] == ["snake_curse"]
    state, events = act(state, (MEDUSA, "snake_curse", E3), close_at(state) - 30 * MIN)
    assert public(events) == ["P3永久进入石化状态。"]
    assert statuses(state, E3) == {"stone": FOREVER}
    assert tally(state, {E3: E4}) == {}


def test_snake_curse_not_chosen_in_time_is_drawn_from_the_seed() -> None:
    state, _ = play(game())
    state, _ = vote(state, [(E1, MEDUSA)])
    state, events = deadline_pass(state, rng(), close_at(state) + 3600)
    stoned = [p for p, q in state.players.items() if q.statuses.get("stone") == FOREVER]
    assert len(stoned) == 1
    assert public(events) == [f"P{stoned[0]}永久进入石化状态。"]
