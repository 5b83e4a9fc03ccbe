"""随机事件 of [256] and [252]: the draw, the director's pick and veto, every event's effect with
the posts' numbers, and the order of RULINGS 19."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from games.engine.errors import InvalidInput
from games.engine.events import GameEvent
from royale.engine import (
    Drop,
    Move,
    Rest,
    Spawn,
    airdrop,
    day_open,
    get_ruleset,
    night_close,
    night_open,
    ranking,
)
from royale.engine.actions import Attack, action_from_json
from royale.engine.draft import open_draft
from royale.engine.errors import (
    EventFixedDay,
    EventNotAllowed,
    NoRewardOffer,
    NotAnOption,
    UnknownEvent,
)
from royale.engine.events import (
    ClaimReward,
    EventRules,
    EventSpec,
    allowed_events,
    event_choose,
    event_plan,
    rules_of,
    todays_events,
)
from royale.engine.invariants import problems
from royale.engine.ruleset import RulesetError, parse_ruleset
from royale.engine.state import (
    CAUSE_ATTACK,
    CAUSE_BLEEDING,
    CAUSE_DROWNED,
    CAUSE_EVENT,
    GameState,
)

from .support import (
    I256,
    K252,
    act,
    dead,
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
    put,
    rng,
    safe_places,
    set_flags,
    set_game,
    vanished,
)

ADAI, ABEN = -1001, -1002


# --- helpers -------------------------------------------------------------------------------------


def today(state: GameState, *keys: str) -> GameState:
    """Test setup: today's events are ``keys`` (as if the day open had settled them)."""
    d = open_draft(state, rng())
    f = d.wflags()
    f["events_today"] = {"day": d.day, "keys": list(keys)}
    f["events_happened"] = {**f.get("events_happened", {}), **dict.fromkeys(keys, d.day)}
    return d.finish()


def quiet(state: GameState) -> GameState:
    """Test setup: no event has happened yet ([252]'s day 1 draws one; [256]'s brings the NPCs)."""
    d = open_draft(state, rng())
    for key in ("events_today", "events_happened", "vote_reveal", "rest_disabled", "no_shrink"):
        d.wflags().pop(key, None)
    return d.finish()


def villain_today(state: GameState, cid: int) -> GameState:
    """Test setup: 恶棍 is today's event and ``cid`` the villain."""
    state = today(state, "villain")
    return set_flags(state, villain={"day": state.day, "character": cid, "holders": [cid]})


def night(state: GameState) -> GameState:
    return night_open(state, rng())[0]


def keys_today(state: GameState) -> list[str]:
    return [s.key for s in todays_events(state)]


# --- data ----------------------------------------------------------------------------------------


def event_rules(ruleset: str) -> EventRules:
    found = rules_of(get_ruleset(ruleset))
    assert found is not None
    return found


def spec(ruleset: str, key: str) -> EventSpec:
    found = event_rules(ruleset).get(key)
    assert found is not None
    return found


def test_every_event_of_both_posts_is_in_the_rulesets_with_its_name() -> None:
    names_256 = {s.key: s.name for s in event_rules(I256).events}
    assert names_256 == {
        "villain": "臭名昭著的恶棍",
        "mini_war": "迷你战争",
        "storm": "狂风暴雨",
        "payday": "战利品？！",
        "npcs": "阿呆和阿笨",
        "twist": "意料之外的剧情",
        "vote_top3": "先进的记票制",
        "broadcast": "永不停歇的电波",
        "power_top": "人以群分",
        "erie": "伊利湖的入侵",
        "bees": "嗡嗡特攻队",
        "night_parade": "百鬼夜行",
    }
    names_252 = {s.key: s.name for s in event_rules(K252).events}
    assert names_252 == {
        "villain": "鬼王再世",
        "heatwave": "酷暑难耐",
        "winter": "凛冬已至",
        "night_parade": "百鬼夜行",
        "darkness": "黑暗侵袭",
        "power_top": "柱弦榜",
        "hallucination": "致幻迷雾",
        "storm": "狂风暴雨",
        "vote_top3": "如火如荼",
        "bounty": "悬赏令",
    }
    assert spec(I256, "payday").days == (3,)
    assert spec(I256, "npcs").days == (1,)
    assert spec(I256, "storm").from_day == spec(K252, "storm").from_day == 6
    assert spec(I256, "villain").recurring
    assert spec(K252, "villain").recurring
    assert spec(I256, "bees").recurring
    assert spec(I256, "night_parade").automatic
    assert spec(K252, "night_parade").automatic
    # What an event needs to take effect that day (RULINGS 24, 25), as data.
    assert spec(K252, "winter").needs == ("shrink",)
    assert spec(K252, "darkness").needs == ("hidden_shrink",)
    assert spec(K252, "vote_top3").needs == spec(I256, "vote_top3").needs == ("vote",)
    assert spec(I256, "storm").needs == spec(K252, "storm").needs == ("ground_items",)
    assert spec(I256, "twist").needs == ("new_items",)
    assert not spec(I256, "storm").repeatable
    assert spec(K252, "heatwave").repeatable


