"""Rulesets of the role games: one JSON file per rule post in ``werewolf/rulesets``, parsed and
checked into immutable objects when first asked for.

A ruleset names its factions, roles (with their skills), the skills (tags, the night step they
belong to, the handler that takes a submission, the target rule), the night steps in the post's
order with their deadlines (行动时限), the settlement order, the day windows, the
win/loss conditions and the announcement texts. Behaviour is in small handlers registered by
name (``skills.HANDLERS``, ``victory.CONDITIONS``, ``settle.STAGES``); the data only names them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from .errors import RulesetNotBuilt

RULESET_DIR = Path(__file__).resolve().parent.parent / "rulesets"

# Tags the posts use (<团队> team, <冷却:X> cooldown ... and 061/096's <锁定>/<觉醒>/<圣物>).
TAGS = frozenset({"强制", "限定", "角色", "团队", "被动", "开关", "锁定", "觉醒", "圣物", "冷却"})
TARGET_RULES = frozenset({"alive", "other", "teammate"})
TARGET_COUNTS = frozenset({"0", "0-1", "1", "1-2", "2", "3", "any", "third"})
NIGHTS = frozenset({"all", "prelude", "game"})


class RulesetError(ValueError):
    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        super().__init__(f"{field}: {problem}")


@dataclass(frozen=True, slots=True)
class Faction:
    key: str
    name: str
    team: bool  # 互知共群: members see each other and act together
    roster: bool = False  # 互知不共群: members are told who the others are, without roles
    room: str | None = None  # the name of a team faction's 共群 on the site (099: 狼群)


@dataclass(frozen=True, slots=True)
class Role:
    key: str
    name: str
    faction: str
    count: int
    skills: tuple[str, ...]
    note: str = ""  # the post's words under the role beyond its skills (互知共群, 无技能 ...)
    undead: str | None = None  # 096: the role's [亡灵身份], the role a flip gives
    group: str | None = None  # 096: the 共群 group its holders join (游侠, 狼群, 活尸)


# When a trigger fires: ``replace`` (before someone goes out: 替死 takes its place), ``out``
# (its holder is eliminated), ``voted_out`` (its holder is the day vote's top: 装傻), ``tie``
# (the day vote is tied: 献身).
TRIGGER_EVENTS = frozenset({"replace", "out", "voted_out", "tie"})


@dataclass(frozen=True, slots=True)
class Trigger:
    """What a skill does by itself when something happens to its holder; the behaviour is the
    handler registered under ``handler`` (``outcomes.TRIGGERS``). ``causes``: the causes of
    elimination it answers to (None: every cause but a red card); ``after_check``: it runs after
    the win check of the elimination that fired it (长生's stripping)."""

    on: str
    handler: str
    causes: frozenset[str] | None = None
    after_check: bool = False
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Skill:
    key: str
    name: str
    tags: frozenset[str]
    step: str | None = None  # the night step it is submitted in
    window: str | None = None  # or the day window that opens it (last shot, 遗志, 殉职)
    handler: str | None = None  # None: passive, the engine applies it itself
    target: str = "alive"
    effect: str | None = None  # what the night pipeline does with a submission
    chance: str | None = None  # night-1 check: "block" (挡刀) or "act" (表演)
    exclusive: str | None = None  # one skill of a group per night (女巫: 救药 or 毒药)
    no_repeat: bool = False  # never the same target two nights running (守卫)
    triggers: tuple[Trigger, ...] = ()
    announce: str | None = None  # the announcement text a use makes public (遗志, 殉职)
    forfeit_announce: str | None = None  # ... and one when it is forfeited (警长收回)
    # How many targets a submission names: "1" (the default), "0", "0-1", "2", "3", "any" or
    # "third" (当夜存活人数三分之一，向下取整: 061's 票台); a skill with another count than "1"
    # is taken by a wide handler (``skills.WIDE``).
    targets: str = "1"
    text: str = ""  # the skill's text, verbatim from the rule post (the role card shows it)
    # A use that cannot be taken back (a <限定> skill, a shot, an appointment): the portal asks
    # the player to confirm it, naming the target.
    irreversible: bool = False
    # It reads the players' genders (魅惑: 异性玩家), so a game holding it needs every one.
    needs_genders: bool = False
    cooldown: int = 0  # <冷却：X>: X days before it may be used again (096)
    must: bool = False  # 此技能不允许放弃发动 without a <强制> tag (096's 许愿)
    by_day: bool = False  # submitted by day, before the close (096's 藏匿, 毒素箭)
    params: Mapping[str, Any] = field(default_factory=dict)  # the post's numbers for its handler

    @property
    def forced(self) -> bool:
        """<强制>: 不允许放弃发动 — it cannot be forgone, and missing it is a card (099 5(3))."""
        return "强制" in self.tags or self.must

    @property
    def limited(self) -> bool:
        return "限定" in self.tags

    @property
    def active(self) -> bool:
        return self.handler is not None


@dataclass(frozen=True, slots=True)
class NightStep:
    key: str
    name: str
    skills: tuple[str, ...]
    minutes_after_close: int
    after: tuple[str, ...] = ()  # opens once these steps are closed
    feedback: str | None = None  # the forced skill that tells the actor when it opens (通灵)
    minutes_after_open: int | None = None
    # Which nights it opens on: "all", "prelude" (only the night before the first day, 061's
    # 附身/遇难 and the 铁柱's first 票台) or "game" (every night but the prelude).
    nights: str = "all"
    # It stays open until its deadline even once everyone has submitted: a <团队> pick may be
    # changed by any member until then (096: the latest stands).
    hold: bool = False


@dataclass(frozen=True, slots=True)
class Window:
    day_minutes: int  # after a death by day
    night_minutes_after_open: int  # after the next day's open, for a death at night
    # The window really ends at the next night's open (061 勾魂); the minutes only bound it.
    until_night: bool = False


@dataclass(frozen=True, slots=True)
class Condition:
    kind: str
    params: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Victory:
    win: tuple[Condition, ...]
    lose: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Ruleset:
    key: str
    name: str
    players: int
    factions: Mapping[str, Faction]
    roles: Mapping[str, Role]
    skills: Mapping[str, Skill]
    sheriff_name: str
    sheriff_skills: tuple[str, ...]
    sheriff_weight: Fraction
    night_steps: tuple[NightStep, ...]
    settlement: tuple[str, ...]
    windows: Mapping[str, Window]
    chance_cap: int
    auction_prices: Mapping[str, int]
    victory: Mapping[str, Victory]
    surrender: frozenset[str]
    # 在投票结束前一个半至两个小时之间提醒玩家投票: the span before the close, in minutes
    # (earliest, latest), in which the site reminds; None: no reminder.
    vote_reminder: tuple[int, int] | None
    texts: Mapping[str, str]
    # "night": the game starts with night 1 (099); "day": with a prelude (night 0: the setup
    # steps), then day 1, and night n follows day n (061).
    first: str = "night"
    # 白天出局的角色将立即公示，并公示身份 (099); False: a role is public only when a rule
    # announces it (061: 宝藏阵营, 遗志), listed in ``flags["shown_roles"]``.
    reveal_day_outs: bool = True
    # The day's vote asks who voted (061: 公敌, 怨恨, 共死): the shell hands ``day_vote`` the
    # final ballots, earliest naming post first (RULINGS 061-12).
    day_ballots: bool = False
    # The causes of a night's hits in settlement order, as the director may set them (099:
    # 最后一枪, 毒药, 杀人; 061: 杀人, 空救), and the names of the players' statuses.
    night_causes: tuple[str, ...] = ()
    status_names: Mapping[str, str] = field(default_factory=dict)
    hooks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # see ``hooks``
    params: Mapping[str, Any] = field(default_factory=dict)  # the hooks' own data
    # 096's 共群 groups by key: {"name", "roles", "skills"} (游侠, 狼群, 活尸), beside factions.
    groups: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # False while a post's rules are still being written: only the engine's own tests deal it,
    # a game of the site answers ruleset_not_built.
    built: bool = True

    def step(self, key: str) -> NightStep:
        return next(s for s in self.night_steps if s.key == key)

    @property
    def has_auction(self) -> bool:
        """A 竞拍贴 prices 表演/挡刀/性别卡 before the start ([099]); [061] has none."""
        return any(self.auction_prices.values())

    def text(self, key: str, **values: Any) -> str:
        return self.texts[key].format(**values)


def _need(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RulesetError(f"{where}.{key}", f"must be {kind.__name__}")
    return value


def _optional(data: Mapping[str, Any], key: str, kind: type, where: str, default: Any) -> Any:
    return _need(data, key, kind, where) if key in data else default


def _trigger(data: Mapping[str, Any], where: str) -> Trigger:
    on = _need(data, "on", str, where)
    if on not in TRIGGER_EVENTS:
        raise RulesetError(f"{where}.on", f"unknown trigger event {on}")
    causes = data.get("causes")
    return Trigger(
        on=on,
        handler=_need(data, "handler", str, where),
        causes=None if causes is None else frozenset(causes),
        after_check=bool(data.get("after_check")),
        params=dict(data.get("params", {})),
    )


def parse_ruleset(data: Mapping[str, Any]) -> Ruleset:
    factions = {
        k: Faction(
            k,
            _need(v, "name", str, f"factions.{k}"),
            bool(v.get("team")),
            bool(v.get("roster")),
            v.get("room"),
        )
        for k, v in _need(data, "factions", dict, "").items()
    }
    skills: dict[str, Skill] = {}
    for k, v in _need(data, "skills", dict, "").items():
        where = f"skills.{k}"
        tags = frozenset(v.get("tags", []))
        if not tags <= TAGS:
            raise RulesetError(f"{where}.tags", f"unknown tags {sorted(tags - TAGS)}")
        if v.get("target", "alive") not in TARGET_RULES:
            raise RulesetError(f"{where}.target", "unknown target rule")
        triggers = tuple(_trigger(t, f"{where}.triggers") for t in v.get("triggers", []))
        if str(v.get("targets", "1")) not in TARGET_COUNTS:
            raise RulesetError(f"{where}.targets", "unknown target count")
        skills[k] = Skill(
            key=k,
            name=_need(v, "name", str, where),
            tags=tags,
            step=v.get("step"),
            window=v.get("window"),
            handler=v.get("handler"),
            target=v.get("target", "alive"),
            effect=v.get("effect"),
            chance=v.get("chance"),
            exclusive=v.get("exclusive"),
            no_repeat=bool(v.get("no_repeat")),
            triggers=triggers,
            announce=v.get("announce"),
            forfeit_announce=v.get("forfeit_announce"),
            targets=str(v.get("targets", "1")),
            text=_optional(v, "text", str, where, ""),
            irreversible=_optional(v, "irreversible", bool, where, False),
            needs_genders=_optional(v, "needs_genders", bool, where, False),
            cooldown=_optional(v, "cooldown", int, where, 0),
            must=_optional(v, "must", bool, where, False),
            by_day=_optional(v, "by_day", bool, where, False),
            params=dict(_optional(v, "params", dict, where, {})),
        )
    roles = {}
    for k, v in _need(data, "roles", dict, "").items():
        where = f"roles.{k}"
        role = Role(
            k,
            _need(v, "name", str, where),
            _need(v, "faction", str, where),
            _need(v, "count", int, where),
            tuple(_need(v, "skills", list, where)),
            _optional(v, "note", str, where, ""),
            v.get("undead"),
            v.get("group"),
        )
        if role.faction not in factions:
            raise RulesetError(f"{where}.faction", f"unknown faction {role.faction}")
        for s in role.skills:
            if s not in skills:
                raise RulesetError(f"{where}.skills", f"unknown skill {s}")
        roles[k] = role
    groups = dict(data.get("groups", {}))
    for k, role in roles.items():
        if role.undead is not None and role.undead not in data["roles"]:
            raise RulesetError(f"roles.{k}.undead", f"unknown role {role.undead}")
        if role.group is not None and role.group not in groups:
            raise RulesetError(f"roles.{k}.group", f"unknown group {role.group}")
    steps = tuple(
        NightStep(
            key=_need(s, "key", str, "night_steps"),
            name=_need(s, "name", str, "night_steps"),
            skills=tuple(s["skills"]),
            minutes_after_close=_need(s, "minutes_after_close", int, "night_steps"),
            after=tuple(s.get("after", ())),
            feedback=s.get("feedback"),
            minutes_after_open=s.get("minutes_after_open"),
            nights=s.get("nights", "all"),
            hold=bool(s.get("hold", False)),
        )
        for s in _need(data, "night_steps", list, "")
    )
    step_keys = {s.key for s in steps}
    if any(s.nights not in NIGHTS for s in steps):
        raise RulesetError("night_steps", "nights is all, prelude or game")
    for step in steps:
        if not set(step.after) <= step_keys or any(k not in skills for k in step.skills):
            raise RulesetError(f"night_steps.{step.key}", "names an unknown step or skill")
    for sk in skills.values():
        if sk.step is not None and sk.step not in step_keys:
            raise RulesetError(f"skills.{sk.key}.step", f"unknown step {sk.step}")
    sheriff = _need(data, "sheriff", dict, "")
    windows = {
        k: Window(
            int(v["day_minutes"]),
            int(v["night_minutes_after_open"]),
            until_night=v.get("closes") == "night_open",
        )
        for k, v in _need(data, "windows", dict, "").items()
    }
    victory = {
        k: Victory(
            tuple(Condition(c["kind"], c) for c in v.get("win", [])),
            tuple(Condition(c["kind"], c) for c in v.get("lose", [])),
        )
        for k, v in _need(data, "victory", dict, "").items()
    }
    if set(victory) != set(factions):
        raise RulesetError("victory", "must name every faction")
    total = sum(r.count for r in roles.values())
    players = _need(data, "players", int, "")
    if total != players:
        raise RulesetError("roles", f"counts add up to {total}, not {players}")
    texts = dict(_need(data, "announcements", dict, ""))
    reminder = data.get("vote_reminder_minutes")
    if reminder is not None and (
        not isinstance(reminder, list)
        or len(reminder) != 2
        or not all(isinstance(m, int) and not isinstance(m, bool) for m in reminder)
        or not reminder[0] > reminder[1] > 0
        or "vote_reminder" not in texts
    ):
        raise RulesetError(
            "vote_reminder_minutes", "[earliest, latest] minutes before the close, with its text"
        )
    for sk in skills.values():
        for text in (sk.announce, sk.forfeit_announce):
            if text is not None and text not in texts:
                raise RulesetError(f"skills.{sk.key}", f"unknown announcement {text}")
    return Ruleset(
        key=_need(data, "key", str, ""),
        name=_need(data, "name", str, ""),
        players=players,
        factions=factions,
        roles=roles,
        skills=skills,
        sheriff_name=_need(sheriff, "name", str, "sheriff"),
        sheriff_skills=tuple(sheriff.get("skills", ())),
        sheriff_weight=Fraction(_need(sheriff, "weight", str, "sheriff")),
        night_steps=steps,
        settlement=tuple(_need(data, "settlement", list, "")),
        windows=windows,
        chance_cap=_need(data, "first_night_chance_cap", int, ""),
        auction_prices=dict(_need(data, "auction", dict, "")),
        victory=victory,
        surrender=frozenset(data.get("surrender", ())),
        vote_reminder=None if reminder is None else (reminder[0], reminder[1]),
        texts=texts,
        first=_first(data),
        reveal_day_outs=bool(data.get("reveal_day_outs", True)),
        day_ballots=bool(data.get("day_ballots", False)),
        night_causes=tuple(str(c) for c in _need(data, "night_causes", list, "")),
        status_names={str(k): str(v) for k, v in dict(data.get("statuses", {})).items()},
        hooks={k: tuple(v) for k, v in dict(data.get("hooks", {})).items()},
        params=dict(data.get("params", {})),
        groups=groups,
        built=bool(data.get("built", True)),
    )


def _first(data: Mapping[str, Any]) -> str:
    first = data.get("first", "night")
    if first not in ("night", "day"):
        raise RulesetError("first", "night or day")
    return str(first)


_REGISTRY: dict[str, Ruleset] = {}
_LOADING = threading.Lock()
# Checks that the handler names a ruleset uses are registered (added by the handler modules).
CHECKS: list[Callable[[Ruleset], None]] = []


def load_ruleset(data: Mapping[str, Any]) -> Ruleset:
    """Parse and check ``data``: every handler, stage, trigger and condition it names must be
    registered."""
    rs = parse_ruleset(data)
    for check in CHECKS:
        check(rs)
    return rs


def _load_builtins() -> None:
    with _LOADING:
        if _REGISTRY:
            return
        for path in sorted(RULESET_DIR.glob("*.json")):
            rs = load_ruleset(json.loads(path.read_text(encoding="utf-8")))
            _REGISTRY[rs.key] = rs


def get_ruleset(key: str) -> Ruleset:
    _load_builtins()
    try:
        return _REGISTRY[key]
    except KeyError:
        raise RulesetNotBuilt(ruleset=key) from None


def ruleset_keys(*, unbuilt: bool = False) -> list[str]:
    """The rulesets a game can be dealt with; ``unbuilt``: with those still being written (the
    engine's own tools play them)."""
    _load_builtins()
    return sorted(k for k, rs in _REGISTRY.items() if rs.built or unbuilt)
