"""Play a whole game with bots taking part in the days and the nights.

    python -m royale.engine.simulate --ruleset islington_256 --bots 40 --seed 7

Bots see the true state (they are a test harness, not players); every step still goes through the
engine's public functions (the five transitions, :func:`apply_action`, and the director's
``riddle_set``, ``list_lot`` and ``exchange_answer``), and refusals are counted. Engine randomness
comes from the shared dice (``games.engine.dice.rng``), bot (and director) choices from their own
seeded generator, so a run is replayable.

A simulated day follows the game's local clock (``night_window.timezone``), so the market's hours
hold: at 09:00 the director writes 阿呆's riddle and now and then puts up a lot, and the bots claim
rewards, vote, use the shop, set up stalls, give, offer trades and ask for exchanges; at 12:00 the
director answers the requests and partners answer the offers; at 18:30 the bots bid and buy at
stalls; then the day closes, and the night's rounds start at the window's opening (21:10).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from games.engine.dice import rng as dice_rng
from games.engine.errors import RuleError
from games.engine.events import GameEvent

from .actions import (
    Action,
    Attack,
    Drop,
    Equip,
    Gps,
    Move,
    PickUp,
    Rest,
    Search,
    Spawn,
    Telescope,
    Upgrade,
    UseItem,
    Whisper,
)
from .economy import (
    CURRENCY,
    Auction,
    Bid,
    ExchangeRequest,
    Gift,
    Shop,
    ShopBuy,
    ShopSell,
    StallBuy,
    StallOffer,
    Stalls,
    TradeAccept,
    TradeCancel,
    TradeOffer,
    clock,
    exchange_answer,
    list_lot,
    parse_ask,
)
from .events import ClaimReward
from .house import MARKET
from .night import day_close, day_open, night_close, night_end, night_open, ranking
from .npcs import present, riddle_set
from .npcs import rules_of as npc_rules
from .rules import apply_action
from .ruleset import TIER_RANK, TIERED_CATEGORIES, ItemKind, Ruleset, get_ruleset
from .setup import new_game
from .state import MODE_NONE, MODE_REST, OVER, Character, GameState
from .votes import Vote, VoteChange

NIGHT_ROUNDS = 14
ROUND_SECONDS = 16  # two rounds per search cooldown of 30 s
MORNING, NOON, EVENING = "09:00", "12:00", "18:30"  # inside the stalls' and auction's hours
HUNT_PLACES = 3  # on a map this small, a bot alone at its place goes where others are
STALL_ASKS = ("currency*1", "currency*2", "currency*3", "weapon:green", "armor:green")

Transition = Callable[[GameState, random.Random], tuple[GameState, list[GameEvent]]]
Watch = Callable[[str, GameState], None]


@dataclass
class DayLog:
    """What happened from one day's open to its night's close, read from the steps' events."""

    day: int
    events: list[str] = field(default_factory=list)  # the day's events, by the post's name
    day_event: str | None = None  # the key of the day's own event (fixed or drawn), not on top
    tallied: bool = False  # the vote was tallied (a public ``vote_result``)
    vote_top: str | None = None
    # Directors' event kinds (shop_buy, bid, gift, ...) and a few derived ones (lot_sold, ...).
    counts: Counter[str] = field(default_factory=Counter)
    actions: int = 0
    seconds: float = 0.0
    engine_seconds: float = 0.0


# Directors' events counted as they are; the others the day log reads are picked apart below.
COUNTED = frozenset(
    {
        "shop_buy",
        "shop_sell",
        "bid",
        "stall_offer",
        "gift",
        "trade_offer",
        "trade",
        "reward_claimed",
        "exchange_requested",
        "lot_listed",
    }
)


@dataclass
class SimResult:
    ruleset: str
    seed: int
    state: GameState
    days: int
    applied: int = 0
    refused: int = 0
    engine_seconds: float = 0.0
    total_seconds: float = 0.0
    refusals: Counter[str] = field(default_factory=Counter)
    events: int = 0
    log: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    event_log: list[GameEvent] = field(default_factory=list)
    day_logs: list[DayLog] = field(default_factory=list)

    @property
    def actions(self) -> int:
        return self.applied + self.refused


