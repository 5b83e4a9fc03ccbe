"""The economy by day: currency, exchange, the shop, the auction house, [252] stalls, trades and
gifts, and the director using a day-obtained item for a character.

Ruleset data (each key parsed here): ``shop`` (opening day, where, unit, buy and sell price
lists), ``auction`` (name, opening day, where, hours, minimum bid, the auctionable kinds with the
day each becomes auctionable) and ``stalls`` ([252] 摆摊: opening day, offer deadline, buying
hours, how many prices and choices).

State: everything pending lives in ``flags["market"]`` (see :mod:`royale.engine.house` for the
items the house holds): ``lots`` (拍卖行 lots, the item held by the house), ``bids`` (today's
sealed bids, their notes in escrow), ``stalls`` and ``stall_buyers`` (today's 摆摊),
``trades`` (open offers between characters), ``exchanges`` (requests waiting for the director)
and counters. A ``day_close`` hook (``economy.close``) settles the auction, returns unsold stall
goods and expires the day's offers and requests.

Money: a price is paid from the payer's notes (hands and backpack): the fewest notes that pay it
exactly; when no combination is exact, the fewest notes that overpay least are taken and the house
changes them (they leave the game as ``changed``) into new notes for the price and the change,
so every payment moves exactly the price. New notes are always the fewest possible (largest
denominations first). Paid notes leave the game (``spent``); items sold to the shop leave it
(``sold``) unless they become an auction lot.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

from games.engine.errors import InvalidInput, RuleError

from .actions import Action, register_action_type
from .common import day_actor, director_draft, living
from .draft import Draft, open_draft
from .errors import (
    AlreadyBid,
    AlreadyBought,
    AlreadyOffered,
    BadAsk,
    BadChoice,
    BidTooLow,
    CannotPay,
    CannotSell,
    ExchangePending,
    InvalidTarget,
    MarketHours,
    MarketNotOpen,
    NoBarter,
    NoItems,
    NoSuchMarket,
    NoSuchRequest,
    NoSuchTrade,
    NotAtMarket,
    NotCurrency,
    NotEnoughMoney,
    NothingToExchange,
    NotUsable,
    SoldOut,
    TargetGone,
    TradeNotHere,
    TradePending,
    TradeStale,
    UnknownCharacter,
    UnknownLot,
    UnknownWare,
)
from .hooks import register_hook
from .house import MARKET
from .items import _held, consume_supply, new_unused
from .rules import register_action
from .ruleset import (
    ItemKind,
    Ruleset,
    RulesetError,
    _get,
    _int,
    _list,
    _place,
    _selector,
    _str,
    register_section,
)
from .state import DAY, Character, GameState

Result = tuple[GameState, list[Any]]

# Why a note or item left the game through the economy (the ``gone`` ledger).
GONE_SPENT, GONE_SOLD, GONE_CHANGED = "spent", "sold", "changed"
CURRENCY = "currency"  # the ask of an amount of money ("currency*3")
ASK_MAX_COUNT = 99
TRADE_ASKS = 3  # a trade asks at most this many things (as a stall does in [252])
TIER_ZH = {"green": "绿色", "blue": "蓝色", "purple": "紫色", "orange": "橙色"}
CATEGORY_ZH = {"weapon": "武器", "armor": "防具"}


# --- ruleset sections ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hours:
    """A daily window of the game's local time, ``start`` included, ``end`` excluded."""

    start: str
    end: str

    def holds(self, clock: str) -> bool:
        return self.start <= clock < self.end


@dataclass(frozen=True, slots=True)
class Ware:
    ware: str  # a selector: one new item of it (``weapon:green`` = an unused green name)
    price: int


@dataclass(frozen=True, slots=True)
class SellRule:
    label: str
    kinds: frozenset[str]  # kind keys any of which the shop takes under this rule
    count: int
    price: int


@dataclass(frozen=True, slots=True)
class Shop:
    opens_day: int
    where: str | None  # [252]: only characters whose place is this (在无限城过夜)
    unit: str
    buy: tuple[Ware, ...]
    sell: tuple[SellRule, ...]


@dataclass(frozen=True, slots=True)
class Auction:
    name: str
    opens_day: int
    where: str | None
    hours: Hours | None
    min_bid: int
    from_day: Mapping[str, int]  # auctionable kind key -> first day a lot of it may open


@dataclass(frozen=True, slots=True)
class Stalls:
    opens_day: int
    offer: Hours  # 【售卖】 until the deadline (17:00)
    buy: Hours  # 【购买】 (18:00–20:00)
    max_asks: int
    max_choices: int


@dataclass(frozen=True, slots=True)
class Trades:
    """Gifts and trades between players. ``barter``: whether items may go for items ([256]
    取消了拍卖行的以物易物: no; [252]'s stalls and trades: yes); ``where``: the place both sides
    must have spent the night at ([252] 在无限城过夜的玩家可以交易), or anywhere (None)."""

    barter: bool = True
    where: str | None = None


def _clock_text(value: Any, path: str) -> str:
    text = _str(value, path)
    hh, sep, mm = text.partition(":")
    if (
        not (sep and len(hh) == len(mm) == 2 and (hh + mm).isdigit())
        or int(hh) > 23
        or int(mm) > 59
    ):
        raise RulesetError(path, "must be a time HH:MM")
    return str(text)


def _hours(value: Any, path: str) -> Hours:
    hours = Hours(
        _clock_text(_get(value, "from", path), f"{path}.from"),
        _clock_text(_get(value, "until", path), f"{path}.until"),
    )
    if hours.start >= hours.end:
        raise RulesetError(f"{path}.until", "must be after 'from'")
    return hours


def _keys(rs: Ruleset, selector: Any, path: str) -> list[str]:
    return [k.key for k in rs.selector_kinds(_selector(selector, path, rs))]


def _denominations(rs: Ruleset) -> list[ItemKind]:
    """The currency kinds, largest first."""
    return sorted(rs.kinds_with_effect("currency"), key=lambda k: -k.value)


