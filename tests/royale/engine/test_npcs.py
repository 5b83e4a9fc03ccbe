"""阿呆 and 阿笨 ([256] only): where they stand, what hurts them, the riddle and its 2$, the test
day's 500 HP 阿笨 and its prizes."""

from __future__ import annotations

import dataclasses

import pytest

from games.engine.errors import InvalidInput
from royale.engine import Whisper, day_open, get_ruleset, new_game, night_close, night_open
from royale.engine.actions import Attack, UseItem
from royale.engine.errors import NpcsAbsent
from royale.engine.npcs import npcs_in_game, npcs_known, riddle_set, riddle_today
from royale.engine.state import GameState

from .support import (
    I256,
    K252,
    act,
    edit,
    empty_game,
    found_character,
    give,
    heard,
    holding,
    keep_safe,
    next_day,
    of,
    public,
    rng,
)

ADAI, ABEN = -1001, -1002
POOL = {"upgrader:书籍", "supply:[MP50]咖啡", "supply:[HP30]精油", "tool:3$"}


def adai_place(state: GameState) -> str:
    place = state.characters[ADAI].place
    assert place is not None
    return place


# --- where they stand ----------------------------------------------------------------------------


def test_day_1_阿笨_has_50_hp_and_one_item_of_its_pool_at_金色狂欢剧团() -> None:
    state = empty_game(I256, n=2)
    aben = state.characters[ABEN]
    assert (aben.name, aben.npc, aben.hp, aben.place) == ("阿笨", True, 50, "金色狂欢剧团")
    assert len(aben.held) == 1
    assert holding(state, ABEN)[0] in POOL
    adai = state.characters[ADAI]
    assert (adai.name, adai.npc, adai.alive) == ("阿呆", True, True)
    assert [c.name for c in npcs_in_game(state)] == ["阿呆", "阿笨"]


@pytest.mark.parametrize("seed", range(4))
def test_a_new_阿笨_each_day_in_a_place_vanishing_tonight_and_阿呆_elsewhere(seed: int) -> None:
    state = empty_game(I256, n=2, where="监狱")
    first_item = state.characters[ABEN].pack[0]
    state, _ = next_day(state, seed=seed)
    aben = state.characters[ABEN]
    assert aben.alive
    assert aben.hp == 50
    assert aben.place in state.shrink_tonight
    assert aben.place != "教堂"
    assert state.gone[first_item] == "vanished"  # yesterday's 阿笨 left with its item
    assert len(aben.held) == 1
    assert holding(state, ABEN)[0] in POOL
    assert adai_place(state) not in state.shrink_tonight


def test_a_252_game_has_no_npcs() -> None:
    assert "npcs" not in get_ruleset(K252).sections
    state = empty_game(K252, n=2, where="蝶屋")
    assert not any(c.npc for c in state.characters.values())


# --- what hurts them -----------------------------------------------------------------------------


def test_阿呆_has_infinite_hp() -> None:
    state = empty_game(I256, n=2)
    place = adai_place(state)
    state = edit(state, 1, 2, place=place)
    state, _ = give(state, 1, "weapon:orange:安魂", hand=True)
    state, handle = found_character(state, 1, ADAI)
    state, events = act(state, Attack(1, handle))
    assert state.characters[ADAI].hp == 100
    assert state.characters[ADAI].alive
    assert state.characters[2].hp == 80  # the splash still hits the player beside it
    state, bomb = give(state, 2, "trap:炸弹", hand=True)
    state, _ = act(state, UseItem(2, bomb))
    assert state.characters[ADAI].hp == 100
    assert not [e for e in events if e.audience.kind == "character" and e.audience.character < 0]


def test_whoever_kills_阿笨_loots_its_item() -> None:
    state = empty_game(I256, n=2)
    state = edit(state, 1, place="金色狂欢剧团")
    state = edit(state, ABEN, hp=5)
    item = state.characters[ABEN].pack[0]
    state, handle = found_character(state, 1, ABEN)
    state, events = act(state, Attack(1, handle))
    assert not state.characters[ABEN].alive
    assert item in state.characters[1].pack
    assert heard(events, 1, "attack_result")[0]["outcome"] == "killed"


