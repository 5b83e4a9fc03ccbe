from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.test import AsyncClient, Client

from games import services
from games.models import Character, ForumSite, Game
from tests.games.forum.fake_forum import FakeForum, running_forum

if TYPE_CHECKING:
    from channels.testing import WebsocketCommunicator

BJ = dt.timezone(dt.timedelta(hours=8))
# Day 1 of the test games; night 1's window is 21:10–21:25 北京时间.
START = dt.date(2026, 11, 1)
# The Origin header a browser on the site sends with its websocket handshake, and the Host
# header beside it (the socket's origin check compares the two: scheme, host and port).
ORIGIN = (b"origin", b"http://127.0.0.1:8000")
HOST = (b"host", b"127.0.0.1:8000")


def bj(day: int, hour: int, minute: int = 0, second: int = 0) -> dt.datetime:
    """A moment of the test games' November 2026, 北京时间."""
    return dt.datetime(2026, 11, day, hour, minute, second, tzinfo=BJ)


def pytest_configure(config: pytest.Config) -> None:
    # Every event a test makes reach a player must have a sentence the player can read (no
    # bare kinds on a page or a socket); the browser tests' daphne inherits the variable.
    os.environ["EVENT_TEXT_STRICT"] = "1"
    settings.EVENT_TEXT_STRICT = True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if connection.vendor == "postgresql":
        return
    skip = pytest.mark.skip(
        reason=f"needs PostgreSQL (row locks, concurrency); this run uses {connection.vendor}"
    )
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _actions_in_the_test_thread(settings: Any) -> None:
    # The test's database transaction lives in its own thread; a shared pool would not see it.
    settings.ACTIONS_SHARED_THREADS = False


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # Login limits live in Redis; each test starts with no failures counted.
    cache.clear()
    yield
    cache.clear()


def _staff_member(django_user_model: Any, username: str, group: str) -> Any:
    from django.contrib.auth.models import Group

    services.groups_ensure()
    user = django_user_model.objects.create_user(
        username=username, password=f"{username}-pass-123", is_staff=True
    )
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def director(django_user_model: Any) -> Any:
    return _staff_member(django_user_model, "daoyan", services.DIRECTORS_GROUP)


@pytest.fixture
def director_client(director: Any) -> Client:
    client = Client()
    client.force_login(director)
    return client


@pytest.fixture
def staff(django_user_model: Any) -> Any:
    """A forum staff member (论坛管理): reviews every game's proposed cards."""
    return _staff_member(django_user_model, "guanli", services.FORUM_STAFF_GROUP)


@pytest.fixture
def fake_forum() -> Iterator[FakeForum]:
    """A forum on loopback for this test (see ``tests/games/forum/fake_forum.py``); stopped
    afterwards."""
    yield from running_forum()


def make_game(
    number: str = "256",
    *,
    characters: tuple[str, ...] = ("甲", "乙", "丙"),
    ruleset: str = "islington_256",
) -> Game:
    """A running royale game starting on ``START``, with these characters (not set up)."""
    game = services.game_create(
        kind="royale",
        ruleset=ruleset,
        number=number,
        title="伊斯灵顿不眠夜",
        start_date=START,
        status="running",
    )
    Character.objects.bulk_create(Character(game=game, name=n) for n in characters)
    return game


def on_forum(game: Game, base_url: str, *, kind: str = "discuz", **site: Any) -> Game:
    """The game played on the forum at ``base_url`` (the site 雾雨小镇)."""
    game.forum_site = ForumSite.objects.create(
        name="雾雨小镇", kind=kind, base_url=base_url, **site
    )
    game.save()
    return game


@pytest.fixture
def game(director: Any) -> Game:
    game = make_game()
    game.directors.add(director)
    return game


@pytest.fixture
def passwords(game: Game) -> dict[str, str]:
    issued = services.character_passwords_generate(game=game, director=None)
    return {item.character.name: item.secret for item in issued}


def api_login(client: Client | AsyncClient, number: str, password: Any, **extra: Any) -> Any:
    """The portal's login call: the password alone, as JSON (an AsyncClient's is awaited)."""
    return client.post(
        f"/api/play/{number}/login",
        {"password": password},
        content_type="application/json",
        **extra,
    )


