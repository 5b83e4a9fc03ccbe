"""随机事件: the daily events of [256] and [252] (RULINGS 19 for their order).

What an event is — its name as the post writes it, the days it may happen, its numbers — is the
ruleset's ``events`` section; what it does is code registered here under the event's key. The
same key may stand in both rulesets with other names and numbers (``villain`` is 256's
臭名昭著的恶棍 and 252's 鬼王再世).

Each day at day open, after the daily settlement (the ``events.pre_night`` hook), today's events
are settled: a fixed-day event (``days``) is the day's event; otherwise one is drawn from the seed
among those allowed that day (not before ``from_day``; with ``draw_once`` an event drawn once is
not drawn again until every first-round event is used up, then the ``repeatable`` ones are drawn
again) and able to take effect that day (its ``needs``: a vote, a shrink that night, ...; RULINGS
24, 25), unless the director picked one or vetoed some beforehand (:func:`event_choose`).
Recurring events that happened on an earlier day come on top, and so do automatic ones whose
condition holds (百鬼夜行: fewer than half of the players alive). Each is
announced publicly (``day_event``), then each event's handlers run at the stages it acts in:
``pre_night`` (before the night: 酷暑 −30 MP ...), ``post_night`` (after the night's actions,
before bleeding and the shrink), ``death``, ``hit``, ``airdrop``.

Flags kept in the state (all JSON): ``events_today`` ({day, keys}), ``events_happened`` (key →
first day), ``event_plan`` (the director's pick/veto for one day), and per event ``villain``,
``bounty``, ``kills``, ``twist``; on characters ``entered_from`` (the place before a special
zone), ``reward_offers``/``reward_tags`` (bounty rewards), ``revenant``/``void_deaths``
(百鬼夜行). The flags the core reads are set here: ``vote_reveal``, ``rest_disabled``,
``no_shrink``, ``shrink_hidden_count``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from games.engine.errors import InvalidInput

from .actions import Action, register_action_type
from .combat import kill_by_event
from .common import director_draft, living
from .draft import Draft, open_draft
from .errors import (
    EventFixedDay,
    EventNotAllowed,
    GameOver,
    NoRewardOffer,
    NotAnOption,
    TierExhausted,
    UnknownEvent,
)
from .hooks import register_hook
from .items import grant
from .night import counted_deaths, shrink_plan
from .power import power_bottom, power_top
from .rules import register_action
from .ruleset import (
    HOOK_STAGES,
    Ruleset,
    RulesetError,
    _int,
    _selector,
    _selectors,
    _str,
    get_ruleset,
    register_section,
)
from .state import (
    CAUSE_DROWNED,
    CAUSE_RED_CARD,
    MODE_ACT,
    MODE_NONE,
    OVER,
    Character,
    GameState,
)

Result = tuple[GameState, list[Any]]


# --- data ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EventSpec:
    key: str
    name: str  # as the post writes it
    text: str  # the post's words for what happens, announced with the name
    days: tuple[int, ...]  # fixed days: the day's event then, never drawn
    from_day: int  # never drawn before this day
    recurring: bool  # once it happened, it happens every later day too
    automatic: bool  # comes on top of the day's event whenever its condition holds
    once: bool  # an automatic event happens at most once a game
    params: Mapping[str, Any]
    # Drawn again once every event of the first round is used up (RULINGS 25), with draw_once.
    repeatable: bool = False
    # What must hold for the event to take effect that day (names in NEEDS): it is drawn only
    # on such a day (RULINGS 25: none is wasted).
    needs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EventRules:
    events: tuple[EventSpec, ...]
    draw_once: bool  # a drawn event is not drawn again (recurring ones happen anyway)

    def get(self, key: str) -> EventSpec | None:
        return next((e for e in self.events if e.key == key), None)


Handler = Callable[[Draft, EventSpec, Mapping[str, Any]], None]
Condition = Callable[[Draft, EventSpec], bool]


@dataclass(slots=True)
class Behaviour:
    params: dict[str, str]  # name -> "int" | "fraction" | "text" | "selector" | "selectors"
    handlers: dict[str, list[Handler]] = field(default_factory=dict)
    condition: Condition | None = None


BEHAVIOURS: dict[str, Behaviour] = {}


@dataclass(frozen=True, slots=True)
class Outlook:
    """The day an event would happen on, seen from a draft: today at its day open, or tomorrow
    from today (the director's choice), when ``leaving`` (tonight's list) counts as gone."""

    d: Draft
    day: int
    leaving: frozenset[str] = frozenset()

    def on_map(self) -> list[str]:
        return [p.name for p in self.d.places.values() if not p.gone and p.name not in self.leaving]


# An event's ``needs`` (ruleset data) name these: what its effect requires on the day.
Need = Callable[[Outlook, EventSpec], bool]
NEEDS: dict[str, Need] = {}


def need(name: str) -> Callable[[Need], Need]:
    def decorate(fn: Need) -> Need:
        NEEDS[name] = fn
        return fn

    return decorate


def event_type(key: str, *, condition: Condition | None = None, **params: str) -> None:
    """Declare the behaviour behind an event key and the parameters its data must give."""
    BEHAVIOURS[key] = Behaviour(dict(params), condition=condition)


def on(key: str, stage: str) -> Callable[[Handler], Handler]:
    """Register what an event does at a stage (several modules may act on one event)."""

    def decorate(fn: Handler) -> Handler:
        BEHAVIOURS[key].handlers.setdefault(stage, []).append(fn)
        return fn

    return decorate


def _param(value: Any, kind: str, path: str, rs: Ruleset) -> Any:
    if kind == "int":
        return _int(value, path)
    if kind == "fraction":
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
            raise RulesetError(path, "must be a number in (0, 1]")
        return value
    if kind == "text":
        return _str(value, path)
    if kind == "selector":
        return _selector(value, path, rs)
    return _selectors(value, path, rs)


def _flag(e: Mapping[str, Any], key: str, path: str) -> bool:
    value = e.get(key, False)
    if not isinstance(value, bool):
        raise RulesetError(f"{path}.{key}", "must be true or false")
    return value


@register_section("events")
def _parse(value: Any, rs: Ruleset) -> EventRules:
    if not isinstance(value, Mapping):
        raise RulesetError("events", "must be an object")
    draw_once = _flag(value, "draw_once", "events")
    entries = value.get("list")
    if not isinstance(entries, list):
        raise RulesetError("events.list", "must be a list")
    specs: list[EventSpec] = []
    for i, e in enumerate(entries):
        path = f"events.list[{i}]"
        if not isinstance(e, Mapping):
            raise RulesetError(path, "must be an object")
        key = e.get("key")
        if key not in BEHAVIOURS:
            raise RulesetError(f"{path}.key", f"no event behaviour registered as {key!r}")
        if any(s.key == key for s in specs):
            raise RulesetError(f"{path}.key", f"duplicate event {key!r}")
        name = _str(e.get("name"), f"{path}.name")
        text = e.get("text", "")
        if not isinstance(text, str):
            raise RulesetError(f"{path}.text", "must be a string")
        days = e.get("days", [])
        if not isinstance(days, list) or any(
            isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in days
        ):
            raise RulesetError(f"{path}.days", "must be a list of days ≥ 1")
        from_day = _int(e.get("from_day", 1), f"{path}.from_day", minimum=1)
        behaviour = BEHAVIOURS[key]
        automatic = _flag(e, "automatic", path)
        if automatic and behaviour.condition is None:
            raise RulesetError(f"{path}.automatic", f"{key!r} has no condition to trigger it")
        raw = e.get("params", {})
        if not isinstance(raw, Mapping):
            raise RulesetError(f"{path}.params", "must be an object")
        unknown = set(raw) - set(behaviour.params)
        if unknown:
            raise RulesetError(f"{path}.params.{sorted(unknown)[0]}", "is not a parameter")
        params = {}
        for p, kind in behaviour.params.items():
            if p not in raw:
                raise RulesetError(f"{path}.params.{p}", "is missing")
            params[p] = _param(raw[p], kind, f"{path}.params.{p}", rs)
        needs = e.get("needs", [])
        if not isinstance(needs, list) or any(n not in NEEDS for n in needs):
            raise RulesetError(f"{path}.needs", f"must be a list of {sorted(NEEDS)}")
        repeatable = _flag(e, "repeatable", path)
        if repeatable and (days or automatic or _flag(e, "recurring", path)):
            raise RulesetError(
                f"{path}.repeatable", "only a drawn event (not fixed, recurring, automatic)"
            )
        specs.append(
            EventSpec(
                key=key,
                name=name,
                text=text,
                days=tuple(days),
                from_day=from_day,
                recurring=_flag(e, "recurring", path),
                automatic=automatic,
                once=_flag(e, "once", path),
                params=params,
                repeatable=repeatable,
                needs=tuple(needs),
            )
        )
    return EventRules(tuple(specs), draw_once)


def rules_of(rs: Ruleset) -> EventRules | None:
    found = rs.sections.get("events")
    return found if isinstance(found, EventRules) else None


# --- which events happen on a day ----------------------------------------------------------------


def _happened(flags: Mapping[str, Any]) -> dict[str, int]:
    return dict(flags.get("events_happened") or {})


def _drawable(rules: EventRules, happened: Mapping[str, int], day: int) -> list[str]:
    """The events the day's draw may give, by the calendar: not fixed to days, not automatic, not
    too early, and not already happened if they recur (they come anyway) or the ruleset draws
    each once — except, once that first round is used up, the repeatable ones (RULINGS 25)."""
    first = [
        s
        for s in rules.events
        if not s.days
        and not s.automatic
        and day >= s.from_day
        and not ((s.recurring or rules.draw_once) and s.key in happened)
    ]
    again = [
        s
        for s in rules.events
        if s.repeatable and rules.draw_once and s.key in happened and day >= s.from_day
    ]
    return [s.key for s in first] + [s.key for s in again]


def _effective(rules: EventRules, happened: Mapping[str, int], view: Outlook) -> list[str]:
    """The day's pool (RULINGS 25: every day an event that takes effect that day): among the
    calendar's events those whose ``needs`` hold; the first round's while any of them can take
    effect, else the repeatable ones drawn again."""
    pool = [
        s
        for key in _drawable(rules, happened, view.day)
        if (s := rules.get(key)) is not None and all(NEEDS[n](view, s) for n in s.needs)
    ]
    first = [s.key for s in pool if s.key not in happened or not rules.draw_once]
    return first or [s.key for s in pool]


def allowed_events(state: GameState) -> list[EventSpec]:
    """What the director may pick or veto for the next day open (empty on a fixed day): what
    that day's draw would choose among, seen from today (tonight's places counted as gone)."""
    rules = rules_of(get_ruleset(state.ruleset))
    if rules is None or fixed_event(state, state.day + 1) is not None:
        return []
    keys = _effective(rules, _happened(state.flags), _tomorrow(open_draft(state, random.Random())))
    return [s for s in rules.events if s.key in keys]


def _tomorrow(d: Draft) -> Outlook:
    return Outlook(d, d.day + 1, frozenset(d.shrink_tonight))


def fixed_event(state: GameState, day: int) -> EventSpec | None:
    rules = rules_of(get_ruleset(state.ruleset))
    if rules is None:
        return None
    return next((s for s in rules.events if day in s.days), None)


def todays_events(state: GameState) -> list[EventSpec]:
    """Today's events in the order they act (drawn or fixed, recurring, automatic)."""
    return _specs_today(get_ruleset(state.ruleset), state.flags, state.day)


