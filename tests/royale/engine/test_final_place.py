"""The final place, the first day and the day's event (RULINGS 23–25), in the posts' words.

[252]: 第一天 不缩圈 … 第十天 缩2个，第十一天 决赛日 缩1个 决赛地点：无限城; 无限城固定为决赛地点;
安全区[固定]于第三天夜晚结束后缩圈; 每个白天将发生一随机事件. [256]: the same schedule over 37
places, 教堂 on night 2, and its last place stays.
"""

from __future__ import annotations

from typing import Any

import pytest

from royale.engine import day_open, get_ruleset, new_game, night_close, night_open
from royale.engine.draft import open_draft
from royale.engine.errors import EventNotAllowed
from royale.engine.events import allowed_events, event_choose, rules_of
from royale.engine.state import GameState

from .support import I256, K252, edit, empty_game, next_day, rng, set_game, vanished

SAFE_252, FINAL_252 = "产屋敷宅邸", "无限城"


def fresh(state: GameState, **happened: int) -> GameState:
    """Test setup: the events that have happened so far are ``happened`` (key → day), none today."""
    d = open_draft(state, rng())
    f = d.wflags()
    for key in ("events_today", "vote_reveal", "rest_disabled", "no_shrink", "villain"):
        f.pop(key, None)
    f["events_happened"] = dict(happened)
    return d.finish()


def only(state: GameState, *places: str) -> GameState:
    """Test setup: every other place has vanished already."""
    for p in state.places_on_map():
        if p not in places:
            state = vanished(state, p)
    return state


def day_event(events: list[Any]) -> str | None:
    (today,) = [e.payload for e in events if e.kind == "events_today"]
    return today["day_event"]


def alive(state: GameState) -> list[int]:
    return [c.id for c in state.characters.values() if c.alive and not c.npc]


def first_round(ruleset: str) -> list[str]:
    """Every event the draw gives once (not fixed to a day, not automatic)."""
    rules = rules_of(get_ruleset(ruleset))
    assert rules is not None
    return [s.key for s in rules.events if not s.days and not s.automatic]


def repeatable(ruleset: str) -> set[str]:
    rules = rules_of(get_ruleset(ruleset))
    assert rules is not None
    return {s.key for s in rules.events if s.repeatable}


# --- 无限城固定为决赛地点 (RULINGS 23) -----------------------------------------------------------


def test_第十天_缩2个_with_无限城_and_one_other_place_left_takes_the_other_only() -> None:
    state = only(empty_game(K252, n=2, where=FINAL_252), FINAL_252, "蝶屋")
    state = fresh(set_game(state, day=9))
    state, _ = next_day(state, pick="power_top")  # day 10: 缩2个, but only one may go
    assert state.day == 10
    assert state.shrink_tonight == ("蝶屋",)
    state, _ = night_close(night_open(state, rng())[0], rng())
    assert state.places_on_map() == [FINAL_252]
    assert alive(state) == [1, 2]


def test_第十一天_决赛日_缩1个_leaves_无限城_and_the_game_goes_on_there() -> None:
    state = only(empty_game(K252, n=2, where=FINAL_252), FINAL_252)
    state = fresh(set_game(state, day=10))
    state, events = next_day(state, pick="power_top")  # day 11, 决赛日
    assert state.shrink_tonight == ()
    (report,) = [e.payload for e in events if e.kind == "morning_report"]
    assert report["vanishing"] == []
    state, _ = night_close(night_open(state, rng())[0], rng())
    assert state.places_on_map() == [FINAL_252]
    assert alive(state) == [1, 2]
    assert state.phase != "over"
    state, _ = day_open(state, rng())  # day 12: after the schedule, still 无限城
    assert (state.day, state.shrink_tonight) == (12, ())


def test_无限城_stays_when_a_hook_puts_it_on_tonights_list() -> None:
    state = only(empty_game(K252, n=2, where=FINAL_252), FINAL_252, "蝶屋")
    state = set_game(state, shrink_tonight=(FINAL_252, "蝶屋"))
    state, _ = night_close(state, rng())
    assert state.places_on_map() == [FINAL_252]
    assert alive(state) == [1, 2]


def test_256_keeps_its_last_place_whatever_the_schedule_asks() -> None:
    state = only(empty_game(I256, n=2, where="钟楼"), "钟楼", "医院")
    state = fresh(set_game(state, day=4))
    state, _ = next_day(state, pick="power_top")  # day 5: 缩4个, two places left
    assert len(state.shrink_tonight) == 1  # one of the two; the other stays
    (stays,) = {"钟楼", "医院"} - set(state.shrink_tonight)
    state = edit(state, 1, 2, place=stays)
    state, _ = night_close(night_open(state, rng())[0], rng())
    assert len(state.places_on_map()) == 1
    assert alive(state) == [1, 2]


# --- 第一天 不缩圈 (RULINGS 24) ------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_凛冬已至_is_never_drawn_on_day_1(seed: int) -> None:
    state, _ = new_game(K252, [(i, f"角色{i}") for i in range(1, 5)], rng(seed))
    assert "winter" not in [s.key for s in allowed_events(state)]
    with pytest.raises(EventNotAllowed):
        event_choose(state, "winter", [], rng())
    # The other events of the first round veto'd: what is left for day 1 never removes a place.
    state, _ = event_choose(state, None, ["villain", "heatwave", "power_top"], rng())
    state, events = day_open(state, rng(seed))
    assert day_event(events) in ("hallucination", "bounty")
    assert state.shrink_tonight == ()


