"""One websocket per browser tab: authenticate by session, join the viewer's groups, relay."""

from __future__ import annotations

from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from games import live, room_selectors, selectors
from games.models import Game

REFUSED = 4403
# The character's credentials were reset (a new password, a substitute), or it signed out of
# this session: sign in again.
REVOKED = 4401


def _groups_for(
    game_id: int, session: Any, user: Any
) -> tuple[list[str], dict[str, int], dict[str, int]]:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return [], {}, {}
    viewer = selectors.viewer_get(game=game, session=session, user=user)
    if viewer is None:
        return [], {}, {}
    return (
        selectors.live_groups(viewer=viewer),
        selectors.stream_heads(viewer=viewer),
        room_selectors.room_heads(viewer=viewer),
    )


class GameConsumer(AsyncJsonWebsocketConsumer):
    joined: list[str]

    async def dispatch(self, message: dict[str, Any]) -> None:
        # channels' own dispatch first closes stale database connections, a hop to its one
        # sync thread before every message: 40 hops in a row for one room message to 40
        # members, the largest cost of its way out (tests/bench/bench_rooms.py). These
        # handlers read the database only through database_sync_to_async, which closes stale
        # connections itself, in the thread that uses them.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        self.joined = []
        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        session = self.scope.get("session") or {}
        session_key = getattr(session, "session_key", None)
        if session_key:
            # Signing out of the game (views.logout) closes this session's sockets on it.
            # Joined before the session is read, so a sign-out in between reaches it too.
            self.joined = [live.group_session(game_id, session_key)]
            await self.channel_layer.group_add(self.joined[0], self.channel_name)
        groups, heads, rooms = await database_sync_to_async(_groups_for)(
            game_id, session, self.scope.get("user")
        )
        if not groups:
            await self.disconnect(REFUSED)
            await self.close(code=REFUSED)
            return
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.joined += groups
        await self.accept()
        # The heads let a client that just connected notice what it must fetch over HTTP.
        # ``rooms``: each of the viewer's rooms and its last number (a room's frames come
        # through the character's own group; see games.room_services).
        await self.send_json({"type": "hello", "heads": heads, "rooms": rooms})

    async def disconnect(self, code: int) -> None:
        for group in self.joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.joined = []

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        # Clients act over HTTP; the socket only carries results. A ping keeps proxies awake.
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def game_event(self, message: dict[str, Any]) -> None:
        for text in message["texts"]:
            await self.send(text_data=text)

    async def session_revoked(self, message: dict[str, Any]) -> None:
        await self.close(code=REVOKED)
