"""[061] 林峰's night: the steps' skills in the post's words, and 每次指杀依次结算 (救治 → 警惕 →
天罡护体 → 出局). Seats as in ``support_061``; the 幽灵 possesses the 洞察者 and the 人质 chooses
the 吹笛者 unless a test says otherwise."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from games.engine.errors import InvalidInput
from werewolf.engine.errors import InvalidTarget, RepeatTarget
from werewolf.engine.state import GameState

from .support import edit, outs
from .support_061 import (
    AMBITIOUS,
    ANGEL,
    FOX,
    GHOST,
    HOSTAGE,
    HUNTER,
    JUDGE,
    KEEPER,
    KING,
    MINE,
    PILLAR,
    PIPER,
    POISONER,
    PSYCHIC,
    QUEEN,
    RANGER,
    SEER,
    SHADOW,
    TREASURE,
    Pick,
    alive,
    faction,
    game,
    play,
    submit,
    vote,
    window,
    windows,
)


def day1(**kw: Any) -> GameState:
    return game(possess=kw.pop("possess", SEER), hostage=kw.pop("hostage", PIPER), **kw)


def feedback(state: GameState, pid: int, kind: str) -> list[str]:
    return [f["text"] for f in state.players[pid].flags.get("feedback", []) if f["kind"] == kind]


def public(events: list[Any], kind: str) -> list[str]:
    return [
        e.payload.get("text", "") for e in events if e.kind == kind and e.audience.kind == "public"
    ]


CURE = {"skills": ("purgatory", "zhen", "cure")}


@pytest.mark.parametrize(
    ("rule", "setup", "picks", "expected"),
    [
        ("<杀人>：游戏日夜晚，可以指杀一名角色。", {}, [(QUEEN, "kill", 13)], [(13, "杀人")]),
        ("被指杀的角色是<救治>的目标，指杀无效", {POISONER: CURE},
         [(POISONER, "cure", 13), (QUEEN, "kill", 13)], []),
        ("<警惕>（强制）：当你受到第一次有效指杀时，不会出局。", {}, [(QUEEN, "kill", FOX)], []),
        ("警惕 covers the first effective kill only: a second one that night lands",
         {POISONER: {"skills": ("purgatory", "zhen", "poison_kill")}},
         [(POISONER, "poison_kill", FOX), (QUEEN, "kill", FOX)],
         [(FOX, "杀人"), (PSYCHIC, "早夭")]),
        ("救治 comes before 警惕: a voided kill does not spend 警惕", {POISONER: CURE},
         [(POISONER, "cure", FOX), (QUEEN, "kill", FOX)], []),
        ("<天罡护体>：游戏日前两日，游侠不会因为指杀…而出局", {}, [(QUEEN, "kill", RANGER)], []),
        ("<守护>（限定）：该角色在当晚…不会因为任何原因出局", {},
         [(RANGER, "guard", 13), (QUEEN, "kill", 13)], []),
        ("若该角色没有成为指杀目标，累计一次空救 (one: nobody out)", {POISONER: CURE},
         [(POISONER, "cure", 13)], []),
        ("一名角色累计两次空救时立即出局", {POISONER: CURE, 13: {"counters": {"empty_saves": 1}}},
         [(POISONER, "cure", 13)], [(13, "空救")]),
        ("<早夭>（强制）：当妖狐出局时，灵能也立即出局。", {FOX: {"used": {"vigilant": 1}}},
         [(QUEEN, "kill", FOX)], [(FOX, "杀人"), (PSYCHIC, "早夭")]),
        ("<遇难>：当该角色出局时，你也立即出局。", {}, [(QUEEN, "kill", PIPER)],
         [(PIPER, "杀人"), (HOSTAGE, "遇难")]),
        ("<共死>：当地雷出局时，造成地雷出局的玩家立即出局。", {}, [(QUEEN, "kill", MINE)],
         [(MINE, "杀人"), (QUEEN, "共死")]),
        ("two kills on one target: the second is 空", {POISONER: {"skills": ("poison_kill",)}},
         [(POISONER, "poison_kill", 13), (QUEEN, "kill", 13)], [(13, "杀人")]),
    ],
)  # fmt: skip
def test_kills_are_settled_one_by_one(
    rule: str, setup: dict[int, dict[str, Any]], picks: list[Pick], expected: list[tuple[int, str]]
) -> None:
    state = day1()
    for pid, fields in setup.items():
        state = edit(state, pid, **fields)
    state, _ = play(state, picks)
    assert outs(state) == expected, rule


def trace(state: GameState, step_prefix: str = "") -> list[str]:
    """The last night's trace lines for the director, as ``step：text``."""
    lines = state.flags["history"][-1]["trace"]
    return [f"{t['step']}：{t['text']}" for t in lines if t["step"].startswith(step_prefix)]


