"""The day of [099]: the vote with the 警长's 1.5, ties and 献身/遗志 (RULINGS 2), 装傻, 替死,
the 猎人's windows, 殉职, and the 村长 shot by the 猎人."""

from __future__ import annotations

from fractions import Fraction

import pytest

from werewolf.engine import Forgo, apply_action, deadline_pass, tally, vote_modifiers
from werewolf.engine.errors import GameOver, InvalidTarget, WindowClosed

from .support import (
    CHIEF,
    HUNTER,
    IDIOT,
    LOVER,
    MIN,
    MONK,
    SEER,
    WITCH,
    close_at,
    closed,
    edit,
    game,
    outs,
    play_night,
    rng,
    texts,
    use,
    vote,
)


def day1():
    state, _ = play_night(game())
    return state


def with_sheriff(state, pid: int):
    from werewolf.engine.draft import open_draft

    d = open_draft(state, rng())
    d.sheriff = pid
    return d.finish()


def test_sheriff_weighs_one_and_a_half() -> None:
    state = with_sheriff(day1(), 15)
    assert tally(state, {15: 1, 16: 2, 17: 2}) == {1: Fraction(3, 2), 2: Fraction(2)}
    assert vote_modifiers(state, 1).weights[15].value == Fraction(3, 2)
    state, _ = vote(state, {15: 1, 16: 1, 17: 2, 18: 2, 6: 2})
    assert outs(state) == [(2, "投票")]


def test_top_voted_is_out_with_role() -> None:
    state, events = vote(day1(), {15: 1, 16: 1, 17: 2})
    assert outs(state) == [(1, "投票")]
    out = next(e.payload for e in events if e.kind == "out" and e.audience.kind == "public")
    assert out == {"id": 1, "name": "P1", "role": "狼人", "cause": "投票"}


@pytest.mark.parametrize(
    ("monk_state", "expected"),
    [("alive", [(MONK, "献身")]), ("out", []), ("stripped", [])],
)
def test_tie_takes_the_monk_or_nobody_rulings_2(monk_state: str, expected: list) -> None:
    state = day1()
    if monk_state == "out":
        state = edit(state, MONK, alive=False)
    if monk_state == "stripped":
        state = edit(state, MONK, skills=())
    state, events = vote(state, {15: 1, 16: 2})
    assert outs(state) == expected
    assert texts(events)[-1] == (
        "投票出现平票，高僧P12发动[献身]出局。" if expected else "投票出现平票，无人出局。"
    )


@pytest.mark.parametrize(
    ("monk_state", "holder"), [("alive", MONK), ("out", None), ("stripped", None)]
)
def test_the_ballots_learn_who_holds_the_tie_or_that_nobody_does(
    monk_state: str, holder: int | None
) -> None:
    """The forum tally's tie rule must agree with ``day_vote``: the 高僧 out or without 献身
    is named as held by nobody (None), not left out (which means "the kind does not know")."""
    state = day1()
    if monk_state == "out":
        state = edit(state, MONK, alive=False)
    if monk_state == "stripped":
        state = edit(state, MONK, skills=())
    assert vote_modifiers(state, 1).role_holders == {"高僧": holder}


def test_will_appoints_the_sheriff_within_30_minutes() -> None:
    state, _ = vote(day1(), {15: 1, 16: 2})
    close = close_at(state)
    with pytest.raises(WindowClosed):
        use(state, MONK, "will", 15, at=close + 31 * MIN)
    state2, events = use(state, MONK, "will", 15, at=close + 29 * MIN)
    assert state2.sheriff == 15
    assert texts(events) == ["高僧P12发动[遗志]，指定P15担任警长。"]


def test_idiot_feigns_then_cannot_vote_nor_be_voted() -> None:
    state, events = vote(day1(), {15: IDIOT, 16: IDIOT, 17: 1})
    assert outs(state) == []
    assert state.players[IDIOT].alive
    assert "白痴P13发动[装傻]，避免出局。" in texts(events)
    mods = vote_modifiers(state, 2)
    assert IDIOT in mods.void_voters
    assert IDIOT in mods.immune
    state, _ = play_night(state)
    assert tally(state, {IDIOT: 1, 15: IDIOT}) == {}
    state, _ = vote(state, {15: IDIOT, 16: 1})  # votes on the idiot do not count
    assert outs(state) == [(1, "投票")]


def test_idiot_sheriff_hands_over_and_cannot_take_the_badge() -> None:
    state = with_sheriff(day1(), IDIOT)
    state, _ = vote(state, {15: IDIOT, 16: IDIOT})
    assert state.sheriff is None
    state, events = use(state, IDIOT, "succession", 16, at=close_at(state) + MIN)
    assert state.sheriff == 16
    assert texts(events) == ["警长P13发动[殉职]，P16继任警长。"]
    state, _ = vote(play_night(state)[0], {15: 16, 17: 16})  # the sheriff out: 殉职
    with pytest.raises(InvalidTarget):
        use(state, 16, "succession", IDIOT, at=close_at(state) + MIN)


