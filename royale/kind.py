"""Registers the battle royale (大逃杀) game kind with the core."""

from __future__ import annotations

from games.registry import GameKind, register

ROYALE = register(
    GameKind(
        key="royale",
        label="大逃杀",
        rulesets={"islington_256": "[256] 伊斯灵顿不眠夜", "kimetsu_252": "[252] 鬼灭之刃"},
    )
)
