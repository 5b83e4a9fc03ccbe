"""States, actions and events survive JSON; refused actions change nothing; no player sees
another's role or night result."""

from __future__ import annotations

import pytest

from games.engine.errors import InvalidInput
from games.engine.events import GameEvent
from werewolf.engine import UseSkill, action_from_json, player_view
from werewolf.engine.errors import NotYourSkill
from werewolf.engine.state import GameState

from .support import (
    GUARD,
    HUNTER,
    LOVER,
    SEER,
    WITCH,
    game,
    open_night,
    play_night,
    roundtrip,
    use,
    vote,
)


def a_game_with_everything():
    state, night = play_night(
        game(auction={15: {"block": 5}}),
        [(LOVER, "admire", 16), (GUARD, "protect", 15), (SEER, "divine", 1), (1, "wolf_kill", 15)],
    )
    state, day = vote(state, {15: HUNTER})
    return state, night + day


def test_state_and_events_round_trip() -> None:
    state, events = a_game_with_everything()
    assert GameState.from_json(roundtrip(state.to_json())) == state
    for e in events:
        assert GameEvent.from_json(roundtrip(e.to_json())) == e
    night = open_night(state)
    assert GameState.from_json(roundtrip(night.to_json())) == night


def test_action_round_trip_and_malformed() -> None:
    a = UseSkill(actor=3, skill="protect", targets=(5,))
    assert action_from_json(roundtrip(a.to_json())) == a
    for bad in (
        {"kind": "fly"},
        {"kind": "use_skill", "actor": 3},
        {"kind": "forgo", "actor": "x", "skill": "a"},
    ):
        with pytest.raises(InvalidInput):
            action_from_json(bad)


def test_refusal_changes_nothing() -> None:
    state = open_night(game())
    before = state.to_json()
    with pytest.raises(NotYourSkill):
        use(state, 15, "protect", 16)
    assert state.to_json() == before


ROLE_NAMES = (
    "狼人",
    "先知",
    "女巫",
    "守护",
    "情痴",
    "村长",
    "猎人",
    "高僧",
    "白痴",
    "梦中人",
    "白眼狼",
)


def test_no_player_gets_another_role_or_night_result() -> None:
    state, events = a_game_with_everything()
    names = {p.id: r for p in state.players.values() for r in [_role_name(p.role)]}
    for e in events:
        if e.audience.kind != "character":
            continue
        pid = e.audience.character
        assert pid is not None
        seen = {r for r in ROLE_NAMES if r in str(e.payload)}
        allowed = {names[pid]} | ({"狼人"} if e.kind == "feedback" and pid == SEER else set())
        assert seen <= allowed, (e.kind, pid, seen)
    private = {e.kind: set() for e in events}  # type: dict[str, set[int | None]]
    for e in events:
        if e.audience.kind == "character":
            private[e.kind].add(e.audience.character)
    assert private["feedback"] == {SEER}
    assert private["leader_elected"] == private["team_pick"] == {1, 2, 3, 4}
    assert private.get("sense") == {WITCH}
    for pid in state.players:
        view = player_view(state, pid)
        others = [p for p in view["players"] if p["id"] != pid and "role" in p]
        assert [p["id"] for p in others] == ([HUNTER] if pid != HUNTER else [])
        assert view["feedback"] == [] or pid == SEER
    wolf = player_view(state, 1)
    assert {m["id"] for m in wolf["team"]} == {1, 2, 3, 4}
    assert "team" not in player_view(state, WITCH)


def _role_name(key: str) -> str:
    from werewolf.engine import get_ruleset

    return get_ruleset("arknights_099").roles[key].name


def test_public_events_carry_no_night_secret() -> None:
    _, events = a_game_with_everything()
    for e in events:
        if e.audience.kind == "public" and e.kind != "out":
            assert "role" not in str(e.payload), e
