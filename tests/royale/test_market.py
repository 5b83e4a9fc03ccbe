"""The economy through the site: buying, a sealed auction and its close, refunds, the day page's
market panel, the control room's market card, and no bid leaking to another player."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from games import services as game_services
from games.models import Game
from royale import services
from royale.engine import get_ruleset
from royale.services import royale_replay
from tests.conftest import bj
from tests.royale.conftest import (
    Player,
    admin_client,
    control,
    night_one,
    players,
    refused,
    royale_game,
    spawn,
    state_of,
)

EMPTY_252 = {p.selector: 0 for p in get_ruleset("kimetsu_252").placement}


def purse(game: Game, name: str) -> int:
    state = state_of(game)
    rs = get_ruleset(state.ruleset)
    me = next(c for c in state.characters.values() if c.name == name)
    return sum(rs.kinds[state.items[i].kind].value for i in me.held)


def lot_at_auction_hours(game: Game, clock: Any) -> int:
    """The listed 罗针盘's lot, with the clock moved into 【拍卖】's bidding hours (18:00–20:00)."""
    clock.move_to(bj(2, 18, 30))
    return int(state_of(game).flags["market"]["lots"][0]["id"])


@pytest.fixture
def castle_day(director: Any, at_night_one: Any) -> tuple[Game, dict[str, Player], Any, Any]:
    """[252] day 2: 甲 乙 丙 spent night 1 in 无限城; the director handed out 4円, 2円+1円, 2円
    (logged interventions, so the game replays) and listed a 罗针盘 at the auction."""
    game = royale_game("252", ("甲", "乙", "丙"), ruleset="kimetsu_252", placement=EMPTY_252)
    game.directors.add(director)
    night_one(game)
    cast = players(game)
    spawn(cast, "无限城")
    at_night_one.move_to(bj(2, 12, 0))
    game_services.transitions_run_due(now=bj(2, 12, 0))  # night 1 closes, day 2 opens
    for name, notes in (("甲", ("4円",)), ("乙", ("2円", "1円")), ("丙", ("2円",))):
        for note in notes:
            services.royale_give(
                game=game,
                director=director,
                character=cast[name].id,
                kind=f"tool:{note}",
                reason="发薪",
            )
    services.royale_intervene(
        game=game,
        director=director,
        op="list_lot",
        args={"selector": "recon:罗针盘"},
        reason="上货",
    )
    return game, cast, at_night_one, director


@pytest.mark.django_db
def test_buy_bid_close_and_refund_through_http(castle_day: Any) -> None:
    game, cast, clock, _ = castle_day
    # 常规购买: a 3円 愈合膏 paid with the 4円 note, the change in a new 1円 note
    answer = cast["甲"].act("shop_buy", ware="supply:[HP60]愈合膏")
    assert answer.status_code == 200, answer.content
    assert [f["kind"] for f in answer.json()["events"]] == ["shop_bought"]
    names = sorted(i["name"] for i in answer.json()["me"]["items"])
    assert names == ["1円", "[HP60]愈合膏"]
    refused(cast["丙"].act("shop_buy", ware="supply:[MP100]源命香"), 409, "not_enough_money")
    assert purse(game, "丙") == 2

    lot = state_of(game).flags["market"]["lots"][0]["id"]
    refused(cast["乙"].act("bid", lot=lot, amount=1), 409, "market_hours")  # before 18:00
    clock.move_to(bj(2, 18, 30))
    assert cast["乙"].act("bid", lot=lot, amount=2).status_code == 200
    refused(cast["丙"].act("bid", lot=lot, amount=3), 409, "not_enough_money")
    assert cast["丙"].act("bid", lot=lot, amount=2).status_code == 200  # as high, later
    assert cast["甲"].act("bid", lot=lot, amount=1).status_code == 200
    refused(cast["甲"].act("bid", lot=lot, amount=1), 409, "already_bid")
    assert (purse(game, "甲"), purse(game, "乙"), purse(game, "丙")) == (0, 1, 0)

    clock.move_to(bj(2, 21, 0))
    game_services.transitions_run_due(now=bj(2, 21, 0))  # the day closes: the auction settles
    state = state_of(game)
    compass = [
        i for i in state.characters[cast["乙"].id].pack if state.items[i].kind == "recon:罗针盘"
    ]
    assert len(compass) == 1
    assert (purse(game, "甲"), purse(game, "乙"), purse(game, "丙")) == (1, 1, 2)
    assert state.flags["market"]["lots"] == []
    results = {name: cast[name].heard("auction_result") for name in cast}
    assert [(r["won"], r["amount"]) for r in results["乙"]] == [(True, 2)]
    assert [(r["won"], r["amount"]) for r in results["丙"]] == [(False, 2)]
    assert [(r["won"], r["amount"]) for r in results["甲"]] == [(False, 1)]
    assert royale_replay(game=game).to_json() == state.to_json()  # type: ignore[union-attr]


@pytest.mark.django_db
def test_another_player_never_sees_a_bid(castle_day: Any) -> None:
    game, cast, clock, _ = castle_day
    lot = lot_at_auction_hours(game, clock)
    assert cast["乙"].act("bid", lot=lot, amount=2).status_code == 200
    assert cast["甲"].act("bid", lot=lot, amount=3).status_code == 200
    clock.move_to(bj(2, 21, 0))
    game_services.transitions_run_due(now=bj(2, 21, 0))
    frames = cast["丙"].events()
    assert [f for f in frames if f["kind"] in ("bid_placed", "auction_result")] == []
    public = [f for f in frames if f["stream"] == "public" and "auction" in f["kind"]]
    assert public  # the lot list and the sale are public ...
    text = json.dumps(public, ensure_ascii=False)
    assert "amount" not in text
    assert "乙" not in text  # ... the bidders and the buyer are not
    assert "甲" not in text
    mine = [bid["amount"] for bid in cast["乙"].heard("bid_placed")]
    assert mine == [2]  # 乙 hears of its own bid only, never of 甲's 3


@pytest.mark.django_db
def test_the_day_page_shows_the_market_with_ones_own_bid_only(castle_day: Any) -> None:
    game, cast, clock, _ = castle_day
    lot = state_of(game).flags["market"]["lots"][0]["id"]
    note = state_of(game).characters[cast["甲"].id].pack[0]
    answer = cast["甲"].act("stall_offer", item=note, asks=["weapon:green"])  # 摆摊 before 17:00
    assert answer.status_code == 200, answer.content
    clock.move_to(bj(2, 18, 30))
    assert cast["乙"].act("bid", lot=lot, amount=2).status_code == 200
    assert cast["丙"].act("bid", lot=lot, amount=1).status_code == 200
    page = cast["丙"].client.get(f"/play/{game.number}/me/", {"view": "day"}).content.decode()
    auction = re.search(
        r'<section class="r-card r-market" id="r-auction">.*?</section>', page, re.S
    )
    assert auction is not None
    assert "瓜子二手拍卖行" in auction.group(0)
    assert "罗针盘" in auction.group(0)
    assert "我的出价 1円" in auction.group(0)
    assert "2円" not in auction.group(0)
    shop = re.search(r'id="r-shop">.*?</section>', page, re.S)
    assert shop is not None
    assert "[HP60]愈合膏 <b>3円</b>" in shop.group(0)
    stalls = re.search(r'id="r-stalls">.*?</section>', page, re.S)
    assert stalls is not None
    assert '<option value="1:0">1 号摊【4円】— 绿色武器×1</option>' in stalls.group(0)
    assert "甲" not in stalls.group(0)  # the seller is never named


@pytest.mark.django_db
def test_the_control_room_shows_every_bid_and_answers_an_exchange(castle_day: Any) -> None:
    game, cast, clock, director = castle_day
    lot = lot_at_auction_hours(game, clock)
    assert cast["乙"].act("bid", lot=lot, amount=2).status_code == 200
    services.royale_give(
        game=game, director=director, character=cast["丙"].id, kind="tool:2円", reason="发薪"
    )
    assert cast["丙"].act("exchange_request").status_code == 200
    client = admin_client(director)
    page = client.get(control(game)).content.decode()
    card = re.search(r'<section class="ctl-card ctl-market" id="market">.*?</section>', page, re.S)
    assert card is not None
    assert "乙 2円" in card.group(0)
    assert "丙：【2円】、【2円】（4円）" in card.group(0)
    answer = client.post(
        control(game, "market/exchange_answer/"),
        {"character": cast["丙"].id, "approve": "on", "reason": "兑换"},
    )
    assert answer.status_code == 302
    state = state_of(game)
    assert [state.items[i].kind for i in state.characters[cast["丙"].id].held] == ["tool:4円"]
    assert state.flags["market"]["exchanges"] == []


@pytest.mark.django_db
def test_the_director_uses_a_supply_for_a_character_and_lists_a_lot(castle_day: Any) -> None:
    game, cast, _, director = castle_day
    services.royale_adjust(
        game=game, director=director, character=cast["丙"].id, hp=-50, reason="受伤"
    )
    services.royale_give(
        game=game,
        director=director,
        character=cast["丙"].id,
        kind="supply:[HP60]愈合膏",
        reason="交易所得",
    )
    salve = state_of(game).characters[cast["丙"].id].pack[-1]
    client = admin_client(director)
    base = control(game, "market")
    refused_form = client.post(f"{base}/use_for/", {"item": salve})  # no reason: nothing done
    assert refused_form.status_code == 302
    assert state_of(game).characters[cast["丙"].id].hp == 50
    assert client.post(f"{base}/use_for/", {"item": salve, "reason": "夜前使用"}).status_code == 302
    assert state_of(game).characters[cast["丙"].id].hp == 100
    [used] = cast["丙"].heard("director_used")
    assert used["after"]["hp"] == 100
    assert (
        client.post(f"{base}/list_lot/", {"selector": "recon:罗针盘", "reason": "上货"}).status_code
        == 302
    )
    assert [lot["day"] for lot in state_of(game).flags["market"]["lots"]] == [2, 2]
    assert royale_replay(game=game).to_json() == state_of(game).to_json()  # type: ignore[union-attr]