@pytest.mark.parametrize(
    ("change", "field"),
    [
        pytest.param({"key": "no_such"}, "events.list[0].key", id="unknown behaviour"),
        pytest.param({"params": {}}, "events.list[0].params.title", id="missing number"),
        pytest.param(
            {"params": {"title": "恶棍", "damage": -20}},
            "events.list[0].params.damage",
            id="negative number",
        ),
        pytest.param({"days": [0]}, "events.list[0].days", id="day 0"),
        pytest.param({"needs": ["no_such"]}, "events.list[0].needs", id="unknown need"),
        pytest.param(
            {"repeatable": True}, "events.list[0].repeatable", id="a recurring one is not drawn"
        ),
    ],
)
def test_a_broken_events_section_names_the_field(change: dict[str, Any], field: str) -> None:
    data = json.loads(json.dumps(dict(get_ruleset(I256).raw)))
    data["events"]["list"][0].update(change)
    with pytest.raises(RulesetError) as err:
        parse_ruleset(data)
    assert err.value.field == field


def test_a_reward_that_is_not_in_the_catalogue_is_refused_when_loading() -> None:
    data = json.loads(json.dumps(dict(get_ruleset(K252).raw)))
    bounty = next(e for e in data["events"]["list"] if e["key"] == "bounty")
    bounty["params"]["rewards"] = ["supply:[HP60]甘草糖"]  # a [256] name
    with pytest.raises(RulesetError) as err:
        parse_ruleset(data)
    assert err.value.field.endswith("params.rewards[0]")


# --- the draw ------------------------------------------------------------------------------------


def test_256_day_1_is_阿呆和阿笨_and_day_3_is_战利品_whatever_the_seed() -> None:
    for seed in range(4):
        state = empty_game(I256, n=3, where="钟楼")
        assert keys_today(state) == ["npcs"]
        state, _ = next_day(state, seed=seed)
        assert keys_today(state)[0] not in ("npcs", "payday")
        state, _ = next_day(night(keep_safe(state, 1, 2, 3)), seed=seed)
        assert keys_today(state)[0] == "payday"


@pytest.mark.parametrize("ruleset", [I256, K252])
def test_狂风暴雨_is_never_drawn_before_day_6(ruleset: str) -> None:
    state = quiet(empty_game(ruleset, n=3, where="钟楼" if ruleset == I256 else "蝶屋"))
    herb = "supply:[HP10]草药" if ruleset == I256 else "supply:[HP10]镇痛贴"
    assert "storm" not in [s.key for s in allowed_events(set_game(state, day=5))]  # bare ground
    state, _ = put(state, "医院" if ruleset == I256 else "锻刀村", herb)  # 狂风暴雨 needs something
    assert "storm" not in [s.key for s in allowed_events(set_game(state, day=4))]  # for day 5
    assert "storm" in [s.key for s in allowed_events(set_game(state, day=5))]  # for day 6
    with pytest.raises(EventNotAllowed):
        event_choose(set_game(state, day=4), "storm", [], rng())


