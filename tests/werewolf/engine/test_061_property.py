"""[061] 林峰 played by bots choosing random legal actions from a seeded RNG: at every step
every character is in exactly one faction of the ruleset (the 不定 with their host), losses
only grow, a lost faction never wins, the state survives JSON, and the game ends."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.engine.errors import RuleError
from werewolf.engine import (
    Forgo,
    GameState,
    UseSkill,
    apply_action,
    day_vote,
    deadline_pass,
    new_game,
    night_open,
    night_publish,
    night_resolve,
    player_view,
    tally,
)
from werewolf.engine.ruleset import get_ruleset

from .support import DAY, MIN, T0
from .support_061 import L61, SEATS

MAX_DAYS = 30


class Game:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.rs = get_ruleset(L61)
        chars = [(i, f"P{i}", None) for i in SEATS]
        self.state, _ = new_game(L61, chars, random.Random(seed))
        self.lost: tuple[str, ...] = ()
        self.steps = 0

    # --- invariants ---------------------------------------------------------------------------

    def check(self) -> None:
        s = self.state
        self.steps += 1
        factions = set(self.rs.factions)
        for p in s.players.values():
            assert p.faction in factions  # exactly one faction, one of the post's seven
            if s.day >= 1 and s.phase != "setup" and p.alive and not s.night.get("prelude"):
                assert p.faction != "drifter", p  # the 不定 took their host's
        if not any(p.flags.get("rock") for p in s.players.values()):
            for p in s.players.values():
                for link in ("possess", "hostage"):
                    host = p.links.get(link)
                    if host is not None and p.alive:
                        assert p.faction == s.players[host].faction, (p.id, link, host)
        assert set(self.lost) <= set(s.lost)  # losses stick
        self.lost = s.lost
        if s.winner is not None:
            assert s.winner not in s.lost  # a lost faction never wins
            assert s.phase == "over"
        again = GameState.from_json(json.loads(json.dumps(s.to_json(), ensure_ascii=False)))
        assert again.to_json() == s.to_json()

    def do(self, action: Any, at: float) -> bool:
        try:
            self.state, _ = apply_action(self.state, action, random.Random(self.steps), at)
        except RuleError:
            return False
        self.check()
        return True

    # --- bots ---------------------------------------------------------------------------------

    def targets(self, pid: int, skill: str) -> tuple[tuple[int, ...], str | None]:
        s, r = self.state, self.r
        sk = self.rs.skills[skill]
        living = [p.id for p in s.players.values() if p.alive]
        others = [p for p in living if p != pid]
        option: str | None = None
        spec = sk.targets
        if skill == "borrowed":
            borrow = s.players[pid].flags.get("borrow") or {}
            option = r.choice(borrow.get("skills") or ["kill"])
            inner = self.rs.skills[option]
            spec = inner.targets
            if inner.effect == "zhen":
                option, spec = f"{option}:1", "0"
        if spec == "third":
            n = len(living) // 3
            pool = [p for p in living if p not in s.flags.get("lf_stage_last", [])]
            return tuple(r.sample(pool, min(n, len(pool)))), option
        if sk.effect == "cunning":
            option = r.choice(sorted(self.rs.roles))
        elif sk.effect == "zhen":
            option = str(r.randint(1, min(3, max(1, s.players[pid].counters.get("marks", 1)))))
        elif sk.effect == "whisper":
            option = r.choice(["你好", "P5 is 宝藏", "一二三四五六七八九十"])
        elif sk.effect == "verify":
            option = r.choice([None, "publish"])
        count = {"0": 0, "0-1": r.randint(0, 1), "1": 1, "2": 2, "3": 3}.get(spec)
        if count is None:  # any
            count = r.randint(1, 3)
        pool = others if sk.target == "other" else living
        return tuple(r.sample(pool, min(count, len(pool)))), option

    def night(self) -> None:
        s = self.state
        close = T0 + s.day * DAY
        self.state, _ = night_open(s, random.Random(self.steps), close)
        self.check()
        at = close + MIN
        for pid in sorted(self.state.players):
            for u in player_view(self.state, pid)["usable"]:
                if self.state.phase != "night" or self.rs.skills[u["skill"]].window:
                    continue
                skill = u["skill"]
                if not u["forced"] and self.r.random() < 0.3:
                    self.do(Forgo(actor=pid, skill=skill), at)
                    continue
                for _ in range(5):
                    targets, option = self.targets(pid, skill)
                    action = UseSkill(actor=pid, skill=skill, targets=targets, option=option)
                    if self.do(action, at):
                        break
        self.state, _ = deadline_pass(self.state, random.Random(self.steps), close + 61 * MIN)
        self.check()
        if self.state.phase != "night":
            return
        self.state, _ = night_resolve(self.state, random.Random(self.steps))
        self.check()
        self.state, _ = night_publish(self.state, random.Random(self.steps), close + 12 * 3600)
        self.check()

    def windows(self) -> None:
        for _ in range(10):
            s = self.state
            if s.phase == "over" or not s.windows:
                return
            w = s.windows[0]
            at = w["until"] - MIN
            pool = w.get("voters") or [p.id for p in s.players.values() if p.alive]
            pool = [p for p in pool if p != w["actor"] and s.players[p].alive] or [w["actor"]]
            target = (self.r.choice(pool),)
            action: Any = UseSkill(actor=w["actor"], skill=w["skill"], targets=target)
            used = self.r.random() >= 0.3 and self.do(action, at)
            if not used and not self.do(Forgo(actor=w["actor"], skill=w["skill"]), at):
                self.state, _ = deadline_pass(self.state, random.Random(0), w["until"] + 1)
                self.check()

    def day(self) -> None:
        s = self.state
        living = [p.id for p in s.players.values() if p.alive]
        order = list(living)
        self.r.shuffle(order)
        ballots = [(v, self.r.choice([t for t in living if t != v] or [v])) for v in order]
        totals = tally(s, dict(ballots))
        at = T0 + s.day * DAY
        self.state, _ = day_vote(s, totals, random.Random(self.steps), at, ballots=ballots)
        self.check()
        self.windows()

    def play(self) -> GameState:
        while self.state.phase != "over" and self.state.day <= MAX_DAYS:
            self.night()
            self.windows()
            if self.state.phase == "day":
                self.day()
        return self.state


@pytest.mark.parametrize("seed", range(24))
def test_bots_play_a_whole_game(seed: int) -> None:
    g = Game(seed)
    state = g.play()
    assert state.phase == "over", f"seed {seed}: no end by day {MAX_DAYS}"
    assert state.winner is not None
    assert state.winner == "" or state.winner in get_ruleset(L61).factions
