"""The shared core's writes: the event log, the scheduler, overrides, announcements, dice."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import threading
from typing import Any

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.db import connection, connections
from django.utils import timezone

from games import services
from games.engine.errors import InvalidInput
from games.engine.events import PUBLIC, GameEvent, to_character
from games.errors import GameNotLive
from games.models import Announcement, Event, Game, TimetableOverride, TransitionRecord
from tests.conftest import bj, make_game


@pytest.mark.django_db
def test_due_transitions_run_in_order_each_logged_with_its_phase(game: Game) -> None:
    done = services.transitions_run_due(now=bj(2, 21, 12))
    assert [(d, k) for _, d, k in done] == [
        (1, "day_open"), (1, "day_close"), (1, "night_open"), (1, "night_end"),
        (1, "night_close"), (2, "day_open"), (2, "day_close"), (2, "night_open"),
    ]  # fmt: skip
    game.refresh_from_db()
    assert (game.day, game.phase) == (2, "night")
    phases = Event.objects.filter(game=game, kind="phase_changed").order_by("seq")
    assert [e.payload["transition"] for e in phases][-1] == "night_open"
    assert all(e.audience == "public" for e in phases)
    # a second tick at the same moment finds nothing to do
    assert services.transitions_run_due(now=bj(2, 21, 12)) == []


@pytest.mark.django_db
def test_games_that_are_not_live_do_not_move(game: Game) -> None:
    game.status = "draft"
    game.save()
    assert services.transitions_run_due(now=bj(5, 0)) == []


@pytest.mark.django_db
def test_a_director_advances_the_phase_by_hand_with_a_logged_reason(
    game: Game, director: Any
) -> None:
    with time_machine.travel(bj(1, 9), tick=False):
        services.transitions_run_due(now=timezone.now())  # day 1 opened at 00:00
        step = services.phase_advance(game=game, director=director, reason="全员已投票，提前关门")
    assert (step.day, step.kind) == (1, "day_close")
    event = Event.objects.get(game=game, kind="phase_changed", payload__transition="day_close")
    assert event.director == director
    assert event.reason == "全员已投票，提前关门"
    record = TransitionRecord.objects.get(game=game, day=1, kind="day_close")
    assert record.director == director
    # the scheduled 21:00 close does not happen a second time
    assert (1, "day_close") not in [
        (d, k) for _, d, k in services.transitions_run_due(now=bj(1, 21, 5))
    ]


@pytest.mark.django_db
def test_advancing_needs_a_reason_and_a_live_game(game: Game, director: Any) -> None:
    with pytest.raises(InvalidInput):
        services.phase_advance(game=game, director=director, reason="  ")
    game.status = "finished"
    game.save()
    with pytest.raises(GameNotLive):
        services.phase_advance(game=game, director=director, reason="测试")
    assert not TransitionRecord.objects.filter(game=game).exists()


@pytest.mark.django_db
def test_a_published_announcement_is_a_public_event(game: Game, director: Any) -> None:
    draft = Announcement.objects.create(game=game, day=1, title="晨报", body="平安夜")
    services.announcement_publish(announcement=draft, director=director)
    services.announcement_publish(announcement=draft, director=director)  # twice: once
    events = Event.objects.filter(game=game, kind="announcement")
    assert events.count() == 1
    assert events[0].audience == "public"
    assert events[0].payload["body"] == "平安夜"


@pytest.mark.django_db
def test_verify_game_accepts_honest_rolls_and_reports_a_tampered_one(
    game: Game, director: Any, capsys: Any
) -> None:
    for sides in (6, 20, 37):
        services.dice_roll(game=game, director=director, purpose=f"d{sides}", sides=sides)
    call_command("verify_game", "256")
    assert "3 roll(s) verified" in capsys.readouterr().out

    event = Event.objects.filter(game=game, kind="dice_rolled").order_by("seq")[1]
    roll = event.payload["rolls"][0]
    roll["result"] = [(roll["result"][0] + 1) % roll["n"]]
    event.payload["rolls"] = [roll]
    event.save()
    with pytest.raises(CommandError, match="1 mismatch"):
        call_command("verify_game", "256")
    assert f"#{event.seq} dice_rolled" in capsys.readouterr().err


@pytest.mark.django_db
def test_verify_game_leaves_an_engine_steps_faces_to_the_replay(
    game: Game, director: Any, capsys: Any
) -> None:
    """The vote reward lists the die faces its step drew (plain numbers under ``rolls``):
    they are no roll records, and verify_game must not call them malformed."""
    services.dice_roll(game=game, director=director, purpose="d6", sides=6)
    reward = {"day": 2, "character": 1, "name": "甲", "die": 6, "rolls": [4, 2]}
    services.event_record(game=game, events=[GameEvent("vote_reward", PUBLIC, reward)])
    call_command("verify_game", "256")
    assert "1 roll(s) verified, all match" in capsys.readouterr().out


@pytest.mark.django_db
def test_verify_game_with_a_seed_that_is_not_the_published_one_fails(
    game: Game, director: Any
) -> None:
    services.dice_roll(game=game, director=director, purpose="d6", sides=6)
    with pytest.raises(CommandError):
        call_command("verify_game", "256", seed="0" * 64)


@pytest.mark.django_db
def test_a_die_needs_at_least_two_sides(game: Game, director: Any) -> None:
    with pytest.raises(InvalidInput):
        services.dice_roll(game=game, director=director, purpose="d1", sides=1)
    assert not Event.objects.filter(kind="dice_rolled").exists()


# --- PostgreSQL: row locks and concurrency ---------------------------------------------


def _database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_tick_from_two_processes_at_once_runs_each_due_transition_once() -> None:
    games = [make_game(f"9{i}", characters=("甲",)) for i in range(6)]
    # Days 1 and 2 lie wholly in the past and day 3 opens in an hour: exactly 10 are due.
    for game in games:
        game.start_date = timezone.localdate() - dt.timedelta(days=2)
        game.save()
        TimetableOverride.objects.create(
            game=game, day=3, kind="day_open", at=timezone.now() + dt.timedelta(hours=1)
        )
    env = {**os.environ, "DATABASE_URL": _database_url()}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    ticks = [
        subprocess.Popen(
            [sys.executable, "manage.py", "tick"], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [t.communicate(timeout=120)[0] for t in ticks]
    assert all(t.returncode == 0 for t in ticks)
    lines = [line for out in outputs for line in out.splitlines() if line.startswith("game ")]
    per_game = 10
    assert len(lines) == len(set(lines)) == per_game * len(games)
    for game in games:
        assert TransitionRecord.objects.filter(game=game).count() == per_game
        assert Event.objects.filter(game=game, kind="phase_changed").count() == per_game


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_leave_no_gap_or_duplicate_in_the_sequence() -> None:
    game = make_game("77", characters=("甲", "乙"))
    cast = list(game.characters.values_list("pk", flat=True))
    writers, per_writer = 8, 25
    barrier = threading.Barrier(writers)
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            barrier.wait()
            for i in range(per_writer):
                audience = PUBLIC if i % 2 else to_character(cast[(n + i) % 2])
                services.event_record(
                    game=game, events=[GameEvent("note", audience, {"n": n, "text": f"第 {n} 条"})]
                )
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, writers * per_writer + 1))
    for stream in ("public", f"c{cast[0]}", f"c{cast[1]}"):
        numbers = list(
            Event.objects.filter(game=game, stream=stream)
            .order_by("stream_seq")
            .values_list("stream_seq", flat=True)
        )
        assert numbers == list(range(1, len(numbers) + 1))


@pytest.mark.django_db
def test_finishing_the_game_reveals_the_seed_that_matches_the_published_hash(
    game: Game, director: Any
) -> None:
    from games.engine import dice

    services.game_finish(game=game, director=director, reason="决出胜者")
    game.refresh_from_db()
    assert (game.status, game.seed_revealed) == ("finished", True)
    event = Event.objects.get(game=game, kind="game_finished")
    assert event.audience == "public"
    assert dice.seed_hash(event.payload["seed"]) == game.seed_hash
    with pytest.raises(GameNotLive):
        services.game_finish(game=game, director=director)
