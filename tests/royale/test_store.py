"""The state's storage: a snapshot now and then, the logged steps in between re-run on it."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command

from games.models import Game
from royale import store
from royale.models import RoyaleGame
from royale.services import royale_replay
from tests.royale.conftest import night_one, players, royale_game, state_of

pytestmark = pytest.mark.django_db


def _snapshot_seq(game: Game) -> int:
    return RoyaleGame.objects.get(pk=game.pk).state_rng_seq


def test_actions_write_the_snapshot_every_n_steps_and_the_log_holds_the_rest(
    at_night_one: Any, settings: Any
) -> None:
    settings.ROYALE_SNAPSHOT_EVERY = 3
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    opened = _snapshot_seq(game)  # night_open is a transition: always stored
    cast = players(game)
    a, b = cast["甲"], cast["乙"]
    a.act("spawn", place="监狱")
    b.act("spawn", place="教堂")
    assert _snapshot_seq(game) == opened  # two actions: still only in the log
    a.act("move", place="医院")  # the third: stored
    third = _snapshot_seq(game)
    assert third > opened
    b.act("move", place="监狱")
    assert _snapshot_seq(game) == third

    # Another process (nothing remembered) rebuilds the same state from snapshot and log.
    remembered = state_of(game).to_json()
    store.forget()
    assert state_of(game).to_json() == remembered
    assert state_of(game).characters[b.id].place == "监狱"
    assert state_of(game).characters[b.id].mp == 95
    rebuilt = royale_replay(game=game)
    assert rebuilt is not None
    assert rebuilt.to_json() == remembered
    call_command("replay_game", "256")


def test_a_cold_process_acts_on_the_state_with_the_logged_steps(
    at_night_one: Any, settings: Any
) -> None:
    settings.ROYALE_SNAPSHOT_EVERY = 100
    game = royale_game("256", ("甲",))
    night_one(game)
    a = players(game)["甲"]
    a.act("spawn", place="监狱")
    a.act("move", place="医院")
    store.forget()
    moved = a.act("move", place="教堂").json()["me"]
    assert (moved["place"], moved["mp"]) == ("教堂", 90)  # both earlier steps counted


@pytest.mark.django_db(transaction=True)
def test_a_process_behind_the_log_re_runs_only_the_steps_it_missed(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    cast = players(game)
    cast["甲"].act("spawn", place="监狱")
    behind = store._COMMITTED[game.pk]  # what this process committed so far
    cast["乙"].act("spawn", place="教堂")
    cast["乙"].act("move", place="医院")
    # As if those two steps had been committed by another process:
    store._COMMITTED[game.pk] = behind
    fresh = Game.objects.get(pk=game.pk)
    assert behind[1] < fresh.seq
    loaded = store.state_load(fresh)
    assert loaded.state.characters[cast["乙"].id].place == "医院"
    assert loaded.tail == behind[3] + 2
    assert loaded.state.to_json() == royale_replay(game=game).to_json()  # type: ignore[union-attr]