class Game:
    """Drives the engine the way the shell will: one dice stream per logged step."""

    def __init__(
        self,
        ruleset: str,
        bots: int,
        seed: int,
        *,
        keep_log: bool = False,
        watch: Watch | None = None,
    ) -> None:
        self.seed = str(seed)
        self.seq = 0
        self.keep_log = keep_log
        self.watch = watch
        self.result_log: list[tuple[str, dict[str, Any]]] = []
        self.event_log: list[GameEvent] = []
        self.applied = self.refused = 0
        self.refusals: Counter[str] = Counter()
        self.day_logs: list[DayLog] = []
        chars = [(i, f"bot{i:02d}") for i in range(1, bots + 1)]
        t = time.perf_counter()
        self.state, events = new_game(ruleset, chars, self._rng("setup"))
        self.engine = time.perf_counter() - t
        self.events = 0
        self._keep(events)
        if watch is not None:
            watch("setup", self.state)

    def _keep(self, events: list[GameEvent]) -> None:
        self.events += len(events)
        if self.keep_log:
            self.event_log += events
        if self.day_logs:
            _read(self.day_logs[-1], self.state, events)

    def _rng(self, purpose: str) -> random.Random:
        self.seq += 1
        return dice_rng(self.seed, self.seq, purpose)

    def _refusal(self, exc: RuleError) -> RuleError:
        self.refused += 1
        self.refusals[exc.code] += 1
        return exc

    def transition(self, fn: Transition, purpose: str | None = None) -> None:
        name = purpose or fn.__name__
        rng = self._rng(name)
        t = time.perf_counter()
        try:
            self.state, events = fn(self.state, rng)
        finally:
            self.engine += time.perf_counter() - t
        self._keep(events)
        if self.watch is not None:
            self.watch(name, self.state)

    def direct(self, purpose: str, fn: Transition) -> RuleError | None:
        """A director's step; a refusal is counted like a bot's."""
        try:
            self.transition(fn, purpose)
        except RuleError as exc:
            return self._refusal(exc)
        return None

    def act(self, action: Action, now: float) -> RuleError | None:
        # The dice stream is the shell's (games.engine.dice), so it is drawn outside the timing.
        rng = self._rng("action")
        if self.day_logs:
            self.day_logs[-1].actions += 1
        t = time.perf_counter()
        try:
            self.state, events = apply_action(self.state, action, rng, now)
        except RuleError as exc:
            self.engine += time.perf_counter() - t
            return self._refusal(exc)
        self.engine += time.perf_counter() - t
        self.applied += 1
        if self.keep_log:
            self.result_log.append((action.kind, action.to_json()))
        self._keep(events)
        return None


def _read(log: DayLog, state: GameState, events: list[GameEvent]) -> None:
    for e in events:
        kind, p = e.kind, e.payload
        if e.audience.kind == "public":
            if kind == "day_event":
                log.events.append(p["name"])
            elif kind == "vote_result":
                log.tallied = True
        elif e.audience.kind != "directors":
            continue
        elif kind in COUNTED:
            log.counts[kind] += 1
        elif kind == "events_today":
            log.day_event = p.get("day_event")
        elif kind == "vote_tally" and p["top"] is not None:
            log.vote_top = state.characters[p["top"]].name
        elif kind == "auction_settled" and p["winner"] is not None:
            log.counts["lot_sold"] += 1
        elif kind == "stall_buy" and p["stall"] is not None:
            log.counts["stall_sold"] += 1
        elif kind == "riddle_answer":
            log.counts["riddle_answer"] += 1
            log.counts["riddle_right"] += bool(p["right"])
        elif kind == "intervention" and p["op"] == "exchange_answer" and p["approve"]:
            log.counts["exchanged"] += 1


def local(rs: Ruleset, day: int, hhmm: str) -> float:
    """``now`` (POSIX seconds) at the game's local time ``hhmm`` of day ``day`` (day 1 = 2 Jan
    1970), so the market's hours (:func:`economy.clock`) see the intended time of day."""
    zone = ZoneInfo(rs.night_window["timezone"])
    hh, mm = (int(x) for x in hhmm.split(":"))
    return (datetime(1970, 1, 1, hh, mm, tzinfo=zone) + timedelta(days=day)).timestamp()


def _kind(rs: Ruleset, state: GameState, iid: int) -> ItemKind:
    return rs.kinds[state.items[iid].kind]


def _players(state: GameState) -> list[int]:
    return [c.id for c in state.characters.values() if c.alive and not c.npc]


