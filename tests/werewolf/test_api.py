"""The actions endpoint: only the logged-in character acts, a retry with its key changes
nothing, a refusal is the engine's typed error."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.test import Client

from tests.conftest import bj
from tests.werewolf.players import players, werewolf_game
from werewolf import services, store

pytestmark = pytest.mark.django_db

NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)


def test_a_retry_with_the_same_key_gets_the_first_answer_and_changes_nothing(
    director: Any,
) -> None:
    game, ids = werewolf_game()
    cast = players(game)
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    with time_machine.travel(NIGHT_1 + dt.timedelta(minutes=1), tick=False):
        first = cast[8].act("use_skill", skill="protect", targets=[ids[17]], key="g-1")
        seq = game.events.count()
        again = cast[8].act("use_skill", skill="protect", targets=[ids[17]], key="g-1")
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert game.events.count() == seq
    assert first.json()["me"]["card"]["name"] == "守护"
    assert [e["kind"] for e in first.json()["events"]] == ["submitted"]


def test_a_player_acts_only_as_itself_and_only_with_its_own_skills(director: Any) -> None:
    game, ids = werewolf_game()
    cast = players(game)
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    with time_machine.travel(NIGHT_1 + dt.timedelta(minutes=1), tick=False):
        # A villager has no 守护: the engine refuses, the state stays as it was.
        before = store.state_load(game).to_json()
        refused = cast[15].act("use_skill", skill="protect", targets=[ids[17]], actor=ids[8])
        assert refused.status_code == 409
        assert refused.json()["code"] == "not_your_skill"
        assert store.state_load(game).to_json() == before
        stranger = Client().post(
            f"/api/werewolf/games/{game.pk}/actions",
            {"kind": "surrender"},
            content_type="application/json",
        )
        assert stranger.status_code == 401
        bad = cast[1].act("use_skill", skill="elect", targets=[ids[1]], key="no spaces")
        assert bad.status_code == 400


def test_the_players_page_is_its_own_view_and_the_public_log(director: Any) -> None:
    game, _ = werewolf_game()
    cast = players(game)
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    me = cast[6].me()
    assert me["card"]["name"] == "先知"
    assert [u["skill"] for u in me["usable"]] == ["divine"]
    assert all("role" not in p for p in me["players"])
    log = cast[6].client.get(f"/api/werewolf/games/{game.pk}/me").json()["log"]
    assert {f["stream"] for f in log} == {"public"}
