"""Registers the battle royale (大逃杀) game kind with the core."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.http import HttpRequest, HttpResponse

from games.engine import timetable
from games.engine.events import GameEvent
from games.engine.rooms import RoomSpec
from games.models import Character, Game
from games.registry import GameKind, TransitionHandler, register
from royale import eventtext  # noqa: F401  (registers the log's sentences with the kind)
from royale.api import ActionIn
from royale.archive import royale_archive
from royale.engine import rooms as engine_rooms


def _handler(kind: str) -> TransitionHandler:
    def handle(game: Game, day: int, now: datetime) -> Sequence[GameEvent]:
        from royale.services import royale_transition

        return royale_transition(game=game, kind=kind, day=day)

    return handle


def _red_card(game: Game, character: Character, now: datetime) -> tuple[str, Sequence[GameEvent]]:
    from royale.services import royale_red_card

    return royale_red_card(game, character, now)


def _action_submit(
    *, game_id: int, character_id: int, body: ActionIn, key: str | None, now: datetime
) -> dict[str, Any]:
    from royale.services import action_submit

    return action_submit(
        game_id=game_id,
        character_id=character_id,
        data=body.dict(exclude_none=True),
        key=key,
        now=now,
    )


def _dealt(game: Game) -> bool:
    from royale.models import RoyaleGame

    return RoyaleGame.objects.filter(pk=game.pk).exists()


def _portal(request: HttpRequest, game: Game, character: Character) -> HttpResponse:
    from royale.views import player_page

    return player_page(request, game, character)


def _rooms(game: Game) -> Sequence[RoomSpec]:
    from royale import store
    from royale.errors import NotSetUp

    try:
        state = store.state_load(game).state
    except NotSetUp:
        return []
    return engine_rooms.rooms(state)


ROYALE = register(
    GameKind(
        key="royale",
        label="大逃杀",
        rulesets={"islington_256": "[256] 伊斯灵顿不眠夜", "kimetsu_252": "[252] 鬼灭之刃"},
        portal=_portal,
        control_room="admin:royale_control",
        transitions={kind: _handler(kind) for kind in timetable.TRANSITIONS},
        red_card=_red_card,
        archive=royale_archive,
        dealt=_dealt,
        deal_page="admin:royale_control",
        rooms=_rooms,
        # What may start or end a call's room: its acceptance, a death, a red card, the day's
        # close (the core's trigger). Not every action: the night's hot path stays as it was.
        room_triggers=frozenset({"phone_answer", "death", "red_card", "revenant_revived"}),
        action_in=ActionIn,
        action_submit=_action_submit,
    )
)
