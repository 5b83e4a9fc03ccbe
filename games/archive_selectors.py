"""Reads of a game's archive (复盘): what anyone may read once the game is over.

The archive opens when the game has finished and its seed is revealed (``archive_open``), never
before: while a game runs, nothing here is computed or shown. Then it holds the seed with its
SHA-256 and every logged roll re-derivable from it, the kind's 揭秘 (``GameKind.archive``:
roles or final items, the ranking or the winner, the royale's nightly maps), the directors'
interventions with their reasons, and the whole log day by day — public, private (whose it
was) and the directors' — as the sentences of ``games.eventlog``.

A finished game's log no longer changes, except for the odd late write (a card reviewed after
the end). What is computed here is cached under the game's ``seq`` and the reader's language:
a later event makes a new entry, and the old one simply expires.
"""

from __future__ import annotations

import hashlib
import hmac
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from django.core.cache import cache
from django.db.models import Count, QuerySet
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games import eventlog
from games.engine import dice
from games.eventlog import LogLine
from games.models import Audience, Event, Game, GameStatus, Room, RoomKind, RoomMember
from games.registry import kind_get

ARCHIVE_STATUSES = frozenset({GameStatus.FINISHED, GameStatus.ARCHIVED})
# Bump when the shape of what is cached changes, or the archive's templates (their rendered
# fragments are cached under it too).
ARCHIVE_CACHE_VERSION = 6
_CACHE_SECONDS = 30 * 24 * 3600

T = TypeVar("T")


# --- what a game kind tells the archive (``GameKind.archive``) ----------------------------


@dataclass(frozen=True)
class RosterRow:
    """One character of the 揭秘 table: one cell per column of ``ArchiveFacts.columns``."""

    character_id: int | None
    cells: tuple[str, ...]
    won: bool = False
    out: bool = False


@dataclass(frozen=True)
class MapPlace:
    name: str
    present: tuple[str, ...] = ()  # who stood there at the night's close
    on_map: bool = True  # False: gone on an earlier night
    vanishes: bool = False  # vanished at this night's close
    note: str = ""  # 安全区, 特殊区, 第 N 夜消失


@dataclass(frozen=True)
class NightMap:
    """A royale night: the places as its close found them and who stood where."""

    day: int
    places: tuple[MapPlace, ...]
    unplaced: tuple[str, ...] = ()  # alive at the close and never spawned
    out: tuple[str, ...] = ()  # out during the night or at its close, with the cause
    ended: bool = False  # the game ended during this night: as the end found it

    @property
    def on_map(self) -> tuple[MapPlace, ...]:
        return tuple(p for p in self.places if p.on_map)

    @property
    def gone(self) -> tuple[MapPlace, ...]:
        return tuple(p for p in self.places if not p.on_map)


@dataclass(frozen=True)
class ReplayCheck:
    """The game rebuilt from the revealed seed and the logged steps, compared with the state the
    site kept: this checks every draw of the engine's random source at once."""

    ok: bool
    steps: int


@dataclass(frozen=True)
class ArchiveFacts:
    outcome: str  # the headline: 胜者, 导演获胜, 某阵营胜利
    columns: tuple[str, ...]
    roster: tuple[RosterRow, ...]  # in ranking order where the kind has one
    notes: tuple[str, ...] = ()
    maps: tuple[NightMap, ...] = ()
    replay: ReplayCheck | None = None


# --- the archive ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RollLine:
    """One logged roll: a ``games.engine.dice.Roll`` (checkable on its own) or an engine die
    announced in a payload (checked by the replay)."""

    seq: int
    index: int
    at_text: str
    phase_label: str
    label: str  # the event's kind label
    purpose: str
    shown: str  # e.g. "d6 → 4"
    checkable: bool  # a Roll record: the verification view re-derives it
    director: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Intervention:
    """One write by a director (or staff) with a reason: the events it appended together."""

    at_text: str
    phase_label: str
    director: str
    reason: str
    lines: tuple[LogLine, ...]