def test_the_trace_settles_each_kill_line_by_line() -> None:
    """每次指杀依次结算: the director's draft shows each kill's checks in the post's order."""
    state = edit(day1(), POISONER, **CURE)
    state, _ = play(state, [(POISONER, "cure", FOX), (QUEEN, "kill", FOX)])
    assert trace(state, "第") == [
        "第1次指杀：P1指杀P5。",
        "第1次指杀：1. P5是<救治>的目标，指杀无效。",
    ]
    state, _ = play(state, [(QUEEN, "kill", FOX)])
    assert trace(state, "第") == [
        "第1次指杀：P1指杀P5。",
        "第1次指杀：1. P5不是<救治>的目标。",
        "第1次指杀：2. P5发动<警惕>，不出局。",
    ]
    state, _ = play(state, [(QUEEN, "kill", FOX)])
    assert trace(state, "第") == [
        "第1次指杀：P1指杀P5。",
        "第1次指杀：1. P5不是<救治>的目标。",
        "第1次指杀：2. P5没有可发动的<警惕>。",
        "第1次指杀：3. P5不受<天罡护体>。",
        "第1次指杀：4. P5不受<守护>。",
        "第1次指杀：5. 指杀生效，P5出局。",
    ]


def test_the_trace_names_every_submission_in_its_step() -> None:
    state = edit(day1(), POISONER, **CURE)
    state, _ = play(state, [(POISONER, "cure", 13), (RANGER, "verify", 3, "publish")])
    lines = trace(state)
    assert "（5）毒士：选择是否发动<鸩毒>；选择<救治><杀人>：毒士P11发动<救治>：P13。" in lines
    assert "（10）游侠：依次选择<查证>、<磐石>的目标：游侠P10发动<查证>：P3（公示结果）。" in lines
    assert "救治：P13未被指杀，为第1次空救。" in lines


def test_tiangang_holds_only_the_first_two_game_days() -> None:
    state = dataclasses.replace(day1(), day=3)
    state, _ = play(state, [(QUEEN, "kill", RANGER)])
    assert outs(state) == [(RANGER, "杀人")]


def test_vigilant_is_spent_by_the_first_effective_kill() -> None:
    state = day1()
    state, _ = play(state, [(QUEEN, "kill", FOX)])
    assert state.players[FOX].used == {"vigilant": 1}
    state, _ = play(state, [(QUEEN, "kill", FOX)])
    assert (FOX, "杀人") in outs(state)


def test_cure_tells_the_poisoner_whether_its_target_went_out() -> None:
    state = edit(day1(), POISONER, **CURE, counters={"marks": 0})
    state, _ = play(state, [(POISONER, "cure", 13)])
    assert feedback(state, POISONER, "cure") == ["P13没有因<救治>出局。"]


