"""Rooms: the game's private talk on the site (the QQ groups of the posts), written here.

Who is in a room is never typed by hand: ``rooms_sync`` reads it from the rules (the lobby and
each player's inbox from the cast, the rest from the kind's engine state, ``GameKind.rooms``)
with the game row locked, in the transaction of the step that changed it. A member that leaves
stops receiving at once: every message goes out to the members the room has in its own
transaction (``live.room_push``), never to a socket group the member might still be in.

A message is an event of the game's log in the room's stream (``r<room id>``), so it is
numbered, archived and fetched after a reconnect like every other event.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games import live
from games.engine.errors import InvalidInput, NotFound, RuleError
from games.engine.events import PUBLIC, GameEvent, to_character, to_room
from games.engine.rooms import RoomSpec
from games.models import (
    Announcement,
    AnnouncementStatus,
    Character,
    Event,
    Game,
    GameStatus,
    Room,
    RoomKind,
    RoomMember,
)
from games.registry import kind_get

# The core's event kinds after which rooms may have changed: the cast (the lobby and the
# inboxes), the start and the phases (a call ends with the day's vote), a substitute (its
# rooms are told), the end.
CORE_TRIGGERS = frozenset(
    {
        "cast_added",
        "cast_removed",
        "passwords_generated",
        "links_issued",
        "game_started",
        "phase_changed",
        "substitute_recorded",
        "game_finished",
    }
)

# 私聊导演: what a player's message to the directors is about (the posts' reasons to write:
# 规则提问, 投诉, 使用道具, 代投, 其他; their words are games.eventlog's, in the reader's language).
TOPICS = ("rule", "complaint", "item", "proxy_vote", "other")

LOBBY_NAME = "联谊群"
INBOX_NAME = "私聊导演"


class RoomNotFound(NotFound):
    # A room the viewer is not in answers as one that does not exist: the answer must not tell
    # which rooms there are.
    code = "room_not_found"
    message = "找不到该群聊。"
    message_en = "No such room."


class LobbyMuted(RuleError):
    code = "lobby_muted"
    status = 403
    message = "游戏开始之后，联谊群禁言：只有导演可以在联谊群发言。"
    message_en = "The lobby is muted while the game runs: only directors post in it."


class RoomClosed(RuleError):
    code = "room_closed"
    status = 409
    message = "该群聊已经结束，不能再发言。"
    message_en = "This room has ended; nothing more can be posted in it."


class MessageEmpty(InvalidInput):
    code = "message_empty"
    message = "消息不能为空。"
    message_en = "The message is empty."


class MessageTooLong(InvalidInput):
    code = "message_too_long"
    message = "消息过长。"
    message_en = "The message is too long."


class BadTopic(InvalidInput):
    code = "bad_topic"
    message = "私聊导演的类型无效：可选 规则提问、投诉、使用道具、代投、其他。"
    message_en = "Unknown topic: rule, complaint, item, proxy_vote or other."


class TooManyMessages(RuleError):
    code = "too_many_messages"
    status = 429
    message = "发言过于频繁，请稍后再发。"
    message_en = "Too many messages; wait a moment."


class NotAQuestion(RuleError):
    code = "not_a_question"
    status = 409
    message = "只有私聊导演中导演的回答可以公示。"
    message_en = "Only a director's answer in an inbox can be published."


class AlreadyAnnounced(RuleError):
    code = "already_announced"
    status = 409
    message = "这条回答已经公示过了。"
    message_en = "This answer has already been published."


# --- membership ---------------------------------------------------------------------------------


def room_specs(*, game: Game) -> list[RoomSpec]:
    """Every room the game holds now and its members: the cast's, then the kind's."""
    cast = list(Character.objects.filter(game=game).order_by("id").values_list("id", flat=True))
    specs = [RoomSpec("lobby", "lobby", LOBBY_NAME, frozenset(cast))]
    specs += [RoomSpec(f"inbox:{c}", "inbox", INBOX_NAME, frozenset({c})) for c in cast]
    reader = kind_get(game.kind).rooms
    if reader is not None:
        specs += reader(game)
    return specs


def _token() -> str:
    return secrets.token_urlsafe(9)


def _room_create(game: Game, spec: RoomSpec, now: datetime) -> Room:
    owner = next(iter(spec.members)) if spec.kind == RoomKind.INBOX else None
    return Room.objects.create(
        game=game,
        key=spec.key,
        token=_token(),
        kind=spec.kind,
        name=spec.name,
        owner_id=owner,
        created_at=now,
    )


def _head(game: Game, room: Room) -> int:
    return int(game.stream_seqs.get(f"r{room.pk}", 0))


def _names(ids: Iterable[int], names: dict[int, str]) -> list[str]:
    return [names.get(i, "?") for i in sorted(ids)]


def _specs_digest(specs: Iterable[RoomSpec]) -> str:
    """The rooms the rules give, in 32 hex digits: equal digests, the same rooms and members."""
    digest = hashlib.blake2b(digest_size=16)
    for spec in sorted(specs, key=lambda s: s.key):
        members = ",".join(str(c) for c in sorted(spec.members))
        digest.update(f"{spec.key}\x1f{spec.kind}\x1f{spec.name}\x1f{members}\x1e".encode())
    return digest.hexdigest()


def rooms_sync(*, game: Game, now: datetime, substituted: Sequence[int] = ()) -> list[Event]:
    """Make the rooms' members those the rules say, on a game the caller has locked: a member
    leaves before the room is told (it reads nothing from then on), a newcomer joins before it
    (it reads the room from its joining: the history before is not its, as in a QQ group). A
    room the rules no longer hold ends. ``substituted``: characters a substitute took over,
    whose rooms are told.

    The rules are read every time (the cast, the kind's state); when they give what the last
    sync wrote (``Game.rooms_digest``), the rooms already stand so and nothing else is read: a
    sync of rooms that match is a no-op, so skipping it changes nothing."""
    specs = {s.key: s for s in room_specs(game=game)}
    digest = _specs_digest(specs.values())
    if digest == game.rooms_digest and not substituted:
        return []
    events = _rooms_write(game=game, specs=specs, now=now, substituted=substituted)
    if digest != game.rooms_digest:
        game.rooms_digest = digest
        Game.objects.filter(pk=game.pk).update(rooms_digest=digest)
    if not events:
        return []
    return _append(game=game, events=events, now=now)


def _rooms_write(
    *, game: Game, specs: dict[str, RoomSpec], now: datetime, substituted: Sequence[int]
) -> list[GameEvent]:
    """The rooms, their members and their ends as ``specs`` say; the events that tell them."""
    rooms = {r.key: r for r in Room.objects.filter(game=game).select_related("owner")}
    stays: dict[int, set[int]] = {}
    for room_id, character_id in RoomMember.objects.filter(
        room__game=game, left_at__isnull=True
    ).values_list("room_id", "character_id"):
        stays.setdefault(room_id, set()).add(character_id)
    names = dict(Character.objects.filter(game=game).values_list("id", "name"))
    events: list[GameEvent] = []

    def leave(room: Room, gone: set[int]) -> None:
        RoomMember.objects.filter(room=room, character_id__in=gone, left_at__isnull=True).update(
            left_at=now, until=_head(game, room) + len(_room_events(events, room))
        )
        for cid in sorted(gone):
            events.append(
                GameEvent(
                    "room_removed",
                    to_character(cid),
                    {"room": room.token, "name": room.name, "character": cid},
                )
            )

    for key, spec in specs.items():
        room = rooms.get(key)
        if room is None:
            if not spec.members:
                continue
            room = rooms[key] = _room_create(game, spec, now)
        elif room.closed_at is not None and spec.members:
            room.closed_at = None
            room.save(update_fields=["closed_at"])
        if room.name != spec.name and room.kind != RoomKind.INBOX:
            room.name = spec.name
            room.save(update_fields=["name"])
        current = stays.get(room.pk, set())
        gone, new = current - spec.members, spec.members - current
        if gone:
            leave(room, gone)
            events.append(_notice(room, "room_left", _names(gone, names)))
        if new:
            since = _head(game, room) + len(_room_events(events, room))
            RoomMember.objects.bulk_create(
                [
                    RoomMember(room=room, character_id=c, since=since, joined_at=now)
                    for c in sorted(new)
                ]
            )
            if room.kind in (RoomKind.TEAM, RoomKind.PHONE):
                events.append(_notice(room, "room_joined", _names(new, names)))
        for cid in sorted(set(substituted) & spec.members):
            if room.kind != RoomKind.LOBBY:
                events.append(_notice(room, "room_substitute", [names.get(cid, "?")]))
    for key, room in rooms.items():
        if key in specs or room.closed_at is not None:
            continue
        current = stays.get(room.pk, set())
        if current:
            leave(room, current)
        room.closed_at = now
        room.save(update_fields=["closed_at"])
        events.append(_notice(room, "room_closed", []))
    return events


def _room_events(events: list[GameEvent], room: Room) -> list[GameEvent]:
    return [e for e in events if e.audience.room == room.pk]


def _room_payload(room: Room) -> dict[str, object]:
    """What every event of a room carries: which room, as its members and the directors name
    it (an inbox by its player, for the directors' log)."""
    payload: dict[str, object] = {
        "room": room.token,
        "room_name": room.name,
        "room_kind": room.kind,
    }
    if room.kind == RoomKind.INBOX and room.owner_id is not None:
        payload["owner_name"] = room.owner.name if room.owner else ""
    return payload


def _notice(room: Room, kind: str, names: list[str]) -> GameEvent:
    return GameEvent(kind, to_room(room.pk), {**_room_payload(room), "names": names})


def _stays(room_ids: Iterable[int]) -> dict[int, dict[int, int]]:
    """Each room's members now: room id -> {character id: the room number it joined at}."""
    stays: dict[int, dict[int, int]] = {}
    for room_id, character_id, since in RoomMember.objects.filter(
        room_id__in=list(room_ids), left_at__isnull=True
    ).values_list("room_id", "character_id", "since"):
        stays.setdefault(room_id, {})[character_id] = since
    return stays


def _append(
    *,
    game: Game,
    events: list[GameEvent],
    now: datetime,
    director: User | None = None,
    stays: dict[int, dict[int, int]] | None = None,
) -> list[Event]:
    """Log the rooms' events and push each to its room's members as they stand in this
    transaction (after the sync: a member that just left is not among them). ``stays``: the
    members of the events' rooms as the caller has just read them in this transaction.

    When every event is a room's, the members' frames are queued before ``events_append``'s
    own push, which then holds only the directors' frames and renders their sentences first
    (measured: a few ms of each message's way to 40 members). Otherwise the log's order stays:
    a leaver's ``room_removed`` and the notices of its rooms go out as before."""
    from games.services import events_append

    messages: live.Messages = []
    first = all(e.audience.room is not None for e in events)
    if first:
        transaction.on_commit(partial(live.push, messages))
    rows = events_append(game=game, events=events, now=now, director=director)
    if stays is None:
        stays = _stays({row.room_id for row in rows if row.room_id is not None})
    messages.extend(live.room_messages_for(rows, stays))
    if not first:
        transaction.on_commit(partial(live.push, messages))
    return rows


def rooms_follow(*, game: Game, rows: Sequence[Event], now: datetime) -> None:
    """After a step's events are logged (``events_append``): follow the rules' rooms if the
    step may have moved a member."""
    kinds = {row.kind for row in rows}
    kind = kind_get(game.kind)
    if not kinds & (CORE_TRIGGERS | kind.room_triggers):
        return
    substituted = [
        int(row.payload["character"])
        for row in rows
        if row.kind == "substitute_recorded" and "character" in row.payload
    ]
    rooms_sync(game=game, now=now, substituted=substituted)
    if kinds & kind.room_decisions:
        _decisions_tell(game=game, rows=[r for r in rows if r.kind in kind.room_decisions], now=now)


def _decisions_tell(*, game: Game, rows: Sequence[Event], now: datetime) -> None:
    """A team's decision as it is made (the 代表's pick, a wolf's 选举 vote), in the team's room:
    the room of the team kind that holds the actor and everyone the engine told it to (the
    smallest, when groups nest). The engine sends one event per member; it is told once."""
    told: dict[tuple[int | None, str, str], set[int]] = {}
    payloads: dict[tuple[int | None, str, str], dict[str, Any]] = {}
    for row in rows:
        if row.audience_character_id is None:
            continue
        key = (row.actor_id, row.kind, json.dumps(row.payload, sort_keys=True))
        told.setdefault(key, set()).add(row.audience_character_id)
        payloads[key] = row.payload
    if not told:
        return
    teams = list(Room.objects.filter(game=game, kind=RoomKind.TEAM, closed_at__isnull=True))
    stays = _stays(r.pk for r in teams)
    notices = []
    for key, recipients in told.items():
        actor, _kind, _ = key
        rooms = [
            r
            for r in teams
            if actor in stays.get(r.pk, {}) and recipients <= set(stays.get(r.pk, {}))
        ]
        if not rooms:
            continue
        room = min(rooms, key=lambda r: len(stays[r.pk]))
        p = payloads[key]
        targets = p.get("target_names") or ([p["target_name"]] if p.get("target_name") else [])
        notices.append(
            GameEvent(
                "room_decision",
                to_room(room.pk),
                {
                    **_room_payload(room),
                    "by_name": p.get("by_name", ""),
                    "skill_name": p.get("name", ""),
                    "target_names": [str(t) for t in targets],
                },
                actor,
            )
        )
    if notices:
        _append(game=game, events=notices, now=now, stays=stays)


# --- messages -----------------------------------------------------------------------------------


def _body_clean(body: str) -> str:
    text = body.strip()
    if not text:
        raise MessageEmpty()
    limit = settings.ROOM_MESSAGE_MAX
    if len(text) > limit:
        raise MessageTooLong(
            f"消息最多 {limit} 个字，现在是 {len(text)} 个字。",
            message_en=f"A message is at most {limit} characters; this one has {len(text)}.",
            max=limit,
            length=len(text),
        )
    return text


@dataclass(frozen=True)
class Sent:
    """A message just logged, and where its author's count of the room starts (a player reads
    it from its joining; 0 for a director, who reads every room whole)."""

    event: Event
    since: int


def room_message_send(
    *,
    game: Game,
    token: str,
    body: str,
    character: Character | None = None,
    director: User | None = None,
    topic: str | None = None,
    reply_to: int | None = None,
) -> Sent:
    """A member's (or a director's) message in a room; it reaches the members the rules give
    the room at this very step and the directors."""
    from games.services import game_lock

    if (character is None) == (director is None):
        raise ValueError("a message has one author: a character or a director")
    text = _body_clean(body)
    if topic is not None and topic not in TOPICS:
        raise BadTopic()
    now = timezone.now()
    with transaction.atomic():
        locked = game_lock(game)
        room = Room.objects.select_related("owner").filter(game=locked, token=token).first()
        if room is None:
            raise RoomNotFound()  # and nothing written: a refusal changes nothing
        # The steps that move members keep the rooms current (``rooms_follow``); this catches
        # anything else (a cast edited outside the services) before the message goes out.
        synced = locked.rooms_digest
        rooms_sync(game=locked, now=now)
        if locked.rooms_digest != synced:
            room.refresh_from_db()  # the sync wrote the rooms: this one may have ended
        # Read once: who may post is who receives (the push below uses the same members).
        members = _stays([room.pk]).get(room.pk, {})
        if character is not None:
            if character.pk not in members:
                raise RoomNotFound()
            if room.kind == RoomKind.LOBBY and locked.status in (
                GameStatus.TEST,
                GameStatus.RUNNING,
            ):
                raise LobbyMuted()
        if room.closed_at is not None:
            raise RoomClosed()
        payload = {**_room_payload(room), "body": text}
        if character is not None:
            payload |= {"author": character.pk, "author_name": character.name}
        else:
            payload |= {"author_name": _director_name(director), "by_director": True}
        if topic is not None and room.kind == RoomKind.INBOX and character is not None:
            payload["topic"] = topic
        if reply_to is not None:
            payload["reply_to"] = int(reply_to)
        event = GameEvent(
            "room_message", to_room(room.pk), payload, character.pk if character else None
        )
        rows = _append(
            game=locked, events=[event], now=now, director=director, stays={room.pk: members}
        )
    return Sent(rows[0], members[character.pk] if character is not None else 0)


def _director_name(director: User | None) -> str:
    # The "导演" before it is the reader's language's (games.eventlog.room_author).
    if director is None:
        return ""
    return director.get_full_name() or director.get_username()


def room_answer_announce(*, game: Game, director: User, seq: int, title: str = "") -> Announcement:
    """请导演在场上公示: a director's answer in an inbox, with the question before it, becomes a
    public announcement in one action. The asker is not named; the inbox is told."""
    from games.services import events_append, game_lock

    now = timezone.now()
    with transaction.atomic():
        locked = game_lock(game)
        answer = (
            Event.objects.filter(
                game=locked, seq=seq, kind="room_message", room__kind=RoomKind.INBOX
            )
            .select_related("room")
            .first()
        )
        if answer is None or answer.room is None or not answer.payload.get("by_director"):
            raise NotAQuestion()
        if Event.objects.filter(
            game=locked, room=answer.room, kind="room_announced", payload__answer=answer.seq
        ).exists():
            raise AlreadyAnnounced()
        # The player's last message before the answer (JSON key lookups treat a missing key
        # as NULL, so the filter is done here rather than in SQL).
        earlier = Event.objects.filter(
            game=locked, room=answer.room, kind="room_message", seq__lt=answer.seq
        ).order_by("-seq")
        question = next((e for e in earlier[:50] if not e.payload.get("by_director")), None)
        body = str(answer.payload.get("body", ""))
        if question is not None:
            body = f"问：{question.payload.get('body', '')}\n答：{body}"
        announcement = Announcement.objects.create(
            game=locked,
            day=locked.day,
            title=(title.strip() or "规则答疑")[:200],
            body=body,
            author=director,
            status=AnnouncementStatus.PUBLISHED,
            published_at=now,
        )
        shown = {
            "id": announcement.pk,
            "day": announcement.day,
            "title": announcement.title,
            "body": announcement.body,
        }
        events_append(
            game=locked,
            events=[GameEvent("announcement", PUBLIC, shown)],
            now=now,
            director=director,
        )
        room = answer.room
        notice = GameEvent(
            "room_announced",
            to_room(room.pk),
            {**_room_payload(room), "answer": answer.seq, "title": announcement.title},
        )
        _append(game=locked, events=[notice], now=now, director=director)
    return announcement
