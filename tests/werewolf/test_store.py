"""The werewolf state under a game's lock: read once a step, and never stale (a second lock of
the same game in the same transaction saving through its own instance)."""

from __future__ import annotations

import dataclasses

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games.models import Game
from games.services import game_lock
from tests.werewolf.players import werewolf_game
from werewolf import store

pytestmark = pytest.mark.django_db


def day_saved(locked: Game, day: int) -> None:
    """A step on this locked instance: the state read, its day changed, saved."""
    store.state_save(game=locked, state=dataclasses.replace(store.state_load(locked), day=day))


@pytest.mark.django_db(transaction=True)  # the commit, which drops what the instance kept
def test_a_locked_step_reads_the_row_once_and_then_what_it_saved() -> None:
    game, _ = werewolf_game()
    with transaction.atomic():
        locked = game_lock(game.pk)
        with CaptureQueriesContext(connection) as reads:
            first = store.state_load(locked)
            assert store.state_load(locked) is first
        assert len(reads.captured_queries) == 1
        day_saved(locked, 7)
        with CaptureQueriesContext(connection) as reads:
            assert store.state_load(locked).day == 7
        assert reads.captured_queries == []
    # After the commit the row is read again, and holds the save.
    assert locked.__dict__.get("_werewolf_state_kept") is None
    assert store.state_load(locked).day == 7


def test_a_nested_lock_saving_the_state_is_seen_by_the_outer_step() -> None:
    game, _ = werewolf_game()
    with transaction.atomic():
        outer = game_lock(game.pk)
        day_saved(outer, 3)
        # A service the step calls locks the game itself and saves through its own instance.
        inner = game_lock(game.pk)
        assert store.state_load(inner).day == 3
        day_saved(inner, 4)
        assert store.state_load(outer).day == 4
