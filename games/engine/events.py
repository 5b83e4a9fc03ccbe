"""Events that engines emit and the shell logs, pushes and replays.

An event is plain data with exactly one audience. It must survive a JSON round-trip unchanged,
because the log (JSON in the database) is the truth and pushes are only copies of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

AudienceKind = Literal["public", "directors", "character"]


@dataclass(frozen=True, slots=True)
class Audience:
    kind: AudienceKind
    character: int | None = None

    def __post_init__(self) -> None:
        if (self.kind == "character") != (self.character is not None):
            raise ValueError("a character audience needs a character, and only it")

    @property
    def stream(self) -> str:
        """The name of the stream an event of this audience is numbered in."""
        return f"c{self.character}" if self.kind == "character" else self.kind


PUBLIC = Audience("public")
DIRECTORS = Audience("directors")


def to_character(character: int) -> Audience:
    return Audience("character", character)


@dataclass(frozen=True, slots=True)
class GameEvent:
    kind: str
    audience: Audience
    payload: Mapping[str, Any] = field(default_factory=dict)
    actor: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "audience": {"kind": self.audience.kind, "character": self.audience.character},
            "payload": dict(self.payload),
            "actor": self.actor,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameEvent:
        audience = data["audience"]
        return cls(
            kind=data["kind"],
            audience=Audience(audience["kind"], audience.get("character")),
            payload=dict(data.get("payload") or {}),
            actor=data.get("actor"),
        )