@register_section("shop")
def _parse_shop(value: Any, rs: Ruleset) -> Shop:
    notes = _denominations(rs)
    if not notes or notes[-1].value != 1:
        raise RulesetError("shop", "the catalogue needs a currency of value 1 (to give change)")
    buy = []
    for i, entry in enumerate(_list(_get(value, "buy", "shop"), "shop.buy")):
        path = f"shop.buy[{i}]"
        ware = _selector(_get(entry, "item", path), f"{path}.item", rs)
        buy.append(Ware(ware, _int(_get(entry, "price", path), f"{path}.price", minimum=1)))
    sell = []
    for i, entry in enumerate(_list(_get(value, "sell", "shop"), "shop.sell")):
        path = f"shop.sell[{i}]"
        selectors = _list(_get(entry, "items", path), f"{path}.items")
        keys = {k for j, s in enumerate(selectors) for k in _keys(rs, s, f"{path}.items[{j}]")}
        sell.append(
            SellRule(
                _str(_get(entry, "label", path), f"{path}.label"),
                frozenset(keys),
                _int(_get(entry, "count", path), f"{path}.count", minimum=1),
                _int(_get(entry, "price", path), f"{path}.price", minimum=1),
            )
        )
    return Shop(
        opens_day=_int(_get(value, "opens_day", "shop"), "shop.opens_day", minimum=1),
        where=_place(value.get("where"), "shop.where", rs.places, optional=True),
        unit=_str(_get(value, "unit", "shop"), "shop.unit"),
        buy=tuple(buy),
        sell=tuple(sell),
    )


@register_section("auction")
def _parse_auction(value: Any, rs: Ruleset) -> Auction:
    from_day: dict[str, int] = {}
    for i, entry in enumerate(_list(_get(value, "items", "auction"), "auction.items")):
        path = f"auction.items[{i}]"
        first = _int(entry.get("from_day", 1), f"{path}.from_day", minimum=1)
        for key in _keys(rs, _get(entry, "item", path), f"{path}.item"):
            from_day[key] = first
    hours = value.get("hours")
    return Auction(
        name=_str(_get(value, "name", "auction"), "auction.name"),
        opens_day=_int(_get(value, "opens_day", "auction"), "auction.opens_day", minimum=1),
        where=_place(value.get("where"), "auction.where", rs.places, optional=True),
        hours=None if hours is None else _hours(hours, "auction.hours"),
        min_bid=_int(_get(value, "min_bid", "auction"), "auction.min_bid", minimum=1),
        from_day=from_day,
    )


@register_section("stalls")
def _parse_stalls(value: Any, rs: Ruleset) -> Stalls:
    offer_until = _clock_text(_get(value, "offer_until", "stalls"), "stalls.offer_until")
    return Stalls(
        opens_day=_int(_get(value, "opens_day", "stalls"), "stalls.opens_day", minimum=1),
        offer=Hours("00:00", offer_until),
        buy=_hours(_get(value, "buy", "stalls"), "stalls.buy"),
        max_asks=_int(_get(value, "max_asks", "stalls"), "stalls.max_asks", minimum=1),
        max_choices=_int(_get(value, "max_choices", "stalls"), "stalls.max_choices", minimum=1),
    )


@register_section("trades")
def _parse_trades(value: Any, rs: Ruleset) -> Trades:
    if not isinstance(value, Mapping):
        raise RulesetError("trades", "must be an object")
    barter = value.get("barter", True)
    if not isinstance(barter, bool):
        raise RulesetError("trades.barter", "must be true or false")
    return Trades(barter, _place(value.get("where"), "trades.where", rs.places, optional=True))


def trades_rules(rs: Ruleset) -> Trades:
    found = rs.sections.get("trades")
    return found if found is not None else Trades()


def unit(rs: Ruleset) -> str:
    shop = rs.sections.get("shop")
    return shop.unit if shop is not None else ""


# --- actions ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShopBuy(Action):
    """常规购买: one new item of a ware of the shop's list, paid in notes."""

    kind: ClassVar[str] = "shop_buy"
    ware: str


@dataclass(frozen=True, slots=True)
class ShopSell(Action):
    """常规售出: items matching one line of the shop's sale list, for its price."""

    kind: ClassVar[str] = "shop_sell"
    items: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """A sealed bid on a lot of the auction house, paid now (held in escrow)."""

    kind: ClassVar[str] = "bid"
    lot: int
    amount: int


@dataclass(frozen=True, slots=True)
class ExchangeRequest(Action):
    """Ask the director to exchange notes (all held notes when empty) into fewer, larger ones."""

    kind: ClassVar[str] = "exchange_request"
    notes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class StallOffer(Action):
    """[252] 【售卖】: one held item on a stall, for any one of up to three prices (asks)."""

    kind: ClassVar[str] = "stall_offer"
    item: int
    asks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StallBuy(Action):
    """[252] 【购买】: up to three ranked choices, each ``"<stall>:<ask index>"``."""

    kind: ClassVar[str] = "stall_buy"
    choices: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Gift(Action):
    kind: ClassVar[str] = "gift"
    target: int
    items: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TradeOffer(Action):
    """Offer held items to a character for everything ``asks`` lists (items and/or money)."""

    kind: ClassVar[str] = "trade_offer"
    target: int
    items: tuple[int, ...]
    asks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TradeAccept(Action):
    """Accept the open offer ``target`` made to the actor: both sides swap at once."""

    kind: ClassVar[str] = "trade_accept"
    target: int


@dataclass(frozen=True, slots=True)
class TradeCancel(Action):
    """Withdraw one's offer to ``target`` and decline ``target``'s offer, whichever are open."""

    kind: ClassVar[str] = "trade_cancel"
    target: int


# --- market state ----------------------------------------------------------------------------


def _market(flags: Mapping[str, Any]) -> Mapping[str, Any]:
    return flags.get(MARKET) or {}


def _write(d: Draft, **changes: Any) -> None:
    """Replace top-level values of the market (copy-on-write: never mutate the old lists)."""
    market = dict(_market(d.flags))
    market.update(changes)
    d.wflags()[MARKET] = market


def _next(d: Draft, counter: str) -> int:
    n = int(_market(d.flags).get(counter, 0)) + 1
    _write(d, **{counter: n})
    return n


# --- money -----------------------------------------------------------------------------------


def _notes(d: Draft, cid: int) -> list[tuple[int, int]]:
    """A character's notes as (item, value), backpack first."""
    c = d.chars[cid]
    out = []
    for iid in c.pack + c.hands:
        kind = d.kind(iid)
        if kind.effect == "currency":
            out.append((iid, kind.value))
    return out


def purse(d: Draft, cid: int) -> int:
    return sum(v for _, v in _notes(d, cid))


def _choose(notes: Sequence[tuple[int, int]], amount: int) -> tuple[list[int], int]:
    """The notes to take for ``amount`` and the overpayment: the smallest reachable total at or
    above the amount, with the fewest notes (a 0/1 subset sum over the held notes)."""
    best: dict[int, list[int]] = {0: []}
    for iid, value in notes:
        for total, used in list(best.items()):
            t = total + value
            if t not in best or len(used) + 1 < len(best[t]):
                best[t] = [*used, iid]
    total = min(t for t in best if t >= amount)
    return best[total], total - amount


def _split(rs: Ruleset, total: int) -> list[ItemKind]:
    """The fewest notes worth ``total``, largest first (a note of value 1 makes any total)."""
    out = []
    for kind in _denominations(rs):
        while total >= kind.value:
            out.append(kind)
            total -= kind.value
    return out


