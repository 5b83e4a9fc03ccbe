"""What a character can ask the engine to do (角色行动), as plain immutable data.

Each action has a stable ``kind`` used in the log; :func:`action_from_json` rebuilds it, so a game
can be replayed from its log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from games.engine.actions import Action
from games.engine.actions import action_from_json as rebuild


@dataclass(frozen=True, slots=True)
class Spawn(Action):
    """出生: pick the starting place, free, on a night before drowning."""

    kind: ClassVar[str] = "spawn"
    place: str


@dataclass(frozen=True, slots=True)
class Rest(Action):
    """静养: chosen before any other action of the night; allows one free move."""

    kind: ClassVar[str] = "rest"


@dataclass(frozen=True, slots=True)
class Move(Action):
    kind: ClassVar[str] = "move"
    place: str


@dataclass(frozen=True, slots=True)
class Search(Action):
    kind: ClassVar[str] = "search"


@dataclass(frozen=True, slots=True)
class PickUp(Action):
    """捡拾 the item the last search found."""

    kind: ClassVar[str] = "pick_up"


@dataclass(frozen=True, slots=True)
class Attack(Action):
    """攻击 the unknown character the last search found, named by its handle."""

    kind: ClassVar[str] = "attack"
    handle: str


@dataclass(frozen=True, slots=True)
class Equip(Action):
    """更换: take ``item`` from the backpack into a hand; ``swap_out`` (or the clash) goes back."""

    kind: ClassVar[str] = "equip"
    item: int
    swap_out: int | None = None


@dataclass(frozen=True, slots=True)
class Unequip(Action):
    kind: ClassVar[str] = "unequip"
    item: int


@dataclass(frozen=True, slots=True)
class UseItem(Action):
    """使用 a supply or a bomb held in hand."""

    kind: ClassVar[str] = "use"
    item: int


@dataclass(frozen=True, slots=True)
class Upgrade(Action):
    """使用 an upgrader in hand on a weapon or armor held anywhere."""

    kind: ClassVar[str] = "upgrade"
    item: int
    target: int


@dataclass(frozen=True, slots=True)
class Gps(Action):
    """使用 GPS/罗针盘: ``target_kind`` is an item kind key of the catalogue."""

    kind: ClassVar[str] = "gps"
    item: int
    target_kind: str


@dataclass(frozen=True, slots=True)
class Telescope(Action):
    kind: ClassVar[str] = "telescope"
    item: int
    targets: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Drop(Action):
    kind: ClassVar[str] = "drop"
    item: int


@dataclass(frozen=True, slots=True)
class Whisper(Action):
    kind: ClassVar[str] = "whisper"
    target: int
    text: str


@dataclass(frozen=True, slots=True)
class Megaphone(Action):
    """大喇叭 by day: announce everything at one place."""

    kind: ClassVar[str] = "megaphone"
    item: int
    place: str


@dataclass(frozen=True, slots=True)
class Phone(Action):
    """电话/血鬼术符咒 by day: call a character, who accepts or refuses."""

    kind: ClassVar[str] = "phone"
    item: int
    target: int


@dataclass(frozen=True, slots=True)
class AnswerPhone(Action):
    kind: ClassVar[str] = "answer_phone"
    call: int
    accept: bool


ACTION_TYPES: dict[str, type[Action]] = {}


def register_action_type(cls: type[Action]) -> type[Action]:
    """Make an action kind known to :func:`action_from_json` (day-issue modules add theirs)."""
    ACTION_TYPES[cls.kind] = cls
    return cls


for _cls in (
    Spawn,
    Rest,
    Move,
    Search,
    PickUp,
    Attack,
    Equip,
    Unequip,
    UseItem,
    Upgrade,
    Gps,
    Telescope,
    Drop,
    Whisper,
    Megaphone,
    Phone,
    AnswerPhone,
):
    register_action_type(_cls)


def action_from_json(data: Any) -> Action:
    """Rebuild an action from the log or a request; malformed input is a 400, never a crash."""
    return rebuild(data, ACTION_TYPES)
