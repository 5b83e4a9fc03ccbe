"""The night of [099]: submissions per step, the resolution order 枪-毒-刀 (RULINGS 3), guard and
witch (RULINGS 1), 长生, 替死, the night-1 chances (RULINGS 4), deadlines (RULINGS 5)."""

from __future__ import annotations

import pytest

from games.engine.errors import InvalidInput
from werewolf.engine import (
    Forgo,
    apply_action,
    deadline_pass,
    next_deadline,
    night_publish,
    night_resolve,
    red_card,
)
from werewolf.engine.errors import (
    Charmed,
    ForcedSkill,
    InvalidTarget,
    NightNotDone,
    PotionTonight,
    RepeatTarget,
    SkillUsedUp,
    StepClosed,
    StepNotOpen,
)

from .support import (
    CHIEF,
    GUARD,
    HUNTER,
    IDIOT,
    LOVER,
    MIN,
    SEER,
    WHITE,
    WITCH,
    WOLVES,
    closed,
    game,
    kinds,
    open_night,
    outs,
    play_night,
    rng,
    texts,
    use,
    vote,
)


@pytest.mark.parametrize(
    ("picks", "expected"),
    [
        # 狼人杀人 alone: the target is out.
        ([(1, "wolf_kill", 15)], [(15, "杀人")]),
        # Only the 主刀狼's kill is effective (P1 leads; P2's pick does nothing).
        ([(2, "wolf_kill", 16), (1, "wolf_kill", 15)], [(15, "杀人")]),
        # 守卫 makes the kill ineffective.
        ([(GUARD, "protect", 15), (1, "wolf_kill", 15)], []),
        # 救药: not out by a single effective kill.
        ([(1, "wolf_kill", 15), (WITCH, "save", 15)], []),
        # RULINGS 1: guarded and saved survives.
        ([(GUARD, "protect", 15), (1, "wolf_kill", 15), (WITCH, "save", 15)], []),
        # 救药 covers one kill only: 狼人 and 白眼狼 on the same target.
        ([(1, "wolf_kill", 15), (WHITE, "white_kill", 15), (WITCH, "save", 15)], [(15, "杀人")]),
        # 守卫 stops every kill on the target.
        ([(GUARD, "protect", 15), (1, "wolf_kill", 15), (WHITE, "white_kill", 15)], []),
        # 白眼狼 kills on its own.
        ([(WHITE, "white_kill", 16)], [(16, "杀人")]),
        # 毒药: out before the night ends; the kill on the same target is 刀空.
        ([(1, "wolf_kill", 15), (WITCH, "poison", 15)], [(15, "毒药")]),
        # Poison then kill on two targets: settled 毒 before 刀.
        ([(1, "wolf_kill", 16), (WITCH, "poison", 15)], [(15, "毒药"), (16, "杀人")]),
    ],
)
def test_night_settlement(
    picks: list[tuple[int, str, int]], expected: list[tuple[int, str]]
) -> None:
    state, _ = play_night(game(), picks)
    assert outs(state) == expected


def test_shot_poison_kill_order_rulings_3() -> None:
    """A 猎人 voted out at the close shoots during the night: its shot settles first, the
    poison and the kill on the same target are 毒空/刀空."""
    state, _ = play_night(game())
    state, _ = vote(state, {15: HUNTER, 16: HUNTER})
    state = open_night(state)
    state, events = use(state, HUNTER, "last_shot", 17)
    assert kinds(events) == ["shot"]  # announced at once
    state, _ = play_night(state, [(1, "wolf_kill", 17), (WITCH, "poison", 17)])
    assert outs(state)[-1] == (17, "最后一枪")
    trace = state.flags["history"][-1]["trace"]
    assert [t["text"] for t in trace if t["step"] == "结算"] == [
        "P17已出局，毒药落空。",
        "P17已出局，杀人落空。",
    ]


def test_night_shot_window_holds_the_resolution() -> None:
    state, _ = play_night(game())
    state, _ = vote(state, {15: HUNTER})
    state = open_night(state)
    state, _ = deadline_pass(state, rng(), closed(state) + 10 * MIN)
    with pytest.raises(NightNotDone):
        night_resolve(state, rng())


def test_guard_not_twice_running() -> None:
    state, _ = play_night(game(), [(GUARD, "protect", 15)])
    state = open_night(state)
    with pytest.raises(RepeatTarget):
        use(state, GUARD, "protect", 15)
    state, _ = use(state, GUARD, "protect", GUARD)  # another target is fine
    state, _ = play_night(state)
    state, _ = play_night(state, [(GUARD, "protect", 15)])  # another target between: allowed
    assert state.players[GUARD].flags["last_protect"] == [15, 3]


