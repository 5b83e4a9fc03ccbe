"""The state of one role game: plain, JSON-serialisable data.

Committed states are never mutated (``draft`` copies what a step changes). Night submissions,
the night's draft result and the day windows are plain dicts/lists inside ``GameState`` and are
replaced, never edited in place, once committed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# setup → night_open → night → night_resolve → late → night_publish → day → day_vote → day → ...
SETUP, NIGHT, LATE, DAY, OVER = "setup", "night", "late", "day", "over"

# Causes of elimination, as the post names them (出局 has these cases, plus the triggers).
CAUSE_VOTE = "投票"
CAUSE_POISON = "毒药"
CAUSE_SHOT = "最后一枪"
CAUSE_KILL = "杀人"
CAUSE_SACRIFICE = "献身"
CAUSE_RED_CARD = "红牌罚下"
CAUSE_SUBSTITUTE = "替死"
CAUSE_LOST_FEIGN = "失去装傻"


@dataclass(slots=True)
class Player:
    id: int
    name: str
    gender: str | None
    role: str
    faction: str  # can change (061's conversions, 096's flips)
    skills: tuple[str, ...]  # what it can still use; losing skills empties it
    act: int = 0  # 表演
    block: int = 0  # 挡刀
    alive: bool = True
    idle: bool = False  # 挂机 (096): in the game, acts no more
    used: dict[str, int] = field(default_factory=dict)  # skill → times used
    statuses: dict[str, int] = field(default_factory=dict)  # status → last day it holds
    counters: dict[str, int] = field(default_factory=dict)  # HP-like counts, marks
    links: dict[str, int] = field(default_factory=dict)  # "love" → target, ...
    flags: dict[str, Any] = field(default_factory=dict)

    def copy(self) -> Player:
        return Player(
            self.id,
            self.name,
            self.gender,
            self.role,
            self.faction,
            self.skills,
            self.act,
            self.block,
            self.alive,
            self.idle,
            dict(self.used),
            dict(self.statuses),
            dict(self.counters),
            dict(self.links),
            dict(self.flags),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "gender": self.gender,
            "role": self.role,
            "faction": self.faction,
            "skills": list(self.skills),
            "act": self.act,
            "block": self.block,
            "alive": self.alive,
            "idle": self.idle,
            "used": dict(self.used),
            "statuses": dict(self.statuses),
            "counters": dict(self.counters),
            "links": dict(self.links),
            "flags": dict(self.flags),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Player:
        return cls(
            id=int(d["id"]),
            name=str(d["name"]),
            gender=d["gender"],
            role=str(d["role"]),
            faction=str(d["faction"]),
            skills=tuple(d["skills"]),
            act=int(d["act"]),
            block=int(d["block"]),
            alive=bool(d["alive"]),
            idle=bool(d["idle"]),
            used={str(k): int(v) for k, v in d["used"].items()},
            statuses={str(k): int(v) for k, v in d["statuses"].items()},
            counters={str(k): int(v) for k, v in d["counters"].items()},
            links={str(k): int(v) for k, v in d["links"].items()},
            flags=dict(d["flags"]),
        )


@dataclass(frozen=True, slots=True)
class Out:
    """One elimination. ``night``: settled at a night's end (announced without role)."""

    id: int
    cause: str
    day: int
    night: bool

    def to_json(self) -> list[Any]:
        return [self.id, self.cause, self.day, self.night]

    @classmethod
    def from_json(cls, d: list[Any]) -> Out:
        return cls(int(d[0]), str(d[1]), int(d[2]), bool(d[3]))


@dataclass(slots=True)
class GameState:
    """``night``: this night's steps and submissions (see ``night``); ``result``: the draft
    result of ``night_resolve`` until it is published; ``windows``: open day windows (last
    shot, 遗志, 殉职) as ``{"skill", "actor", "until"}``; ``lost``: factions judged lost, in
    order; ``surrender``: the pending surrender ``{"faction", "yes": [ids]}``."""

    ruleset: str
    day: int = 0
    phase: str = SETUP
    players: dict[int, Player] = field(default_factory=dict)
    outs: tuple[Out, ...] = ()
    sheriff: int | None = None
    closed_at: float | None = None
    night: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    windows: tuple[dict[str, Any], ...] = ()
    lost: tuple[str, ...] = ()
    winner: str | None = None
    surrender: dict[str, Any] | None = None
    flags: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "day": self.day,
            "phase": self.phase,
            "players": [p.to_json() for p in self.players.values()],
            "outs": [o.to_json() for o in self.outs],
            "sheriff": self.sheriff,
            "closed_at": self.closed_at,
            "night": self.night,
            "result": self.result,
            "windows": list(self.windows),
            "lost": list(self.lost),
            "winner": self.winner,
            "surrender": self.surrender,
            "flags": dict(self.flags),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GameState:
        players = [Player.from_json(p) for p in d["players"]]
        return cls(
            ruleset=str(d["ruleset"]),
            day=int(d["day"]),
            phase=str(d["phase"]),
            players={p.id: p for p in players},
            outs=tuple(Out.from_json(o) for o in d["outs"]),
            sheriff=d["sheriff"],
            closed_at=d["closed_at"],
            night=dict(d["night"]),
            result=d["result"],
            windows=tuple(d["windows"]),
            lost=tuple(d["lost"]),
            winner=d["winner"],
            surrender=d["surrender"],
            flags=dict(d["flags"]),
        )
