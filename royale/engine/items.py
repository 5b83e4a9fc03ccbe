"""Items in the night and by day: pick up, 更换, 使用, 丢弃, upgrades, recon and tools."""

from __future__ import annotations

from typing import Any

from games.engine.errors import InvalidInput

from .actions import (
    AnswerPhone,
    Drop,
    Equip,
    Gps,
    Megaphone,
    Phone,
    PickUp,
    Telescope,
    Unequip,
    Upgrade,
    UseItem,
)
from .combat import bomb, in_hand
from .common import acting, check_place, day_actor, here, living, spend
from .draft import Draft
from .errors import (
    BackpackFull,
    CannotUpgrade,
    HandsFull,
    HandSlotTaken,
    InvalidTarget,
    NoSuchCall,
    NotBeforeDayOne,
    NotHeld,
    NothingFound,
    NotInBackpack,
    NotInHand,
    NotUsable,
    TargetGone,
    TierExhausted,
    UnknownCharacter,
    UnknownItem,
    UsedThisNight,
    UsedToday,
)
from .ruleset import TIER_RANK, TIERED_CATEGORIES, TIERS, ItemKind
from .state import GONE_CONSUMED, GONE_UPGRADED, SETUP, Call, Character


def _in_hand(d: Draft, c: Character, iid: int) -> ItemKind:
    if iid not in c.hands:
        if iid in c.pack:
            raise NotInHand(item=iid)
        raise NotHeld(item=iid)
    return d.kind(iid)


def _held(d: Draft, c: Character, iid: int) -> ItemKind:
    if iid not in c.hands and iid not in c.pack:
        raise NotHeld(item=iid)
    return d.kind(iid)


# --- pick up / equip / drop ------------------------------------------------------------------


def pick_up(d: Draft, a: PickUp, now: float) -> None:
    c = acting(d, a.actor)
    f = c.found
    if f is None or f.kind != "item" or f.target is None:
        raise NothingFound()
    place = here(c)
    if f.place != place or f.target not in d.places[place].items:
        raise TargetGone()
    if c.item_count() >= d.rs.item_cap:
        raise BackpackFull(cap=d.rs.item_cap)
    spend(d, a.actor, d.rs.costs["pick_up"])
    d.wp(place).items.remove(f.target)
    d.wc(a.actor).pack.append(f.target)
    info = d.describe_item(f.target)
    d.to(a.actor, "picked_up", {"item": info}, a.actor)
    d.directors("picked_up", {"actor": a.actor, "item": f.target, "place": place}, a.actor)


def equip(d: Draft, a: Equip, now: float) -> None:
    c = acting(d, a.actor)
    if a.item not in c.pack:
        if a.item in c.hands:
            raise NotInBackpack(item=a.item)
        raise NotHeld(item=a.item)
    kind = d.kind(a.item)
    out = a.swap_out
    if out is not None and out not in c.hands:
        raise NotInHand(item=out)
    # One weapon and one armor in hand at most: the one of the same category is the clash.
    same = in_hand(d, a.actor, kind.category) if kind.category in TIERED_CATEGORIES else None
    clash = same[0] if same else None
    if out is None:
        out = clash
        if out is None and len(c.hands) >= d.rs.hand_slots:
            raise HandsFull()
    elif clash is not None and clash != out:
        raise HandSlotTaken(category=kind.category)
    spend(d, a.actor, d.rs.costs["equip"])
    w = d.wc(a.actor)
    w.pack.remove(a.item)
    if out is not None:
        w.hands[w.hands.index(out)] = a.item
        w.pack.append(out)
    else:
        w.hands.append(a.item)
    payload = {
        "item": d.describe_item(a.item),
        "put_away": d.describe_item(out) if out is not None else None,
    }
    d.to(a.actor, "equipped", payload, a.actor)
    d.directors("equipped", {"actor": a.actor, "item": a.item, "put_away": out}, a.actor)


