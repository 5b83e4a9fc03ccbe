"""Invariants under random play (hypothesis): replay, bounds, the dead, vanished places, items,
hidden information."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.events import GameEvent
from royale.engine import action_from_json
from royale.engine.errors import ActorDead
from royale.engine.invariants import problems
from royale.engine.state import GameState

from .driver import mentioned, play

# (actor index, garbage?): about one action in six is random junk, to exercise the refusals.
PLAN = st.lists(
    st.tuples(st.integers(0, 5), st.integers(0, 5).map(lambda n: n == 0)), min_size=20, max_size=260
)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RULESETS = st.sampled_from(["islington_256", "kimetsu_252"])
SEEDS = st.integers(0, 10_000)

CHARACTER_KEYS = frozenset(
    {
        "character",
        "characters",
        "target",
        "targets",
        "sender",
        "attacker",
        "victim",
        "actor",
        "holder",
    }
)
# Events whose rules give the recipient a character's identity.
ALLOWED = {
    "whisper": {"sender"},
    "phone_call": {"sender"},
    "whisper_sent": {"target"},
    "phone_placed": {"target"},
    "telescope_result": {"targets", "character"},
}


@SETTINGS
@given(RULESETS, SEEDS, PLAN)
def test_replay_is_deterministic(ruleset, seed, plan):
    a = play(ruleset, seed, plan)
    b = play(ruleset, seed, plan)
    assert [e.to_json() for e in a.events] == [e.to_json() for e in b.events]
    last_a = a.states[-1].to_json() if a.states else None
    last_b = b.states[-1].to_json() if b.states else None
    assert last_a == last_b


def check_state(state: GameState) -> None:
    # Events hand out items past the cap of 6 (RULINGS 10); picking up and looting are checked
    # against it where they happen.
    assert problems(state, cap_items=False) == []


@SETTINGS
@given(RULESETS, SEEDS, PLAN)
def test_invariants_hold_after_every_step(ruleset, seed, plan):
    run = play(ruleset, seed, plan)
    for state in run.states:
        check_state(state)
        assert (
            GameState.from_json(json.loads(json.dumps(state.to_json()))).to_json()
            == state.to_json()
        )


@SETTINGS
@given(RULESETS, SEEDS, PLAN)
def test_refusals_change_nothing_and_the_dead_never_act(ruleset, seed, plan):
    run = play(ruleset, seed, plan, verify_refusals=True)
    for action, error, state in run.refused:
        actor = state.characters.get(action.actor)
        if actor is not None and not actor.alive:
            assert isinstance(error, ActorDead)
    for action, before in run.applied:
        assert before.characters[action.actor].alive


@SETTINGS
@given(RULESETS, SEEDS, PLAN)
def test_item_count_changes_only_through_logged_events(ruleset, seed, plan):
    run = play(ruleset, seed, plan)
    if not run.states:
        return
    created: set[int] = set()
    logged_gone: set[int] = set()
    for e in run.events:
        if e.audience.kind != "directors":
            continue
        p = e.payload
        if e.kind == "game_created":
            created |= {i for items in p["scattered"].values() for i in items}
        elif e.kind == "upgraded":
            created.add(p["created"])
            logged_gone |= {p["upgrader"], p["from"]}
        elif e.kind == "item_created":
            created.add(p["item"])
        elif e.kind in ("used", "bomb", "phone"):
            logged_gone.add(p["item"])
        elif e.kind == "items_vanished":
            logged_gone |= set(p["items"])
        elif e.kind == "item_broken":
            logged_gone.add(p["item"]["id"])
    final = run.states[-1]
    assert set(final.items) == created
    assert set(final.gone) <= logged_gone


@SETTINGS
@given(RULESETS, SEEDS, PLAN)
def test_no_player_event_names_a_hidden_character(ruleset, seed, plan):
    run = play(ruleset, seed, plan)
    names = {}
    if run.states:
        names = {c.id: c.name for c in run.states[-1].characters.values()}
    for e in run.events:
        assert GameEvent.from_json(json.loads(json.dumps(e.to_json()))) == e
        if e.audience.kind != "character":
            continue
        me = e.audience.character
        allowed_keys = ALLOWED.get(e.kind, set())
        open_ids = mentioned(
            {k: v for k, v in e.payload.items() if k in allowed_keys}, CHARACTER_KEYS
        )
        named = mentioned(e.payload, CHARACTER_KEYS) - {me} - open_ids
        assert not named, (e.kind, e.payload)
        assert e.actor in (None, me)
        text = json.dumps(e.payload, ensure_ascii=False)
        for cid, name in names.items():
            if cid != me and cid not in open_ids and e.kind not in ("whisper",):
                assert name not in text, (e.kind, e.payload)


@pytest.mark.parametrize("ruleset", ["islington_256", "kimetsu_252"])
def test_a_long_random_game_keeps_every_invariant(ruleset):
    plan = [(i * 7 % 6, i % 5 == 0) for i in range(600)]
    run = play(ruleset, 3, plan, nights_every=60)
    assert run.applied
    assert run.refused
    for state in run.states:
        check_state(state)


@SETTINGS
@given(RULESETS, SEEDS, PLAN)
def test_every_action_survives_the_log(ruleset, seed, plan):
    run = play(ruleset, seed, plan)
    actions = [a for a, _ in run.applied] + [a for a, _, _ in run.refused]
    for action in actions:
        assert action_from_json(json.loads(json.dumps(action.to_json()))) == action