def test_sheriff_not_succeeding_in_time_loses_the_badge() -> None:
    state = with_sheriff(day1(), 15)
    state, _ = vote(state, {16: 15, 17: 15})
    state, events = deadline_pass(state, rng(), close_at(state) + 30 * MIN)
    assert texts(events) == ["警长P15未在时限内发动[殉职]，警长由导演组收回。"]
    assert not state.windows


def test_lover_dies_for_the_voted_target() -> None:
    state, _ = play_night(game(), [(LOVER, "admire", 15)])
    state, events = vote(state, {16: 15, 17: 15})
    assert outs(state) == [(LOVER, "替死")]
    assert "P15被投票出局了，深爱着他/她的情痴P9甘愿牺牲自己而代替其出局！" in texts(events)


def test_hunter_shoots_within_30_minutes_of_a_day_death() -> None:
    state, _ = vote(day1(), {15: HUNTER})
    close = close_at(state)
    with pytest.raises(WindowClosed):
        use(state, HUNTER, "last_shot", 1, at=close + 31 * MIN)
    with pytest.raises(InvalidTarget):
        use(state, HUNTER, "last_shot", HUNTER, at=close + MIN)
    state, events = use(state, HUNTER, "last_shot", 1, at=close + MIN)
    assert outs(state) == [(HUNTER, "投票"), (1, "最后一枪")]
    assert "猎人P11发动[最后一枪]，P1出局。" in texts(events)


def test_hunter_dead_at_night_shoots_until_30_minutes_after_the_open() -> None:
    state, _ = play_night(game(), [(1, "wolf_kill", HUNTER)])
    opened = closed(state) + 12 * 3600
    assert [w["until"] for w in state.windows] == [opened + 30 * MIN]
    with pytest.raises(WindowClosed):
        use(state, HUNTER, "last_shot", 2, at=opened + 31 * MIN)
    state, events = use(state, HUNTER, "last_shot", 2, at=opened + 20 * MIN)
    assert outs(state)[-1] == (2, "最后一枪")
    assert (
        next(e.payload for e in events if e.kind == "out" and e.audience.kind == "public")["role"]
        == "狼人"
    )


def test_red_carded_hunter_has_no_shot() -> None:
    from werewolf.engine import red_card

    state, _ = red_card(day1(), HUNTER, rng(), close_at(day1()) - 60 * MIN)
    assert outs(state) == [(HUNTER, "红牌罚下")]
    assert not state.windows


def test_chief_shot_by_the_hunter_strips_the_village() -> None:
    state, _ = vote(day1(), {15: IDIOT})  # the idiot feigns first
    state, _ = play_night(state)
    state, _ = vote(state, {15: HUNTER})
    state, events = use(state, HUNTER, "last_shot", CHIEF, at=close_at(state) + MIN)
    assert outs(state) == [(HUNTER, "投票"), (CHIEF, "最后一枪"), (IDIOT, "失去装傻")]
    assert "白痴P13失去[装傻]，立即出局。" in texts(events)
    assert not state.players[SEER].skills
    assert not state.players[WITCH].skills


def test_chief_voted_out_strips_but_a_lover_in_its_place_does_not() -> None:
    state, _ = vote(day1(), {15: CHIEF})
    assert not state.players[SEER].skills
    state, _ = play_night(game(), [(LOVER, "admire", CHIEF)])
    state, _ = vote(state, {15: CHIEF})
    assert outs(state) == [(LOVER, "替死")]
    assert state.players[SEER].skills


def test_forgoing_the_last_shot() -> None:
    state, _ = vote(day1(), {15: HUNTER})
    state, _ = apply_action(state, Forgo(actor=HUNTER, skill="last_shot"), rng(), close_at(state))
    assert not state.windows


def test_one_vote_a_day() -> None:
    from games.engine.errors import WrongPhase

    state, _ = vote(day1(), {15: 1})
    with pytest.raises(WrongPhase):
        vote(state, {15: 2})


def test_the_director_makes_a_red_carded_wolfs_faction_lose() -> None:
    """判下红牌的同时，导演有权视情况决定是否直接使该玩家所在的阵营判负."""
    from werewolf.engine import faction_forfeit, red_card

    at = close_at(day1()) - 60 * MIN
    state, _ = red_card(day1(), 2, rng(), at)
    state, events = faction_forfeit(state, 2, rng(), at)
    assert state.lost == ("wolves",)
    assert "P2被红牌罚下，导演判定狼人阵营判负。" in texts(events)
    # The village and the white wolf both stand: the game goes on.
    assert (state.winner, state.phase) == (None, "day")
    again, none = faction_forfeit(state, 3, rng(), at)  # a teammate's card: already lost
    assert (again, none) == (state, [])


def test_a_forfeit_leaving_one_faction_ends_the_game_at_once() -> None:
    from werewolf.engine import faction_forfeit

    at = close_at(day1()) - 60 * MIN
    state, _ = faction_forfeit(day1(), 2, rng(), at)
    state, events = faction_forfeit(state, 5, rng(), at)  # the 白眼狼
    assert state.lost == ("wolves", "white_wolf")
    assert (state.winner, state.phase) == ("village", "over")
    assert [e.payload["winner"] for e in events if e.kind == "game_over"] == ["village"]
    with pytest.raises(GameOver):
        faction_forfeit(state, 6, rng(), at)
