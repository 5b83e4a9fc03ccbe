"""The demo that `make run` loads, and the bots that play it.

Bots act only through ``royale.services.action_submit``, exactly like a player's browser, so
their actions are ordered, logged and pushed like anyone's.

The demo stays playable for the humans: 37 bots that kept everything they found would pick the
ground clean in one night (6 items each against the 182 dealt), so a bot stops picking up once it
holds ``BOT_ITEMS`` items (what a kill loots is still its own), and the demo deals
``ITEM_FACTOR`` times the ruleset's untiered items (supplies, upgraders, bombs, GPS …; a tier's
names are all dealt already), ``demo_placement``.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta

from django.utils import timezone

from games import services as game_services
from games.demo import (
    Demo,
    bot_games,
    demo_characters,
    demo_director,
    demo_logins,
    demo_wipe,
)
from games.engine.errors import RuleError
from games.models import CharacterStatus, Game, GameStatus, TimetableOverride
from royale import services
from royale.engine.actions import PickUp
from royale.engine.ruleset import get_ruleset
from royale.engine.simulate import choose
from royale.engine.state import NIGHT
from royale.models import ActionRecord, RoyaleGame
from royale.selectors import royale_state

DEMO_NUMBER = "256"
HUMANS = ("博丽灵梦", "雾雨魔理沙", "十六夜咲夜")
BOTS = (
    "魂魄妖梦", "东风谷早苗", "琪露诺", "红美铃", "帕秋莉", "蕾米莉亚",
    "芙兰朵露", "八云紫", "射命丸文", "西行寺幽幽子", "八意永琳", "蓬莱山辉夜",
    "藤原妹红", "铃仙", "因幡帝", "河城荷取", "犬走椛", "八坂神奈子",
    "洩矢诹访子", "古明地觉", "古明地恋", "灵乌路空", "火焰猫燐", "伊吹萃香",
    "星熊勇仪", "比那名居天子", "永江衣玖", "圣白莲", "封兽鵺", "丰聪耳神子",
    "物部布都", "苏我屠自古", "二岩猯藏", "秦心", "少名针妙丸", "鬼人正邪",
    "堀川雷鼓",
)  # fmt: skip
# A bot holding this many items leaves what it finds on the ground for the humans.
BOT_ITEMS = 3
ITEM_FACTOR = 3


def demo_placement(ruleset: str) -> dict[str, int]:
    """The ruleset's deal with ``ITEM_FACTOR`` times each untiered item (a kind key, which may
    be dealt any number of times; a tier selector such as ``weapon:green`` keeps its count)."""
    rs = get_ruleset(ruleset)
    return {
        p.selector: p.count * ITEM_FACTOR
        for p in rs.placement
        if p.selector in rs.kinds and rs.kinds[p.selector].tier is None
    }


def demo_load(*, now: datetime | None = None) -> Demo:
    """A [256] game of 40 characters, 37 of them bots, with night 1's window open now."""
    now = now or timezone.now()
    director, director_password = demo_director(password_reset=True)
    demo_wipe(DEMO_NUMBER, (ActionRecord, RoyaleGame))
    game = game_services.game_create(
        kind="royale",
        ruleset="islington_256",
        number=DEMO_NUMBER,
        title="伊斯灵顿不眠夜",
        start_date=timezone.localdate(now),
        status=GameStatus.RUNNING,
    )
    game.directors.add(director)
    demo_characters(game, HUMANS, BOTS, uid_from=1000, username="player")
    # Day 1 opened a few minutes ago and its night window is open for the next three hours.
    moments = {
        "day_open": now - timedelta(minutes=3),
        "day_close": now - timedelta(minutes=2),
        "night_open": now - timedelta(minutes=1),
        "night_end": now + timedelta(hours=3),
        "night_close": now + timedelta(hours=3, minutes=5),
    }
    TimetableOverride.objects.bulk_create(
        TimetableOverride(game=game, day=1, kind=kind, at=at) for kind, at in moments.items()
    )
    services.royale_setup(game=game, placement=demo_placement(game.ruleset))
    RoyaleGame.objects.filter(pk=game.pk).update(auto_publish=True)
    game_services.transitions_run_due(now=now)
    return demo_logins(game, director, director_password)


def bots_act(*, now: datetime, per_bot: int = 1, brain: random.Random | None = None) -> int:
    """Each bot of every live royale game in its night window takes up to ``per_bot`` actions.

    Decisions read the state without a lock and may be stale by the time they are applied;
    the service then refuses them like any player's, which is what a bot should see.
    """
    brain = brain or random.Random()
    return sum(
        _game_bots_act(game, now, per_bot, brain) for game in bot_games("royale", RoyaleGame)
    )


def _game_bots_act(game: Game, now: datetime, per_bot: int, brain: random.Random) -> int:
    if royale_state(game=game).phase != NIGHT:
        return 0
    bots = list(game.characters.filter(bot=True, status=CharacterStatus.ALIVE))
    rs = get_ruleset(game.ruleset)
    applied = 0
    for _ in range(per_bot):
        game.refresh_from_db(fields=["seq"])
        state = royale_state(game=game)
        for bot in brain.sample(bots, len(bots)):
            me = state.characters.get(bot.pk)
            if me is None or not me.alive:
                continue
            if me.item_count() >= BOT_ITEMS and me.found is not None and me.found.kind == "item":
                me = replace(me, found=None)  # it leaves the find where it lies and goes on
            action = choose(rs, state, me, brain, now.timestamp())
            if action is None or (isinstance(action, PickUp) and me.item_count() >= BOT_ITEMS):
                continue
            data = {k: v for k, v in action.to_json().items() if k != "actor"}
            try:
                services.action_submit(
                    game_id=game.pk, character_id=bot.pk, data=data, key=None, now=now
                )
            except RuleError:
                continue
            applied += 1
    return applied
