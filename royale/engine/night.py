"""Transitions the scheduler calls: night open, night close, day open (RULINGS 8, 9, 18, 19).

Night close: post-night hooks → bleeding → shrink → drowning → victory check.
Day open: daily settlement (静养 / +40) → pre-night hooks → next shrink list and the morning report.
Each step is logged (a DIRECTORS ``stage`` event), so the order is visible in the log.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import Any

from games.engine.errors import InvalidInput, WrongPhase

from .combat import die_dropping
from .common import living, phase_is
from .draft import Draft, open_draft
from .economy import hold_for_auction
from .errors import GameOver
from .hooks import after_death, notify, run_stage
from .items import grant, new_unused
from .state import (
    CAUSE_BLEEDING,
    CAUSE_DROWNED,
    CAUSE_RED_CARD,
    CAUSE_SHRINK,
    CLOSED,
    DAY,
    DUSK,
    LATE,
    MODE_NONE,
    MODE_REST,
    NIGHT,
    OVER,
    SETUP,
    Death,
    GameState,
)

Result = tuple[GameState, list[Any]]


# --- day close, night open, night end ----------------------------------------------------------


def day_close(state: GameState, rng: random.Random) -> Result:
    """End of the day: the day-close hooks run (vote tally and reward, shop, auction)."""
    d = open_draft(state, rng)
    phase_is(d, DAY)
    _day_close(d)
    return d.finish(), d.events


def _day_close(d: Draft) -> None:
    run_stage(d, "day_close")
    d.phase = DUSK
    d.public("day_closed", {"day": d.day})


def night_open(state: GameState, rng: random.Random) -> Result:
    """The action window opens: a fresh night for everyone (from ``day``, closes the day first)."""
    d = open_draft(state, rng)
    if d.phase == DAY:
        _day_close(d)
    phase_is(d, DUSK)
    d.phase = NIGHT
    for c in list(d.chars.values()):
        if c.alive and (c.mode != MODE_NONE or c.rest_moves or c.found is not None):
            w = d.wc(c.id)
            w.mode, w.rest_moves, w.found = MODE_NONE, 0, None
    d.public("night_opened", {"day": d.day, "vanishing": _announced_shrink(d)})
    run_stage(d, "night_open")
    return d.finish(), d.events


def night_end(state: GameState, rng: random.Random) -> Result:
    """The action window closes (usually 21:25): actions are refused until the night close."""
    d = open_draft(state, rng)
    phase_is(d, NIGHT)
    d.phase = LATE
    d.public("night_ended", {"day": d.day})
    return d.finish(), d.events


# --- night close -----------------------------------------------------------------------------


def _bleeding(d: Draft) -> None:
    step = d.next_step()
    for c in list(d.chars.values()):
        if c.alive and c.bleeding:
            w = d.wc(c.id)
            w.hp -= c.bleeding
            d.to(c.id, "bleeding", {"damage": c.bleeding, "hp": max(w.hp, 0)})
            d.directors("bleeding", {"character": c.id, "damage": c.bleeding, "hp": w.hp})
            if w.hp <= 0:
                die_dropping(d, c.id, CAUSE_BLEEDING, step)
    d.directors("stage", {"stage": "bleeding", "day": d.day})


def _shrink(d: Draft) -> None:
    step = d.next_step()
    # The final place never vanishes, whatever a hook put on tonight's list (RULINGS 23).
    names = [p for p in d.shrink_tonight if not d.places[p].gone and p != d.rs.final_place]
    safe = d.rs.safe_zone
    if d.day >= d.rs.safe_zone_night and not d.places[safe].gone and safe not in names:
        names.append(safe)  # the safe zone goes on its fixed night whatever a hook did to the list
    for name in names:
        for c in d.at_place(name):
            _die_vanishing(d, c.id, CAUSE_SHRINK, step, f"shrink of {name}", place=name)
        p = d.wp(name)
        d.vanish(hold_for_auction(d, list(p.items)), f"shrink of {name}")
        p.items = []
        p.gone = True
        p.gone_night = d.day
    d.shrink_tonight = ()
    if names:
        d.public("places_vanished", {"places": names, "day": d.day})
    d.directors("stage", {"stage": "shrink", "day": d.day, "places": names})


def _drowning(d: Draft) -> None:
    if d.day == d.rs.drown_after_night:
        for c in list(d.chars.values()):
            if c.alive and not c.npc and c.place is None:
                # step 0: drowned characters rank before every other death (see Draft.kill)
                _die_vanishing(d, c.id, CAUSE_DROWNED, 0, "drowned")
    d.directors("stage", {"stage": "drowning", "day": d.day})


def _die_vanishing(
    d: Draft, cid: int, cause: str, step: int, why: str, *, place: str | None = None
) -> None:
    """Death by shrink or drowning: the character's items vanish (no place to drop them), except
    what the auction house takes from a shrink (缩圈消失的 GPS/电话 ...)."""
    held = d.kill(cid, cause, step)
    d.vanish(hold_for_auction(d, held) if cause == CAUSE_SHRINK else held, why)
    where = {} if place is None else {"place": place}
    d.directors("death", {"character": cid, "cause": cause, **where, "step": step})
    after_death(d, cid, cause, None)


def _victory(d: Draft) -> None:
    alive = d.players_alive()
    if len(alive) <= 1:
        d.phase = OVER
        d.winner = alive[0] if alive else last_alone(d.chars, d.deaths)
        d.public("game_over", {"winner": d.winner, "ranking": ranking_rows(d.chars, d.deaths)})
    d.directors("stage", {"stage": "victory_check", "day": d.day, "alive": len(alive)})


def last_alone(chars: Any, deaths: Any) -> int | None:
    """With nobody left: the player whose death was the last one, if it died alone (RULINGS 29).
    Only several players dying at once as the last ones (one settlement step) is 导演获胜."""
    counted = [x for _, x in counted_deaths(chars, deaths).values()]
    if not counted:
        return None
    last = max(x.step for x in counted)
    group = [x.character for x in counted if x.step == last]
    return group[0] if len(group) == 1 else None


def end_if_decided(d: Draft) -> None:
    """After a death outside the night close (red card, director): with at most one player left,
    the victory check runs at once."""
    if len(d.players_alive()) <= 1:
        _victory(d)


def vote_weight(d: Draft, cid: int) -> int:
    return d.rs.vote_base + sum(d.kind(i).vote for i in d.chars[cid].held)


def night_close(state: GameState, rng: random.Random) -> Result:
    d = open_draft(state, rng)
    if d.phase == NIGHT:
        d.phase = LATE  # a missed night_end is implied by the close
    phase_is(d, LATE)
    d.phase = CLOSED
    run_stage(d, "post_night")
    _bleeding(d)
    _shrink(d)
    _drowning(d)
    _victory(d)
    # Vote weight counts the items held at the end of the night (RULINGS 13).
    weights = {str(cid): vote_weight(d, cid) for cid in d.players_alive()}
    d.wflags()["vote_weights"] = weights
    d.directors("vote_weights", {"day": d.day, "weights": weights})
    d.public("night_closed", {"day": d.day})
    return d.finish(), d.events


# --- day open --------------------------------------------------------------------------------


def _settle(d: Draft) -> None:
    rest_off = bool(d.flags.get("rest_disabled"))
    for c in list(d.chars.values()):
        if not c.alive:
            continue
        w = d.wc(c.id)
        if c.mode == MODE_REST and not rest_off:
            w.mp = max(w.mp, min(d.rs.mp_max, d.rs.rest_mp_to))
            w.hp = min(d.rs.hp_max, w.hp + d.rs.rest_hp)
            how = "rest"
        else:
            w.mp = min(d.rs.mp_max, w.mp + d.rs.daily_mp)
            how = "daily"
        d.to(c.id, "recovered", {"how": how, "hp": w.hp, "mp": w.mp})
    if rest_off:
        d.wflags().pop("rest_disabled", None)
    d.directors("stage", {"stage": "settlement", "day": d.day})


def shrink_plan(
    d: Draft, day: int, *, leaving: Collection[str] = (), regular: bool = True
) -> tuple[list[str], list[str], int]:
    """What the shrink of ``day`` takes, drawn or not yet: ``(forced, candidates, picks)`` — the
    safe zone on its night, the places the draw may take, and how many it takes among them.

    ``leaving`` are places to count as gone already (tomorrow's outlook: tonight's list);
    ``regular=False`` is a day without the regular shrink (凛冬已至). The final place is never a
    candidate (RULINGS 23: 无限城 is the 决赛地点 and stays to the end), so when the schedule asks
    for more places than are left, fewer are drawn; a ruleset without a final place keeps its
    last place standing the same way (RULINGS 21)."""
    rs = d.rs
    count = rs.shrink_schedule[day - 1] if regular and day - 1 < len(rs.shrink_schedule) else 0
    on_map = [p.name for p in d.places.values() if not p.gone and p.name not in leaving]
    forced = [rs.safe_zone] if day == rs.safe_zone_night and rs.safe_zone in on_map else []
    candidates = [p for p in on_map if p not in (rs.safe_zone, rs.final_place)]
    # With the final place on the map every candidate may go; without one, one place stays.
    room = len(candidates) if rs.final_place in on_map else len(on_map) - len(forced) - 1
    return forced, candidates, max(0, min(count - len(forced), len(candidates), room))


def draw_shrink(d: Draft) -> tuple[str, ...]:
    """The places vanishing at the end of tonight: the schedule's count, the safe zone on its
    night (taking one of the slots), never the final place (:func:`shrink_plan`)."""
    # 凛冬已至: no regular shrink today (a post-night hook adds its own places).
    forced, candidates, picks = shrink_plan(d, d.day, regular=not d.flags.get("no_shrink"))
    chosen = set(forced + d.rng.sample(candidates, picks))
    return tuple(p for p in d.rs.places if p in chosen)


def _announced_shrink(d: Draft) -> list[str]:
    hidden = set(d.flags.get("shrink_hidden", ()))
    return [p for p in d.shrink_tonight if p not in hidden]


def day_open(state: GameState, rng: random.Random) -> Result:
    d = open_draft(state, rng)
    if d.phase == OVER:
        raise GameOver()
    if d.phase not in (SETUP, CLOSED):
        raise WrongPhase(phase=d.phase, needed=CLOSED)
    previous = d.day
    d.day += 1
    d.phase = DAY
    for stale in ("shrink_hidden", "shrink_hidden_count", "no_shrink"):
        if stale in d.flags:  # yesterday's event flags (黑暗侵袭, 凛冬已至) end with the night
            d.wflags().pop(stale)
    for c in list(d.chars.values()):
        if c.found is not None:  # yesterday's search result is not shown on the next day
            d.wc(c.id).found = None
    if previous >= 1:
        _settle(d)
    run_stage(d, "pre_night")
    for z in d.rs.special_zones:
        is_open = z.opens_day <= d.day and (z.closes_day is None or d.day <= z.closes_day)
        if d.places[z.place].open != is_open and not d.places[z.place].gone:
            d.wp(z.place).open = is_open
            d.public("zone_open" if is_open else "zone_closed", {"place": z.place})
    d.shrink_tonight = draw_shrink(d)
    hide = int(d.flags.get("shrink_hidden_count", 0))
    if hide:
        # 黑暗侵袭: that many of tonight's places are not announced (they still vanish).
        pool = [p for p in d.shrink_tonight if p != d.rs.safe_zone]  # its night is public
        hidden = d.rng.sample(pool, min(hide, len(pool)))
        d.wflags()["shrink_hidden"] = hidden
    d.directors("shrink_drawn", {"day": d.day, "places": list(d.shrink_tonight)})
    run_stage(d, "shrink_drawn")
    deaths = [
        {"character": x.character, "name": d.chars[x.character].name, "cause": x.cause}
        for x in d.deaths
        if x.day == previous and not d.chars[x.character].npc
    ]
    d.public(
        "morning_report",
        {
            "day": d.day,
            "deaths": deaths,
            "vanishing": _announced_shrink(d),
            "weather": d.rs.weather,
        },
    )
    return d.finish(), d.events


# --- ranking ---------------------------------------------------------------------------------


def counted_deaths(chars: Any, deaths: Any) -> dict[int, tuple[int, Death]]:
    """The death that ranks each player out of the game, with its index in ``deaths``: the last
    one, except a death 百鬼夜行 voided (a revenant killed before it killed goes back to its
    earlier death); none for the living, who may have died before and been revived."""
    counted: dict[int, tuple[int, Death]] = {}
    for i, x in enumerate(deaths):
        c = chars[x.character]
        if not (c.npc or c.alive or i in c.flags.get("void_deaths", ())):
            counted[x.character] = (i, x)
    return counted


def ranking_rows(chars: Any, deaths: Any) -> list[dict[str, Any]]:
    """Reverse death order; one settlement step shares a rank; survivors first."""
    rows: list[dict[str, Any]] = []
    alive = [c.id for c in chars.values() if c.alive and not c.npc]
    for cid in alive:
        rows.append({"rank": 1, "character": cid, "cause": None})
    placed = len(alive)
    by_step: dict[int, list[Any]] = {}
    for _, x in counted_deaths(chars, deaths).values():
        by_step.setdefault(x.step, []).append(x)
    for step in sorted(by_step, reverse=True):
        group = by_step[step]
        rank = placed + 1
        for x in sorted(group, key=lambda x: x.character):
            rows.append({"rank": rank, "character": x.character, "cause": x.cause, "day": x.day})
        placed += len(group)
    return rows


def ranking(state: GameState) -> list[dict[str, Any]]:
    return ranking_rows(state.characters, state.deaths)


# --- director and hook tools -----------------------------------------------------------------


def red_card(state: GameState, character: int, rng: random.Random) -> Result:
    """红牌罚下: the character is out at once; its items drop where it stood."""
    d = open_draft(state, rng)
    if d.phase == OVER:
        raise GameOver()
    c = living(d, character)
    die_dropping(d, character, CAUSE_RED_CARD, d.next_step())
    d.public("red_card", {"character": character, "name": c.name})
    end_if_decided(d)
    return d.finish(), d.events


def grant_item(
    state: GameState, character: int, selector: str, rng: random.Random, why: str
) -> Result:
    """Give a new item (vote reward, event prize); may go past the 6-item cap."""
    d = open_draft(state, rng)
    living(d, character)
    grant(d, character, selector, why)
    return d.finish(), d.events


def airdrop(state: GameState, selectors: list[str], rng: random.Random) -> Result:
    """空投: the director drops new items at random places still on the map, never in a
    no-airdrop place (the safe zones; 252: 无限城 too). The names are announced, the places are
    not."""
    d = open_draft(state, rng)
    if d.phase == OVER:
        raise GameOver()
    targets = [
        p.name for p in d.places.values() if not p.gone and p.name not in d.rs.no_airdrop_places
    ]
    if not targets:
        raise InvalidInput(reason="no place can receive an airdrop")
    names: list[str] = []
    landed: list[tuple[int, str]] = []
    for i, selector in enumerate(selectors):
        iid = new_unused(d, selector)
        if iid is None:
            raise InvalidInput(selector=selector, index=i)
        key = d.items[iid].kind
        place = d.rng.choice(targets)
        d.wp(place).items.append(iid)
        names.append(d.rs.kinds[key].name)
        landed.append((iid, place))
        d.directors("item_created", {"item": iid, "kind": key, "place": place, "why": "airdrop"})
    d.public("airdrop", {"items": names})
    notify(d, "airdrop", items=landed)
    return d.finish(), d.events
