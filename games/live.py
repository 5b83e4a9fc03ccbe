"""Live push: group names, the frames each kind of recipient gets, and sending them.

Players never see global sequence numbers: the gaps between them would tell how many hidden
events (other players' actions) happened. A player tracks two streams of its own instead, the
public one and its private one, each numbered without gaps.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import logging
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games import eventlog
from games.models import Audience, Event

EVENT_MESSAGE_TYPE = "game.event"
logger = logging.getLogger(__name__)

Messages = list[tuple[str, list[dict[str, Any]]]]
Texts = list[tuple[str, list[str]]]  # the same, each frame serialised


def group_public(game_id: int) -> str:
    return f"game-{game_id}-public"


def group_directors(game_id: int) -> str:
    return f"game-{game_id}-directors"


def group_character(game_id: int, character_id: int) -> str:
    return f"game-{game_id}-c{character_id}"


def group_session(game_id: int, session_key: str) -> str:
    """Every socket one browser session has open on a game (what signing out closes). Named by
    a digest of the key: group names are seen by whatever reads Redis, a session key is a
    credential."""
    digest = hashlib.sha256(session_key.encode()).hexdigest()[:32]
    return f"game-{game_id}-s{digest}"


def frame_for_player(event: Event) -> dict[str, Any]:
    """The event as its player receives it; a core event carries its sentence (``text``), a
    kind's own events are written by the kind's portal (``eventlog.register_portal_kinds``)."""
    private = event.audience != Audience.PUBLIC
    frame = {
        "type": "event",
        "stream": "private" if private else "public",
        "stream_seq": event.stream_seq,
        "kind": event.kind,
        "payload": event.payload,
        "at": event.created_at.isoformat(),
    }
    text = eventlog.player_text(event.kind, event.payload, private=private)
    if text is not None:
        frame["text"] = text
    return frame


def frame_for_member(event: Event, since: int) -> dict[str, Any]:
    """A room's event as one of its members receives it. Numbered from the member's joining
    (its first readable message is 1): the room's own numbers would tell a newcomer how much
    was said before it came. Only the fields a member may read: never the log's ids."""
    p = event.payload
    frame: dict[str, Any] = {
        "type": "room",
        "room": p.get("room"),
        "seq": event.stream_seq - since,
        "kind": event.kind,
        "at": event.created_at.isoformat(),
        "text": eventlog.room_text(event.kind, p),
    }
    if event.kind == "room_message":
        frame |= {
            "author": p.get("author"),
            "author_name": eventlog.room_author(p),
            "by_director": bool(p.get("by_director")),
            "body": p.get("body", ""),
        }
        if p.get("topic"):
            frame["topic"] = eventlog.room_topic(p["topic"])
    return frame


def room_messages_for(events: Iterable[Event], stays: dict[int, dict[int, int]]) -> Messages:
    """Each room event to each of its room's members now (``stays``: room id -> {character id:
    the room number it joined at}), through the member's own group: a member that left is in
    no list, whatever socket groups it is still in."""
    by_group: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        if event.room_id is None:
            continue
        # Members who joined at the same number read the same frame: built (and serialised,
        # see ``push``) once for all of them, not once per member.
        frames: dict[int, dict[str, Any]] = {}
        for character_id, since in stays.get(event.room_id, {}).items():
            if event.stream_seq > since:
                frame = frames.get(since)
                if frame is None:
                    frame = frames[since] = frame_for_member(event, since)
                group = group_character(event.game_id, character_id)
                by_group.setdefault(group, []).append(frame)
    return list(by_group.items())


def frame_for_director(event: Event, ctx: eventlog.LogContext | None = None) -> dict[str, Any]:
    """Every fact of the event, and the sentence the control room shows for it (rendered for
    the directors alone: a player's frame never carries a sentence)."""
    if ctx is None:
        game = event.game if Event.game.is_cached(event) else event.game_id
        ctx = eventlog.frame_context(game)
    return {
        **_director_facts(event),
        **eventlog.line_frame(eventlog.event_line_for_frame(event, ctx)),
    }


def _director_facts(event: Event) -> dict[str, Any]:
    return {
        "type": "event",
        "seq": event.seq,
        "stream": event.stream,
        "stream_seq": event.stream_seq,
        "kind": event.kind,
        "audience": event.audience,
        "audience_character": event.audience_character_id,
        "room": event.payload.get("room") if event.room_id is not None else None,
        "actor": event.actor_id,
        "payload": event.payload,
        "director": event.director_id,
        "reason": event.reason,
        "at": event.created_at.isoformat(),
    }


class DirectorFrame(dict[str, Any]):
    """A directors' frame whose sentence is rendered when it is sent: after the commit, in
    ``push``, rather than while the game's row is locked (``messages_for`` runs inside the
    step's transaction)."""

    __slots__ = ("_render",)

    def __init__(self, base: dict[str, Any], render: Callable[[], dict[str, Any]]) -> None:
        super().__init__(base)
        self._render: Callable[[], dict[str, Any]] | None = render

    def complete(self) -> DirectorFrame:
        if self._render is not None:
            self.update(self._render())
            self._render = None
        return self