def test_阿笨_killed_at_night_stays_known_alive_until_the_morning_report() -> None:
    """Issue 14, 11: a night's death (NPCs included) stays hidden until the morning report: the
    players' list still names 阿笨, and a whisper to it goes out as to anyone."""
    from royale.day_events import player_events
    from royale.services import _resolve_names

    state = empty_game(I256, n=3)
    state = edit(state, 1, place="金色狂欢剧团")
    state = edit(state, 2, place="教堂")  # far away: it saw nothing
    state = edit(state, ABEN, hp=5)
    state, handle = found_character(state, 1, ABEN)
    state, _ = act(state, Attack(1, handle))
    assert ABEN not in [c.id for c in npcs_in_game(state)]  # the truth, for the directors
    assert "阿笨" in player_events(state, 2)["npcs"]
    assert _resolve_names(state, {"kind": "whisper", "target": "阿笨"})["target"] == ABEN
    state, events = act(state, Whisper(2, ABEN, "你还好吗"))
    assert heard(events, 2, "whisper_sent")
    # Once its day is over (the morning report has told it), the dead 阿笨 is gone for everyone.
    tomorrow = dataclasses.replace(state, day=state.day + 1)
    assert ABEN not in [c.id for c in npcs_known(tomorrow)]
    assert "阿笨" not in player_events(tomorrow, 2)["npcs"]


# --- 阿呆's riddle -------------------------------------------------------------------------------


def test_the_directors_riddle_is_announced() -> None:
    state = empty_game(I256, n=2)
    state, events = riddle_set(state, "  钟声响起的地方  ", rng())
    (riddle,) = public(events, "riddle")
    assert riddle["riddle"] == "钟声响起的地方"
    assert riddle["text"] == "【阿呆的每日谜题】钟声响起的地方"
    assert riddle_today(state) == "钟声响起的地方"
    state, _ = next_day(state)
    assert riddle_today(state) is None  # a new day, a new place, a new riddle


def test_a_riddle_needs_阿呆_and_some_text() -> None:
    with pytest.raises(NpcsAbsent):
        riddle_set(empty_game(K252, n=2), "谜题", rng())
    state = empty_game(I256, n=2)
    with pytest.raises(InvalidInput):
        riddle_set(state, "   ", rng())
    with pytest.raises(InvalidInput):
        riddle_set(state, "谜" * 501, rng())


def elsewhere(place: str) -> str:
    return "图书馆" if place != "图书馆" else "医院"


def riddle_night(n: int) -> tuple[GameState, str]:
    state = empty_game(I256, n=n)
    cids = range(1, n + 1)
    return keep_safe(edit(state, *cids, place="监狱"), *cids), adai_place(state)


def paid(state: GameState, n: int) -> list[int]:
    return [cid for cid in range(1, n + 1) if "tool:2$" in holding(state, cid)]


def test_the_first_three_living_players_naming_阿呆s_place_get_2_dollars() -> None:
    """每日最先传音正确的前三名存活玩家将于夜间行动结束获得2$ (RULINGS 27)."""
    state, place = riddle_night(6)
    state, events = act(state, Whisper(1, ADAI, place))
    assert not [e for e in events if e.audience.kind == "character" and e.audience.character < 0]
    state, _ = act(state, Whisper(2, ADAI, f"【{place}】"))
    state, _ = act(state, Whisper(3, ADAI, elsewhere(place)))
    state, _ = act(state, Whisper(4, ADAI, f" {place}！"))
    state, _ = act(state, Whisper(5, ADAI, place))
    state, _ = act(state, Whisper(6, ADAI, place))
    state, _ = night_close(state, rng())
    assert paid(state, 6) == [1, 2, 4]  # 3 guessed wrong; 5 and 6 came fourth and fifth


