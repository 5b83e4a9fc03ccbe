"""Events that engines emit and the shell logs, pushes and replays.

An event is plain data with exactly one audience. It must survive a JSON round-trip unchanged,
because the log (JSON in the database) is the truth and pushes are only copies of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

AudienceKind = Literal["public", "directors", "character", "room"]


@dataclass(frozen=True, slots=True)
class Audience:
    kind: AudienceKind
    character: int | None = None
    # A room's messages and notices (the shell's rooms): its members at the time, and the
    # directors. Engines never address a room.
    room: int | None = None

    def __post_init__(self) -> None:
        if (self.kind == "character") != (self.character is not None):
            raise ValueError("a character audience needs a character, and only it")
        if (self.kind == "room") != (self.room is not None):
            raise ValueError("a room audience needs a room, and only it")

    @property
    def stream(self) -> str:
        """The name of the stream an event of this audience is numbered in."""
        if self.kind == "character":
            return f"c{self.character}"
        if self.kind == "room":
            return f"r{self.room}"
        return self.kind


PUBLIC = Audience("public")
DIRECTORS = Audience("directors")


def to_character(character: int) -> Audience:
    return Audience("character", character)


def to_room(room: int) -> Audience:
    return Audience("room", room=room)


@dataclass(frozen=True, slots=True)
class GameEvent:
    kind: str
    audience: Audience
    payload: Mapping[str, Any] = field(default_factory=dict)
    actor: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "audience": {
                "kind": self.audience.kind,
                "character": self.audience.character,
                **({"room": self.audience.room} if self.audience.room is not None else {}),
            },
            "payload": dict(self.payload),
            "actor": self.actor,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameEvent:
        audience = data["audience"]
        return cls(
            kind=data["kind"],
            audience=Audience(audience["kind"], audience.get("character"), audience.get("room")),
            payload=dict(data.get("payload") or {}),
            actor=data.get("actor"),
        )
