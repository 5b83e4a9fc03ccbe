"""Dealing the roles and the pre-game auction (竞拍: 表演/挡刀 ±1, 性别卡)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.engine.errors import InvalidInput
from games.engine.events import GameEvent

from .draft import Draft, open_draft
from .errors import RulesetNotBuilt
from .hooks import hooks
from .ruleset import Ruleset, get_ruleset
from .state import GameState, Player

GENDERS = ("男", "女")  # 性别: a character's (马甲) or a 性别卡's; None when not known


def auction_cost(rs: Ruleset, bid: Mapping[str, Any], gender: str | None) -> int:
    """Gold spent: each 表演±1 and 挡刀±1 costs its price, a 性别卡 (a gender other than the
    character's) its own."""
    prices = rs.auction_prices
    cost = abs(bid.get("act", 0)) * prices["act"] + abs(bid.get("block", 0)) * prices["block"]
    wanted = bid.get("gender")
    if wanted is not None and wanted != gender:
        cost += prices["gender_card"]
    return int(cost)


def _check_gender(cid: int, name: str, gender: Any) -> None:
    if gender is not None and gender not in GENDERS:
        raise InvalidInput(
            f"{name}的性别只能是男或女（或未定）。",
            message_en=f"The gender of {name} is 男 (male) or 女 (female), or not set.",
            reason=f"bad gender of {cid}",
        )


def _check_bid(
    rs: Ruleset, cid: int, name: str, bid: Mapping[str, Any], gender: str | None
) -> None:
    unknown = set(bid) - {"act", "block", "gender", "gold"}
    gold = bid.get("gold")

    def whole(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    ints = all(whole(bid.get(k, 0)) for k in ("act", "block"))
    if unknown or not ints or not (gold is None or (whole(gold) and gold >= 0)):
        raise InvalidInput(
            f"{name}的竞拍数据无效：表演、挡刀须为整数，金币须为非负整数。",
            message_en=(
                f"The auction entry of {name} is invalid: act and block are whole numbers, "
                "gold a whole number not below 0."
            ),
            reason=f"bad auction entry for {cid}",
        )
    _check_gender(cid, name, bid.get("gender"))
    cost = auction_cost(rs, bid, gender)
    if gold is not None and cost > gold:
        raise InvalidInput(
            f"{name}的竞拍花费{cost}金币，超过其金币{gold}。",
            message_en=f"The auction of {name} costs {cost} gold, more than its {gold} gold.",
            reason=f"auction of {cid} costs more than its gold",
        )


def new_game(
    ruleset: str,
    characters: Sequence[tuple[int, str, str | None]],
    rng: random.Random,
    *,
    roles: Mapping[int, str] | None = None,
    auction: Mapping[int, Mapping[str, Any]] | None = None,
    unbuilt: bool = False,
) -> tuple[GameState, list[GameEvent]]:
    """Deal the roles (from the seed, unless the director gives them) and apply the auction
    (``{id: {"act": ±n, "block": ±n, "gender": "男"|"女", "gold": n}}``; a player without an
    entry keeps 0/0 and the character's gender). A ruleset still being written deals only for
    the engine's own tests (``unbuilt``)."""
    rs = get_ruleset(ruleset)
    if not rs.built and not unbuilt:
        raise RulesetNotBuilt(ruleset=ruleset)
    ids = [c[0] for c in characters]
    if len(set(ids)) != len(ids):
        raise InvalidInput(reason="duplicate character")
    if roles is None:
        deck = [r.key for r in rs.roles.values() for _ in range(r.count)]
        if len(deck) != len(characters):
            raise InvalidInput(
                f"{rs.name} 需要 {len(deck)} 名角色，本局有 {len(characters)} 名。",
                message_en=(
                    f"The ruleset needs {len(deck)} characters; this game has {len(characters)}."
                ),
                reason=f"{rs.name} needs {len(deck)} players",
            )
        rng.shuffle(deck)
        dealt = dict(zip(ids, deck, strict=True))
    else:
        if set(roles) != set(ids) or any(r not in rs.roles for r in roles.values()):
            raise InvalidInput(reason="every character needs a role of the ruleset")
        dealt = dict(roles)
    auction = auction or {}
    players = {}
    if set(auction) - set(ids):
        raise InvalidInput(
            "竞拍结果中有不在本局的角色。",
            message_en="The auction names a character not in this game.",
            reason="auction of an unknown character",
        )
    for cid, name, gender in characters:
        bid = auction.get(cid, {})
        _check_gender(cid, name, gender)
        _check_bid(rs, cid, name, bid, gender)
        role = rs.roles[dealt[cid]]
        players[cid] = Player(
            id=cid,
            name=name,
            gender=bid.get("gender", gender),
            role=role.key,
            faction=role.faction,
            skills=role.skills,
            act=bid.get("act", 0),
            block=bid.get("block", 0),
        )
    d = open_draft(GameState(ruleset=ruleset, players=players), rng)
    d.directors("deal", {"roles": {str(c): r for c, r in dealt.items()}})
    for hook in hooks(rs, "deal"):
        hook(d)
    return d.finish(), d.events


def cards_send(d: Draft) -> None:
    """分发身份: each player's role card, and its team where the faction 共群. Sent when the game
    starts, not at the deal: until then the deal is the director's to adjust, and a card (or a
    wolf's team list) of a deal replaced by 调整身份 would tell a player roles it never had."""
    rs = d.rs
    for p in d.players.values():
        d.to(p.id, "role_card", role_card(rs, p))
        if rs.factions[p.faction].team:
            team = [
                {"id": o.id, "name": o.name} for o in d.players.values() if o.faction == p.faction
            ]
            d.to(p.id, "team", {"faction": p.faction, "members": team})


def role_card(rs: Ruleset, p: Player) -> dict[str, Any]:
    role = rs.roles[p.role]
    return {
        "role": role.key,
        "name": role.name,
        "faction": p.faction,
        "faction_name": rs.factions[p.faction].name,
        "gender": p.gender,
        "act": p.act,
        "block": p.block,
        "note": role.note,
        "skills": [
            {
                "key": s,
                "name": rs.skills[s].name,
                # <冷却：X> with its number, as the post writes it
                "tags": [
                    f"冷却：{rs.skills[s].cooldown}" if t == "冷却" else t
                    for t in sorted(rs.skills[s].tags)
                ],
                "text": rs.skills[s].text,
            }
            for s in p.skills
        ],
    }


def genders_missing(state: GameState) -> list[str]:
    """玩家在游戏中的性别将由马甲决定: when a role in play holds a skill that reads genders (魅惑
    <强制>, 异性玩家), the names of the characters without one (RULINGS werewolf 9)."""
    rs = get_ruleset(state.ruleset)
    held = {s for p in state.players.values() for s in p.skills}
    if not any(rs.skills[s].needs_genders for s in held):
        return []
    return [p.name for p in state.players.values() if p.gender is None]
