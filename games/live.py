"""Live push: group names, the frames each kind of recipient gets, and sending them.

Players never see global sequence numbers: the gaps between them would tell how many hidden
events (other players' actions) happened. A player tracks two streams of its own instead, the
public one and its private one, each numbered without gaps.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.models import Audience, Event

EVENT_MESSAGE_TYPE = "game.event"


def group_public(game_id: int) -> str:
    return f"game-{game_id}-public"


def group_directors(game_id: int) -> str:
    return f"game-{game_id}-directors"


def group_character(game_id: int, character_id: int) -> str:
    return f"game-{game_id}-c{character_id}"


def frame_for_player(event: Event) -> dict[str, Any]:
    return {
        "type": "event",
        "stream": "public" if event.audience == Audience.PUBLIC else "private",
        "stream_seq": event.stream_seq,
        "kind": event.kind,
        "payload": event.payload,
        "at": event.created_at.isoformat(),
    }


def frame_for_director(event: Event) -> dict[str, Any]:
    return {
        "type": "event",
        "seq": event.seq,
        "stream": event.stream,
        "stream_seq": event.stream_seq,
        "kind": event.kind,
        "audience": event.audience,
        "audience_character": event.audience_character_id,
        "actor": event.actor_id,
        "payload": event.payload,
        "director": event.director_id,
        "reason": event.reason,
        "at": event.created_at.isoformat(),
    }


def messages_for(events: Iterable[Event]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(group, frames) pairs: each event to its audience, and every event to the directors;
    one message per group, so an action's events cost one channel-layer send per group."""
    by_group: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        game_id = event.game_id
        if event.audience == Audience.PUBLIC:
            by_group.setdefault(group_public(game_id), []).append(frame_for_player(event))
        elif event.audience == Audience.CHARACTER and event.audience_character_id is not None:
            group = group_character(game_id, event.audience_character_id)
            by_group.setdefault(group, []).append(frame_for_player(event))
        by_group.setdefault(group_directors(game_id), []).append(frame_for_director(event))
    return list(by_group.items())


def push(messages: list[tuple[str, list[dict[str, Any]]]]) -> None:
    """Send after commit. At most once: a lost frame is recovered from the log over HTTP."""
    layer = get_channel_layer()
    if layer is None:
        return
    send = async_to_sync(_send_all)
    send(layer, messages)


async def _send_all(layer: Any, messages: list[tuple[str, list[dict[str, Any]]]]) -> None:
    for group, frames in messages:
        # Serialised once here rather than by each of the group's sockets.
        texts = [json.dumps(f, ensure_ascii=False, separators=(",", ":")) for f in frames]
        await layer.group_send(group, {"type": EVENT_MESSAGE_TYPE, "texts": texts})