@dataclass(frozen=True)
class DayEntry:
    day: int
    label: str
    events: int
    private: int  # to one character
    first_seq: int
    last_seq: int


@dataclass(frozen=True)
class RoomStay:
    """One stay of a member in a room, as 北京时间 ("" for one that lasted to the end)."""

    name: str
    joined: str
    left: str


@dataclass(frozen=True)
class RoomEntry:
    """A room of the game, for the archive's list: whose, who was in it and when, how much was
    said."""

    token: str
    name: str  # an inbox is named with its player: 私聊导演 · 河城荷取
    kind_label: str
    messages: int
    stays: tuple[RoomStay, ...]


@dataclass(frozen=True)
class RoomLine:
    seq: int  # the room's own number
    at_text: str
    text: str
    message: bool  # a message (else the room's notice: a joining, a removal, its end)


@dataclass(frozen=True)
class ArchiveRoom:
    entry: RoomEntry
    lines: tuple[RoomLine, ...]


@dataclass(frozen=True)
class Archive:
    seed: str
    seed_hash: str
    seed_ok: bool  # the revealed seed hashes to the hash published at the start
    ended: LogLine | None  # the game_finished event
    # The rules ended it (an engine step in the same write; its director and reason, if any,
    # are those of the write that led there, e.g. a red card's review), else a director did.
    ended_by_rules: bool
    facts: ArchiveFacts | None
    interventions: tuple[Intervention, ...]
    rolls: tuple[RollLine, ...]
    days: tuple[DayEntry, ...]
    events: int
    rooms: tuple[RoomEntry, ...] = ()


@dataclass(frozen=True)
class DayLine:
    line: LogLine
    audience: str  # public, directors, character
    private_to: int | None  # the character a private event was for


@dataclass(frozen=True)
class ArchiveDay:
    entry: DayEntry
    lines: tuple[DayLine, ...]
    characters: tuple[tuple[int, str], ...]  # for the page's filter
    previous: int | None = None
    next: int | None = None


@dataclass(frozen=True)
class RollCheck:
    seq: int
    index: int
    label: str
    at_text: str
    purpose: str
    kind: str
    n: int
    k: int
    logged: tuple[int, ...]
    derived: tuple[int, ...] | None  # None: the seed cannot draw this (a malformed roll)
    first_block: str  # HMAC-SHA256(seed, "seq|purpose|0"), hex
    seq_ok: bool  # the roll names its own event's number
    hash_ok: bool
    shown: str
    derived_shown: str
    ok: bool = field(default=False)


def archive_open(game: Game) -> bool:
    """The archive exists once the game is over and its seed is out."""
    return bool(game.seed_revealed) and game.status in ARCHIVE_STATUSES


def _cached(game: Game, part: str, build: Callable[[], T]) -> T:
    key = f"archive:{ARCHIVE_CACHE_VERSION}:{game.pk}:{game.seq}:{get_language() or ''}:{part}"
    found: T | None = cache.get(key)
    if found is not None:
        return found
    value = build()
    cache.set(key, value, _CACHE_SECONDS)
    return value


def archive_get(*, game: Game) -> Archive | None:
    """The archive of a game that is over; None while it runs (nothing is computed then)."""
    if not archive_open(game):
        return None
    return _cached(game, "main", lambda: _archive_build(game))


def archive_day_get(*, game: Game, day: int) -> ArchiveDay | None:
    """One day of the log, every event of it; None while the game runs or for no such day."""
    archive = archive_get(game=game)
    if archive is None:
        return None
    days = [d.day for d in archive.days]
    if day not in days:
        return None
    entry = archive.days[days.index(day)]
    at = days.index(day)
    previous = days[at - 1] if at > 0 else None
    following = days[at + 1] if at + 1 < len(days) else None
    return _cached(game, f"day{day}", lambda: _day_build(game, entry, previous, following))