def unequip(d: Draft, a: Unequip, now: float) -> None:
    c = acting(d, a.actor)
    if a.item not in c.hands:
        raise NotInHand(item=a.item)
    spend(d, a.actor, d.rs.costs["equip"])
    w = d.wc(a.actor)
    w.hands.remove(a.item)
    w.pack.append(a.item)
    d.to(a.actor, "unequipped", {"item": d.describe_item(a.item)}, a.actor)
    d.directors("unequipped", {"actor": a.actor, "item": a.item}, a.actor)


def drop(d: Draft, a: Drop, now: float) -> None:
    c = acting(d, a.actor)
    _held(d, c, a.item)
    place = here(c)
    spend(d, a.actor, d.rs.costs["drop"])
    d.take_from(a.actor, a.item)
    d.wp(place).items.append(a.item)
    d.to(a.actor, "dropped", {"item": d.describe_item(a.item), "place": place}, a.actor)
    d.directors("dropped", {"actor": a.actor, "item": a.item, "place": place}, a.actor)


# --- use -------------------------------------------------------------------------------------


def use(d: Draft, a: UseItem, now: float) -> None:
    c = acting(d, a.actor)
    kind = _in_hand(d, c, a.item)
    if kind.effect == "bomb":
        bomb(d, a.actor, a.item, kind)
        return
    if kind.effect != "supply":
        raise NotUsable(item=a.item, effect=kind.effect)
    spend(d, a.actor, d.rs.costs["use"])
    before, after = consume_supply(d, a.actor, a.item, kind)
    d.to(
        a.actor,
        "used",
        {"item": d.describe_item(a.item), "before": before, "after": after},
        a.actor,
    )
    d.directors(
        "used", {"actor": a.actor, "item": a.item, "before": before, "after": after}, a.actor
    )