def _mint(d: Draft, total: int, why: str) -> list[int]:
    """New notes worth ``total``: the fewest, largest first."""
    made = []
    for kind in _split(d.rs, total):
        iid = d.new_item(kind.key)
        d.directors("item_created", {"item": iid, "kind": kind.key, "why": why})
        made.append(iid)
    return made


def pay(d: Draft, cid: int, amount: int) -> list[int]:
    """Take ``amount`` from a character's notes; returns notes worth exactly that, now held by
    nobody (the caller spends them, escrows them or hands them on)."""
    notes = _notes(d, cid)
    have = sum(v for _, v in notes)
    if have < amount:
        raise NotEnoughMoney(need=amount, have=have)
    chosen, over = _choose(notes, amount)
    for iid in chosen:
        d.take_from(cid, iid)
    if not over:
        return chosen
    for iid in chosen:
        d.mark_gone(iid, GONE_CHANGED)
    paid = _mint(d, amount, "change")
    change = _mint(d, over, "change")
    d.wc(cid).pack.extend(change)
    d.directors("change_given", {"character": cid, "notes": chosen, "paid": paid, "change": change})
    return paid


def _spend(d: Draft, notes: Sequence[int]) -> None:
    for iid in notes:
        d.mark_gone(iid, GONE_SPENT)


def _listing(names: Iterable[str]) -> str:
    return "、".join(f"【{n}】" for n in names)


def _names(d: Draft, iids: Sequence[int]) -> str:
    return _listing(d.kind(i).name for i in iids) or "无"


def _money(d: Draft, amount: int) -> str:
    return f"{amount}{unit(d.rs)}"


# --- shared checks ---------------------------------------------------------------------------


def _section(d: Draft, name: str) -> Any:
    found = d.rs.sections.get(name)
    if found is None:
        raise NoSuchMarket(market=name)
    return found


def _opened(d: Draft, opens_day: int) -> None:
    if d.day < opens_day:
        raise MarketNotOpen(
            f"第 {opens_day} 天起开放。", message_en=f"Opens on day {opens_day}.", day=opens_day
        )


def _at(d: Draft, c: Character, where: str | None) -> None:
    if where is not None and c.place != where:
        raise NotAtMarket(
            f"只有在【{where}】过夜的角色可以在这里交易。",
            message_en=f"Only characters who spent the night in {where} may trade here.",
            place=where,
        )


def clock(rs: Ruleset, now: float) -> str:
    """The game's local time of day (HH:MM) at ``now`` (POSIX seconds)."""
    zone = ZoneInfo(rs.night_window["timezone"])
    return datetime.fromtimestamp(now, zone).strftime("%H:%M")


def _within(d: Draft, hours: Hours | None, now: float) -> None:
    if hours is not None and not hours.holds(clock(d.rs, now)):
        raise MarketHours(
            f"现在不在交易时间内（{hours.start}–{hours.end}）。",
            message_en=f"Open from {hours.start} until {hours.end}.",
            start=hours.start,
            end=hours.end,
        )


def _own_items(d: Draft, c: Character, iids: Sequence[int]) -> list[int]:
    if not iids or len(set(iids)) != len(iids):
        raise NoItems()
    for iid in iids:
        _held(d, c, iid)
    return list(iids)


def _partner(d: Draft, actor: int, target: int) -> Character:
    """Another living player to give to or trade with."""
    t = d.chars.get(target)
    if t is None:
        raise UnknownCharacter(character=target)
    if target == actor or t.npc:
        raise InvalidTarget(character=target)
    if not t.alive:
        raise TargetGone()
    return t


def _trading_place(d: Draft, *cids: int) -> None:
    """[252] 在无限城过夜的玩家可以交易: by day a character's place is where it spent the night;
    both sides of a gift or a trade must be there."""
    where = trades_rules(d.rs).where
    if where is not None and any(d.chars[cid].place != where for cid in cids):
        raise TradeNotHere(
            f"只有在【{where}】过夜的玩家之间可以交易或赠送。",
            message_en=f"Only players who spent the night in {where} may trade or give.",
            place=where,
        )


def _no_barter(d: Draft, offered: Sequence[int], asks: Sequence[Ask]) -> None:
    """[256] 取消了拍卖行的以物易物: when barter is off, goods go for money only (an offer of goods
    asks money; goods may be asked for money)."""
    if trades_rules(d.rs).barter:
        return
    goods_offered = any(d.kind(i).effect != "currency" for i in offered)
    goods_asked = any(x.selector != CURRENCY for x in asks)
    if goods_offered and goods_asked:
        raise NoBarter()


def _give_back(d: Draft, cid: int, iids: Sequence[int], why: str) -> None:
    """Items the house returns: to the character, or where its body's items went."""
    c = d.chars[cid]
    if c.alive:
        d.wc(cid).pack.extend(iids)
    elif c.place is not None and not d.places[c.place].gone:
        d.drop_at(c.place, list(iids))
    else:
        d.vanish(list(iids), why)


# --- asks (prices of stalls and trades) ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ask:
    selector: str  # CURRENCY, or a catalogue selector (kind key or category:tier)
    count: int  # how many items, or the amount of money

    @property
    def text(self) -> str:
        """As stored in the market state (and read back by :func:`parse_ask`)."""
        return f"{self.selector}*{self.count}"


def parse_ask(rs: Ruleset, text: str, index: int = 0) -> Ask:
    """``"<selector>*<count>"`` (count 1 when left out) or ``"currency*<amount>"``."""
    sel, star, n = text.strip().rpartition("*")
    if not star:
        sel, n = text.strip(), "1"
    if not (n.isascii() and n.isdigit()) or not 1 <= int(n) <= ASK_MAX_COUNT:
        raise BadAsk(ask=index)
    if sel != CURRENCY:
        kinds = rs.selector_kinds(sel)
        # Money is asked as an amount: a note kind as an item would make 1$ ≠ 1$.
        if not kinds or any(k.effect == "currency" for k in kinds):
            raise BadAsk(ask=index)
    return Ask(sel, int(n))


def _asks(rs: Ruleset, texts: Sequence[str], most: int) -> list[Ask]:
    if not 1 <= len(texts) <= most:
        raise BadAsk(asks=len(texts), most=most)
    return [parse_ask(rs, t, i) for i, t in enumerate(texts)]


def _selector_label(rs: Ruleset, selector: str) -> str:
    parts = selector.split(":")
    if len(parts) == 2 and parts[0] in CATEGORY_ZH and parts[1] in TIER_ZH:
        return TIER_ZH[parts[1]] + CATEGORY_ZH[parts[0]]
    return rs.kinds[selector].name


