"""Rulesets: the data of one rule post, parsed and validated into immutable objects.

A ruleset file is plain JSON (see ``royale/rulesets``). :func:`parse_ruleset` checks every field
and raises :class:`RulesetError` naming the offending field, so a broken file is caught when it is
loaded, not in the middle of a night. Rulesets are looked up by key in a registry.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

TIERS: tuple[str, ...] = ("green", "blue", "purple", "orange")
TIER_RANK: dict[str, int] = {t: i for i, t in enumerate(TIERS)}
TIERED_CATEGORIES = ("weapon", "armor")
UNTIERED_CATEGORIES = ("upgrader", "recon", "tool", "trap", "supply")
CATEGORIES = TIERED_CATEGORIES + UNTIERED_CATEGORIES
EFFECTS_BY_CATEGORY: dict[str, frozenset[str]] = {
    "upgrader": frozenset({"upgrade"}),
    "recon": frozenset({"gps", "telescope"}),
    "tool": frozenset({"megaphone", "phone", "currency"}),
    "trap": frozenset({"bomb"}),
    "supply": frozenset({"supply"}),
}
HOOK_STAGES = (
    "day_close",
    "night_open",
    "post_night",
    "pre_night",
    "shrink_drawn",
    "death",
    "hit",
    "whisper",
    "move",
    "airdrop",
)


class RulesetError(ValueError):
    """A ruleset file that does not validate; ``field`` is the dotted path of the culprit."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


def kind_key(category: str, tier: str | None, name: str) -> str:
    """The identity of an item kind: a name alone is ambiguous ([252] 阳华突)."""
    return f"{category}:{tier}:{name}" if tier else f"{category}:{name}"


@dataclass(frozen=True, slots=True)
class ItemKind:
    key: str
    category: str
    tier: str | None
    name: str
    effect: str
    vote: int
    uses: int | None = None
    damage: int = 0
    reduction: int = 0
    splash: int = 0
    bleeding: int = 0
    max_tier: str | None = None
    value: int = 0
    hp: int = 0
    mp: int = 0
    bleeding_cure: str | None = None  # "cancel" (抵消) or "cure" (治愈)

    def describe(self) -> dict[str, Any]:
        """What a player may see of the kind (names are public)."""
        return {"kind": self.key, "name": self.name, "category": self.category, "tier": self.tier}


@dataclass(frozen=True, slots=True)
class SpecialZone:
    place: str
    attacks: bool
    trade: bool
    opens_day: int
    closes_day: int | None


@dataclass(frozen=True, slots=True)
class Placement:
    selector: str
    count: int


@dataclass(frozen=True, slots=True)
class Ruleset:
    key: str
    title: str
    characters: int | None
    places: tuple[str, ...]
    safe_zone: str
    safe_zone_night: int
    special_zones: tuple[SpecialZone, ...]
    final_place: str | None
    no_airdrop_places: tuple[str, ...]
    shrink_schedule: tuple[int, ...]
    hp_max: int
    mp_max: int
    item_cap: int
    hand_slots: int
    costs: Mapping[str, int]
    search_cooldown: int
    rest_hp: int
    rest_mp_to: int
    rest_free_moves: int
    daily_mp: int
    unarmed_damage: int
    whisper_max: int
    drown_after_night: int
    weather: str
    night_window: Mapping[str, str]
    kinds: Mapping[str, ItemKind]
    tier_names: Mapping[tuple[str, str], tuple[str, ...]]
    placement: tuple[Placement, ...]
    vote_from_day: int
    vote_base: int
    reward_pool: tuple[str, ...]
    phone_texts: Mapping[str, str]
    hooks: Mapping[str, tuple[str, ...]]
    raw: Mapping[str, Any] = field(repr=False, compare=False)
    # Parsed optional sections (events, NPCs, shop ...), by name: see register_section.
    sections: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def kind(self, category: str, tier: str | None, name: str) -> ItemKind:
        return self.kinds[kind_key(category, tier, name)]

    def kinds_with_effect(self, effect: str) -> list[ItemKind]:
        return [k for k in self.kinds.values() if k.effect == effect]

    def selector_kinds(self, selector: str) -> list[ItemKind]:
        """The kinds a placement/reward selector stands for (``weapon:blue`` = the blue names)."""
        parts = selector.split(":")
        if parts[0] in TIERED_CATEGORIES and len(parts) == 2:
            names = self.tier_names.get((parts[0], parts[1]), ())
            return [self.kinds[kind_key(parts[0], parts[1], n)] for n in names]
        kind = self.kinds.get(selector)
        return [kind] if kind else []


