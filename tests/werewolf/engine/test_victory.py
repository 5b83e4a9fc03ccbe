"""胜负判定 of [099]: wolves at half, 屠边 (the 4 villagers, or every special role), the
white wolf's own side, surrender, and one winner only."""

from __future__ import annotations

import pytest

from werewolf.engine import Surrender, SurrenderAnswer, apply_action
from werewolf.engine.errors import GameOver, NoSurrender

from .support import (
    CHIEF,
    GUARD,
    HUNTER,
    IDIOT,
    LOVER,
    MONK,
    SEER,
    VILLAGERS,
    WHITE,
    WITCH,
    close_at,
    edit,
    game,
    play_night,
    rng,
    use,
    vote,
)

SPECIALS = (SEER, WITCH, GUARD, LOVER, CHIEF, HUNTER, MONK, IDIOT, 14)


def out(state, *pids: int):
    for pid in pids:
        state = edit(state, pid, alive=False)
    return state


def test_wolves_win_at_half() -> None:
    # 4 wolves, white wolf and 4 others alive = 9 → one more out makes 4 of 8.
    state = out(game(), *SPECIALS[:8], 15, 16)
    state, _ = play_night(state)
    assert state.winner is None
    state, events = play_night(state, [(1, "wolf_kill", 17)])
    assert state.winner == "wolves"
    assert state.phase == "over"
    over = next(e.payload for e in events if e.kind == "game_over")
    assert over["winner_name"] == "狼人阵营"


@pytest.mark.parametrize("group", [VILLAGERS, SPECIALS])
def test_village_loses_by_tu_bian_and_wolves_win(group: tuple[int, ...]) -> None:
    state = out(game(), *group[:-1])
    state, _ = play_night(state, [(1, "wolf_kill", group[-1])])
    assert state.lost[0] == "village"
    assert state.winner == "wolves"


def test_winner_stops_the_settlement() -> None:
    state = out(game(), *VILLAGERS[:3])
    state, _ = play_night(state, [(1, "wolf_kill", 18), (WHITE, "white_kill", SEER)])
    assert state.winner == "wolves"
    assert state.players[SEER].alive  # settled after the win: never


def test_white_wolf_wins_when_both_others_lost() -> None:
    state = out(game(), *VILLAGERS[:3], 2, 3, 4)
    state, _ = vote(play_night(state)[0], {18: 1})
    assert state.winner is None
    assert state.lost == ("wolves",)
    state, _ = play_night(state, [(WHITE, "white_kill", 18)])
    assert state.winner == "white_wolf"


def test_village_wins_when_wolves_and_white_wolf_lost() -> None:
    state = out(game(), 2, 3, 4, WHITE)
    state, _ = vote(play_night(state)[0], {15: 1})
    assert state.winner == "village"
    with pytest.raises(GameOver):
        use(state, SEER, "divine", 15)


def test_surrender_needs_every_living_wolf() -> None:
    state = out(game(), 4)
    now = close_at(state)
    state, _ = apply_action(state, Surrender(actor=1), rng(), now)
    with pytest.raises(NoSurrender):
        apply_action(state, Surrender(actor=2), rng(), now)
    with pytest.raises(NoSurrender):
        apply_action(state, SurrenderAnswer(actor=SEER, accept=True), rng(), now)
    refused, _ = apply_action(state, SurrenderAnswer(actor=2, accept=False), rng(), now)
    assert refused.surrender is None
    assert not refused.lost
    state, _ = apply_action(state, SurrenderAnswer(actor=2, accept=True), rng(), now)
    assert not state.lost
    state, events = apply_action(state, SurrenderAnswer(actor=3, accept=True), rng(), now)
    assert state.lost == ("wolves",)
    assert state.winner is None
    assert [e.payload["text"] for e in events if e.kind == "surrender"] == ["狼人阵营投降，判负。"]