def test_凛冬已至_on_day_2_takes_the_empty_places_but_neither_无限城_nor_the_safe_zone() -> None:
    state = fresh(empty_game(K252, n=3, where="蝶屋"))
    assert "winter" in [s.key for s in allowed_events(state)]  # from day 2
    state, _ = next_day(state, pick="winter")
    assert state.shrink_tonight == ()  # 今日不会有常规缩圈
    state, _ = night_close(night_open(state, rng())[0], rng())
    # 无人过夜的地点缩圈: every empty place but 无限城 (决赛地点) and 产屋敷宅邸 (before night 3).
    assert set(state.places_on_map()) == {"蝶屋", SAFE_252, FINAL_252}
    assert alive(state) == [1, 2, 3]


def test_凛冬已至_on_night_3_the_safe_zone_goes_on_its_fixed_night_无限城_stays() -> None:
    state = only(empty_game(K252, n=3, where="蝶屋"), "蝶屋", "锻刀村", SAFE_252, FINAL_252)
    state = fresh(set_game(state, day=2))
    state, _ = next_day(state, pick="winter")  # day 3
    state, _ = night_close(night_open(state, rng())[0], rng())
    assert set(state.places_on_map()) == {"蝶屋", FINAL_252}


# --- 每个白天将发生一随机事件 (RULINGS 25) --------------------------------------------------------


@pytest.mark.parametrize(("ruleset", "where"), [(K252, FINAL_252), (I256, None)])
def test_every_day_1_to_14_has_an_event_that_takes_effect_that_day(
    ruleset: str, where: str | None
) -> None:
    rs = get_ruleset(ruleset)
    # The default deal: items lie on the ground, so 狂风暴雨 has something to blow away.
    state, _ = new_game(ruleset, [(i, f"角色{i}") for i in range(1, 5)], rng())
    drawn: list[str] = []
    for day in range(1, 15):
        before = state.places_on_map()
        state, events = day_open(state, rng(day))
        key = day_event(events)
        assert key is not None, day
        drawn.append(key)
        ordinary = [p for p in before if p not in (rs.safe_zone, rs.final_place)]
        schedule = rs.shrink_schedule[day - 1] if day <= len(rs.shrink_schedule) else 0
        if key == "vote_top3":  # 如火如荼 reveals the day's vote: from day 2
            assert day >= rs.vote_from_day
        if key == "darkness":  # 黑暗侵袭 hides one of tonight's places (never the safe zone)
            assert [p for p in state.shrink_tonight if p != rs.safe_zone]
        if key == "winter":  # 凛冬已至 replaces a regular shrink that would take a place
            assert schedule > 0
            assert ordinary or (day == rs.safe_zone_night and rs.safe_zone in before)
        # Everyone together, where nothing vanishes tonight (test setup: keep all four alive).
        stay = where or next(p for p in state.places_on_map() if p not in state.shrink_tonight)
        state = edit(state, 1, 2, 3, 4, place=stay, hp=100, mp=100, bleeding=0)
        state, _ = night_close(night_open(state, rng(day))[0], rng(day))
        assert alive(state) == [1, 2, 3, 4], day
    once = [k for k in drawn if k not in repeatable(ruleset)]
    assert len(once) == len(set(once))  # the once-only ones are drawn once
    if ruleset == K252:
        assert state.places_on_map()[-1] == FINAL_252


@pytest.mark.parametrize("ruleset", [K252, I256])
@pytest.mark.parametrize("seed", range(8))
def test_once_the_first_round_is_used_up_the_repeatable_ones_are_drawn_again(
    ruleset: str, seed: int
) -> None:
    state = empty_game(ruleset, n=3, where="蝶屋" if ruleset == K252 else "钟楼")
    state = fresh(set_game(state, day=7), **dict.fromkeys(first_round(ruleset), 2))
    state, events = next_day(state, seed=seed)  # day 8
    key = day_event(events)
    assert key in repeatable(ruleset)
    assert key != "storm"  # 狂风暴雨 comes once (not repeatable in either ruleset)
    # Recurring: on top of the day's event, every day after it first happened.
    assert "villain" in state.flags["events_today"]["keys"]


def test_a_once_only_event_that_cannot_take_effect_gives_way_to_a_repeatable_one() -> None:
    # Day 11 with only 无限城 left: 黑暗侵袭 has no place to hide, 凛冬已至 none to take.
    left = [k for k in first_round(K252) if k != "darkness"]
    state = only(empty_game(K252, n=3, where=FINAL_252), FINAL_252)
    state = fresh(set_game(state, day=10), **dict.fromkeys(left, 2))
    allowed = {s.key for s in allowed_events(state)}
    assert "darkness" not in allowed
    assert "winter" not in allowed
    assert allowed == repeatable(K252) - {"winter", "darkness"}
    for seed in range(8):
        _, events = next_day(state, seed=seed)
        assert day_event(events) in allowed
