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


def test_after_the_bots_night_a_newcomer_searching_six_places_finds_items(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bots leave the ground stocked: a human who searches six places after a whole night
    of bots finds items (one seed, one brain: the same game every run)."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    from games.engine import dice
    from royale import services
    from royale.engine.ruleset import get_ruleset
    from royale.selectors import royale_state

    monkeypatch.setattr(dice, "seed_new", lambda: "5eed" * 16)
    now = datetime(2026, 5, 1, 21, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    game = demo.demo_load(now=now).game
    brain = random.Random(15)
    # A night of bots: 30 rounds 31 s apart (past the search cooldown), until their stamina runs
    # out (search and move cost 5 of 100).
    for n in range(30):
        demo.bots_act(now=now + timedelta(seconds=31 * n), brain=brain)
    state = royale_state(game=Game.objects.get(pk=game.pk))
    ground = sum(len(p.items) for p in state.places.values() if not p.gone)
    assert ground >= 100, ground  # of 330 dealt; without the limit a night left 32

    human = Character.objects.get(game=game, name=demo.HUMANS[0])
    rs = get_ruleset(game.ruleset)
    places = [p for p in rs.places if p != rs.safe_zone][:6]
    later = now + timedelta(minutes=30)
    found = 0
    for i, place in enumerate(places):
        kind = "spawn" if i == 0 else "move"
        at = later + timedelta(seconds=31 * i)
        for data in ({"kind": kind, "place": place}, {"kind": "search"}):
            answer = services.action_submit(
                game_id=game.pk, character_id=human.pk, data=data, key=None, now=at
            )
        found += any(
            f["kind"] == "searched" and f["payload"]["found"] == "item" for f in answer["events"]
        )
    assert found >= 3, found  # six searches, most of them an item
