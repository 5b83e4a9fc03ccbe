"""Penalty cards (判罚): colours, each ruleset's violation catalogue and rules, escalation.

Every ruleset's data is a JSON file in ``games/penalties/`` (the 判罚依据 lists of [099] and
[096], the royale posts' 判罚制度, [061]'s rules), parsed here into a frozen ``PenaltyRules`` and
looked up by the ruleset's key. Nothing here branches on a ruleset's name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from games.engine.errors import InvalidInput, NotFound, RuleError

BLUE: Final = "blue"
YELLOW: Final = "yellow"
RED: Final = "red"
COLORS: Final = (BLUE, YELLOW, RED)
COLOR_NAMES: Final = {BLUE: "蓝牌", YELLOW: "黄牌", RED: "红牌"}
# 累计三张“蓝牌”合并为一张“黄牌”；累计三张“黄牌”合并为一张“红牌”.
MERGE_COUNT: Final = 3
MERGES_INTO: Final = {BLUE: YELLOW, YELLOW: RED}

RedCardEffect = Literal["eliminate", "idle"]
Quorum = Literal["half", "majority"]
# 申请加速 / 申请延时: what a ruleset lets players ask for (099 has 加速 only).
PaceKind = Literal["speed_up", "delay"]
PACE_KINDS: Final[tuple[PaceKind, ...]] = ("speed_up", "delay")

DATA_DIR: Final = Path(__file__).resolve().parent.parent / "penalties"


class UnknownViolation(RuleError):
    code = "unknown_violation"
    status = 400
    message = "判罚依据中没有这一条。"
    message_en = "No such entry in the violation catalogue."


class CardColorNotAllowed(RuleError):
    code = "card_color_not_allowed"
    status = 400
    message = "这一条违规的判罚颜色不符合规则。"
    message_en = "The rules give this violation another card colour."


class PenaltyDataError(ValueError):
    """A penalty file that does not parse; ``field`` names where (``catalogue[3].color``)."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        super().__init__(f"{field}: {problem}")


@dataclass(frozen=True)
class Violation:
    """One entry of a catalogue: a stable code and the post's words. ``color`` fixes the card
    (潜水: 黄牌); ``min_color`` is a floor (096 2(7): 黄牌起步); with neither, the director
    picks."""

    code: str
    section: str
    text: str
    color: str | None = None
    min_color: str | None = None
    # The reason itself would tell a role (099 5(3): only a role with a forced skill can miss
    # it): the public learns the card, not why, while the game runs.
    secret: bool = False

    def allows(self, color: str) -> bool:
        if self.color is not None:
            return color == self.color
        if self.min_color is not None:
            return COLORS.index(color) >= COLORS.index(self.min_color)
        return color in COLORS

    @property
    def label(self) -> str:
        return f"{self.section} {self.code}：{self.text}"


@dataclass(frozen=True)
class StreakRule:
    """连续 ``days`` 个未加速的讨论日均不足 ``under`` 帖."""

    days: int
    under: int
    reason: str


@dataclass(frozen=True)
class ActivityRules:
    min_posts: int  # fewer posts than this on a day not sped up → a card; 0: no such rule
    min_posts_reason: str | None
    streak: StreakRule | None
    vote_reason: str | None  # not voting on a day not sped up → a card; None: no such rule
    # 必须行使特权的角色未在规定时间内行使 (099 5(3)): a forced skill missed → a card.
    missed_duty_reason: str | None = None


@dataclass(frozen=True)
class PaceRules:
    """加速/延时: what may be asked for, how many of the living must ask, and how long before
    the close requests stop counting."""

    quorum: Quorum  # "half": at least half (061); "majority": more than half (099 过半数)
    cutoff_hours: int  # 0: requests count until the close (099 names no cut-off)
    kinds: tuple[PaceKind, ...] = PACE_KINDS  # 099: ("speed_up",); 061: both

    def allows(self, kind: str) -> bool:
        return kind in self.kinds

    @property
    def enabled(self) -> bool:
        """False for a ruleset without 加速/延时 (the royale posts have none: ``"pace": null``)."""
        return bool(self.kinds)


# ``"pace": null`` in a penalty file: no request of either kind exists.
NO_PACE: Final = PaceRules(quorum="half", cutoff_hours=0, kinds=())


