"""The royale's part of a penalty card: 红牌罚下 is an engine step (the character is out at once,
its items drop where it stood, the public is told), logged like the director's interventions so
replaying the log sends it off again."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from games.engine.events import GameEvent
from games.models import Character, Game
from royale.models import RoyaleGame
from royale.services import _run
from royale.store import INTERVENTIONS


def royale_red_card(
    game: Game, character: Character, now: datetime
) -> tuple[str, Sequence[GameEvent]]:
    """For the core's card ledger, with the game locked: the engine's ``red_card``."""
    if not RoyaleGame.objects.filter(pk=game.pk).exists():
        return "游戏尚未发牌，没有可执行的状态。", []
    payload = {"character": character.pk}
    _, events = _run(
        game=game,
        op="red_card",
        step=lambda state, rng: INTERVENTIONS["red_card"](state, payload, rng),
        payload=payload,
        rng_seq=game.seq + 1,
    )
    return "红牌罚下：立即出局，道具掉落在所在场所。", events