class ApiPlayer:
    """A character's browser: logged in over HTTP, acting through its game kind's API (the
    subclass's ``kind``: ``/api/<kind>/games/<id>/…``)."""

    kind: ClassVar[str]

    def __init__(self, game: Game, name: str, password: str) -> None:
        self.game, self.name = game, name
        self.client = Client()
        response = api_login(self.client, game.number, password)
        assert response.status_code == 200, response.content
        self.id = Character.objects.get(game=game, name=name).pk

    def act(self, kind: str, *, key: str | None = None, **fields: Any) -> Any:
        return self.client.post(
            f"/api/{self.kind}/games/{self.game.pk}/actions",
            {"kind": kind, **fields},
            content_type="application/json",
            headers={"Idempotency-Key": key} if key else None,
        )

    def events(self) -> list[dict[str, Any]]:
        """Every frame this character may see (its public and private streams), in order."""
        response = self.client.get(f"/api/games/{self.game.pk}/events")
        assert response.status_code == 200, response.content
        return list(response.json()["events"])

    def heard(self, kind: str, *, stream: str | None = None) -> list[dict[str, Any]]:
        """The payloads of the frames of ``kind`` this character saw (of one stream if given)."""
        return [
            f["payload"]
            for f in self.events()
            if f["kind"] == kind and stream in (None, f["stream"])
        ]

    def me(self) -> dict[str, Any]:
        response = self.client.get(f"/api/{self.kind}/games/{self.game.pk}/me")
        assert response.status_code == 200, response.content
        return dict(response.json()["me"])


def session_cookie(client: Client) -> tuple[bytes, bytes]:
    """The ``cookie`` header a logged-in browser sends with its websocket handshake."""
    return (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())


async def socket_open(
    game: Game, *headers: tuple[bytes, bytes]
) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    """A websocket on the game's live channel, accepted: (communicator, its ``hello`` frame).
    A browser always sends Host; ``HOST`` is sent unless ``headers`` hold another."""
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    if not any(name == b"host" for name, _ in headers):
        headers = (HOST, *headers)
    communicator = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    hello = await communicator.receive_json_from()
    assert hello["type"] == "hello"
    return communicator, hello


class SocketReader:
    """What one character's browser receives — its websocket frames and, as a subclass adds
    them, API answers (``json``) and pages (``html``) — for the leak tests to search."""

    def __init__(self, game: Game, player: ApiPlayer) -> None:
        self.game, self.player = game, player
        self.json: list[Any] = []
        self.html: list[str] = []
        self.socket: WebsocketCommunicator | None = None

    async def connect(self) -> None:
        self.socket, hello = await socket_open(
            self.game, ORIGIN, session_cookie(self.player.client)
        )
        self.json.append(hello)

    async def drain(self, timeout: float = 0.2) -> list[Any]:
        """Every frame waiting on the socket (kept, and returned)."""
        assert self.socket is not None
        frames = []
        while not await self.socket.receive_nothing(timeout=timeout):
            frames.append(await self.socket.receive_json_from())
        self.json.extend(frames)
        return frames


async def player_socket(
    game: Game, player: ApiPlayer, *headers: tuple[bytes, bytes]
) -> WebsocketCommunicator:
    """The player's browser opens its socket on the game (the hello frame read)."""
    socket, _ = await socket_open(game, ORIGIN, session_cookie(player.client), *headers)
    return socket


async def socket_act(
    socket: WebsocketCommunicator, key: Any, action: Any, **frame: Any
) -> dict[str, Any]:
    """Send an ``act`` frame (``frame``: more fields, or ``key``/``action`` left out when
    ``...``) and return the first frame that comes back, which must be its answer."""
    sent = {"type": "act", "key": key, "action": action, **frame}
    await socket.send_json_to({k: v for k, v in sent.items() if v is not ...})
    answer: dict[str, Any] = await socket.receive_json_from(timeout=10)
    assert answer["type"] == "answer", answer
    return answer
