"""Registers the role game (版杀/狼人杀) kind with the core."""

from __future__ import annotations

from games.registry import GameKind, register
from werewolf.cards import werewolf_red_card

WEREWOLF = register(
    GameKind(
        key="werewolf",
        label="版杀",
        rulesets={
            "lin_feng_061": "[061] 林峰",
            "arknights_099": "[099] 明日方舟",
            "conan_096": "[096] 名侦探柯南",
        },
        red_card=werewolf_red_card,
    )
)