@pytest.mark.parametrize("ruleset", [I256, K252])
def test_each_event_is_drawn_once_and_a_recurring_one_comes_every_day_after(ruleset: str) -> None:
    state = empty_game(ruleset, n=4, where="钟楼" if ruleset == I256 else "蝶屋")
    drawn: list[str] = [keys_today(state)[0]] if keys_today(state) else []
    villain_since = None
    for day in range(2, 10):
        if "winter" in [s.key for s in allowed_events(state)]:
            # 凛冬已至 would take every place nobody stands in, and the game with them.
            state, _ = event_choose(state, None, ["winter"], rng())
        state, _ = next_day(state, seed=day)
        state = keep_safe(edit(state, 1, 2, 3, 4, hp=100, mp=100), 1, 2, 3, 4)
        keys = keys_today(state)
        if villain_since is not None:
            assert "villain" in keys, day
        if "villain" in keys and villain_since is None:
            villain_since = day
        drawn += [k for k in keys if k not in ("villain", "bees", "night_parade")][:1]
        state = night(state)
    assert len(drawn) == len(set(drawn))


def test_the_director_picks_the_next_days_event() -> None:
    state = empty_game(I256, n=3, where="钟楼")
    state, events = event_choose(state, "erie", [], rng())
    assert event_plan(state) == {"day": 2, "pick": "erie", "veto": []}
    (entry,) = of(events, "intervention")
    assert entry.audience.kind == "directors"
    state, _ = next_day(state)
    assert keys_today(state) == ["erie"]
    assert event_plan(state) is None  # consumed


def test_a_veto_keeps_an_event_out_of_the_draw() -> None:
    state = empty_game(I256, n=3, where="钟楼")
    allowed = [s.key for s in allowed_events(state)]
    assert "storm" not in allowed
    assert "payday" not in allowed
    assert "night_parade" not in allowed
    keep = "power_top"
    state, _ = event_choose(state, None, [k for k in allowed if k != keep], rng())
    state, _ = next_day(state)
    assert keys_today(state) == [keep]


def test_choices_the_rules_do_not_allow_are_refused_and_change_nothing() -> None:
    state = empty_game(I256, n=3, where="钟楼")
    with pytest.raises(UnknownEvent):
        event_choose(state, "no_such", [], rng())
    with pytest.raises(EventNotAllowed):
        event_choose(state, "payday", [], rng())  # fixed on day 3, never drawn
    with pytest.raises(InvalidInput):
        event_choose(state, "erie", ["erie"], rng())
    tomorrow_fixed = set_game(state, day=2)  # day 3 is 战利品's
    with pytest.raises(EventFixedDay):
        event_choose(tomorrow_fixed, "erie", [], rng())
    assert "event_plan" not in state.flags


def test_each_event_is_announced_publicly_with_the_posts_name() -> None:
    state = empty_game(I256, n=3, where="钟楼")
    state, events = next_day(state, pick="power_top")
    (announced,) = public(events, "day_event")
    assert announced["name"] == "人以群分"
    assert announced["text"].startswith("【今日事件】人以群分：今日将会公示夜间行动前战力排名前五")


# --- order (RULINGS 19) --------------------------------------------------------------------------


def test_an_event_before_the_night_comes_after_the_daily_settlement() -> None:
    state = quiet(empty_game(K252, n=2, where="蝶屋"))
    state, _ = act(state, Rest(2))
    state = edit(state, 1, mp=10)
    state, _ = next_day(state, pick="heatwave")
    # 酷暑难耐 −30 MP after the settlement: 10 + 40 − 30 = 20; the resting one 100 − 30 = 70.
    assert state.characters[1].mp == 20
    assert state.characters[2].mp == 70


def test_an_event_after_the_night_comes_before_bleeding() -> None:
    state = empty_game(I256, n=3, where="钟楼")
    state = edit(villain_today(state, 1), 2, hp=25, bleeding=10)
    state, events = night_close(state, rng())
    # 25 − 20 (恶棍) = 5, then bleeding 10: out by 流血, so the event acted first.
    assert {x.character: x.cause for x in state.deaths} == {2: CAUSE_BLEEDING}
    stages = [e.payload["stage"] for e in events if e.kind == "stage"]
    assert stages.index("post_night") < stages.index("bleeding")


# --- 臭名昭著的恶棍 / 鬼王再世 -------------------------------------------------------------------


