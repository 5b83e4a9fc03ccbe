"""Live push over real websockets and the real Redis channel layer."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import transaction
from django.test import Client
from django.utils import timezone

from config.asgi import application
from games import services
from games.engine.events import DIRECTORS, PUBLIC, GameEvent, to_character
from games.models import Character, Game
from tests.conftest import HOST, ORIGIN, api_login, make_game, session_cookie, socket_open

pytestmark = pytest.mark.django_db(transaction=True)


def logged_in(number: str, password: str) -> tuple[bytes, bytes]:
    client = Client()
    assert api_login(client, number, password).status_code == 200
    return session_cookie(client)


def director_cookie(user: Any) -> tuple[bytes, bytes]:
    client = Client()
    client.force_login(user)
    return session_cookie(client)


async def player_socket(game: Game, password: str) -> WebsocketCommunicator:
    """A character's browser, logged in, with its socket open (the hello frame read)."""
    cookie = await database_sync_to_async(logged_in)(game.number, password)
    socket, _ = await socket_open(game, ORIGIN, cookie)
    return socket


async def refused(game: Game, *headers: tuple[bytes, bytes]) -> bool:
    # With the browser's Host header, so each refusal is for the reason its test names.
    path = f"/ws/games/{game.pk}/"
    communicator = WebsocketCommunicator(application, path, headers=[HOST, *headers])
    connected, _ = await communicator.connect()
    await communicator.disconnect()
    return not connected


record = database_sync_to_async(services.event_record)


@pytest.fixture
def cast(game: Game, passwords: dict[str, str]) -> dict[str, Character]:
    return {c.name: c for c in game.characters.all()}


async def test_a_character_receives_its_own_events_and_public_ones_never_anothers(
    game: Game, passwords: dict[str, str], cast: dict[str, Character]
) -> None:
    a = await player_socket(game, passwords["甲"])
    b = await player_socket(game, passwords["乙"])

    await record(
        game=game, events=[GameEvent("note", to_character(cast["乙"].pk), {"text": "给乙的秘密"})]
    )
    await record(
        game=game, events=[GameEvent("note", to_character(cast["甲"].pk), {"text": "给甲的秘密"})]
    )
    await record(game=game, events=[GameEvent("note", DIRECTORS, {"text": "导演可见"})])
    await record(game=game, events=[GameEvent("note", PUBLIC, {"text": "公告"})])

    got_a = [await a.receive_json_from(timeout=3) for _ in range(2)]
    assert [(f["stream"], f["stream_seq"], f["payload"]["text"]) for f in got_a] == [
        ("private", 1, "给甲的秘密"),
        ("public", 1, "公告"),
    ]
    assert await a.receive_nothing(timeout=0.3)
    got_b = [await b.receive_json_from(timeout=3) for _ in range(2)]
    assert [f["payload"]["text"] for f in got_b] == ["给乙的秘密", "公告"]
    # A player's frame carries no global sequence: its gaps would count others' hidden actions.
    assert all("seq" not in f and "actor" not in f for f in got_a + got_b)
    await a.disconnect()
    await b.disconnect()


async def test_a_director_receives_every_event_with_the_global_sequence(
    game: Game, director: Any, cast: dict[str, Character]
) -> None:
    d, hello = await socket_open(
        game, ORIGIN, await database_sync_to_async(director_cookie)(director)
    )
    await record(
        game=game,
        events=[
            GameEvent("note", to_character(cast["甲"].pk), {"text": "私"}),
            GameEvent("note", DIRECTORS, {"text": "导"}),
            GameEvent("note", PUBLIC, {"text": "公"}),
        ],
    )
    frames = [await d.receive_json_from(timeout=3) for _ in range(3)]
    head = hello["heads"]["all"]  # the log already holds the password event
    assert head == 1
    assert [(f["seq"], f["audience"], f["payload"]["text"]) for f in frames] == [
        (head + 1, "character", "私"),
        (head + 2, "directors", "导"),
        (head + 3, "public", "公"),
    ]
    await d.disconnect()