def test_witch_one_potion_a_night_and_each_once() -> None:
    state = open_night(game())
    for w in (1, 2, 3, 4):
        state, _ = use(state, w, "elect", 1)
    state, _ = use(state, 1, "wolf_kill", 15)
    with pytest.raises(StepNotOpen):  # the 女巫 acts after the 白眼狼
        use(state, WITCH, "save", 15)
    state, _ = use(state, WHITE, "white_kill", 16)
    state, _ = use(state, WITCH, "save", 15)
    assert state.night["steps"]["witch"]["state"] == "closed"  # the other potion is out tonight
    with pytest.raises((PotionTonight, StepClosed)):
        use(state, WITCH, "poison", 16)
    state, _ = deadline_pass(state, rng(), closed(state) + 61 * MIN)
    state, _ = night_resolve(state, rng())
    state, _ = night_publish(state, rng(), closed(state) + 12 * 3600)
    assert outs(state) == [(16, "杀人")]
    state = open_night(state)
    for w in (1, 2, 3, 4):
        state, _ = use(state, w, "elect", 1)
    for actor, skill in ((1, "wolf_kill"), (WHITE, "white_kill")):
        state, _ = apply_action(state, Forgo(actor=actor, skill=skill), rng(), closed(state) + MIN)
    with pytest.raises(SkillUsedUp):
        use(state, WITCH, "save", 17)
    state, _ = use(state, WITCH, "poison", 17)


def test_witch_senses_the_effective_kills_then_has_30_minutes_capped_at_an_hour() -> None:
    state = open_night(game())
    close = state.closed_at
    assert close is not None
    for w in (1, 2, 3, 4):
        state, _ = use(state, w, "elect", 2)
    state, _ = use(state, 1, "wolf_kill", 17)  # not the 主刀狼: no effect
    state, ev = use(state, 2, "wolf_kill", 15, at=close + 5 * MIN)
    assert not [e for e in ev if e.kind == "sense"]  # the 白眼狼 has not acted yet
    state, ev = use(state, WHITE, "white_kill", 16, at=close + 10 * MIN)
    sense = [e for e in ev if e.kind == "sense"]
    assert [e.audience.character for e in sense] == [WITCH]
    assert [t["id"] for t in sense[0].payload["targets"]] == [15, 16]
    assert state.night["steps"]["witch"]["deadline"] == close + 40 * MIN
    # Late wolves: 通灵 at +50 leaves the witch until the cap, one hour after the close.
    late = open_night(game())
    for w in (1, 2, 3, 4):
        late, _ = use(late, w, "elect", 1)
    late, _ = deadline_pass(late, rng(), closed(late) + 31 * MIN)
    assert late.night["steps"]["witch"]["deadline"] == closed(late) + 60 * MIN


def test_deadline_forfeits_rulings_5() -> None:
    state = open_night(game())
    close = state.closed_at
    assert close is not None
    with pytest.raises(StepClosed):
        use(state, SEER, "divine", 1, at=close + 31 * MIN)
    state, events = deadline_pass(state, rng(), close + 30 * MIN)
    forfeited = {e.audience.character for e in events if e.kind == "forfeited"}
    assert {SEER, GUARD, LOVER, WHITE, 1, 2, 3, 4} <= forfeited
    assert state.night["leader"] in (1, 2, 3, 4)  # no vote: drawn from the seed


def test_the_forced_election_cannot_be_forgone_and_a_missed_vote_is_named() -> None:
    """标明<强制>的技能不允许放弃发动; 必须行使特权的角色未在规定时间内行使 is a card, so the
    directors learn which forced skill each late actor missed (the seer's 预言 is not forced)."""
    state = open_night(game())
    with pytest.raises(ForcedSkill):
        apply_action(state, Forgo(actor=1, skill="elect"), rng(), closed(state) + MIN)
    for w in (1, 2, 3):
        state, _ = use(state, w, "elect", 1)
    state, events = deadline_pass(state, rng(), closed(state) + 30 * MIN)
    missed = {
        e.payload["actor"]: e.payload["forced"]
        for e in events
        if e.kind == "forfeited" and e.audience.kind == "directors"
    }
    assert missed[4] == ["elect"]
    assert missed[SEER] == []
    assert missed[1] == []  # the 主刀狼 voted but missed the kill: 团队, not forced


def test_election_majority_and_tie() -> None:
    state = open_night(game())
    for w, choice in ((1, 2), (2, 2), (3, 3), (4, 2)):
        state, _ = use(state, w, "elect", choice)
    assert state.night["leader"] == 2
    tie = open_night(game())
    for w, choice in ((1, 1), (2, 1), (3, 3), (4, 3)):
        tie, events = use(tie, w, "elect", choice)
    assert tie.night["leader"] in (1, 3)
    assert [
        e.payload["drawn_from"]
        for e in events
        if e.kind == "leader_elected" and e.audience.kind == "directors"
    ] == [[1, 3]]
    with pytest.raises(InvalidTarget):
        use(open_night(game()), 1, "elect", 15)  # only a wolf leads