def _specs_today(rs: Ruleset, flags: Mapping[str, Any], day: int) -> list[EventSpec]:
    rules = rules_of(rs)
    today = flags.get("events_today")
    if rules is None or not today or today["day"] != day:
        return []
    return [s for key in today["keys"] if (s := rules.get(key)) is not None]


def event_plan(state: GameState) -> dict[str, Any] | None:
    """The director's pick/veto waiting for the next day open, if any."""
    plan = state.flags.get("event_plan")
    return dict(plan) if plan and plan["day"] == state.day + 1 else None


def _choose(
    d: Draft, rules: EventRules, happened: Mapping[str, int]
) -> tuple[list[str], list[str]]:
    """The day's own event (fixed, picked or drawn; none only when nothing can take effect) and
    those coming on top of it (recurring, automatic)."""
    fixed = [s.key for s in rules.events if d.day in s.days]
    plan = d.flags.get("event_plan")
    if plan is not None and plan["day"] != d.day:
        plan = None
    if fixed:
        chosen = fixed
    else:
        pool = _effective(rules, happened, Outlook(d, d.day))
        pick = plan["pick"] if plan else None
        vetoed = set(plan["veto"]) if plan else set()
        left = [k for k in pool if k not in vetoed]
        chosen = [pick] if pick in pool else [d.rng.choice(left)] if left else []
    recurring = [
        s.key for s in rules.events if s.recurring and s.key in happened and s.key not in chosen
    ]
    automatic = [
        s.key
        for s in rules.events
        if s.automatic and not (s.once and s.key in happened) and _due(d, s)
    ]
    return chosen, recurring + automatic