def test_the_villain_costs_everyone_else_at_its_place_20_hp() -> None:
    state = empty_game(I256, n=4, where="监狱")
    state = edit(state, 4, place="钟楼")
    state = edit(state, ABEN, place="监狱")
    state, _ = night_close(villain_today(state, 1), rng())
    hp = {cid: state.characters[cid].hp for cid in (1, 2, 3, 4)}
    assert hp == {1: 100, 2: 80, 3: 80, 4: 100}
    assert state.characters[ABEN].hp == 50  # NPCs are not players
    assert state.flags["villain"]["character"] is None  # the title ends with the night


def test_the_villain_is_named_publicly_and_never_twice_running() -> None:
    state = empty_game(I256, n=2)
    state = edit(state, 1, place="监狱")
    state = edit(state, 2, place="钟楼")
    state, events = next_day(state, pick="villain")
    (named,) = public(events, "villain")
    assert named["text"] == f"今日的【恶棍】是 {named['name']}。"
    holders = [named["character"]]
    for seed in range(3):
        there, elsewhere = safe_places(state)[:2]
        state = edit(edit(state, 1, place=there), 2, place=elsewhere)
        state, events = next_day(night(state), seed=seed)
        (named,) = public(events, "villain")
        holders.append(named["character"])
    assert all(a != b for a, b in itertools.pairwise(holders))


def test_the_villains_killer_inherits_the_title_at_once_and_strikes_its_own_place() -> None:
    state = empty_game(I256, n=4, where="监狱")
    state = edit(state, 3, 4, place="钟楼")
    state = villain_today(state, 1)
    state = edit(state, 1, hp=5)
    state, handle = found_character(state, 2, 1)
    state, events = act(state, Attack(2, handle))
    (named,) = public(events, "villain")
    assert named["character"] == 2
    assert named["inherited"]
    assert named["text"] == "【恶棍】被击杀，击杀者 角色2 成为新的【恶棍】！"
    state, _ = act(state, Move(2, "钟楼"))
    state, _ = night_close(state, rng())
    assert [state.characters[c].hp for c in (2, 3, 4)] == [100, 80, 80]
    # Both held the title today: neither can be tomorrow's.
    state, events = day_open(state, rng())
    assert public(events, "villain")[0]["character"] in (3, 4)


def test_a_鬼王_in_无限城_strikes_the_place_it_came_from() -> None:
    state = quiet(empty_game(K252, n=4, where="蝶屋"))
    state = edit(state, 4, place="无限城")
    state, _ = act(state, Move(1, "无限城"))
    state, _ = night_close(villain_today(state, 1), rng())
    hp = {cid: state.characters[cid].hp for cid in (1, 2, 3, 4)}
    assert hp == {1: 100, 2: 80, 3: 80, 4: 100}


def test_deaths_by_one_event_share_a_rank_and_drop_their_items() -> None:
    state = empty_game(I256, n=4, where="监狱")
    state = edit(state, 4, place="钟楼")
    state = edit(state, 2, 3, hp=15)
    state, knife = give(state, 2, "weapon:green:小刀", hand=True)
    state, _ = night_close(villain_today(state, 1), rng())
    assert {x.character: x.cause for x in state.deaths} == {2: CAUSE_EVENT, 3: CAUSE_EVENT}
    ranks = {r["character"]: r["rank"] for r in ranking(state)}
    assert ranks[2] == ranks[3] == 3
    assert knife in state.places["监狱"].items


# --- 迷你战争 ------------------------------------------------------------------------------------


def test_迷你战争() -> None:
    state = empty_game(I256, n=4, where="监狱")
    state, _events = next_day(state, pick="mini_war")
    for cid in (1, 2, 3, 4):
        assert holding(state, cid) == ["supply:[MP100]兴奋剂"]
    here, there = safe_places(state)[:2]
    state = night(edit(state, 1, 2, 3, 4, place=here))
    state, _ = act(state, Rest(4))  # rested: no damage
    state = edit(state, 1, hp=70, mp=50)
    state = edit(state, 2, hp=5)
    state, handle = found_character(state, 1, 2)
    state, _ = act(state, Attack(1, handle))  # 1 acted and killed 2
    state, _ = act(state, Move(3, there))  # 3 acted
    state, _ = night_close(state, rng())
    # 1: +20/+20 for the kill, then −10 for acting (70 + 20 − 10, 50 + 20); 3: −10; 4 rested.
    assert (state.characters[1].hp, state.characters[1].mp) == (80, 70)
    assert state.characters[3].hp == 90
    assert state.characters[4].hp == 100