def ask_label(rs: Ruleset, ask: Ask) -> str:
    if ask.selector == CURRENCY:
        return f"{ask.count}{unit(rs)}"
    return f"{_selector_label(rs, ask.selector)}×{ask.count}"


def ask_labels(rs: Ruleset, texts: Sequence[str]) -> list[str]:
    """Stored asks as the players read them."""
    return [ask_label(rs, parse_ask(rs, x)) for x in texts]


def ask_options(rs: Ruleset) -> list[tuple[str, str]]:
    """Asks a form may offer: money 1–8, then each tier and each untiered kind, ×1 and ×2."""
    out = [(f"{CURRENCY}*{n}", f"{n}{unit(rs)}") for n in range(1, 9)]
    selectors = [f"{cat}:{tier}" for cat in CATEGORY_ZH for tier in TIER_ZH]
    selectors += [k.key for k in rs.kinds.values() if k.tier is None and k.effect != "currency"]
    for sel in selectors:
        for n in (1, 2):
            out.append((f"{sel}*{n}", ask_label(rs, Ask(sel, n))))
    return out


def _payment(d: Draft, cid: int, asks: Sequence[Ask]) -> tuple[list[int], int] | None:
    """What ``cid`` hands over for all of ``asks``: held items (the first that fit, backpack before
    hands) and an amount of money; None when it cannot."""
    c = d.chars[cid]
    items: list[int] = []
    money = 0
    for ask in asks:
        if ask.selector == CURRENCY:
            money += ask.count
            continue
        keys = {k.key for k in d.rs.selector_kinds(ask.selector)}
        fit = [i for i in c.pack + c.hands if i not in items and d.items[i].kind in keys]
        if len(fit) < ask.count:
            return None
        items += fit[: ask.count]
    if purse(d, cid) < money:
        return None
    return items, money


def _hand_over(d: Draft, payer: int, payee: int, items: Sequence[int], money: int) -> list[int]:
    for iid in items:
        d.take_from(payer, iid)
    moved = [*items, *(pay(d, payer, money) if money else [])]
    d.wc(payee).pack.extend(moved)
    return moved


def _describe(d: Draft, iids: Sequence[int]) -> list[dict[str, Any]]:
    return [d.describe_item(i) for i in iids]


# --- shop ------------------------------------------------------------------------------------


def _shop(d: Draft, cid: int) -> Shop:
    c = day_actor(d, cid)
    shop: Shop = _section(d, "shop")
    _opened(d, shop.opens_day)
    _at(d, c, shop.where)
    return shop


def _auction(d: Draft, cid: int, now: float) -> Auction:
    c = day_actor(d, cid)
    auction: Auction = _section(d, "auction")
    _opened(d, auction.opens_day)
    _at(d, c, auction.where)
    _within(d, auction.hours, now)
    return auction


def shop_buy(d: Draft, a: ShopBuy, now: float) -> None:
    shop = _shop(d, a.actor)
    ware = next((w for w in shop.buy if w.ware == a.ware), None)
    if ware is None:
        raise UnknownWare(ware=a.ware)
    free = d.restockable_keys(d.rs.selector_kinds(ware.ware))
    if not free:
        raise SoldOut(ware=a.ware)
    notes = pay(d, a.actor, ware.price)
    _spend(d, notes)
    key = d.rng.choice(free)
    iid = d.new_item(key)
    d.wc(a.actor).pack.append(iid)
    text = f"你在商店花费 {_money(d, ware.price)} 购买了【{d.kind(iid).name}】。"
    d.to(
        a.actor,
        "shop_bought",
        {"item": d.describe_item(iid), "price": ware.price, "text": text},
        a.actor,
    )
    d.directors(
        "shop_buy",
        {
            "actor": a.actor,
            "ware": a.ware,
            "item": iid,
            "kind": key,
            "price": ware.price,
            "notes": notes,
        },
        a.actor,
    )


def _auction_day(d: Draft, key: str, day: int) -> bool:
    auction: Auction | None = d.rs.sections.get("auction")
    return auction is not None and auction.from_day.get(key, day + 1) <= day


def _list_lots(d: Draft, iids: Sequence[int], source: str, day: int) -> None:
    """The items become lots opening for bids on ``day``; the lot list is public."""
    lots = list(_market(d.flags).get("lots", ()))
    listed: list[dict[str, Any]] = []
    for iid in iids:
        lot = _next(d, "lot_seq")
        lots.append({"id": lot, "item": iid, "source": source, "day": day})
        listed.append({"lot": lot, "name": d.kind(iid).name, "day": day})
        d.directors("lot_listed", {"lot": lot, "item": iid, "source": source, "day": day})
    _write(d, lots=lots)
    auction: Auction = d.rs.sections["auction"]
    names = _listing(x["name"] for x in listed)
    d.public(
        "auction_listed",
        {"lots": listed, "text": f"{auction.name}第 {day} 天起拍卖：{names}。"},
    )


def hold_for_auction(d: Draft, iids: list[int]) -> list[int]:
    """For the shrink: of the items vanishing with a place (缩圈消失的), the auctionable ones become
    lots for tomorrow; returns the rest, which vanish."""
    day = d.day + 1
    kept = [i for i in iids if _auction_day(d, d.items[i].kind, day)]
    if kept:
        _list_lots(d, kept, "shrink", day)
    return [i for i in iids if i not in kept]


def shop_sell(d: Draft, a: ShopSell, now: float) -> None:
    shop = _shop(d, a.actor)
    items = _own_items(d, d.chars[a.actor], a.items)
    keys = [d.items[i].kind for i in items]
    rule = next(
        (r for r in shop.sell if r.count == len(items) and all(k in r.kinds for k in keys)), None
    )
    if rule is None:
        raise CannotSell(items=items)
    for iid in items:
        d.take_from(a.actor, iid)
    # 前一日售出的 GPS/电话 (and bombs from day 6) are tomorrow's lots; the rest leave the game.
    lots = [i for i in items if _auction_day(d, d.items[i].kind, d.day + 1)]
    if lots:
        _list_lots(d, lots, "sold", d.day + 1)
    for iid in items:
        if iid not in lots:
            d.mark_gone(iid, GONE_SOLD)
    paid = _mint(d, rule.price, "shop_sale")
    d.wc(a.actor).pack.extend(paid)
    text = f"你把{_names(d, items)}卖给商店，获得 {_money(d, rule.price)}。"
    d.to(
        a.actor,
        "shop_sold",
        {"items": _describe(d, items), "price": rule.price, "text": text},
        a.actor,
    )
    d.directors(
        "shop_sell",
        {"actor": a.actor, "items": items, "rule": rule.label, "price": rule.price, "paid": paid},
        a.actor,
    )


# --- auction house ---------------------------------------------------------------------------


