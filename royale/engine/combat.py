"""Attacks, bombs, damage, armor wear, bleeding, deaths and loot (RULINGS 1–4, 11, 16)."""

from __future__ import annotations

from typing import Any

from .actions import Attack
from .common import acting, here, spend
from .draft import Draft
from .errors import AlreadyAttacked, InvalidTarget, NothingFound, SafeZone, TargetGone
from .hooks import after_death, notify
from .ruleset import ItemKind
from .state import (
    CAUSE_ATTACK,
    CAUSE_BOMB,
    CAUSE_EVENT,
    GONE_BROKEN,
    GONE_CONSUMED,
    Found,
)


def in_hand(d: Draft, cid: int, category: str) -> tuple[int, ItemKind] | None:
    """The weapon or the armor a character holds in hand (at most one of each), if any."""
    for iid in d.chars[cid].hands:
        kind = d.kind(iid)
        if kind.category == category:
            return iid, kind
    return None


def check_attacks_allowed(d: Draft, place: str) -> None:
    """RULINGS 4: no attack, bomb or orange splash in the safe zone (nor in a special zone whose
    ruleset entry says ``attacks: false``); refused before anything is spent."""
    if place == d.rs.safe_zone or any(
        z.place == place and not z.attacks for z in d.rs.special_zones
    ):
        raise SafeZone(place=place)


def wear(d: Draft, owner: int, iid: int) -> None:
    """A limited-use item took part in a hit: one use less; at 0 it breaks and vanishes."""
    item = d.items[iid]
    if item.uses is None:
        return
    w = d.wi(iid)
    w.uses = item.uses - 1
    if w.uses <= 0:
        d.take_from(owner, iid)
        d.mark_gone(iid, GONE_BROKEN)
        info = d.describe_item(iid)
        d.to(owner, "item_broken", {"item": info})
        d.directors("item_broken", {"character": owner, "item": info})


def hurt(d: Draft, cid: int, damage: int, *, bleeding: int = 0) -> bool:
    """Apply damage (the victim learns the amount, never the source); True when it kills."""
    if d.chars[cid].flags.get("immortal"):
        return False  # 阿呆 (血量无限): hits, splash and bombs do nothing to it
    c = d.wc(cid)
    c.hp -= damage
    if c.hp > 0 and bleeding:
        c.bleeding = bleeding  # bleeding does not stack
    d.to(
        cid, "hit", {"damage": damage, "hp": max(c.hp, 0), "bleeding": c.bleeding > 0 and c.hp > 0}
    )
    return c.hp <= 0


def loot(d: Draft, killer: int, items: list[int], place: str) -> tuple[list[int], list[int]]:
    """Items of a character killed by an attack go to the killer up to the item cap."""
    room = max(0, d.rs.item_cap - d.chars[killer].item_count())
    if len(items) <= room:
        gained, left = list(items), []
    else:
        gained = d.rng.sample(items, room)
        taken = set(gained)
        left = [i for i in items if i not in taken]
    if gained:
        d.wc(killer).pack.extend(gained)
    d.drop_at(place, left)
    return gained, left


def die_dropping(d: Draft, cid: int, cause: str, step: int, killer: int | None = None) -> list[int]:
    """Death by bomb, bleeding, event, red card: items fall where the character was."""
    place = d.chars[cid].place
    held = d.kill(cid, cause, step)
    if place is not None and not d.places[place].gone:
        d.drop_at(place, held)
    else:
        d.vanish(held, "no place to drop")
    d.directors(
        "death", {"character": cid, "cause": cause, "place": place, "dropped": held, "step": step}
    )
    after_death(d, cid, cause, killer)
    return held


def kill_by_event(d: Draft, cid: int, cause: str = CAUSE_EVENT, *, step: int | None = None) -> None:
    """For hooks: a death by a special event (特殊事件). Deaths of one settlement step share a rank
    (RULINGS 12): an event that kills several at once passes one ``step = d.next_step()`` to each;
    without it the death is a step of its own."""
    die_dropping(d, cid, cause, d.next_step() if step is None else step)