# --- 狂风暴雨 ------------------------------------------------------------------------------------


def test_狂风暴雨_clears_the_ground_and_the_npcs_leave() -> None:
    state = empty_game(I256, n=2, where="监狱")
    state, knife = put(state, "监狱", "weapon:green:小刀")
    aben_item = state.characters[ABEN].pack[0]
    state = set_game(state, day=5)
    state, events = next_day(state, pick="storm")
    assert state.places["监狱"].items == []
    assert state.gone[knife] == "vanished"
    assert state.gone[aben_item] == "vanished"
    assert not state.characters[ADAI].alive
    assert not state.characters[ABEN].alive
    assert public(events, "npcs_left")[0]["text"] == "阿呆和阿笨离开了。"
    assert not problems(state)
    state, _ = next_day(night(keep_safe(state, 1, 2)))
    assert not state.characters[ABEN].alive  # gone for good


# --- 战利品？！ ----------------------------------------------------------------------------------


def test_战利品_on_day_3_gives_every_living_player_2_dollars() -> None:
    state = empty_game(I256, n=3, where="监狱")
    state, _ = next_day(state, pick="power_top")
    state = edit(night(keep_safe(state, 1, 2, 3)), 3, hp=5, bleeding=10)  # dies tonight
    state, _ = next_day(state)
    assert keys_today(state)[0] == "payday"
    assert holding(state, 1) == holding(state, 2) == ["tool:2$"]
    assert holding(state, 3) == []


# --- 意料之外的剧情 ------------------------------------------------------------------------------


def test_意料之外的剧情_arms_a_weak_player_secretly_for_one_night() -> None:
    state = empty_game(I256, n=10, where="监狱")
    state = edit(state, 7, hp=20)  # the weakest: the bottom 10% of ten players is one
    state, events = next_day(state, pick="twist")
    state = keep_safe(state, *range(1, 11))
    kinds = [state.items[i].kind for i in state.characters[7].pack]
    assert [k.split(":")[:2] for k in kinds] == [["weapon", "orange"], ["armor", "orange"]]
    assert all(
        "角色7" not in json.dumps(p, ensure_ascii=False) for p in public(events, "day_event")
    )
    assert not [e for e in events if e.audience.kind == "public" and e.kind == "item_granted"]
    assert len(heard(events, 7, "item_granted")) == 2
    weapon, armor = state.characters[7].pack
    state = night(state)
    state, _ = act(state, Drop(7, weapon))
    place = state.characters[7].place
    assert place is not None
    state, _ = night_close(state, rng())
    assert weapon not in state.places[place].items
    assert armor not in state.characters[7].pack
    assert state.gone[weapon] == state.gone[armor] == "vanished"


# --- 先进的记票制 / 如火如荼 ---------------------------------------------------------------------


@pytest.mark.parametrize(("ruleset", "place"), [(I256, "监狱"), (K252, "蝶屋")])
def test_top_three_revealed_and_no_rest_reward(ruleset: str, place: str) -> None:
    state = quiet(empty_game(ruleset, n=2, where=place))
    state, _ = next_day(state, pick="vote_top3")
    assert state.flags["vote_reveal"] == 3
    state = edit(night(keep_safe(state, 1, 2)), 1, hp=50, mp=20)
    state, _ = act(state, Rest(1))
    state, _ = next_day(state)
    assert (state.characters[1].hp, state.characters[1].mp) == (50, 60)  # only the daily +40
    assert "vote_reveal" not in state.flags


# --- 永不停歇的电波 ------------------------------------------------------------------------------