def _notes(rs: Ruleset, state: GameState, c: Character) -> list[int]:
    return [i for i in c.held if _kind(rs, state, i).effect == "currency"]


def purse(rs: Ruleset, state: GameState, c: Character) -> int:
    return sum(_kind(rs, state, i).value for i in _notes(rs, state, c))


# --- nights ----------------------------------------------------------------------------------


def _riddle_guess(
    rs: Ruleset, state: GameState, c: Character, brain: random.Random, on_map: list[str]
) -> Whisper | None:
    """Now and then a bot whispers 阿呆 a place, the right one half the time. Every whisper is a
    guess (RULINGS 27); a bot guesses once a night all the same, as a thrifty player would."""
    rules = npc_rules(rs)
    if rules is None or not present(state.flags) or c.mp < rs.costs["whisper"]:
        return None
    adai = state.characters.get(rules.adai.id)
    if adai is None or not adai.alive or adai.place is None:
        return None
    tried = state.flags.get("riddle_answers") or {}
    if tried.get("day") == state.day and c.id in tried["tried"]:
        return None
    if brain.random() >= 0.05:
        return None
    place = adai.place if brain.random() < 0.5 else brain.choice(on_map)
    return Whisper(c.id, adai.id, f"【{place}】")


def choose(
    rs: Ruleset,
    state: GameState,
    c: Character,
    brain: random.Random,
    now: float,
    on_map: list[str] | None = None,
) -> Action | None:
    """One bot decision; None = stop for this round. ``on_map`` may be passed (cached per night)."""
    me = c.id
    if on_map is None:
        on_map = [p for p in rs.places if not state.places[p].gone and state.places[p].open]
    if c.place is None:
        # One bot in forty never shows up (挂机), so drowning shows up in the statistics.
        if me % 40 == 13:
            return None
        return Spawn(me, brain.choice(on_map))
    doomed = c.place in state.shrink_tonight
    safe_places = [p for p in on_map if p != c.place and p not in state.shrink_tonight]
    endgame = len(on_map) <= 2
    rest_chance = 0.35 if c.mp < 30 or c.hp < 40 else 0.02 if endgame else 0.08
    if c.mode == MODE_NONE and not doomed and brain.random() < rest_chance:
        return Rest(me)
    if c.mode == MODE_REST:
        if doomed and c.rest_moves == 0 and safe_places:
            return Move(me, brain.choice(safe_places))
        return None
    if doomed and safe_places and brain.random() < 0.9:
        return Move(me, brain.choice(safe_places))
    f = c.found
    if f is not None and f.place == c.place:
        if f.kind == "character" and not f.attacked and f.handle and brain.random() < 0.85:
            return Attack(me, f.handle)
        if (
            f.kind == "item"
            and c.item_count() < rs.item_cap
            and f.target in state.places[c.place].items
            and brain.random() < 0.9
        ):
            return PickUp(me)
    hand_kinds = {_kind(rs, state, i).category: i for i in c.hands}
    for iid in c.hands:
        k = _kind(rs, state, iid)
        if k.effect == "supply" and ((k.hp and (c.hp < 70 or c.bleeding)) or (k.mp and c.mp < 60)):
            return UseItem(me, iid)
        if k.effect == "bomb" and brain.random() < 0.3:
            return UseItem(me, iid)
        if k.effect == "upgrade":
            targets = [
                i for i in c.hands + c.pack if _kind(rs, state, i).category in ("weapon", "armor")
            ]
            if targets:
                return Upgrade(me, iid, brain.choice(targets))
        if k.effect == "gps" and state.items[iid].used_night != state.day:
            return Gps(me, iid, brain.choice(list(rs.kinds)))
        if k.effect == "telescope" and state.items[iid].used_night != state.day:
            others = [o for o in state.characters if o != me]
            return Telescope(me, iid, tuple(brain.sample(others, 2)))
    for iid in c.pack:
        k = _kind(rs, state, iid)
        if k.category in ("weapon", "armor"):
            held = hand_kinds.get(k.category)
            better = (
                held is None
                or TIER_RANK[_kind(rs, state, held).tier or "green"] < TIER_RANK[k.tier or "green"]
            )
            if better and (held is not None or len(c.hands) < rs.hand_slots):
                return Equip(me, iid)
        elif (
            k.effect in ("supply", "bomb", "upgrade", "gps", "telescope") and brain.random() < 0.25
        ):
            out = next((i for i in c.hands if _kind(rs, state, i).category != "weapon"), None)
            if out is not None or len(c.hands) < rs.hand_slots:
                return Equip(me, iid, out)
    guess = _riddle_guess(rs, state, c, brain, on_map)
    if guess is not None:
        return guess
    if len(on_map) <= HUNT_PLACES and c.place in on_map:
        # Nothing shrinks after the schedule: on a small map a player alone goes to the first
        # place (in the map's order) where others are, if it comes before its own; so the last
        # players gather instead of passing each other, and the game ends.
        peopled = {
            o.place for o in state.characters.values() if o.alive and not o.npc and o.id != me
        }
        target = next((p for p in on_map if p in peopled), None)
        if (
            c.place not in peopled
            and target in safe_places
            and on_map.index(target) < on_map.index(c.place)
            and brain.random() < 0.5
        ):
            return Move(me, target)
    roll = brain.random()
    if roll < 0.62:
        return Search(me)
    if roll < 0.8 and safe_places and len(on_map) > HUNT_PLACES:
        # [252]'s shop and auction serve those who spend the night in 无限城: some go there.
        shop: Shop | None = rs.sections.get("shop")
        market = shop.where if shop is not None else None
        if market in safe_places and brain.random() < 0.25:
            return Move(me, market)
        return Move(me, brain.choice(safe_places))
    if roll < 0.83:
        return Whisper(me, brain.choice([o for o in state.characters if o != me]), "你好")
    if (roll < 0.85 or c.item_count() >= rs.item_cap) and c.pack:
        # Money is dropped last: it buys things by day.
        goods = [i for i in c.pack if _kind(rs, state, i).effect != "currency"]
        return Drop(me, brain.choice(goods or c.pack))
    return None


