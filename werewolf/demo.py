"""The role-game demos that `make run` loads beside the royale one, and their bots.

Each demo in ``DEMOS`` is a game of one ruleset ([099] 明日方舟, [061] 林峰, [096] 名侦探柯南):
three characters open to log in, the rest bots, the roles dealt from the seed and the first
night (061: the prelude of 附身/遇难/票台) open at once; [096] starts with a day (the 神眷者's
election), its empty 开局夜 published at load. A ruleset still being written ([096], ``"built":
false``) is a demo only under ``WEREWOLF_PREVIEW_RULESETS``; without it ``demo_load`` refuses
it with ``DemoUnavailable`` and the loader skips it with a message. Bots act only through
``werewolf.services.werewolf_action_submit``, exactly like a player's portal, so their
submissions are ordered, logged and pushed like anyone's; what they choose is the engine's
bots' (``werewolf.engine.bots``), from each bot's own player view.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
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
from werewolf.engine import Forgo, Vote, get_ruleset
from werewolf.engine.actions import Action
from werewolf.engine.bots import TRIES, Bot, Style, pending
from werewolf.engine.state import DAY, LATE, NIGHT
from werewolf.models import WerewolfAction, WerewolfGame
from werewolf.selectors import werewolf_state


@dataclass(frozen=True)
class DemoSpec:
    number: str
    ruleset: str
    title: str
    humans: tuple[str, ...]
    bots: tuple[str, ...]
    uid_from: int  # the humans' forum uids follow it
    username: str  # the humans' forum names: <username><n>
    male: frozenset[str] = frozenset()  # everyone else is female
    style: Style = field(default_factory=Style)


BOTS_099 = (
    "德克萨斯", "拉普兰德", "陈", "星熊", "塞雷娅", "银灰", "艾雅法拉", "伊芙利特",
    "斯卡蒂", "推进之王", "闪灵", "夜莺", "临光", "红", "华法琳",
)  # fmt: skip
BOTS_061 = (
    "翠竹", "苍柏", "银杏", "紫藤", "寒梅", "山茶", "玉兰", "丁香",
    "海棠", "木槿", "芙蓉", "杜鹃", "合欢", "石榴", "梧桐", "香樟",
)  # fmt: skip
BOTS_096 = (
    "毛利小五郎", "工藤新一", "服部平次", "远山和叶", "铃木园子", "阿笠博士", "吉田步美",
    "圆谷光彦", "小岛元太", "目暮十三", "高木涉", "佐藤美和子", "白鸟任三郎", "怪盗基德",
    "中森青子", "赤井秀一", "安室透", "琴酒", "贝尔摩德",
)  # fmt: skip
DEMOS: dict[str, DemoSpec] = {
    spec.number: spec
    for spec in (
        DemoSpec(
            "099", "arknights_099", "明日方舟", ("阿米娅", "凯尔希", "能天使"), BOTS_099,
            2000, "doctor",
            # The site keeps no gender per character; 梦中人's 魅惑 needs one, so each has one.
            male=frozenset({"银灰"}),
            # The witch keeps her potions so that the demo's nights have deaths to publish.
            style=Style(keep=frozenset({"save", "poison"})),
        ),
        DemoSpec(
            "061", "lin_feng_061", "林峰", ("青松", "白桦", "红枫"), BOTS_061, 6100, "forester",
            male=frozenset({"青松", "苍柏", "梧桐", "香樟"}),
        ),
        # Shown only with WEREWOLF_PREVIEW_RULESETS while [096] is being written.
        DemoSpec(
            "096", "conan_096", "名侦探柯南", ("江户川柯南", "毛利兰", "灰原哀"), BOTS_096,
            9600, "detective",
        ),
    )
}  # fmt: skip
PASSES = 3
# The [099] demo's names, as the tests and the older callers know them.
DEMO_NUMBER = "099"
HUMANS = DEMOS[DEMO_NUMBER].humans
BOTS = DEMOS[DEMO_NUMBER].bots


class DemoUnavailable(Exception):
    """A demo of a ruleset still being written, without ``WEREWOLF_PREVIEW_RULESETS``."""

    def __init__(self, spec: DemoSpec) -> None:
        self.spec = spec
        super().__init__(
            f"[{spec.number}] {spec.title}: 规则尚在编写中，需设置 WEREWOLF_PREVIEW_RULESETS=1 才能"
            f"载入此 demo（skipped: ruleset {spec.ruleset} is not built; set "
            "WEREWOLF_PREVIEW_RULESETS=1 to load it）"
        )


def available(spec: DemoSpec) -> bool:
    """The demo can be dealt on this site: its ruleset is built, or previews are on."""
    return get_ruleset(spec.ruleset).built or bool(settings.WEREWOLF_PREVIEW_RULESETS)


def demo_load(*, number: str = DEMO_NUMBER, now: datetime | None = None) -> Demo:
    """The demo ``number`` of ``DEMOS``, afresh: its characters dealt from the seed, the first
    night open now ([096]: its empty 开局夜 published, day 1 open). ``DemoUnavailable`` for a
    ruleset still being written without the preview (nothing is touched then)."""
    spec = DEMOS[number]
    if not available(spec):
        raise DemoUnavailable(spec)
    now = now or timezone.now()
    director, password = demo_director(password_reset=False)
    demo_wipe(spec.number, (WerewolfAction, WerewolfGame))
    game = game_services.game_create(
        kind="werewolf",
        ruleset=spec.ruleset,
        number=spec.number,
        title=spec.title,
        start_date=timezone.localdate(now),
        status=GameStatus.RUNNING,
    )
    game.directors.add(director)
    demo_characters(game, spec.humans, spec.bots, uid_from=spec.uid_from, username=spec.username)
    by_name = dict(game.characters.values_list("name", "pk"))
    genders = {pk: "男" if name in spec.male else "女" for name, pk in by_name.items()}
    services.werewolf_setup(game=game, genders=genders)
    # Today's transitions already due change nothing before the start; run them first so the
    # scheduler does not replay them on the night just opened.
    game_services.transitions_run_due(now=now)
    services.werewolf_start(game=game, director=director, now=now)
    if werewolf_state(game=game).phase == LATE:  # [096]: the empty 开局夜, then day 1
        services.werewolf_night_publish(game=game, director=director, reason="demo")
    return demo_logins(game, director, password)


def bots_act(*, now: datetime, brain: random.Random | None = None) -> int:
    """Each bot of every live role game does what is open to it now, once: at night each skill
    of an open step; by day and night each window (狩猎, 偏爱, 勾魂 …) and, by day, its ballot
    (the portal's) and a skill of any moment (询问阵营). The choices are the engine's bots'
    (a wolf follows its pack's pick, nobody aims at a known mate).

    Decisions read the state without a lock and may be stale by the time they are applied; the
    service then refuses them like any player's, which is what a bot should see."""
    brain = brain or random.Random()
    return sum(_game_bots_act(game, now, brain) for game in bot_games("werewolf", WerewolfGame))


def _game_bots_act(game: Game, now: datetime, brain: random.Random) -> int:
    spec = DEMOS.get(game.number)
    style = spec.style if spec is not None else Style()
    bots = list(game.characters.filter(bot=True).order_by("id").values_list("pk", flat=True))
    applied = 0
    # One bot's act can open another's window (偏爱 settling a vote-out opens 勾魂's): a few
    # passes, until one finds nothing to do.
    for _ in range(PASSES):
        done = sum(_Seat(game, bot, now, brain, style).play() for bot in bots)
        applied += done
        if not done:
            break
    return applied


class _Seat:
    """One bot of one game at one tick: what it does, each through the service."""

    def __init__(
        self, game: Game, pid: int, now: datetime, brain: random.Random, style: Style
    ) -> None:
        self.game, self.pid, self.now, self.brain, self.style = game, pid, now, brain, style
        self.state = werewolf_state(game=game)
        self.applied = 0

    def bot(self) -> Bot:
        return Bot(self.state, self.pid, self.brain, self.style)

    def play(self) -> int:
        if self.pid not in self.state.players or self.state.phase not in (NIGHT, DAY):
            return 0
        for skill in pending(self.state, self.pid):
            # Chosen afresh after a refusal (a limit the bot could not see); in the end it
            # passes, as a player would.
            if not any(self.submit(self.bot().choose(skill)) for _ in range(TRIES)):
                self.submit(Forgo(actor=self.pid, skill=skill))
        if self.state.phase == DAY:
            for action in self.bot().anytime():
                self.submit(action)
            bot = self.bot()
            target = bot.ballot()
            if target is not None and (bot.view.get("vote") or {}).get("mine") is None:
                self.submit(Vote(actor=self.pid, target=target))
        return self.applied

    def submit(self, action: Action) -> bool:
        data = {k: v for k, v in action.to_json().items() if k != "actor"}
        try:
            services.werewolf_action_submit(
                game_id=self.game.pk, character_id=self.pid, data=data, key=None, now=self.now
            )
        except RuleError:
            return False
        self.applied += 1
        self.state = werewolf_state(game=self.game)
        return True
