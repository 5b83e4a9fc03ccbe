"""Registered game kinds. The core looks kinds up here; it never branches on a kind's name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from django.http import HttpRequest, HttpResponse

from games.engine.events import GameEvent

if TYPE_CHECKING:
    from games.models import Character, Game

# Called inside the transition's transaction with the game row locked; returns the kind's own
# events for this transition (they are logged right after the core's phase event).
TransitionHandler = Callable[["Game", int, datetime], Sequence[GameEvent]]
# The character's page of a kind: (request, game, character) -> response. Without one, the
# core's generic page (live log only) is shown.
PortalView = Callable[[HttpRequest, "Game", "Character"], HttpResponse]


@dataclass(frozen=True)
class GameKind:
    key: str
    label: str
    rulesets: Mapping[str, str] = field(default_factory=dict)
    transitions: Mapping[str, TransitionHandler] = field(default_factory=dict)
    portal: PortalView | None = None
    # The admin URL name (taking the game id) of the kind's live control room, if it has one.
    control_room: str | None = None


_KINDS: dict[str, GameKind] = {}


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
