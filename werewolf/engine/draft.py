"""Copy-on-write editing of a werewolf :class:`GameState`, as in the royale engine: a step opens
a draft, reads freely, asks ``wp(id)`` for a writable copy of exactly the players it changes, and
replaces (never edits) the plain dicts of ``night``/``result``/``flags``. A RuleError half-way
drops the draft, so a refused action changes nothing."""

from __future__ import annotations

import random
from typing import Any

from games.engine.events import DIRECTORS, PUBLIC, GameEvent, to_character

from .ruleset import Ruleset, get_ruleset
from .state import GameState, Out, Player


class Draft:
    __slots__ = (
        "_own",
        "_wplayers",
        "base",
        "closed_at",
        "day",
        "events",
        "flags",
        "lost",
        "night",
        "now",
        "outs",
        "phase",
        "players",
        "result",
        "rng",
        "rs",
        "sheriff",
        "surrender",
        "trace",
        "windows",
        "winner",
    )

    def __init__(self, state: GameState, rng: random.Random, now: float | None) -> None:
        self.base = state
        self.rs: Ruleset = get_ruleset(state.ruleset)
        self.rng = rng
        self.now = now
        self.players = state.players
        self._own = False
        self._wplayers: set[int] = set()
        self.day = state.day
        self.phase = state.phase
        self.outs = state.outs
        self.sheriff = state.sheriff
        self.closed_at = state.closed_at
        self.night = state.night
        self.result = state.result
        self.windows = state.windows
        self.lost = state.lost
        self.winner = state.winner
        self.surrender = state.surrender
        self.flags = state.flags
        self.events: list[GameEvent] = []
        # Lines of the night's step-by-step trace, when a settlement is being traced.
        self.trace: list[dict[str, Any]] | None = None

    def wp(self, pid: int) -> Player:
        if pid not in self._wplayers:
            if not self._own:
                self.players = dict(self.players)
                self._own = True
            self.players[pid] = self.players[pid].copy()
            self._wplayers.add(pid)
        return self.players[pid]

    def set_night(self, **changes: Any) -> None:
        self.night = {**self.night, **changes}

    def set_flag(self, key: str, value: Any) -> None:
        self.flags = {**self.flags, key: value}

    # --- reads ----------------------------------------------------------------------------------

    def p(self, pid: int) -> Player:
        return self.players[pid]

    def living(self) -> list[Player]:
        return [p for p in self.players.values() if p.alive]

    def has(self, pid: int, skill: str) -> bool:
        return skill in self.players[pid].skills

    def role_name(self, pid: int) -> str:
        return self.rs.roles[self.players[pid].role].name

    def name(self, pid: int) -> str:
        return self.players[pid].name

    # --- events ---------------------------------------------------------------------------------

    def to(self, pid: int, kind: str, payload: dict[str, Any], actor: int | None = None) -> None:
        self.events.append(GameEvent(kind, to_character(pid), payload, actor))

    def public(self, kind: str, payload: dict[str, Any]) -> None:
        self.events.append(GameEvent(kind, PUBLIC, payload))

    def directors(self, kind: str, payload: dict[str, Any], actor: int | None = None) -> None:
        self.events.append(GameEvent(kind, DIRECTORS, payload, actor))

    def note(self, step: str, text: str, **facts: Any) -> None:
        """One line of the night trace (for the director), when a settlement is being traced."""
        if self.trace is not None:
            self.trace.append({"step": step, "text": text, **facts})

    def add_out(self, out: Out) -> None:
        self.outs = (*self.outs, out)

    def finish(self) -> GameState:
        return GameState(
            ruleset=self.base.ruleset,
            day=self.day,
            phase=self.phase,
            players=self.players,
            outs=self.outs,
            sheriff=self.sheriff,
            closed_at=self.closed_at,
            night=self.night,
            result=self.result,
            windows=self.windows,
            lost=self.lost,
            winner=self.winner,
            surrender=self.surrender,
            flags=self.flags,
        )


def open_draft(state: GameState, rng: random.Random, now: float | None = None) -> Draft:
    return Draft(state, rng, now)
