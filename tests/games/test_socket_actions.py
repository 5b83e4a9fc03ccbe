"""The socket's ``act`` frames, what is every kind's: who may act on a socket, and the frames
that are not actions. (The actions themselves: tests/royale/ and tests/werewolf/
test_socket_actions.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from games.actions import act_frame_read
from games.engine.errors import Forbidden
from games.models import Event, Game
from games.registry import GameKind
from tests.conftest import ORIGIN, session_cookie, socket_act, socket_open


def director_cookie(user: Any) -> tuple[bytes, bytes]:
    client = Client()
    client.force_login(user)
    return session_cookie(client)


@pytest.mark.django_db(transaction=True)
async def test_a_directors_socket_cannot_act(game: Game, director: Any) -> None:
    socket, _ = await socket_open(
        game, ORIGIN, await database_sync_to_async(director_cookie)(director)
    )
    before = await database_sync_to_async(Event.objects.count)()
    answer = await socket_act(socket, "d-1", {"kind": "rest"})
    assert answer == {
        "type": "answer",
        "key": "d-1",
        "status": 403,
        "error": {"code": "forbidden", "message": "你没有权限执行该操作。"},
    }
    assert await database_sync_to_async(Event.objects.count)() == before
    # The socket's other frames are as they were: a ping is answered, an unknown type is not.
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.send_json_to({"type": "something-else"})
    assert await socket.receive_nothing(timeout=0.3)
    await socket.disconnect()


def test_a_kind_without_actions_refuses_every_act_frame() -> None:
    watching = GameKind(key="watching", label="只看")
    with pytest.raises(Forbidden):
        act_frame_read(watching, {"type": "act", "key": "k-1", "action": {"kind": "rest"}})
