"""投票/改票/代投/弃权: reading a day's vote thread (投票帖) and tallying it.

Pure: the shell passes the thread's posts (text already turned from HTML, quotes removed), the
characters, the day's close, the ruleset's `BallotRules` and the game kind's `VoteModifiers`;
`count_ballots` returns, for every post, whether it counted and why not, the weighted totals and
the outcome under the ruleset's tie rule.

The formats are [061]'s (the only seed that spells them out; the others vote the same way):

    投票对象：饺子          改票对象：包子        (a change replies to the original floor)
    投票理由：饺子好吃      改票理由：包子也好吃

A director's proxy vote (代投) is a director's post naming the voter first:

    代投：甲
    投票对象：乙            (or 改票对象, replying to 甲's ballot floor)

Punctuation is the same in either width, and the target may share its line with the reason.
An invalid ballot changes nothing: the voter corrects it with a new post (无效票须通过重新发帖来
更正). What the seeds set differently (cutoffs, the tie rule) is a `BallotRules` parameter; the
kind's weights and modifiers (RULINGS 13's item weights, 警长 1.5, 诅咒 doubling, 独尊 ...) come
from a `VoteWeights` provider the kind registers, so nothing here branches on a kind.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from games.engine.text import normalize_punctuation
from games.engine.timetable import BEIJING

ABSTAIN = "弃权"

# --- inputs ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BallotPost:
    """One floor of the vote thread, as synced."""

    floor: int
    external_id: str
    author: int | None  # the author's character; None for a director, an observer, anonymous
    by_director: bool
    posted_at: datetime
    text: str  # quotes removed, so a quoted ballot is not a ballot
    reply_to: str | None = None  # external id of the post it replies to
    edited_at: datetime | None = None  # when the sync noticed an edit


@dataclass(frozen=True, slots=True)
class Voter:
    """A character as the ballots see it."""

    id: int
    name: str
    alive: bool = True
    idle: bool = False
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BallotDay:
    day: int
    closes_at: datetime
    # When a speed-up (加速) took effect; changes from then on are refused (执行加速时不允许改票).
    sped_up_at: datetime | None = None
    # [061]: when a 延时 (or a director's 正常) ended it (延迟成功时，不再视为“执行加速”状态);
    # changes from then on are allowed again.
    sped_up_until: datetime | None = None


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a post did not count: a stable code and the Chinese text the director reads.

    ``public`` is False for reasons that would reveal a secret (a werewolf skill such as 独尊):
    the public tally then shows the ballot as cast."""

    code: str
    text: str
    public: bool = True


@dataclass(frozen=True, slots=True)
class Adjust:
    """A weight or a multiplier and why (shown to the director)."""

    value: Fraction
    why: str


@dataclass(frozen=True, slots=True)
class VoteModifiers:
    """What the game kind changes about one day's votes. Empty: one vote each.

    ``weights``: a voter's ballot weighs this (royale: 1 + the items' vote values; 警长 1.5,
    龙威 3, 咆哮 …). ``multipliers``: votes received by a target are multiplied (诅咒 ×2).
    ``void_voters``/``void_pairs``: ballots of a voter, or of a voter for a target, that do not
    count (石化; 独尊, 变羊 towards 巫师). ``immune``: targets that cannot be the one out (票台);
    their votes are still counted and shown. ``still_voting``: characters out of the game who
    keep their vote (恶灵 虚体). ``role_holders``: who holds a role a tie rule names (099: 高僧);
    None when nobody holds it now (out, or its skill lost); a role missing: the kind does not
    know."""

    weights: Mapping[int, Adjust] = field(default_factory=dict)
    multipliers: Mapping[int, Adjust] = field(default_factory=dict)
    void_voters: Mapping[int, Reason] = field(default_factory=dict)
    void_pairs: Mapping[tuple[int, int], Reason] = field(default_factory=dict)
    immune: Mapping[int, Reason] = field(default_factory=dict)
    still_voting: frozenset[int] = frozenset()
    role_holders: Mapping[str, int | None] = field(default_factory=dict)


class VoteWeights(Protocol):
    """A game kind's source of `VoteModifiers` for one of its games' days."""

    def modifiers(self, game_id: int, day: int) -> VoteModifiers: ...


