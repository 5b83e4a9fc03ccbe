"""The API's contract: typed errors with stable codes, never a 500 for bad input."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Event, Game
from tests.conftest import api_login

pytestmark = pytest.mark.django_db


def test_the_api_docs_are_served(client: Client) -> None:
    assert client.get("/api/docs").status_code == 200
    schema = client.get("/api/openapi.json").json()
    assert "/api/play/{number}/login" in schema["paths"]


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ("{not json", "application/json"),
        ("[]", "application/json"),
        ('{"password": 12}', "application/json"),
        ('{"password": null}', "application/json"),
        ("{}", "application/json"),
        ("password=x", "application/x-www-form-urlencoded"),
        ("\xff\xfe", "application/json"),
    ],
)
def test_a_malformed_login_is_a_clean_4xx_with_a_code(
    client: Client, game: Game, body: str, content_type: str
) -> None:
    response = client.post("/api/play/256/login", body, content_type=content_type)
    assert response.status_code == 400
    data = response.json()
    assert data["code"] == "invalid_input"
    assert data["message"]


def test_errors_speak_english_when_asked(client: Client, game: Game) -> None:
    response = api_login(client, "256", "wrong", HTTP_ACCEPT_LANGUAGE="en")
    assert response.json()["message"].startswith("Wrong password")
    chinese = api_login(client, "256", "wrong")
    assert chinese.json()["message"] == "密码错误或登录链接已失效。"


def test_unknown_games_and_bad_ids_are_404_or_400_never_500(client: Client) -> None:
    assert client.get("/api/games/999999/events").json()["code"] == "not_found"
    bad = client.get("/api/games/abc/events")
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid_input"
    assert client.get("/api/games/by-number/nope").status_code == 404
    negative = client.get("/api/games/1/events?after=-5")  # no game exists here
    assert (negative.status_code, negative.json()["code"]) == (404, "not_found")


def test_the_public_game_shows_the_seed_hash_but_never_the_seed(client: Client, game: Game) -> None:
    data = client.get("/api/games/by-number/256").json()
    assert data["seed_hash"] == game.seed_hash
    assert data["seed"] is None
    page = client.get("/games/256/").content.decode()
    assert game.seed_hash in page
    assert game.seed not in page
    assert game.seed not in client.get("/api/games/by-number/256").content.decode()

    game.seed_revealed = True
    game.status = "finished"
    game.save()
    assert client.get("/api/games/by-number/256").json()["seed"] == game.seed
    assert game.seed in client.get("/games/256/").content.decode()


def test_a_game_in_preparation_shows_only_its_seed_hash(client: Client, game: Game) -> None:
    """The hash is public before anything is dealt from the seed; the game is not listed,
    nobody logs in and the API does not know it until it starts."""
    game.status = "draft"
    game.save()
    page = client.get("/games/256/").content.decode()
    assert game.seed_hash in page
    assert game.seed not in page
    assert "角色登录" not in page
    assert client.get("/api/games/by-number/256").status_code == 404
    assert "伊斯灵顿" not in client.get("/").content.decode()


def test_a_players_event_feed_never_shows_other_characters_secrets(
    client: Client, game: Game, passwords: dict[str, str]
) -> None:
    from games import services
    from games.engine.events import DIRECTORS, GameEvent, to_character

    cast = {c.name: c for c in game.characters.all()}
    services.event_record(
        game=game, events=[GameEvent("note", to_character(cast["乙"].pk), {"text": "乙的身份"})]
    )
    services.event_record(game=game, events=[GameEvent("note", DIRECTORS, {"text": "导演笔记"})])
    assert api_login(client, "256", passwords["甲"]).status_code == 200
    body = client.get(f"/api/games/{game.pk}/events").content.decode()
    assert "乙的身份" not in body
    assert "导演笔记" not in body
    assert "passwords_generated" not in body
    assert Event.objects.filter(game=game).count() == 3


def test_each_kinds_action_body_is_documented_as_its_own(client: Client) -> None:
    schema = client.get("/api/openapi.json").json()
    schemas = schema["components"]["schemas"]

    def body(path: str) -> set[str]:
        ref = schema["paths"][path]["post"]["requestBody"]["content"]["application/json"]
        return set(schemas[ref["schema"]["$ref"].rsplit("/", 1)[1]]["properties"])

    royale = body("/api/royale/games/{game_id}/actions")
    werewolf = body("/api/werewolf/games/{game_id}/actions")
    assert {"kind", "place", "handle", "ware"} <= royale
    assert "skill" not in royale
    assert {"kind", "skill", "targets"} <= werewolf
    assert "place" not in werewolf
