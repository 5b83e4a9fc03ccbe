"""Night close, day open, shrink, drowning, ranking (RULINGS 8, 9, 12, 18, 19)."""

from __future__ import annotations

import random

import pytest

from games.engine.errors import WrongPhase
from royale.engine import (
    Move,
    Rest,
    Spawn,
    day_open,
    get_ruleset,
    new_game,
    night_close,
    night_open,
    ranking,
    red_card,
    register_hook,
    register_ruleset,
)
from royale.engine.draft import Draft
from royale.engine.night import draw_shrink
from royale.engine.ruleset import parse_ruleset
from royale.engine.state import (
    CAUSE_BLEEDING,
    CAUSE_DROWNED,
    CAUSE_RED_CARD,
    CAUSE_SHRINK,
    OVER,
)

from .support import I256, K252, act, edit, empty_game, give, keep_safe, next_day, of, put, rng

# --- daily settlement -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rested", "hp", "mp", "after_hp", "after_mp"),
    [
        pytest.param(False, 100, 10, 100, 50, id="the post's example: 10 left + 40 = 50"),
        pytest.param(False, 100, 80, 100, 100, id="+40 stops at 100"),
        pytest.param(True, 60, 20, 85, 100, id="静养: MP to 100 and HP +25"),
        pytest.param(True, 90, 0, 100, 100, id="静养 heals up to the cap of 100"),
    ],
)
def test_daily_recovery(rested, hp, mp, after_hp, after_mp):
    state = empty_game(n=2, where="钟楼")
    if rested:
        state, _ = act(state, Rest(1))
    state = edit(state, 1, hp=hp, mp=mp)
    state, events = next_day(state)
    c = state.characters[1]
    assert (c.hp, c.mp) == (after_hp, after_mp)
    mine = [e for e in of(events, "recovered") if e.audience.character == 1]
    assert mine[0].payload["how"] == ("rest" if rested else "daily")


def test_rest_then_mp_100_after_moving_for_free():
    state = empty_game(n=2, where="钟楼")
    state = edit(state, 1, mp=35)
    state, _ = act(state, Rest(1))
    state, _ = act(state, Move(1, "医院"))
    state, _ = next_day(state)
    assert state.characters[1].mp == 100


# --- shrink -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    ("ruleset", "places", "safe", "safe_night", "counts", "left"),
    [
        pytest.param(
            I256, 37, "教堂", 2, [0, 5, 5, 5, 4, 4, 4, 3, 3, 2, 1], 1, id="256: 36 of 37, one left"
        ),
        pytest.param(
            K252,
            36,
            "产屋敷宅邸",
            3,
            [0, 5, 5, 5, 4, 4, 4, 3, 3, 2, 0],
            1,
            id="252: 35 of 36, 无限城 stays",
        ),
    ],
)
def test_shrink_schedule_sums_correctly(ruleset, places, safe, safe_night, counts, left, seed):
    rs = get_ruleset(ruleset)
    state = empty_game(ruleset, n=2)
    d = Draft(state, rs, random.Random(seed))
    assert len(rs.places) == places
    drawn = []
    for day in range(1, 12):
        d.day = day
        tonight = draw_shrink(d)
        assert (safe in tonight) == (day == safe_night)
        for p in tonight:
            d.wp(p).gone = True
        drawn.append(tonight)
    # [252] 第十一天 决赛日 缩1个, 决赛地点：无限城 — only 无限城 is left to take, and it stays.
    assert [len(x) for x in drawn] == counts
    standing = [p.name for p in d.places.values() if not p.gone]
    assert len(standing) == left
    if ruleset == K252:
        assert standing == ["无限城"]


