"""The state of one royale game: plain, JSON-serialisable data.

Objects of a committed state are never mutated; :class:`royale.engine.draft.Draft` copies what an
action changes (copy-on-write), so a refused action leaves its input untouched and old states stay
valid for replays and tests.

Where an item is lives in exactly one container: a place's ground list, a character's hands or
backpack, or ``GameState.gone`` (consumed/vanished/broken/upgraded). ``items`` keeps every item
ever created so the log of a gone item can still be read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Phases, named as the shell's timetable (games.engine.timetable) names them:
# "before" → day_open → "day" → day_close → "dusk" → night_open → "night" → night_end → "late"
# → night_close → "dawn" → day_open → ... and "over" once the victory check ends the game.
SETUP, DAY, DUSK, NIGHT, LATE, CLOSED, OVER = (
    "before",
    "day",
    "dusk",
    "night",
    "late",
    "dawn",
    "over",
)

# Causes of death, exactly as the posts (and RULINGS) announce them.
CAUSE_ATTACK = "攻击"
CAUSE_BLEEDING = "流血"
CAUSE_SHRINK = "缩圈"
CAUSE_BOMB = "炸药"
CAUSE_EVENT = "特殊事件"
# A director's intervention bringing HP to 0 (导演干预): the director's ruling, not an event.
CAUSE_DIRECTOR = "导演判定"
CAUSE_DROWNED = "淹死"
CAUSE_RED_CARD = "红牌"
CAUSES = (
    CAUSE_ATTACK,
    CAUSE_BLEEDING,
    CAUSE_SHRINK,
    CAUSE_BOMB,
    CAUSE_EVENT,
    CAUSE_DIRECTOR,
    CAUSE_DROWNED,
    CAUSE_RED_CARD,
)

# Night modes: "" = not chosen yet (counts as acting once anything else is done).
MODE_NONE, MODE_REST, MODE_ACT = "", "rest", "act"

# Why an item left the game.
GONE_CONSUMED, GONE_VANISHED, GONE_BROKEN, GONE_UPGRADED = (
    "consumed",
    "vanished",
    "broken",
    "upgraded",
)


@dataclass(slots=True)
class Item:
    id: int
    kind: str  # ItemKind.key of the ruleset
    uses: int | None  # remaining uses of a limited item; None = unlimited
    used_night: int = 0  # night of the last once-a-night use (GPS, telescope)
    used_day: int = 0  # day of the last once-a-day use (megaphone)

    def copy(self) -> Item:
        return Item(self.id, self.kind, self.uses, self.used_night, self.used_day)

    def to_json(self) -> list[Any]:
        return [self.id, self.kind, self.uses, self.used_night, self.used_day]

    @classmethod
    def from_json(cls, data: list[Any]) -> Item:
        return cls(int(data[0]), str(data[1]), data[2], int(data[3]), int(data[4]))


@dataclass(frozen=True, slots=True)
class Found:
    """The result of a character's last search. ``target`` is private to the engine."""

    kind: str  # "character" | "item" | "nothing"
    place: str
    target: int | None = None
    handle: str | None = None
    attacked: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "place": self.place,
            "target": self.target,
            "handle": self.handle,
            "attacked": self.attacked,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Found:
        return cls(
            data["kind"],
            data["place"],
            data.get("target"),
            data.get("handle"),
            bool(data.get("attacked")),
        )


@dataclass(slots=True)
class Character:
    id: int
    name: str
    hp: int
    mp: int
    npc: bool = False
    alive: bool = True
    place: str | None = None  # None = not spawned yet
    hands: list[int] = field(default_factory=list)
    pack: list[int] = field(default_factory=list)
    bleeding: int = 0
    mode: str = MODE_NONE
    rest_moves: int = 0
    last_search_at: float | None = None
    found: Found | None = None
    flags: dict[str, Any] = field(default_factory=dict)  # for later hooks (villain, bounties, ...)

    def copy(self) -> Character:
        return Character(
            self.id,
            self.name,
            self.hp,
            self.mp,
            self.npc,
            self.alive,
            self.place,
            list(self.hands),
            list(self.pack),
            self.bleeding,
            self.mode,
            self.rest_moves,
            self.last_search_at,
            self.found,
            dict(self.flags) if self.flags else {},
        )

    @property
    def held(self) -> list[int]:
        return self.hands + self.pack

    def item_count(self) -> int:
        return len(self.hands) + len(self.pack)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "hp": self.hp,
            "mp": self.mp,
            "npc": self.npc,
            "alive": self.alive,
            "place": self.place,
            "hands": list(self.hands),
            "pack": list(self.pack),
            "bleeding": self.bleeding,
            "mode": self.mode,
            "rest_moves": self.rest_moves,
            "last_search_at": self.last_search_at,
            "found": self.found.to_json() if self.found else None,
            "flags": dict(self.flags),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Character:
        return cls(
            id=int(d["id"]),
            name=str(d["name"]),
            hp=int(d["hp"]),
            mp=int(d["mp"]),
            npc=bool(d["npc"]),
            alive=bool(d["alive"]),
            place=d["place"],
            hands=[int(x) for x in d["hands"]],
            pack=[int(x) for x in d["pack"]],
            bleeding=int(d["bleeding"]),
            mode=str(d["mode"]),
            rest_moves=int(d["rest_moves"]),
            last_search_at=d["last_search_at"],
            found=Found.from_json(d["found"]) if d.get("found") else None,
            flags=dict(d.get("flags") or {}),
        )