def test_seer_learns_the_role_at_publish() -> None:
    _, events = play_night(game(), [(SEER, "divine", 1)])
    feedback = [e.payload for e in events if e.kind == "feedback"]
    assert feedback == [{"kind": "divine", "target": 1, "role": "狼人", "target_name": "P1"}]
    assert [e.audience.character for e in events if e.kind == "feedback"] == [SEER]


@pytest.mark.parametrize(
    ("mine", "theirs", "chance"),
    [(0, 10, 10), (0, 80, 50), (3, 50, 47), (5, 5, None), (10, 0, None), (-2, 3, 5)],
)
def test_first_night_block_chance_rulings_4(mine: int, theirs: int, chance: int | None) -> None:
    state = game(auction={1: {"block": mine}, 15: {"block": theirs}})
    state, _ = play_night(state, [(1, "wolf_kill", 15)], seed=3)
    rolls = [t for t in state.flags["history"][0]["trace"] if t["step"] == "挡刀"]
    if chance is None:
        assert rolls == []
        assert outs(state) == [(15, "杀人")]
    else:
        assert [r["chance"] for r in rolls] == [chance]
        assert (outs(state) == []) == rolls[0]["failed"]
        assert rolls[0]["failed"] == (rolls[0]["roll"] < chance)


def test_block_and_act_checks_only_on_night_one() -> None:
    state = game(auction={15: {"block": 50}, 16: {"act": 50}})
    state, _ = play_night(state)
    state, _ = play_night(state, [(1, "wolf_kill", 15), (SEER, "divine", 16)])
    assert not [t for t in state.flags["history"][1]["trace"] if t["step"] in ("挡刀", "表演")]
    assert outs(state) == [(15, "杀人")]


def test_act_check_can_blind_the_seer() -> None:
    seen = set()
    for seed in range(12):
        state = game(auction={16: {"act": 50}})
        _, events = play_night(state, [(SEER, "divine", 16)], seed=seed)
        fb = next(e.payload for e in events if e.kind == "feedback")
        seen.add("failed" in fb)
    assert seen == {True, False}


def test_chief_longevity_first_kill_only() -> None:
    state, events = play_night(game(), [(1, "wolf_kill", CHIEF)])
    assert outs(state) == []
    assert [e.payload["kind"] for e in events if e.kind == "feedback"] == ["longevity"]
    state, _ = play_night(state, [(1, "wolf_kill", CHIEF)])
    assert outs(state) == [(CHIEF, "杀人")]
    assert state.players[SEER].skills == ("divine",)  # a kill strips nothing


def test_chief_poisoned_strips_the_village_and_the_feigned_idiot_goes() -> None:
    state, _ = play_night(game())
    state, _ = vote(state, {15: IDIOT})  # 装傻
    assert state.players[IDIOT].alive
    state, _ = play_night(state, [(WITCH, "poison", CHIEF)])
    assert outs(state) == [(CHIEF, "毒药"), (IDIOT, "失去装傻")]
    assert all(not state.players[p].skills for p in (SEER, WITCH, GUARD, LOVER, HUNTER, 12, 14))
    assert state.players[1].skills  # the wolves keep theirs


@pytest.mark.parametrize(
    ("picks", "expected"),
    [
        # 替死 on a kill.
        ([(LOVER, "admire", 15), (1, "wolf_kill", 15)], [(LOVER, "替死")]),
        # A poisoned target: poison is not 投票/指杀, the target is out and the lover stays.
        ([(LOVER, "admire", 15), (WITCH, "poison", 15)], [(15, "毒药")]),
        # The lover poisoned: its 爱慕 is void tonight, both are out.
        (
            [(LOVER, "admire", 15), (1, "wolf_kill", 15), (WITCH, "poison", LOVER)],
            [(LOVER, "毒药"), (15, "杀人")],
        ),
        # Killed twice: the lover takes one, the target the other.
        (
            [(LOVER, "admire", 15), (1, "wolf_kill", 15), (WHITE, "white_kill", 15)],
            [(LOVER, "替死"), (15, "杀人")],
        ),
        # The lover killed itself: void, both out.
        (
            [(LOVER, "admire", 15), (1, "wolf_kill", LOVER), (WHITE, "white_kill", 15)],
            [(LOVER, "杀人"), (15, "杀人")],
        ),
        # 爱慕的对象按规则将出局多次时，则情痴和爱慕对象都将出局: poisoned and killed, the
        # target goes by the poison (枪-毒-刀) and the kill takes the lover.
        (
            [(LOVER, "admire", 15), (1, "wolf_kill", 15), (WITCH, "poison", 15)],
            [(15, "毒药"), (LOVER, "替死")],
        ),
        # Poisoned only once and never killed: the lover stays (poison is not 投票/指杀).
        (
            [(LOVER, "admire", 15), (1, "wolf_kill", 16), (WITCH, "poison", 15)],
            [(15, "毒药"), (16, "杀人")],
        ),
    ],
)
def test_lover(picks: list[tuple[int, str, int]], expected: list[tuple[int, str]]) -> None:
    state, _ = play_night(game(), picks)
    assert outs(state) == expected