def bid(d: Draft, a: Bid, now: float) -> None:
    auction = _auction(d, a.actor, now)
    market = _market(d.flags)
    lot = next((x for x in market.get("lots", ()) if x["id"] == a.lot), None)
    if lot is None or lot["day"] > d.day:
        raise UnknownLot(lot=a.lot)
    if a.amount < auction.min_bid:
        raise BidTooLow(minimum=auction.min_bid)
    bids = list(market.get("bids", ()))
    if any(b["lot"] == a.lot and b["bidder"] == a.actor for b in bids):
        raise AlreadyBid(lot=a.lot)
    notes = pay(d, a.actor, a.amount)
    n = _next(d, "bid_seq")
    entry = {"id": n, "lot": a.lot, "bidder": a.actor, "amount": a.amount, "notes": notes}
    _write(d, bids=[*bids, entry])
    name = d.kind(lot["item"]).name
    text = f"你对{auction.name}的【{name}】出价 {_money(d, a.amount)}（已暂扣，未拍得将全额退还）。"
    d.to(a.actor, "bid_placed", {"lot": a.lot, "amount": a.amount, "text": text}, a.actor)
    d.directors("bid", dict(entry), a.actor)


def _settle_auction(d: Draft) -> None:
    market = _market(d.flags)
    bids = market.get("bids", ())
    if not bids:
        return
    auction: Auction = d.rs.sections["auction"]
    kept, sold = [], []
    for lot in market.get("lots", ()):
        mine = [b for b in bids if b["lot"] == lot["id"]]
        living_bids = [b for b in mine if d.chars[b["bidder"]].alive]
        # 价高者先到者: the highest bid wins, the earlier of equal bids.
        winner = min(living_bids, key=lambda b: (-b["amount"], b["id"]), default=None)
        name = d.kind(lot["item"]).name
        for b in mine:
            won = b is winner
            if won:
                _spend(d, b["notes"])
                d.wc(b["bidder"]).pack.append(lot["item"])
            else:
                _give_back(d, b["bidder"], b["notes"], "refund to the dead")
            if d.chars[b["bidder"]].alive:
                text = (
                    f"你以 {_money(d, b['amount'])} 拍得【{name}】。"
                    if won
                    else f"你未拍得【{name}】，出价 {_money(d, b['amount'])} 已全额退还。"
                )
                payload = {"lot": lot["id"], "amount": b["amount"], "won": won, "text": text}
                if won:
                    payload["item"] = d.describe_item(lot["item"])
                d.to(b["bidder"], "auction_result", payload)
        if winner is None:
            kept.append(lot)
        else:
            sold.append({"lot": lot["id"], "name": name})
        if mine:
            d.directors(
                "auction_settled",
                {
                    "lot": lot["id"],
                    "item": lot["item"],
                    "winner": winner["bidder"] if winner else None,
                    "price": winner["amount"] if winner else None,
                    "bids": [dict(b) for b in mine],
                },
            )
    _write(d, lots=kept, bids=[])
    if sold:
        names = _listing(x["name"] for x in sold)
        d.public("auction_closed", {"sold": sold, "text": f"{auction.name}今日成交：{names}。"})


# --- exchange --------------------------------------------------------------------------------


def _exchange_notes(d: Draft, cid: int, notes: Sequence[int]) -> list[int]:
    """The notes to exchange (all held notes when empty), checked: held, currency, and worth
    exchanging (the same total in fewer notes)."""
    held = dict(_notes(d, cid))
    chosen = list(notes) if notes else list(held)
    if len(set(chosen)) != len(chosen):
        raise NoItems()
    c = d.chars[cid]
    for iid in chosen:
        _held(d, c, iid)
        if iid not in held:
            raise NotCurrency(item=iid)
    total = sum(held[i] for i in chosen)
    if len(_split(d.rs, total)) >= len(chosen):
        raise NothingToExchange(total=total)
    return chosen


def _exchange(d: Draft, cid: int, notes: Sequence[int]) -> list[int]:
    total = sum(d.kind(i).value for i in notes)
    for iid in notes:
        d.take_from(cid, iid)
        d.mark_gone(iid, GONE_CHANGED)
    made = _mint(d, total, "exchange")
    d.wc(cid).pack.extend(made)
    text = f"导演把你的{_names(d, notes)}兑换为{_names(d, made)}。"
    d.to(cid, "exchanged", {"gave": _describe(d, notes), "got": _describe(d, made), "text": text})
    return made


def exchange_request(d: Draft, a: ExchangeRequest, now: float) -> None:
    day_actor(d, a.actor)
    requests = list(_market(d.flags).get("exchanges", ()))
    if any(r["character"] == a.actor for r in requests):
        raise ExchangePending()
    notes = _exchange_notes(d, a.actor, a.notes)
    _write(d, exchanges=[*requests, {"character": a.actor, "notes": notes}])
    into = _listing(k.name for k in _split(d.rs, sum(d.kind(i).value for i in notes)))
    text = f"已申请把{_names(d, notes)}兑换为{into}，等待导演处理。"
    d.to(a.actor, "exchange_requested", {"notes": notes, "text": text}, a.actor)
    d.directors("exchange_requested", {"character": a.actor, "notes": notes}, a.actor)


# --- [252] stalls ----------------------------------------------------------------------------


def _stalls(d: Draft, cid: int, hours: Callable[[Stalls], Hours], now: float) -> Stalls:
    day_actor(d, cid)
    stalls: Stalls = _section(d, "stalls")
    _opened(d, stalls.opens_day)
    _within(d, hours(stalls), now)
    return stalls


def stall_offer(d: Draft, a: StallOffer, now: float) -> None:
    stalls = _stalls(d, a.actor, lambda s: s.offer, now)
    market = _market(d.flags)
    listed = list(market.get("stalls", ()))
    if any(s["seller"] == a.actor for s in listed):
        raise AlreadyOffered()
    _own_items(d, d.chars[a.actor], (a.item,))
    asks = _asks(d.rs, a.asks, stalls.max_asks)
    _no_barter(d, (a.item,), asks)  # a stall of a ruleset without barter sells for money only
    d.take_from(a.actor, a.item)
    stall = {
        "id": len(listed) + 1,  # today's stall number (the list is cleared at the day's close)
        "seller": a.actor,
        "item": a.item,
        "asks": [x.text for x in asks],
        "sold": False,
    }
    _write(d, stalls=[*listed, stall])
    labels = [ask_label(d.rs, x) for x in asks]
    text = f"你摆摊出售【{d.kind(a.item).name}】，求：{' 或 '.join(labels)}。"
    d.to(
        a.actor,
        "stall_opened",
        {"stall": stall["id"], "item": d.describe_item(a.item), "asks": labels, "text": text},
        a.actor,
    )
    d.directors("stall_offer", {"actor": a.actor, **stall}, a.actor)