def night(game: Game, rs: Ruleset, brain: random.Random) -> None:
    night_start = local(rs, game.state.day, rs.night_window["opens"])
    places = game.state.places
    on_map = [p for p in rs.places if not places[p].gone and places[p].open]
    for rnd in range(NIGHT_ROUNDS):
        now = night_start + rnd * ROUND_SECONDS
        order = _players(game.state)
        brain.shuffle(order)
        for cid in order:
            for _ in range(3):  # a bot may chain a few free actions in its turn
                c = game.state.characters[cid]
                if not c.alive:
                    break
                action = choose(rs, game.state, c, brain, now, on_map)
                if action is None or game.act(action, now) is not None:
                    break


# --- days ------------------------------------------------------------------------------------


def day_votes(game: Game, rs: Ruleset, brain: random.Random, now: float) -> None:
    """By day every living bot votes for a random living player; about one in ten then changes."""
    if game.state.day < rs.vote_from_day:
        return
    living = _players(game.state)
    for cid in living:
        game.act(Vote(cid, brain.choice(living)), now)
    for cid in living:
        if brain.random() < 0.1:
            game.act(VoteChange(cid, brain.choice(living)), now)


def _riddle(game: Game, rs: Ruleset) -> None:
    """The director's riddle of the day, hinting at 阿呆's place by its first character."""
    rules = npc_rules(rs)
    if rules is None or not present(game.state.flags):
        return
    adai = game.state.characters.get(rules.adai.id)
    if adai is None or not adai.alive or adai.place is None:
        return
    text = f"今天的我站在一个名字以「{adai.place[0]}」开头的地方。"
    game.direct("riddle", lambda s, r: riddle_set(s, text, r))


def _stock(game: Game, rs: Ruleset, brain: random.Random) -> None:
    """Now and then the director puts up a lot (手动上货) of a kind auctionable today: the few
    GPS and phones that vanish or are sold would leave the auction house nearly idle."""
    auction: Auction | None = rs.sections.get("auction")
    if auction is None or game.state.day < auction.opens_day or brain.random() >= 0.4:
        return
    kinds = sorted(k for k, first in auction.from_day.items() if first <= game.state.day)
    if kinds:
        game.direct("list_lot", _lot(brain.choice(kinds)))


def _lot(selector: str) -> Transition:
    return lambda state, rng: list_lot(state, selector, rng)


