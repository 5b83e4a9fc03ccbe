"""State, actions and events are plain JSON data; director tools keep the invariants."""

from __future__ import annotations

import json

import pytest

from games.engine.errors import InvalidInput
from games.engine.events import GameEvent
from royale.engine import (
    ACTION_TYPES,
    Action,
    Attack,
    Equip,
    GameState,
    Telescope,
    action_from_json,
    airdrop,
    get_ruleset,
    grant_item,
    new_game,
)

from .support import I256, K252, empty_game, give, of, rng


@pytest.mark.parametrize("ruleset", [I256, K252])
def test_new_game_scatters_the_default_placement(ruleset):
    rs = get_ruleset(ruleset)
    state, events = new_game(ruleset, [(1, "甲"), (2, "乙")], rng())
    expected = sum(p.count for p in rs.placement)
    assert len(state.items) == expected
    assert sum(len(p.items) for p in state.places.values()) == expected
    greens = [i for i in state.items.values() if i.kind.startswith("weapon:green:")]
    assert len({i.kind for i in greens}) == 60  # every green weapon name once
    (public,) = [e for e in events if e.audience.kind == "public"]
    assert "scattered" not in public.payload


def test_the_director_can_edit_the_placement_before_the_start():
    state, _ = new_game(I256, [(1, "甲")], rng(), placement={"trap:炸弹": 20, "weapon:green": 3})
    kinds = [i.kind for i in state.items.values()]
    assert kinds.count("trap:炸弹") == 20
    assert sum(k.startswith("weapon:green:") for k in kinds) == 3
    with pytest.raises(InvalidInput):
        new_game(I256, [(1, "甲")], rng(), placement={"weapon:pink": 1})


def test_state_round_trips_through_json():
    state, _ = new_game(K252, [(1, "甲"), (2, "乙")], rng())
    data = json.loads(json.dumps(state.to_json(), ensure_ascii=False))
    assert GameState.from_json(data).to_json() == state.to_json()
    assert GameState.from_json(data) == state


@pytest.mark.parametrize(
    "action",
    [Attack(1, "abc"), Equip(2, 5, None), Equip(2, 5, 7), Telescope(1, 3, (4, 5))],
)
def test_actions_round_trip_through_json(action):
    data = json.loads(json.dumps(action.to_json()))
    assert action_from_json(data) == action


def test_every_action_kind_is_registered():
    # Day modules (votes, shop ...) add their kinds on import: check each class, not a count.
    # The base is shared with werewolf, whose kinds live in its own registry.
    kinds = {cls.kind for cls in Action.__subclasses__() if cls.__module__.startswith("royale.")}
    assert len(kinds) >= 17
    assert kinds == set(ACTION_TYPES)
    with pytest.raises(InvalidInput):
        action_from_json({"kind": "fly", "actor": 1})


def test_events_round_trip_through_json():
    _, events = new_game(I256, [(1, "甲"), (2, "乙")], rng())
    for e in events:
        assert GameEvent.from_json(json.loads(json.dumps(e.to_json()))) == e


def test_vote_reward_may_go_past_six_items():
    state = empty_game(n=1, where="监狱")
    for _ in range(6):
        state, _ = give(state, 1, "supply:[HP10]草药")
    state, events = grant_item(state, 1, "weapon:blue", rng(), "vote reward")
    assert state.characters[1].item_count() == 7
    (granted,) = of(events, "item_granted")
    assert granted.payload["item"]["tier"] == "blue"


def test_airdrop_never_lands_in_the_safe_zone_or_the_special_zone():
    state = empty_game(K252, n=1)
    state, events = airdrop(state, ["supply:[HP60]愈合膏"] * 200, rng())
    assert state.places["产屋敷宅邸"].items == []
    assert state.places["无限城"].items == []
    (public,) = [e for e in events if e.audience.kind == "public"]
    assert set(public.payload) == {"items"}  # names announced, places not


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"kind": "whisper", "actor": 1, "target": 2, "text": 5},
        {"kind": "whisper", "actor": 1, "target": 2},
        {"kind": "move", "actor": True, "place": "钟楼"},
        {"kind": "telescope", "actor": 1, "item": 3, "targets": [1, "x"]},
        {"kind": "answer_phone", "actor": 1, "call": 1, "accept": "yes"},
    ],
)
def test_malformed_actions_are_invalid_input(data):
    with pytest.raises(InvalidInput):
        action_from_json(data)


def test_invariant_checker_reports_broken_states():
    from royale.engine.invariants import problems

    state = empty_game(n=2, where="监狱")
    state, knife = give(state, 1, "weapon:green:小刀", hand=True)
    assert problems(state) == []
    state.characters[2].pack.append(knife)  # one item in two places (deliberately corrupt)
    state.characters[2].hp = 120
    state.places["钟楼"].gone = True
    state.places["钟楼"].items.append(999)
    found = " / ".join(problems(state))
    assert "both at" in found
    assert "HP 120" in found
    assert "vanished place 钟楼" in found
    assert "not in the item table" in found