def _choice(text: str, index: int) -> tuple[int, int]:
    stall, sep, ask = text.partition(":")
    if not (sep and stall.isascii() and stall.isdigit() and ask.isascii() and ask.isdigit()):
        raise BadChoice(choice=index)
    return int(stall), int(ask)


def _open_stall(d: Draft, stall: Mapping[str, Any]) -> bool:
    """Still for sale: not sold, and its seller alive (a dead seller's goods are withdrawn)."""
    return not stall["sold"] and d.chars[stall["seller"]].alive


def stall_buy(d: Draft, a: StallBuy, now: float) -> None:
    stalls = _stalls(d, a.actor, lambda s: s.buy, now)
    market = _market(d.flags)
    buyers = list(market.get("stall_buyers", ()))
    if a.actor in buyers:
        raise AlreadyBought()
    if not 1 <= len(a.choices) <= stalls.max_choices:
        raise BadChoice(choices=len(a.choices), most=stalls.max_choices)
    listed = {s["id"]: s for s in market.get("stalls", ())}
    picks: list[tuple[Mapping[str, Any], Ask]] = []
    for i, text in enumerate(a.choices):
        sid, k = _choice(text, i)
        s = listed.get(sid)
        if s is None or s["seller"] == a.actor or not 0 <= k < len(s["asks"]):
            raise BadChoice(choice=i)
        if any(p[0]["id"] == sid for p in picks):
            raise BadChoice(choice=i)
        picks.append((s, parse_ask(d.rs, s["asks"][k], k)))
    # Every choice still on sale must be payable now: the purchase is final once submitted.
    for i, (s, ask) in enumerate(picks):
        if _open_stall(d, s) and _payment(d, a.actor, [ask]) is None:
            raise CannotPay(choice=i)
    _write(d, stall_buyers=[*buyers, a.actor])
    # 先到先得: the first choice still on sale is bought; the seller is never named.
    for s, ask in picks:
        if _open_stall(d, s):
            _sell_stall(d, a.actor, s, ask)
            return
    text = "你的购买志愿均已售出，本次购买未成交。"
    d.to(a.actor, "stall_bought", {"stall": None, "text": text}, a.actor)
    d.directors("stall_buy", {"actor": a.actor, "choices": list(a.choices), "stall": None})


def _sell_stall(d: Draft, buyer: int, stall: Mapping[str, Any], ask: Ask) -> None:
    payment = _payment(d, buyer, [ask])
    assert payment is not None  # noqa: S101  (checked by the caller)
    paid = _hand_over(d, buyer, stall["seller"], *payment)
    d.wc(buyer).pack.append(stall["item"])
    _write(
        d,
        stalls=[
            dict(s, sold=True, buyer=buyer) if s["id"] == stall["id"] else s
            for s in _market(d.flags)["stalls"]
        ],
    )
    name = d.kind(stall["item"]).name
    d.to(
        buyer,
        "stall_bought",
        {
            "stall": stall["id"],
            "item": d.describe_item(stall["item"]),
            "paid": _describe(d, paid),
            "text": f"你在 {stall['id']} 号摊用{_names(d, paid)}买到了【{name}】。",
        },
        buyer,
    )
    d.to(
        stall["seller"],
        "stall_sold",
        {
            "stall": stall["id"],
            "got": _describe(d, paid),
            "text": f"你摊位上的【{name}】已售出，获得{_names(d, paid)}。",
        },
    )
    d.public(
        "stall_sold", {"stall": stall["id"], "text": f"{stall['id']} 号摊的【{name}】已售出。"}
    )
    d.directors(
        "stall_buy",
        {
            "actor": buyer,
            "stall": stall["id"],
            "seller": stall["seller"],
            "item": stall["item"],
            "paid": paid,
        },
        buyer,
    )


# --- gifts and trades ------------------------------------------------------------------------


def gift(d: Draft, a: Gift, now: float) -> None:
    c = day_actor(d, a.actor)
    _partner(d, a.actor, a.target)
    _trading_place(d, a.actor, a.target)
    items = _own_items(d, c, a.items)
    for iid in items:
        d.take_from(a.actor, iid)
    # Items obtained by day may take a character past the item cap (RULINGS 10).
    d.wc(a.target).pack.extend(items)
    info = _describe(d, items)
    d.to(
        a.target,
        "gift_received",
        {
            "sender": a.actor,
            "sender_name": c.name,
            "items": info,
            "text": f"{c.name} 赠送给你{_names(d, items)}。",
        },
    )
    d.to(
        a.actor,
        "gift_sent",
        {"target": a.target, "items": info, "text": f"你把{_names(d, items)}赠送给了对方。"},
        a.actor,
    )
    d.directors("gift", {"actor": a.actor, "target": a.target, "items": items}, a.actor)


def trade_offer(d: Draft, a: TradeOffer, now: float) -> None:
    c = day_actor(d, a.actor)
    _partner(d, a.actor, a.target)
    _trading_place(d, a.actor, a.target)
    items = _own_items(d, c, a.items)
    asks = _asks(d.rs, a.asks, TRADE_ASKS)
    _no_barter(d, items, asks)
    trades = list(_market(d.flags).get("trades", ()))
    if any(t["from"] == a.actor and t["to"] == a.target for t in trades):
        raise TradePending(target=a.target)
    offer = {
        "from": a.actor,
        "to": a.target,
        "items": items,
        "asks": [x.text for x in asks],
    }
    _write(d, trades=[*trades, offer])
    labels = [ask_label(d.rs, x) for x in asks]
    info = _describe(d, items)
    want = "、".join(labels)
    d.to(
        a.target,
        "trade_offered",
        {
            "sender": a.actor,
            "sender_name": c.name,
            "items": info,
            "asks": labels,
            "text": f"{c.name} 提议用{_names(d, items)}交换你的 {want}。",
        },
    )
    d.to(
        a.actor,
        "trade_proposed",
        {
            "target": a.target,
            "items": info,
            "asks": labels,
            "text": f"你提议用{_names(d, items)}交换对方的 {want}，等待对方接受。",
        },
        a.actor,
    )
    d.directors("trade_offer", {"actor": a.actor, **offer}, a.actor)