def _claim(game: Game, cid: int, brain: random.Random, now: float) -> None:
    c = game.state.characters[cid]
    for offer in c.flags.get("reward_offers", ()):
        if offer["from_day"] <= game.state.day:
            game.act(ClaimReward(cid, brain.choice(offer["options"])), now)


def _surplus(
    rs: Ruleset, state: GameState, c: Character, shop: Shop, brain: random.Random
) -> tuple[int, ...] | None:
    """Backpack items a bot does without, matching one of the shop's sale lines: weapons and armor
    no better than the one in hand, and now and then a tool."""
    in_hand = {
        k.category: TIER_RANK[k.tier or "green"]
        for k in (_kind(rs, state, i) for i in c.hands)
        if k.category in TIERED_CATEGORIES
    }
    for rule in shop.sell:
        fit = []
        for iid in c.pack:
            if state.items[iid].kind not in rule.kinds:
                continue
            k = _kind(rs, state, iid)
            if k.category in TIERED_CATEGORIES:
                if TIER_RANK[k.tier or "green"] <= in_hand.get(k.category, -1):
                    fit.append(iid)
            elif brain.random() < 0.2:
                fit.append(iid)
        if len(fit) >= rule.count:
            return tuple(fit[: rule.count])
    return None


def _wanted(
    rs: Ruleset, state: GameState, c: Character, shop: Shop, brain: random.Random
) -> str | None:
    """A ware the bot can pay for and has a use for: a weapon or armor it lacks, a supply for low
    HP/MP, an upgrader for what it holds, sometimes a bomb."""
    money = purse(rs, state, c)
    held: list[ItemKind] = [_kind(rs, state, i) for i in c.held]
    categories = {k.category for k in held}
    upgradable = any(k.category in TIERED_CATEGORIES and k.tier != "orange" for k in held)
    useful = []
    for ware in shop.buy:
        if ware.price > money:
            continue
        k = rs.selector_kinds(ware.ware)[0]
        if (
            (k.category in TIERED_CATEGORIES and k.category not in categories)
            or (k.effect == "supply" and ((k.hp and c.hp < 70) or (k.mp and c.mp < 60)))
            or (k.effect == "upgrade" and upgradable and brain.random() < 0.5)
            or (k.effect == "bomb" and brain.random() < 0.2)
        ):
            useful.append(ware.ware)
    return brain.choice(useful) if useful else None


def _shop(game: Game, rs: Ruleset, cid: int, brain: random.Random, now: float) -> None:
    shop: Shop | None = rs.sections.get("shop")
    c = game.state.characters[cid]
    if shop is None or game.state.day < shop.opens_day or shop.where not in (None, c.place):
        return
    surplus = _surplus(rs, game.state, c, shop, brain)
    if surplus is not None:
        game.act(ShopSell(cid, surplus), now)
    for _ in range(2):
        c = game.state.characters[cid]
        ware = _wanted(rs, game.state, c, shop, brain)
        if ware is None or game.act(ShopBuy(cid, ware), now) is not None:
            return


def _goods(rs: Ruleset, state: GameState, c: Character) -> list[int]:
    """Backpack items other than money: what a bot offers on a stall or in a trade."""
    return [i for i in c.pack if _kind(rs, state, i).effect != "currency"]


def _dealings(game: Game, rs: Ruleset, cid: int, brain: random.Random, now: float) -> None:
    """[252] a stall now and then; rarely a gift or a trade offer; an exchange request when a bot
    holds many notes."""
    state = game.state
    c = state.characters[cid]
    stalls: Stalls | None = rs.sections.get("stalls")
    goods = _goods(rs, state, c)
    if stalls is not None and state.day >= stalls.opens_day and goods and brain.random() < 0.15:
        asks = brain.sample(STALL_ASKS, brain.randint(1, min(stalls.max_asks, len(STALL_ASKS))))
        game.act(StallOffer(cid, brain.choice(goods), tuple(asks)), now)
    others = [p for p in _players(game.state) if p != cid]
    c = game.state.characters[cid]
    if others and c.pack and brain.random() < 0.03:
        game.act(Gift(cid, brain.choice(others), (brain.choice(c.pack),)), now)
    goods = _goods(rs, game.state, game.state.characters[cid])
    if others and goods and brain.random() < 0.04:
        ask = brain.choice(STALL_ASKS)
        game.act(TradeOffer(cid, brain.choice(others), (brain.choice(goods),), (ask,)), now)
    c = game.state.characters[cid]
    notes = [_kind(rs, game.state, i).value for i in _notes(rs, game.state, c)]
    if len(_fewest(rs, sum(notes))) < len(notes) and brain.random() < 0.5:
        game.act(ExchangeRequest(cid), now)


