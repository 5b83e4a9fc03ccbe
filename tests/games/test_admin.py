"""The control room: a director sees and changes only their own games."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from games import services
from games.models import Character, Event, Game
from tests.conftest import api_login, make_game

pytestmark = pytest.mark.django_db


def test_a_director_lists_only_their_games(
    director_client: Client, game: Game, django_user_model: Any
) -> None:
    other = make_game("061", characters=("丁",))
    page = director_client.get("/admin/games/game/").content.decode()
    assert "[256]" in page
    assert "[061]" not in page
    assert director_client.get(f"/admin/games/game/{other.pk}/change/").status_code == 302
    assert director_client.get(f"/admin/games/game/{game.pk}/change/").status_code == 200

    root = django_user_model.objects.create_superuser("root", "r@example.com", "pw-123456789")
    su = Client()
    su.force_login(root)
    assert "[061]" in su.get("/admin/games/game/").content.decode()


def test_a_director_sees_only_their_games_events(director_client: Client, game: Game) -> None:
    other = make_game("061", characters=("丁",))
    services.dice_roll(game=other, director=None, purpose="别人的骰子", sides=6)
    services.dice_roll(game=game, director=None, purpose="自己的骰子", sides=6)
    response = director_client.get("/admin/games/event/")
    shown = list(response.context["cl"].result_list)
    assert [e.game for e in shown] == [game]
    assert "[061]" not in response.content.decode()  # not even in the filters


def test_generating_passwords_shows_them_once_and_stores_digests(
    director_client: Client, game: Game
) -> None:
    response = director_client.post(
        "/admin/games/game/",
        {"action": "generate_passwords", "_selected_action": [game.pk]},
    )
    assert response.status_code == 200
    page = response.content.decode()
    for character in Character.objects.filter(game=game):
        assert character.name in page
        assert character.password_digest
    # a shown password logs its character in
    password = re.findall(r"<code[^>]*>([2-9a-z]{6}(?:-[2-9a-z]{6}){3})</code>", page)[0]
    assert api_login(Client(), "256", password).status_code == 200


def test_advancing_a_phase_asks_for_a_reason_then_logs_the_override(
    director_client: Client, game: Game, director: Any
) -> None:
    form = director_client.post(
        "/admin/games/game/", {"action": "advance_phase", "_selected_action": [game.pk]}
    )
    assert "理由" in form.content.decode()
    done = director_client.post(
        "/admin/games/game/",
        {
            "action": "advance_phase",
            "_selected_action": [game.pk],
            "confirm": "1",
            "reason": "导演提前开门",
        },
        follow=True,
    )
    assert done.status_code == 200
    event = Event.objects.get(game=game, kind="phase_changed")
    assert (event.director, event.reason) == (director, "导演提前开门")
    game.refresh_from_db()
    assert (game.day, game.phase) == (1, "day")


def test_the_event_log_cannot_be_edited(director_client: Client, game: Game) -> None:
    services.dice_roll(game=game, director=None, purpose="d6", sides=6)
    event = Event.objects.get(game=game)
    response = director_client.post(f"/admin/games/event/{event.pk}/change/", {"kind": "forged"})
    assert response.status_code == 403
    event.refresh_from_db()
    assert event.kind == "dice_rolled"
    assert (
        director_client.post(f"/admin/games/event/{event.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )


def test_the_director_group_exists_with_the_control_room_permissions() -> None:
    services.groups_ensure()
    group = Group.objects.get(name="导演")
    codenames = set(group.permissions.values_list("codename", flat=True))
    assert {"change_game", "view_event", "add_announcement"} <= codenames
    assert "change_event" not in codenames
    assert Group.objects.filter(name="论坛管理").exists()


def test_the_event_log_reads_as_chinese_sentences(director_client: Client, game: Game) -> None:
    services.dice_roll(game=game, director=None, purpose="先手", sides=6)
    page = director_client.get("/admin/games/event/").content.decode()
    assert "dice_rolled" not in page
    assert "先手" in page