def trade_accept(d: Draft, a: TradeAccept, now: float) -> None:
    c = day_actor(d, a.actor)
    trades = list(_market(d.flags).get("trades", ()))
    offer = next((t for t in trades if t["from"] == a.target and t["to"] == a.actor), None)
    if offer is None:
        raise NoSuchTrade(target=a.target)
    o = d.chars[a.target]
    if not o.alive:
        raise TargetGone()
    _trading_place(d, a.actor, a.target)  # a director may have moved either side since
    if any(i not in o.held for i in offer["items"]):
        raise TradeStale()
    payment = _payment(d, a.actor, [parse_ask(d.rs, x) for x in offer["asks"]])
    if payment is None:
        raise CannotPay()
    got = list(offer["items"])
    for iid in got:
        d.take_from(a.target, iid)
    d.wc(a.actor).pack.extend(got)
    paid = _hand_over(d, a.actor, a.target, *payment)
    _write(d, trades=[t for t in trades if t is not offer])
    d.to(
        a.actor,
        "trade_done",
        {
            "partner": a.target,
            "got": _describe(d, got),
            "gave": _describe(d, paid),
            "text": f"交易完成：你用{_names(d, paid)}换得{_names(d, got)}。",
        },
        a.actor,
    )
    d.to(
        a.target,
        "trade_done",
        {
            "partner": a.actor,
            "got": _describe(d, paid),
            "gave": _describe(d, got),
            "text": f"{c.name} 接受了交易：你用{_names(d, got)}换得{_names(d, paid)}。",
        },
    )
    d.directors(
        "trade",
        {"from": a.target, "to": a.actor, "items": got, "paid": paid},
        a.actor,
    )


def trade_cancel(d: Draft, a: TradeCancel, now: float) -> None:
    c = day_actor(d, a.actor)
    trades = list(_market(d.flags).get("trades", ()))
    pair = {a.actor, a.target}
    gone = [t for t in trades if {t["from"], t["to"]} == pair]
    if not gone:
        raise NoSuchTrade(target=a.target)
    _write(d, trades=[t for t in trades if t not in gone])
    d.to(a.actor, "trade_cancelled", {"partner": a.target, "text": "交易提议已取消。"}, a.actor)
    d.to(
        a.target,
        "trade_cancelled",
        {"partner": a.actor, "text": f"与 {c.name} 之间的交易提议已取消。"},
    )
    d.directors("trade_cancelled", {"actor": a.actor, "target": a.target}, a.actor)


# --- the day's close -------------------------------------------------------------------------


@register_hook("economy.close")
def close(d: Draft, stage: str, context: Mapping[str, Any]) -> None:
    """Settle the auction, return unsold stall goods, expire the day's offers and requests."""
    _settle_auction(d)
    market = _market(d.flags)
    for s in market.get("stalls", ()):
        if not s["sold"]:
            _give_back(d, s["seller"], [s["item"]], "stall of the dead")
            if d.chars[s["seller"]].alive:
                text = f"你摊位上的【{d.kind(s['item']).name}】未售出，已退回背包。"
                d.to(s["seller"], "stall_returned", {"stall": s["id"], "text": text})
    for t in market.get("trades", ()):
        for side in (t["from"], t["to"]):
            d.to(side, "trade_cancelled", {"text": "今日未完成的交易提议已过期。"})
    for r in market.get("exchanges", ()):
        d.to(r["character"], "exchange_refused", {"text": "今日的兑换申请未被处理，已过期。"})
    if any(market.get(k) for k in ("stalls", "stall_buyers", "trades", "exchanges")):
        _write(d, stalls=[], stall_buyers=[], trades=[], exchanges=[])


# --- the director ----------------------------------------------------------------------------


def exchange(state: GameState, character: int, notes: Sequence[int], rng: random.Random) -> Result:
    """The director exchanges a character's notes (all of them when ``notes`` is empty) into the
    fewest notes of the same total."""
    d = director_draft(state, rng)
    living(d, character)
    chosen = _exchange_notes(d, character, notes)
    made = _exchange(d, character, chosen)
    d.directors(
        "intervention", {"op": "exchange", "character": character, "notes": chosen, "into": made}
    )
    return d.finish(), d.events


def exchange_answer(state: GameState, character: int, approve: bool, rng: random.Random) -> Result:
    """Approve (exchange now, the notes checked again) or refuse a character's pending request."""
    d = director_draft(state, rng)
    requests = list(_market(d.flags).get("exchanges", ()))
    request = next((r for r in requests if r["character"] == character), None)
    if request is None:
        raise NoSuchRequest(character=character)
    _write(d, exchanges=[r for r in requests if r is not request])
    made: list[int] = []
    if approve:
        living(d, character)
        made = _exchange(d, character, _exchange_notes(d, character, request["notes"]))
    else:
        d.to(character, "exchange_refused", {"text": "导演拒绝了你的兑换申请。"})
    d.directors(
        "intervention",
        {
            "op": "exchange_answer",
            "character": character,
            "approve": approve,
            "notes": request["notes"],
            "into": made,
        },
    )
    return d.finish(), d.events


def list_lot(state: GameState, selector: str, rng: random.Random) -> Result:
    """导演手动上货: a new item of ``selector`` (a kind key, or an unused name of a tier) becomes a
    lot, open for bids today if it is day, else from the next day."""
    d = director_draft(state, rng)
    _section(d, "auction")
    if not d.rs.selector_kinds(selector):
        raise InvalidInput(selector=selector)
    iid = new_unused(d, selector)
    if iid is None:
        raise SoldOut(ware=selector)
    key = d.items[iid].kind
    d.directors("item_created", {"item": iid, "kind": key, "why": "auction"})
    _list_lots(d, [iid], "director", d.day if d.phase == DAY else d.day + 1)
    d.directors("intervention", {"op": "list_lot", "selector": selector, "item": iid, "kind": key})
    return d.finish(), d.events


def use_for(state: GameState, character: int, item: int, rng: random.Random) -> Result:
    """The director uses a supply a character holds anywhere (obtained by day, possibly past the
    item cap) on its behalf, before the night's settlement; the character learns the result."""
    d = director_draft(state, rng)
    kind = _held(d, living(d, character), item)
    if kind.effect != "supply":
        raise NotUsable(item=item, effect=kind.effect)
    before, after = consume_supply(d, character, item, kind)
    text = (
        f"导演帮你使用了【{kind.name}】：生命 {before['hp']}→{after['hp']}，"
        f"体力 {before['mp']}→{after['mp']}"
        + ("，流血已止住" if before["bleeding"] and not after["bleeding"] else "")
        + "。"
    )
    d.to(
        character,
        "director_used",
        {"item": d.describe_item(item), "before": before, "after": after, "text": text},
    )
    d.directors(
        "intervention",
        {
            "op": "use_for",
            "character": character,
            "item": item,
            "kind": kind.key,
            "before": before,
            "after": after,
        },
    )
    return d.finish(), d.events


# --- views -----------------------------------------------------------------------------------


def _refusal(check: Callable[[], object]) -> str:
    """Why a check refuses now ("" when it passes): the rule's own message."""
    try:
        check()
    except RuleError as exc:
        return exc.text
    return ""


def _kind_info(d: Draft, iid: int) -> dict[str, Any]:
    kind = d.kind(iid)
    return {"name": kind.name, "category": kind.category, "tier": kind.tier}


