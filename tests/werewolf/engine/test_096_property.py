"""[096] 名侦探柯南 played by bots choosing random legal actions from a seeded RNG: after every
step the relic has one holder among the players (or none before 藏匿), its curse count lies
between 0 and the post's 3 plus the +1s of 光明之魂/灵能 and never grows otherwise, no cooldown is
negative, HP is never below 0, a 亡灵 is in 亡灵阵营 (and 亡灵阵营 holds only 亡灵 roles, the
驱魔人's join aside), the state survives JSON, and the game ends."""

from __future__ import annotations

import json

import pytest

from werewolf.engine import GameState
from werewolf.engine.bots import Autoplay, Style
from werewolf.engine.ruleset import get_ruleset

from .support_096 import C96

MAX_DAYS = 30
RULES = get_ruleset(C96)
UNDEAD_ROLES = {k for k, r in RULES.roles.items() if r.faction == "undead"}


class Invariants:
    def __init__(self) -> None:
        self.curses: int | None = None
        self.wraiths: set[int] = set()
        self.unicorn_alive = True

    def __call__(self, s: GameState) -> None:
        relic = s.flags.get("relic")
        wraiths = {p.id for p in s.players.values() if p.role == "wraith"}
        unicorn_alive = any(p.alive for p in s.players.values() if p.role == "unicorn")
        if relic is not None:
            holder = relic.get("holder")
            assert holder is None or holder in s.players
            curses = int(relic["curses"])
            assert curses >= 0
            if self.curses is None:  # 诅咒<次数：3>, the first maybe spent at night 1's open
                assert curses <= RULES.skills["relic_curse"].params["count"]
            else:
                # The count grows only by 灵能 (a 恶灵 born) and 光明之魂 (the 独角兽 out).
                born = len(wraiths - self.wraiths)
                fell = int(self.unicorn_alive and not unicorn_alive)
                assert curses - self.curses <= born + fell, (self.curses, curses, born, fell)
            self.curses = curses
        self.wraiths, self.unicorn_alive = wraiths, unicorn_alive
        for p in s.players.values():
            assert all(v >= 0 for k, v in p.counters.items() if k.startswith("cd:")), p
            assert p.counters.get("hp", 0) >= 0, p
            if p.role in UNDEAD_ROLES:
                assert p.faction == "undead", (p.id, p.role, p.faction)
            assert p.faction in RULES.factions
        if s.winner is not None:
            assert s.phase == "over"
        again = GameState.from_json(json.loads(json.dumps(s.to_json(), ensure_ascii=False)))
        assert again.to_json() == s.to_json()


@pytest.mark.parametrize("seed", range(12))
def test_bots_play_a_whole_096_game(seed: int) -> None:
    style = Style(forgo=0.3, limited=0.3, follow=0.5)
    g = Autoplay(C96, seed, style=style, max_days=MAX_DAYS, observe=Invariants())
    state = g.play()
    assert state.phase == "over", f"seed {seed}: no end by day {MAX_DAYS}"
    assert state.winner is not None
    assert state.winner == "" or state.winner in RULES.factions
