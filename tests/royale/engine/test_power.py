"""人以群分 / 柱弦榜: 战力排名按照武器等级、橙武剩余次数、防具等级、橙防剩余次数、紫防剩余次数、
持有血药、持有体力药、当前生命值、当前体力值的顺序进行排名."""

from __future__ import annotations

from royale.engine.power import power_bottom, power_rows, power_top

from .support import K252, edit, empty_game, give

GREEN_WEAPON = "weapon:green:小刀"
BLUE_WEAPON = "weapon:blue:柯尔特手枪"
ORANGE_WEAPON = "weapon:orange:安魂"
ORANGE_WEAPON_2 = "weapon:orange:幽冥之息"
GREEN_ARMOR = "armor:green:万能钥匙"
PURPLE_ARMOR = "armor:purple:水晶铠甲"
ORANGE_ARMOR = "armor:orange:于无声处"
HP10 = "supply:[HP10]草药"
HP60 = "supply:[HP60]甘草糖"
MP20 = "supply:[MP20]雪茄"


def order(state):
    return [r["character"] for r in power_rows(state)]


def ranks(state):
    return [(r["character"], r["rank"]) for r in power_rows(state)]


def test_the_key_is_the_nine_numbers_of_the_posts():
    state = empty_game(n=1)
    state = edit(state, 1, hp=80, mp=55)
    state, _ = give(state, 1, ORANGE_WEAPON, hand=True, uses=3)
    state, _ = give(state, 1, GREEN_WEAPON)
    state, _ = give(state, 1, ORANGE_ARMOR, hand=True, uses=2)
    state, _ = give(state, 1, PURPLE_ARMOR, uses=4)
    state, _ = give(state, 1, HP10)
    state, _ = give(state, 1, HP60)
    state, _ = give(state, 1, MP20)
    [row] = power_rows(state)
    assert row == {"rank": 1, "character": 1, "name": "角色1", "key": [4, 3, 4, 2, 4, 2, 1, 80, 55]}


def test_nothing_held_is_tier_0_and_fists_rank_below_a_green_weapon():
    state = empty_game(n=2)
    state, _ = give(state, 2, GREEN_WEAPON)
    assert [r["key"] for r in power_rows(state)] == [
        [1, 0, 0, 0, 0, 0, 0, 100, 100],
        [0, 0, 0, 0, 0, 0, 0, 100, 100],
    ]
    assert order(state) == [2, 1]


def test_weapon_tier_outranks_everything_after_it():
    state = empty_game(n=2)
    state = edit(state, 1, hp=10, mp=0)
    state, _ = give(state, 1, BLUE_WEAPON)
    state, _ = give(state, 2, GREEN_WEAPON, hand=True)
    state, _ = give(state, 2, ORANGE_ARMOR, hand=True, uses=3)
    for _ in range(4):
        state, _ = give(state, 2, HP60)
    assert order(state) == [1, 2]


def test_weapon_tier_is_the_best_weapon_held_in_hand_or_backpack():
    state = empty_game(n=2)
    state, _ = give(state, 1, GREEN_WEAPON, hand=True)
    state, _ = give(state, 1, BLUE_WEAPON)  # in the backpack: still held
    state, _ = give(state, 2, BLUE_WEAPON, hand=True)
    state, _ = give(state, 2, GREEN_ARMOR)
    assert order(state) == [2, 1]
    assert power_rows(state)[1]["key"][0] == 2


def test_orange_weapon_uses_left_break_a_tie_of_orange_weapons_and_add_up():
    state = empty_game(n=3)
    state, _ = give(state, 1, ORANGE_WEAPON, uses=4)
    state, _ = give(state, 2, ORANGE_WEAPON, uses=5)
    state, _ = give(state, 3, ORANGE_WEAPON, uses=2)
    state, _ = give(state, 3, ORANGE_WEAPON_2, uses=3)
    assert ranks(state) == [(2, 1), (3, 1), (1, 3)]


