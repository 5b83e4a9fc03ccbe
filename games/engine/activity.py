"""Activity (发言与投票) per character per discussion day, the cards it proposes at the day's
close, and speed-up/delay requests (加速/延时).

Everything here works on plain data the shell gathers from the stored forum posts: how many
posts each character made in the day's discussion thread, who voted, whether the day was sped
up. The thresholds are the ruleset's (``games.engine.cards.PenaltyRules.activity``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

from games.engine.cards import PaceKind, PaceRules, PenaltyRules
from games.engine.errors import RuleError


@dataclass(frozen=True)
class DayActivity:
    """One discussion day as the forum showed it.

    ``required``: the characters bound by the activity rules that day (alive and not idle);
    ``posts``: posts in the day's discussion thread by character (absent = 0); ``voted``: who
    voted that day, or None when the day has no vote to check (no vote thread).
    """

    day: int
    sped_up: bool
    required: frozenset[int]
    posts: Mapping[int, int] = field(default_factory=dict)
    voted: frozenset[int] | None = None

    def count(self, character: int) -> int:
        return self.posts.get(character, 0)


@dataclass(frozen=True)
class Proposal:
    """A card the site proposes; staff confirm or reject it. ``facts`` say why (JSON-safe)."""

    character: int
    day: int
    reason: str
    color: str
    facts: Mapping[str, Any]


def _streak_fires(days: Sequence[DayActivity], character: int, under: int, length: int) -> bool:
    """Whether the last day completes a run of ``length`` consecutive days, none sped up, each
    under ``under`` posts. A run that earned a card starts over, so a long silence earns one
    card per ``length`` days, not one every day."""
    run = 0
    previous: int | None = None
    for activity in days:
        consecutive = previous is None or activity.day == previous + 1
        previous = activity.day
        if not consecutive:
            run = 0
        quiet = (
            character in activity.required
            and not activity.sped_up
            and activity.count(character) < under
        )
        run = run + 1 if quiet else 0
        if run == length:
            if activity is days[-1]:
                return True
            run = 0
    return False


def proposals(rules: PenaltyRules, history: Sequence[DayActivity]) -> list[Proposal]:
    """The cards the rules propose at the close of the last day of ``history`` (days in order;
    earlier days are only read for runs of quiet days). A sped-up day proposes nothing."""
    if not history:
        return []
    today = history[-1]
    if today.sped_up:
        return []
    rule = rules.activity
    out: list[Proposal] = []
    for character in sorted(today.required):
        posts = today.count(character)
        facts = {"posts": posts, "sped_up": False}
        if rule.min_posts_reason is not None and posts < rule.min_posts:
            reason = rule.min_posts_reason
            out.append(
                Proposal(
                    character,
                    today.day,
                    reason,
                    rules.violation(reason).color or "yellow",
                    {**facts, "min_posts": rule.min_posts},
                )
            )
        streak = rule.streak
        if streak is not None and _streak_fires(history, character, streak.under, streak.days):
            counts = [a.count(character) for a in history[-streak.days :]]
            out.append(
                Proposal(
                    character,
                    today.day,
                    streak.reason,
                    rules.violation(streak.reason).color or "yellow",
                    {**facts, "streak": counts, "under": streak.under},
                )
            )
        voted = today.voted
        if rule.vote_reason is not None and voted is not None and character not in voted:
            out.append(
                Proposal(
                    character,
                    today.day,
                    rule.vote_reason,
                    rules.violation(rule.vote_reason).color or "yellow",
                    {**facts, "voted": False},
                )
            )
    return out


# --- 加速 / 延时 -------------------------------------------------------------------------------

SPEED_UP: Final = "speed_up"
DELAY: Final = "delay"
NORMAL: Final = "normal"
SPED_UP: Final = "sped_up"
DELAYED: Final = "delayed"
PACE_NAMES: Final = {
    SPEED_UP: "加速",
    DELAY: "延时",
    NORMAL: "正常",
    SPED_UP: "加速",
    DELAYED: "延时",
}


class PaceKindNotAllowed(RuleError):
    """A request of a kind the ruleset lacks (099: 只有加速, no 延时)."""

    code = "pace_kind_not_allowed"
    status = 400
    message = "本场规则没有这种进程申请。"
    message_en = "The rules of this game have no such pace request."


def pace_check(kind: str, rules: PaceRules) -> PaceKind:
    """``kind`` as a request the ruleset allows, or the refusal naming what it allows."""
    if not rules.enabled:
        raise PaceKindNotAllowed(
            "本场规则没有加速/延时申请。",
            message_en="This game's rules have no speed-up or delay requests.",
            kind=kind,
            allowed=[],
        )
    for allowed in rules.kinds:
        if kind == allowed:
            return allowed
    have = "或".join(f"申请{PACE_NAMES[k]}" for k in rules.kinds)
    raise PaceKindNotAllowed(
        f"本场规则没有{PACE_NAMES.get(kind, '这种')}申请，只能{have}。",
        message_en=f"This game's rules have no {kind} request (only {', '.join(rules.kinds)}).",
        kind=kind,
        allowed=list(rules.kinds),
    )


# 申请加速 / 同意加速 / 申请延时 (延迟) in a progress-thread post; "不同意加速" is no request.
_REQUEST = re.compile(r"(?<!不)(?:申请|同意|支持)\s*(加速|延时|延迟)")
_KINDS: Final[Mapping[str, PaceKind]] = {"加速": SPEED_UP, "延时": DELAY, "延迟": DELAY}


def request_kind(text: str, rules: PaceRules) -> PaceKind | None:
    """What a progress-thread post asks for, or None (nothing, or both at once). Words for a
    kind the ruleset lacks are no request at all (099: 申请延时 asks for nothing)."""
    kinds = {_KINDS[m.group(1)] for m in _REQUEST.finditer(text)} & set(rules.kinds)
    return kinds.pop() if len(kinds) == 1 else None


@dataclass(frozen=True)
class PaceRequest:
    character: int
    kind: PaceKind
    at: datetime


@dataclass(frozen=True)
class PaceDecision:
    """The day's pace, since when (the request that completed the quorum), and who counted for
    each kind (living characters who asked before the cut-off)."""

    pace: str
    since: datetime | None
    speed_up: tuple[int, ...]
    delay: tuple[int, ...]
    living: int
    needed: int


def cutoff(close: datetime, rules: PaceRules) -> datetime:
    """Requests count until this moment (excluded): ``cutoff_hours`` before the day's close
    (061: three hours); with 0, until the close itself (099 names no cut-off)."""
    return close - timedelta(hours=rules.cutoff_hours)


def needed(living: int, rules: PaceRules) -> int:
    """How many requests grant a pace: at least half of the living (061: 大于等于存活人数的一半),
    or more than half (099: 过半数)."""
    if rules.quorum == "half":
        return max(1, (living + 1) // 2)
    return living // 2 + 1


def decide(
    requests: Iterable[PaceRequest], living: frozenset[int], deadline: datetime, rules: PaceRules
) -> PaceDecision:
    """A delay that reaches the quorum wins over a speed-up (061: 延迟成功时，不再视为“执行加速”
    状态); each living character counts once per kind, from its first request. Requests of a
    kind the ruleset lacks count for nothing (099 has no 延时)."""
    first: dict[str, dict[int, datetime]] = {SPEED_UP: {}, DELAY: {}}
    for request in sorted(requests, key=lambda r: r.at):
        if rules.allows(request.kind) and request.character in living and request.at < deadline:
            first[request.kind].setdefault(request.character, request.at)
    need = needed(len(living), rules)

    def reached(kind: str) -> datetime | None:
        times = sorted(first[kind].values())
        return times[need - 1] if living and len(times) >= need else None

    pace, since = NORMAL, None
    for kind, granted in ((DELAY, DELAYED), (SPEED_UP, SPED_UP)):
        at = reached(kind)
        if at is not None:
            pace, since = granted, at
            break
    return PaceDecision(
        pace, since, tuple(sorted(first[SPEED_UP])), tuple(sorted(first[DELAY])), len(living), need
    )
