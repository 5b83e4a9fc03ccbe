"""Rooms, read with the viewer's permissions: a player sees the rooms it is in now, each from
its joining; a director sees every room of the game, whole."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games import eventlog, live
from games.engine.errors import Forbidden
from games.models import Event, GameStatus, Room, RoomKind, RoomMember
from games.room_services import TOPICS, RoomNotFound, Sent
from games.selectors import Viewer

# The order a player's tabs come in: the groups the rules make first, then the directors.
_ORDER = {RoomKind.TEAM: 0, RoomKind.PHONE: 1, RoomKind.INBOX: 2, RoomKind.LOBBY: 3}


def _head(viewer: Viewer, room_id: int) -> int:
    return int(viewer.game.stream_seqs.get(f"r{room_id}", 0))


def _can_post(viewer: Viewer, room: Room) -> tuple[bool, str]:
    if room.closed_at is not None:
        return False, _("该群聊已经结束。")
    if (
        viewer.character is not None
        and room.kind == RoomKind.LOBBY
        and viewer.game.status in (GameStatus.TEST, GameStatus.RUNNING)
    ):
        return False, _("游戏进行中，联谊群禁言，只有导演可以发言。")
    return True, ""


def topic_choices() -> list[dict[str, str]]:
    """私聊导演's topics as a form offers them, in the reader's language."""
    return [{"key": k, "label": eventlog.room_topic(k)} for k in TOPICS]


def _row(viewer: Viewer, room: Room, since: int, owner: str | None) -> dict[str, Any]:
    can_post, why = _can_post(viewer, room)
    row: dict[str, Any] = {
        "room": room.token,
        "kind": room.kind,
        "kind_label": str(RoomKind(room.kind).label),
        "name": room.name,
        # What a tab shows: the name in the reader's language where the catalogue has it (联谊群,
        # 私聊导演, a faction's 狼群); a phone room's names its two ends and stays as written.
        "label": _(room.name),
        "head": _head(viewer, room.pk) - since,
        "open": room.closed_at is None,
        "can_post": can_post,
        "why": why,
    }
    if room.kind == RoomKind.INBOX and viewer.character is not None:
        row["topics"] = topic_choices()
    if owner is not None:
        row["owner"] = owner
    return row


def rooms_for_viewer(*, viewer: Viewer | None) -> list[dict[str, Any]]:
    if viewer is None:
        raise Forbidden()
    if viewer.character is not None:
        stays = (
            RoomMember.objects.filter(
                room__game=viewer.game, character=viewer.character, left_at__isnull=True
            )
            .select_related("room")
            .order_by("room_id")
        )
        rows = [_row(viewer, s.room, s.since, None) for s in stays]
        return sorted(rows, key=lambda r: _ORDER[RoomKind(r["kind"])])
    rooms = Room.objects.filter(game=viewer.game).select_related("owner").order_by("id")
    rows = [
        _row(viewer, r, 0, r.owner.name if r.kind == RoomKind.INBOX and r.owner else None)
        for r in rooms
    ]
    return sorted(rows, key=lambda r: (_ORDER[RoomKind(r["kind"])], r.get("owner", "")))


def room_heads(*, viewer: Viewer) -> dict[str, int]:
    """Where each of the viewer's rooms stands (for the socket's hello)."""
    return {r["room"]: r["head"] for r in rooms_for_viewer(viewer=viewer)}


def room_messages(
    *, viewer: Viewer | None, token: str, after: int = 0, limit: int = 200
) -> list[dict[str, Any]]:
    """What the viewer may read of a room after ``after`` (its own numbers), oldest first."""
    if viewer is None:
        raise Forbidden()
    room = Room.objects.filter(game=viewer.game, token=token).first()
    if room is None:
        raise RoomNotFound()
    events = Event.objects.filter(game=viewer.game, stream=f"r{room.pk}")
    if viewer.character is not None:
        stay = RoomMember.objects.filter(
            room=room, character=viewer.character, left_at__isnull=True
        ).first()
        if stay is None:
            raise RoomNotFound()
        rows = events.filter(stream_seq__gt=stay.since + max(after, 0)).order_by("stream_seq")
        return [live.frame_for_member(e, stay.since) for e in rows[:limit]]
    rows = events.filter(stream_seq__gt=max(after, 0)).order_by("stream_seq")
    return [live.frame_for_director(e) for e in rows[:limit]]


def sent_frame(*, viewer: Viewer, sent: Sent) -> dict[str, Any]:
    """The message the viewer has just posted, as the viewer reads it (a player counts from its
    joining), from the row the send logged: the answer reads nothing again."""
    if viewer.character is not None:
        return live.frame_for_member(sent.event, sent.since)
    return live.frame_for_director(sent.event)
