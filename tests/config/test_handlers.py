"""Requests borrow a pooled thread for their synchronous parts, and give it back."""

from __future__ import annotations

from typing import Any

import pytest
from channels.testing import HttpCommunicator

from config.asgi import django_asgi_app
from games.models import Game

pytestmark = pytest.mark.django_db(transaction=True)


async def get(path: str) -> dict[str, Any]:
    request = HttpCommunicator(django_asgi_app, "GET", path, headers=[(b"host", b"127.0.0.1")])
    response = await request.get_response()
    await request.wait()  # the handler has finished and returned its thread
    return response


async def test_requests_one_after_another_reuse_one_thread(game: Game) -> None:
    for _ in range(3):
        assert (await get("/api/ping"))["status"] == 200
        # a sync view with database reads, in the borrowed thread
        page = await get("/games/256/")
        assert page["status"] == 200
        assert "伊斯灵顿不眠夜" in page["body"].decode()
    assert len(django_asgi_app._idle) == 1