@dataclass(slots=True)
class Place:
    name: str
    items: list[int] = field(default_factory=list)
    gone: bool = False
    gone_night: int | None = None
    open: bool = True  # a special zone outside its opening days is closed

    def copy(self) -> Place:
        return Place(self.name, list(self.items), self.gone, self.gone_night, self.open)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "items": list(self.items),
            "gone": self.gone,
            "gone_night": self.gone_night,
            "open": self.open,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Place:
        return cls(
            str(d["name"]),
            [int(x) for x in d["items"]],
            bool(d["gone"]),
            d.get("gone_night"),
            bool(d.get("open", True)),
        )


@dataclass(frozen=True, slots=True)
class Death:
    character: int
    cause: str
    day: int  # the night (numbered by its day) or day it happened
    step: int  # settlement step: deaths of one step share a rank; 0 = drowned (ranked first out)

    def to_json(self) -> list[Any]:
        return [self.character, self.cause, self.day, self.step]

    @classmethod
    def from_json(cls, d: list[Any]) -> Death:
        return cls(int(d[0]), str(d[1]), int(d[2]), int(d[3]))


@dataclass(frozen=True, slots=True)
class Call:
    """A phone (电话/血鬼术符咒) call waiting for the target's answer."""

    id: int
    caller: int
    target: int
    day: int
    answer: str | None = None  # None = pending, "accepted", "refused"

    def to_json(self) -> list[Any]:
        return [self.id, self.caller, self.target, self.day, self.answer]

    @classmethod
    def from_json(cls, d: list[Any]) -> Call:
        return cls(int(d[0]), int(d[1]), int(d[2]), int(d[3]), d[4])


@dataclass(slots=True)
class GameState:
    ruleset: str
    day: int = 0
    phase: str = SETUP
    characters: dict[int, Character] = field(default_factory=dict)
    places: dict[str, Place] = field(default_factory=dict)
    items: dict[int, Item] = field(default_factory=dict)
    gone: dict[int, str] = field(default_factory=dict)
    deaths: tuple[Death, ...] = ()
    step: int = 0
    next_item: int = 1
    shrink_tonight: tuple[str, ...] = ()
    calls: tuple[Call, ...] = ()
    winner: int | None = None
    flags: dict[str, Any] = field(default_factory=dict)

    # --- reads -----------------------------------------------------------------------------------

    def at_place(self, place: str) -> list[Character]:
        return [c for c in self.characters.values() if c.alive and c.place == place]

    def places_on_map(self) -> list[str]:
        return [p.name for p in self.places.values() if not p.gone]

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "day": self.day,
            "phase": self.phase,
            "characters": [c.to_json() for c in self.characters.values()],
            "places": [p.to_json() for p in self.places.values()],
            "items": [i.to_json() for i in self.items.values()],
            "gone": [[k, v] for k, v in self.gone.items()],
            "deaths": [d.to_json() for d in self.deaths],
            "step": self.step,
            "next_item": self.next_item,
            "shrink_tonight": list(self.shrink_tonight),
            "calls": [c.to_json() for c in self.calls],
            "winner": self.winner,
            "flags": dict(self.flags),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GameState:
        chars = [Character.from_json(c) for c in d["characters"]]
        places = [Place.from_json(p) for p in d["places"]]
        items = [Item.from_json(i) for i in d["items"]]
        return cls(
            ruleset=str(d["ruleset"]),
            day=int(d["day"]),
            phase=str(d["phase"]),
            characters={c.id: c for c in chars},
            places={p.name: p for p in places},
            items={i.id: i for i in items},
            gone={int(k): str(v) for k, v in d["gone"]},
            deaths=tuple(Death.from_json(x) for x in d["deaths"]),
            step=int(d["step"]),
            next_item=int(d["next_item"]),
            shrink_tonight=tuple(d["shrink_tonight"]),
            calls=tuple(Call.from_json(x) for x in d["calls"]),
            winner=d.get("winner"),
            flags=dict(d.get("flags") or {}),
        )


def death_announced(deaths: tuple[Death, ...] | list[Death], day: int, cid: int) -> bool:
    """Whether everyone may know that ``cid`` is dead: deaths are announced in the next morning
    report (a red card at once); the last death counts (百鬼夜行 revives, and a revenant may
    die again tonight). True for one who never died."""
    for x in reversed(deaths):
        if x.character == cid:
            return x.day < day or x.cause == CAUSE_RED_CARD
    return True


def known_alive(state: GameState, cid: int) -> bool:
    """Alive as the players know it: alive, or dead without the death announced yet."""
    c = state.characters.get(cid)
    return c is not None and (c.alive or not death_announced(state.deaths, state.day, cid))