def _fewest(rs: Ruleset, total: int) -> list[int]:
    """The notes an exchange gives for ``total``: the fewest, largest first."""
    out = []
    for value in sorted((k.value for k in rs.kinds_with_effect("currency")), reverse=True):
        while total >= value:
            out.append(value)
            total -= value
    return out


def _can_pay(rs: Ruleset, state: GameState, c: Character, asks: Sequence[str]) -> bool:
    """Whether a bot pays ``asks`` from its money and its backpack (never what it holds in hand:
    the engine takes backpack items first, so that is what it would hand over)."""
    money = 0
    taken: set[int] = set()
    for text in asks:
        ask = parse_ask(rs, text)
        if ask.selector == CURRENCY:
            money += ask.count
            continue
        keys = {k.key for k in rs.selector_kinds(ask.selector)}
        fit = [i for i in c.pack if i not in taken and state.items[i].kind in keys]
        if len(fit) < ask.count:
            return False
        taken.update(fit[: ask.count])
    return purse(rs, state, c) >= money


def _answer(cid: int, approve: bool) -> Transition:
    return lambda state, rng: exchange_answer(state, cid, approve, rng)


def _noon(game: Game, rs: Ruleset, brain: random.Random, now: float) -> None:
    """The director answers the exchange requests (almost always yes); partners answer offers."""
    market = game.state.flags.get(MARKET) or {}
    for request in market.get("exchanges", ()):
        game.direct("exchange_answer", _answer(request["character"], brain.random() < 0.9))
    for offer in (game.state.flags.get(MARKET) or {}).get("trades", ()):
        partner = game.state.characters[offer["to"]]
        if not partner.alive:
            continue
        if _can_pay(rs, game.state, partner, offer["asks"]) and brain.random() < 0.6:
            game.act(TradeAccept(partner.id, offer["from"]), now)
        elif brain.random() < 0.5:
            game.act(TradeCancel(partner.id, offer["from"]), now)


def _stall_choices(
    rs: Ruleset, state: GameState, c: Character, most: int, brain: random.Random
) -> tuple[str, ...]:
    """Up to ``most`` open stalls of others, each with the first ask the bot can pay."""
    listed = [
        s
        for s in (state.flags.get(MARKET) or {}).get("stalls", ())
        if not s["sold"] and s["seller"] != c.id and state.characters[s["seller"]].alive
    ]
    brain.shuffle(listed)
    choices: list[str] = []
    for s in listed:
        k = next((k for k, a in enumerate(s["asks"]) if _can_pay(rs, state, c, [a])), None)
        if k is not None:
            choices.append(f"{s['id']}:{k}")
        if len(choices) == most:
            break
    return tuple(choices)


def _evening(game: Game, rs: Ruleset, brain: random.Random, now: float) -> None:
    """Stall purchases ([252], 18:00–20:00) and sealed bids on the open lots."""
    stalls: Stalls | None = rs.sections.get("stalls")
    auction: Auction | None = rs.sections.get("auction")
    order = _players(game.state)
    brain.shuffle(order)
    for cid in order:
        state = game.state
        c = state.characters[cid]
        if stalls is not None and state.day >= stalls.opens_day and brain.random() < 0.4:
            choices = _stall_choices(rs, state, c, stalls.max_choices, brain)
            if choices:
                game.act(StallBuy(cid, choices), now)
        if (
            auction is None
            or game.state.day < auction.opens_day
            or auction.where not in (None, c.place)
            or (auction.hours is not None and not auction.hours.holds(clock(rs, now)))
        ):
            continue
        market = game.state.flags.get(MARKET) or {}
        mine = {b["lot"] for b in market.get("bids", ()) if b["bidder"] == cid}
        for lot in market.get("lots", ()):
            money = purse(rs, game.state, game.state.characters[cid])
            if lot["day"] > game.state.day or lot["id"] in mine or money < auction.min_bid:
                continue
            if brain.random() < 0.35:
                top = min(money, auction.min_bid + 2)
                game.act(Bid(cid, lot["id"], brain.randint(auction.min_bid, top)), now)


