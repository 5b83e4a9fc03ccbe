"""The demo that `make run` loads, and the bots that play it.

Bots act only through ``royale.services.action_submit``, exactly like a player's browser, so
their actions are ordered, logged and pushed like anyone's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User
from django.db import transaction
from django.utils import timezone

from games import credentials
from games import services as game_services
from games.engine.errors import RuleError
from games.models import (
    Announcement,
    Character,
    Event,
    Game,
    GameStatus,
    TimetableOverride,
    TransitionRecord,
)
from royale import services
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


@dataclass(frozen=True)
class Demo:
    game: Game
    director_username: str
    director_password: str
    passwords: list[game_services.IssuedCredential]
    links: list[game_services.IssuedCredential]


def _wipe(number: str) -> None:
    """Remove an earlier demo game whole: a fresh demo each run, never a second one."""
    game = Game.objects.filter(number=number).first()
    if game is None:
        return
    with transaction.atomic():
        Event.objects.filter(game=game).delete()
        ActionRecord.objects.filter(game=game).delete()
        for model in (Announcement, TransitionRecord, TimetableOverride, RoyaleGame):
            model.objects.filter(game=game).delete()
        Character.objects.filter(game=game).delete()
        game.delete()


def _director() -> tuple[User, str]:
    game_services.groups_ensure()
    director, _ = get_user_model().objects.get_or_create(
        username="director", defaults={"is_staff": True}
    )
    password = credentials.password_generate()
    director.set_password(password)
    director.is_staff = True
    director.save()
    director.groups.add(Group.objects.get(name=game_services.DIRECTORS_GROUP))
    return director, password


def demo_load(*, now: datetime | None = None) -> Demo:
    """A [256] game of 40 characters, 37 of them bots, with night 1's window open now."""
    now = now or timezone.now()
    director, director_password = _director()
    _wipe(DEMO_NUMBER)
    game = game_services.game_create(
        kind="royale",
        ruleset="islington_256",
        number=DEMO_NUMBER,
        title="伊斯灵顿不眠夜",
        start_date=timezone.localdate(now),
        status=GameStatus.RUNNING,
    )
    game.directors.add(director)
    Character.objects.bulk_create(
        [
            Character(game=game, name=name, forum_uid=str(1000 + i), forum_username=f"player{i}")
            for i, name in enumerate(HUMANS, start=1)
        ]
        + [Character(game=game, name=name, bot=True) for name in BOTS]
    )
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
    services.royale_setup(game=game)
    RoyaleGame.objects.filter(pk=game.pk).update(auto_publish=True)
    game_services.transitions_run_due(now=now)
    humans = list(game.characters.filter(bot=False).order_by("id"))
    passwords = game_services.character_passwords_generate(
        game=game, director=director, characters=humans
    )
    links = game_services.character_links_issue(game=game, director=director, characters=humans)
    game.refresh_from_db()
    return Demo(game, director.get_username(), director_password, passwords, links)


def bots_act(*, now: datetime, per_bot: int = 1, brain: random.Random | None = None) -> int:
    """Each bot of every live royale game in its night window takes up to ``per_bot`` actions.

    Decisions read the state without a lock and may be stale by the time they are applied;
    the service then refuses them like any player's, which is what a bot should see.
    """
    brain = brain or random.Random()
    applied = 0
    games = Game.objects.filter(
        kind="royale",
        status__in=[GameStatus.TEST, GameStatus.RUNNING],
        paused=False,
        characters__bot=True,
    ).distinct()
    for game in games:
        if not RoyaleGame.objects.filter(pk=game.pk).exists():
            continue
        if royale_state(game=game).phase != NIGHT:
            continue
        bots = list(game.characters.filter(bot=True, status="alive"))
        rs = get_ruleset(game.ruleset)
        for _ in range(per_bot):
            game.refresh_from_db(fields=["seq"])
            state = royale_state(game=game)
            for bot in brain.sample(bots, len(bots)):
                me = state.characters.get(bot.pk)
                if me is None or not me.alive:
                    continue
                action = choose(rs, state, me, brain, now.timestamp())
                if action is None:
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