class OneVoteEach:
    """The provider of a kind that registers none: every ballot weighs 1."""

    def modifiers(self, game_id: int, day: int) -> VoteModifiers:
        return VoteModifiers()


_WEIGHTS: dict[str, VoteWeights] = {}


def register_vote_weights(kind: str, provider: VoteWeights) -> None:
    if _WEIGHTS.get(kind, provider) is not provider:
        raise ValueError(f"vote weights of kind {kind!r} registered twice")
    _WEIGHTS[kind] = provider


def vote_weights_for(kind: str) -> VoteWeights:
    return _WEIGHTS.get(kind, OneVoteEach())


# --- the ruleset's parameters ------------------------------------------------------------------

PUBLISH_LEVELS = ("top", "totals", "ballots")


@dataclass(frozen=True, slots=True)
class BallotRules:
    """``tie``: a registered tie rule; ``tie_role``: the role it names (099: 高僧) and
    ``tie_skill`` the skill by which it does (099: 献身).
    ``change_cutoff``: minutes before the close from which a player's changes are refused;
    ``proxy_cutoff``: from which the director's proxies are, votes and changes alike (061:
    关门前一小时不允许改票或代投; 099: 导演至少在投票截至的30分钟前发出代投信息, 代投改票 too).
    ``idle_targetable``: idle characters may be voted for (096: 挂机 角色允许被选为投票的目标).
    ``publish``: what the public tally shows — ``top`` (the outcome only), ``totals`` (the
    outcome and each candidate's weighted total, no voter: royale's 统计投票结果并公布 with
    投票结果不会公开, RULINGS 30) or ``ballots`` (the outcome and who voted whom)."""

    tie: str = "first_to_top"
    tie_role: str = ""
    tie_skill: str = ""
    change_cutoff: int = 60
    proxy_cutoff: int = 60
    idle_targetable: bool = False
    publish: str = "ballots"


RULES_FILE = Path(__file__).resolve().parent.parent / "rulesets" / "ballots.json"


def parse_ballot_rules(data: Mapping[str, Any]) -> dict[str, BallotRules]:
    """``{ruleset: {field: value}}`` checked field by field (a typo must not pass silently)."""
    defaults = BallotRules()
    parsed = {}
    for ruleset, fields in data.items():
        unknown = set(fields) - set(BallotRules.__dataclass_fields__)
        if unknown:
            raise ValueError(f"{ruleset}: unknown ballot rule fields {sorted(unknown)}")
        for name, value in fields.items():
            if type(value) is not type(getattr(defaults, name)):
                raise ValueError(f"{ruleset}: {name} must be {type(getattr(defaults, name))}")
        rules = BallotRules(**fields)
        if rules.tie not in _TIE_RULES:
            raise ValueError(f"{ruleset}: unknown tie rule {rules.tie!r}")
        if rules.publish not in PUBLISH_LEVELS:
            raise ValueError(f"{ruleset}: publish must be one of {PUBLISH_LEVELS}")
        parsed[ruleset] = rules
    return parsed


@cache
def _rules_by_ruleset() -> dict[str, BallotRules]:
    return parse_ballot_rules(json.loads(RULES_FILE.read_text(encoding="utf-8")))


def ballot_rules(ruleset: str) -> BallotRules:
    """The ruleset's parameters; the defaults for a ruleset the file does not name."""
    return _rules_by_ruleset().get(ruleset, BallotRules())


# --- outputs -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one post was. ``kind``: ``vote``, ``change`` or ``none`` (not a ballot)."""

    floor: int
    external_id: str
    kind: str
    at: datetime
    # When the sync noticed an edit: the text is the edited one, and the forum does not say
    # when the edit was made, so the post keeps its time and the director sees the mark.
    edited_at: datetime | None = None
    voter: int | None = None
    target: int | None = None
    abstain: bool = False
    proxy: bool = False
    counted: bool = False
    reason: Reason | None = None
    weight: Fraction = Fraction(1)


