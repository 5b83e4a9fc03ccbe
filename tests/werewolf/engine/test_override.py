"""The director's override of a night's draft (RULINGS 6) beyond its eliminations: the private
feedback (a 预言 result, a note) and the effects (a voided potion, 爱慕, 守卫, 长生), each
logged beside the engine's own value."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from games.engine.errors import InvalidInput
from games.engine.events import GameEvent
from werewolf.engine import Forgo, apply_action, deadline_pass, night_publish, night_resolve
from werewolf.engine import player_view as view
from werewolf.engine.errors import SkillUsedUp
from werewolf.engine.state import GameState

from .support import (
    CHIEF,
    GUARD,
    LOVER,
    MIN,
    SEATS,
    SEER,
    WHITE,
    WITCH,
    WITCH_SKILLS,
    closed,
    game,
    open_night,
    outs,
    play_night,
    rng,
    roundtrip,
    use,
)

BY = {"by": "导演A", "reason": "导演改判"}


def draft_night(state: GameState, picks: Iterable[tuple[int, str, int]] = ()) -> GameState:
    """A night played up to its draft (phase late): P1 leads the wolves, the kills not picked
    are forgone, every deadline passes."""
    state = open_night(state)
    for w in (1, 2, 3, 4):
        if state.players[w].alive:
            state, _ = use(state, w, "elect", 1)
    picks = list(picks)
    for actor, skill, target in picks:
        if skill not in WITCH_SKILLS:
            state, _ = use(state, actor, skill, target)
    for actor, skill in ((1, "wolf_kill"), (WHITE, "white_kill")):
        if str(actor) not in state.night["subs"].get(skill, {}):
            forgo = Forgo(actor=actor, skill=skill)
            state, _ = apply_action(state, forgo, rng(), closed(state) + MIN)
    for actor, skill, target in picks:
        if skill in WITCH_SKILLS:
            state, _ = use(state, actor, skill, target)
    state, _ = deadline_pass(state, rng(), closed(state) + 61 * MIN)
    state, _ = night_resolve(state, rng())
    return state


def publish(
    state: GameState, overrides: dict[str, Any] | None = None
) -> tuple[GameState, list[GameEvent]]:
    given = None if overrides is None else roundtrip({**BY, **overrides})  # as the log keeps it
    return night_publish(state, rng(), closed(state) + 12 * 3600, overrides=given)


def override_log(events: list[GameEvent]) -> dict[str, Any]:
    (log,) = [e for e in events if e.kind == "night_override"]
    assert log.audience.kind == "directors"
    assert roundtrip(log.payload) == log.payload  # survives the log's JSON
    return dict(log.payload)


def told(events: list[GameEvent]) -> dict[int, list[dict[str, Any]]]:
    """Every private feedback event by the character it reaches."""
    out: dict[int, list[dict[str, Any]]] = {}
    for e in events:
        if e.kind == "feedback":
            assert e.audience.kind == "character"
            assert e.audience.character is not None
            out.setdefault(e.audience.character, []).append(dict(e.payload))
    return out


def test_a_seers_result_overridden_to_failed_reaches_the_seer_only() -> None:
    state = draft_night(game(), [(SEER, "divine", 1)])
    drafted = {"kind": "divine", "target": 1, "role": "狼人", "target_name": "P1"}
    assert state.result is not None
    assert state.result["feedback"] == {str(SEER): [drafted]}
    failed = {"kind": "divine", "target": 1, "failed": True}
    state, events = publish(state, {"feedback": {str(SEER): [failed]}})
    assert told(events) == {SEER: [{**failed, "target_name": "P1"}]}
    assert view(state, SEER)["feedback"] == [{**failed, "target_name": "P1", "day": 1}]
    for pid in SEATS:  # no one else learns anything, the draft's 狼人 included
        if pid != SEER:
            assert view(state, pid)["feedback"] == []
    log = override_log(events)
    assert log["feedback_engine"] == {str(SEER): [drafted]}
    assert log["feedback_applied"] == {str(SEER): [{**failed, "target_name": "P1"}]}
    assert log["engine"] == log["applied"] == []
    assert "effects_engine" not in log


def test_a_seers_result_overridden_to_another_role() -> None:
    state = draft_night(game(), [(SEER, "divine", 1)])
    state, events = publish(
        state, {"feedback": {SEER: [{"kind": "divine", "target": 1, "role": "村民"}]}}
    )
    assert told(events) == {
        SEER: [{"kind": "divine", "target": 1, "role": "村民", "target_name": "P1"}]
    }


def test_a_note_reaches_only_its_player_and_the_others_keep_the_draft() -> None:
    state = draft_night(game(), [(SEER, "divine", 1)])
    note = {"kind": "note", "text": "导演私信：今晚你梦见了月亮。"}
    state, events = publish(state, {"feedback": {"15": [note]}})
    assert told(events) == {
        SEER: [{"kind": "divine", "target": 1, "role": "狼人", "target_name": "P1"}],
        15: [note],
    }
    assert view(state, 15)["feedback"] == [{**note, "day": 1}]
    assert all(view(state, p)["feedback"] == [] for p in SEATS if p not in (SEER, 15))
    log = override_log(events)
    assert log["feedback_engine"] == {str(SEER): [told(events)[SEER][0]]}
    assert set(log["feedback_applied"]) == {str(SEER), "15"}


def test_an_empty_list_removes_a_players_feedback() -> None:
    state = draft_night(game(), [(SEER, "divine", 1)])
    state, events = publish(state, {"feedback": {str(SEER): []}})
    assert told(events) == {}
    assert view(state, SEER)["feedback"] == []
    assert override_log(events)["feedback_applied"] == {}


def test_a_voided_save_leaves_the_potion_unused_for_the_next_night() -> None:
    state = draft_night(game(), [(1, "wolf_kill", 15), (WITCH, "save", 15)])
    assert state.result is not None
    drafted = state.result["effects"]
    assert drafted["used"] == [[WITCH, "save"]]
    state, events = publish(state, {"effects": {"used": []}})
    assert outs(state) == []  # the save still stood tonight: only the potion is not spent
    assert not state.players[WITCH].used.get("save")
    log = override_log(events)
    assert log["effects_engine"] == drafted
    assert log["effects_applied"] == {**drafted, "used": []}
    assert "feedback_engine" not in log
    # The next night she saves again.
    state, _ = play_night(state, [(1, "wolf_kill", 16), (WITCH, "save", 16)])
    assert outs(state) == []
    assert state.players[WITCH].used["save"] == 1


def test_without_the_override_the_potion_is_spent() -> None:
    state, _ = publish(draft_night(game(), [(1, "wolf_kill", 15), (WITCH, "save", 15)]))
    state = open_night(state)
    with pytest.raises(SkillUsedUp):
        use(state, WITCH, "save", 16)


def test_a_voided_admire_takes_no_ones_place() -> None:
    state = draft_night(game(), [(LOVER, "admire", 15), (1, "wolf_kill", 15)])
    state, _ = publish(state, {"effects": {"love": [], "used": []}})
    assert outs(state) == [(15, "杀人")]
    assert "love" not in state.players[LOVER].links
    assert not state.players[LOVER].used.get("admire")


def test_a_voided_guard_and_longevity() -> None:
    state = draft_night(game(), [(GUARD, "protect", 15), (1, "wolf_kill", CHIEF)])
    assert state.result is not None
    assert state.result["effects"]["longevity"] == [CHIEF]
    state, events = publish(state, {"effects": {"protect": [], "longevity": []}})
    assert "last_protect" not in state.players[GUARD].flags  # 15 may be guarded again
    assert not state.players[CHIEF].used.get("longevity")
    assert told(events) == {}  # no [长生]已发动 for the 村长


@pytest.mark.parametrize(
    "overrides",
    [
        {"effects": {"used": [[WITCH, "poison"]]}},  # an invented effect
        {"effects": {"used": [[WITCH, "save"], [WITCH, "save"]]}},  # kept twice
        {"effects": {"love": [[LOVER, 15]]}},
        {"effects": {"used": [[True, "save"]]}},
        {"effects": {"potions": []}},  # an unknown key
        {"effects": []},
        {"feedback": {str(SEER): [{"kind": "divine", "target": 1, "role": "魔王"}]}},
        {"feedback": {str(SEER): [{"kind": "divine", "target": 1, "role": "wolf"}]}},  # a key
        {"feedback": {str(SEER): [{"kind": "divine", "target": 99, "role": "狼人"}]}},
        {"feedback": {str(SEER): [{"kind": "divine", "target": 1, "failed": False}]}},
        {"feedback": {str(SEER): [{"kind": "divine", "target": 1, "role": "狼人", "x": 1}]}},
        {"feedback": {str(SEER): [{"kind": "note", "text": "   "}]}},  # an empty note
        {"feedback": {str(SEER): [{"kind": "note", "text": "长" * 501}]}},
        {"feedback": {str(SEER): [{"kind": "longevity"}]}},
        {"feedback": {"99": [{"kind": "note", "text": "你好"}]}},
        {"feedback": {str(SEER): {"kind": "note", "text": "你好"}}},
        {"feedback": [[SEER, []]]},
        {"hits": [["x", "杀人"]]},
    ],
)
def test_a_bad_override_is_refused_and_changes_nothing(overrides: dict[str, Any]) -> None:
    state = draft_night(game(), [(SEER, "divine", 1), (1, "wolf_kill", 15), (WITCH, "save", 15)])
    before = state.to_json()
    with pytest.raises(InvalidInput):
        publish(state, overrides)
    assert state.to_json() == before
    state, events = publish(state)  # the draft still publishes as it is
    assert state.players[WITCH].used["save"] == 1
    assert told(events)[SEER][0]["role"] == "狼人"


def test_a_note_of_500_characters_is_fine() -> None:
    state = draft_night(game())
    _, events = publish(state, {"feedback": {"15": [{"kind": "note", "text": "长" * 500}]}})
    assert [len(f["text"]) for f in told(events)[15]] == [500]
