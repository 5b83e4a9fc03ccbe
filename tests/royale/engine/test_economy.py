"""The economy with the posts' numbers: currency and change, exchange, the shop (战利品 /
无限城交易), the auction house (拍卖行 / 瓜子二手拍卖行), [252] stalls (摆摊), gifts and trades,
and the director using a day-obtained item."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.errors import InvalidInput, RuleError, WrongPhase
from games.engine.events import GameEvent
from royale.engine import day_close, get_ruleset, new_game, night_close
from royale.engine.director import take
from royale.engine.draft import open_draft
from royale.engine.economy import (
    GONE_CHANGED,
    GONE_SOLD,
    GONE_SPENT,
    Bid,
    ExchangeRequest,
    Gift,
    ShopBuy,
    ShopSell,
    StallBuy,
    StallOffer,
    TradeAccept,
    TradeCancel,
    TradeOffer,
    exchange,
    exchange_answer,
    list_lot,
    market_director_view,
    market_view,
    use_for,
)
from royale.engine.errors import (
    ActorDead,
    AlreadyBid,
    AlreadyBought,
    AlreadyOffered,
    BadAsk,
    BadChoice,
    BidTooLow,
    CannotPay,
    CannotSell,
    ExchangePending,
    HeldByMarket,
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
    NotHeld,
    NothingToExchange,
    NotUsable,
    SoldOut,
    TargetGone,
    TradeNotHere,
    TradeStale,
    UnknownLot,
    UnknownWare,
)
from royale.engine.invariants import problems
from royale.engine.items import Gps
from royale.engine.state import CAUSE_ATTACK, CAUSE_RED_CARD, DAY, LATE, NIGHT, GameState

from .support import I256, K252, act, dead, edit, give, of, put, refused, rng, set_game

BEIJING = ZoneInfo("Asia/Shanghai")


def at(hh: int, mm: int = 0) -> datetime:
    """A moment of a game day, 北京时间."""
    return datetime(2025, 4, 6, hh, mm, tzinfo=BEIJING)


def day_game(ruleset: str = I256, n: int = 3, *, day: int = 3, where: str = "监狱") -> GameState:
    """Day ``day`` of a game with nothing scattered; characters 1..n stand (spent the night) at
    ``where``."""
    rs = get_ruleset(ruleset)
    state, _ = new_game(
        ruleset,
        [(i, f"角色{i}") for i in range(1, n + 1)],
        rng(),
        placement={p.selector: 0 for p in rs.placement},
    )
    return edit(set_game(state, day=day, phase=DAY), *range(1, n + 1), place=where)


def money(state: GameState, cid: int, *notes: str) -> tuple[GameState, list[int]]:
    """Give a character notes by name (``"1$"``, ``"金块"``, ``"2円"`` ...)."""
    iids = []
    for name in notes:
        state, iid = give(state, cid, f"tool:{name}")
        iids.append(iid)
    return state, iids


def purse(state: GameState, cid: int) -> int:
    rs = get_ruleset(state.ruleset)
    c = state.characters[cid]
    return sum(rs.kinds[state.items[i].kind].value for i in c.held)


def notes_of(state: GameState, cid: int) -> list[str]:
    rs = get_ruleset(state.ruleset)
    c = state.characters[cid]
    return sorted(
        rs.kinds[state.items[i].kind].name
        for i in c.held
        if rs.kinds[state.items[i].kind].effect == "currency"
    )


def names(state: GameState, iids: list[int]) -> list[str]:
    rs = get_ruleset(state.ruleset)
    return [rs.kinds[state.items[i].kind].name for i in iids]


def sound(state: GameState) -> GameState:
    assert problems(state, cap_items=False) == []
    return state


def lots(state: GameState) -> list[dict]:
    return list(state.flags.get("market", {}).get("lots", ()))


# --- paying and change -----------------------------------------------------------------------


def test_a_price_takes_the_fewest_notes_that_pay_it_exactly():
    state = day_game()
    state, (_, _, two) = money(state, 1, "1$", "1$", "2$")
    after, _ = act(state, ShopBuy(1, "supply:[MP20]雪茄"))
    assert after.gone[two] == GONE_SPENT
    assert notes_of(after, 1) == ["1$", "1$"]
    assert "supply:[MP20]雪茄" in [after.items[i].kind for i in after.characters[1].pack]
    sound(after)


def test_without_an_exact_combination_the_change_comes_in_new_notes():
    state = day_game()
    state, (four,) = money(state, 1, "4$")
    after, events = act(state, ShopBuy(1, "weapon:green"))
    assert after.gone[four] == GONE_CHANGED
    assert notes_of(after, 1) == ["3$"]  # 4$ − 1$, in the fewest notes
    assert purse(after, 1) == 3
    assert of(events, "change_given")[0].audience.kind == "directors"
    sound(after)


def test_one_gold_bar_is_five_dollars_for_royal_jelly():
    state = day_game()
    state, (bar,) = money(state, 1, "金块")
    after, events = act(state, ShopBuy(1, "supply:[HP100]蜂王浆"))
    assert after.gone[bar] == GONE_SPENT
    assert notes_of(after, 1) == []
    assert of(events, "shop_bought")[0].payload["price"] == 5


def test_buying_without_enough_currency_is_refused_and_nothing_is_lost():
    state = day_game()
    state, _ = money(state, 1, "1$", "2$")
    refused(state, ShopBuy(1, "upgrader:书籍"), NotEnoughMoney)
    with pytest.raises(NotEnoughMoney) as exc:
        act(state, ShopBuy(1, "upgrader:书籍"))
    assert exc.value.code == "not_enough_money"
    assert exc.value.detail == {"need": 4, "have": 3}


# --- the shop --------------------------------------------------------------------------------

PRICES_256 = [
    ("weapon:green", 1),
    ("armor:green", 1),
    ("supply:[MP20]雪茄", 2),
    ("supply:[HP30]精油", 2),
    ("upgrader:卷轴", 2),
    ("trap:炸弹", 3),
    ("supply:[MP50]咖啡", 3),
    ("upgrader:书籍", 4),
    ("supply:[MP100]兴奋剂", 4),
    ("supply:[HP100]蜂王浆", 5),
]
PRICES_252 = [
    ("weapon:green", 1),
    ("armor:green", 1),
    ("upgrader:呼吸法指南", 2),
    ("supply:[HP60]愈合膏", 3),
    ("supply:[MP100]源命香", 4),
]


@pytest.mark.parametrize(("ware", "price"), PRICES_256)
def test_256_shop_prices(ware, price):
    state = day_game()
    state, _ = money(state, 1, *["1$"] * 6)
    after, events = act(state, ShopBuy(1, ware))
    assert purse(after, 1) == 6 - price
    (bought,) = [i for i in after.characters[1].pack if i not in state.items]
    assert get_ruleset(I256).kinds[after.items[bought].kind] in get_ruleset(I256).selector_kinds(
        ware
    )
    assert of(events, "shop_bought")[0].payload["price"] == price
    sound(after)


@pytest.mark.parametrize(("ware", "price"), PRICES_252)
def test_252_shop_prices_in_the_infinity_castle(ware, price):
    state = day_game(K252, day=4, where="无限城")
    state, _ = money(state, 1, "4円", "2円")
    after, _ = act(state, ShopBuy(1, ware))
    assert purse(after, 1) == 6 - price


def test_252_trades_only_for_those_who_spent_the_night_in_the_infinity_castle():
    state = day_game(K252, day=4, where="蝶屋")
    state, _ = money(state, 1, "4円")
    with pytest.raises(NotAtMarket) as exc:
        act(state, ShopBuy(1, "supply:[MP100]源命香"))
    assert "无限城" in exc.value.text


def test_the_256_shop_opens_on_day_3():
    state = day_game(day=2)
    state, _ = money(state, 1, "2$")
    refused(state, ShopBuy(1, "upgrader:卷轴"), MarketNotOpen)
    after, _ = act(set_game(state, day=3), ShopBuy(1, "upgrader:卷轴"))
    assert purse(after, 1) == 0


def test_the_shop_sells_only_its_wares_and_only_by_day():
    state = day_game()
    state, _ = money(state, 1, "4$")
    refused(state, ShopBuy(1, "supply:[HP60]甘草糖"), UnknownWare)  # not on 256's list
    refused(set_game(state, phase=NIGHT), ShopBuy(1, "upgrader:卷轴"), WrongPhase)


def test_bought_names_are_those_out_of_play_and_sell_out_while_all_are_in_play():
    rs = get_ruleset(I256)
    assert len(rs.tier_names[("weapon", "green")]) == 60  # 共60件
    state, _ = new_game(I256, [(1, "甲")], rng())  # the default placement deals all 60 greens
    state, _ = money(set_game(state, day=3, phase=DAY), 1, "1$")
    refused(state, ShopBuy(1, "weapon:green"), SoldOut)
    # 小刀 vanishes with a shrunk place: it is out of play, so the shop can sell one again.
    d = open_draft(state, rng())
    knife = next(i.id for i in d.items.values() if i.kind == "weapon:green:小刀")
    d.wp(d.locate(knife)[1]).items.remove(knife)
    d.vanish([knife], "shrink")
    state = d.finish()
    state, _ = act(state, ShopBuy(1, "weapon:green"))
    bought = [state.items[i].kind for i in state.characters[1].held]
    assert bought == ["weapon:green:小刀"]


def test_selling_one_blue_or_better_or_two_greens_or_one_special_for_1_dollar():
    state = day_game()
    state, blue = give(state, 1, "weapon:blue:柯尔特手枪")
    state, g1 = give(state, 1, "weapon:green:小刀")
    state, g2 = give(state, 1, "armor:green:怀表")
    state, scope = give(state, 1, "recon:望远镜")
    after = state
    for items in ([blue], [g1, g2], [scope]):
        before = purse(after, 1)
        after, events = act(after, ShopSell(1, tuple(items)))
        assert purse(after, 1) == before + 1
        assert all(after.gone[i] == GONE_SOLD for i in items)
        assert of(events, "shop_sold")[0].payload["price"] == 1
    assert notes_of(after, 1) == ["1$", "1$", "1$"]
    sound(after)


def test_252_sells_specials_for_2_yen():
    state = day_game(K252, day=4, where="无限城")
    state, bomb = give(state, 1, "trap:炸弹")
    after, _ = act(state, ShopSell(1, (bomb,)))
    assert notes_of(after, 1) == ["2円"]


def test_the_shop_refuses_what_its_list_does_not_take():
    state = day_game()
    state, g1 = give(state, 1, "weapon:green:小刀")
    state, herb = give(state, 1, "supply:[HP10]草药")
    refused(state, ShopSell(1, (g1,)), CannotSell)  # one green is half a price
    refused(state, ShopSell(1, (herb,)), CannotSell)
    refused(state, ShopSell(1, ()), NoItems)
    refused(state, ShopSell(1, (g1, g1)), NoItems)


def test_selling_an_item_one_does_not_hold_is_refused():
    state = day_game()
    state, other = give(state, 2, "weapon:blue:柯尔特手枪")
    refused(state, ShopSell(1, (other,)), NotHeld)


def test_a_gps_or_phone_sold_today_is_tomorrows_lot_a_bomb_only_from_day_6():
    state = day_game(day=4)
    state, gps = give(state, 1, "recon:GPS")
    state, bomb = give(state, 1, "trap:炸弹")
    after, events = act(state, ShopSell(1, (gps,)))
    after, _ = act(after, ShopSell(1, (bomb,)))
    assert [(x["item"], x["day"], x["source"]) for x in lots(after)] == [(gps, 5, "sold")]
    assert after.gone[bomb] == GONE_SOLD  # day 5's auction has no bombs yet
    public = of(events, "auction_listed")[0]
    assert public.audience.kind == "public"
    assert public.payload["lots"][0]["name"] == "GPS"
    state = day_game(day=5)
    state, bomb = give(state, 1, "trap:炸弹")
    after, _ = act(state, ShopSell(1, (bomb,)))
    assert [(x["item"], x["day"]) for x in lots(after)] == [(bomb, 6)]
    sound(after)


# --- the auction house -----------------------------------------------------------------------


def night_with_shrink(ruleset: str, day: int, place: str) -> GameState:
    state = day_game(ruleset, n=3, day=day, where="墓地" if ruleset == I256 else "蝶屋")
    return set_game(state, phase=LATE, shrink_tonight=(place,))


def test_what_vanishes_with_a_shrunk_place_is_held_for_the_auction():
    state = night_with_shrink(I256, 4, "监狱")
    state, gps = put(state, "监狱", "recon:GPS")
    state, scope = put(state, "监狱", "recon:望远镜")
    state, phone = give(edit(state, 2, place="监狱"), 2, "tool:电话")
    after, events = night_close(state, rng())
    assert not after.characters[2].alive
    assert sorted(x["item"] for x in lots(after)) == sorted([gps, phone])
    assert all(x["day"] == 5 and x["source"] == "shrink" for x in lots(after))
    assert after.gone[scope] == "vanished"
    assert gps not in after.gone
    assert phone not in after.gone
    listed = of(events, "auction_listed")
    assert all(e.audience.kind == "public" for e in listed)
    assert sorted(n["name"] for e in listed for n in e.payload["lots"]) == ["GPS", "电话"]
    sound(after)


def test_bombs_of_a_shrink_are_auctioned_only_from_day_6():
    state = night_with_shrink(I256, 4, "监狱")
    state, bomb = put(state, "监狱", "trap:炸弹")
    after, _ = night_close(state, rng())
    assert after.gone[bomb] == "vanished"
    assert lots(after) == []
    state = night_with_shrink(I256, 5, "监狱")
    state, bomb = put(state, "监狱", "trap:炸弹")
    after, _ = night_close(state, rng())
    assert [x["item"] for x in lots(after)] == [bomb]


def auction_day(*bidders_notes: tuple[int, tuple[str, ...]], day: int = 5) -> tuple[GameState, int]:
    """Day ``day`` with a GPS lot open and the given notes handed out."""
    state, _ = list_lot(day_game(day=day, n=4), "recon:GPS", rng())
    for cid, notes in bidders_notes:
        state, _ = money(state, cid, *notes)
    return state, lots(state)[0]["id"]


def test_sealed_bids_are_paid_when_bid_and_held_in_escrow():
    state, lot = auction_day((1, ("2$", "1$")))
    after, events = act(state, Bid(1, lot, 2))
    assert purse(after, 1) == 1
    bids = after.flags["market"]["bids"]
    assert [(b["bidder"], b["amount"]) for b in bids] == [(1, 2)]
    assert all(e.audience.kind != "public" for e in events)
    assert [e.audience.character for e in events if e.audience.kind == "character"] == [1]
    sound(after)


def test_bidding_more_than_one_holds_is_refused():
    state, lot = auction_day((1, ("2$",)))
    refused(state, Bid(1, lot, 3), NotEnoughMoney)
    refused(state, Bid(1, lot, 0), BidTooLow)
    refused(state, Bid(1, 999, 1), UnknownLot)


def test_one_sealed_bid_per_lot_and_it_is_final():
    state, lot = auction_day((1, ("1$", "1$")))
    state, _ = act(state, Bid(1, lot, 1))
    refused(state, Bid(1, lot, 1), AlreadyBid)


def test_at_day_close_the_highest_bid_wins_and_losers_get_their_notes_back():
    state, lot = auction_day((1, ("3$",)), (2, ("4$",)), (3, ("2$", "2$")))
    gps = lots(state)[0]["item"]
    state, _ = act(state, Bid(1, lot, 3))
    state, _ = act(state, Bid(2, lot, 4))
    state, _ = act(state, Bid(3, lot, 4))  # as high, but later
    escrow = {b["bidder"]: b["notes"] for b in state.flags["market"]["bids"]}
    after, events = day_close(state, rng())
    assert gps in after.characters[2].pack
    assert all(after.gone[i] == GONE_SPENT for i in escrow[2])
    for loser in (1, 3):
        assert set(escrow[loser]) <= set(after.characters[loser].pack)  # the very same notes
    assert (purse(after, 1), purse(after, 2), purse(after, 3)) == (3, 0, 4)
    assert lots(after) == []
    results = {e.audience.character: e.payload for e in of(events, "auction_result")}
    assert [results[c]["won"] for c in (1, 2, 3)] == [False, True, False]
    assert results[3]["amount"] == 4
    public = of(events, "auction_closed")[0].payload
    assert public["sold"] == [{"lot": lot, "name": "GPS"}]
    assert "角色2" not in json.dumps(public, ensure_ascii=False)
    sound(after)


def test_an_earlier_bid_breaks_a_tie():
    state, lot = auction_day((3, ("1$",)), (1, ("1$",)))
    state, _ = act(state, Bid(3, lot, 1))
    state, _ = act(state, Bid(1, lot, 1))
    after, _ = day_close(state, rng())
    assert len(after.characters[3].pack) == 1
    assert purse(after, 1) == 1


def test_an_unsold_lot_stays_listed_for_the_next_day():
    state, lot = auction_day()
    after, _ = day_close(state, rng())
    assert [x["id"] for x in lots(after)] == [lot]


def test_a_bidder_dead_before_the_close_loses_nothing_to_the_house():
    state, lot = auction_day((1, ("2$",)), (2, ("1$",)))
    state, _ = act(state, Bid(1, lot, 2))
    state, _ = act(state, Bid(2, lot, 1))
    after, _ = day_close(dead(state, 1, CAUSE_RED_CARD), rng())
    assert purse(after, 2) == 0
    assert len(after.characters[2].pack) == 1  # the GPS
    assert names(after, after.places["监狱"].items) == ["2$"]  # dropped where 1 stood
    sound(after)


def test_another_player_never_sees_a_bid():
    state, lot = auction_day((1, ("2$",)), (2, ("1$",)))
    state, e1 = act(state, Bid(1, lot, 2))
    state, e2 = act(state, Bid(2, lot, 1))
    _, e3 = day_close(state, rng())
    # No public event tells a bid happened; the close names the sold lot only.
    assert [e.kind for e in [*e1, *e2] if e.audience.kind == "public"] == []
    closed = [e for e in e3 if e.audience.kind == "public" and e.kind.startswith("auction")]
    assert [e.payload["sold"] for e in closed] == [[{"lot": lot, "name": "GPS"}]]
    # Each bidder hears of its own bid and its own result, nothing of the other's.
    seen = {
        (e.audience.character, e.kind, e.payload["amount"])
        for e in [*e1, *e2, *e3]
        if e.audience.kind == "character"
    }
    assert seen == {
        (1, "bid_placed", 2),
        (2, "bid_placed", 1),
        (1, "auction_result", 2),
        (2, "auction_result", 1),
    }
    assert [x["my_bid"] for x in market_view(state, 2, 0)["auction"]["lots"]] == [1]
    assert "2$" not in json.dumps(market_view(state, 2, 0), ensure_ascii=False)


def test_the_252_auction_runs_from_18_to_20_in_the_infinity_castle():
    state = day_game(K252, day=4, where="无限城")
    state, _ = list_lot(state, "recon:罗针盘", rng())
    state, _ = money(state, 1, "2円")
    lot = lots(state)[0]["id"]
    refused(state, Bid(1, lot, 1), MarketHours, at(17, 59))
    after, _ = act(state, Bid(1, lot, 1), at(18, 30))
    assert purse(after, 1) == 1
    refused(state, Bid(1, lot, 1), MarketHours, at(20, 0))


def test_a_lot_listed_by_the_director_by_day_opens_at_once():
    state = day_game(day=3)
    after, events = list_lot(state, "tool:电话", rng())
    assert (lots(after)[0]["day"], lots(after)[0]["source"]) == (3, "director")
    assert of(events, "intervention")[0].payload["op"] == "list_lot"
    sound(after)


def test_an_item_held_by_the_house_cannot_be_taken_and_gps_finds_no_place_for_it():
    state, _ = auction_day()
    gps = lots(state)[0]["item"]
    with pytest.raises(HeldByMarket):
        take(state, gps, rng())
    state, other = give(set_game(state, phase=NIGHT), 1, "recon:GPS", hand=True)
    _, events = act(state, Gps(1, other, "recon:GPS"))
    assert of(events, "gps_result")[0].payload["places"] == ["监狱"]  # its own, not the lot's
    found = of(events, "gps")[0].payload["found"]
    assert {"item": gps, "where": "house", "ref": "auction", "place": None} in found


# --- exchange --------------------------------------------------------------------------------


def test_a_request_approved_by_the_director_turns_small_notes_into_a_gold_bar():
    state = day_game()
    state, notes = money(state, 1, "1$", "1$", "1$", "2$")
    state, events = act(state, ExchangeRequest(1))
    assert state.flags["market"]["exchanges"] == [{"character": 1, "notes": notes}]
    assert "金块" in of(events, "exchange_requested")[0].payload["text"]
    refused(state, ExchangeRequest(1), ExchangePending)
    after, events = exchange_answer(state, 1, True, rng())
    assert notes_of(after, 1) == ["金块"]
    assert all(after.gone[i] == GONE_CHANGED for i in notes)
    assert after.flags["market"]["exchanges"] == []
    assert of(events, "intervention")[0].payload["op"] == "exchange_answer"
    sound(after)


def test_252_five_yen_exchange_into_4_and_1():
    state = day_game(K252, day=2)
    state, _ = money(state, 1, "1円", "1円", "1円", "2円")
    after, _ = exchange(state, 1, (), rng())
    assert notes_of(after, 1) == ["1円", "4円"]


def test_exchange_only_of_currency_and_only_into_fewer_notes():
    state = day_game()
    state, (four,) = money(state, 1, "4$")
    state, herb = give(state, 1, "supply:[HP10]草药")
    refused(state, ExchangeRequest(1, (four,)), NothingToExchange)
    refused(state, ExchangeRequest(1, (four, herb)), NotCurrency)
    with pytest.raises(NotHeld):
        exchange(state, 1, (four, 999), rng())


def test_an_approval_checks_the_notes_again_and_a_refusal_tells_the_player():
    state = day_game()
    state, _ = money(state, 1, "2$", "2$")
    state, _ = act(state, ExchangeRequest(1))
    spent, _ = act(state, ShopBuy(1, "upgrader:卷轴"))
    with pytest.raises(NotHeld):
        exchange_answer(spent, 1, True, rng())
    after, events = exchange_answer(spent, 1, False, rng())
    assert of(events, "exchange_refused")[0].audience.character == 1
    with pytest.raises(NoSuchRequest):
        exchange_answer(after, 1, False, rng())


def test_an_unanswered_request_expires_at_the_close():
    state = day_game()
    state, _ = money(state, 1, "1$", "1$")
    state, _ = act(state, ExchangeRequest(1))
    after, events = day_close(state, rng())
    assert after.flags["market"]["exchanges"] == []
    assert of(events, "exchange_refused")[0].audience.character == 1


# --- [252] stalls ----------------------------------------------------------------------------


def stall_day() -> GameState:
    return day_game(K252, n=4, day=4, where="蝶屋")


def test_a_stall_offers_one_item_for_up_to_three_prices_before_17():
    state = stall_day()
    state, pill = give(state, 1, "supply:[MP50]静心丸")
    offer = StallOffer(1, pill, ("weapon:green", "supply:[HP10]镇痛贴*2"))
    after, events = act(state, offer, at(16, 59))
    assert pill not in after.characters[1].held
    assert pill not in after.gone  # held by the stall
    assert of(events, "stall_opened")[0].payload["asks"] == ["绿色武器×1", "[HP10]镇痛贴×2"]
    sound(after)
    refused(state, offer, MarketHours, at(17, 0))
    state, bomb = give(after, 1, "trap:炸弹")
    refused(state, StallOffer(1, bomb, ("currency*2",)), AlreadyOffered, at(16, 0))
    refused(stall_day(), StallOffer(1, 1, ("currency*1",)), NotHeld, at(9, 0))


def test_a_stall_asks_items_or_money_at_most_three_ways():
    state = stall_day()
    state, pill = give(state, 1, "supply:[MP50]静心丸")
    for asks in ((), ("a", "b", "c", "d"), ("tool:1円",), ("weapon:pink",), ("currency*0",)):
        refused(state, StallOffer(1, pill, asks), BadAsk, at(10, 0))


def test_256_has_no_stalls():
    state = day_game()
    state, herb = give(state, 1, "supply:[HP10]草药")
    refused(state, StallOffer(1, herb, ("currency*1",)), NoSuchMarket)


def stalls_open() -> tuple[GameState, int, int]:
    """Two stalls: 1 sells 静心丸 for a green weapon or 2 镇痛贴, 2 sells 罗针盘 for 4円."""
    state = stall_day()
    state, pill = give(state, 1, "supply:[MP50]静心丸")
    state, compass = give(state, 2, "recon:罗针盘")
    state, _ = act(state, StallOffer(1, pill, ("weapon:green", "supply:[HP10]镇痛贴*2")), at(9))
    state, _ = act(state, StallOffer(2, compass, ("currency*4",)), at(10))
    return state, pill, compass


def test_a_purchase_settles_at_once_first_come_first_served_and_names_no_seller():
    state, pill, compass = stalls_open()
    state, _ = money(state, 3, "2円", "2円")
    state, sword = give(state, 4, "weapon:green:黑刃")
    state, _ = money(state, 4, "4円")
    after, events = act(state, StallBuy(3, ("2:0",)), at(18, 5))
    assert compass in after.characters[3].pack
    assert sorted(names(after, after.characters[2].pack)) == ["2円", "2円"]
    bought = of(events, "stall_bought")[0]
    assert bought.audience.character == 3
    assert "角色2" not in json.dumps(bought.payload, ensure_ascii=False)
    assert "seller" not in bought.payload
    assert of(events, "stall_sold")[0].audience.kind in ("character", "public")
    # 4 wanted the 罗针盘 first: already sold, so its second choice is bought
    after, events = act(after, StallBuy(4, ("2:0", "1:0")), at(19, 0))
    assert pill in after.characters[4].pack
    assert sword in after.characters[1].pack
    assert purse(after, 4) == 4
    refused(after, StallBuy(4, ("1:0",)), AlreadyBought, at(19, 1))
    sound(after)


def test_a_purchase_is_refused_outside_its_hours_and_when_it_cannot_be_paid():
    state, _, _ = stalls_open()
    state, _ = money(state, 3, "1円")
    refused(state, StallBuy(3, ("2:0",)), CannotPay, at(18, 0))
    refused(state, StallBuy(3, ("2:0",)), MarketHours, at(17, 59))
    refused(state, StallBuy(3, ("2:0",)), MarketHours, at(20, 0))
    for choices in ((), ("1:0", "2:0", "1:1", "2:0"), ("9:0",), ("1:5",), ("x",), ("1:0", "1:1")):
        refused(state, StallBuy(3, choices), BadChoice, at(18, 30))
    refused(state, StallBuy(2, ("2:0",)), BadChoice, at(18, 30))  # its own stall


def test_all_choices_sold_uses_up_the_purchase_and_changes_nothing_else():
    state, _, _ = stalls_open()
    state, _ = money(state, 3, "4円")
    state, _ = money(state, 4, "4円")
    state, _ = act(state, StallBuy(3, ("2:0",)), at(18, 1))
    after, events = act(state, StallBuy(4, ("2:0",)), at(18, 2))
    assert purse(after, 4) == 4
    assert of(events, "stall_bought")[0].payload["stall"] is None
    refused(after, StallBuy(4, ("1:1",)), AlreadyBought, at(18, 3))


def test_unsold_stall_goods_go_back_at_the_close():
    state, pill, compass = stalls_open()
    after, events = day_close(state, rng())
    assert pill in after.characters[1].pack
    assert compass in after.characters[2].pack
    assert {e.audience.character for e in of(events, "stall_returned")} == {1, 2}
    assert after.flags["market"]["stalls"] == []
    sound(after)


def test_the_stall_list_shows_from_18_without_sellers():
    state, _, _ = stalls_open()
    assert market_view(state, 3, at(17, 30).timestamp())["stalls"]["list"] == []
    shown = market_view(state, 3, at(18, 30).timestamp())["stalls"]["list"]
    assert [(s["id"], s["name"], s["asks"]) for s in shown] == [
        (1, "[MP50]静心丸", ["绿色武器×1", "[HP10]镇痛贴×2"]),
        (2, "罗针盘", ["4円"]),
    ]
    assert "seller" not in json.dumps(shown)


# --- gifts and trades ------------------------------------------------------------------------


def test_a_gift_may_take_the_receiver_past_six_items():
    state = day_game()
    for _ in range(6):
        state, _ = give(state, 2, "supply:[HP10]草药")
    state, jelly = give(state, 1, "supply:[HP100]蜂王浆")
    after, events = act(state, Gift(1, 2, (jelly,)))
    assert after.characters[2].item_count() == 7
    received = of(events, "gift_received")[0]
    assert received.audience.character == 2
    assert received.payload["sender_name"] == "角色1"
    sound(after)


def test_gifting_to_the_dead_or_an_npc_or_what_one_does_not_hold_is_refused():
    state = day_game()
    state, jelly = give(state, 1, "supply:[HP100]蜂王浆")
    state = edit(dead(state, 2, CAUSE_ATTACK), 3, npc=True)
    refused(state, Gift(1, 2, (jelly,)), TargetGone)
    refused(state, Gift(1, 3, (jelly,)), InvalidTarget)
    refused(state, Gift(1, 1, (jelly,)), InvalidTarget)
    refused(state, Gift(2, 1, (jelly,)), ActorDead)
    refused(day_game(), Gift(1, 2, (jelly,)), NotHeld)


def test_a_trade_swaps_atomically_when_the_other_accepts():
    # [252]: two players who spent the night in 无限城 (在无限城过夜的玩家可以交易), barter allowed
    state = day_game(K252, where="无限城")
    state, scroll = give(state, 1, "upgrader:呼吸法指南")
    state, sword = give(state, 2, "weapon:blue:轰")
    state, _ = money(state, 2, "3円")
    state, events = act(state, TradeOffer(1, 2, (scroll,), ("weapon:blue", "currency*2")))
    offered = of(events, "trade_offered")[0]
    assert offered.audience.character == 2
    assert offered.payload["asks"] == ["蓝色武器×1", "2円"]
    after, events = act(state, TradeAccept(2, 1))
    assert scroll in after.characters[2].pack
    assert sword in after.characters[1].pack
    assert (purse(after, 1), purse(after, 2)) == (2, 1)
    assert after.flags["market"]["trades"] == []
    assert {e.audience.character for e in of(events, "trade_done")} == {1, 2}
    sound(after)


def test_256_has_no_barter_goods_go_for_money_only():
    # [256] 取消了拍卖行的以物易物 (RULINGS 31): a scroll for a blue weapon is refused ...
    state = day_game()
    state, scroll = give(state, 1, "upgrader:卷轴")
    state, _ = give(state, 2, "weapon:blue:左轮手枪")
    with pytest.raises(NoBarter) as exc:
        act(state, TradeOffer(1, 2, (scroll,), ("weapon:blue", "currency*2")))
    assert exc.value.code == "no_barter"
    assert exc.value.text == "本场取消了以物易物：交易只能要求货币。"
    refused(state, TradeOffer(1, 2, (scroll,), ("weapon:blue",)), NoBarter)
    # ... a scroll for 2$ is a sale, not barter
    state, _ = money(state, 2, "2$")
    offered, _ = act(state, TradeOffer(1, 2, (scroll,), ("currency*2",)))
    after, _ = act(offered, TradeAccept(2, 1))
    assert scroll in after.characters[2].pack
    assert purse(after, 1) == 2
    sound(after)


def test_252_gifts_and_trades_only_between_players_who_spent_the_night_in_the_infinity_castle():
    # [252] 在无限城过夜的玩家可以交易 (RULINGS 31): 角色1 and 角色2 in 无限城, 角色3 at 蝶屋
    state = edit(day_game(K252, where="无限城"), 3, place="蝶屋")
    state, pill = give(state, 1, "supply:[MP50]静心丸")
    state, balm = give(state, 3, "supply:[HP60]愈合膏")
    refused(state, Gift(1, 3, (pill,)), TradeNotHere)
    refused(state, Gift(3, 1, (balm,)), TradeNotHere)
    refused(state, TradeOffer(1, 3, (pill,), ("currency*1",)), TradeNotHere)
    with pytest.raises(TradeNotHere) as exc:
        act(state, TradeOffer(3, 1, (balm,), ("currency*1",)))
    assert exc.value.text == "只有在【无限城】过夜的玩家之间可以交易或赠送。"
    after, _ = act(state, Gift(1, 2, (pill,)))
    assert pill in after.characters[2].pack
    # an offer made in 无限城 cannot be accepted once a side is elsewhere (a director's move)
    offered, _ = act(state, TradeOffer(1, 2, (pill,), ("currency*1",)))
    refused(edit(offered, 2, place="蝶屋"), TradeAccept(2, 1), TradeNotHere)
    # the player's market view says why before it tries
    assert market_view(state, 3, at(12).timestamp())["trades"]["reason"] == exc.value.text
    assert market_view(state, 1, at(12).timestamp())["trades"]["reason"] == ""


def test_a_trade_that_cannot_be_paid_or_went_stale_changes_nothing():
    state = day_game()
    state, scroll = give(state, 1, "upgrader:卷轴")
    state, _ = money(state, 2, "1$")
    state, _ = act(state, TradeOffer(1, 2, (scroll,), ("currency*2",)))
    refused(state, TradeAccept(2, 1), CannotPay)
    refused(state, TradeAccept(3, 1), NoSuchTrade)
    state, _ = money(state, 2, "1$")
    gone, _ = act(state, Gift(1, 3, (scroll,)))
    refused(gone, TradeAccept(2, 1), TradeStale)


def test_either_side_may_cancel_and_open_offers_expire_at_the_close():
    state = day_game()
    state, scroll = give(state, 1, "upgrader:卷轴")
    state, _ = act(state, TradeOffer(1, 2, (scroll,), ("currency*1",)))
    declined, _ = act(state, TradeCancel(2, 1))
    assert declined.flags["market"]["trades"] == []
    refused(declined, TradeCancel(2, 1), NoSuchTrade)
    after, events = day_close(state, rng())
    assert after.flags["market"]["trades"] == []
    assert {e.audience.character for e in of(events, "trade_cancelled")} == {1, 2}


# --- the director using a day-obtained item --------------------------------------------------


def test_the_director_uses_an_hp_supply_from_a_full_backpack_before_the_bleeding():
    state = edit(day_game(), 1, hp=5, bleeding=10)
    for _ in range(6):
        state, _ = give(state, 1, "supply:[HP10]草药")
    state, candy = give(state, 1, "supply:[HP60]甘草糖")  # 7th item, from a trade
    after, events = use_for(state, 1, candy, rng())
    assert (after.characters[1].hp, after.characters[1].bleeding) == (65, 0)
    assert after.gone[candy] == "consumed"
    log = of(events, "intervention")[0].payload
    assert (log["op"], log["before"]["hp"], log["after"]["hp"]) == ("use_for", 5, 65)
    assert of(events, "director_used")[0].audience.character == 1
    sound(after)


def test_the_director_uses_supplies_only_and_only_held_ones():
    state = day_game()
    state, bomb = give(state, 1, "trap:炸弹")
    with pytest.raises(NotUsable):
        use_for(state, 1, bomb, rng())
    with pytest.raises(NotHeld):
        use_for(state, 2, bomb, rng())


# --- views -----------------------------------------------------------------------------------


def test_the_market_view_shows_prices_purse_and_why_a_market_is_closed():
    state = day_game(day=2)
    state, _ = money(state, 1, "1$", "2$")
    view = market_view(state, 1, 0)
    assert (view["purse"], view["unit"]) == (3, "$")
    assert view["shop"]["reason"] == "第 3 天起开放。"
    assert [(w["label"], w["price"]) for w in view["shop"]["buy"]][:3] == [
        ("绿色武器", 1),
        ("绿色防具", 1),
        ("[MP20]雪茄", 2),
    ]
    assert view["stalls"] is None
    assert view["auction"]["name"] == "拍卖行"


def test_the_director_view_lists_every_bid_best_first():
    state, lot = auction_day((1, ("1$",)), (2, ("2$",)))
    state, _ = act(state, Bid(1, lot, 1))
    state, _ = act(state, Bid(2, lot, 2))
    view = market_director_view(state)
    assert [(b["bidder"], b["amount"]) for b in view["lots"][0]["bids"]] == [
        ("角色2", 2),
        ("角色1", 1),
    ]


def test_economy_events_survive_json():
    state, lot = auction_day((1, ("2$",)))
    state, e1 = act(state, Bid(1, lot, 2))
    _, e2 = day_close(state, rng())
    for e in [*e1, *e2]:
        assert GameEvent.from_json(json.loads(json.dumps(e.to_json()))) == e


def test_the_shop_needs_a_currency_of_value_1_to_give_change():
    from royale.engine.ruleset import RulesetError, parse_ruleset

    raw = json.loads(json.dumps(dict(get_ruleset(I256).raw)))
    raw["catalogue"]["tool"]["kinds"] = [
        k for k in raw["catalogue"]["tool"]["kinds"] if k["name"] != "1$"
    ]
    raw["shop"]["sell"][0]["items"] = ["weapon:blue"]
    with pytest.raises(RulesetError) as exc:
        parse_ruleset(raw)
    assert exc.value.field == "shop"
    raw = json.loads(json.dumps(dict(get_ruleset(K252).raw)))
    raw["stalls"]["buy"] = {"from": "20:00", "until": "18:00"}
    with pytest.raises(RulesetError) as exc:
        parse_ruleset(raw)
    assert exc.value.field == "stalls.buy.until"
    with pytest.raises(InvalidInput):
        list_lot(day_game(), "weapon:pink", rng())


# --- property: money is conserved, no item is duplicated or lost ----------------------------

OPS = st.lists(
    st.tuples(st.integers(0, 6), st.integers(1, 4), st.integers(0, 40)), min_size=1, max_size=40
)
SPARE_NAMES = get_ruleset(I256).tier_names[("weapon", "blue")]


def _market_start() -> GameState:
    state = day_game(n=4, day=6)
    for cid in range(1, 5):
        state, _ = money(state, cid, "1$", "1$", "2$", "4$", "金块")
        for key in (
            f"weapon:blue:{SPARE_NAMES[cid]}",
            f"weapon:green:{get_ruleset(I256).tier_names[('weapon', 'green')][cid]}",
            f"armor:green:{get_ruleset(I256).tier_names[('armor', 'green')][cid]}",
            "recon:GPS",
            "trap:炸弹",
            "recon:望远镜",
        ):
            state, _ = give(state, cid, key)
    for selector in ("recon:GPS", "tool:电话"):
        state, _ = list_lot(state, selector, rng())
    return state


def _currency(state: GameState) -> int:
    """Every note still in the game, wherever it is (held, on the ground, in escrow)."""
    rs = get_ruleset(state.ruleset)
    return sum(
        rs.kinds[i.kind].value
        for i in state.items.values()
        if i.id not in state.gone and rs.kinds[i.kind].effect == "currency"
    )


def _step(state: GameState, op: int, cid: int, n: int):
    rs = get_ruleset(I256)
    c = state.characters[cid]
    goods = [i for i in c.held if rs.kinds[state.items[i].kind].effect != "currency"]
    if op == 0:
        shop = rs.sections["shop"]
        return act(state, ShopBuy(cid, shop.buy[n % len(shop.buy)].ware), seed=n)
    if op == 1:
        picked = tuple(goods[j % len(goods)] for j in range(n % 2 + 1)) if goods else (999,)
        return act(state, ShopSell(cid, tuple(dict.fromkeys(picked))))
    if op == 2:
        ids = [x["id"] for x in lots(state)] or [999]
        return act(state, Bid(cid, ids[n % len(ids)], 1 + n % 7))
    if op == 3:
        state, events = act(state, ExchangeRequest(cid))
        after, more = exchange_answer(state, cid, n % 2 == 0, rng(n))
        return after, [*events, *more]
    if op == 4:
        return exchange(state, cid, (), rng(n))
    if op == 5:
        after, events = day_close(state, rng(n))
        # the economy is a day affair: skip the night
        return set_game(after, day=after.day + 1, phase=DAY), events
    return list_lot(state, ("recon:GPS", "tool:电话", "trap:炸弹")[n % 3], rng(n))


def _expected(events: list) -> tuple[dict[int, int], int]:
    """Each character's change of money by the prices the events state, and the house's take."""
    change: dict[int, int] = {}
    house = 0
    for e in events:
        if e.audience.kind != "directors":
            continue
        p = e.payload
        if e.kind == "shop_buy":
            change[p["actor"]] = change.get(p["actor"], 0) - p["price"]
            house += p["price"]
        elif e.kind == "shop_sell":
            change[p["actor"]] = change.get(p["actor"], 0) + p["price"]
            house -= p["price"]
        elif e.kind == "bid":
            change[p["bidder"]] = change.get(p["bidder"], 0) - p["amount"]
        elif e.kind == "auction_settled":
            for b in p["bids"]:
                if b["bidder"] != p["winner"]:
                    change[b["bidder"]] = change.get(b["bidder"], 0) + b["amount"]
            house += p["price"] or 0
    return change, house


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
def test_money_is_conserved_and_no_item_is_duplicated_or_lost(ops):
    state = _market_start()
    for op, cid, n in ops:
        before = json.dumps(state.to_json(), sort_keys=True)
        try:
            after, events = _step(state, op, cid, n)
        except RuleError:
            assert json.dumps(state.to_json(), sort_keys=True) == before  # refused: untouched
            continue
        change, house = _expected(events)
        for who in range(1, 5):
            assert purse(after, who) - purse(state, who) == change.get(who, 0), (op, who)
        assert _currency(state) - _currency(after) == house
        escrow = sum(b["amount"] for b in after.flags.get("market", {}).get("bids", ()))
        held = sum(purse(after, who) for who in range(1, 5))
        assert held + escrow == _currency(after)
        assert problems(after, cap_items=False) == []
        for e in events:
            assert GameEvent.from_json(json.loads(json.dumps(e.to_json()))) == e
        state = after