def test_永不停歇的电波_reveals_everything_and_rewards_killing_a_bountied_player() -> None:
    state = empty_game(I256, n=5, where="监狱")
    state = edit(state, 5, place="钟楼")
    state, _knife = put(state, "钟楼", "weapon:green:小刀")
    state, events = next_day(state, pick="broadcast")
    (shown,) = [p for p in public(events, "broadcast") if "places" in p]
    by_place = {x["place"]: x for x in shown["places"]}
    assert by_place["监狱"]["characters"] == ["角色1", "角色2", "角色3", "角色4"]
    assert by_place["钟楼"] == {"place": "钟楼", "items": ["小刀"], "characters": ["角色5"]}
    assert sorted(b["character"] for b in shown["bounties"]) == [1, 2, 3, 4, 5]
    # Today's airdrop is published with its place.
    state, dropped = airdrop(state, ["supply:[HP10]草药"], rng())
    (landed,) = [p for p in public(dropped, "broadcast") if "airdrop" in p]
    assert landed["airdrop"][0]["name"] == "[HP10]草药"
    assert landed["airdrop"][0]["place"] in state.places_on_map()
    state = edit(night(state), 2, hp=5)
    state, handle = found_character(state, 1, 2)
    state, events = act(state, Attack(1, handle))
    (offer,) = heard(events, 1, "reward_offered")
    assert [o["name"] for o in offer["options"]] == ["[HP60]甘草糖", "[MP50]咖啡"]
    with pytest.raises(NotAnOption):
        act(state, ClaimReward(1, "supply:[HP100]蜂王浆"))
    state, _ = act(state, ClaimReward(1, "supply:[MP50]咖啡"))
    assert "supply:[MP50]咖啡" in holding(state, 1)
    with pytest.raises(NoRewardOffer):
        act(state, ClaimReward(1, "supply:[HP60]甘草糖"))  # once
    assert action_from_json(ClaimReward(1, "supply:[MP50]咖啡").to_json()) == ClaimReward(
        1, "supply:[MP50]咖啡"
    )


# --- 人以群分 / 柱弦榜 ---------------------------------------------------------------------------


def test_人以群分_publishes_the_top_five_with_a_tie_shown_whole() -> None:
    state = empty_game(I256, n=7, where="监狱")
    for cid, hp in zip(range(1, 8), (100, 90, 80, 70, 60, 60, 10), strict=True):
        state = edit(state, cid, hp=hp, mp=10)
    state, events = next_day(state, pick="power_top")
    (shown,) = public(events, "power_ranking")
    assert [(r["rank"], r["name"]) for r in shown["rows"]] == [
        (1, "角色1"),
        (2, "角色2"),
        (3, "角色3"),
        (4, "角色4"),
        (5, "角色5"),
        (5, "角色6"),
    ]
    assert set(shown["rows"][0]) == {"rank", "character", "name"}  # never the numbers behind
    assert shown["text"].startswith("【人以群分】第1名 角色1")


# --- 伊利湖的入侵 / 凛冬已至 ---------------------------------------------------------------------


def test_伊利湖的入侵() -> None:
    state = empty_game(I256, n=6, where="监狱")
    state = edit(state, 1, place="钟楼")  # alone
    state = edit(state, 2, 3, place="医院")  # a pair
    state, herb = put(state, "学校", "supply:[HP10]草药")  # nobody there
    state, kept = put(state, "监狱", "supply:[HP10]草药")
    state, _ = night_close(today(state, "erie"), rng())
    c = state.characters
    assert c[1].hp == 80
    assert c[1].mp == 100
    assert (c[2].hp, c[2].mp) == (100, 80) == (c[3].hp, c[3].mp)
    assert all(c[i].hp == 100 and c[i].mp == 100 for i in (4, 5, 6))
    assert state.places["学校"].items == []
    assert state.gone[herb] == "vanished"
    assert state.places["监狱"].items == [kept]


def test_凛冬已至_no_regular_shrink_and_the_empty_places_vanish() -> None:
    state = quiet(empty_game(K252, n=6, where="锻刀村"))
    state = edit(state, 1, place="蝶屋")
    state = edit(state, 2, 3, place="炼狱之家")
    state, events = next_day(state, pick="winter")
    assert state.shrink_tonight == ()
    assert public(events, "morning_report")[0]["vanishing"] == []
    state, _ = night_close(night(state), rng())
    c = state.characters
    assert (c[1].hp, c[2].mp, c[3].mp, c[4].hp) == (80, 80, 80, 100)
    left = set(state.places_on_map())
    assert left == {"蝶屋", "炼狱之家", "锻刀村", "产屋敷宅邸", "无限城"}