def messages_for(events: Iterable[Event]) -> Messages:
    """(group, frames) pairs: each event to its audience, and every event to the directors;
    one message per group, so an action's events cost one channel-layer send per group."""
    by_group: dict[str, list[dict[str, Any]]] = {}
    contexts: dict[int, eventlog.LogContext] = {}  # one per game and batch

    def director(event: Event) -> DirectorFrame:
        def render() -> dict[str, Any]:
            ctx = contexts.get(event.game_id)
            if ctx is None:
                game = event.game if Event.game.is_cached(event) else event.game_id
                ctx = contexts[event.game_id] = eventlog.frame_context(game)
            return eventlog.line_frame(eventlog.event_line_for_frame(event, ctx))

        return DirectorFrame(_director_facts(event), render)

    for event in events:
        game_id = event.game_id
        if event.audience == Audience.PUBLIC:
            by_group.setdefault(group_public(game_id), []).append(frame_for_player(event))
        elif event.audience == Audience.CHARACTER and event.audience_character_id is not None:
            group = group_character(game_id, event.audience_character_id)
            by_group.setdefault(group, []).append(frame_for_player(event))
        by_group.setdefault(group_directors(game_id), []).append(director(event))
    return list(by_group.items())


def frames_complete(messages: Messages) -> Messages:
    """The messages with every directors' sentence rendered (in order: a sentence may reuse
    what an earlier one of its step said), in one language lookup for all of them."""
    with eventlog.rendering():
        for _group, frames in messages:
            for frame in frames:
                if isinstance(frame, DirectorFrame):
                    frame.complete()
    return messages


# The server's event loop (bound by config.asgi), where pushes from request threads are queued.
_server_loop: asyncio.AbstractEventLoop | None = None
_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue[Texts]] = (
    weakref.WeakKeyDictionary()
)


def loop_bind(loop: asyncio.AbstractEventLoop) -> None:
    """Push from now on through this event loop (the ASGI server's)."""
    global _server_loop  # one loop per server process
    _server_loop = loop


# Set by a socket's action (games.consumers) for the action's thread: called before the
# action's pushes leave, so that socket holds what reaches it until it has sent the answer
# (the answer comes first, as a client reads it; a round trip through Redis is no ordering).
push_hold: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar(
    "push_hold", default=None
)


def push(messages: Messages) -> None:
    """Send after commit. At most once: a lost frame is recovered from the log over HTTP.

    In the server, the committing thread serialises the frames and queues them on the event
    loop, which sends whatever has queued up together, each group's frames in queue order; the
    thread goes back to work without waiting for the sockets. Elsewhere (workers, commands) the
    thread sends them itself.
    """
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    frames_complete(messages)
    # Serialised once here rather than by each of the group's sockets, and once for a frame
    # several groups share (a room message to its members).
    done: dict[int, str] = {}

    def text(frame: dict[str, Any]) -> str:
        found = done.get(id(frame))
        if found is None:
            found = done[id(frame)] = json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
        return found

    texts = [(group, [text(f) for f in frames]) for group, frames in messages]
    hold = push_hold.get()
    if hold is not None:
        hold()
    loop = _server_loop
    if loop is not None and loop.is_running():
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            _enqueue(loop, layer, texts)
        else:
            loop.call_soon_threadsafe(_enqueue, loop, layer, texts)
        return
    async_to_sync(_send_all)(layer, texts)


def _enqueue(loop: asyncio.AbstractEventLoop, layer: Any, texts: Texts) -> None:
    queue = _queues.get(loop)
    if queue is None:
        queue = _queues[loop] = asyncio.Queue()
        # A context of its own: the pusher's (an action's, with its socket's push_hold) must
        # not outlive the push in the process's one long-lived drain.
        loop.create_task(_drain(layer, queue), context=contextvars.Context())
    queue.put_nowait(texts)


async def _drain(layer: Any, queue: asyncio.Queue[Texts]) -> None:
    while True:
        merged: dict[str, list[str]] = {}
        batch = [await queue.get()]
        while not queue.empty():
            batch.append(queue.get_nowait())
        for texts in batch:
            for group, group_texts in texts:
                merged.setdefault(group, []).extend(group_texts)
        try:
            await _send_all(layer, list(merged.items()))
        except Exception:
            # The frames are in the log: clients fetch what they miss; the queue goes on.
            logger.exception("push failed")


async def _send_all(layer: Any, texts: Texts) -> None:
    # One message per group. The site's layer publishes them all in one round trip
    # (config.layers: a room message goes to each member's own group, 40 of them in a lobby);
    # another layer sends them concurrently, groups being independent streams.
    messages = [
        (group, {"type": EVENT_MESSAGE_TYPE, "texts": group_texts}) for group, group_texts in texts
    ]
    many = getattr(layer, "group_send_many", None)
    if many is not None:
        await many(messages)
        return
    await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))


SESSION_REVOKED_TYPE = "session.revoked"


def sockets_close(game_id: int, character_ids: Iterable[int]) -> None:
    """Close the open sockets of these characters (their credentials were reset): each
    consumer in the character's group closes itself; the next connect must sign in again."""
    layer = get_channel_layer()
    if layer is None:
        return
    for character_id in character_ids:
        async_to_sync(layer.group_send)(
            group_character(game_id, character_id), {"type": SESSION_REVOKED_TYPE}
        )


def session_sockets_close(game_id: int, session_key: str) -> None:
    """Close the sockets this session has open on the game (its character signed out): they
    would go on carrying the character's private frames otherwise."""
    layer = get_channel_layer()
    if layer is None or not session_key:
        return
    async_to_sync(layer.group_send)(
        group_session(game_id, session_key), {"type": SESSION_REVOKED_TYPE}
    )