def archive_room_get(*, game: Game, token: str) -> ArchiveRoom | None:
    """One room's whole talk, as its members read it; None while the game runs or for a room
    the archive does not list."""
    archive = archive_get(game=game)
    if archive is None:
        return None
    entry = next((r for r in archive.rooms if r.token == token), None)
    if entry is None:
        return None
    return _cached(game, f"room:{token}", lambda: _room_build(game, entry))


def roll_check(*, game: Game, seq: int, index: int) -> RollCheck | None:
    """Re-derive one logged roll from the revealed seed; None while the game runs or when the
    event has no such roll."""
    if not archive_open(game):
        return None
    event = Event.objects.filter(game=game, seq=seq).select_related("director").first()
    if event is None:
        return None
    rolls = event.payload.get("rolls") if isinstance(event.payload, dict) else None
    if not isinstance(rolls, list) or not 0 <= index < len(rolls):
        return None
    data = rolls[index]
    try:
        roll = dice.Roll.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    derived = _derive(game.seed, roll)
    hash_ok = dice.seed_hash(game.seed) == game.seed_hash
    seq_ok = roll.seq == event.seq
    line = eventlog.event_lines(game=game, events=[event])[0]
    return RollCheck(
        seq=event.seq,
        index=index,
        label=line.kind_label,
        at_text=line.at_text,
        purpose=roll.purpose,
        kind=roll.kind,
        n=roll.n,
        k=roll.k,
        logged=roll.result,
        derived=derived,
        first_block=_first_block(game.seed, roll),
        seq_ok=seq_ok,
        hash_ok=hash_ok,
        shown=_roll_shown(roll.kind, roll.n, roll.result),
        derived_shown=_roll_shown(roll.kind, roll.n, derived) if derived is not None else "",
        ok=hash_ok and seq_ok and derived == roll.result and dice.roll_verify(game.seed, roll),
    )


# --- building ------------------------------------------------------------------------------


def _derive(seed: str, roll: dice.Roll) -> tuple[int, ...] | None:
    """The draw the seed gives for the roll's (sequence, purpose), through the public dice."""
    roller = dice.Dice(seed, roll.seq)
    try:
        if roll.kind == "below":
            return (roller.below(roll.purpose, roll.n),)
        return tuple(roller.sample(roll.purpose, range(roll.n), roll.k))
    except ValueError:
        return None


def _first_block(seed: str, roll: dice.Roll) -> str:
    message = f"{roll.seq}|{roll.purpose}|0".encode()
    return hmac.new(seed.encode(), message, hashlib.sha256).hexdigest()


def _roll_shown(kind: str, n: int, result: Sequence[int]) -> str:
    if kind == "below" and len(result) == 1:
        return _("d%(n)d → %(value)d") % {"n": n, "value": result[0] + 1}
    values = "、".join(str(x + 1) for x in result)
    return _("%(n)d 取 %(k)d → %(values)s") % {"n": n, "k": len(result), "values": values}


def _events(game: Game) -> QuerySet[Event]:
    return Event.objects.filter(game=game).select_related("director").order_by("seq")


def _day_label(day: int) -> str:
    if day == 0:
        return _("开局前")
    return _("第 %(day)d 天") % {"day": day}