def test_pass_on_gives_a_random_wolf_the_kill_unless_the_ghost_possesses_the_queen() -> None:
    state = edit(day1(), POISONER, skills=("purgatory", "poison_kill"))
    state, events = play(state, [(POISONER, "poison_kill", QUEEN)])
    heirs = [p for p in (KING, HUNTER, JUDGE) if "kill" in state.players[p].skills]
    assert len(heirs) == 1
    assert "pass_on" in state.players[heirs[0]].skills
    # 狼后出局，则狼判官失去<献策>; 此事件发生时会通知狼判官.
    assert "advise" not in state.players[JUDGE].skills
    assert feedback(state, JUDGE, "advise") == ["狼后出局，你失去<献策>。"]
    # 炼狱: every wolf-faction out gives the 毒士 a <炼> mark, and tells it.
    assert state.players[POISONER].counters["marks"] == 1

    possessed = edit(day1(possess=QUEEN), POISONER, skills=("poison_kill",))
    possessed, events = play(possessed, [(POISONER, "poison_kill", QUEEN)])
    # <附身>优先于<传位>: the 幽灵 gets the 狼后's skills, nobody else does.
    assert not any("kill" in possessed.players[p].skills for p in (KING, HUNTER, JUDGE))
    assert {"kill", "pass_on"} <= set(possessed.players[GHOST].skills)
    assert public(events, "possessed") == ["幽灵（P18）已经发动附身技能"]


def test_inherit_the_shadow_takes_the_ambitious_skills_and_its_void_votes() -> None:
    state = day1()
    state, _ = play(state, [(AMBITIOUS, "supreme", 3)])
    assert state.players[AMBITIOUS].flags["void_voters"] == [3]
    state = edit(state, POISONER, skills=("poison_kill",))
    state, events = play(state, [(POISONER, "poison_kill", AMBITIOUS)])
    assert public(events, "barrier") == ["P8出局，结界失效。"]
    assert "supreme" in state.players[SHADOW].skills
    assert state.players[SHADOW].flags["void_voters"] == [3]


@pytest.mark.parametrize(("guess", "told"), [("treasure", "猜测成功"), ("mine", "猜测失败。")])
def test_cunning_guesses_a_role(guess: str, told: str) -> None:
    state, _ = play(day1(), [(FOX, "cunning", 13, guess)])
    assert feedback(state, FOX, "cunning")[0].startswith(told)


def test_cunning_borrows_a_kill_for_the_next_night_that_strikes_before_the_queens() -> None:
    state, _ = play(day1(), [(FOX, "cunning", QUEEN, "wolf_queen")])
    assert state.players[FOX].flags["borrow"]["skills"] == ["kill"]
    # The borrowed kill acts at the 妖狐's step (3), before the 狼后's (9): the mine's 共死
    # takes the first killer.
    state, _ = play(state, [(FOX, "borrowed", MINE, "kill"), (QUEEN, "kill", MINE)])
    assert outs(state) == [(MINE, "杀人"), (FOX, "共死"), (PSYCHIC, "早夭")]


def test_cunning_never_the_same_character_two_nights_running() -> None:
    state, _ = play(day1(), [(FOX, "cunning", 13, "mine")])
    with pytest.raises(RepeatTarget):
        _try(state, (FOX, "cunning", 13, "treasure"))


def _try(state: GameState, pick: Pick) -> GameState:
    from werewolf.engine import night_open

    from .support_061 import close_at, rng

    state, _ = night_open(state, rng(), close_at(state))
    state, _ = submit(state, pick, close_at(state) + 60)
    return state


def test_command_brings_wolves_into_the_pack() -> None:
    state, events = play(day1(), [(KING, "command", (HUNTER, 13))])
    assert state.flags["lf_pack"] == [KING, HUNTER]
    told = {e.audience.character for e in events if e.kind == "team"}
    assert told == {KING, HUNTER}


@pytest.mark.parametrize(
    ("targets", "found"), [((13, 14, 15), "其中存在宝藏。"), ((14, 15, 16), "其中不存在宝藏。")]
)
def test_judge_asks_whether_a_treasure_is_among_three(targets: tuple[int, ...], found: str) -> None:
    state, _ = play(day1(), [(JUDGE, "judge", targets)])
    assert feedback(state, JUDGE, "judge") == [found]
    # 如果反馈为存在宝藏，则狼判官失去此技能。
    assert ("judge" in state.players[JUDGE].skills) == (found == "其中不存在宝藏。")