@dataclass(frozen=True, slots=True)
class Total:
    character: int
    votes: Fraction  # weighted, multiplied
    ballots: int
    since: int  # the floor from which the total has not been below its final value
    immune: Reason | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """Who the vote picks. ``rule``: ``top``, ``no_votes`` or the tie rule that decided."""

    character: int | None
    rule: str
    tied: tuple[int, ...]
    text: str


@dataclass(frozen=True, slots=True)
class Tally:
    day: int
    verdicts: tuple[Verdict, ...]
    totals: tuple[Total, ...]  # best first
    abstained: tuple[int, ...]
    not_voted: tuple[int, ...]  # eligible voters without a counted ballot
    outcome: Outcome
    names: Mapping[int, str]
    modifiers: VoteModifiers

    def final_ballots(self) -> tuple[Verdict, ...]:
        """The ballots in effect at the close that name a target (no 弃权), each by the post
        that named it — the vote, its change or the director's proxy — earliest floor first."""
        return tuple(
            v
            for v in sorted(self.verdicts, key=lambda v: v.floor)
            if v.counted and v.voter is not None and v.target is not None
        )

    def to_json(self) -> dict[str, Any]:
        """Every fact, for the directors' log and the director's page (JSON-safe)."""
        mods = self.modifiers
        return {
            "day": self.day,
            "posts": [_verdict_json(v) for v in self.verdicts],
            "totals": [
                {
                    "character": t.character,
                    "name": self.names[t.character],
                    "votes": _num(t.votes),
                    "ballots": t.ballots,
                    "since": t.since,
                    "multiplier": _adjust_json(mods.multipliers.get(t.character)),
                    "immune": _reason_json(t.immune),
                }
                for t in self.totals
            ],
            "abstained": [{"character": c, "name": self.names[c]} for c in self.abstained],
            "not_voted": [{"character": c, "name": self.names[c]} for c in self.not_voted],
            "outcome": {
                "character": self.outcome.character,
                "name": None
                if self.outcome.character is None
                else self.names[self.outcome.character],
                "rule": self.outcome.rule,
                "tied": list(self.outcome.tied),
                "text": self.outcome.text,
            },
            "weights": {str(c): _adjust_json(a) for c, a in sorted(mods.weights.items())},
        }


