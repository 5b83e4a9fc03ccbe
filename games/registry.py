"""Registered game kinds. The core looks kinds up here; it never branches on a kind's name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from django.http import HttpRequest, HttpResponse
from ninja import Schema

from games.engine.events import GameEvent
from games.engine.rooms import RoomSpec

if TYPE_CHECKING:
    from games.archive_selectors import ArchiveFacts
    from games.models import Character, Game

# Called inside the transition's transaction with the game row locked; returns the kind's own
# events for this transition (they are logged right after the core's phase event).
TransitionHandler = Callable[["Game", int, datetime], Sequence[GameEvent]]
# The character's page of a kind: (request, game, character) -> response. Without one, the
# core's generic page (live log only) is shown.
PortalView = Callable[[HttpRequest, "Game", "Character"], HttpResponse]
# A confirmed red card (红牌罚下), called with the game row locked for a character still in the
# game: applies the kind's rule and returns what it did (a short Chinese line kept on the card)
# and the kind's events.
RedCardHandler = Callable[["Game", "Character", datetime], tuple[str, Sequence[GameEvent]]]
# The director's decision that a red-carded character's faction loses (判负), for kinds with
# factions; returns what was done, in Chinese, and the kind's events.
FactionLossHandler = Callable[["Game", "Character", datetime], tuple[str, Sequence[GameEvent]]]
# Who voted on a day the kind's own ballot box settles (the portal's vote, for a day with no
# forum vote thread), counted like the forum's tally: a character with a ballot, or one the vote
# does not ask (out, idle, barred from voting); None when the kind cannot tell. The core's
# day-close cards call it before the kind's own close handler, so that day's ballots are there.
DayVotersReader = Callable[["Game", int], "frozenset[int] | None"]
# The 揭秘 of a game that is over, for its public archive (复盘): every character's role or final
# items, the ranking or the winner, the royale's nightly maps. Only ever called for a game whose
# seed is revealed; the result is cached with the rendered archive.
ArchiveReader = Callable[["Game"], "ArchiveFacts"]
# Whether the kind's starting state is dealt (items scattered, roles given): from then on the
# cast is the engine's and no character may be added or removed.
DealtReader = Callable[["Game"], bool]
# The kind's part of the start (the core's ``game_start``, the game locked and just made
# live), returning its events: e.g. a role game whose flow begins with a night opens it.
StartHandler = Callable[["Game", datetime], Sequence[GameEvent]]
# What the kind's dealt state still lacks before the start, as lines of the 开局 checklist
# (a role game whose 梦中人 reads genders: "性别（凯尔希、阿米娅）").
StartMissingReader = Callable[["Game"], Sequence[str]]
# The rooms the kind's rules hold now, read from its state with the game row locked (``[]``
# before the deal): a faction's 共群, a <团队> group, a phone call (``games.room_services``).
RoomsReader = Callable[["Game"], Sequence[RoomSpec]]


class ActionSubmit(Protocol):
    """A player's action of the kind, applied now: ``body`` is the kind's ``action_in``, already
    validated; the answer is the ``games.api.ActionOut`` dict (the first one again for a key
    already applied). Both ways in call it: the kind's HTTP endpoint and the socket's ``act``
    frame (``games.actions``)."""

    def __call__(
        self, *, game_id: int, character_id: int, body: Any, key: str | None, now: datetime
    ) -> dict[str, Any]: ...


@dataclass(frozen=True)
class GameKind:
    key: str
    label: str
    rulesets: Mapping[str, str] = field(default_factory=dict)
    transitions: Mapping[str, TransitionHandler] = field(default_factory=dict)
    portal: PortalView | None = None
    # The admin URL name (taking the game id) of the kind's live control room, if it has one.
    control_room: str | None = None
    red_card: RedCardHandler | None = None
    faction_loss: FactionLossHandler | None = None
    # 未投票 (099 5(2)) on a day voted outside the forum; None: the kind keeps no ballots.
    day_voters: DayVotersReader | None = None
    # 揭秘 for the archive page; None: the archive shows the log, rolls and seed only.
    archive: ArchiveReader | None = None
    dealt: DealtReader | None = None
    start: StartHandler | None = None
    start_missing: StartMissingReader | None = None
    # The admin URL name (taking the game id) of the page where the director deals.
    deal_page: str | None = None
    rooms: RoomsReader | None = None
    # The kind's event kinds after which its rooms' members may have changed (besides the
    # core's own: ``games.room_services.CORE_TRIGGERS``); the rooms follow within the step.
    room_triggers: frozenset[str] = frozenset()
    # The kind's private events that carry a team's decision as it is made (a <团队> pick, the
    # wolves' 选举), each sent to every member: told in the team's room as well.
    room_decisions: frozenset[str] = frozenset()
    # What a player sends to act (the body of ``POST /api/<kind>/games/{id}/actions``, and
    # the ``action`` of a socket's ``act`` frame) and what applies it; None: players do not
    # act in this kind (the socket answers an act frame 403).
    action_in: type[Schema] | None = None
    action_submit: ActionSubmit | None = None


_KINDS: dict[str, GameKind] = {}
# The core's own work at a transition, for every kind (the day close's penalty cards): called
# like a kind's handler but before it, so it sees the game as the transition found it; its
# events are logged after the kind's.
_CORE_TRANSITIONS: dict[str, list[TransitionHandler]] = {}


def on_transition(kind: str) -> Callable[[TransitionHandler], TransitionHandler]:
    def add(handler: TransitionHandler) -> TransitionHandler:
        _CORE_TRANSITIONS.setdefault(kind, []).append(handler)
        return handler

    return add


def core_transitions(kind: str) -> Sequence[TransitionHandler]:
    return _CORE_TRANSITIONS.get(kind, ())


# The core's look before the scheduler runs a due transition (the day close: settle [061]'s
# 延时 first, which moves the close): called on the locked game while the transition is only
# due; its events are logged, and the scheduler reads the timetable again before running it.
_CORE_BEFORE: dict[str, list[TransitionHandler]] = {}


def before_transition(kind: str) -> Callable[[TransitionHandler], TransitionHandler]:
    def add(handler: TransitionHandler) -> TransitionHandler:
        _CORE_BEFORE.setdefault(kind, []).append(handler)
        return handler

    return add


def core_before(kind: str) -> Sequence[TransitionHandler]:
    return _CORE_BEFORE.get(kind, ())


def register(kind: GameKind) -> GameKind:
    if kind.key in _KINDS and _KINDS[kind.key] is not kind:
        raise ValueError(f"game kind {kind.key!r} registered twice")
    _KINDS[kind.key] = kind
    return kind


def kind_get(key: str) -> GameKind:
    try:
        return _KINDS[key]
    except KeyError:
        raise LookupError(f"unknown game kind {key!r}") from None


def kinds_all() -> list[GameKind]:
    return sorted(_KINDS.values(), key=lambda k: k.key)