def attack(d: Draft, a: Attack, now: float) -> None:
    c = acting(d, a.actor)
    f = c.found
    if f is None or f.kind != "character" or f.target is None:
        raise NothingFound()
    if a.handle != f.handle:
        raise InvalidTarget(handle=a.handle)
    if f.attacked:
        raise AlreadyAttacked()
    target = d.chars[f.target]
    place = here(c)
    if not target.alive or target.place != place or f.place != place:
        raise TargetGone()
    check_attacks_allowed(d, place)
    w = spend(d, a.actor, d.rs.costs["attack"])
    w.found = Found(f.kind, f.place, f.target, f.handle, attacked=True)
    strike(d, a.actor, target.id, place, handle=f.handle)


def strike(d: Draft, attacker: int, target: int, place: str, *, handle: str | None) -> None:
    """One hit of ``attacker`` on ``target`` at their common ``place`` (validated by the caller)."""
    step = d.next_step()
    weapon = in_hand(d, attacker, "weapon")
    base = weapon[1].damage if weapon else d.rs.unarmed_damage
    armor = in_hand(d, target, "armor")
    reduction = 0
    if armor is not None:
        reduction = armor[1].reduction
        wear(d, target, armor[0])
    damage = max(0, base - reduction)
    splash = weapon[1].splash if weapon else 0
    bleed = weapon[1].bleeding if weapon else 0
    victims = [(target, damage)]
    if splash:
        victims += [(o.id, splash) for o in d.at_place(place) if o.id not in (attacker, target)]
    dead = [vid for vid, dmg in victims if hurt(d, vid, dmg, bleeding=bleed)]
    if weapon is not None:
        wear(d, attacker, weapon[0])
    loot_all: list[dict[str, Any]] = []
    deaths: list[dict[str, Any]] = []
    for vid in dead:
        held = d.kill(vid, CAUSE_ATTACK, step)
        gained, left = loot(d, attacker, held, place)
        loot_all += [d.describe_item(i) for i in gained]
        deaths.append({"character": vid, "looted": gained, "dropped": left})
        after_death(d, vid, CAUSE_ATTACK, attacker)
    notify(d, "hit", attacker=attacker, target=target, damage=damage, killed=target in dead)
    result: dict[str, Any] = {"handle": handle, "outcome": "killed" if target in dead else "hit"}
    if splash:
        result["others_hit"] = len(victims) - 1
        result["others_killed"] = len(dead) - (1 if target in dead else 0)
    if dead:
        result["loot"] = loot_all
    d.to(attacker, "attack_result", result, attacker)
    d.directors(
        "attack",
        {
            "attacker": attacker,
            "target": target,
            "place": place,
            "weapon": weapon[0] if weapon else None,
            "armor": armor[0] if armor else None,
            "damage": {str(v): dmg for v, dmg in victims},
            "bleeding": bleed,
            "deaths": deaths,
            "step": step,
        },
        attacker,
    )


def bomb(d: Draft, cid: int, iid: int, kind: ItemKind) -> None:
    """炸弹 (used from hand): every other character at the place takes the bomb's damage, armor
    ignored."""
    place = here(d.chars[cid])
    check_attacks_allowed(d, place)
    spend(d, cid, d.rs.costs["use"])
    d.take_from(cid, iid)
    d.mark_gone(iid, GONE_CONSUMED)
    step = d.next_step()
    others = [o.id for o in d.at_place(place) if o.id != cid]
    dead = [o for o in others if hurt(d, o, kind.damage)]
    for o in dead:
        die_dropping(d, o, CAUSE_BOMB, step, killer=cid)
    d.to(cid, "bomb_used", {"item": d.describe_item(iid)}, cid)
    d.directors(
        "bomb",
        {"actor": cid, "item": iid, "place": place, "hit": others, "killed": dead, "step": step},
        cid,
    )