@dataclass(frozen=True)
class FloodRules:
    """[061] 连续十贴无关剧情的内容或刷屏: what the site flags for the director to judge."""

    run: int
    short_chars: int


@dataclass(frozen=True)
class PenaltyRules:
    ruleset: str
    title: str
    catalogue: tuple[Violation, ...]
    activity: ActivityRules
    pace: PaceRules
    elevator_random: bool
    red_card: RedCardEffect
    faction_decision: bool
    last_words_per_char: int | None
    floor_prize: tuple[int, int] | None
    flood: FloodRules | None

    def violation(self, code: str) -> Violation:
        for entry in self.catalogue:
            if entry.code == code:
                return entry
        raise UnknownViolation(code=code)

    def check(self, code: str, color: str) -> Violation:
        """The catalogue entry for a card of this colour, or the rule error refusing it."""
        if color not in COLORS:
            raise InvalidInput(color=color)
        entry = self.violation(code)
        if not entry.allows(color):
            raise CardColorNotAllowed(code=code, color=color)
        return entry


# --- parsing --------------------------------------------------------------------------------


def _get(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise PenaltyDataError(f"{where}{key}", "missing")
    value = data[key]
    # bool is an int: a count given as true must not pass as 1
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise PenaltyDataError(f"{where}{key}", f"expected {kind}, got {value!r}")
    return value


def _color(value: Any, field: str) -> str | None:
    if value is not None and value not in COLORS:
        raise PenaltyDataError(field, f"not a colour: {value!r}")
    return value


def _violation(data: Any, i: int) -> Violation:
    where = f"catalogue[{i}]."
    if not isinstance(data, dict):
        raise PenaltyDataError(f"catalogue[{i}]", "expected an object")
    return Violation(
        code=_get(data, "code", str, where),
        section=_get(data, "section", str, where),
        text=_get(data, "text", str, where),
        color=_color(data.get("color"), f"{where}color"),
        min_color=_color(data.get("min_color"), f"{where}min_color"),
        secret=bool(_get(data, "secret", bool, where)) if "secret" in data else False,
    )


def _activity(data: Mapping[str, Any], codes: set[str]) -> ActivityRules:
    def reason(value: Any, field: str) -> str | None:
        if value is not None and value not in codes:
            raise PenaltyDataError(field, f"not in the catalogue: {value!r}")
        return value

    min_posts = _get(data, "min_posts", int, "activity.")
    streak_data = data.get("streak")
    streak = None
    if streak_data is not None:
        streak = StreakRule(
            days=_get(streak_data, "days", int, "activity.streak."),
            under=_get(streak_data, "under", int, "activity.streak."),
            reason=str(reason(streak_data.get("reason"), "activity.streak.reason")),
        )
    vote = data.get("vote")
    duty = data.get("missed_duty")
    rules = ActivityRules(
        min_posts=min_posts,
        min_posts_reason=reason(data.get("min_posts_reason"), "activity.min_posts_reason"),
        streak=streak,
        vote_reason=reason(vote.get("reason"), "activity.vote.reason") if vote else None,
        missed_duty_reason=(
            reason(duty.get("reason"), "activity.missed_duty.reason") if duty else None
        ),
    )
    if rules.min_posts > 0 and rules.min_posts_reason is None:
        raise PenaltyDataError("activity.min_posts_reason", "required when min_posts > 0")
    return rules


def _pace(data: Mapping[str, Any]) -> PaceRules:
    if data.get("quorum") not in ("half", "majority"):
        raise PenaltyDataError("pace.quorum", "expected 'half' or 'majority'")
    hours = _get(data, "cutoff_hours", int, "pace.")
    if hours < 0:
        raise PenaltyDataError("pace.cutoff_hours", f"expected 0 or more, got {hours}")
    kinds = _get(data, "kinds", list, "pace.")
    if not kinds or len(set(kinds)) != len(kinds) or any(k not in PACE_KINDS for k in kinds):
        raise PenaltyDataError("pace.kinds", f"expected distinct kinds of {PACE_KINDS}")
    # always in PACE_KINDS' order, whatever the file's
    return PaceRules(
        quorum=data["quorum"], cutoff_hours=hours, kinds=tuple(k for k in PACE_KINDS if k in kinds)
    )


def parse_penalty_rules(data: Mapping[str, Any]) -> PenaltyRules:
    catalogue = tuple(_violation(v, i) for i, v in enumerate(_get(data, "catalogue", list, "")))
    codes = [v.code for v in catalogue]
    if len(set(codes)) != len(codes):
        raise PenaltyDataError("catalogue", "codes repeat")
    # the key is required; null says the posts have no 加速/延时 (the royale)
    no_pace = "pace" in data and data["pace"] is None
    pace = NO_PACE if no_pace else _pace(_get(data, "pace", dict, ""))
    red_card = data.get("red_card")
    if red_card not in ("eliminate", "idle"):
        raise PenaltyDataError("red_card", "expected 'eliminate' or 'idle'")
    last_words = data.get("last_words")
    prize = data.get("floor_prize")
    flood = data.get("flood")
    floor_prize = None
    if prize is not None:
        floor_prize = (
            _get(prize, "low", int, "floor_prize."),
            _get(prize, "high", int, "floor_prize."),
        )
        if not 1 <= floor_prize[0] <= floor_prize[1]:
            raise PenaltyDataError("floor_prize", "expected 1 <= low <= high")
    return PenaltyRules(
        ruleset=_get(data, "ruleset", str, ""),
        title=_get(data, "title", str, ""),
        catalogue=catalogue,
        activity=_activity(_get(data, "activity", dict, ""), set(codes)),
        pace=pace,
        elevator_random=_get(_get(data, "elevator", dict, ""), "random_order", bool, "elevator."),
        red_card=red_card,
        faction_decision=_get(data, "faction_decision", bool, ""),
        last_words_per_char=(
            _get(last_words, "posts_per_char", int, "last_words.") if last_words else None
        ),
        floor_prize=floor_prize,
        flood=(
            FloodRules(
                run=_get(flood, "run", int, "flood."),
                short_chars=_get(flood, "short_chars", int, "flood."),
            )
            if flood
            else None
        ),
    )


# --- registry -------------------------------------------------------------------------------

_RULES: dict[str, PenaltyRules] = {}


def register_penalty_rules(rules: PenaltyRules) -> PenaltyRules:
    _RULES[rules.ruleset] = rules
    return rules


def penalty_rules(ruleset: str) -> PenaltyRules:
    try:
        return _RULES[ruleset]
    except KeyError:
        raise NotFound(
            f"规则集 {ruleset} 没有判罚规则。",
            message_en=f"The ruleset {ruleset} has no penalty rules.",
            ruleset=ruleset,
        ) from None


def penalty_rulesets() -> list[str]:
    return sorted(_RULES)


def _load_all() -> None:
    for path in sorted(DATA_DIR.glob("*.json")):
        try:
            register_penalty_rules(parse_penalty_rules(json.loads(path.read_text("utf-8"))))
        except PenaltyDataError as exc:
            raise PenaltyDataError(f"{path.name}:{exc.field}", str(exc)) from exc


_load_all()


# --- the ledger -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """A confirmed card in the ledger not yet merged into a bigger one."""

    key: str
    color: str


@dataclass(frozen=True)
class Merge:
    """A card the ledger makes of ``sources`` (earlier entries, or earlier merges' keys)."""

    key: str
    color: str
    sources: tuple[str, ...]


def escalate(unmerged: Sequence[Entry]) -> list[Merge]:
    """The merges due in a ledger: every three blue (oldest first) make a yellow, every three
    yellow a red, a yellow made here counting towards a red like any other. New cards are keyed
    ``+0``, ``+1``, … in the order they are made."""
    pending: dict[str, list[str]] = {c: [e.key for e in unmerged if e.color == c] for c in COLORS}
    merges: list[Merge] = []
    for color, into in MERGES_INTO.items():
        while len(pending[color]) >= MERGE_COUNT:
            sources = tuple(pending[color][:MERGE_COUNT])
            pending[color] = pending[color][MERGE_COUNT:]
            merge = Merge(f"+{len(merges)}", into, sources)
            merges.append(merge)
            pending[into].append(merge.key)
    return merges
