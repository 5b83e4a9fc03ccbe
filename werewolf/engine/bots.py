"""Bots for the role games: each picks a legal action from its own player's view (what the
portal shows that player) with a seeded ``random.Random``, so that a simulated game, the
property test and the demo's bots all play alike and every run can be repeated.

A bot never reads the hidden state: what it knows is its view — its role card, its team
([099]'s wolves), its roster or 狼群 ([061]), its own feedback (预言, 查证, 感知, 献策 …) and
the public roles. From that it keeps apart its known mates (never a hostile target) and the
known foes (preferred). Skills that help their target (守卫, 救治, 守护, 磐石, 票台 …) go to
itself or a mate instead.

    bot = Bot(state, pid, rng)
    for usable in bot.view["usable"]:
        action = bot.choose(usable["skill"])      # a UseSkill or a Forgo
    target = bot.ballot(cast)                     # the day's ballot, or None (abstain)

``Autoplay`` drives whole games with these bots in the engine alone (the simulator and the
property test); ``werewolf.demo`` asks the same bots through the services.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine.errors import RuleError

from .actions import Action, Forgo, UseSkill
from .day import day_vote, tally
from .lin_feng import count_chars
from .night import deadline_pass, next_deadline, night_open, night_publish, night_resolve
from .ruleset import Ruleset, Skill, get_ruleset
from .skills import apply_action
from .state import DAY, NIGHT, OVER, GameState
from .views import player_view

# Effects that do their target good: a bot names itself or a known mate.
# (096: 祝福 and 许愿 help their target; 援护 names a role, not a player.)
FRIENDLY = frozenset({"protect", "save", "cure", "guard", "rock", "stage", "bless", "wish"})
ROUNDS = 12  # a night's rounds of submissions and deadlines (steps opening one after another)
TRIES = 6  # a bot's attempts before it forgoes (some limits it cannot see, e.g. 诅咒 once each)


@dataclass(frozen=True)
class Style:
    """How a bot plays: the odds of passing on a skill it may pass on, of keeping a <限定> one
    for a later night, of following a mate's ballot (a team's pick is always followed), of
    abstaining, of asking (询问阵营) on a given day; ``keep`` are skills it never uses (the
    demo's witch keeps her potions so that its nights have deaths to publish)."""

    forgo: float = 0.1
    limited: float = 0.6
    follow: float = 0.8
    abstain: float = 0.05
    ask: float = 0.3
    keep: frozenset[str] = frozenset()


class Bot:
    """One player's choices at one moment, from that player's view."""

    def __init__(
        self, state: GameState, pid: int, rng: random.Random, style: Style | None = None
    ) -> None:
        self.state = state
        self.pid = pid
        self.rng = rng
        self.style = style or Style()
        self.rs: Ruleset = get_ruleset(state.ruleset)
        self.view = player_view(state, pid)
        self.lf: dict[str, Any] = self.view.get("lin_feng", {})
        # A [061] 不定's card names no faction it followed; its one question's answer does.
        self.faction: str = (
            _last_feedback(self, "ask").get("faction") or self.view["card"]["faction"]
        )
        self.living = [p["id"] for p in self.view["players"] if p["alive"]]
        self.mates, self.foes = self._knowledge()

    # --- what the view tells ----------------------------------------------------------------

    def _knowledge(self) -> tuple[set[int], set[int]]:
        rs, mine = self.rs, self.faction
        mine_names = {mine, rs.factions[mine].name}
        mates = {t["id"] for t in self.view.get("team", [])}
        mates |= {m["id"] for m in self.lf.get("roster", [])}
        mates |= {m["id"] for m in self.lf.get("pack", [])}
        for group in self.view.get("conan", {}).get("groups", []):  # 096's 共群 groups
            mates |= {m["id"] for m in group["members"]}
        foes: set[int] = set()
        role_faction = {r.name: r.faction for r in rs.roles.values()}
        for p in self.view["players"]:
            if "role" in p and p["id"] not in mates:
                (mates if role_faction.get(p["role"]) == mine else foes).add(p["id"])
        for fb in self.view["feedback"]:
            facts = fb if isinstance(fb, dict) else {}
            target = facts.get("target")
            told = facts.get("faction") or facts.get("group")
            told = told or role_faction.get(str(facts.get("role")))
            if not isinstance(target, int) or told is None:
                continue
            (mates if told in mine_names else foes).add(target)
        mates.discard(self.pid)
        return mates, foes - mates

    def _aim(self, pool: Sequence[int], friendly: bool) -> list[int]:
        """``pool`` in the order the bot prefers: itself and its mates first for a skill that
        helps, known foes first and mates last (or never) for one that harms."""
        pool = list(pool)
        self.rng.shuffle(pool)
        if friendly:
            return sorted(pool, key=lambda t: 0 if t == self.pid else 1 if t in self.mates else 2)
        return sorted(pool, key=lambda t: 0 if t in self.foes else 2 if t in self.mates else 1)

    def _pool(self, sk: Skill) -> list[int]:
        if sk.target == "teammate":
            return [t["id"] for t in self.view.get("team", []) if t["alive"]]
        if sk.target == "other":
            return [t for t in self.living if t != self.pid]
        return list(self.living)

    def _followed(self, sk: Skill) -> int | None:
        """A mate's pick of the same team skill tonight ([099]'s pack: kill and election)."""
        if "团队" not in sk.tags:
            return None
        night = self.view.get("team_night") or {}
        picks = night.get("votes", {}) if sk.handler == "elect" else night.get("kills", {})
        if sk.handler != "elect":
            picks = picks.get(sk.key, {})
        for actor, target in picks.items():
            if int(actor) != self.pid and target is not None:
                return int(target)
        return None

    # --- choices -------------------------------------------------------------------------------

    def choose(self, skill: str) -> Action:
        """The bot's action for ``skill`` (open to it now): a use, or a forgo when it passes."""
        sk = self.rs.skills[skill]
        usable: dict[str, Any] = next((u for u in self.view["usable"] if u["skill"] == skill), {})
        forced = bool(usable.get("forced"))
        followed = self._followed(sk)
        if followed is not None:  # the pack agrees on a mate's pick: it never passes then
            return UseSkill(actor=self.pid, skill=skill, targets=(followed,))
        if not forced and "团队" not in sk.tags:  # the pack always kills
            odds = self.style.limited if sk.limited else self.style.forgo
            wait = WAIT.get(sk.effect or sk.key)
            if skill in self.style.keep or self.rng.random() < odds or (wait and wait(self)):
                return Forgo(actor=self.pid, skill=skill)
        targets, option = self._targets(sk, usable)
        if targets is None:
            return Forgo(actor=self.pid, skill=skill)
        return UseSkill(actor=self.pid, skill=skill, targets=tuple(targets), option=option)

    def _targets(self, sk: Skill, usable: dict[str, Any]) -> tuple[list[int] | None, str | None]:
        among = usable.get("among")  # a window's own candidates (怨恨: the voters)
        if sk.effect == "borrowed":
            return self._borrowed()
        if sk.key in CONAN and "undead_faction" in self.rs.params:  # [096]'s own choices
            return CONAN[sk.key](self, sk)
        option = OPTIONS[sk.effect](self, sk) if sk.effect in OPTIONS else None
        pool = [t for t in (among if among is not None else self._pool(sk)) if t in self.living]
        shunned = set(SHUNNED.get(sk.effect or sk.key, _none)(self))
        if sk.window is not None and usable.get("voted") is not None:
            shunned.add(usable["voted"])
        pool = [t for t in pool if t not in shunned]
        count = self._count(sk.targets, pool)
        if count is None:
            return None, option
        prefer = PREFERRED.get(sk.effect or sk.key)
        ranked = self._aim(pool, sk.effect in FRIENDLY)
        if prefer is not None:
            first = set(prefer(self))
            ranked = [t for t in ranked if t in first] + [t for t in ranked if t not in first]
        if sk.effect not in FRIENDLY:  # mates come last: named only to fill a list
            foes_first = [t for t in ranked if t not in self.mates]
            ranked = foes_first if len(foes_first) >= count else ranked
        if sk.effect == "cunning":
            option = self._guess(ranked[0]) if ranked else option
        return ranked[:count], option

    def _count(self, spec: str, pool: Sequence[int]) -> int | None:
        """How many to name, or None when the pool cannot give them."""
        if spec == "third":
            return min(len(self.living) // 3, len(pool))
        want = {"0": 0, "0-1": 1, "1": 1, "2": 2, "3": 3}.get(spec)
        if spec == "1-2":  # 龙息 one twice or two once; 啃咬's second only under 集群 (retried)
            want = self.rng.randint(1, 2)
        if want is None:  # "any": a short list
            want = self.rng.randint(1, 3)
        want = min(want, len(pool)) if spec in ("any", "1-2", "2", "3") else want
        return want if want <= len(pool) else None

    def _borrowed(self) -> tuple[list[int] | None, str | None]:
        """狡黠's borrowed skill: one of those offered, with its own targets and option."""
        offer = list((self.lf.get("borrow") or {}).get("skills", []))
        if not offer:
            return None, None
        key = self.rng.choice(offer)
        inner = self.rs.skills[key]
        targets, option = self._targets(inner, {})
        return targets, key if option is None else f"{key}:{option}"

    def _guess(self, target: int) -> str:
        """狡黠: the target's role when it is public, else a role of the ruleset not its own."""
        shown = next((p.get("role") for p in self.view["players"] if p["id"] == target), None)
        for role in self.rs.roles.values():
            if role.name == shown:
                return role.key
        mine = self.view["card"]["role"]
        return self.rng.choice(sorted(r for r in self.rs.roles if r != mine))

    def anytime(self) -> list[Action]:
        """Skills used at any moment of the day: [061] 不定's 询问阵营 (no target, asked now and
        then until the answer is in the feedback), 096's <开关> (switched on once) and its
        skills submitted by day before the close (藏匿, 毒素箭)."""
        out: list[Action] = []
        on = self.view.get("conan", {}).get("on", {})
        for s in self.view["card"]["skills"]:
            sk = self.rs.skills[s["key"]]
            if not sk.active or sk.step is not None or sk.window is not None:
                continue
            if "开关" in sk.tags:
                if not on.get(sk.key):
                    out.append(UseSkill(actor=self.pid, skill=sk.key, targets=(), option="on"))
                continue
            if sk.by_day:
                targets, _option = self._targets(sk, {})
                if targets:
                    out.append(UseSkill(actor=self.pid, skill=sk.key, targets=tuple(targets)))
                continue
            if _last_feedback(self, sk.key) or self.rng.random() >= self.style.ask:
                continue
            out.append(UseSkill(actor=self.pid, skill=sk.key, targets=()))
        return out

    def ballot(self, cast: Sequence[tuple[int, int]] = ()) -> int | None:
        """The day's ballot: a mate's earlier ballot for a non-mate (followed), else a known foe,
        else anyone allowed but itself and its mates; None to abstain or when it may not vote."""
        vote = self.view.get("vote")
        if not vote or not vote["may"]:
            return None
        allowed = [t["id"] for t in vote["targets"] if t["id"] != self.pid]
        if not allowed or self.rng.random() < self.style.abstain:
            return None
        for voter, target in cast:
            if voter in self.mates and target in allowed and target not in self.mates:
                if self.rng.random() < self.style.follow:
                    return target
                break
        ranked = self._aim(allowed, friendly=False)
        ranked = [t for t in ranked if t not in self.mates] or ranked
        return ranked[0]


def pending(state: GameState, pid: int) -> list[str]:
    """The skills open to ``pid`` now that it has not acted on yet: a night step's skill with
    no submission (a forgo is one) and a window it has not picked in (勾魂 keeps its window
    open, with its picks, until the night's open)."""
    subs = state.night.get("subs", {}) if state.phase == NIGHT else {}
    picked = {w["skill"] for w in state.windows if w["actor"] == pid and w.get("picks")}
    return [
        u["skill"]
        for u in player_view(state, pid)["usable"]
        if str(pid) not in subs.get(u["skill"], {}) and u["skill"] not in picked
    ]


def _none(bot: Bot) -> list[int]:
    return []


def _held(bot: Bot) -> set[str]:
    return {s["key"] for s in bot.view["card"]["skills"]}


def _zhen(bot: Bot, sk: Skill) -> str:
    """鸩毒: three <炼> marks for <杀人>, two for <救治>, else one (the count of the living
    factions); a borrowed one spends the 毒士's marks, which the 妖狐 does not see: one."""
    marks = int(bot.lf.get("marks", 1) or 1)
    held = _held(bot)
    if marks >= 3 and "poison_kill" not in held:
        return "3"
    if marks >= 2 and "cure" not in held:
        return "2"
    return "1"


def _zhen_wait(bot: Bot) -> bool:
    """Save the <炼> marks up for <杀人> while fewer than three are held."""
    marks = int(bot.lf.get("marks", 0) or 0)
    return "poison_kill" not in _held(bot) and marks < 3 and bot.rng.random() < 0.7


def _last_feedback(bot: Bot, kind: str) -> dict[str, Any]:
    return next((fb for fb in reversed(bot.view["feedback"]) if fb.get("kind") == kind), {})


def _whisper(bot: Bot, sk: Skill) -> str:
    """传音: a few words to the 守宝人, never over the limit."""
    limit = int(bot.rs.params.get("whisper_max", 10))
    name = next((p["name"] for p in bot.view["players"] if p["id"] in bot.foes), None)
    for words in (f"小心{name}" if name else "", "我是宝藏", "加油"):
        chars, marks = count_chars(words)
        if words and chars <= limit and marks <= limit:
            return words
    return "加油"


OPTIONS: dict[str | None, Callable[[Bot, Skill], str | None]] = {
    "zhen": _zhen,
    "whisper": _whisper,
    "verify": lambda bot, sk: bot.rng.choice([None, "publish"]),
    "cunning": lambda bot, sk: None,  # chosen with the target (_guess)
}
# Skills a bot may keep for a later night though it could use them now.
WAIT: dict[str, Callable[[Bot], bool]] = {"zhen": _zhen_wait}
# Players a skill should not name, from what the view shows (the limit itself is the engine's).
SHUNNED: dict[str, Callable[[Bot], Iterable[int]]] = {
    # 狡黠不可连续两日对同一个角色使用: not the latest guess's target
    "cunning": lambda bot: [t for t in [_last_feedback(bot, "cunning").get("target")] if t],
    "pipe": lambda bot: bot.lf.get("piped", []),
    "stage": lambda bot: bot.lf.get("stage", []),  # 不能连续两天对同一名玩家发动
    "favor": lambda bot: bot.lf.get("stage", []),  # 不可以为铁柱票台上的角色
}
# Players a skill names first.
PREFERRED: dict[str, Callable[[Bot], Iterable[int]]] = {
    # 统领: the wolves of the 狼王's list not yet in the 狼群
    "command": lambda bot: [
        m["id"]
        for m in bot.lf.get("roster", [])
        if m["id"] not in {q["id"] for q in bot.lf.get("pack", [])}
    ],
    # 献策: the three names a 审判 found the 宝藏 among
    "advise": lambda bot: [
        t
        for fb in bot.view["feedback"]
        if fb.get("kind") == "judge" and fb.get("found")
        for t in fb.get("targets", [])
    ],
    # 杀人: the names the 狼判官 advised (献策), the latest first
    "kill": lambda bot: [
        t
        for fb in reversed(bot.view["feedback"])
        if fb.get("kind") == "advise"
        for t in fb.get("targets", [])
    ],
}


# --- [096] 名侦探柯南's choices -------------------------------------------------------------


def _others(bot: Bot) -> list[int]:
    return [t for t in bot.living if t != bot.pid]


def _harm(bot: Bot, pool: Sequence[int]) -> list[int]:
    """Known foes first, then the unknown; mates only when nobody else is left."""
    ranked = bot._aim(pool, friendly=False)
    return [t for t in ranked if t not in bot.mates] or ranked


def _undead(bot: Bot) -> bool:
    return bot.faction == bot.rs.params.get("undead_faction")


def _wish_effect(bot: Bot, sk: Skill) -> tuple[list[int] | None, str | None]:
    """许愿's chosen one: 1 (immunity tonight) most often; 2 learns the faction of one it does
    not know yet; 3 tries to take the relic from one it does not trust (a holder the pack was
    told of first)."""
    effect = bot.rng.choices(["1", "2", "3"], weights=[4, 4, 2])[0]
    if effect == "1":
        return [], "1"
    pool = _others(bot)
    if effect == "2":
        pool = [t for t in pool if t not in bot.mates and t not in bot.foes] or pool
    told = [
        int(fb["holder"])
        for fb in bot.view["feedback"]
        if fb.get("holder") is not None and int(fb["holder"]) in pool
    ]
    ranked = told[-1:] + [t for t in _harm(bot, pool) if t not in told[-1:]]
    return (ranked[:1] or None), effect


def _wish(bot: Bot, sk: Skill) -> tuple[list[int] | None, str | None]:
    """许愿 (不允许放弃): another player, mates first — itself only under 契约解除, which a
    refusal then tells (the list of those already wished is the engine's)."""
    ranked = bot._aim(_others(bot), friendly=True)
    if any(s["key"] == "contract_release" for s in bot.view["card"]["skills"]):
        # 契约解除 may be in force (觉醒): itself now and then, another when it is refused
        ranked = ([bot.pid] if bot.rng.random() < 0.3 else []) + ranked
    return (ranked[:1] or None), None


def _cover(bot: Bot, sk: Skill) -> tuple[list[int] | None, str | None]:
    """援护: a role of the golem's own 高塔 (the others' skills then hit the golem)."""
    mine = bot.view["card"]["role"]
    roles = sorted(k for k, r in bot.rs.roles.items() if r.faction == bot.faction and k != mine)
    return [], bot.rng.choice(roles or sorted(bot.rs.roles))


def _summon(bot: Bot, sk: Skill) -> tuple[list[int] | None, str | None]:
    """招魂术: one of 通灵术's list (a 生灵 there flips to the undead), foes first."""
    listed = [int(t["id"]) for t in (bot.view.get("conan_undead") or {}).get("commune") or []]
    pool = [t for t in listed if t != bot.pid]
    return (_harm(bot, pool)[:1] or None), None


def _pass_relic(bot: Bot, sk: Skill) -> tuple[list[int] | None, str | None]:
    """馈赠/共鸣/灾厄: a living holder hands the relic to a mate (to be 认主'd); an undead one
    to a foe (its curse flips a 生灵 holder)."""
    pool = _others(bot)
    ranked = _harm(bot, pool) if _undead(bot) else bot._aim(pool, friendly=True)
    return (ranked[:1] or None), None


def _heritage(bot: Bot, sk: Skill) -> tuple[list[int] | None, str | None]:
    """传承: a mate becomes the 神眷者 (1.5 votes, immune to the curse)."""
    return (bot._aim(_others(bot), friendly=True)[:1] or None), None


def _ethereal(bot: Bot, sk: Skill) -> tuple[list[int] | None, str | None]:
    """虚体: shown — it keeps its voice and its vote."""
    return [], None


CONAN: dict[str, Callable[[Bot, Skill], tuple[list[int] | None, str | None]]] = {
    "wish": _wish,
    "wish_effect": _wish_effect,
    "cover": _cover,
    "summon": _summon,
    "gift": _pass_relic,
    "resonance_pass": _pass_relic,
    "calamity": _pass_relic,
    "heritage": _heritage,
    "ethereal": _ethereal,
}


# --- whole games in the engine -------------------------------------------------------------

T0 = 1_700_000_000.0  # the first close of a simulated game (any fixed instant will do)
MIN = 60.0
SECONDS_PER_DAY = 86_400.0


class Autoplay:
    """A whole game played by bots in the engine alone, every step from one seed: ``observe``
    is called with the state after each step (the property test checks its invariants
    there); ``run`` wraps each engine call (the simulator times them)."""

    def __init__(
        self,
        ruleset: str,
        seed: int,
        *,
        style: Style | None = None,
        max_days: int = 30,
        observe: Callable[[GameState], None] | None = None,
    ) -> None:
        from .setup import GENDERS, new_game

        self.rs = get_ruleset(ruleset)
        self.r = random.Random(seed)
        self.style = style or Style()
        self.max_days = max_days
        self.observe = observe or (lambda state: None)
        self.steps = 0
        chars = [(i, f"P{i}", GENDERS[i % 2]) for i in range(1, self.rs.players + 1)]
        # The engine's own tool plays a ruleset still being written too (never a site game).
        self.state, _ = new_game(ruleset, chars, random.Random(seed), unbuilt=True)
        self.capped = False
        self.paths: Counter[str] = Counter()

    def run(self, fn: Callable[..., tuple[GameState, Any]], *args: Any, **kw: Any) -> None:
        self.state, events = fn(*args, **kw)
        self.record(events)

    def record(self, events: Iterable[Any]) -> None:
        """The rule paths a game took, from the directors' record of each step: each skill
        submitted or switched, each flip and relic move by its cause, each window forfeited."""
        for e in events:
            if getattr(e.audience, "kind", None) != "directors":
                continue
            kind, facts = e.kind, e.payload
            if kind in ("submitted", "toggled") and facts.get("skill"):
                self.paths[f"skill:{facts['skill']}"] += 1
            elif kind == "flipped":
                self.paths[f"flip:{facts.get('why')}"] += 1
            elif kind == "relic" and facts.get("why"):
                self.paths[f"relic:{facts['why']}"] += 1
            elif kind == "forfeited":
                self.paths[f"forfeit:{facts.get('skill') or facts.get('step')}"] += 1
            elif kind in ("relic_curses", "scales", "relic_moved"):
                self.paths[f"{kind}:{facts.get('why')}"] += 1

    def _step(self, fn: Callable[..., tuple[GameState, Any]], *args: Any, **kw: Any) -> None:
        self.steps += 1
        self.run(fn, self.state, *args, **kw)
        self.observe(self.state)

    def _rng(self) -> random.Random:
        return random.Random(self.steps)

    def _try(self, action: Action, at: float) -> bool:
        try:
            self._step(apply_action, action, self._rng(), at)
        except RuleError:
            return False
        return True

    def act(self, pid: int, skill: str, at: float) -> bool:
        """The bot's action for ``skill``, retried on a refusal; False when none was taken."""
        for _ in range(TRIES):
            if self._try(Bot(self.state, pid, self.r, self.style).choose(skill), at):
                return True
        return self._try(Forgo(actor=pid, skill=skill), at)

    def night(self) -> None:
        close = T0 + self.state.day * SECONDS_PER_DAY
        self._step(night_open, self._rng(), close)
        at = close + MIN
        for _ in range(ROUNDS):
            acted = self._night_round(at)
            if self.state.phase != NIGHT:
                return
            if acted:
                continue
            due = next_deadline(self.state)
            open_steps = [s for s in self.state.night["steps"].values() if s["state"] != "closed"]
            if not open_steps or due is None:
                break
            at = max(at, due + 1)
            self._step(deadline_pass, self._rng(), at)
        if self.state.phase != NIGHT:
            return
        self._step(night_resolve, self._rng())
        self._step(night_publish, self._rng(), close + 12 * 3600)

    def _night_round(self, at: float) -> bool:
        """Every living player uses (or forgoes) each night skill open to it; True if any did."""
        acted = False
        for pid in sorted(self.state.players):
            for skill in pending(self.state, pid):
                window = self.rs.skills[skill].window
                # The windows are played in turn (``windows``), but one a night's handler opens
                # for that night ([096]'s 许愿 effect, closed when the 招魂术 step opens).
                night_only = window is not None and window not in self.rs.windows
                if self.state.phase != NIGHT or (window and not night_only):
                    continue
                acted = self.act(pid, skill, at) or acted
        return acted

    def windows(self) -> None:
        """Each open window's actor acts in turn, once (勾魂's stays open for its picks until
        the night's open), or its deadline passes."""
        handled: set[tuple[int, str, float]] = set()
        for _ in range(20):
            s = self.state
            todo = [w for w in s.windows if (w["actor"], w["skill"], w["until"]) not in handled]
            if s.phase == OVER or not todo:
                return
            w = todo[0]
            handled.add((w["actor"], w["skill"], w["until"]))
            if not self.act(w["actor"], w["skill"], w["until"] - MIN):
                self._step(deadline_pass, random.Random(0), w["until"] + 1)

    def day(self) -> None:
        order = [p.id for p in self.state.players.values() if p.alive]
        self.r.shuffle(order)
        at = T0 + (self.state.day - 1) * SECONDS_PER_DAY + 12 * 3600
        for pid in order:
            for action in Bot(self.state, pid, self.r, self.style).anytime():
                self._try(action, at)
        cast: list[tuple[int, int]] = []
        for voter in order:
            target = Bot(self.state, voter, self.r, self.style).ballot(cast)
            if target is not None:
                cast.append((voter, target))
        totals = tally(self.state, dict(cast))
        at = T0 + self.state.day * SECONDS_PER_DAY
        self._step(day_vote, totals, self._rng(), at, ballots=cast)
        self.windows()

    def play(self) -> GameState:
        while self.state.phase != OVER:
            if self.state.day > self.max_days:
                self.capped = True
                break
            self.night()
            self.windows()
            if self.state.phase == DAY:
                self.day()
        return self.state