def test_shrink_list_is_announced_at_day_open_and_applied_at_night_close():
    state = empty_game(n=2, where="钟楼")
    state, events = next_day(state)  # day 2
    (report,) = of(events, "morning_report")
    assert report.audience.kind == "public"
    vanishing = report.payload["vanishing"]
    assert len(vanishing) == 5
    assert "教堂" in vanishing
    doomed = next(p for p in vanishing if p != "教堂")
    state = edit(state, 1, place=doomed)
    state = edit(state, 2, place=next(p for p in state.places_on_map() if p not in vanishing))
    state, knife = put(state, doomed, "weapon:green:小刀")
    state, herb = give(state, 1, "supply:[HP10]草药")
    state, _ = night_open(state, rng())
    state, _ = night_close(state, rng())
    assert not state.characters[1].alive
    assert state.deaths[-1].cause == CAUSE_SHRINK
    assert state.places[doomed].gone
    assert state.places[doomed].items == []
    assert state.gone[knife] == "vanished"
    assert state.gone[herb] == "vanished"
    assert state.places["教堂"].gone
    assert state.winner == 2
    assert state.phase == OVER


def test_full_schedule_through_the_transitions():
    state = empty_game(I256, n=2, where="钟楼")
    vanished_per_night = []
    for _ in range(12):
        state, _ = night_close(state, rng())
        state, _ = day_open(state, rng())
        safe = [p for p in state.places_on_map() if p not in state.shrink_tonight]
        state = edit(state, 1, 2, place=safe[0])  # keep both alive (test setup)
        vanished_per_night.append(len(state.shrink_tonight))
        state, _ = night_open(state, rng())
    assert vanished_per_night == [5, 5, 5, 4, 4, 4, 3, 3, 2, 1, 0, 0]
    assert len(state.places_on_map()) == 1


# --- bleeding, drowning, order ----------------------------------------------------------------


def test_bleeding_comes_before_the_shrink():
    state = empty_game(n=3, where="钟楼")
    state = edit(state, 1, bleeding=10, hp=10)
    state.shrink_tonight = ("钟楼",)
    state = edit(state, 3, place="医院")
    state, events = night_close(state, rng())
    causes = {x.character: x.cause for x in state.deaths}
    assert causes == {1: CAUSE_BLEEDING, 2: CAUSE_SHRINK}
    stages = [e.payload["stage"] for e in events if e.kind == "stage"]
    assert stages == ["post_night", "bleeding", "shrink", "drowning", "victory_check"]


def test_bleeding_death_drops_items_at_the_place():
    state = empty_game(n=2, where="钟楼")
    state = edit(state, 1, bleeding=10, hp=5)
    state, knife = give(state, 1, "weapon:green:小刀", hand=True)
    state, _ = night_close(state, rng())
    assert state.deaths[-1].cause == CAUSE_BLEEDING
    assert knife in state.places["钟楼"].items


def test_unspawned_characters_drown_after_night_2_and_rank_first_out():
    state = empty_game(n=4)
    for cid in (1, 2, 3):
        state, _ = act(state, Spawn(cid, "钟楼"))
    state, _ = night_close(state, rng())
    assert state.characters[4].alive  # not after night 1
    state, _ = day_open(state, rng())
    state = edit(
        state,
        1,
        2,
        3,
        place=next(p for p in state.places_on_map() if p not in state.shrink_tonight),
    )
    state, _ = night_open(state, rng())
    state = edit(state, 3, bleeding=10, hp=1)  # dies earlier in the same close
    state, _ = night_close(state, rng())
    assert not state.characters[4].alive
    assert state.deaths[-1].cause == CAUSE_DROWNED
    rows = {r["character"]: r["rank"] for r in ranking(state)}
    assert rows == {1: 1, 2: 1, 3: 3, 4: 4}


def test_deaths_in_one_settlement_step_share_a_rank():
    state = empty_game(n=4, where="钟楼")
    state = edit(state, 1, 2, bleeding=10, hp=10)
    state, _ = night_close(state, rng())
    rows = {r["character"]: r["rank"] for r in ranking(state)}
    assert rows == {3: 1, 4: 1, 1: 3, 2: 3}


def test_all_remaining_die_at_once_nobody_wins():
    state = empty_game(n=2, where="钟楼")
    state.shrink_tonight = ("钟楼",)
    state, events = night_close(state, rng())
    assert state.phase == OVER
    assert state.winner is None
    assert [r["rank"] for r in ranking(state)] == [1, 1]
    (over,) = of(events, "game_over")
    assert over.payload["winner"] is None