def day(game: Game, rs: Ruleset, brain: random.Random) -> None:
    d = game.state.day
    morning = local(rs, d, MORNING)
    _riddle(game, rs)
    _stock(game, rs, brain)
    day_votes(game, rs, brain, morning)
    order = _players(game.state)
    brain.shuffle(order)
    for cid in order:
        _claim(game, cid, brain, morning)
        _shop(game, rs, cid, brain, morning)
        _dealings(game, rs, cid, brain, morning)
    _noon(game, rs, brain, local(rs, d, NOON))
    _evening(game, rs, brain, local(rs, d, EVENING))


# --- a whole game ----------------------------------------------------------------------------


def play(
    ruleset: str,
    bots: int,
    seed: int,
    *,
    max_days: int = 60,
    keep_log: bool = False,
    watch: Watch | None = None,
) -> SimResult:
    """``watch(step, state)``, when given, sees the state after the setup and every transition
    and director step."""
    started = time.perf_counter()
    rs = get_ruleset(ruleset)
    game = Game(ruleset, bots, seed, keep_log=keep_log, watch=watch)
    brain = random.Random(f"bots|{ruleset}|{seed}")
    while game.state.phase != OVER and game.state.day < max_days:
        log = DayLog(game.state.day + 1)
        game.day_logs.append(log)
        day_started, engine_before = time.perf_counter(), game.engine
        game.transition(day_open)
        day(game, rs, brain)
        game.transition(day_close)
        game.transition(night_open)
        night(game, rs, brain)
        game.transition(night_end)
        game.transition(night_close)
        log.seconds = time.perf_counter() - day_started
        log.engine_seconds = game.engine - engine_before
    return SimResult(
        ruleset=ruleset,
        seed=seed,
        state=game.state,
        days=game.state.day,
        applied=game.applied,
        refused=game.refused,
        engine_seconds=game.engine,
        total_seconds=time.perf_counter() - started,
        refusals=game.refusals,
        events=game.events,
        log=game.result_log,
        event_log=game.event_log,
        day_logs=game.day_logs,
    )


def _day_line(log: DayLog, deaths: int) -> str:
    n = log.counts
    events = "、".join(log.events) or "-"
    return (
        f"  day {log.day:>2}: {events}; vote top {log.vote_top or '-'}; "
        f"bought {n['shop_buy']}, sold {n['shop_sell']}, lots {n['lot_listed']}, "
        f"bids {n['bid']} (lots sold {n['lot_sold']}), "
        f"stalls {n['stall_offer']} (sold {n['stall_sold']}), gifts {n['gift']}, "
        f"trades {n['trade']}/{n['trade_offer']}, "
        f"exchanges {n['exchanged']}/{n['exchange_requested']}, rewards {n['reward_claimed']}, "
        f"riddle {n['riddle_right']}/{n['riddle_answer']}; deaths {deaths}; "
        f"{log.actions} actions, {log.seconds * 1000:.1f} ms"
    )


def report(res: SimResult, out: Any = None) -> None:
    out = out or sys.stdout
    s = res.state
    p = lambda *a: print(*a, file=out)  # noqa: E731
    bots = sum(1 for c in s.characters.values() if not c.npc)
    p(f"ruleset {res.ruleset}  seed {res.seed}  bots {bots}")
    winner = s.characters[s.winner].name if s.winner is not None else "nobody (导演获胜)"
    state = "over" if s.phase == OVER else f"unfinished ({s.phase})"
    p(f"game {state} after day {res.days}; winner: {winner}")
    table: dict[int, Counter[str]] = {}
    for x in s.deaths:
        table.setdefault(x.day, Counter())[x.cause] += 1
    p("\ndays (events; vote top; bought, sold, lots listed, bids, stalls, gifts,")
    p("      trades done/offered, exchanges done/asked, rewards claimed, riddle right/answers;")
    p("      the night's deaths; actions and time of the day):")
    for log in res.day_logs:
        p(_day_line(log, sum(table.get(log.day, Counter()).values())))
    p("\ndeaths by day and cause:")
    for day in sorted(table):
        p(
            f"  night {day:>2}: "
            + ", ".join(f"{cause} {n}" for cause, n in sorted(table[day].items()))
        )
    totals = Counter(x.cause for x in s.deaths)
    p("  total:    " + ", ".join(f"{cause} {n}" for cause, n in sorted(totals.items())))
    p("\nfinal ranking:")
    for row in ranking(s):
        name = s.characters[row["character"]].name
        how = f"{row['cause']} (night {row['day']})" if row["cause"] else "survivor"
        p(f"  {row['rank']:>3}. {name}  {how}")
    p(f"\nactions: {res.actions} ({res.applied} applied, {res.refused} refused)")
    p(f"events: {res.events}")
    if res.refusals:
        p("refusals: " + ", ".join(f"{k} {v}" for k, v in res.refusals.most_common()))
    rate = res.actions / res.engine_seconds if res.engine_seconds else float("inf")
    total_ms, engine_ms = res.total_seconds * 1000, res.engine_seconds * 1000
    p(f"time: {total_ms:.1f} ms total, {engine_ms:.1f} ms in the engine ({rate:,.0f} actions/s)")
    if res.day_logs:
        per_day = [log.seconds * 1000 for log in res.day_logs]
        p(f"per day: median {statistics.median(per_day):.1f} ms, max {max(per_day):.1f} ms")


