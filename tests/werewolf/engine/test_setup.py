"""Dealing the 18 roles of [099] and the pre-game auction (表演/挡刀 ±1 for 1 金币, 性别卡 10)."""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine.errors import InvalidInput
from werewolf.engine import auction_cost, get_ruleset, new_game, night_open

from .support import A99, rng


def chars(n: int = 18) -> list[tuple[int, str, str | None]]:
    return [(i, f"P{i}", "男") for i in range(1, n + 1)]


def test_deal_from_the_seed_has_the_posts_counts() -> None:
    state, events = new_game(A99, chars(), rng(5))
    counts = Counter(p.role for p in state.players.values())
    assert counts == {
        "wolf": 4, "villager": 4, "witch": 1, "seer": 1, "guard": 1, "lover": 1, "chief": 1,
        "hunter": 1, "monk": 1, "idiot": 1, "dreamer": 1, "white_wolf": 1,
    }  # fmt: skip
    again, _ = new_game(A99, chars(), rng(5))
    assert {p.id: p.role for p in again.players.values()} == {
        p.id: p.role for p in state.players.values()
    }
    assert [e.kind for e in events] == ["deal"]  # the directors' only: a deal may be adjusted
    state, events = night_open(state, rng(5), 1_000.0)  # 分发身份 as the game starts
    cards = [e for e in events if e.kind == "role_card"]
    assert sorted(e.audience.character or 0 for e in cards) == list(range(1, 19))
    wolves = {p.id for p in state.players.values() if p.role == "wolf"}
    teams = [e for e in events if e.kind == "team"]
    assert {e.audience.character for e in teams} == wolves
    assert {m["id"] for m in teams[0].payload["members"]} == wolves


def test_wrong_player_count_or_roles_refused() -> None:
    with pytest.raises(InvalidInput):
        new_game(A99, chars(17), rng())
    with pytest.raises(InvalidInput):
        new_game(A99, chars(2), rng(), roles={1: "wolf", 2: "bard"})


@pytest.mark.parametrize(
    ("bid", "gender", "cost"),
    [
        ({"act": 3}, "男", 3),
        ({"act": -2, "block": 5}, "男", 7),
        ({"gender": "女"}, "男", 10),
        ({"gender": "男", "block": 1}, "男", 1),  # the same gender needs no card
    ],
)
def test_auction_cost(bid: dict, gender: str, cost: int) -> None:
    assert auction_cost(get_ruleset(A99), bid, gender) == cost


def test_auction_values_and_gender_card() -> None:
    roles = {1: "wolf", 2: "villager"}
    auction = {2: {"act": 4, "block": -1, "gender": "女", "gold": 15}}
    state, _ = new_game(A99, chars(2), rng(), roles=roles, auction=auction)
    p = state.players[2]
    assert (p.act, p.block, p.gender) == (4, -1, "女")
    assert (state.players[1].act, state.players[1].block, state.players[1].gender) == (0, 0, "男")
    with pytest.raises(InvalidInput):
        new_game(A99, chars(2), rng(), roles=roles, auction={2: {"gender": "女", "gold": 9}})
