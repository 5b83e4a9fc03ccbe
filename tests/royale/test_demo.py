"""The demo: 40 characters, the window open now, bots acting through the real service."""

from __future__ import annotations

import random

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.models import Character, Event, Game
from royale import demo

pytestmark = pytest.mark.django_db


def test_the_demo_opens_a_window_now_and_loading_it_twice_keeps_one_demo() -> None:
    call_command("demo_load")
    call_command("demo_load")
    game = Game.objects.get(number=demo.DEMO_NUMBER)
    assert Game.objects.count() == 1
    assert Character.objects.filter(game=game).count() == 40
    assert Character.objects.filter(game=game, bot=True).count() == 37
    assert (game.day, game.phase) == (1, "night")


def test_bots_act_through_the_service_during_the_window() -> None:
    loaded = demo.demo_load()
    applied = demo.bots_act(now=timezone.now(), per_bot=2, brain=random.Random(5))
    assert applied > 37  # every bot spawns, most do something more
    steps = Event.objects.filter(game=loaded.game, kind="engine_step", payload__op="action")
    assert steps.count() == applied
    actors = {s.payload["action"]["actor"] for s in steps}
    humans = set(Character.objects.filter(game=loaded.game, bot=False).values_list("pk", flat=True))
    assert not actors & humans