def _due(d: Draft, spec: EventSpec) -> bool:
    condition = BEHAVIOURS[spec.key].condition
    return condition is not None and condition(d, spec)


def _run(d: Draft, stage: str, context: Mapping[str, Any]) -> None:
    for spec in _specs_today(d.rs, d.flags, d.day):
        for fn in BEHAVIOURS[spec.key].handlers.get(stage, ()):
            fn(d, spec, context)


def _dispatcher(stage: str) -> Callable[[Draft, str, Mapping[str, Any]], None]:
    def hook(d: Draft, _stage: str, context: Mapping[str, Any]) -> None:
        _run(d, stage, context)

    return hook


# ``pre_night`` (the day's draw first) and ``move`` (鬼王再世's memory, kept whatever the day's
# events) have hooks of their own below.
for _stage in HOOK_STAGES:
    if _stage not in ("pre_night", "move"):
        register_hook(f"events.{_stage}")(_dispatcher(_stage))


@register_hook("events.pre_night")
def _day_opens(d: Draft, stage: str, context: Mapping[str, Any]) -> None:
    """Today's events are settled and announced, then those acting before the night act."""
    rules = rules_of(d.rs)
    if rules is None:
        return
    happened = _happened(d.flags)
    chosen, extra = _choose(d, rules, happened)
    keys = chosen + extra
    f = d.wflags()
    f.pop("event_plan", None)
    f.pop("vote_reveal", None)  # yesterday's 先进的记票制 / 如火如荼 ended with its tally
    for key in keys:
        happened.setdefault(key, d.day)
    f["events_happened"] = happened
    f["events_today"] = {"day": d.day, "keys": keys}
    d.directors(
        "events_today", {"day": d.day, "events": keys, "day_event": chosen[0] if chosen else None}
    )
    for key in keys:
        spec = rules.get(key)
        assert spec is not None  # noqa: S101  (chosen among the ruleset's events)
        d.public(
            "day_event",
            {
                "day": d.day,
                "event": key,
                "name": spec.name,
                "text": f"【今日事件】{spec.name}" + (f"：{spec.text}" if spec.text else ""),
            },
        )
    _run(d, "pre_night", context)


# --- what an event needs to take effect (the ``needs`` of the data) -----------------------------


@need("vote")
def _vote_that_day(view: Outlook, spec: EventSpec) -> bool:
    """如火如荼 / 先进的记票制 reveal the day's vote: there is one from ``vote.from_day``."""
    return view.day >= view.d.rs.vote_from_day