def test_several_last_characters_dying_at_once_is_a_directors_win():
    # 若多名角色最后同时死亡，导演获胜 (RULINGS 29): three left, all in the shrink of 钟楼.
    state = empty_game(n=3, where="钟楼")
    state.shrink_tonight = ("钟楼",)
    state, events = night_close(state, rng())
    assert state.winner is None
    assert [r["rank"] for r in ranking(state)] == [1, 1, 1]
    (over,) = of(events, "game_over")
    assert over.payload["winner"] is None


def test_the_last_character_dying_alone_ranks_first_and_wins():
    # 存活到最后的角色获胜: two left; 角色1 bleeds out first, 角色2 dies alone in the shrink
    # after it — the last death, alone, so 角色2 ranks first and wins (RULINGS 29).
    state = empty_game(n=2, where="钟楼")
    state = edit(state, 2, place="钟楼")
    state = edit(state, 1, place="灯塔", bleeding=10, hp=10)
    state.shrink_tonight = ("钟楼",)
    state, events = night_close(state, rng())
    assert state.phase == OVER
    assert [c.alive for c in state.characters.values() if not c.npc] == [False, False]
    assert state.winner == 2
    assert [(r["character"], r["rank"]) for r in ranking(state)] == [(2, 1), (1, 2)]
    (over,) = of(events, "game_over")
    assert over.payload["winner"] == 2


def test_red_card_is_a_death_of_its_own_step():
    state = empty_game(n=3, where="钟楼")
    state, knife = give(state, 2, "weapon:green:小刀")
    state, events = red_card(state, 2, rng())
    assert state.deaths[-1].cause == CAUSE_RED_CARD
    assert knife in state.places["钟楼"].items
    assert of(events, "red_card")[0].audience.kind == "public"


def test_morning_report_lists_last_nights_deaths_and_causes():
    state = empty_game(n=3, where="钟楼")
    state = edit(state, 1, bleeding=10, hp=10)
    state, events = next_day(state)
    (report,) = of(events, "morning_report")
    assert report.payload["deaths"] == [{"character": 1, "name": "角色1", "cause": "流血"}]
    assert report.payload["weather"] == "雾天"


def test_vote_weight_is_one_plus_held_item_values_at_night_end():
    state = empty_game(n=2, where="钟楼")
    state, _ = give(state, 1, "weapon:green:小刀", hand=True)  # +1
    state, _ = give(state, 1, "armor:green:万能钥匙")  # +2
    state, _ = give(state, 1, "recon:GPS")  # +3
    state, _ = night_close(state, rng())
    assert state.flags["vote_weights"] == {"1": 7, "2": 1}


def test_transitions_refuse_the_wrong_phase():
    state = empty_game(n=2)
    with pytest.raises(WrongPhase):
        day_open(state, rng())
    with pytest.raises(WrongPhase):
        night_open(state, rng())


# --- hooks ------------------------------------------------------------------------------------


def test_hooks_run_at_their_stage_in_order():
    calls: list[str] = []

    @register_hook("test.record")
    def record(d, stage, context):
        calls.append(f"{stage}:{d.day}")
        if stage == "pre_night":
            for c in list(d.chars.values()):
                d.wc(c.id).mp -= 30  # 酷暑难耐: after the daily settlement

    rs = get_ruleset(K252)
    raw = dict(rs.raw, key="test_hooks_252")
    raw["hooks"] = {
        stage: ["test.record"] for stage in ("day_close", "night_open", "post_night", "pre_night")
    }
    register_ruleset(parse_ruleset(raw))
    state, _ = new_game("test_hooks_252", [(1, "甲"), (2, "乙")], rng())
    state, _ = day_open(state, rng())
    state, _ = night_open(state, rng())
    state = edit(state, 1, 2, place="蝶屋", mp=10)
    state, _ = night_close(state, rng())
    state, _ = day_open(state, rng())
    assert calls == ["pre_night:1", "day_close:1", "night_open:1", "post_night:1", "pre_night:2"]
    # day 2: 10 left + 40 (settlement first), then 酷暑 −30
    assert state.characters[1].mp == 20


