"""[061] 林峰 played by bots choosing random legal actions from a seeded RNG: at every step
every character is in exactly one faction of the ruleset (the 不定 with their host), losses
only grow, a lost faction never wins, the state survives JSON, and the game ends."""

from __future__ import annotations

import json

import pytest

from werewolf.engine import GameState
from werewolf.engine.bots import Autoplay, Style
from werewolf.engine.ruleset import get_ruleset

from .support_061 import L61

MAX_DAYS = 30


class Invariants:
    """What must hold after every step of a game the shared engine bots play."""

    def __init__(self) -> None:
        self.rs = get_ruleset(L61)
        self.lost: tuple[str, ...] = ()

    def __call__(self, s: GameState) -> None:
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


@pytest.mark.parametrize("seed", range(24))
def test_bots_play_a_whole_game(seed: int) -> None:
    # Random bots: they pass on a skill a third of the time, so more of the rules' paths run.
    style = Style(forgo=0.3, limited=0.3, follow=0.5)
    g = Autoplay(L61, seed, style=style, max_days=MAX_DAYS, observe=Invariants())
    state = g.play()
    assert state.phase == "over", f"seed {seed}: no end by day {MAX_DAYS}"
    assert state.winner is not None
    assert state.winner == "" or state.winner in get_ruleset(L61).factions
