"""The [099] 明日方舟 demo that `make run` loads beside the royale one, and its bots.

Three characters are open to log in, fifteen are bots; the roles are dealt from the seed and
night 1 opens at once. Bots act only through ``werewolf.services.werewolf_action_submit``,
exactly like a player's portal, so their submissions are ordered, logged and pushed like anyone's.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

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
from games.models import Game, GameStatus
from werewolf import services
from werewolf.engine import get_ruleset
from werewolf.engine.state import NIGHT
from werewolf.models import WerewolfAction, WerewolfGame
from werewolf.selectors import player_view, werewolf_state

DEMO_NUMBER = "099"
HUMANS = ("阿米娅", "凯尔希", "能天使")
BOTS = (
    "德克萨斯", "拉普兰德", "陈", "星熊", "塞雷娅", "银灰", "艾雅法拉", "伊芙利特",
    "斯卡蒂", "推进之王", "闪灵", "夜莺", "临光", "红", "华法琳",
)  # fmt: skip
# The site keeps no gender per character; 梦中人's 魅惑 needs one, so the demo gives each.
MALE = frozenset({"银灰"})


def demo_load(*, now: datetime | None = None) -> Demo:
    """A [099] game of 18 characters, 15 of them bots, dealt from the seed, night 1 open now."""
    now = now or timezone.now()
    director, password = demo_director(password_reset=False)
    demo_wipe(DEMO_NUMBER, (WerewolfAction, WerewolfGame))
    game = game_services.game_create(
        kind="werewolf",
        ruleset="arknights_099",
        number=DEMO_NUMBER,
        title="明日方舟",
        start_date=timezone.localdate(now),
        status=GameStatus.RUNNING,
    )
    game.directors.add(director)
    demo_characters(game, HUMANS, BOTS, uid_from=2000, username="doctor")
    by_name = dict(game.characters.values_list("name", "pk"))
    genders = {pk: "男" if name in MALE else "女" for name, pk in by_name.items()}
    services.werewolf_setup(game=game, genders=genders)
    # Today's transitions already due change nothing before the start; run them first so the
    # scheduler does not replay them on the night just opened.
    game_services.transitions_run_due(now=now)
    services.werewolf_start(game=game, director=director, now=now)
    return demo_logins(game, director, password)


def bots_act(*, now: datetime, brain: random.Random | None = None) -> int:
    """Each bot of every live role game at night uses each skill open to it now, once: a random
    allowed target (the wolves follow their first pick, so the pack agrees on one kill).

    Decisions read the state without a lock and may be stale by the time they are applied; the
    service then refuses them like any player's, which is what a bot should see."""
    brain = brain or random.Random()
    return sum(_game_bots_act(game, now, brain) for game in bot_games("werewolf", WerewolfGame))


def _game_bots_act(game: Game, now: datetime, brain: random.Random) -> int:
    state = werewolf_state(game=game)
    if state.phase != NIGHT:
        return 0
    rs = get_ruleset(state.ruleset)
    applied = 0
    for bot in game.characters.filter(bot=True).order_by("id"):
        if bot.pk not in state.players:
            continue
        view = player_view(state=state, character_id=bot.pk)
        done = state.night["subs"]
        for usable in view["usable"]:
            skill = usable["skill"]
            if str(bot.pk) in done.get(skill, {}):
                continue
            target = _target(view, rs.skills[skill].target, skill, done, brain)
            data = {"kind": "use_skill", "skill": skill, "targets": [target]}
            if target is None:
                data = {"kind": "forgo", "skill": skill}
            try:
                services.werewolf_action_submit(
                    game_id=game.pk, character_id=bot.pk, data=data, key=None, now=now
                )
            except RuleError:
                continue
            applied += 1
            state = werewolf_state(game=game)
    return applied


def _target(
    view: dict[str, Any],
    rule: str,
    skill: str,
    done: dict[str, dict[str, int | None]],
    brain: random.Random,
) -> int | None:
    """A bot's pick: a teammate's earlier pick of the same skill, else anyone allowed (not a
    teammate); the witch keeps her potions so the demo's nights have deaths to publish."""
    if skill in ("save", "poison"):
        return None
    team = view.get("team", [])
    mates = {t["id"] for t in team}
    for actor, target in done.get(skill, {}).items():
        if int(actor) in mates and target is not None:
            return target
    if rule == "teammate":
        choices = [t["id"] for t in team if t["alive"]]
    else:
        me = view["id"]
        alive = [p["id"] for p in view["players"] if p["alive"]]
        allowed = [c for c in alive if rule != "other" or c != me]
        choices = [c for c in allowed if c not in mates] or allowed
    return brain.choice(choices) if choices else None
