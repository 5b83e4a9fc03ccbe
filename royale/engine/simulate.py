"""Play a whole game with bots choosing random legal-looking actions each night.

    python -m royale.engine.simulate --ruleset islington_256 --bots 40 --seed 7

Bots see the true state (they are a test harness, not players); every action still goes through
:func:`apply_action`, and refusals are counted. Engine randomness comes from the shared dice
(``games.engine.dice.rng``), bot choices from their own seeded generator, so a run is replayable.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.engine.dice import rng as dice_rng
from games.engine.errors import RuleError
from games.engine.events import GameEvent

from .actions import (
    Action,
    Attack,
    Drop,
    Equip,
    Gps,
    Move,
    PickUp,
    Rest,
    Search,
    Spawn,
    Telescope,
    Upgrade,
    UseItem,
    Whisper,
)
from .night import day_open, night_close, night_open, ranking
from .rules import apply_action
from .ruleset import TIER_RANK, Ruleset, get_ruleset
from .setup import new_game
from .state import MODE_NONE, MODE_REST, OVER, Character, GameState
from .votes import Vote, VoteChange

NIGHT_ROUNDS = 14
ROUND_SECONDS = 16  # two rounds per search cooldown of 30 s
DAY_SECONDS = 86_400


@dataclass
class SimResult:
    ruleset: str
    seed: int
    state: GameState
    days: int
    applied: int = 0
    refused: int = 0
    engine_seconds: float = 0.0
    total_seconds: float = 0.0
    refusals: Counter[str] = field(default_factory=Counter)
    events: int = 0
    log: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    event_log: list[GameEvent] = field(default_factory=list)

    @property
    def actions(self) -> int:
        return self.applied + self.refused


class Game:
    """Drives the engine the way the shell will: one dice stream per logged step."""

    def __init__(self, ruleset: str, bots: int, seed: int, *, keep_log: bool = False) -> None:
        self.seed = str(seed)
        self.seq = 0
        self.keep_log = keep_log
        self.result_log: list[tuple[str, dict[str, Any]]] = []
        self.event_log: list[GameEvent] = []
        chars = [(i, f"bot{i:02d}") for i in range(1, bots + 1)]
        t = time.perf_counter()
        self.state, events = new_game(ruleset, chars, self._rng("setup"))
        self.engine = time.perf_counter() - t
        self.events = len(events)
        self._keep(events)

    def _keep(self, events: list[GameEvent]) -> None:
        if self.keep_log:
            self.event_log += events

    def _rng(self, purpose: str) -> random.Random:
        self.seq += 1
        return dice_rng(self.seed, self.seq, purpose)

    def transition(
        self, fn: Callable[[GameState, random.Random], tuple[GameState, list[GameEvent]]]
    ) -> None:
        t = time.perf_counter()
        self.state, events = fn(self.state, self._rng(fn.__name__))
        self.engine += time.perf_counter() - t
        self.events += len(events)
        self._keep(events)

    def act(self, action: Action, now: float) -> RuleError | None:
        # The dice stream is the shell's (games.engine.dice), so it is drawn outside the timing.
        rng = self._rng("action")
        t = time.perf_counter()
        try:
            self.state, events = apply_action(self.state, action, rng, now)
        except RuleError as exc:
            self.engine += time.perf_counter() - t
            return exc
        self.engine += time.perf_counter() - t
        self.events += len(events)
        if self.keep_log:
            self.result_log.append((action.kind, action.to_json()))
            self._keep(events)
        return None


def _kind(rs: Ruleset, state: GameState, iid: int) -> Any:
    return rs.kinds[state.items[iid].kind]


def choose(
    rs: Ruleset,
    state: GameState,
    c: Character,
    brain: random.Random,
    now: float,
    on_map: list[str] | None = None,
) -> Action | None:
    """One bot decision; None = stop for this round. ``on_map`` may be passed (cached per night)."""
    me = c.id
    if on_map is None:
        on_map = [p for p in rs.places if not state.places[p].gone and state.places[p].open]
    if c.place is None:
        # One bot in forty never shows up (挂机), so drowning shows up in the statistics.
        if me % 40 == 13:
            return None
        return Spawn(me, brain.choice(on_map))
    doomed = c.place in state.shrink_tonight
    safe_places = [p for p in on_map if p != c.place and p not in state.shrink_tonight]
    endgame = len(on_map) <= 2
    rest_chance = 0.02 if endgame else 0.35 if c.mp < 30 or c.hp < 40 else 0.08
    if c.mode == MODE_NONE and not doomed and brain.random() < rest_chance:
        return Rest(me)
    if c.mode == MODE_REST:
        if doomed and c.rest_moves == 0 and safe_places:
            return Move(me, brain.choice(safe_places))
        return None
    if doomed and safe_places and brain.random() < 0.9:
        return Move(me, brain.choice(safe_places))
    f = c.found
    if f is not None and f.place == c.place:
        if f.kind == "character" and not f.attacked and f.handle and brain.random() < 0.85:
            return Attack(me, f.handle)
        if (
            f.kind == "item"
            and c.item_count() < rs.item_cap
            and f.target in state.places[c.place].items
            and brain.random() < 0.9
        ):
            return PickUp(me)
    hand_kinds = {_kind(rs, state, i).category: i for i in c.hands}
    for iid in c.hands:
        k = _kind(rs, state, iid)
        if k.effect == "supply" and ((k.hp and (c.hp < 70 or c.bleeding)) or (k.mp and c.mp < 60)):
            return UseItem(me, iid)
        if k.effect == "bomb" and brain.random() < 0.3:
            return UseItem(me, iid)
        if k.effect == "upgrade":
            targets = [
                i for i in c.hands + c.pack if _kind(rs, state, i).category in ("weapon", "armor")
            ]
            if targets:
                return Upgrade(me, iid, brain.choice(targets))
        if k.effect == "gps" and state.items[iid].used_night != state.day:
            return Gps(me, iid, brain.choice(list(rs.kinds)))
        if k.effect == "telescope" and state.items[iid].used_night != state.day:
            others = [o for o in state.characters if o != me]
            return Telescope(me, iid, tuple(brain.sample(others, 2)))
    for iid in c.pack:
        k = _kind(rs, state, iid)
        if k.category in ("weapon", "armor"):
            held = hand_kinds.get(k.category)
            better = (
                held is None
                or TIER_RANK[_kind(rs, state, held).tier or "green"] < TIER_RANK[k.tier or "green"]
            )
            if better and (held is not None or len(c.hands) < rs.hand_slots):
                return Equip(me, iid)
        elif (
            k.effect in ("supply", "bomb", "upgrade", "gps", "telescope") and brain.random() < 0.25
        ):
            out = next((i for i in c.hands if _kind(rs, state, i).category != "weapon"), None)
            if out is not None or len(c.hands) < rs.hand_slots:
                return Equip(me, iid, out)
    roll = brain.random()
    if roll < 0.62:
        return Search(me)
    if roll < 0.8 and safe_places:
        return Move(me, brain.choice(safe_places))
    if roll < 0.83:
        return Whisper(me, brain.choice([o for o in state.characters if o != me]), "你好")
    if (roll < 0.85 or c.item_count() >= rs.item_cap) and c.pack:
        return Drop(me, brain.choice(c.pack))
    return None


def day_votes(game: Game, rs: Ruleset, brain: random.Random, now: float) -> list[RuleError | None]:
    """By day every living bot votes for a random living player; about one in ten then changes."""
    if game.state.day < rs.vote_from_day:
        return []
    living = [c.id for c in game.state.characters.values() if c.alive and not c.npc]
    results = [game.act(Vote(cid, brain.choice(living)), now) for cid in living]
    for cid in living:
        if brain.random() < 0.1:
            results.append(game.act(VoteChange(cid, brain.choice(living)), now))
    return results


def play(
    ruleset: str, bots: int, seed: int, *, max_days: int = 60, keep_log: bool = False
) -> SimResult:
    started = time.perf_counter()
    rs = get_ruleset(ruleset)
    game = Game(ruleset, bots, seed, keep_log=keep_log)
    brain = random.Random(f"bots|{ruleset}|{seed}")
    applied = refused = 0
    refusals: Counter[str] = Counter()
    while game.state.phase != OVER and game.state.day < max_days:
        game.transition(day_open)
        for err in day_votes(game, rs, brain, game.state.day * DAY_SECONDS):
            if err is None:
                applied += 1
            else:
                refused += 1
                refusals[err.code] += 1
        game.transition(night_open)
        night_start = game.state.day * DAY_SECONDS
        places = game.state.places
        on_map = [p for p in rs.places if not places[p].gone and places[p].open]
        for rnd in range(NIGHT_ROUNDS):
            now = night_start + rnd * ROUND_SECONDS
            order = [c.id for c in game.state.characters.values() if c.alive and not c.npc]
            brain.shuffle(order)
            for cid in order:
                for _ in range(3):  # a bot may chain a few free actions in its turn
                    c = game.state.characters[cid]
                    if not c.alive:
                        break
                    action = choose(rs, game.state, c, brain, now, on_map)
                    if action is None:
                        break
                    err = game.act(action, now)
                    if err is None:
                        applied += 1
                    else:
                        refused += 1
                        refusals[err.code] += 1
                        break
        game.transition(night_close)
    return SimResult(
        ruleset=ruleset,
        seed=seed,
        state=game.state,
        days=game.state.day,
        applied=applied,
        refused=refused,
        engine_seconds=game.engine,
        total_seconds=time.perf_counter() - started,
        refusals=refusals,
        events=game.events,
        log=game.result_log,
        event_log=game.event_log,
    )


def report(res: SimResult, out: Any = None) -> None:
    out = out or sys.stdout
    s = res.state
    p = lambda *a: print(*a, file=out)  # noqa: E731
    bots = sum(1 for c in s.characters.values() if not c.npc)
    p(f"ruleset {res.ruleset}  seed {res.seed}  bots {bots}")
    winner = s.characters[s.winner].name if s.winner is not None else "nobody (导演获胜)"
    state = "over" if s.phase == OVER else f"unfinished ({s.phase})"
    p(f"game {state} after day {res.days}; winner: {winner}")
    p("\ndeaths by day and cause:")
    table: dict[int, Counter[str]] = {}
    for x in s.deaths:
        table.setdefault(x.day, Counter())[x.cause] += 1
    for day in sorted(table):
        p(
            f"  night {day:>2}: "
            + ", ".join(f"{cause} {n}" for cause, n in sorted(table[day].items()))
        )
    totals = Counter(x.cause for x in s.deaths)
    p("  total:    " + ", ".join(f"{cause} {n}" for cause, n in sorted(totals.items())))
    p("\nfinal ranking:")
    for row in ranking(s):
        name = s.characters[row["character"]].name
        how = f"{row['cause']} (night {row['day']})" if row["cause"] else "survivor"
        p(f"  {row['rank']:>3}. {name}  {how}")
    p(f"\nactions: {res.actions} ({res.applied} applied, {res.refused} refused)")
    p(f"events: {res.events}")
    if res.refusals:
        p("refusals: " + ", ".join(f"{k} {v}" for k, v in res.refusals.most_common()))
    rate = res.actions / res.engine_seconds if res.engine_seconds else float("inf")
    total_ms, engine_ms = res.total_seconds * 1000, res.engine_seconds * 1000
    p(f"time: {total_ms:.1f} ms total, {engine_ms:.1f} ms in the engine ({rate:,.0f} actions/s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--ruleset", default="islington_256")
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-days", type=int, default=60)
    args = parser.parse_args(argv)
    report(play(args.ruleset, args.bots, args.seed, max_days=args.max_days))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