def market_view(state: GameState, cid: int, now: float) -> dict[str, Any]:
    """What one character may see of the economy: its money, the shop, the public lot list with
    its own bids only, the stalls in their hours (never a seller), its own trades and request."""
    d = open_draft(state, random.Random(0))  # read only: the checks below draw nothing
    rs = d.rs
    market = _market(state.flags)
    notes = _notes(d, cid)
    pending = next((r for r in market.get("exchanges", ()) if r["character"] == cid), None)

    def may_exchange() -> None:
        day_actor(d, cid)
        if pending is not None:
            raise ExchangePending()
        _exchange_notes(d, cid, ())

    view: dict[str, Any] = {
        "unit": unit(rs),
        "purse": sum(v for _, v in notes),
        "notes": [{"id": i, "name": d.kind(i).name, "value": v} for i, v in notes],
        "exchange": {
            "pending": None if pending is None else _names(d, pending["notes"]),
            "reason": _refusal(may_exchange),
        },
        "shop": None,
        "auction": None,
        "stalls": None,
    }
    shop: Shop | None = rs.sections.get("shop")
    if shop is not None:
        view["shop"] = {
            "reason": _refusal(lambda: _shop(d, cid)),
            "where": shop.where,
            "buy": [
                {
                    "ware": w.ware,
                    "label": _selector_label(rs, w.ware),
                    "price": w.price,
                    "sold_out": not d.restockable_keys(rs.selector_kinds(w.ware)),
                }
                for w in shop.buy
            ],
            "sell": [{"label": r.label, "count": r.count, "price": r.price} for r in shop.sell],
        }
    auction: Auction | None = rs.sections.get("auction")
    if auction is not None:
        mine = {b["lot"]: b["amount"] for b in market.get("bids", ()) if b["bidder"] == cid}
        view["auction"] = {
            "name": auction.name,
            "reason": _refusal(lambda: _auction(d, cid, now)),
            "min_bid": auction.min_bid,
            "hours": None if auction.hours is None else [auction.hours.start, auction.hours.end],
            "lots": [
                {
                    "id": lot["id"],
                    **_kind_info(d, lot["item"]),
                    "day": lot["day"],
                    "open": lot["day"] <= state.day,
                    "my_bid": mine.get(lot["id"]),
                }
                for lot in market.get("lots", ())
            ],
        }
    stalls: Stalls | None = rs.sections.get("stalls")
    if stalls is not None:
        listed = market.get("stalls", ())
        own = next((s for s in listed if s["seller"] == cid), None)
        shown = state.phase == DAY and clock(rs, now) >= stalls.buy.start
        view["stalls"] = {
            "offer_until": stalls.offer.end,
            "buy": [stalls.buy.start, stalls.buy.end],
            "max_asks": stalls.max_asks,
            "max_choices": stalls.max_choices,
            "offer_reason": _refusal(lambda: _stalls(d, cid, lambda s: s.offer, now))
            or (AlreadyOffered.message if own else ""),
            "buy_reason": _refusal(lambda: _stalls(d, cid, lambda s: s.buy, now))
            or (AlreadyBought.message if cid in market.get("stall_buyers", ()) else ""),
            "mine": None
            if own is None
            else {
                "id": own["id"],
                **_kind_info(d, own["item"]),
                "asks": ask_labels(rs, own["asks"]),
                "sold": own["sold"],
            },
            "list": [
                {
                    "id": s["id"],
                    **_kind_info(d, s["item"]),
                    "asks": ask_labels(rs, s["asks"]),
                    "sold": not _open_stall(d, s),
                    "mine": s["seller"] == cid,
                }
                for s in listed
            ]
            if shown
            else [],
        }
    trades = market.get("trades", ())

    def trade(t: Mapping[str, Any], side: str) -> dict[str, Any]:
        """An open offer, named by its other side (``side``: "from" or "to")."""
        return {
            side: state.characters[t[side]].name,
            "items": [_kind_info(d, i) for i in t["items"]],
            "asks": ask_labels(rs, t["asks"]),
        }

    def may_trade() -> None:
        day_actor(d, cid)
        _trading_place(d, cid)

    view["trades"] = {
        "incoming": [trade(t, "from") for t in trades if t["to"] == cid],
        "outgoing": [trade(t, "to") for t in trades if t["from"] == cid],
        # why this character cannot give or trade now ("": it can), and whether goods may go
        # for goods (RULINGS 31)
        "reason": _refusal(may_trade),
        "barter": trades_rules(rs).barter,
    }
    return view


def market_director_view(state: GameState) -> dict[str, Any]:
    """Everything for the control room: lots with every bid, requests, stalls with their sellers,
    open trades."""
    d = open_draft(state, random.Random(0))
    rs = d.rs
    market = _market(state.flags)
    chars = state.characters

    bids = market.get("bids", ())
    return {
        "unit": unit(rs),
        "lots": [
            {
                "id": lot["id"],
                "item": lot["item"],
                "name": d.kind(lot["item"]).name,
                "source": lot["source"],
                "day": lot["day"],
                "bids": [
                    {"bidder": chars[b["bidder"]].name, "amount": b["amount"], "order": b["id"]}
                    for b in sorted(bids, key=lambda b: (-b["amount"], b["id"]))
                    if b["lot"] == lot["id"]
                ],
            }
            for lot in market.get("lots", ())
        ],
        "exchanges": [
            {
                "character": r["character"],
                "name": chars[r["character"]].name,
                "notes": _names(d, r["notes"]),
                "total": sum(d.kind(i).value for i in r["notes"]),
            }
            for r in market.get("exchanges", ())
        ],
        "stalls": [
            {
                "id": s["id"],
                "seller": chars[s["seller"]].name,
                "item": d.kind(s["item"]).name,
                "asks": ask_labels(rs, s["asks"]),
                "sold": s["sold"],
                "buyer": chars[s["buyer"]].name if s.get("buyer") else None,
            }
            for s in market.get("stalls", ())
        ],
        "trades": [
            {
                "from": chars[t["from"]].name,
                "to": chars[t["to"]].name,
                "items": _names(d, t["items"]),
                "asks": ask_labels(rs, t["asks"]),
            }
            for t in market.get("trades", ())
        ],
    }


for _cls, _fn in (
    (ShopBuy, shop_buy),
    (ShopSell, shop_sell),
    (Bid, bid),
    (ExchangeRequest, exchange_request),
    (StallOffer, stall_offer),
    (StallBuy, stall_buy),
    (Gift, gift),
    (TradeOffer, trade_offer),
    (TradeAccept, trade_accept),
    (TradeCancel, trade_cancel),
):
    register_action_type(_cls)
    register_action(_cls, _fn)
