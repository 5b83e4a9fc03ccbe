"""[061] 林峰 through the shell: dealt from the seed, the prelude (附身, 遇难, the first 票台) is
the first night the director opens, day 1 follows, the day's close settles the vote and opens
night 1; the log replays."""

from __future__ import annotations

import datetime as dt
from typing import Any

import time_machine

from games import services as game_services
from games.models import Character
from tests.conftest import bj
from tests.werewolf.players import START
from werewolf import services, store
from werewolf.engine import tally

NIGHT_0 = bj(1, 0) - dt.timedelta(hours=2)


def test_a_061_game_runs_through_the_shell(director: Any) -> None:
    game = game_services.game_create(
        kind="werewolf",
        ruleset="lin_feng_061",
        number="061",
        title="林峰",
        start_date=START,
        status="running",
    )
    Character.objects.bulk_create(Character(game=game, name=f"P{n}") for n in range(1, 20))
    services.werewolf_setup(game=game)
    services.werewolf_start(game=game, director=director, now=NIGHT_0)
    state = store.state_load(game)
    assert (state.day, state.phase, state.night["prelude"]) == (0, "night", True)
    services.werewolf_deadlines_run(now=NIGHT_0 + dt.timedelta(minutes=62))
    with time_machine.travel(bj(1, 8), tick=False):
        game_services.transitions_run_due(now=bj(1, 8))
        services.werewolf_night_publish(game=game, director=director, reason="")
    state = store.state_load(game)
    assert (state.day, state.phase) == (1, "day")
    assert "drifter" not in {p.faction for p in state.players.values()}
    votable = [p.id for p in state.players.values() if p.statuses.get("stage") != 1]
    voters = sorted(state.players)[:5]
    target = next(v for v in votable if v not in voters)
    services.werewolf_day_vote(
        game=game, director=director, totals=tally(state, dict.fromkeys(voters, target))
    )
    # 讨论日持续两天，每逢周末时讨论日延长一天 (START's first days take in a weekend).
    with time_machine.travel(bj(3, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(3, 21, 1))
    state = store.state_load(game)
    assert (state.day, state.phase) == (1, "night")
    assert state.to_json() == store.replay(game=game).to_json()  # type: ignore[union-attr]
