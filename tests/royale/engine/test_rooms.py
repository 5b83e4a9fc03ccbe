"""电话 / 血鬼术符咒: 若其同意，使用者与目标共群至投票结束 — the call's room, from the state."""

from __future__ import annotations

import pytest

from royale.engine import AnswerPhone, Phone
from royale.engine.draft import open_draft
from royale.engine.night import day_close, red_card
from royale.engine.rooms import rooms

from .support import K252, act, edit, empty_game, give, of, rng


def called(ruleset: str, phone: str, *, accept: bool):
    state = empty_game(ruleset, n=3)
    d = open_draft(state, rng())
    d.phase = "day"
    state = d.finish()
    state, item = give(state, 1, phone)
    state, events = act(state, Phone(1, item, 2))
    call = of(events, "phone_call")[0].payload["call"]
    state, _ = act(state, AnswerPhone(2, call, accept))
    return state


@pytest.mark.parametrize(
    ("ruleset", "phone"), [("islington_256", "tool:电话"), (K252, "tool:血鬼术符咒")]
)
def test_an_accepted_call_is_a_room_of_caller_and_target(ruleset, phone):
    state = called(ruleset, phone, accept=True)
    (room,) = rooms(state)
    assert room.kind == "phone"
    assert room.members == {1, 2}
    c = state.characters
    assert room.name == f"通话：{c[1].name} 与 {c[2].name}"


def test_a_refused_call_makes_no_room():
    assert rooms(called("islington_256", "tool:电话", accept=False)) == []


def test_the_room_lasts_until_the_vote_ends():
    state = called("islington_256", "tool:电话", accept=True)
    after, _ = day_close(state, rng())
    assert rooms(after) == []


def test_a_call_of_an_earlier_day_holds_no_room():
    state = called("islington_256", "tool:电话", accept=True)
    d = open_draft(state, rng())
    d.day += 1
    assert rooms(d.finish()) == []


def test_an_end_that_dies_or_is_sent_off_leaves_the_call():
    state = called("islington_256", "tool:电话", accept=True)
    dead = edit(state, 2, alive=False)
    (room,) = rooms(dead)
    assert room.members == {1}
    sent_off, _ = red_card(state, 1, rng())
    assert [r.members for r in rooms(sent_off)] == [frozenset({2})]