def test_advise_tells_the_queen() -> None:
    state, _ = play(day1(), [(JUDGE, "advise", (5, 6))])
    assert feedback(state, QUEEN, "advise") == ["狼判官献策：P5、P6。"]


@pytest.mark.parametrize(
    ("target", "group"), [(KING, "狼人阵营"), (MINE, "宝藏阵营"), (FOX, "其他阵营")]
)
def test_verify_tells_wolves_treasure_or_other(target: int, group: str) -> None:
    state, _ = play(day1(), [(RANGER, "verify", target)])
    assert feedback(state, RANGER, "verify") == [f"P{target}属于{group}。"]


def test_verify_may_be_published() -> None:
    _, events = play(day1(), [(RANGER, "verify", KING, "publish")])
    assert public(events, "verify") == ["游侠公示查证结果：P2属于狼人阵营。"]


def test_prophecy_tells_the_faction() -> None:
    state, _ = play(day1(hostage=KING), [(TREASURE, "prophecy", HOSTAGE)])
    assert feedback(state, TREASURE, "prophecy") == ["P19属于狼人阵营。"]


@pytest.mark.parametrize(
    ("words", "ok"),
    [("宝藏在P5", True), ("hello world 你好吗", True), ("一二三四五六七八九十一", False)],
)
def test_whisper_at_most_ten_characters(words: str, ok: bool) -> None:
    if not ok:
        with pytest.raises(InvalidInput):
            _try(day1(), (TREASURE, "whisper", (), words))
        return
    state, _ = play(day1(), [(TREASURE, "whisper", (), words)])
    assert feedback(state, KEEPER, "whisper") == [f"宝藏传音：{words}"]
    assert state.players[TREASURE].used == {"whisper": 1}


def test_pipe_is_published_and_kept() -> None:
    state, events = play(day1(), [(PIPER, "pipe", 5)])
    assert public(events, "pipe") == ["P5进入吹笛状态。"]
    assert "piped" in state.players[5].statuses
    with pytest.raises(InvalidTarget):
        _try(state, (PIPER, "pipe", PIPER))  # 除自己之外


def test_zhen_spends_marks() -> None:
    state = edit(day1(), POISONER, counters={"marks": 3})
    state, _ = play(state, [(POISONER, "zhen", (), "1")])
    assert state.players[POISONER].counters["marks"] == 2
    assert feedback(state, POISONER, "zhen")[0].startswith("场上存活：狼人阵营4人")
    state, _ = play(state, [(POISONER, "zhen", (), "2")])
    # 失去两个<炼>标记，在下一个游戏日夜晚获得永久技能<救治>.
    assert "cure" in state.players[POISONER].skills
    assert state.players[POISONER].counters["marks"] == 0


def test_insight_names_who_put_the_target_out() -> None:
    state, _ = play(day1(possess=PIPER), [(SEER, "insight", 13), (QUEEN, "kill", 13)])
    assert feedback(state, SEER, "insight") == ["导致P13出局的角色：P1。"]
    with pytest.raises(InvalidTarget):
        _try(state, (SEER, "insight", 13))  # 此技能对每名玩家只能使用一次 (and 13 is out)


def test_stage_names_a_third_of_the_living_never_the_same_two_days_running() -> None:
    state = day1()
    with pytest.raises(InvalidInput):
        _try(state, (PILLAR, "stage", (1, 2, 3)))  # 19 living: 6 names
    last = state.flags["lf_stage_last"]
    with pytest.raises(RepeatTarget):
        _try(state, (PILLAR, "stage", tuple(last)))


def test_curse_each_player_once() -> None:
    state, _ = play(day1(), [(PILLAR, "curse", 3)])
    assert state.players[3].statuses["cursed"] == 2
    with pytest.raises(InvalidTarget):
        _try(state, (PILLAR, "curse", 3))


