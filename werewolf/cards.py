"""The role games' part of a penalty card, until their engine arrives (issue 7): the red card's
effect is the ruleset's (``games.engine.cards.PenaltyRules.red_card``), applied to the shared
Character row and announced — [099]/[061] 红牌罚下 (out), [096] 挂机 (idle, still in the game)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from django.db.models import Max

from games.engine.cards import RedCardEffect, penalty_rules
from games.engine.events import PUBLIC, GameEvent
from games.models import Character, CharacterStatus, Game

CAUSE_RED_CARD = "红牌罚下"


def _eliminate(game: Game, character: Character) -> str:
    last = game.characters.aggregate(n=Max("elimination_order"))["n"] or 0
    character.status = CharacterStatus.ELIMINATED
    character.cause = CAUSE_RED_CARD
    character.elimination_order = last + 1
    character.eliminated_day = max(game.day, 1)
    character.death_public = True  # 白天出局的所有角色将立即公示
    character.save(
        update_fields=["status", "cause", "elimination_order", "eliminated_day", "death_public"]
    )
    return "红牌罚下：出局。"


def _idle(game: Game, character: Character) -> str:
    character.idle = True
    character.save(update_fields=["idle"])
    return "红牌罚下：进入挂机状态（仍属于游戏范畴）。"


EFFECTS: dict[RedCardEffect, Callable[[Game, Character], str]] = {
    "eliminate": _eliminate,
    "idle": _idle,
}


def werewolf_red_card(
    game: Game, character: Character, now: datetime
) -> tuple[str, Sequence[GameEvent]]:
    effect = penalty_rules(game.ruleset).red_card
    text = EFFECTS[effect](game, character)
    payload = {"character": character.pk, "name": character.name, "effect": effect}
    return text, [GameEvent("red_card", PUBLIC, payload)]