@need("shrink")
def _shrink_that_night(view: Outlook, spec: EventSpec) -> bool:
    """凛冬已至 takes the place of the day's regular shrink: not on a day without one (day 1:
    第一天 不缩圈; nor once the final place stands alone), RULINGS 24."""
    forced, _, picks = shrink_plan(view.d, view.day, leaving=view.leaving)
    return bool(forced) or picks > 0


@need("hidden_shrink")
def _hideable_shrink(view: Outlook, spec: EventSpec) -> bool:
    """黑暗侵袭 hides one of the night's places, never the safe zone (its night is public): the
    regular shrink must draw another place that night."""
    return shrink_plan(view.d, view.day, leaving=view.leaving)[2] > 0


@need("ground_items")
def _items_on_the_ground(view: Outlook, spec: EventSpec) -> bool:
    """狂风暴雨 blows the ground clear: something must lie there."""
    places = view.d.places
    return any(places[p].items for p in view.on_map())


@need("new_items")
def _items_left_to_make(view: Outlook, spec: EventSpec) -> bool:
    """意料之外的剧情 hands out items of names not yet in the game: one must be left."""
    rs = view.d.rs
    return any(view.d.unused_keys(rs.selector_kinds(x)) for x in spec.params["items"])


# --- the director --------------------------------------------------------------------------------


def event_choose(
    state: GameState, pick: str | None, veto: Sequence[str], rng: random.Random
) -> Result:
    """The director's say over the next day's event: ``pick`` one of the events allowed that day,
    or ``veto`` some (the draw skips them). Consumed by the next day open; neither (pick None,
    no veto) cancels an earlier choice. A fixed day's event cannot be changed."""
    d = director_draft(state, rng)
    rules = rules_of(d.rs)
    if rules is None:
        raise UnknownEvent(event=pick)
    day = d.day + 1
    fixed = fixed_event(state, day)
    if fixed is not None:
        raise EventFixedDay(day=day, event=fixed.key)
    pool = _effective(rules, _happened(d.flags), _tomorrow(d))
    vetoed = sorted(set(veto))
    for key in [*vetoed, *([pick] if pick is not None else [])]:
        if rules.get(key) is None:
            raise UnknownEvent(event=key)
        if key not in pool:
            raise EventNotAllowed(event=key, day=day)
    if pick is not None and pick in vetoed:
        raise InvalidInput(
            "不能同时指定并否决同一个事件。", message_en="An event cannot be picked and vetoed."
        )
    f = d.wflags()
    if pick is None and not vetoed:
        f.pop("event_plan", None)
    else:
        f["event_plan"] = {"day": day, "pick": pick, "veto": vetoed}
    d.directors("intervention", {"op": "event_choose", "day": day, "pick": pick, "veto": vetoed})
    return d.finish(), d.events


# --- shared pieces -------------------------------------------------------------------------------


def _players(d: Draft) -> list[Character]:
    """The living players (never an NPC: the events speak of players)."""
    return [c for c in d.chars.values() if c.alive and not c.npc]


def _tell(d: Draft, spec: EventSpec, cid: int, text: str) -> None:
    c = d.chars[cid]
    d.to(cid, "event_effect", {"event": spec.name, "hp": c.hp, "mp": c.mp, "text": text})


def _lose(d: Draft, spec: EventSpec, cid: int, step: int, *, hp: int = 0, mp: int = 0) -> None:
    """An event's loss of HP and/or MP; HP at 0 kills (特殊事件, items drop, one step per
    event: RULINGS 12). Armor does nothing against it."""
    w = d.wc(cid)
    w.hp -= hp
    w.mp = max(0, w.mp - mp)
    parts = ([f"生命值 -{hp}"] if hp else []) + ([f"体力 -{mp}"] if mp else [])
    d.to(
        cid,
        "event_effect",
        {
            "event": spec.name,
            "hp": max(w.hp, 0),
            "mp": w.mp,
            "text": f"【{spec.name}】你{'，'.join(parts)}（生命 {max(w.hp, 0)}，体力 {w.mp}）。",
        },
    )
    d.directors(
        "event_effect",
        {"event": spec.key, "character": cid, "hp": -hp, "mp": -mp, "after": [w.hp, w.mp]},
    )
    if w.hp <= 0:
        kill_by_event(d, cid, step=step)


def _gain(d: Draft, spec: EventSpec, cid: int, *, hp: int, mp: int) -> None:
    w = d.wc(cid)
    w.hp = min(d.rs.hp_max, w.hp + hp)
    w.mp = min(d.rs.mp_max, w.mp + mp)
    text = f"【{spec.name}】你的生命值和体力各 +{hp}（生命 {w.hp}，体力 {w.mp}）。"
    d.to(cid, "event_effect", {"event": spec.name, "hp": w.hp, "mp": w.mp, "text": text})
    d.directors(
        "event_effect",
        {"event": spec.key, "character": cid, "hp": hp, "mp": mp, "after": [w.hp, w.mp]},
    )


def _grant_all(d: Draft, spec: EventSpec, selector: str) -> None:
    for c in _players(d):
        grant(d, c.id, selector, spec.key)


def _is_player(d: Draft, cid: int | None) -> bool:
    return cid is not None and cid in d.chars and not d.chars[cid].npc


def _killed_by_player(context: Mapping[str, Any], d: Draft) -> int | None:
    """The living player who killed another player (attack, splash or bomb), else None."""
    victim, killer = context["character"], context["killer"]
    if killer == victim or not _is_player(d, killer) or not _is_player(d, victim):
        return None
    return int(killer) if d.chars[killer].alive else None