def test_lover_substitution_is_announced() -> None:
    _, events = play_night(game(), [(LOVER, "admire", 15), (1, "wolf_kill", 15)])
    assert "P15被指杀出局了，深爱着他/她的情痴P9甘愿牺牲自己而代替其出局！" in texts(events)
    day_open = next(e.payload for e in events if e.kind == "day_open")
    assert day_open["night_out"] == [{"id": LOVER, "name": "P9"}]  # no role


def test_a_player_red_carded_during_the_night_acts_no_more_that_night() -> None:
    """出局后不能…行使特权; 红牌罚下出局的角色不能任何技能: a 主刀狼 and a 先知 sent off after
    submitting kill nobody and learn nothing."""
    state = open_night(game())
    for w in WOLVES:
        state, _ = use(state, w, "elect", 1)
    state, _ = use(state, 1, "wolf_kill", 15)
    state, _ = use(state, SEER, "divine", 2)
    at = closed(state) + 5 * MIN
    state, _ = red_card(state, 1, rng(), at)
    state, _ = red_card(state, SEER, rng(), at)
    state, events = play_night(state)
    assert outs(state) == [(1, "红牌罚下"), (SEER, "红牌罚下")]
    assert state.players[15].alive
    assert not [e for e in events if e.kind == "feedback"]


def test_admire_is_limited_and_not_self() -> None:
    state, _ = play_night(game(), [(LOVER, "admire", 15)])
    state = open_night(state)
    with pytest.raises(SkillUsedUp):
        use(state, LOVER, "admire", 16)
    with pytest.raises(InvalidTarget):
        use(open_night(game()), LOVER, "admire", LOVER)


def test_charm_the_night_after_the_dreamer_is_voted_out() -> None:
    """P14 (梦中人) is 女: tonight every 男 player (odd seats) uses no skill; each can be a
    target."""
    state, _ = play_night(game())
    state, events = vote(state, {15: 14, 16: 14})
    assert "梦中人P14被投票出局，发动[魅惑]：今晚所有异性玩家均不能使用技能。" in texts(events)
    state = open_night(state)
    for actor, skill, target in ((LOVER, "admire", 15), (1, "elect", 2), (WHITE, "white_kill", 15)):
        with pytest.raises(Charmed):
            use(state, actor, skill, target)
    state, _ = use(state, GUARD, "protect", LOVER)  # 女: acts, and a 男 is a fine target
    state, _ = use(state, 2, "elect", 2)
    state, _ = use(state, 4, "elect", 2)
    assert state.night["leader"] == 2  # the 男 wolves neither vote nor lead
    state, _ = use(state, 2, "wolf_kill", 17)
    assert state.night["steps"]["witch"]["state"] == "closed"  # the 女巫 (男) cannot act
    state, _ = play_night(state)
    assert outs(state)[-1] == (17, "杀人")
    state = open_night(state)
    state, _ = use(state, LOVER, "admire", 15)  # the next night, it is over


def test_director_override_rulings_6() -> None:
    state = open_night(game())
    for w in (1, 2, 3, 4):
        state, _ = use(state, w, "elect", 1)
    state, _ = use(state, 1, "wolf_kill", 15)
    state, _ = deadline_pass(state, rng(), closed(state) + 61 * MIN)
    state, _ = night_resolve(state, rng())
    assert state.result is not None
    assert state.result["outs"] == [[15, "杀人", 1, True]]
    assert outs(state) == []  # a draft: nothing is real before the publish
    with pytest.raises(InvalidInput):
        night_publish(state, rng(), closed(state) + 12 * 3600, overrides={"hits": []})
    overrides = {"by": "导演A", "reason": "补刀改判", "hits": [[16, "杀人"]]}
    state, events = night_publish(state, rng(), closed(state) + 12 * 3600, overrides=overrides)
    assert outs(state) == [(16, "杀人")]
    log = next(e.payload for e in events if e.kind == "night_override")
    assert log["engine"] == [[15, "杀人", 1]]
    assert log["applied"] == [[16, "杀人"]]
    assert log["by"] == "导演A"


def test_next_deadline_for_the_scheduler() -> None:
    state = open_night(game())
    assert next_deadline(state) == closed(state) + 30 * MIN
