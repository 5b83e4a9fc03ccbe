"""The [099] demo: 18 characters dealt from the seed, night 1 open now, bots acting through the
real service, three players open to log in."""

from __future__ import annotations

import io
import random

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from games.models import Character, Event, Game
from tests.conftest import api_login
from werewolf import demo
from werewolf.engine import get_ruleset
from werewolf.engine.state import NIGHT
from werewolf.selectors import werewolf_state

pytestmark = pytest.mark.django_db


def test_loading_twice_keeps_one_demo_with_night_one_open_and_prints_the_logins() -> None:
    call_command("werewolf_demo_load", stdout=io.StringIO())
    out = io.StringIO()
    call_command("werewolf_demo_load", stdout=out)
    game = Game.objects.get(number=demo.DEMO_NUMBER)
    assert Game.objects.filter(kind="werewolf").count() == 1
    assert Character.objects.filter(game=game).count() == 18
    assert Character.objects.filter(game=game, bot=True).count() == 15
    state = werewolf_state(game=game)
    assert (state.day, state.phase) == (1, NIGHT)
    printed = out.getvalue()
    for name in demo.HUMANS:
        assert name in printed
    assert f"/admin/werewolf/werewolfgame/{game.pk}/night/" in printed


def test_a_human_logs_in_and_sees_a_role_card() -> None:
    loaded = demo.demo_load()
    client = Client()
    assert api_login(client, loaded.game.number, loaded.passwords[0].secret).status_code == 200
    page = client.get(f"/play/{loaded.game.number}/me/").content.decode()
    role = werewolf_state(game=loaded.game).players[loaded.passwords[0].character.pk].role
    assert "身份卡" in page
    assert get_ruleset("arknights_099").roles[role].name in page


def test_bots_act_through_the_service_and_the_wolves_agree() -> None:
    loaded = demo.demo_load()
    applied = demo.bots_act(now=timezone.now(), brain=random.Random(7))
    assert applied > 0
    steps = Event.objects.filter(game=loaded.game, kind="engine_step", payload__op="action")
    assert steps.count() == applied
    bots = set(Character.objects.filter(game=loaded.game, bot=True).values_list("pk", flat=True))
    assert {s.payload["action"]["actor"] for s in steps} <= bots
    state = werewolf_state(game=loaded.game)
    wolves = {p.id for p in state.players.values() if p.role == "wolf"}
    kills = {t for a, t in state.night["subs"].get("wolf_kill", {}).items() if int(a) in wolves}
    assert len(kills) <= 1
    # a second pass finds nothing new to do for the steps already submitted
    again = demo.bots_act(now=timezone.now(), brain=random.Random(7))
    assert again < applied