def test_armor_tier_then_orange_then_purple_armor_uses():
    state = empty_game(n=4)
    state, _ = give(state, 1, GREEN_ARMOR)
    state, _ = give(state, 2, ORANGE_ARMOR, uses=1)
    state, _ = give(state, 3, ORANGE_ARMOR, uses=1)
    state, _ = give(state, 3, PURPLE_ARMOR, uses=2)
    state, _ = give(state, 4, ORANGE_ARMOR, uses=3)
    assert order(state) == [4, 3, 2, 1]


def test_supplies_are_counted_hp_before_mp_then_hp_then_mp():
    state = empty_game(n=5)
    state, _ = give(state, 1, HP10)
    state, _ = give(state, 1, HP10)
    state, _ = give(state, 2, HP60)
    state, _ = give(state, 2, MP20)
    state, _ = give(state, 3, HP60)
    state = edit(state, 4, hp=100, mp=30)
    state = edit(state, 5, hp=90, mp=100)
    # two [HP10] beat one [HP60]: the post counts supplies held, not their strength
    assert order(state) == [1, 2, 3, 4, 5]


def test_ties_share_a_rank_and_keep_the_elevator_order():
    state = empty_game(n=4)
    state, _ = give(state, 3, GREEN_WEAPON)
    assert ranks(state) == [(3, 1), (1, 2), (2, 2), (4, 2)]


def test_only_living_players_are_ranked():
    state = empty_game(K252, n=3)
    state = edit(state, 2, alive=False, hp=0)
    state = edit(state, 3, npc=True)
    assert order(state) == [1]


def test_top_five_plain():
    state = empty_game(n=7)
    for cid in range(1, 8):
        state = edit(state, cid, hp=100 - cid)
    assert [r["character"] for r in power_top(state)] == [1, 2, 3, 4, 5]


def test_a_tie_reaching_into_the_top_five_is_shown_whole():
    # 3 players above a tie of 4: 3 < 5 and 3 + 4 >= 5, so all seven are shown
    state = empty_game(n=9)
    for cid, hp in zip(range(1, 10), [100, 99, 98, 50, 50, 50, 50, 10, 5], strict=True):
        state = edit(state, cid, hp=hp)
    top = power_top(state)
    assert [(r["character"], r["rank"]) for r in top] == [
        (1, 1),
        (2, 2),
        (3, 3),
        (4, 4),
        (5, 4),
        (6, 4),
        (7, 4),
    ]


def test_a_tie_starting_at_sixth_place_is_not_shown():
    state = empty_game(n=7)
    for cid, hp in zip(range(1, 8), [100, 99, 98, 97, 96, 50, 50], strict=True):
        state = edit(state, cid, hp=hp)
    assert [r["character"] for r in power_top(state)] == [1, 2, 3, 4, 5]


def test_fewer_than_five_players_are_all_shown():
    state = empty_game(n=3)
    assert len(power_top(state)) == 3


def test_bottom_ten_percent_rounds_up_and_is_at_least_one():
    state = empty_game(n=3)
    state = edit(state, 1, hp=90)
    state = edit(state, 2, hp=80)
    assert power_bottom(state) == [2]  # 10% of 3 → one
    state = empty_game(n=11)
    for cid in range(1, 12):
        state = edit(state, cid, hp=100 - cid)
    assert power_bottom(state) == [10, 11]  # 10% of 11 = 1.1 → two


def test_bottom_of_thirty_is_exactly_three():
    state = empty_game(n=30)
    for cid in range(1, 31):
        state = edit(state, cid, hp=100 - cid)
    assert power_bottom(state) == [28, 29, 30]


def test_a_tie_across_the_bottom_line_is_included_whole():
    state = empty_game(n=10)
    for cid in range(1, 11):
        state = edit(state, cid, hp=100 - cid)
    state = edit(state, 9, 10, hp=1)
    assert power_bottom(state) == [9, 10]


def test_nobody_alive_has_no_ranking():
    state = empty_game(n=1)
    state = edit(state, 1, alive=False)
    assert power_rows(state) == power_top(state) == power_bottom(state) == []