# --- 嗡嗡特攻队 ----------------------------------------------------------------------------------


def test_嗡嗡特攻队_a_nest_costs_20_hp_and_comes_back_every_day() -> None:
    state = empty_game(I256, n=4, where="监狱")
    for place in state.places_on_map():
        if place not in ("监狱", "钟楼", "医院"):
            state = vanished(state, place)
    state = edit(state, ADAI, ABEN, place="监狱")
    state = edit(state, 3, 4, place="钟楼")
    state.shrink_tonight = ("医院",)
    state, events = night_close(today(state, "bees"), rng())
    (nest,) = public(events, "nest")
    assert nest["place"] in ("监狱", "钟楼")  # never the place vanishing tonight
    assert nest["text"] == f"在{nest['place']}附近发现了新的奇异巢穴！"
    struck = {1, 2} if nest["place"] == "监狱" else {3, 4}
    assert {cid for cid in (1, 2, 3, 4) if state.characters[cid].hp == 80} == struck
    state, _ = day_open(set_flags(state, events_happened={"bees": 1}), rng())
    assert "bees" in keys_today(state)


# --- 酷暑难耐 / 致幻迷雾 / 黑暗侵袭 --------------------------------------------------------------


def test_致幻迷雾_swaps_hp_and_mp_after_the_settlement() -> None:
    state = quiet(empty_game(K252, n=2, where="蝶屋"))
    state = edit(state, 1, hp=90, mp=10)
    state, events = next_day(state, pick="hallucination")
    assert (state.characters[1].hp, state.characters[1].mp) == (50, 90)  # 10 + 40 = 50 ↔ 90
    assert (
        heard(events, 1, "event_effect")[0]["text"]
        == "【致幻迷雾】你的生命值与体力互换（生命 50，体力 90）。"
    )


def test_黑暗侵袭_hides_one_vanishing_place_which_still_vanishes() -> None:
    state = quiet(empty_game(K252, n=2, where="蝶屋"))
    state, events = next_day(state, pick="darkness")
    (report,) = public(events, "morning_report")
    assert len(state.shrink_tonight) == 5
    assert len(report["vanishing"]) == 4
    (hidden,) = set(state.shrink_tonight) - set(report["vanishing"])
    state = edit(
        state, 1, 2, place=next(p for p in state.places_on_map() if p not in state.shrink_tonight)
    )
    state, _ = night_close(night(state), rng())
    assert state.places[hidden].gone


# --- 悬赏令 --------------------------------------------------------------------------------------


def test_悬赏令_a_hit_earns_one_reward_to_claim_the_next_day() -> None:
    state = quiet(empty_game(K252, n=4, where="蝶屋"))
    state, events = next_day(state, pick="bounty")
    (posted,) = public(events, "bounty")
    wanted = [b["character"] for b in posted["bounties"]]
    assert len(wanted) == 3
    hunter = next(c for c in (1, 2, 3, 4) if c not in wanted)
    state = night(keep_safe(state, 1, 2, 3, 4))
    state, _ = give(state, wanted[0], "armor:green:铁额箍", hand=True)  # 5 − 5: 0 damage
    for target in wanted[:2]:
        state, handle = found_character(state, hunter, target)
        state, events = act(state, Attack(hunter, handle))  # 0 damage still struck
    assert len(heard(events, hunter, "reward_offered")) == 0  # once per attacker
    with pytest.raises(NoRewardOffer):
        act(state, ClaimReward(hunter, "supply:[HP60]愈合膏"))  # not before the next day
    state, _ = next_day(state)
    assert state.characters[wanted[0]].hp == 100
    state, _ = act(state, ClaimReward(hunter, "supply:[HP60]愈合膏"))
    assert holding(state, hunter) == ["supply:[HP60]愈合膏"]
    with pytest.raises(NoRewardOffer):
        act(state, ClaimReward(hunter, "supply:[MP50]静心丸"))


# --- 百鬼夜行 ------------------------------------------------------------------------------------


