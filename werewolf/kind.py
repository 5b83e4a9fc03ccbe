"""Registers the role game (版杀/狼人杀) kind with the core."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from games.engine.events import GameEvent
from games.models import Character, Game
from games.registry import GameKind, register


def _red_card(game: Game, character: Character, now: datetime) -> tuple[str, Sequence[GameEvent]]:
    from werewolf.cards import werewolf_red_card

    return werewolf_red_card(game, character, now)


WEREWOLF = register(
    GameKind(
        key="werewolf",
        label="版杀",
        rulesets={
            "lin_feng_061": "[061] 林峰",
            "arknights_099": "[099] 明日方舟",
            "conan_096": "[096] 名侦探柯南",
        },
        red_card=_red_card,
    )
)