def _record_kill(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    killer = _killed_by_player(context, d)
    if killer is None:
        return
    kills = d.flags.get("kills")
    killers = list(kills["killers"]) if kills and kills["day"] == d.day else []
    if killer not in killers:
        d.wflags()["kills"] = {"day": d.day, "killers": [*killers, killer]}


def _killers(d: Draft) -> list[int]:
    kills = d.flags.get("kills")
    return list(kills["killers"]) if kills and kills["day"] == d.day else []


def _name_of(d: Draft, selector: str) -> str:
    kinds = d.rs.selector_kinds(selector)
    return kinds[0].name if len(kinds) == 1 else selector


def _places_left(d: Draft) -> list[str]:
    return [p.name for p in d.places.values() if not p.gone and p.open]


# --- 臭名昭著的恶棍 / 鬼王再世 -------------------------------------------------------------------

event_type("villain", title="text", damage="int")


@on("villain", "pre_night")
def _villain_named(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """A random living player, never one who held the title yesterday (连续两日不会...)."""
    title = spec.params["title"]
    before = d.flags.get("villain")
    barred = set(before["holders"]) if before and before["day"] == d.day - 1 else set()
    pool = [c.id for c in _players(d) if c.id not in barred]
    if not pool:
        d.wflags()["villain"] = {"day": d.day, "character": None, "holders": []}
        text = f"今日没有玩家可以成为【{title}】。"
        d.public("villain", {"day": d.day, "character": None, "title": title, "text": text})
        return
    cid = d.rng.choice(pool)
    d.wflags()["villain"] = {"day": d.day, "character": cid, "holders": [cid]}
    name = d.chars[cid].name
    d.public(
        "villain",
        {
            "day": d.day,
            "character": cid,
            "name": name,
            "title": title,
            "text": f"今日的【{title}】是 {name}。",
        },
    )


@on("villain", "death")
def _villain_passes(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """Its killer becomes the new villain at once, announced in real time; the old one loses the
    title (one villain at a time). Dying otherwise ends the title for the day."""
    v = d.flags.get("villain")
    if not v or v["day"] != d.day or v["character"] != context["character"]:
        return
    title = spec.params["title"]
    killer = context["killer"]
    if (
        killer is None
        or killer == context["character"]
        or not _is_player(d, killer)
        or not d.chars[killer].alive
    ):
        d.wflags()["villain"] = {**v, "character": None}
        d.directors("villain_gone", {"day": d.day, "character": context["character"]})
        return
    d.wflags()["villain"] = {
        "day": d.day,
        "character": killer,
        "holders": [*v["holders"], killer],
    }
    name = d.chars[killer].name
    d.public(
        "villain",
        {
            "day": d.day,
            "character": killer,
            "name": name,
            "title": title,
            "inherited": True,
            "text": f"【{title}】被击杀，击杀者 {name} 成为新的【{title}】！",
        },
    )


@on("villain", "post_night")
def _villain_strikes(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """Everyone else spending the night at the villain's place loses 20 HP; a villain in a
    special zone (252: 无限城) strikes the place it came from instead. The title ends here."""
    v = d.flags.get("villain")
    if not v or v["day"] != d.day or v["character"] is None:
        return
    d.wflags()["villain"] = {**v, "character": None}
    villain = d.chars[v["character"]]
    place = villain.place
    if place in {z.place for z in d.rs.special_zones}:
        place = villain.flags.get("entered_from")
    if not villain.alive or place is None or d.places[place].gone:
        return
    victims = [c.id for c in d.at_place(place) if not c.npc and c.id != villain.id]
    d.directors(
        "villain_struck",
        {"day": d.day, "villain": villain.id, "place": place, "victims": victims},
    )
    step = d.next_step()
    for cid in victims:
        _lose(d, spec, cid, step, hp=spec.params["damage"])


@register_hook("events.move")
def _remember_entry(d: Draft, stage: str, context: Mapping[str, Any]) -> None:
    """鬼王再世: a villain in 无限城 strikes the last place it was in before going there."""
    zones = d.rs.special_zones  # on every move of the night: no set built, the usual move is out
    place, origin = context["place"], context["origin"]
    if any(z.place == place for z in zones) and not any(z.place == origin for z in zones):
        d.wc(context["actor"]).flags["entered_from"] = origin


# --- 迷你战争 ------------------------------------------------------------------------------------

event_type("mini_war", item="selector", damage="int", kill_hp="int", kill_mp="int")


@on("mini_war", "pre_night")
def _mini_war_supplies(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    _grant_all(d, spec, spec.params["item"])


on("mini_war", "death")(_record_kill)


@on("mini_war", "post_night")
def _mini_war_ends(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """Killers heal first (+20/+20, capped), then everyone who acted takes 10."""
    p = spec.params
    for cid in _killers(d):
        if d.chars[cid].alive:
            _gain(d, spec, cid, hp=p["kill_hp"], mp=p["kill_mp"])
    step = d.next_step()
    for c in _players(d):
        if c.mode == MODE_ACT:
            _lose(d, spec, c.id, step, hp=p["damage"])


# --- 狂风暴雨 ------------------------------------------------------------------------------------

event_type("storm")


@on("storm", "pre_night")
def _storm(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """Every item lying on the ground is blown away (before the day's airdrop)."""
    for p in list(d.places.values()):
        if p.items and not p.gone:
            d.vanish(list(p.items), spec.name)
            d.wp(p.name).items = []


# --- 战利品？！ ----------------------------------------------------------------------------------

event_type("payday", item="selector")


@on("payday", "pre_night")
def _payday(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    _grant_all(d, spec, spec.params["item"])


# --- 意料之外的剧情 ------------------------------------------------------------------------------

event_type("twist", fraction="fraction", items="selectors")


@on("twist", "pre_night")
def _twist(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """One player of the power ranking's bottom 10% gets an orange weapon and armor for today;
    who is not announced (the player learns it from its own item_granted)."""
    bottom = power_bottom(d.finish(), spec.params["fraction"])
    if not bottom:
        return
    cid = d.rng.choice(bottom)
    made: list[int] = []
    for selector in spec.params["items"]:
        try:
            made.append(grant(d, cid, selector, spec.key))
        except TierExhausted:
            d.directors("event_item_exhausted", {"event": spec.key, "selector": selector})
    d.wflags()["twist"] = {"day": d.day, "character": cid, "items": made}
    d.directors("twist", {"day": d.day, "character": cid, "bottom": bottom, "items": made})


@on("twist", "post_night")
def _twist_ends(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """The two items are destroyed wherever they are once the night's actions are over."""
    twist = d.flags.get("twist")
    if not twist or twist["day"] != d.day:
        return
    gone: list[int] = []
    for iid in twist["items"]:
        if iid in d.gone:
            continue  # broke in use
        where, at = d.locate(iid)
        info = d.describe_item(iid)
        if where == "character":
            d.take_from(at, iid)
            d.to(at, "item_vanished", {"item": info, "text": f"【{info['name']}】消失了。"})
        elif where == "place":
            d.wp(at).items.remove(iid)
        else:  # sold to the market (a lot, a stall): the directors are told, the market keeps it
            d.directors("event_item_in_market", {"event": spec.key, "item": iid, "at": at})
            continue
        gone.append(iid)
    d.vanish(gone, spec.name)


# --- 先进的记票制 / 如火如荼 ---------------------------------------------------------------------

event_type("vote_top3", reveal="int")


@on("vote_top3", "pre_night")
def _vote_top3(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    f = d.wflags()
    f["vote_reveal"] = spec.params["reveal"]  # read by the vote tally at the day's close
    f["rest_disabled"] = True  # read by tomorrow's settlement


# --- 永不停歇的电波 / 悬赏令 ---------------------------------------------------------------------

event_type("broadcast", bounties="int", rewards="selectors")
event_type("bounty", targets="int", rewards="selectors")


def _post_bounties(d: Draft, spec: EventSpec, count: int) -> list[dict[str, Any]]:
    players = [c.id for c in _players(d)]
    targets = d.rng.sample(players, min(count, len(players)))
    d.wflags()["bounty"] = {"day": d.day, "event": spec.key, "targets": targets}
    return [{"character": t, "name": d.chars[t].name} for t in targets]


def _offer(d: Draft, spec: EventSpec, cid: int, from_day: int) -> None:
    """A reward the player chooses later (action ``claim_reward``), once per event and day."""
    tag = f"{spec.key}:{d.day}"
    c = d.chars[cid]
    if tag in c.flags.get("reward_tags", ()):
        return
    options = list(spec.params["rewards"])
    w = d.wc(cid)
    offer = {"event": spec.key, "name": spec.name, "from_day": from_day, "options": options}
    w.flags["reward_offers"] = [*w.flags.get("reward_offers", ()), offer]
    w.flags["reward_tags"] = [*w.flags.get("reward_tags", ()), tag]
    names = "或".join(f"【{_name_of(d, o)}】" for o in options)
    when = "现在" if from_day <= d.day else f"第 {from_day} 天起"
    d.to(
        cid,
        "reward_offered",
        {
            "event": spec.name,
            "options": [{"kind": o, "name": _name_of(d, o)} for o in options],
            "from_day": from_day,
            "text": f"【{spec.name}】你获得了奖励：{when}可以领取{names}（二选一）。",
        },
    )
    d.directors("reward_offered", {"event": spec.key, "character": cid, "from_day": from_day})


def _bounty_on(d: Draft, cid: int) -> bool:
    b = d.flags.get("bounty")
    return b is not None and b["day"] == d.day and cid in b["targets"]


@on("broadcast", "pre_night")
def _broadcast(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """Every place's ground items and players are published, and five living players get a
    bounty on their heads."""
    bounties = _post_bounties(d, spec, spec.params["bounties"])
    places = []
    for name in d.rs.places:
        p = d.places[name]
        if p.gone:
            continue
        items = [d.kind(i).name for i in p.items]
        players = [c.name for c in d.at_place(name) if not c.npc]
        if items or players:
            places.append({"place": name, "items": items, "characters": players})
    lines = [
        f"【{x['place']}】"
        + "、".join(x["characters"] or ["无人"])
        + "；道具："
        + "、".join(x["items"] or ["无"])
        for x in places
    ]
    wanted = "、".join(b["name"] for b in bounties)
    d.public(
        "broadcast",
        {
            "day": d.day,
            "places": places,
            "bounties": bounties,
            "text": f"【{spec.name}】悬赏：{wanted}\n" + "\n".join(lines),
        },
    )


@on("broadcast", "airdrop")
def _broadcast_airdrop(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """Today's airdrop is part of what the broadcast publishes: its places too."""
    landed = [{"name": d.kind(iid).name, "place": place} for iid, place in context["items"]]
    text = "、".join(f"【{x['name']}】在{x['place']}" for x in landed)
    d.public("broadcast", {"day": d.day, "airdrop": landed, "text": f"【{spec.name}】空投：{text}"})


@on("broadcast", "death")
def _broadcast_kill(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    killer = _killed_by_player(context, d)
    if killer is not None and _bounty_on(d, context["character"]):
        _offer(d, spec, killer, d.day)


@on("bounty", "pre_night")
def _bounty(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    bounties = _post_bounties(d, spec, spec.params["targets"])
    wanted = "、".join(b["name"] for b in bounties)
    d.public(
        "bounty",
        {"day": d.day, "bounties": bounties, "text": f"【{spec.name}】悬赏：{wanted}"},
    )


@on("bounty", "hit")
def _bounty_hit(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """An attack that struck a bountied player (0 damage after armor still struck) earns the
    attacker a reward to claim from the next day."""
    attacker, target = context["attacker"], context["target"]
    if attacker != target and _is_player(d, attacker) and _bounty_on(d, target):
        _offer(d, spec, attacker, d.day + 1)


@dataclass(frozen=True, slots=True)
class ClaimReward(Action):
    """领取 a bounty's reward: ``target_kind`` is one of the offered items (二选一)."""

    kind: ClassVar[str] = "claim_reward"
    target_kind: str


register_action_type(ClaimReward)


def claim_reward(d: Draft, a: ClaimReward, now: float) -> None:
    if d.phase == OVER:
        raise GameOver()
    c = living(d, a.actor)
    ready = [o for o in c.flags.get("reward_offers", ()) if o["from_day"] <= d.day]
    if not ready:
        raise NoRewardOffer()
    offer = next((o for o in ready if a.target_kind in o["options"]), None)
    if offer is None:
        raise NotAnOption(options=ready[0]["options"])
    offers = list(c.flags["reward_offers"])
    offers.remove(offer)
    d.wc(a.actor).flags["reward_offers"] = offers
    iid = grant(d, a.actor, a.target_kind, f"{offer['event']}_reward")
    d.directors(
        "reward_claimed", {"event": offer["event"], "character": a.actor, "item": iid}, a.actor
    )


register_action(ClaimReward, claim_reward)


# --- 人以群分 / 柱弦榜 ---------------------------------------------------------------------------

event_type("power_top", top="int")


@on("power_top", "pre_night")
def _power_top(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """The power ranking's top five before the night (ties whole), names and ranks only."""
    rows = [
        {"rank": r["rank"], "character": r["character"], "name": r["name"]}
        for r in power_top(d.finish(), spec.params["top"])
    ]
    text = "；".join(f"第{r['rank']}名 {r['name']}" for r in rows)
    d.public(
        "power_ranking",
        {"day": d.day, "event": spec.name, "rows": rows, "text": f"【{spec.name}】{text}"},
    )


# --- 伊利湖的入侵 / 凛冬已至 ---------------------------------------------------------------------

event_type("erie", alone_hp="int", pair_mp="int")
event_type("winter", alone_hp="int", pair_mp="int")


def _huddle(d: Draft, spec: EventSpec) -> list[str]:
    """Alone overnight −20 HP, two −20 MP each, three or more nothing; returns the places
    nobody spent the night in."""
    empty: list[str] = []
    step = d.next_step()
    for name in _places_left(d):
        here = [c.id for c in d.at_place(name) if not c.npc]
        if not here:
            empty.append(name)
        elif len(here) == 1:
            _lose(d, spec, here[0], step, hp=spec.params["alone_hp"])
        elif len(here) == 2:
            for cid in here:
                _lose(d, spec, cid, step, mp=spec.params["pair_mp"])
    return empty


@on("erie", "post_night")
def _erie(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """The places nobody spent the night in are cleared of their items."""
    for name in _huddle(d, spec):
        items = list(d.places[name].items)
        if items:
            d.vanish(items, f"{spec.name} {name}")
            d.wp(name).items = []


@on("winter", "pre_night")
def _winter_no_shrink(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    d.wflags()["no_shrink"] = True  # read by today's shrink draw


@on("winter", "post_night")
def _winter(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """The places nobody spent the night in vanish in tonight's shrink (never the safe zone
    before its fixed night, nor the final place)."""
    keep = {d.rs.safe_zone, d.rs.final_place}
    empty = {p for p in _huddle(d, spec) if p not in keep}
    tonight = set(d.shrink_tonight) | empty
    d.shrink_tonight = tuple(p for p in d.rs.places if p in tonight)
    d.directors("winter_shrink", {"day": d.day, "places": list(d.shrink_tonight)})


# --- 嗡嗡特攻队 ----------------------------------------------------------------------------------

event_type("bees", damage="int")


@on("bees", "post_night")
def _bees(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """A random place not vanishing tonight gets a nest: everyone spending the night there
    takes 20."""
    pool = [p for p in _places_left(d) if p not in d.shrink_tonight]
    if not pool:
        return
    place = d.rng.choice(pool)
    d.public(
        "nest",
        {"day": d.day, "place": place, "text": f"在{place}附近发现了新的奇异巢穴！"},
    )
    step = d.next_step()
    for c in d.at_place(place):
        if not c.npc:
            _lose(d, spec, c.id, step, hp=spec.params["damage"])


# --- 酷暑难耐 / 致幻迷雾 / 黑暗侵袭 --------------------------------------------------------------

event_type("heatwave", mp="int")
event_type("hallucination")
event_type("darkness", hidden="int")


@on("heatwave", "pre_night")
def _heatwave(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    step = d.next_step()
    for c in _players(d):
        _lose(d, spec, c.id, step, mp=spec.params["mp"])


@on("hallucination", "pre_night")
def _hallucination(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """Every player's HP and MP swap (after the settlement, so MP is at least 40 here)."""
    step = d.next_step()
    for c in _players(d):
        w = d.wc(c.id)
        w.hp, w.mp = min(d.rs.hp_max, c.mp), min(d.rs.mp_max, c.hp)
        _tell(d, spec, c.id, f"【{spec.name}】你的生命值与体力互换（生命 {w.hp}，体力 {w.mp}）。")
        d.directors("event_effect", {"event": spec.key, "character": c.id, "swap": [c.hp, c.mp]})
        if w.hp <= 0:
            kill_by_event(d, c.id, step=step)


@on("darkness", "pre_night")
def _darkness(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    d.wflags()["shrink_hidden_count"] = spec.params["hidden"]  # read by today's shrink draw


# --- 百鬼夜行 ------------------------------------------------------------------------------------


def _parade_due(d: Draft, spec: EventSpec) -> bool:
    """存活人数不及一半: fewer living players than the given share of all players."""
    players = [c for c in d.chars.values() if not c.npc]
    alive = sum(1 for c in players if c.alive)
    return alive < Fraction(spec.params["below"]).limit_denominator() * len(players)


event_type("night_parade", condition=_parade_due, hp="int", mp="int", below="fraction")


@on("night_parade", "pre_night")
def _parade(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """Every player out of the game returns with 50 HP and 100 MP, unspawned (it chooses its
    place tonight, for free); the drowned (and the red-carded) cannot."""
    back: list[dict[str, Any]] = []
    for cid, (_, death) in sorted(counted_deaths(d.chars, d.deaths).items()):
        if death.cause in (CAUSE_DROWNED, CAUSE_RED_CARD):
            continue
        w = d.wc(cid)
        w.alive, w.hp, w.mp = True, spec.params["hp"], spec.params["mp"]
        w.place, w.mode, w.rest_moves, w.bleeding, w.found = None, MODE_NONE, 0, 0, None
        w.flags["revenant"] = d.day
        back.append({"character": cid, "name": w.name})
        _tell(
            d,
            spec,
            cid,
            f"【{spec.name}】你暂时回到了场上（生命 {w.hp}，体力 {w.mp}）：今晚请先出生，"
            "当夜成功击杀其他任意角色即可复活，否则将重回出局。",
        )
    d.public(
        "night_parade",
        {
            "day": d.day,
            "revenants": back,
            "text": f"【{spec.name}】出局角色暂时回到了场上："
            + ("、".join(b["name"] for b in back) or "无"),
        },
    )


@on("night_parade", "death")
def _parade_death(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    victim = context["character"]
    killer = _killed_by_player(context, d)
    if killer is not None and "revenant" in d.chars[killer].flags:
        w = d.wc(killer)
        del w.flags["revenant"]
        _tell(d, spec, killer, f"【{spec.name}】你成功击杀了一名角色，复活了！")
        d.directors("revenant_revived", {"day": d.day, "character": killer})
    if "revenant" in d.chars[victim].flags:
        # Killed before it killed: it goes back to its earlier death and rank, not this one.
        index = max(i for i, x in enumerate(d.deaths) if x.character == victim)
        w = d.wc(victim)
        del w.flags["revenant"]
        w.flags["void_deaths"] = [*w.flags.get("void_deaths", ()), index]
        d.directors("revenant_fell", {"day": d.day, "character": victim, "death": index})


@on("night_parade", "post_night")
def _parade_ends(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    """Revenants that killed nobody go back to their earlier death; what they picked up falls
    where they stand."""
    returned: list[dict[str, Any]] = []
    for c in list(d.chars.values()):
        if not c.alive or "revenant" not in c.flags:
            continue
        held, place = c.held, c.place
        w = d.wc(c.id)
        w.hands, w.pack, w.alive, w.hp, w.bleeding, w.found = [], [], False, 0, 0, None
        del w.flags["revenant"]
        if place is not None and not d.places[place].gone:
            d.drop_at(place, held)
        else:
            d.vanish(held, spec.name)
        returned.append({"character": c.id, "name": c.name})
        _tell(d, spec, c.id, f"【{spec.name}】你未能击杀任何角色，重回出局。")
        d.directors("revenant_returned", {"day": d.day, "character": c.id, "dropped": held})
    names = "、".join(r["name"] for r in returned) or "无"
    d.public(
        "night_parade_over",
        {"day": d.day, "returned": returned, "text": f"【{spec.name}】结束，重回出局：{names}"},
    )