# --- how games end, over many seeds ------------------------------------------------------------


@dataclass(frozen=True)
class Ending:
    """How one simulated game ended: a winner, 导演获胜 (nobody alive: ``last_together`` died in
    the last settlement step together; 1 = a lone last death), or unfinished at ``max_days``."""

    seed: int
    days: int
    over: bool
    winner: str | None
    last_together: int
    final_place_gone: int | None  # the night the ruleset's final place vanished (never, RULINGS 23)
    places_left: int

    @property
    def verdict(self) -> str:
        if not self.over:
            return "unfinished"
        if self.winner is not None:
            return "winner"
        return "导演获胜 (lone last death)" if self.last_together == 1 else "导演获胜 (together)"


def ending(res: SimResult) -> Ending:
    s = res.state
    rs = get_ruleset(res.ruleset)
    rows = ranking(s)
    final = s.places.get(rs.final_place) if rs.final_place else None
    return Ending(
        seed=res.seed,
        days=res.days,
        over=s.phase == OVER,
        winner=s.characters[s.winner].name if s.winner is not None else None,
        last_together=0 if s.winner is not None else sum(1 for r in rows if r["rank"] == 1),
        final_place_gone=final.gone_night if final is not None and final.gone else None,
        places_left=len(s.places_on_map()),
    )


def endings(ruleset: str, seeds: Sequence[int], bots: int = 40, max_days: int = 60) -> list[Ending]:
    return [ending(play(ruleset, bots, seed, max_days=max_days)) for seed in seeds]


def endings_report(ruleset: str, found: Sequence[Ending], out: Any = None) -> None:
    """A line per game, then the tally: winners (by the current rules), 导演获胜 split by whether
    the last deaths came together or alone, unfinished games, and the final place's fate."""
    out = out or sys.stdout
    for e in found:
        gone = f"; final place gone night {e.final_place_gone}" if e.final_place_gone else ""
        print(
            f"  {ruleset} seed {e.seed:>3}: {e.verdict}, {e.days} days, "
            f"{e.places_left} places left{gone}",
            file=out,
        )
    print(tally_line(ruleset, found), file=out)


def tally_line(ruleset: str, found: Sequence[Ending]) -> str:
    tally = Counter(e.verdict for e in found)
    vanished = sum(1 for e in found if e.final_place_gone is not None)
    return (
        f"{ruleset}: {tally['winner']}/{len(found)} with a winner; "
        f"导演获胜 {tally['导演获胜 (together)']} with the last several dying at once, "
        f"{tally['导演获胜 (lone last death)']} with a lone last death; "
        f"unfinished {tally['unfinished']}; final place vanished in {vanished}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--ruleset", default="islington_256")
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-days", type=int, default=60)
    parser.add_argument(
        "--endings", type=int, metavar="N", help="only tally how the games of seeds 1..N end"
    )
    args = parser.parse_args(argv)
    if args.endings:
        seeds = range(1, args.endings + 1)
        endings_report(args.ruleset, endings(args.ruleset, seeds, args.bots, args.max_days))
        return 0
    report(play(args.ruleset, args.bots, args.seed, max_days=args.max_days))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
