"""One websocket per browser tab: authenticate by session, join the viewer's groups, relay;
and a player's actions (``act`` frames), answered on the same socket as the API answers them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass, field
from importlib import import_module
from types import SimpleNamespace
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation

from config.bad_input import BadCharacters, json_bad
from games import actions, live, room_selectors, selectors
from games.engine.errors import Forbidden, InvalidInput, NotAuthenticated, RuleError
from games.errors import Busy
from games.models import Game
from games.registry import kind_get

REFUSED = 4403
# The character's credentials were reset (a new password, a substitute), or it signed out of
# this session: sign in again.
REVOKED = 4401
# Frames of one socket waiting for its actions to run; one more is answered busy at once.
ACTS_QUEUED_MAX = 8
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Seat:
    """What a socket is, read once at its connect: its groups and heads, and who acts on it."""

    groups: list[str] = field(default_factory=list)
    heads: dict[str, int] = field(default_factory=dict)
    rooms: dict[str, int] = field(default_factory=dict)
    kind: str = ""
    character_id: int | None = None  # None: a director's socket, which never acts


def _seat_for(game_id: int, session: Any, user: Any) -> _Seat:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return _Seat()
    viewer = selectors.viewer_get(game=game, session=session, user=user)
    if viewer is None:
        return _Seat()
    return _Seat(
        groups=selectors.live_groups(viewer=viewer),
        heads=selectors.stream_heads(viewer=viewer),
        rooms=room_selectors.room_heads(viewer=viewer),
        kind=game.kind,
        character_id=viewer.character.pk if viewer.character is not None else None,
    )


def _language(scope: Any) -> str:
    """The language the API answers this browser in: LocaleMiddleware's choice (the language
    cookie, then Accept-Language) from the handshake, since no middleware sees a socket."""
    accept = dict(scope.get("headers") or ()).get(b"accept-language", b"")
    handshake = SimpleNamespace(
        COOKIES=scope.get("cookies") or {},
        META={"HTTP_ACCEPT_LANGUAGE": accept.decode("latin-1")},
    )
    return translation.get_language_from_request(handshake)  # type: ignore[arg-type]


class GameConsumer(AsyncJsonWebsocketConsumer):
    joined: list[str]
    game_id: int
    session_key: str | None
    seat: _Seat
    language: str
    # The socket's act frames, run one after the other by their own task (``_acts_run``), so
    # that this consumer goes on relaying pushes while an action waits for its game's row.
    _acts: asyncio.Queue[dict[str, Any]]
    _actor: asyncio.Task[None] | None
    # Frames held while this socket's action has pushed and its answer is not yet sent
    # (``live.push_hold``); None when not holding.
    _held: list[str] | None

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
        self._acts = asyncio.Queue()
        self._actor = None
        self._held = None
        self.game_id = game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        session = self.scope.get("session") or {}
        self.session_key = session_key = getattr(session, "session_key", None)
        if session_key:
            # Signing out of the game (views.logout) closes this session's sockets on it.
            # Joined before the session is read, so a sign-out in between reaches it too.
            self.joined = [live.group_session(game_id, session_key)]
            await self.channel_layer.group_add(self.joined[0], self.channel_name)
        self.seat = seat = await database_sync_to_async(_seat_for)(
            game_id, session, self.scope.get("user")
        )
        if not seat.groups:
            await self.disconnect(REFUSED)
            await self.close(code=REFUSED)
            return
        self.language = _language(self.scope)
        for group in seat.groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.joined += seat.groups
        await self.accept()
        # The heads let a client that just connected notice what it must fetch over HTTP.
        # ``rooms``: each of the viewer's rooms and its last number (a room's frames come
        # through the character's own group; see games.room_services).
        await self.send_json({"type": "hello", "heads": seat.heads, "rooms": seat.rooms})

    async def disconnect(self, code: int) -> None:
        actor, self._actor = getattr(self, "_actor", None), None
        if actor is not None:
            # An action already in its thread still commits; its frame sent again (same key)
            # on the next socket gets its answer.
            actor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await actor
        for group in self.joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.joined = []

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        # A frame that is not a JSON object, or that holds what the HTTP edge refuses (NUL, an
        # unpaired surrogate: config/bad_input.py; no middleware sees a socket), is answered
        # as the API answers such a body, and goes no further.
        text = text_data or ""
        try:
            content = json.loads(text)
        except ValueError:
            content = None
        key = _key_echo(content)
        if not isinstance(content, dict):
            await self._answer_error(key, InvalidInput())
        elif json_bad(text.encode("utf-8", "surrogatepass")):
            await self._answer_error(key, BadCharacters(where="frame"))
        else:
            await self.receive_json(content, **kwargs)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        kind = content.get("type")
        if kind == "act":
            await self._act_queue(content)
        elif kind == "ping":  # keeps proxies awake
            await self.send_json({"type": "pong"})

    async def _act_queue(self, frame: dict[str, Any]) -> None:
        """Hand the frame to the socket's actions task and return: Channels awaits each message
        in turn, and a consumer awaiting an action here would hold back every push to this
        socket (a victim's hit behind its own action's wait for the row lock). The actions of
        one socket still run in the order sent; past a few waiting, the frame is shed."""
        if self._acts.qsize() >= ACTS_QUEUED_MAX:
            await self._answer_error(_key_echo(frame), Busy(retry_after=actions.BUSY_RETRY_AFTER))
            return
        self._acts.put_nowait(frame)
        if self._actor is None:
            self._actor = asyncio.create_task(self._acts_run())

    async def _acts_run(self) -> None:
        while True:
            frame = await self._acts.get()
            try:
                await self._act_answer(frame)
            except Exception:
                # What would have ended the consumer had it run in its dispatch: close.
                logger.exception("act frame failed")
                await self.close(code=1011)
                return

    async def _act_answer(self, frame: dict[str, Any]) -> None:
        """One action and its answer, on this socket, before the action's own pushes: the
        action's thread calls ``_hold`` as it pushes, and what reaches this socket from then
        on waits until the answer is out. (Underscored: Channels would dispatch a
        channel-layer message of type ``act`` to a method named ``act``.)"""
        key = _key_echo(frame)
        token = live.push_hold.set(self._hold)
        try:
            try:
                answer = await self._act_run(frame)
            except RuleError as error:
                await self._answer_error(key, error)
                return
            await self.send_json({"type": "answer", "key": key, "status": 200, "answer": answer})
        finally:
            live.push_hold.reset(token)
            await self._held_flush()

    def _hold(self) -> None:
        # Called from the action's thread; the assignment is atomic, and it happens before
        # the pushes are queued on this loop, so no frame of the action can pass it.
        if self._held is None:
            self._held = []

    async def _held_flush(self) -> None:
        held = self._held
        # Frames arriving while these go out join the end of the list: the order stays.
        while held:
            await self.send(text_data=held.pop(0))
        self._held = None

    async def _act_run(self, frame: dict[str, Any]) -> dict[str, Any]:
        seat = self.seat
        kind = kind_get(seat.kind)
        if seat.character_id is None:
            raise Forbidden()  # a director's socket: directors act in the admin
        action_key, body = actions.act_frame_read(kind, frame)
        await self._session_holds(seat.character_id)
        # A saturated process answers 429 ``busy`` from action_run, before the service.
        answer = await actions.action_run(
            kind=kind,
            game_id=self.game_id,
            character_id=seat.character_id,
            body=body,
            key=action_key,
            language=self.language,
        )
        # What the API's ``ActionOut`` lets through, so both ways in answer the same dict.
        return {"events": answer["events"], "me": answer["me"]}

    async def _session_holds(self, character_id: int) -> None:
        """The socket's session still signs in this character here, read afresh (the scope's
        copy is the handshake's): one cache read, as the API's session check. A credential
        reset or a sign-out also closes the socket (``session_revoked``); this covers a frame
        that comes in before that close does. 401 and 403 as the API answers that session."""
        characters = None
        if self.session_key:
            store = import_module(settings.SESSION_ENGINE).SessionStore(
                session_key=self.session_key
            )
            characters = await store.aget(selectors.SESSION_KEY)
        if not characters:
            raise NotAuthenticated()
        if characters.get(str(self.game_id)) != character_id:
            raise Forbidden()

    async def _answer_error(self, key: str | None, error: RuleError) -> None:
        await self.send_json(
            {
                "type": "answer",
                "key": key,
                "status": error.status,
                "error": error.as_dict(english=self.language.startswith("en")),
            }
        )

    async def game_event(self, message: dict[str, Any]) -> None:
        held = self._held
        if held is not None:
            held.extend(message["texts"])
            return
        for text in message["texts"]:
            await self.send(text_data=text)

    async def session_revoked(self, message: dict[str, Any]) -> None:
        await self.close(code=REVOKED)


def _key_echo(frame: Any) -> str | None:
    """The frame's key, sent back with its answer so the client knows which frame it answers
    (a key that is no short string is not echoed: its refusal comes back with none)."""
    key = frame.get("key") if isinstance(frame, dict) else None
    return key if isinstance(key, str) and len(key) <= 64 else None