def consume_supply(
    d: Draft, cid: int, iid: int, kind: ItemKind
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A supply's effect on its holder, the supply consumed wherever it is held (the director may
    use one for a character by day); returns HP, MP and bleeding before and after."""
    w = d.wc(cid)
    before = {"hp": w.hp, "mp": w.mp, "bleeding": w.bleeding > 0}
    if kind.mp:
        w.mp = min(d.rs.mp_max, w.mp + kind.mp)
    if kind.hp:
        cancels = w.bleeding > 0 and kind.bleeding_cure == "cancel"
        w.bleeding = 0  # 抵消 stops the bleeding instead of healing; 治愈 stops it and heals
        if not cancels:
            w.hp = min(d.rs.hp_max, w.hp + kind.hp)
    d.take_from(cid, iid)
    d.mark_gone(iid, GONE_CONSUMED)
    after = {"hp": w.hp, "mp": w.mp, "bleeding": w.bleeding > 0}
    return before, after


def next_tier_kind(d: Draft, category: str, tier: str) -> str:
    """A kind of the tier after ``tier``, same category, among the names not yet in the game."""
    nxt = TIERS[TIER_RANK[tier] + 1]
    free = d.unused_keys(d.rs.selector_kinds(f"{category}:{nxt}"))
    if not free:
        raise TierExhausted(tier=nxt, category=category)
    return d.rng.choice(free)


def upgrade(d: Draft, a: Upgrade, now: float) -> None:
    c = acting(d, a.actor)
    up = _in_hand(d, c, a.item)
    if up.effect != "upgrade" or up.max_tier is None:
        raise NotUsable(item=a.item, effect=up.effect)
    target = _held(d, c, a.target)
    if target.category not in TIERED_CATEGORIES or target.tier is None:
        raise CannotUpgrade(item=a.target)
    if TIER_RANK[target.tier] + 1 > TIER_RANK[up.max_tier]:
        raise CannotUpgrade(item=a.target, max_tier=up.max_tier)
    new_key = next_tier_kind(d, target.category, target.tier)
    spend(d, a.actor, d.rs.costs["use"])
    w = d.wc(a.actor)
    new_id = d.new_item(new_key)
    slot = w.hands if a.target in w.hands else w.pack
    slot[slot.index(a.target)] = new_id
    w.hands.remove(a.item)
    d.mark_gone(a.item, GONE_CONSUMED)
    d.mark_gone(a.target, GONE_UPGRADED)
    payload = {
        "upgrader": d.describe_item(a.item),
        "from": d.describe_item(a.target),
        "into": d.describe_item(new_id),
    }
    d.to(a.actor, "upgraded", payload, a.actor)
    d.directors(
        "upgraded",
        {
            "actor": a.actor,
            "upgrader": a.item,
            "from": a.target,
            "created": new_id,
            "kind": new_key,
        },
        a.actor,
    )


def _night_recon(d: Draft, actor: int, item: int, effect: str) -> None:
    """A recon item in hand, of the right effect, not yet used tonight (once a night each)."""
    kind = _in_hand(d, acting(d, actor), item)
    if kind.effect != effect:
        raise NotUsable(item=item, effect=kind.effect)
    if d.items[item].used_night == d.day:
        raise UsedThisNight(item=item)


def gps(d: Draft, a: Gps, now: float) -> None:
    _night_recon(d, a.actor, a.item, "gps")
    wanted = d.rs.kinds.get(a.target_kind)
    if wanted is None:
        raise UnknownItem(kind=a.target_kind)
    spend(d, a.actor, d.rs.costs["use"])
    d.wi(a.item).used_night = d.day
    places: set[str] = set()
    found: list[dict[str, Any]] = []
    for item in d.items.values():
        if item.kind != a.target_kind or item.id in d.gone:
            continue
        where, ref = d.locate(item.id)
        # An item the house holds (auction lot, escrow, stall) is on no place of the map.
        place = ref if where == "place" else d.chars[ref].place if where == "character" else None
        found.append({"item": item.id, "where": where, "ref": ref, "place": place})
        if place is not None:
            places.add(place)
    ordered = [p for p in d.rs.places if p in places]
    # The holder is never named: a held item reports only the holder's place (RULINGS 15).
    d.to(a.actor, "gps_result", {"kind": wanted.describe(), "places": ordered}, a.actor)
    d.directors(
        "gps", {"actor": a.actor, "item": a.item, "kind": a.target_kind, "found": found}, a.actor
    )


def telescope(d: Draft, a: Telescope, now: float) -> None:
    _night_recon(d, a.actor, a.item, "telescope")
    targets = tuple(a.targets)
    if len(targets) != 2 or len(set(targets)) != 2 or a.actor in targets:
        raise InvalidTarget(reason="name two other characters")
    for t in targets:
        if t not in d.chars:
            raise UnknownCharacter(character=t)
    spend(d, a.actor, d.rs.costs["use"])
    d.wi(a.item).used_night = d.day
    seen = []
    for t in targets:
        o = d.chars[t]
        items = [dict(d.describe_item(i), in_hand=i in o.hands) for i in o.held]
        seen.append({"character": t, "items": items})
    d.to(a.actor, "telescope_result", {"targets": list(targets), "seen": seen}, a.actor)
    d.directors("telescope", {"actor": a.actor, "item": a.item, "seen": seen}, a.actor)


# --- by day ----------------------------------------------------------------------------------


# Items usable once before day 1 (the test match's 大喇叭: 可在正式比赛第一日前使用), by id;
# ``testmatch.award`` lists them, a use before day 1 takes the item off the list.
EARLY_ITEMS = "early_items"


def megaphone(d: Draft, a: Megaphone, now: float) -> None:
    early = d.phase == SETUP
    c = living(d, a.actor) if early else day_actor(d, a.actor)
    kind = _held(d, c, a.item)
    if kind.effect != "megaphone":
        raise NotUsable(item=a.item, effect=kind.effect)
    if early:
        # Before day 1 there is no day to count uses by: the prize's one use is its list entry.
        if a.item not in d.flags.get(EARLY_ITEMS, ()):
            raise NotBeforeDayOne(item=a.item)
    elif d.items[a.item].used_day == d.day:
        raise UsedToday(item=a.item)
    check_place(d, a.place)
    if early:
        d.wflags()[EARLY_ITEMS] = [i for i in d.flags[EARLY_ITEMS] if i != a.item]
    else:
        d.wi(a.item).used_day = d.day
    items = [d.describe_item(i) for i in d.places[a.place].items]
    chars = [{"character": o.id, "name": o.name} for o in d.at_place(a.place)]
    d.public("megaphone", {"place": a.place, "items": items, "characters": chars})
    d.directors("megaphone", {"actor": a.actor, "item": a.item, "place": a.place}, a.actor)


def phone(d: Draft, a: Phone, now: float) -> None:
    c = day_actor(d, a.actor)
    kind = _held(d, c, a.item)
    if kind.effect != "phone":
        raise NotUsable(item=a.item, effect=kind.effect)
    t = d.chars.get(a.target)
    if t is None:
        raise UnknownCharacter(character=a.target)
    if a.target == a.actor or not t.alive or t.npc:
        raise InvalidTarget(character=a.target)  # 指定一名玩家: an NPC is no player to answer
    d.take_from(a.actor, a.item)
    d.mark_gone(a.item, GONE_CONSUMED)
    call_id = len(d.calls) + 1
    d.add_call(Call(call_id, a.actor, a.target, d.day))
    d.to(
        a.target,
        "phone_call",
        {"call": call_id, "sender": a.actor, "sender_name": c.name, "item": kind.name},
    )
    d.to(
        a.actor,
        "phone_placed",
        {"call": call_id, "target": a.target, "item": d.describe_item(a.item)},
        a.actor,
    )
    d.directors(
        "phone", {"actor": a.actor, "item": a.item, "target": a.target, "call": call_id}, a.actor
    )


def answer_phone(d: Draft, a: AnswerPhone, now: float) -> None:
    day_actor(d, a.actor)
    call = next((x for x in d.calls if x.id == a.call), None)
    if call is None or call.target != a.actor or call.answer is not None or call.day != d.day:
        raise NoSuchCall(call=a.call)
    answer = "accepted" if a.accept else "refused"
    d.calls = tuple(
        Call(x.id, x.caller, x.target, x.day, answer) if x.id == a.call else x for x in d.calls
    )
    # Acceptance opens a private chat of the two until the day's vote ends; the shell reads it
    # from the call (answer "accepted", same day).
    d.public("phone_answer", {"text": d.rs.phone_texts[answer]})
    d.to(call.caller, "phone_answered", {"call": call.id, "answer": answer})
    d.to(a.actor, "phone_answered", {"call": call.id, "answer": answer}, a.actor)
    d.directors(
        "phone_answer",
        {"call": call.id, "caller": call.caller, "target": call.target, "answer": answer},
        a.actor,
    )


# --- for hooks and the shell (events, vote rewards, trades) ----------------------------------


def grant(d: Draft, cid: int, selector: str, why: str) -> int:
    """Give a character a new item from a selector (reward pool entry, event prize). Rewards and
    events may push a character past the 6-item cap (RULINGS 10)."""
    if not d.rs.selector_kinds(selector):
        raise InvalidInput(selector=selector)
    iid = new_unused(d, selector)
    if iid is None:
        raise TierExhausted(selector=selector)
    d.wc(cid).pack.append(iid)
    d.to(cid, "item_granted", {"item": d.describe_item(iid), "why": why})
    d.directors(
        "item_created", {"item": iid, "kind": d.items[iid].kind, "character": cid, "why": why}
    )
    return iid


def new_unused(d: Draft, selector: str) -> int | None:
    """A new item of ``selector``, its name drawn (the director's dice) among those not yet in the
    game (any untiered kind may repeat); None when every name is in the game. The caller puts it
    somewhere and logs its creation."""
    pool = d.unused_keys(d.rs.selector_kinds(selector))
    return d.new_item(d.rng.choice(pool)) if pool else None