def _days(game: Game) -> list[DayEntry]:
    """Each event's day as ``games.eventlog`` walks it (the events that move the log: the core's
    phase changes, a role game's night opening its day), counted per day."""
    movers = {k: t.phase for k, t in eventlog.texts_for(game.kind).items() if t.phase}
    cuts: list[tuple[int, int]] = []  # (seq, day): the log is in that day from seq on
    changes = Event.objects.filter(game=game, kind__in=sorted(movers)).order_by("seq")
    for seq, kind, payload in changes.values_list("seq", "kind", "payload"):
        try:
            moved = movers[kind](payload) if isinstance(payload, Mapping) else None
        except (KeyError, TypeError, ValueError):
            moved = None
        if moved is not None:
            cuts.append((seq, moved[0]))
    starts = [seq for seq, _day in cuts]
    counts: dict[int, list[int]] = {}  # day -> [events, private, first seq, last seq]
    rows = Event.objects.filter(game=game).order_by("seq").values_list("seq", "audience")
    for seq, audience in rows:
        at = bisect_right(starts, seq) - 1
        day = cuts[at][1] if at >= 0 else 0
        entry = counts.setdefault(day, [0, 0, seq, seq])
        entry[0] += 1
        entry[1] += audience == Audience.CHARACTER
        entry[3] = seq
    return [
        DayEntry(day, _day_label(day), n, private, first, last)
        for day, (n, private, first, last) in sorted(counts.items())
    ]


def _grouped(events: Iterable[Event]) -> list[list[Event]]:
    """Consecutive events one write appended: the same director, reason and moment."""
    groups: list[list[Event]] = []
    for event in events:
        key = (event.director_id, event.reason, event.created_at)
        if groups:
            last = groups[-1][-1]
            if (last.director_id, last.reason, last.created_at) == key and last.seq + 1 == (
                event.seq
            ):
                groups[-1].append(event)
                continue
        groups.append([event])
    return groups


def _interventions(game: Game) -> list[Intervention]:
    rows = list(_events(game).filter(director__isnull=False).exclude(reason=""))
    if not rows:
        return []
    lines = {line.seq: line for line in eventlog.event_lines(game=game, events=rows)}
    result = []
    for group in _grouped(rows):
        shown = [lines[e.seq] for e in group]
        first = shown[0]
        visible = tuple(line for line in shown if not line.step) or (first,)
        result.append(
            Intervention(
                at_text=first.at_text,
                phase_label=first.phase_label,
                director=first.director,
                reason=first.reason,
                lines=visible,
            )
        )
    return result


def _rolls(game: Game) -> list[RollLine]:
    rows = list(_events(game).filter(payload__has_key="rolls"))
    if not rows:
        return []
    lines = {line.seq: line for line in eventlog.event_lines(game=game, events=rows)}
    result = []
    for event in rows:
        line = lines[event.seq]
        rolls = event.payload.get("rolls")
        if not isinstance(rolls, list):
            continue
        for index, data in enumerate(rolls):
            shown: str | None = None
            checkable = isinstance(data, dict)
            purpose = line.kind_label
            if isinstance(data, dict):
                try:
                    roll = dice.Roll.from_json(data)
                except (KeyError, TypeError, ValueError):
                    continue
                purpose, shown = roll.purpose, _roll_shown(roll.kind, roll.n, roll.result)
            elif isinstance(data, int) and not isinstance(data, bool):
                # An engine's die announced in its event (the vote reward's d6): drawn from the
                # step's random source, so the replay checks it.
                sides = event.payload.get("die")
                shown = (
                    _("d%(n)d → %(value)d") % {"n": sides, "value": data}
                    if isinstance(sides, int)
                    else str(data)
                )
            if shown is None:
                continue
            result.append(
                RollLine(
                    seq=event.seq,
                    index=index,
                    at_text=line.at_text,
                    phase_label=line.phase_label,
                    label=line.kind_label,
                    purpose=purpose,
                    shown=shown,
                    checkable=checkable,
                    director=line.director,
                    reason=line.reason,
                )
            )
    return result


def _ended(game: Game) -> tuple[LogLine | None, bool]:
    event = _events(game).filter(kind="game_finished").first()
    if event is None:
        return None, False
    # One write appends its events with one moment: the engine's end comes with its step.
    by_rules = Event.objects.filter(
        game=game, kind="engine_step", seq__lt=event.seq, created_at=event.created_at
    ).exists()
    return eventlog.event_lines(game=game, events=[event])[0], by_rules