# --- conversions --------------------------------------------------------------------------------


def test_hunt_brings_one_into_the_hunters_faction_losing_its_skills() -> None:
    state = day1()
    state, events = vote(state, [(5, HUNTER), (6, HUNTER)])
    assert (HUNTER, "hunt") in windows(state)
    state, events = window(state, HUNTER, "hunt", 13)
    assert faction(state, 13) == "wolves"
    assert state.players[13].skills == ()
    assert public(events, "hunt") == ["猎狼技能发动成功。"]


@pytest.mark.parametrize("target", [KING])
def test_hunt_fails_on_its_own_faction(target: int) -> None:
    state, _ = vote(day1(), [(5, HUNTER), (6, HUNTER)])
    state, events = window(state, HUNTER, "hunt", target)
    assert public(events, "hunt") == []
    assert state.players[KING].skills == ("command",)


def test_rock_keeps_a_faction_from_the_next_day() -> None:
    state, _ = play(day1(), [(RANGER, "rock", 13)])
    state, _ = vote(state, [(5, HUNTER), (6, HUNTER)])
    state, events = window(state, HUNTER, "hunt", 13)
    assert faction(state, 13) == "treasure"
    assert public(events, "hunt") == []


def test_drifters_follow_their_host_silently() -> None:
    state = day1(possess=13, hostage=GHOST)
    state, _ = vote(state, [(5, HUNTER), (6, HUNTER)])
    state, events = window(state, HUNTER, "hunt", 13)
    assert [faction(state, p) for p in (13, GHOST, HOSTAGE)] == ["wolves"] * 3
    told = {e.audience.character for e in events if e.kind == "converted"}
    assert told - {None} == {13}  # (None: the directors' log)


def king_voted_out(state: GameState) -> GameState:
    """Day 1's vote puts the 狼王 out at 关门, and night 1 runs: the 勾魂 window it opened is
    still open on day 2 (仅在下一个游戏日夜晚开始前 — the out was that night's start)."""
    state, _ = vote(state, [(5, KING), (6, KING)])
    state, _ = play(state)
    assert (KEEPER, "soul") in windows(state)
    return state


def test_soul_a_wolf_out_lets_the_keeper_convert_one_at_the_nights_open() -> None:
    state = king_voted_out(day1())
    state, _ = window(state, KEEPER, "soul", FOX)
    assert faction(state, FOX) == "fox"  # 在游戏日夜晚开始后加入宝藏阵营
    state, _ = play(state)
    assert faction(state, FOX) == "treasure"
    assert "cunning" in state.players[FOX].skills
    assert feedback(state, KEEPER, "soul") == ["勾魂成功。"]
    assert (KEEPER, "soul") not in windows(state)


def test_soul_a_pick_made_before_the_close_that_outs_the_wolf_waits_a_night() -> None:
    """The vote-out at 关门 is the night's start itself: a pick made then converts at the
    next night's open, not at once."""
    state, _ = vote(day1(), [(5, KING), (6, KING)])
    state, _ = window(state, KEEPER, "soul", FOX)
    state, _ = play(state)
    assert faction(state, FOX) == "fox"
    assert (KEEPER, "soul") in windows(state)
    state, _ = play(state)
    assert faction(state, FOX) == "treasure"


def test_soul_a_wolf_killed_at_night_opens_a_window_until_the_next_nights_open() -> None:
    state, _ = play(day1(), [(QUEEN, "kill", JUDGE)])
    assert (JUDGE, "杀人") in outs(state)
    assert (KEEPER, "soul") in windows(state)
    state, _ = window(state, KEEPER, "soul", FOX)
    state, _ = play(state)
    assert faction(state, FOX) == "treasure"