def _num(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _reason_json(reason: Reason | None) -> dict[str, Any] | None:
    if reason is None:
        return None
    return {"code": reason.code, "text": reason.text, "public": reason.public}


def _adjust_json(adjust: Adjust | None) -> dict[str, Any] | None:
    return None if adjust is None else {"value": _num(adjust.value), "why": adjust.why}


def _verdict_json(v: Verdict) -> dict[str, Any]:
    return {
        "floor": v.floor,
        "external_id": v.external_id,
        "kind": v.kind,
        "at": v.at.isoformat(),
        "edited_at": None if v.edited_at is None else v.edited_at.isoformat(),
        "voter": v.voter,
        "target": v.target,
        "abstain": v.abstain,
        "proxy": v.proxy,
        "counted": v.counted,
        "reason": _reason_json(v.reason),
        "weight": _num(v.weight),
    }


# --- why a post did not count --------------------------------------------------------------------

NOT_BALLOT = Reason("not_ballot", "不是投票（没有投票对象或改票对象）")
DIRECTOR_POST = Reason("director_post", "导演发帖（不是代投）")
SEVERAL = Reason("several_ballots", "一帖中有多个投票对象、改票对象或代投")
BAD_FORMAT = Reason("bad_format", "投票格式有误（投票对象或改票对象后须有冒号和名字）")
NO_REASON = Reason("no_reason", "缺少投票理由（投票格式有误）")
NOT_PLAYER = Reason("not_a_player", "发帖人不是本局角色")
PROXY_NOT_DIRECTOR = Reason("proxy_not_director", "只有导演可以代投")
UNKNOWN_VOTER = Reason("unknown_voter", "代投的委托人不是本局角色")
VOTER_OUT = Reason("voter_out", "投票人已出局")
VOTER_IDLE = Reason("voter_idle", "投票人处于挂机状态")
AFTER_CLOSE = Reason("after_close", "关门后发帖")
ALREADY_VOTED = Reason("already_voted", "已经投过票（改票须用改票格式回复原投票楼层）")
CHANGE_WITHOUT_VOTE = Reason("change_without_vote", "改票前没有有效的投票")
CHANGE_NOT_REPLY = Reason("change_not_reply", "改票没有回复原投票楼层")
SECOND_CHANGE = Reason("second_change", "改票只允许一次")
CHANGE_SPED_UP = Reason("change_sped_up", "执行加速时不允许改票")
UNKNOWN_TARGET = Reason("unknown_target", "投票对象不是本局角色")
AMBIGUOUS_TARGET = Reason("ambiguous_target", "投票对象同时是多名角色的名字或别名")
TARGET_OUT = Reason("target_out", "投票对象已出局")
TARGET_IDLE = Reason("target_idle", "投票对象处于挂机状态")


def _change_late(minutes: int) -> Reason:
    return Reason("change_late", f"关门前{minutes}分钟内不允许改票")


def _proxy_late(minutes: int) -> Reason:
    return Reason("proxy_late", f"关门前{minutes}分钟内不允许代投")


def _changed(floor: int) -> Reason:
    return Reason("changed", f"已改票（{floor}楼）")


# --- reading a post ----------------------------------------------------------------------------


def normalize(text: str) -> str:
    """Punctuation of either width alike (投票格式中标点符号不区分全半角), one kind of space,
    composed characters, trimmed."""
    text = normalize_punctuation(unicodedata.normalize("NFC", text))
    return re.sub(r"[ \t]+", " ", text).strip()


_TARGETS = ("投票对象", "改票对象")
_LABEL = re.compile(r"(投票对象|改票对象|投票理由|改票理由|代投(?:人|玩家|角色)?)\s*:")
# A target label without its colon is a ballot in a wrong format, not chatter.
_LOOSE = re.compile(r"投票对象|改票对象")


@dataclass(frozen=True, slots=True)
class _Read:
    change: bool
    target: str  # "" when missing
    voter: str | None  # the 代投 line's name
    reason: bool
    several: bool


def _first_line(value: str) -> str:
    return next((line.strip() for line in value.splitlines() if line.strip()), "")


def _read_post(text: str) -> _Read | None:
    """The ballot a post's text states, or None when it states none."""
    text = normalize(text)
    found = list(_LABEL.finditer(text))
    if not found:
        loose = _LOOSE.search(text)
        if loose is None:
            return None
        return _Read(loose.group() == "改票对象", "", None, False, False)
    parts = [
        (m.group(1), text[m.end() : found[i + 1].start() if i + 1 < len(found) else len(text)])
        for i, m in enumerate(found)
    ]
    targets = [(label, value) for label, value in parts if label in _TARGETS]
    proxies = [value for label, value in parts if label.startswith("代投")]
    if not targets and not proxies:
        return None
    return _Read(
        change=bool(targets) and targets[0][0] == "改票对象",
        target=_first_line(targets[0][1]) if targets else "",
        voter=_first_line(proxies[0]) if proxies else None,
        reason=any(label.endswith("理由") for label, _ in parts),
        several=len(targets) > 1 or len(proxies) > 1,
    )


class _Names:
    """Exact lookup of names and aliases (normalized alike): a name that begins another name
    matches only itself."""

    def __init__(self, voters: Iterable[Voter]) -> None:
        self.ids: dict[str, set[int]] = {}
        for v in voters:
            for name in (v.name, *v.aliases):
                self.ids.setdefault(normalize(name), set()).add(v.id)

    def find(self, text: str) -> frozenset[int]:
        return frozenset(self.ids.get(normalize(text), ()))


# --- counting ----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Cast:
    """A voter's ballot in effect: the post holding the vote, and its changes so far."""

    vote_post: str
    verdict: int  # index of the verdict now counting
    target: int | None
    changes: int = 0


def count_ballots(
    posts: Sequence[BallotPost],
    voters: Sequence[Voter],
    day: BallotDay,
    rules: BallotRules,
    modifiers: VoteModifiers | None = None,
) -> Tally:
    """Read the day's vote thread in floor order and tally it."""
    mods = modifiers or VoteModifiers()
    by_id = {v.id: v for v in voters}
    names = _Names(voters)
    casts: dict[int, _Cast] = {}
    verdicts: list[Verdict] = []
    for post in sorted(posts, key=lambda p: p.floor):
        verdict = _judge(post, by_id, names, casts, day, rules, mods)
        if verdict.counted and verdict.voter is not None:
            cast = casts.get(verdict.voter)
            if cast is None:
                casts[verdict.voter] = _Cast(post.external_id, len(verdicts), verdict.target)
            else:
                verdicts[cast.verdict] = replace(
                    verdicts[cast.verdict], counted=False, reason=_changed(post.floor)
                )
                cast.verdict, cast.target = len(verdicts), verdict.target
                cast.changes += 1
        verdicts.append(verdict)
    totals = _totals(verdicts, mods)
    return Tally(
        day=day.day,
        verdicts=tuple(verdicts),
        totals=totals,
        abstained=tuple(sorted(c for c, cast in casts.items() if cast.target is None)),
        not_voted=tuple(v.id for v in voters if v.id not in casts and _may_vote(v, mods) is None),
        outcome=_outcome(totals, by_id, rules, mods),
        names={v.id: v.name for v in voters},
        modifiers=mods,
    )


def _may_vote(v: Voter, mods: VoteModifiers) -> Reason | None:
    if not v.alive and v.id not in mods.still_voting:
        return VOTER_OUT
    if v.idle:
        return VOTER_IDLE
    return mods.void_voters.get(v.id)


def _judge(
    post: BallotPost,
    by_id: Mapping[int, Voter],
    names: _Names,
    casts: Mapping[int, _Cast],
    day: BallotDay,
    rules: BallotRules,
    mods: VoteModifiers,
) -> Verdict:
    at, edited = post.posted_at, post.edited_at
    read = _read_post(post.text)
    if read is None or (post.by_director and read.voter is None):
        plain = NOT_BALLOT if read is None else DIRECTOR_POST
        return Verdict(post.floor, post.external_id, "none", at, edited, reason=plain)
    base = Verdict(
        post.floor,
        post.external_id,
        "change" if read.change else "vote",
        at,
        edited,
        voter=post.author,
        proxy=read.voter is not None,
    )

    def no(reason: Reason) -> Verdict:
        return replace(base, reason=reason)

    if read.several:
        return no(SEVERAL)
    if read.voter is not None and not post.by_director:
        return no(PROXY_NOT_DIRECTOR)
    if read.voter is not None:
        proxied = names.find(read.voter)
        if len(proxied) != 1:
            return no(UNKNOWN_VOTER)
        base = replace(base, voter=min(proxied))
    if base.voter is None or base.voter not in by_id:
        return no(NOT_PLAYER)
    voter = base.voter
    base = replace(base, weight=_weight(mods, voter))
    if not read.target:
        return no(BAD_FORMAT)
    if not read.reason and not base.proxy:
        return no(NO_REASON)
    if at >= day.closes_at:
        return no(AFTER_CLOSE)
    if (why := _may_vote(by_id[voter], mods)) is not None:
        return no(why)
    if base.proxy and at >= day.closes_at - timedelta(minutes=rules.proxy_cutoff):
        return no(_proxy_late(rules.proxy_cutoff))
    cast = casts.get(voter)
    if not read.change and cast is not None:
        return no(ALREADY_VOTED)
    if read.change:
        if cast is None:
            return no(CHANGE_WITHOUT_VOTE)
        if post.reply_to != cast.vote_post:
            return no(CHANGE_NOT_REPLY)
        if cast.changes >= 1:
            return no(SECOND_CHANGE)
        # A proxy change is the director's: it answers to the proxy cutoff, checked above (099
        # 玩家须知 9: 代投改票 asked an hour before, posted at least 30 minutes before the close).
        if not base.proxy and at >= day.closes_at - timedelta(minutes=rules.change_cutoff):
            return no(_change_late(rules.change_cutoff))
        if (
            day.sped_up_at is not None
            and at >= day.sped_up_at
            and (day.sped_up_until is None or at < day.sped_up_until)
        ):
            return no(CHANGE_SPED_UP)
    if read.target == ABSTAIN:
        return replace(base, abstain=True, counted=True)
    found = names.find(read.target)
    if not found:
        return no(UNKNOWN_TARGET)
    if len(found) > 1:
        return no(AMBIGUOUS_TARGET)
    target = by_id[min(found)]
    base = replace(base, target=target.id)
    if not target.alive:
        return no(TARGET_OUT)
    if target.idle and not rules.idle_targetable:
        return no(TARGET_IDLE)
    if (why := mods.void_pairs.get((voter, target.id))) is not None:
        return no(why)
    return replace(base, counted=True)


def _superseded(v: Verdict) -> bool:
    return v.reason is not None and v.reason.code == "changed"


def _weight(mods: VoteModifiers, voter: int) -> Fraction:
    adjust = mods.weights.get(voter)
    return Fraction(1) if adjust is None else adjust.value


def _totals(verdicts: Sequence[Verdict], mods: VoteModifiers) -> tuple[Total, ...]:
    """Totals of the ballots in effect, best first; equal totals in the order they were reached
    (the moment since which a total has not been below its final value, as royale's tally)."""

    def worth(weight: Fraction, target: int) -> Fraction:
        adjust = mods.multipliers.get(target)
        return weight * (Fraction(1) if adjust is None else adjust.value)

    final: dict[int, Fraction] = {}
    ballots: dict[int, int] = {}
    for v in verdicts:
        if v.counted and v.target is not None:
            final[v.target] = final.get(v.target, Fraction(0)) + worth(v.weight, v.target)
            ballots[v.target] = ballots.get(v.target, 0) + 1
    # Replay every ballot that was in effect at some point (superseded votes too), in order.
    running: dict[int, Fraction] = {}
    current: dict[int | None, Verdict] = {}
    since: dict[int, int] = {}
    for v in verdicts:
        if not v.counted and not _superseded(v):
            continue
        old = current.get(v.voter)
        if old is not None and old.target is not None:
            running[old.target] -= worth(old.weight, old.target)
        current[v.voter] = v
        if v.target is None:
            continue
        before = running.get(v.target, Fraction(0))
        running[v.target] = before + worth(v.weight, v.target)
        goal = final.get(v.target)
        if goal is not None and before < goal <= running[v.target]:
            since[v.target] = v.floor
    order = sorted(final, key=lambda c: (-final[c], since[c], c))
    return tuple(Total(c, final[c], ballots[c], since[c], mods.immune.get(c)) for c in order)


# --- the outcome and the tie rules -------------------------------------------------------------

TieRule = Callable[[Sequence[Total], Mapping[int, Voter], BallotRules, VoteModifiers], Outcome]
_TIE_RULES: dict[str, TieRule] = {}


def register_tie_rule(key: str) -> Callable[[TieRule], TieRule]:
    def add(rule: TieRule) -> TieRule:
        if key in _TIE_RULES:
            raise ValueError(f"tie rule {key!r} registered twice")
        _TIE_RULES[key] = rule
        return rule

    return add


def _listed(tied: Sequence[Total], by_id: Mapping[int, Voter]) -> str:
    return "、".join(by_id[t.character].name for t in tied)


@register_tie_rule("first_to_top")
def _first_to_top(
    tied: Sequence[Total], by_id: Mapping[int, Voter], rules: BallotRules, mods: VoteModifiers
) -> Outcome:
    """平票则最先到达最高票的玩家记为最高票 (256/252; 096: 最先高票者)."""
    first = tied[0]
    return Outcome(
        first.character,
        "first_to_top",
        tuple(t.character for t in tied),
        f"平票（{_listed(tied, by_id)}），最先达到最高票的{by_id[first.character].name}记为最高票",
    )


@register_tie_rule("role_out")
def _role_out(
    tied: Sequence[Total], by_id: Mapping[int, Voter], rules: BallotRules, mods: VoteModifiers
) -> Outcome:
    """平票则高僧出局 (099), and nobody when the role is already out or its skill lost (RULINGS
    werewolf 2; the kind says so with None). A kind that does not say who holds the role leaves
    it to the director."""
    ids = tuple(t.character for t in tied)
    head = f"平票（{_listed(tied, by_id)}），{rules.tie_role}"
    if rules.tie_role in mods.role_holders and mods.role_holders[rules.tie_role] is None:
        lost = f"已出局或失去[{rules.tie_skill}]" if rules.tie_skill else "已出局"
        return Outcome(None, "role_out", ids, f"{head}{lost}，无人出局")
    holder = mods.role_holders.get(rules.tie_role)
    if holder is None or holder not in by_id:
        return Outcome(None, "role_out", ids, f"{head}出局（由导演执行）")
    if not by_id[holder].alive:
        return Outcome(None, "role_out", ids, f"{head}已出局，无人出局")
    return Outcome(holder, "role_out", ids, f"{head}{by_id[holder].name}出局")


@register_tie_rule("nobody")
def _nobody(
    tied: Sequence[Total], by_id: Mapping[int, Voter], rules: BallotRules, mods: VoteModifiers
) -> Outcome:
    return Outcome(
        None,
        "nobody",
        tuple(t.character for t in tied),
        f"平票（{_listed(tied, by_id)}），无人出局",
    )


@register_tie_rule("revote")
def _revote(
    tied: Sequence[Total], by_id: Mapping[int, Voter], rules: BallotRules, mods: VoteModifiers
) -> Outcome:
    return Outcome(
        None,
        "revote",
        tuple(t.character for t in tied),
        f"平票（{_listed(tied, by_id)}），由导演另行组织投票",
    )


def _outcome(
    totals: Sequence[Total], by_id: Mapping[int, Voter], rules: BallotRules, mods: VoteModifiers
) -> Outcome:
    eligible = [t for t in totals if t.immune is None]
    if not eligible:
        return Outcome(None, "no_votes", (), "没有有效票")
    tied = [t for t in eligible if t.votes == eligible[0].votes]
    if len(tied) == 1:
        top = tied[0].character
        return Outcome(top, "top", (top,), f"最高票：{by_id[top].name}")
    return _TIE_RULES[rules.tie](tied, by_id, rules, mods)


# --- the public text ---------------------------------------------------------------------------


def _clock(at: datetime) -> str:
    return at.astimezone(BEIJING).strftime("%m-%d %H:%M")


def public_text(tally: Tally, rules: BallotRules, *, as_of: datetime | None = None) -> str:
    """The tally as the public may read it (a forum reply, the announcement); ``as_of``: a
    count before the close, so headed.

    ``top`` rulesets show the outcome alone; ``totals`` ones (royale, RULINGS 30) also each
    candidate's weighted total once the day has closed (before, the outcome alone), never a
    voter; ``ballots`` ones also who voted whom, a ballot voided for a secret reason shown as
    cast, and each public reason a post did not count. No other level shows the totals: they
    would reveal weights (a secret 诅咒)."""
    names = tally.names
    head = "投票结果" if as_of is None else f"投票统计（截至{_clock(as_of)}）"
    lines = [f"【第{tally.day}天{head}】", tally.outcome.text]
    if rules.publish == "top" or (rules.publish == "totals" and as_of is not None):
        return "\n".join(lines)
    if rules.publish == "totals":
        shown_totals = [f"{names.get(t.character, '?')} {_num(t.votes)} 票" for t in tally.totals]
        return "\n".join([*lines, "", "候选人票数：", *shown_totals] if shown_totals else lines)
    shown: list[str] = []
    refused: list[str] = []
    for v in tally.verdicts:
        if v.kind == "none" or _superseded(v):
            continue
        who = names.get(v.voter or 0, "?")
        proxy = f"（导演代投，{_clock(v.at)}）" if v.proxy else ""
        if v.counted or (v.reason is not None and not v.reason.public):
            what = ABSTAIN if v.abstain else f"→ {names.get(v.target or 0, '?')}"
            change = "改票 " if v.kind == "change" else ""
            shown.append(f"{v.floor}楼 {who} {change}{what}{proxy}")
        elif v.reason is not None:
            refused.append(f"{v.floor}楼 {who}{proxy}：{v.reason.text}")
    if shown:
        lines += ["", "有效票：", *shown]
    if refused:
        lines += ["", "无效：", *refused]
    return "\n".join(lines)