def _archive_build(game: Game) -> Archive:
    reader = kind_get(game.kind).archive
    days = _days(game)
    ended, by_rules = _ended(game)
    return Archive(
        seed=game.seed,
        seed_hash=game.seed_hash,
        seed_ok=dice.seed_hash(game.seed) == game.seed_hash,
        ended=ended,
        ended_by_rules=by_rules,
        facts=reader(game) if reader is not None else None,
        interventions=tuple(_interventions(game)),
        rolls=tuple(_rolls(game)),
        days=tuple(days),
        events=sum(d.events for d in days),
        rooms=tuple(_rooms(game)),
    )


# The order of the archive's rooms: the rules' groups first, then the lobby, then the inboxes.
_ROOM_ORDER = {RoomKind.TEAM: 0, RoomKind.PHONE: 1, RoomKind.LOBBY: 2, RoomKind.INBOX: 3}


def _rooms(game: Game) -> list[RoomEntry]:
    """The rooms worth reading: every group the rules made (even a silent one shows who was in
    it), and the lobby and inboxes where something was said."""
    rooms = list(Room.objects.filter(game=game).select_related("owner").order_by("id"))
    said = dict(
        Event.objects.filter(game=game, kind="room_message")
        .order_by()  # grouped by room alone, not by the model's ordering too
        .values_list("room_id")
        .annotate(n=Count("id"))
        .values_list("room_id", "n")
    )
    stays: dict[int, list[RoomStay]] = {}
    for stay in (
        RoomMember.objects.filter(room__game=game).select_related("character").order_by("id")
    ):
        stays.setdefault(stay.room_id, []).append(
            RoomStay(
                stay.character.name,
                eventlog.at_text(stay.joined_at, seconds=False),
                eventlog.at_text(stay.left_at, seconds=False) if stay.left_at else "",
            )
        )
    entries = []
    for room in rooms:
        kind = RoomKind(room.kind)
        if kind in (RoomKind.LOBBY, RoomKind.INBOX) and not said.get(room.pk):
            continue
        name = _(room.name)
        if kind == RoomKind.INBOX and room.owner is not None:
            name = _("%(room)s · %(name)s") % {"room": name, "name": room.owner.name}
        entries.append(
            (
                _ROOM_ORDER[kind],
                RoomEntry(
                    room.token,
                    name,
                    str(kind.label),
                    said.get(room.pk, 0),
                    tuple(stays.get(room.pk, ())),
                ),
            )
        )
    return [entry for _order, entry in sorted(entries, key=lambda e: e[0])]


def _room_build(game: Game, entry: RoomEntry) -> ArchiveRoom:
    rows = Event.objects.filter(game=game, room__token=entry.token).order_by("seq")
    lines = tuple(
        RoomLine(
            e.stream_seq,
            eventlog.at_text(e.created_at),
            eventlog.room_text(e.kind, e.payload if isinstance(e.payload, dict) else {}),
            e.kind == "room_message",
        )
        for e in rows
    )
    return ArchiveRoom(entry=entry, lines=tuple(line for line in lines if line.text))


def _day_build(
    game: Game, entry: DayEntry, previous: int | None, following: int | None
) -> ArchiveDay:
    rows = list(_events(game).filter(seq__gte=entry.first_seq, seq__lte=entry.last_seq))
    audiences = {e.seq: (e.audience, e.audience_character_id) for e in rows}
    # A day's events are contiguous unless the log went back a day: keep only its own.
    lines = tuple(
        DayLine(line, *audiences[line.seq])
        for line in eventlog.event_lines(game=game, events=rows)
        if (line.day or 0) == entry.day
    )
    characters = tuple(game.characters.order_by("id").values_list("id", "name"))
    return ArchiveDay(
        entry=entry, lines=lines, characters=characters, previous=previous, next=following
    )
