"""The director's interventions (导演干预): pure functions like every other engine step.

Each one takes a state and returns ``(state, events)``: one DIRECTORS ``intervention`` event that
states every fact (before and after), plus what the affected character may learn about itself
("导演调整了你的生命值"). Nobody else learns anything, except for an airdrop, whose item names
the posts announce publicly (never its places). The shell logs each call as an ``engine_step``,
so ``replay_game`` re-runs interventions like actions.

Interventions are allowed in every phase until the game is over: a director fixes things
whenever they go wrong (RULINGS 20: the test match's live supplies are handed out at night).
"""

from __future__ import annotations

import random
from typing import Any

from games.engine.errors import InvalidInput
from games.engine.events import DIRECTORS, GameEvent

from .combat import die_dropping
from .common import director_draft, living
from .errors import HeldByMarket, PlaceGone, UnknownItem, UnknownPlace
from .items import grant
from .night import airdrop, end_if_decided
from .state import CAUSE_DIRECTOR, GameState

Result = tuple[GameState, list[Any]]

# The ``why`` of items handed out by a director (item_granted / item_created events).
WHY_DIRECTOR = "director"


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def adjust(
    state: GameState,
    character: int,
    rng: random.Random,
    *,
    hp: int = 0,
    mp: int = 0,
    bleeding: int | None = None,
) -> Result:
    """Add ``hp``/``mp`` (negative to take) within the ruleset's bounds; ``bleeding`` sets the
    bleeding amount (0 stops it). HP brought to 0 kills: cause 导演判定 (the director's ruling,
    not 特殊事件), items drop where the character stood as on an event death, and a last survivor
    wins, as after a red card."""
    d = director_draft(state, rng)
    c = living(d, character)
    if not hp and not mp and (bleeding is None or bleeding == c.bleeding):
        raise InvalidInput("没有任何改变。", message_en="Nothing to change.")
    if bleeding is not None and bleeding < 0:
        raise InvalidInput("流血值不能为负。", message_en="Bleeding cannot be negative.")
    # NPCs may start above the players' cap; a director's heal never lowers them to it.
    hp_cap = max(d.rs.hp_max, c.hp) if c.npc else d.rs.hp_max
    before = {"hp": c.hp, "mp": c.mp, "bleeding": c.bleeding}
    w = d.wc(character)
    w.hp = max(0, min(hp_cap, c.hp + hp))
    w.mp = max(0, min(d.rs.mp_max, c.mp + mp))
    if bleeding is not None:
        w.bleeding = bleeding
    after = {"hp": w.hp, "mp": w.mp, "bleeding": w.bleeding}
    changed = [k for k in ("hp", "mp", "bleeding") if before[k] != after[k]]
    d.directors(
        "intervention",
        {
            "op": "adjust",
            "character": character,
            "hp": hp,
            "mp": mp,
            "bleeding": bleeding,
            "before": before,
            "after": after,
        },
    )
    labels = {"hp": "生命值", "mp": "体力", "bleeding": "流血"}
    parts = []
    if "hp" in changed:
        parts.append(f"生命值 {before['hp']}→{after['hp']}")
    if "mp" in changed:
        parts.append(f"体力 {before['mp']}→{after['mp']}")
    if "bleeding" in changed:
        parts.append("流血已止住" if not after["bleeding"] else f"流血 {after['bleeding']}")
    text = "导演调整了你的" + "、".join(labels[k] for k in changed) + "：" + "，".join(parts) + "。"
    if not changed:
        text = "导演调整了你的状态（数值已在上限或下限，没有变化）。"
    # The character learns its own numbers, as after a hit or a supply: nothing about anyone else.
    d.to(character, "director_adjusted", {**after, "changed": changed, "text": text})
    if w.hp <= 0:
        die_dropping(d, character, CAUSE_DIRECTOR, d.next_step())
        end_if_decided(d)
    return d.finish(), d.events


def relocate(state: GameState, character: int, place: str, rng: random.Random) -> Result:
    """Put a character at a place still on the map (a closed special zone too: the director's
    word overrides its opening days). An unspawned character is spawned there. Free; its last
    search result is forgotten, as after any move."""
    d = director_draft(state, rng)
    c = living(d, character)
    p = d.places.get(place)
    if p is None:
        raise UnknownPlace(place=place)
    if p.gone:
        raise PlaceGone(place=place)  # a vanished place holds nobody (invariant)
    if c.place == place:
        raise InvalidInput("角色已经在这个场所。", message_en="Already there.", place=place)
    origin = c.place
    w = d.wc(character)
    w.place = place
    w.found = None
    d.directors(
        "intervention", {"op": "relocate", "character": character, "from": origin, "to": place}
    )
    d.to(character, "director_moved", {"place": place, "text": f"导演把你移动到了【{place}】。"})
    return d.finish(), d.events


def give(state: GameState, character: int, selector: str, rng: random.Random) -> Result:
    """Hand a character a new item (a kind key, or ``category:tier`` for an unused name of that
    tier), into the backpack; may pass the 6-item cap like any reward (RULINGS 10, 20)."""
    d = director_draft(state, rng)
    living(d, character)
    iid = grant(d, character, selector, WHY_DIRECTOR)
    d.directors(
        "intervention",
        {
            "op": "give",
            "character": character,
            "selector": selector,
            "item": iid,
            "kind": d.items[iid].kind,
        },
    )
    return d.finish(), d.events


def take(state: GameState, item: int, rng: random.Random) -> Result:
    """Remove an item from the game wherever it is (held or lying on the ground): it vanishes,
    and the ledger says so (item conservation). A holder learns it lost the item; an item on the
    ground disappears silently (whoever found it learns only when trying to pick it up)."""
    d = director_draft(state, rng)
    if item not in d.items or item in d.gone:
        raise UnknownItem(item=item)
    where, at = d.locate(item)
    if where == "house":
        raise HeldByMarket(item=item, at=at)  # bids and stalls would point at a missing item
    info = d.describe_item(item)
    if where == "character":
        d.take_from(at, item)
        name = info["name"]
        d.to(at, "director_took", {"item": info, "text": f"导演收走了你的【{name}】。"})
    else:
        d.wp(at).items.remove(item)
    d.vanish([item], "director")
    d.directors(
        "intervention",
        {"op": "take", "item": item, "kind": d.items[item].kind, "from": {where: at}},
    )
    return d.finish(), d.events


def drop_supplies(state: GameState, selectors: list[str], rng: random.Random) -> Result:
    """空投 by the director: the engine's airdrop (names announced, places kept hidden)."""
    if not selectors:
        raise InvalidInput("请至少指定一件空投道具。", message_en="Name at least one item.")
    state, events = airdrop(state, list(selectors), rng)
    created = [e.payload for e in events if e.kind == "item_created"]
    log = {
        "op": "airdrop",
        "selectors": list(selectors),
        "items": [{"item": e["item"], "kind": e["kind"], "place": e["place"]} for e in created],
    }
    return state, [*events, GameEvent("intervention", DIRECTORS, log)]