def test_a_hook_can_kill_by_special_event_and_items_drop():
    from royale.engine.combat import kill_by_event
    from royale.engine.state import CAUSE_EVENT

    @register_hook("test.nest")
    def nest(d, stage, context):
        step = d.next_step()  # one event, one settlement step: its deaths share a rank
        for c in d.at_place("钟楼"):
            w = d.wc(c.id)
            w.hp -= 20  # 嗡嗡特攻队: 所有地处该地点过夜的玩家会受到20点伤害
            if w.hp <= 0:
                kill_by_event(d, c.id, step=step)

    raw = dict(get_ruleset(I256).raw, key="test_nest_256")
    raw["hooks"] = {"day_close": [], "night_open": [], "post_night": ["test.nest"], "pre_night": []}
    register_ruleset(parse_ruleset(raw))
    state = empty_game("test_nest_256", n=4, where="钟楼")
    state = edit(state, 4, place="医院")
    state = edit(state, 1, hp=15)
    state = edit(state, 2, hp=20)
    state, knife = give(state, 1, "weapon:green:小刀")
    state, _ = night_close(state, rng())
    assert [(x.character, x.cause) for x in state.deaths] == [(1, CAUSE_EVENT), (2, CAUSE_EVENT)]
    assert knife in state.places["钟楼"].items
    assert state.characters[3].hp == 80
    assert state.characters[4].hp == 100
    rows = {r["character"]: r["rank"] for r in ranking(state)}
    assert rows == {3: 1, 4: 1, 1: 3, 2: 3}


def test_the_five_transitions_of_the_timetable():
    from royale.engine import Search, day_close, night_end

    state, _ = new_game(I256, [(1, "甲"), (2, "乙")], rng())
    assert state.phase == "before"
    state, _ = day_open(state, rng())
    assert state.phase == "day"
    state, events = day_close(state, rng())
    assert state.phase == "dusk"
    assert [e.payload["stage"] for e in events if e.kind == "stage"] == ["day_close"]
    state, events = night_open(state, rng())
    assert state.phase == "night"
    assert not [e for e in events if e.kind == "stage" and e.payload["stage"] == "day_close"]
    state, _ = act(state, Spawn(1, "钟楼"))
    state, _ = night_end(state, rng())
    assert state.phase == "late"
    with pytest.raises(WrongPhase):
        act(state, Search(1))
    state, _ = night_close(state, rng())
    assert state.phase == "dawn"


@pytest.mark.parametrize(
    ("flag", "value", "announced", "vanishing"),
    [
        pytest.param(
            "shrink_hidden_count", 1, 4, 5, id="黑暗侵袭: one of tonight's places unannounced"
        ),
        pytest.param(
            "no_shrink", True, 1, 1, id="凛冬已至: no regular shrink, the safe zone still goes"
        ),
    ],
)
def test_event_flags_change_the_shrink_of_the_day(flag, value, announced, vanishing):
    name = f"test.flag.{flag}"

    @register_hook(name)
    def set_flag(d, stage, context):
        d.wflags()[flag] = value

    raw = dict(get_ruleset(I256).raw, key=f"test_{flag}_256")
    raw["hooks"] = {"pre_night": [name]}
    register_ruleset(parse_ruleset(raw))
    state = empty_game(f"test_{flag}_256", n=2, where="钟楼")
    state, events = next_day(state)
    (report,) = of(events, "morning_report")
    assert len(report.payload["vanishing"]) == announced
    assert len(state.shrink_tonight) == vanishing
    assert "教堂" in state.shrink_tonight


def test_yesterdays_search_result_is_cleared_at_day_open() -> None:
    from royale.engine import Search

    state = keep_safe(empty_game(n=2), 1, 2)
    state, _ = act(state, Search(1))
    assert state.characters[1].found is not None
    state, _ = next_day(state)
    assert state.phase == "day"
    assert state.characters[1].found is None  # the night view of day 2 shows no old find