def test_soul_a_window_left_unused_closes_at_the_next_nights_open() -> None:
    """守宝人在关门前仍未提交<勾魂>目标，视为放弃<勾魂>。"""
    state = king_voted_out(day1())
    state, _ = play(state)
    assert (KEEPER, "soul") not in windows(state)
    assert faction(state, FOX) == "fox"


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (13, "反噬"),  # 当勾魂的作用对象是宝藏阵营的角色时，勾魂失败且守宝人立刻出局
        (PIPER, None),  # 此技能对…吹笛者无效
        (GHOST, None),  # …幽灵 (even inside 宝藏阵营: RULINGS 061-10)
    ],
)
def test_soul_backlash_and_immune_roles(target: int, expected: str | None) -> None:
    state = king_voted_out(day1(possess=13))
    state, _ = window(state, KEEPER, "soul", target)
    state, _ = play(state)
    assert ((KEEPER, expected) in outs(state)) == (expected is not None)
    assert feedback(state, KEEPER, "soul") == ["勾魂失败。"]


def test_soul_two_successes_sacrifice_the_keeper() -> None:
    state = king_voted_out(edit(day1(), KEEPER, counters={"souls": 1}))
    state, _ = window(state, KEEPER, "soul", FOX)
    state, _ = play(state)
    assert (KEEPER, "牺牲") in outs(state)


def test_enemy_the_first_killer_of_the_treasure_converts_one() -> None:
    state = edit(day1(), POISONER, skills=("poison_kill",))
    state, _ = play(state, [(POISONER, "poison_kill", 13), (QUEEN, "kill", 13)])
    assert (POISONER, "enemy_convert") in windows(state)  # 以出刀顺序为准: the 毒士 (5) first
    state, _ = window(state, POISONER, "enemy_convert", ANGEL)
    assert faction(state, ANGEL) == "poison"
    assert state.players[ANGEL].skills == ()
    assert alive(state, 13) == [False]


def test_cunning_a_borrowed_zhen_spends_the_poisoners_marks_and_keeps_its_gain() -> None:
    """妖狐因偷取到<鸩毒>而获得的<救治><杀人>可成为妖狐的永久技能 (RULINGS 061-9)."""
    state = edit(day1(), POISONER, counters={"marks": 2})
    state, _ = play(state, [(FOX, "cunning", POISONER, "poisoner")])
    assert state.players[FOX].flags["borrow"]["skills"] == ["zhen"]
    state, _ = play(state, [(FOX, "borrowed", (), "zhen:2")])
    assert state.players[POISONER].counters["marks"] == 0
    assert "cure" in state.players[FOX].skills
    assert "borrowed" not in state.players[FOX].skills  # 在下一个游戏日夜晚使用 (one night)


@pytest.mark.parametrize(
    ("carded", "check"),
    [
        # RULINGS 061-6: a red card is an out like any other for forced and others' triggers …
        (AMBITIOUS, lambda s, ev: "supreme" in s.players[SHADOW].skills),  # 继承
        (QUEEN, lambda s, ev: any("kill" in s.players[p].skills for p in (KING, HUNTER, JUDGE))),
        (KING, lambda s, ev: s.players[POISONER].counters.get("marks") == 1),  # 炼狱
        (FOX, lambda s, ev: not s.players[PSYCHIC].alive),  # 早夭
        (PIPER, lambda s, ev: not s.players[HOSTAGE].alive),  # 遇难
        # … but the carded player's own optional skills do not fire: no 狩猎.
        (HUNTER, lambda s, ev: (HUNTER, "hunt") not in windows(s)),
    ],
)
def test_red_card_fires_forced_and_others_triggers(carded: int, check: Any) -> None:
    from werewolf.engine import red_card

    from .support_061 import close_at, rng

    state = day1()
    state, events = red_card(state, carded, rng(), close_at(state) - 3600)
    assert not state.players[carded].alive
    assert check(state, events)


def test_red_card_is_not_blocked_by_guard() -> None:
    from werewolf.engine import red_card

    from .support_061 import close_at, rng

    state, _ = play(day1(), [(RANGER, "guard", 13)], votable=(13,))
    state, _ = red_card(state, 13, rng(), close_at(state) - 3600)
    assert outs(state) == [(13, "红牌罚下")]


