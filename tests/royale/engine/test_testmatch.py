"""测试赛: more items in the copy; the prize (大喇叭) goes to the winners the post names."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from royale.engine import Megaphone, Spawn, day_open, get_ruleset, new_game, night_open, testmatch
from royale.engine.director import give
from royale.engine.errors import NotASupply, NotBeforeDayOne, NotDead, NotTestMatch
from royale.engine.invariants import problems
from royale.engine.state import CAUSE_ATTACK, CAUSE_SHRINK, SETUP, GameState
from tests.royale.engine.support import (
    I256,
    K252,
    act,
    dead,
    edit,
    empty_game,
    of,
    put,
    refused,
    rng,
    vanished,
)
from tests.royale.engine.support import give as give_item


def test_the_copy_scatters_twice_the_supplies_but_no_more_green_weapons_than_there_are_names() -> (
    None
):
    rs = get_ruleset(I256)
    counts = testmatch.placement(rs)
    assert counts["supply:[HP10]草药"] == 2 * 10
    assert counts["recon:GPS"] == 2 * 2  # 共2件 in the real game
    assert counts["weapon:green"] == 60  # 共60件: every green weapon name exists once
    state, _ = new_game(I256, [(1, "甲")], rng(), placement=counts, test_match=True)
    assert state.flags["test_match"] is True
    herbs = [i for i in state.items.values() if i.kind == "supply:[HP10]草药"]
    assert len(herbs) == 20


def test_256_prizes_go_to_the_first_killer_of_阿笨_and_the_first_right_whisper_to_阿呆() -> None:
    state = empty_game(I256, 3)
    state.flags["test_prizes"] = [2, 3]
    assert testmatch.prize_winners(state, get_ruleset(I256)) == [2, 3]


def test_252_prize_goes_to_the_top_of_the_柱弦榜() -> None:
    state = empty_game(K252, 3)
    state = edit(state, 2, hp=100, mp=100)
    state = edit(state, 1, 3, hp=90)
    assert testmatch.prize_winners(state, get_ruleset(K252)) == [2]


def test_the_prize_lands_in_the_backpack_even_past_six_items() -> None:
    state = empty_game(I256, 2)
    for _ in range(6):
        state, _ = give(state, 1, "supply:[HP10]草药", rng())
    state, events = testmatch.award(state, [1], rng())
    held = [state.items[i].kind for i in state.characters[1].held]
    assert len(held) == 7
    assert held.count("tool:大喇叭") == 1
    assert not any(state.items[i].kind == "tool:大喇叭" for i in state.characters[2].held)
    granted = [e for e in events if e.kind == "item_granted"]
    assert [e.audience.character for e in granted] == [1]


# --- 大喇叭 before day 1 (RULINGS 28) ---------------------------------------------------------


def real_game_before_day_1() -> tuple[GameState, int]:
    """The real game dealt (phase before day 1), 角色1 holding the test match's 大喇叭 and a
    小刀 lying at 钟楼."""
    rs = get_ruleset(I256)
    state, _ = new_game(
        I256, [(1, "角色1"), (2, "角色2")], rng(), placement={p.selector: 0 for p in rs.placement}
    )
    state, _ = put(state, "钟楼", "weapon:green:小刀")
    state, _ = testmatch.award(state, [1], rng())
    [prize] = state.characters[1].pack
    return state, prize


def test_the_prize_megaphone_can_be_used_before_day_1_of_the_real_game() -> None:
    # 在正式赛会直接与背包中获得道具【大喇叭】，并可在正式比赛第一日前使用
    state, prize = real_game_before_day_1()
    assert state.phase == SETUP
    after, events = act(state, Megaphone(1, prize, "钟楼"))
    [shout] = [e for e in of(events, "megaphone") if e.audience.kind == "public"]
    assert [i["name"] for i in shout.payload["items"]] == ["小刀"]
    # once before day 1 (每日限使用1次: the time before day 1 counts as one day) ...
    refused(after, Megaphone(1, prize, "钟楼"), NotBeforeDayOne)
    # ... and again on day 1, like any 大喇叭
    day1, _ = day_open(after, rng())
    _, events = act(day1, Megaphone(1, prize, "钟楼"))
    assert of(events, "megaphone")


def test_before_day_1_only_the_prize_megaphone_works() -> None:
    state, _ = real_game_before_day_1()
    state, other = give_item(state, 2, "tool:大喇叭")  # e.g. a director's gift
    refused(state, Megaphone(2, other, "钟楼"), NotBeforeDayOne)


# --- the director's live supplies (RULINGS 28) -------------------------------------------------


def sandbox_night(n: int = 3) -> GameState:
    """Night 1 of a test match with nothing scattered; characters 1..n at 钟楼."""
    rs = get_ruleset(I256)
    state, _ = new_game(
        I256,
        [(i, f"角色{i}") for i in range(1, n + 1)],
        rng(),
        placement={p.selector: 0 for p in rs.placement},
        test_match=True,
    )
    state, _ = day_open(state, rng())
    state, _ = night_open(state, rng())
    return edit(state, *range(1, n + 1), place="钟楼")


def test_a_character_dead_in_the_test_match_is_restored_by_the_director() -> None:
    # 若测试赛中死亡……可实时要求导演: back alive where it died, 100 HP and 100 MP (the ruleset's
    # test_match.restore), not bleeding, holding nothing.
    state = dead(edit(sandbox_night(), 1, hp=0, mp=15, bleeding=10), 1, CAUSE_ATTACK)
    after, events = testmatch.restore(state, 1, rng())
    c = after.characters[1]
    assert (c.alive, c.hp, c.mp, c.bleeding, c.place, c.held) == (True, 100, 100, 0, "钟楼", [])
    [told] = of(events, "director_restored")
    assert told.audience.character == 1
    assert told.payload["text"] == "测试赛：导演让你复活，生命 100，体力 100。你在【钟楼】。"
    [log] = of(events, "intervention")
    assert log.payload == {"op": "restore", "character": 1, "hp": 100, "mp": 100, "place": "钟楼"}
    assert problems(after) == []
    refused_step(lambda s: testmatch.restore(s, 1, rng()), after, NotDead)


def test_a_character_restored_after_its_place_vanished_picks_a_new_one() -> None:
    state = dead(sandbox_night(), 1, CAUSE_SHRINK)
    state = vanished(state, "钟楼")
    after, _ = testmatch.restore(state, 1, rng())
    assert after.characters[1].place is None
    spawned, _ = act(after, Spawn(1, "灯塔"))
    assert spawned.characters[1].place == "灯塔"


def test_the_director_puts_a_supply_into_the_backpack_in_the_test_match() -> None:
    # 体力不够可实时要求导演直接往背包中提供补给: [MP50]咖啡 into the backpack, past 6 items too.
    state = sandbox_night()
    for _ in range(6):
        state, _ = give_item(state, 2, "supply:[HP10]草药")
    after, events = testmatch.supply(state, 2, "supply:[MP50]咖啡", rng())
    pack = [after.items[i].kind for i in after.characters[2].pack]
    assert pack == ["supply:[HP10]草药"] * 6 + ["supply:[MP50]咖啡"]
    [granted] = of(events, "item_granted")
    assert (granted.audience.character, granted.payload["why"]) == (2, "test_match_supply")
    refused_step(lambda s: testmatch.supply(s, 2, "weapon:green:小刀", rng()), state, NotASupply)
    refused_step(lambda s: testmatch.supply(s, 2, "supply:[HP999]仙丹", rng()), state, NotASupply)


def test_outside_the_test_match_neither_is_allowed() -> None:
    state = dead(empty_game(I256, 3, where="钟楼"), 1, CAUSE_ATTACK)
    refused_step(lambda s: testmatch.restore(s, 1, rng()), state, NotTestMatch)
    refused_step(lambda s: testmatch.supply(s, 2, "supply:[MP50]咖啡", rng()), state, NotTestMatch)
    with pytest.raises(NotTestMatch) as exc:
        testmatch.restore(state, 1, rng())
    assert exc.value.text == "只有测试赛中导演才能复活角色或直接往背包中提供补给。"


def refused_step(step: Callable[[GameState], object], state: GameState, error: type) -> None:
    """The step refuses with ``error`` and leaves its input untouched."""
    before = json.dumps(state.to_json(), sort_keys=True)
    with pytest.raises(error):
        step(state)
    assert json.dumps(state.to_json(), sort_keys=True) == before
