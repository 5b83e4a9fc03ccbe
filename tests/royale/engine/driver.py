"""A random game driver for property tests: mostly sensible bot moves, some garbage."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from games.engine.dice import rng as dice_rng
from games.engine.errors import RuleError
from games.engine.events import GameEvent
from royale.engine import (
    Action,
    Attack,
    Drop,
    Equip,
    Gps,
    Move,
    PickUp,
    Search,
    Spawn,
    Telescope,
    Upgrade,
    UseItem,
    Whisper,
    apply_action,
    day_open,
    get_ruleset,
    new_game,
    night_close,
    night_open,
)
from royale.engine.draft import Draft
from royale.engine.simulate import choose
from royale.engine.state import NIGHT, OVER, GameState


@dataclass
class Run:
    states: list[GameState] = field(default_factory=list)
    events: list[GameEvent] = field(default_factory=list)
    refused: list[tuple[Action, RuleError, GameState]] = field(default_factory=list)
    applied: list[tuple[Action, GameState]] = field(default_factory=list)


def garbage(state: GameState, cid: int, r: random.Random) -> Action:
    rs = get_ruleset(state.ruleset)
    item = r.choice([*state.items, 99_999]) if state.items else 1
    place = r.choice([*rs.places, "无此地"])
    other = r.choice([*state.characters, 777])
    return r.choice(
        [
            Spawn(cid, place),
            Move(cid, place),
            Search(cid),
            PickUp(cid),
            Attack(cid, r.choice(["0", "deadbeef", "x"])),
            Equip(cid, item, r.choice([None, item])),
            UseItem(cid, item),
            Upgrade(cid, item, r.choice(list(state.items) or [1])),
            Gps(cid, item, r.choice(list(rs.kinds))),
            Telescope(cid, item, (other, r.choice(list(state.characters)))),
            Drop(cid, item),
            Whisper(cid, other, r.choice(["", "嗨", "长" * 201])),
        ]
    )


def play(
    ruleset: str,
    seed: int,
    plan: list[tuple[int, bool]],
    *,
    nights_every: int = 40,
    verify_refusals: bool = False,
) -> Run:
    """Apply ``plan`` (actor index, garbage?) with night transitions every ``nights_every`` steps.
    With ``verify_refusals`` every refused action is checked to have left its input untouched."""
    run = Run()
    seq = 0

    def dice(purpose: str) -> random.Random:
        nonlocal seq
        seq += 1
        return dice_rng(str(seed), seq, purpose)

    chars = [(i, f"玩家{chr(0x4E00 + i)}") for i in range(1, 7)]
    state, events = new_game(ruleset, chars, dice("setup"))
    run.events += events
    for fn in (day_open, night_open):
        state, events = fn(state, dice(fn.__name__))
        run.events += events
    brain = random.Random(seed)
    rs = get_ruleset(ruleset)
    # Start wounded (test setup) so that deaths, loot and the end of the game are exercised.
    d = Draft(state, rs, brain)
    for cid in d.chars:
        d.wc(cid).hp = brain.randint(8, 60)
    state = d.finish()
    now = 1_000_000.0
    for step, (who, junk) in enumerate(plan):
        if state.phase == OVER:
            break
        if step and step % nights_every == 0:
            for fn in (night_close, day_open, night_open):
                if state.phase == OVER:
                    break
                state, events = fn(state, dice(fn.__name__))
                run.events += events
                run.states.append(state)
            now += 86_400
            continue
        if state.phase != NIGHT:
            break
        players = [c.id for c in state.characters.values() if not c.npc]  # NPCs never act
        cid = players[who % len(players)]
        c = state.characters[cid]
        action = (
            garbage(state, cid, brain) if junk or not c.alive else choose(rs, state, c, brain, now)
        )
        if action is None:
            action = Search(cid)
        if isinstance(action, (Spawn, Move)) and not junk:
            # Crowd six characters into a few places so that they meet, fight and loot.
            crowded = [p for p in state.places_on_map() if p not in state.shrink_tonight][:3]
            if crowded:
                action = type(action)(cid, brain.choice(crowded))
        now += 7
        before = state.to_json() if verify_refusals else None
        try:
            new, events = apply_action(state, action, dice("action"), now)
        except RuleError as exc:
            if before is not None:
                assert state.to_json() == before, f"{action} changed the state it refused"
            run.refused.append((action, exc, state))
            continue
        run.applied.append((action, state))
        state = new
        run.events += events
        run.states.append(state)
    return run


def mentioned(payload: Any, keys: frozenset[str]) -> set[int]:
    """Character ids a payload mentions under character-naming keys."""
    found: set[int] = set()
    if isinstance(payload, dict):
        for k, v in payload.items():
            if k in keys:
                if isinstance(v, int) and not isinstance(v, bool):
                    found.add(v)
                elif isinstance(v, list):
                    found |= {x for x in v if isinstance(x, int)}
            found |= mentioned(v, keys)
    elif isinstance(payload, list):
        for v in payload:
            found |= mentioned(v, keys)
    return found