def test_a_night_with_only_a_backlash_is_no_peaceful_night() -> None:
    state = king_voted_out(day1(possess=13))
    state, _ = window(state, KEEPER, "soul", 13)
    state, _ = play(state)
    assert (KEEPER, "反噬") in outs(state)
    assert state.flags["lf_peaceful"] == 0


def test_stage_not_chosen_in_time_is_drawn_from_the_seed() -> None:
    """铁柱…视为放弃，票台人选随机产生 (RULINGS 13: not the current day's list)."""
    from werewolf.engine import deadline_pass, night_open, night_publish, night_resolve

    from .support_061 import close_at, rng

    state = day1()
    last = set(state.flags["lf_stage_last"])
    state, _ = night_open(state, rng(), close_at(state))
    at = state.closed_at or 0.0
    state, _ = deadline_pass(state, rng(), at + 61 * 60)
    state, _ = night_resolve(state, rng(3))
    state, _ = night_publish(state, rng(), at + 12 * 3600)
    staged = {p.id for p in state.players.values() if p.statuses.get("stage") == 2}
    assert len(staged) == 19 // 3
    assert not staged & last


def test_an_override_of_the_hits_keeps_the_nights_other_effects() -> None:
    from werewolf.engine import deadline_pass, night_open, night_publish, night_resolve

    from .support_061 import close_at, rng

    state = day1()
    state, _ = night_open(state, rng(), close_at(state))
    at = state.closed_at or 0.0
    for pick in [(PIPER, "pipe", 5), (QUEEN, "kill", 13), (PILLAR, "stage", (12, 11, 10, 9, 8, 7))]:
        state, _ = submit(state, pick, at + 60)
    state, _ = deadline_pass(state, rng(), at + 61 * 60)
    state, _ = night_resolve(state, rng())
    assert state.result is not None
    assert state.result["hits"] == [[13, "杀人", QUEEN]]
    override = {"by": "导演B", "reason": "误判", "hits": []}
    state, _ = night_publish(state, rng(), at + 12 * 3600, overrides=override)
    assert outs(state) == []
    assert "piped" in state.players[5].statuses


def test_hunt_fails_when_the_hunter_was_the_last_wolf() -> None:
    state = day1(possess=13)
    for pid in (QUEEN, KING, JUDGE):
        state = edit(state, pid, alive=False)
    state, _ = vote(state, [(5, HUNTER), (6, HUNTER)])
    state, events = window(state, HUNTER, "hunt", 12)
    assert faction(state, 12) == "poison"
    assert public(events, "hunt") == []


def test_soul_each_wolf_out_opens_its_own_pick() -> None:
    """每当有狼人阵营的玩家出局时: a wolf killed in night 1 gives a pick for night 2's open; the
    狼王 voted out at day 2's 关门 gives another, which waits for night 3's open."""
    state = edit(day1(), KEEPER, skills=("soul", "backlash"))  # no 牺牲, to count both
    state, _ = play(state, [(QUEEN, "kill", JUDGE)])
    state, _ = window(state, KEEPER, "soul", FOX)
    state, _ = vote(state, [(5, KING), (6, KING)])
    assert [w.get("count", 1) for w in state.windows if w["skill"] == "soul"] == [2]
    state, _ = play(state)
    assert [faction(state, p) for p in (FOX, ANGEL)] == ["treasure", "fox"]
    assert [w.get("picks", []) for w in state.windows if w["skill"] == "soul"] == [[]]
    state, _ = window(state, KEEPER, "soul", ANGEL)
    state, _ = play(state)
    assert [faction(state, p) for p in (FOX, ANGEL)] == ["treasure", "treasure"]
    assert (KEEPER, "soul") not in windows(state)


def test_the_same_seed_and_actions_replay_the_same_game() -> None:
    from werewolf.engine.bots import Autoplay

    game = "lin_feng_061"
    assert Autoplay(game, 7).play().to_json() == Autoplay(game, 7).play().to_json()