def test_a_wrong_guess_does_not_bar_a_later_right_one() -> None:
    state, place = riddle_night(4)
    state, _ = act(state, Whisper(1, ADAI, elsewhere(place)))
    state, _ = act(state, Whisper(1, ADAI, "钟楼" if place != "钟楼" else "监狱"))
    state, events = act(state, Whisper(1, ADAI, place))  # the third whisper, the first right one
    assert heard(events, 1, "whisper_sent")[0]["mp"] == 85  # 5 MP each, as any whisper
    assert of(events, "riddle_answer")[0].payload["right"] is True
    state, _ = act(state, Whisper(2, ADAI, place))
    state, _ = act(state, Whisper(3, ADAI, place))
    state, _ = act(state, Whisper(4, ADAI, place))
    assert state.flags["riddle_answers"]["right"] == [1, 2, 3, 4]
    assert state.flags["riddle_answers"]["tried"] == [1, 2, 3, 4]
    state, _ = night_close(state, rng())
    assert paid(state, 4) == [1, 2, 3]


def test_a_player_counts_once_and_the_fourth_right_whisper_gets_nothing() -> None:
    state, place = riddle_night(4)
    state, _ = act(state, Whisper(1, ADAI, place))
    state, events = act(state, Whisper(1, ADAI, place))  # right again: still one answer
    assert of(events, "riddle_answer") == []
    state, _ = act(state, Whisper(2, ADAI, place))
    state, _ = act(state, Whisper(3, ADAI, place))
    state, _ = act(state, Whisper(4, ADAI, place))  # the fourth right whisper
    state, events = night_close(state, rng())
    assert paid(state, 4) == [1, 2, 3]
    assert [holding(state, 1).count("tool:2$")] == [1]  # one 2$, not two
    assert of(events, "riddle_paid")[0].payload == {
        "day": 1,
        "right": [1, 2, 3, 4],
        "paid": [1, 2, 3],
    }


def test_a_dead_players_right_whisper_does_not_count_and_the_next_takes_its_place() -> None:
    state, place = riddle_night(5)
    state, _ = act(state, Whisper(1, ADAI, place))
    state, _ = act(state, Whisper(2, ADAI, place))
    state, _ = act(state, Whisper(3, ADAI, elsewhere(place)))
    state, _ = act(state, Whisper(3, ADAI, place))
    state, _ = act(state, Whisper(4, ADAI, place))
    state, _ = act(state, Whisper(5, ADAI, place))
    state = edit(state, 2, hp=5)
    state, handle = found_character(state, 1, 2)
    state, _ = act(state, Attack(1, handle))  # 2 answered right but is out before the close
    state, _ = night_close(state, rng())
    assert paid(state, 5) == [1, 3, 4]  # 5, the fifth right answer, stays out


# --- the test day --------------------------------------------------------------------------------


def test_on_the_test_day_阿笨_has_500_hp_and_the_firsts_are_recorded_for_the_prizes() -> None:
    zero = {p.selector: 0 for p in get_ruleset(I256).placement}
    chars = [(i, f"角色{i}") for i in (1, 2, 3)]
    state, _ = new_game(I256, chars, rng(), placement=zero, test_match=True)
    state, _ = day_open(state, rng())
    state, _ = night_open(state, rng())
    assert state.characters[ABEN].hp == 500
    state = edit(state, 1, 2, 3, place="金色狂欢剧团")
    place = adai_place(state)
    state, _ = act(state, Whisper(2, ADAI, place))
    state, _ = act(state, Whisper(1, ADAI, place))
    state = edit(state, ABEN, hp=5)
    state, handle = found_character(state, 3, ABEN)
    state, _ = act(state, Attack(3, handle))
    assert state.flags["test_prizes"] == [2, 3]
    assert state.flags["test_feats"] == {"adai": 2, "aben": 3}


def test_outside_a_test_match_nothing_is_recorded() -> None:
    state = empty_game(I256, n=2, where="金色狂欢剧团")
    state, _ = act(state, Whisper(1, ADAI, adai_place(state)))
    assert "test_prizes" not in state.flags


def test_npc_events_reach_nobody_and_only_the_directors_see_where_they_stand() -> None:
    state = keep_safe(empty_game(I256, n=2, where="监狱"), 1, 2)
    state, events = next_day(state)
    assert not [e for e in events if e.audience.kind == "character" and e.audience.character < 0]
    placed = of(events, "npc_placed")
    assert {e.payload["npc"] for e in placed} == {ADAI, ABEN}
    assert {e.audience.kind for e in placed} == {"directors"}
