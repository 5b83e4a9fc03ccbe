"""Registers the role game (版杀/狼人杀) kind with the core."""

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
from werewolf import eventtext  # noqa: F401  (registers the log's sentences with the kind)
from werewolf.api import WerewolfActionIn
from werewolf.archive import werewolf_archive
from werewolf.engine import rooms as engine_rooms


def _handler(kind: str) -> TransitionHandler:
    def handle(game: Game, day: int, now: datetime) -> Sequence[GameEvent]:
        from werewolf.services import werewolf_transition

        return werewolf_transition(game=game, kind=kind, day=day)

    return handle


def _red_card(game: Game, character: Character, now: datetime) -> tuple[str, Sequence[GameEvent]]:
    from werewolf.services import werewolf_red_card

    return werewolf_red_card(game, character, now)


def _faction_loss(
    game: Game, character: Character, now: datetime
) -> tuple[str, Sequence[GameEvent]]:
    from werewolf.services import werewolf_faction_forfeit

    return werewolf_faction_forfeit(game, character, now)


def _day_voters(game: Game, day: int) -> frozenset[int] | None:
    from werewolf.selectors import werewolf_day_voters

    return werewolf_day_voters(game, day)


def _action_submit(
    *, game_id: int, character_id: int, body: WerewolfActionIn, key: str | None, now: datetime
) -> dict[str, Any]:
    from werewolf.services import werewolf_action_submit

    data = body.dict(exclude_none=True)
    if "targets" in data:
        data["targets"] = tuple(data["targets"])
    return werewolf_action_submit(
        game_id=game_id, character_id=character_id, data=data, key=key, now=now
    )


def _dealt(game: Game) -> bool:
    from werewolf.models import WerewolfGame

    return WerewolfGame.objects.filter(pk=game.pk).exists()


def _start(game: Game, now: datetime) -> Sequence[GameEvent]:
    from werewolf.services import werewolf_begin

    return werewolf_begin(game=game, now=now)


def _start_missing(game: Game) -> Sequence[str]:
    from werewolf.selectors import werewolf_start_missing

    return werewolf_start_missing(game=game)


def _rooms(game: Game) -> Sequence[RoomSpec]:
    from werewolf import store
    from werewolf.errors import NotSetUp

    try:
        state = store.state_load(game)
    except NotSetUp:
        return []
    return engine_rooms.rooms(state)


def _portal(request: HttpRequest, game: Game, character: Character) -> HttpResponse:
    from werewolf.views import player_page

    return player_page(request, game, character)


WEREWOLF = register(
    GameKind(
        key="werewolf",
        label="版杀",
        rulesets={
            "lin_feng_061": "[061] 林峰",
            "arknights_099": "[099] 明日方舟",
            "conan_096": "[096] 名侦探柯南",
        },
        portal=_portal,
        control_room="admin:werewolf_night",
        transitions={kind: _handler(kind) for kind in timetable.TRANSITIONS},
        red_card=_red_card,
        faction_loss=_faction_loss,
        archive=werewolf_archive,
        dealt=_dealt,
        start=_start,
        start_missing=_start_missing,
        deal_page="admin:werewolf_night",
        day_voters=_day_voters,
        rooms=_rooms,
        # Every step may move a member: a conversion, a flip, an out, 挂机, a red card (a few
        # steps a night, so reading the state after each costs nothing that matters).
        room_triggers=frozenset({"engine_step"}),
        room_decisions=frozenset({"team_pick", "team_vote"}),
        action_in=WerewolfActionIn,
        action_submit=_action_submit,
    )
)