# --- parsing ---------------------------------------------------------------------------------


def _get(data: Mapping[str, Any], key: str, path: str) -> Any:
    if not isinstance(data, Mapping):
        raise RulesetError(path, "must be an object")
    if key not in data:
        raise RulesetError(f"{path}.{key}" if path else key, "is missing")
    return data[key]


def _int(value: Any, path: str, *, minimum: int = 0, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesetError(path, "must be an integer")
    if value < minimum:
        raise RulesetError(path, f"must be at least {minimum}")
    return value


def _str(value: Any, path: str, *, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        raise RulesetError(path, "must be a non-empty string")
    return value


def _list(value: Any, path: str) -> Sequence[Any]:
    if not isinstance(value, list):
        raise RulesetError(path, "must be a list")
    return value


def _name(value: Any, path: str) -> str:
    name = _str(value, path)
    if ":" in name:
        raise RulesetError(path, "must not contain ':' (it separates kind keys)")
    return str(name)


def _place(value: Any, path: str, places: Sequence[str], *, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if _str(value, path) not in places:
        raise RulesetError(path, f"{value!r} is not one of the places")
    return value


def _selector(value: Any, path: str, rs: Ruleset) -> str:
    """An item selector (kind key or ``category:tier``) that selects something of the catalogue:
    for the sections, parsed once the catalogue is."""
    if not isinstance(value, str) or not rs.selector_kinds(value):
        raise RulesetError(path, f"{value!r} selects no item of the catalogue")
    return value


def _selectors(value: Any, path: str, rs: Ruleset) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise RulesetError(path, "must be a non-empty list of item selectors")
    return tuple(_selector(v, f"{path}[{i}]", rs) for i, v in enumerate(value))


def _tiered(
    cat: str,
    data: Mapping[str, Any],
    kinds: dict[str, ItemKind],
    tier_names: dict[tuple[str, str], tuple[str, ...]],
) -> None:
    base = f"catalogue.{cat}.tiers"
    tiers = _get(data, "tiers", f"catalogue.{cat}")
    if not isinstance(tiers, Mapping):
        raise RulesetError(base, "must be an object")
    for tier in TIERS:
        spec = _get(tiers, tier, base)
        path = f"{base}.{tier}"
        names = _list(_get(spec, "names", path), f"{path}.names")
        if not names:
            raise RulesetError(f"{path}.names", "must not be empty")
        seen: set[str] = set()
        for i, n in enumerate(names):
            _name(n, f"{path}.names[{i}]")
            if n in seen:
                raise RulesetError(f"{path}.names[{i}]", f"duplicate name {n!r}")
            seen.add(n)
        uses = _int(_get(spec, "uses", path), f"{path}.uses", minimum=1, optional=True)
        vote = _int(_get(spec, "vote", path), f"{path}.vote")
        if cat == "weapon":
            damage = _int(_get(spec, "damage", path), f"{path}.damage", minimum=1)
            splash = _int(spec.get("splash", 0), f"{path}.splash")
            bleeding = _int(spec.get("bleeding", 0), f"{path}.bleeding")
            reduction = 0
        else:
            reduction = _int(_get(spec, "reduction", path), f"{path}.reduction", minimum=1)
            damage = splash = bleeding = 0
        tier_names[(cat, tier)] = tuple(names)
        for n in names:
            key = kind_key(cat, tier, n)
            kinds[key] = ItemKind(
                key=key,
                category=cat,
                tier=tier,
                name=n,
                effect=cat,
                vote=vote,
                uses=uses,
                damage=damage,
                reduction=reduction,
                splash=splash,
                bleeding=bleeding,
            )
    extra = set(tiers) - set(TIERS)
    if extra:
        raise RulesetError(f"{base}.{sorted(extra)[0]}", "is not a tier (green/blue/purple/orange)")


def _untiered(cat: str, data: Mapping[str, Any], kinds: dict[str, ItemKind]) -> None:
    base = f"catalogue.{cat}.kinds"
    entries = _list(_get(data, "kinds", f"catalogue.{cat}"), base)
    for i, spec in enumerate(entries):
        path = f"{base}[{i}]"
        name = _name(_get(spec, "name", path), f"{path}.name")
        effect = _str(_get(spec, "effect", path), f"{path}.effect")
        if effect not in EFFECTS_BY_CATEGORY[cat]:
            raise RulesetError(f"{path}.effect", f"{effect!r} is not an effect of {cat}")
        vote = _int(_get(spec, "vote", path), f"{path}.vote")
        key = kind_key(cat, None, name)
        if key in kinds:
            raise RulesetError(f"{path}.name", f"duplicate name {name!r}")
        extra: dict[str, Any] = {}
        if effect == "upgrade":
            max_tier = _str(_get(spec, "max_tier", path), f"{path}.max_tier")
            if max_tier not in TIERS[1:]:
                raise RulesetError(f"{path}.max_tier", "must be blue, purple or orange")
            extra["max_tier"] = max_tier
        elif effect == "currency":
            extra["value"] = _int(_get(spec, "value", path), f"{path}.value", minimum=1)
        elif effect == "bomb":
            extra["damage"] = _int(_get(spec, "damage", path), f"{path}.damage", minimum=1)
        elif effect == "supply":
            hp = _int(spec.get("hp", 0), f"{path}.hp")
            mp = _int(spec.get("mp", 0), f"{path}.mp")
            if not hp and not mp:
                raise RulesetError(path, "a supply must restore hp or mp")
            cure = spec.get("bleeding")
            if hp and cure not in ("cancel", "cure"):
                raise RulesetError(f"{path}.bleeding", "must be 'cancel' (抵消) or 'cure' (治愈)")
            extra.update(hp=hp, mp=mp, bleeding_cure=cure if hp else None)
        kinds[key] = ItemKind(
            key=key, category=cat, tier=None, name=name, effect=effect, vote=vote, **extra
        )


SectionParser = Callable[[Any, "Ruleset"], Any]
SECTIONS: dict[str, SectionParser] = {}


def register_section(name: str) -> Callable[[SectionParser], SectionParser]:
    """A module that owns a top-level ruleset key (``events``, ``shop`` ...) registers its parser
    here: ``parser(value, ruleset)`` gets the key's JSON value and the ruleset parsed so far
    (places, catalogue), raises :class:`RulesetError` naming the field, and returns the parsed
    value, found later in ``ruleset.sections[name]`` (absent when the file has no such key).
    The field checks here (``_get``, ``_int``, ``_str``, ``_list``, ``_place``, ``_selector``,
    ``_selectors``) are for the section parsers too: one message per kind of mistake."""

    def decorate(fn: SectionParser) -> SectionParser:
        SECTIONS[name] = fn
        return fn

    return decorate


def parse_ruleset(data: Mapping[str, Any]) -> Ruleset:
    """Validate a ruleset document and build the immutable :class:`Ruleset`."""
    base = _parse_base(data)
    sections = {name: fn(data[name], base) for name, fn in SECTIONS.items() if name in data}
    return replace(base, sections=sections) if sections else base


def _parse_base(data: Mapping[str, Any]) -> Ruleset:
    if not isinstance(data, Mapping):
        raise RulesetError("(root)", "must be an object")
    key = _str(_get(data, "key", ""), "key")
    places_raw = _list(_get(data, "places", ""), "places")
    if len(places_raw) < 2:
        raise RulesetError("places", "needs at least two places")
    for i, p in enumerate(places_raw):
        _str(p, f"places[{i}]")
    if len(set(places_raw)) != len(places_raw):
        raise RulesetError("places", "contains a duplicate place")
    places = tuple(places_raw)

    safe = _get(data, "safe_zone", "")
    safe_zone = _place(_get(safe, "place", "safe_zone"), "safe_zone.place", places)
    safe_night = _int(
        _get(safe, "vanishes_after_night", "safe_zone"), "safe_zone.vanishes_after_night", minimum=2
    )

    specials: list[SpecialZone] = []
    for i, z in enumerate(_list(_get(data, "special_zones", ""), "special_zones")):
        path = f"special_zones[{i}]"
        place = _place(_get(z, "place", path), f"{path}.place", places)
        attacks = _get(z, "attacks", path)
        trade = _get(z, "trade", path)
        if not isinstance(attacks, bool) or not isinstance(trade, bool):
            raise RulesetError(f"{path}.attacks", "attacks and trade must be true or false")
        opens = _int(_get(z, "opens_day", path), f"{path}.opens_day", minimum=1)
        closes = _int(z.get("closes_day"), f"{path}.closes_day", minimum=opens, optional=True)
        specials.append(SpecialZone(place, attacks, trade, opens, closes))
    final_place = _place(_get(data, "final_place", ""), "final_place", places, optional=True)
    if final_place == safe_zone:
        raise RulesetError(
            "final_place", "cannot be the safe zone, which vanishes on its fixed night"
        )
    no_airdrop = tuple(
        _place(p, f"no_airdrop_places[{i}]", places)
        for i, p in enumerate(_list(_get(data, "no_airdrop_places", ""), "no_airdrop_places"))
    )

    schedule = tuple(
        _int(n, f"shrink_schedule[{i}]")
        for i, n in enumerate(_list(_get(data, "shrink_schedule", ""), "shrink_schedule"))
    )
    if sum(schedule) > len(places):
        raise RulesetError(
            "shrink_schedule", f"removes {sum(schedule)} places but there are {len(places)}"
        )
    if safe_night > len(schedule) or schedule[safe_night - 1] < 1:
        raise RulesetError(
            "safe_zone.vanishes_after_night",
            "the schedule must remove at least one place that night (the safe zone takes a slot)",
        )

    caps = _get(data, "caps", "")
    costs_raw = _get(data, "costs", "")
    if not isinstance(costs_raw, Mapping):
        raise RulesetError("costs", "must be an object")
    costs: dict[str, int] = {}
    for action in (
        "spawn",
        "move",
        "search",
        "pick_up",
        "attack",
        "equip",
        "use",
        "drop",
        "whisper",
    ):
        costs[action] = _int(_get(costs_raw, action, "costs"), f"costs.{action}")
    rest = _get(data, "rest", "")

    cat_raw = _get(data, "catalogue", "")
    kinds: dict[str, ItemKind] = {}
    tier_names: dict[tuple[str, str], tuple[str, ...]] = {}
    for cat in CATEGORIES:
        section = _get(cat_raw, cat, "catalogue")
        if cat in TIERED_CATEGORIES:
            _tiered(cat, section, kinds, tier_names)
        else:
            _untiered(cat, section, kinds)
    for effect in ("upgrade", "gps", "telescope", "megaphone", "phone", "bomb"):
        if not any(k.effect == effect for k in kinds.values()):
            raise RulesetError("catalogue", f"has no item with effect {effect!r}")

    def check_selector(sel: Any, path: str) -> str:
        s = _str(sel, path)
        parts = s.split(":")
        if parts[0] in TIERED_CATEGORIES and len(parts) == 2:
            if (parts[0], parts[1]) not in tier_names:
                raise RulesetError(path, f"{s!r} names no tier")
            return str(s)
        if s not in kinds:
            raise RulesetError(path, f"{s!r} is not an item of the catalogue")
        return str(s)

    placement: list[Placement] = []
    for i, entry in enumerate(_list(_get(data, "placement", ""), "placement")):
        path = f"placement[{i}]"
        sel = check_selector(_get(entry, "item", path), f"{path}.item")
        count = _int(_get(entry, "count", path), f"{path}.count")
        parts = sel.split(":")
        if (
            parts[0] in TIERED_CATEGORIES
            and len(parts) == 2
            and count > len(tier_names[(parts[0], parts[1])])
        ):
            raise RulesetError(
                f"{path}.count", f"{sel} has only {len(tier_names[(parts[0], parts[1])])} names"
            )
        if parts[0] in TIERED_CATEGORIES and len(parts) == 3 and count > 1:
            raise RulesetError(f"{path}.count", "a named weapon or armor exists at most once")
        placement.append(Placement(sel, count))

    vote = _get(data, "vote", "")
    pool = tuple(
        check_selector(s, f"vote.reward_pool[{i}]")
        for i, s in enumerate(_list(_get(vote, "reward_pool", "vote"), "vote.reward_pool"))
    )
    phone = _get(data, "phone_texts", "")
    phone_texts = {
        k: _str(_get(phone, k, "phone_texts"), f"phone_texts.{k}") for k in ("accepted", "refused")
    }

    hooks_raw = _get(data, "hooks", "")
    hooks: dict[str, tuple[str, ...]] = {}
    if not isinstance(hooks_raw, Mapping):
        raise RulesetError("hooks", "must be an object")
    for stage in HOOK_STAGES:
        # A stage left out has no hooks, so adding a stage later leaves old files valid.
        names = _list(hooks_raw.get(stage, []), f"hooks.{stage}")
        hooks[stage] = tuple(_str(n, f"hooks.{stage}[{i}]") for i, n in enumerate(names))
    unknown_stage = set(hooks_raw) - set(HOOK_STAGES)
    if unknown_stage:
        raise RulesetError(
            f"hooks.{sorted(unknown_stage)[0]}", f"is not a stage ({', '.join(HOOK_STAGES)})"
        )

    window = _get(data, "night_window", "")
    night_window = {
        k: _str(_get(window, k, "night_window"), f"night_window.{k}")
        for k in ("opens", "closes", "timezone")
    }

    return Ruleset(
        key=str(key),
        title=_str(_get(data, "title", ""), "title"),
        characters=_int(_get(data, "characters", ""), "characters", minimum=2, optional=True),
        places=places,
        safe_zone=safe_zone,
        safe_zone_night=safe_night,
        special_zones=tuple(specials),
        final_place=final_place,
        no_airdrop_places=no_airdrop,
        shrink_schedule=schedule,
        hp_max=_int(_get(caps, "hp", "caps"), "caps.hp", minimum=1),
        mp_max=_int(_get(caps, "mp", "caps"), "caps.mp", minimum=1),
        item_cap=_int(_get(caps, "items", "caps"), "caps.items", minimum=1),
        hand_slots=_int(_get(caps, "hands", "caps"), "caps.hands", minimum=1),
        costs=costs,
        search_cooldown=_int(_get(data, "search_cooldown_seconds", ""), "search_cooldown_seconds"),
        rest_hp=_int(_get(rest, "hp", "rest"), "rest.hp"),
        rest_mp_to=_int(_get(rest, "mp_to", "rest"), "rest.mp_to"),
        rest_free_moves=_int(_get(rest, "free_moves", "rest"), "rest.free_moves"),
        daily_mp=_int(_get(data, "daily_mp", ""), "daily_mp"),
        unarmed_damage=_int(_get(data, "unarmed_damage", ""), "unarmed_damage"),
        whisper_max=_int(_get(data, "whisper_max_chars", ""), "whisper_max_chars", minimum=1),
        drown_after_night=_int(_get(data, "drown_after_night", ""), "drown_after_night", minimum=1),
        weather=_str(_get(data, "weather", ""), "weather"),
        night_window=night_window,
        kinds=kinds,
        tier_names=tier_names,
        placement=tuple(placement),
        vote_from_day=_int(_get(vote, "from_day", "vote"), "vote.from_day", minimum=1),
        vote_base=_int(_get(vote, "base_weight", "vote"), "vote.base_weight"),
        reward_pool=pool,
        phone_texts=phone_texts,
        hooks=hooks,
        raw=dict(data),
    )


# --- registry --------------------------------------------------------------------------------

# One JSON file per rule post: ``islington_256.json`` is [256] 伊斯灵顿不眠夜,
# ``kimetsu_252.json`` is [252] 鬼灭之刃. The folder holds data only; this module reads it.
RULESET_DIR = Path(__file__).resolve().parent.parent / "rulesets"
BUILTIN = ("islington_256", "kimetsu_252")

_REGISTRY: dict[str, Ruleset] = {}
_BUILTINS_LOADED = False
_LOADING = threading.Lock()


def builtin_path(key: str) -> Path:
    return RULESET_DIR / f"{key}.json"


def load_file(path: Path | str) -> Ruleset:
    """Read and validate one ruleset file (raises :class:`RulesetError` naming the field)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RulesetError(
            f"(file {path.name}, line {exc.lineno})", f"is not valid JSON: {exc.msg}"
        ) from exc
    ruleset = parse_ruleset(data)
    if ruleset.key != path.stem:
        raise RulesetError("key", f"{ruleset.key!r} does not match the file name {path.stem!r}")
    return ruleset


def register_ruleset(ruleset: Ruleset) -> Ruleset:
    """Make a ruleset available by key (a director's edited copy may replace a built-in)."""
    _REGISTRY[ruleset.key] = ruleset
    return ruleset


def _load_builtins() -> None:
    global _BUILTINS_LOADED
    # Under a lock, and marked loaded only once loaded: the first requests of a fresh server
    # arrive on several threads at once, and none may see a half-filled registry.
    with _LOADING:
        if not _BUILTINS_LOADED:
            for key in BUILTIN:
                # setdefault: a director's edited copy registered earlier stays.
                _REGISTRY.setdefault(key, load_file(builtin_path(key)))
            _BUILTINS_LOADED = True


def get_ruleset(key: str) -> Ruleset:
    found = _REGISTRY.get(key)
    if found is not None:
        return found
    _load_builtins()
    try:
        return _REGISTRY[key]
    except KeyError:
        raise KeyError(f"unknown royale ruleset {key!r}") from None


def ruleset_keys() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)