async def test_unauthenticated_cross_origin_and_foreign_sockets_are_refused(
    game: Game, passwords: dict[str, str], director: Any
) -> None:
    cookie = await database_sync_to_async(logged_in)("256", passwords["甲"])
    assert await refused(game, ORIGIN)  # no session
    assert await refused(game, (b"origin", b"https://evil.example"), cookie)
    assert await refused(game, cookie)  # no origin at all
    other = await database_sync_to_async(make_game)("061", characters=("丁",))
    assert await refused(other, ORIGIN, cookie)  # logged in, but to another game


async def test_a_client_that_missed_events_gets_them_over_http_by_sequence(
    game: Game, passwords: dict[str, str], cast: dict[str, Character]
) -> None:
    client = Client()
    login = await database_sync_to_async(api_login)(client, "256", passwords["甲"])
    assert login.status_code == 200
    for text in ("一", "二", "三"):
        await record(game=game, events=[GameEvent("note", PUBLIC, {"text": text})])
    await record(
        game=game, events=[GameEvent("note", to_character(cast["甲"].pk), {"text": "私一"})]
    )
    await record(
        game=game, events=[GameEvent("note", to_character(cast["乙"].pk), {"text": "别人的"})]
    )

    response = await database_sync_to_async(client.get)(
        f"/api/games/{game.pk}/events", {"after_public": 1, "after_private": 0}
    )
    assert response.status_code == 200
    texts = [
        (f["stream"], f["stream_seq"], f["payload"]["text"]) for f in response.json()["events"]
    ]
    assert texts == [("public", 2, "二"), ("public", 3, "三"), ("private", 1, "私一")]
    assert "别人的" not in response.content.decode()

    # A game the viewer may not see answers as a missing one (test_security_edges).
    anonymous = await database_sync_to_async(Client().get)(f"/api/games/{game.pk}/events")
    assert anonymous.status_code == 404
    assert anonymous.json()["code"] == "not_found"


async def test_a_push_is_sent_only_after_commit(game: Game, passwords: dict[str, str]) -> None:
    a = await player_socket(game, passwords["甲"])

    def rolled_back() -> None:
        try:
            with transaction.atomic():
                services.events_append(
                    game=services.game_lock(game),
                    events=[GameEvent("note", PUBLIC, {"text": "不该出现"})],
                    now=timezone.now(),
                )
                raise RuntimeError("abort")
        except RuntimeError:
            pass

    await database_sync_to_async(rolled_back)()
    assert await a.receive_nothing(timeout=0.5)
    await a.disconnect()


async def test_pushes_from_request_threads_arrive_in_commit_order(
    game: Game, passwords: dict[str, str], cast: dict[str, Character]
) -> None:
    # The socket's application binds this loop: commits in other threads only queue their
    # frames on it (games.live.push), and the loop sends them in the order queued.
    a = await player_socket(game, passwords["甲"])

    def burst() -> None:
        for n in range(30):
            services.event_record(
                game=game,
                events=[
                    GameEvent("note", to_character(cast["甲"].pk), {"n": n, "text": f"第 {n} 条"})
                ],
            )

    await database_sync_to_async(burst)()
    frames = [await a.receive_json_from(timeout=3) for _ in range(30)]
    assert [f["payload"]["n"] for f in frames] == list(range(30))
    assert [f["stream_seq"] for f in frames] == list(range(1, 31))
    await a.disconnect()


async def test_frames_and_pings_go_through_without_a_hop_to_the_sync_thread(
    game: Game, passwords: dict[str, str], cast: dict[str, Character], monkeypatch: Any
) -> None:
    """channels' dispatch closes stale database connections in its sync thread before every
    message; the game consumer's handlers read no database there, so it does not (a room
    message to 40 members cost 40 such hops in a row: tests/bench/bench_rooms.py)."""
    a = await player_socket(game, passwords["甲"])
    hops: list[str] = []

    async def hop() -> None:
        hops.append("close_old_connections")

    monkeypatch.setattr("channels.consumer.aclose_old_connections", hop)
    await record(game=game, events=[GameEvent("note", PUBLIC, {"text": "公告"})])
    assert (await a.receive_json_from(timeout=3))["payload"]["text"] == "公告"
    await a.send_json_to({"type": "ping"})
    assert await a.receive_json_from(timeout=3) == {"type": "pong"}
    assert hops == []
    await a.disconnect()