def parade_game() -> GameState:
    """Six players, four out: 3 and 4 by attack (step 1), 5 by bleeding (step 2), 6 drowned."""
    state = empty_game(I256, n=6, where="监狱")
    state = dead(state, 3, CAUSE_ATTACK, 1)
    state = dead(state, 4, CAUSE_ATTACK, 1)
    state = dead(state, 5, CAUSE_BLEEDING, 2)
    return dead(state, 6, CAUSE_DROWNED, 0)


def test_百鬼夜行_comes_when_fewer_than_half_live_and_the_drowned_stay_dead() -> None:
    state, events = next_day(parade_game(), pick="power_top")
    assert keys_today(state) == ["power_top", "night_parade"]
    (back,) = public(events, "night_parade")
    assert [r["character"] for r in back["revenants"]] == [3, 4, 5]
    for cid in (3, 4, 5):
        c = state.characters[cid]
        assert (c.alive, c.hp, c.mp, c.place) == (True, 50, 100, None)
    assert not state.characters[6].alive
    three_alive = edit(parade_game(), 3, alive=True, hp=100)
    three_alive, _ = next_day(three_alive, pick="power_top")  # 3 of 6 is half: not fewer
    assert "night_parade" not in keys_today(three_alive)


def test_百鬼夜行_a_revenant_who_kills_lives_again_the_others_go_back_to_their_deaths() -> None:
    assert {r["character"]: r["rank"] for r in ranking(parade_game())} == {
        1: 1,
        2: 1,
        5: 3,
        3: 4,
        4: 4,
        6: 6,
    }
    state, _ = next_day(parade_game(), pick="power_top")
    here = safe_places(state)[0]
    state = night(keep_safe(state, 1, 2))
    for cid in (3, 4, 5):
        state, _ = act(state, Spawn(cid, here))
    state = edit(state, 2, hp=5)
    state, handle = found_character(state, 3, 2)
    state, events = act(state, Attack(3, handle))  # 3 kills 2: lives again
    assert (
        heard(events, 3, "event_effect")[-1]["text"] == "【百鬼夜行】你成功击杀了一名角色，复活了！"
    )
    state = edit(state, 4, hp=5)
    state, handle = found_character(state, 1, 4)
    state, _ = act(state, Attack(1, handle))  # 4 killed before it killed
    state, events = night_close(state, rng())  # 5 killed nobody
    alive = {cid for cid, c in state.characters.items() if c.alive and not c.npc}
    assert alive == {1, 3}
    (over,) = public(events, "night_parade_over")
    assert [r["character"] for r in over["returned"]] == [5]
    # 2 died tonight; 4 and 5 are out by their earlier deaths again (bleeding, then attack).
    ranks = {r["character"]: r["rank"] for r in ranking(state)}
    assert ranks == {1: 1, 3: 1, 2: 3, 5: 4, 4: 5, 6: 6}
    assert [x.cause for x in state.deaths if x.character == 4] == [CAUSE_ATTACK, CAUSE_ATTACK]
    assert not problems(state, cap_items=False)
    state, _ = day_open(state, rng())
    state, _ = next_day(night(keep_safe(state, 1, 3)), pick="erie")
    assert "night_parade" not in keys_today(state)  # once a game


# --- the log -------------------------------------------------------------------------------------


def test_events_survive_the_log_and_a_replay_gives_the_same_state() -> None:
    def run() -> tuple[GameState, list[GameEvent]]:
        state = empty_game(I256, n=5, where="监狱")
        log: list[GameEvent] = []
        for day, pick in enumerate(("broadcast", None, "mini_war", "villain"), start=2):
            state, events = next_day(state, pick=pick, seed=day)
            log += events
            here, there = safe_places(state)[:2]
            state = night(edit(state, 1, 2, 3, 4, 5, place=here))
            state, events = act(state, Move(1, there), seed=day)
            log += events
        return state, log

    first, log = run()
    again, log_again = run()
    assert first.to_json() == again.to_json()
    assert [e.to_json() for e in log] == [e.to_json() for e in log_again]
    assert GameState.from_json(json.loads(json.dumps(first.to_json()))).to_json() == first.to_json()
    for e in log:
        assert GameEvent.from_json(json.loads(json.dumps(e.to_json()))) == e
