"""A [061] game a director deals and runs: every player's portal and the director's rooms answer
with a page at each moment of the first day and nights (never a 500), and a player's page names
no one else's role."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from games import services as game_services
from games.models import Character, Game
from tests.conftest import api_login, bj
from tests.werewolf.players import START
from werewolf import services, store
from werewolf.engine import get_ruleset

pytestmark = pytest.mark.django_db

NIGHT_0 = bj(1, 0) - dt.timedelta(hours=2)
RULES = get_ruleset("lin_feng_061")


def _pages_answer(game: Game, director_client: Client, passwords: dict[str, str]) -> None:
    state = store.state_load(game)
    for path in (
        reverse("admin:werewolf_night", args=[game.pk]),
        f"/admin/games/game/{game.pk}/prepare/",
        f"/admin/games/game/{game.pk}/change/",
    ):
        response = director_client.get(path)
        assert response.status_code == 200, (path, response.content[:300])
    for player in state.players.values():
        client = Client()
        assert api_login(client, game.number, passwords[player.name]).status_code == 200
        response = client.get(f"/play/{game.number}/me/", follow=True)
        assert response.status_code == 200, (player.name, response.content[:300])
        text = response.content.decode()
        # [061] has no auction: no 表演/挡刀 on the role card.
        assert "挡刀" not in text, player.name
        # Another character's role is never shown beside that character's name.
        for other in state.players.values():
            if other.id == player.id:
                continue
            role = RULES.roles[other.role].name
            assert f"{other.name}（{role}）" not in text, (player.name, other.name)


def test_a_061_game_dealt_by_a_director_has_every_page(
    director: Any, director_client: Client
) -> None:
    game = game_services.game_create(
        kind="werewolf", ruleset="lin_feng_061", number="061", title="林峰", start_date=START
    )
    game.directors.add(director)
    Character.objects.bulk_create(Character(game=game, name=f"演员{n}") for n in range(1, 20))
    issued = game_services.character_passwords_generate(game=game, director=director)
    passwords = {i.character.name: i.secret for i in issued}
    services.werewolf_setup(game=game)
    game_services.game_start(game=game, director=director, now=NIGHT_0)
    _pages_answer(game, director_client, passwords)  # the prelude (附身, 遇难, 票台)

    services.werewolf_deadlines_run(now=NIGHT_0 + dt.timedelta(minutes=62))
    with time_machine.travel(bj(1, 8), tick=False):
        game_services.transitions_run_due(now=bj(1, 8))
        services.werewolf_night_publish(game=game, director=director, reason="")
    assert store.state_load(game).phase == "day"
    _pages_answer(game, director_client, passwords)  # day 1

    with time_machine.travel(bj(3, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(3, 21, 1))
        assert store.state_load(game).phase == "night"
        _pages_answer(game, director_client, passwords)  # night 1
