"""投票: 每天白天，每名玩家参与投票，投票结果不会公开。获得投票最多的玩家公示其所有信息并随机获得
一件道具。平票则最先到达最高票的玩家记为最高票。第一日讨论日不进行投票。"""

from __future__ import annotations

import json

import pytest

from games.engine.errors import WrongPhase
from games.engine.events import GameEvent
from royale.engine import day_close, day_open, get_ruleset, new_game, night_close, night_open
from royale.engine import register_ruleset as register
from royale.engine.errors import (
    ActorDead,
    AlreadyVoted,
    InvalidTarget,
    NotVoted,
    NoVoteToday,
    NpcCannotVote,
    SameVote,
    TargetDead,
    UnknownCharacter,
)
from royale.engine.ruleset import parse_ruleset
from royale.engine.simulate import play
from royale.engine.state import GameState
from royale.engine.votes import Vote, VoteChange, own_vote, standing

from .support import I256, K252, act, edit, empty_game, give, of, refused, rng, set_flags

GREEN_WEAPON = "weapon:green:小刀"  # 白天票数+1
BLUE_ARMOR = "armor:blue:马"  # 白天票数+3
ONE_DOLLAR = "tool:1$"  # 白天票数+1
GOLD = "tool:金块"  # 白天票数+5


def day_two(ruleset: str = I256, n: int = 5, holdings: dict[int, list[str]] | None = None):
    """Night 1 with the given items held at its end, then day 2 (the first voting day)."""
    state = empty_game(ruleset, n=n, where="蝶屋" if ruleset == K252 else "钟楼")
    for cid, kinds in (holdings or {}).items():
        for kind in kinds:
            state, _ = give(state, cid, kind)
    state, _ = night_close(state, rng())
    state, _ = day_open(state, rng())
    return state


def day_one():
    state, _ = new_game(I256, [(1, "甲"), (2, "乙")], rng())
    state, _ = day_open(state, rng())
    return state


def cast(state, *ballots):
    """Ballots in order: (voter, target) votes, ("change", voter, target) changes."""
    for b in ballots:
        action = VoteChange(b[1], b[2]) if b[0] == "change" else Vote(b[0], b[1])
        state, _ = act(state, action)
    return state


def close(state, seed: int = 0):
    return day_close(state, rng(seed))


def not_for_directors(events):
    return [e for e in events if e.audience.kind != "directors"]


# --- casting ----------------------------------------------------------------------------------


def test_the_first_day_is_for_discussion_only():
    state = day_one()
    with pytest.raises(NoVoteToday) as exc:
        act(state, Vote(1, 2))
    assert exc.value.code == "no_vote_today"


def test_votes_are_cast_by_day_only():
    state = day_two()
    state, _ = night_open(state, rng())
    with pytest.raises(WrongPhase):
        act(state, Vote(1, 2))


def test_a_vote_tells_the_voter_only_and_the_directors_everything():
    state = day_two(holdings={1: [GREEN_WEAPON, BLUE_ARMOR, ONE_DOLLAR]})
    after, events = act(state, Vote(1, 3))
    assert own_vote(after, 1) == 3
    assert own_vote(state, 1) is None  # copy-on-write: the input state is untouched
    [mine] = not_for_directors(events)
    assert mine.audience.character == 1
    assert (mine.kind, mine.payload) == (
        "vote_cast",
        {"day": 2, "target": 3, "target_name": "角色3", "weight": 6},
    )
    [full] = of(events, "vote")
    assert full.audience.kind == "directors"
    assert full.payload == {"day": 2, "actor": 1, "target": 3, "weight": 6}


def test_voting_for_oneself_is_allowed():
    state = cast(day_two(), (2, 2))
    assert own_vote(state, 2) == 2


def test_one_vote_a_day():
    state = cast(day_two(), (1, 2))
    before = state.to_json()
    with pytest.raises(AlreadyVoted) as exc:
        act(state, Vote(1, 3))
    assert exc.value.code == "already_voted"
    assert state.to_json() == before


@pytest.mark.parametrize(
    ("setup", "voter", "target", "error"),
    [
        pytest.param({"alive": False, "hp": 0}, 1, 2, ActorDead, id="the dead cannot vote"),
        pytest.param({"alive": False, "hp": 0}, 2, 1, TargetDead, id="nor be voted for"),
        pytest.param({"npc": True}, 2, 1, InvalidTarget, id="an NPC is no player to vote for"),
        pytest.param({"npc": True}, 1, 2, NpcCannotVote, id="an NPC does not vote"),
    ],
)
def test_only_living_players_vote_and_are_voted_for(setup, voter, target, error):
    refused(edit(day_two(), 1, **setup), Vote(voter, target), error)


def test_an_unknown_target_is_refused():
    with pytest.raises(UnknownCharacter):
        act(day_two(), Vote(1, 99))


def test_a_vote_can_be_changed_until_the_close():
    state = cast(day_two(), (1, 2))
    state, events = act(state, VoteChange(1, 3))
    assert own_vote(state, 1) == 3
    [mine] = not_for_directors(events)
    assert (mine.kind, mine.audience.character) == ("vote_changed", 1)
    assert mine.payload["target"] == 3
    [full] = of(events, "vote_changed")[-1:]
    assert full.audience.kind == "directors"
    assert full.payload == {"day": 2, "actor": 1, "from": 2, "to": 3, "weight": 1}


def test_changing_needs_a_vote_and_another_target():
    state = day_two()
    with pytest.raises(NotVoted):
        act(state, VoteChange(1, 2))
    state = cast(state, (1, 2))
    with pytest.raises(SameVote):
        act(state, VoteChange(1, 2))
    with pytest.raises(TargetDead):
        act(edit(state, 3, alive=False, hp=0), VoteChange(1, 3))


# --- weight -----------------------------------------------------------------------------------


def test_weight_is_one_plus_the_vote_values_held_at_the_end_of_the_night():
    # green weapon +1, blue armor +3, 1$ +1, held in the backpack: 1 + 5 = 6
    state = day_two(holdings={1: [GREEN_WEAPON, BLUE_ARMOR, ONE_DOLLAR], 2: [GOLD]})
    assert state.flags["vote_weights"]["1"] == 6
    state, _ = give(state, 3, GOLD)  # obtained by day: counts from tonight's end, not today
    state = cast(state, (1, 4), (2, 4), (3, 4))
    assert standing(state)["totals"] == [
        {"character": 4, "name": "角色4", "total": 6 + 6 + 1, "since": 2}
    ]


def test_the_heaviest_total_wins_not_the_most_ballots():
    state = day_two(holdings={1: [GOLD]})  # one ballot of 6
    state = cast(state, (1, 5), (2, 4), (3, 4), (4, 4))  # against three of 1
    assert standing(state)["top"] == 5


# --- ties: 平票则最先到达最高票的玩家记为最高票 ------------------------------------------------


def test_a_tie_goes_to_whoever_reached_the_top_total_first():
    state = cast(day_two(), (1, 4), (2, 5), (3, 5), (5, 4))
    # 5 reached 2 at the third ballot, 4 only at the fourth
    assert [(t["character"], t["total"]) for t in standing(state)["totals"]] == [(5, 2), (4, 2)]
    assert standing(state)["top"] == 5


def test_a_changed_vote_resets_the_moment_a_total_was_reached():
    # 4 reaches 2 first, loses a vote to 5, and only gets back to 2 after 5 is there
    state = cast(day_two(), (1, 4), (2, 4), (3, 5), ("change", 2, 5), (5, 4))
    assert standing(state)["top"] == 5
    # a total that rose past the final value and came back down keeps its earlier moment
    state = cast(day_two(), (1, 4), (2, 4), (3, 5), (5, 5), (4, 4), ("change", 4, 1))
    assert [(t["character"], t["total"], t["since"]) for t in standing(state)["totals"][:2]] == [
        (4, 2, 1),
        (5, 2, 3),
    ]


def test_ballots_of_players_out_during_the_day_do_not_count():
    state = cast(day_two(), (1, 2), (2, 3), (3, 3), (4, 2))
    state = edit(state, 3, alive=False, hp=0)  # e.g. a red card before the close
    result = standing(state)
    assert result["top"] == 2
    assert [b["counted"] for b in result["ballots"]] == [True, False, False, True]


# --- the close --------------------------------------------------------------------------------


def test_the_close_reveals_the_top_and_rolls_the_directors_die():
    state = day_two(K252, holdings={3: ["weapon:green:黑刃"]})
    state = cast(edit(state, 3, hp=70, mp=45, place="蝶屋"), (1, 3), (2, 3), (4, 1))
    state, events = close(state)
    [result] = of(events, "vote_result")
    assert result.audience.kind == "public"
    [shown] = result.payload["revealed"]
    assert {k: shown[k] for k in ("rank", "character", "name", "hp", "mp", "place")} == {
        "rank": 1,
        "character": 3,
        "name": "角色3",
        "hp": 70,
        "mp": 45,
        "place": "蝶屋",
    }
    assert [i["name"] for i in shown["items"]] == ["黑刃"]
    [reward] = of(events, "vote_reward")
    assert reward.audience.kind == "public"
    assert reward.payload["die"] == 6
    [roll] = reward.payload["rolls"]
    pool = get_ruleset(K252).reward_pool
    granted = state.characters[3].pack[-1]
    assert state.items[granted].kind in {
        k.key for k in get_ruleset(K252).selector_kinds(pool[roll - 1])
    }
    assert reward.payload["item"]["id"] == granted
    assert "votes" not in state.flags  # today's ballots are cleared


@pytest.mark.parametrize("seed", range(12))
def test_the_reward_is_a_draw_from_the_pool_and_may_pass_six_items(seed):
    state = day_two(holdings={2: [ONE_DOLLAR] * 6})
    state, events = close(cast(state, (1, 2)), seed)
    [reward] = of(events, "vote_reward")
    assert 1 <= reward.payload["rolls"][-1] <= 6
    assert state.characters[2].item_count() == 7
    kind = state.items[state.characters[2].pack[-1]].kind
    pool = get_ruleset(I256).reward_pool
    assert kind in {
        k.key for k in get_ruleset(I256).selector_kinds(pool[reward.payload["rolls"][-1] - 1])
    }


def dealt_day_two() -> GameState:
    """The default deal (all 48 green armors of 共48件 scattered at setup), then day 2."""
    state, _ = new_game(I256, [(1, "角色1"), (2, "角色2")], rng())
    state, _ = day_open(state, rng())
    state, _ = night_open(state, rng())
    state, _ = night_close(edit(state, 1, 2, place="钟楼"), rng())
    state, _ = day_open(state, rng())
    return state


def test_the_reward_can_be_a_green_armor_when_every_green_armor_name_is_dealt():
    """可能获得的道具有：蓝色武器、绿色防具… (RULINGS 26): face 2 is 绿色防具; with all 48 names in
    play the reward is a 绿色防具 of a name in play, and the die is rolled once."""
    state = dealt_day_two()
    green = get_ruleset(I256).tier_names[("armor", "green")]
    assert len(green) == 48
    in_play = {i.kind for i in state.items.values() if i.id not in state.gone}
    assert {f"armor:green:{name}" for name in green} <= in_play  # every name dealt
    landed = 0
    for seed in range(30):
        after, events = close(cast(state, (1, 2)), seed)
        [reward] = of(events, "vote_reward")
        assert len(reward.payload["rolls"]) == 1  # no roll is silently repeated
        if reward.payload["rolls"] == [2]:
            landed += 1
            granted = after.characters[2].pack[-1]
            assert after.items[granted].kind in in_play  # a 绿色防具, its name already in play
            assert after.items[granted].kind.startswith("armor:green:")
            assert reward.payload["item"]["id"] == granted
            assert reward.payload["item"]["name"] in green
    assert landed


def test_a_face_whose_names_are_all_in_the_game_is_given_not_rolled_again():
    state = day_two(n=2)
    blue = get_ruleset(I256).tier_names[("weapon", "blue")]
    for name in blue:  # 蓝色武器 共40件: every one already exists
        state, _ = give(state, 1, f"weapon:blue:{name}")
    landed = False
    for seed in range(30):
        after, events = close(cast(state, (1, 2)), seed)
        [reward] = of(events, "vote_reward")
        [roll] = reward.payload["rolls"]
        if roll == 1:  # face 1 is 蓝色武器
            landed = True
            kind = after.items[after.characters[2].pack[-1]].kind
            assert kind.startswith("weapon:blue:")
    assert landed


def test_a_pool_of_names_all_in_play_still_gives_its_item():
    raw = dict(get_ruleset(I256).raw, key="test_votes_orange_pool")
    raw["vote"] = dict(raw["vote"], reward_pool=["weapon:orange"])
    register(parse_ruleset(raw))
    state = day_two("test_votes_orange_pool", n=2)
    for name in get_ruleset(I256).tier_names[("weapon", "orange")]:
        state, _ = give(state, 1, f"weapon:orange:{name}")
    after, events = close(cast(state, (1, 2)))
    [reward] = of(events, "vote_reward")
    assert reward.payload["rolls"] == [1]
    assert reward.payload["die"] == 1
    [new] = set(after.characters[2].held) - set(state.characters[2].held)
    assert after.items[new].kind.startswith("weapon:orange:")


def test_the_close_publishes_each_candidates_weighted_total_and_never_a_voter():
    # 在白天结束时，统计投票结果并公布 (RULINGS 30). 角色1 holds a 金块 (白天票数+5): its ballot
    # weighs 6. 角色1 and 角色4 vote 角色2 (6 + 1 = 7); 角色2, 角色3 and 角色5 vote 角色3 (3).
    state = cast(day_two(holdings={1: [GOLD]}), (1, 2), (2, 3), (3, 3), (4, 2), (5, 3))
    _, events = close(state)
    [result] = of(events, "vote_result")
    assert result.audience.kind == "public"
    assert result.payload["totals"] == [
        {"character": 2, "name": "角色2", "total": 7},
        {"character": 3, "name": "角色3", "total": 3},
    ]
    # No public event tells who voted for whom: no ballot, voter or weight, and the names of
    # those who only voted (角色1, 角色4, 角色5) appear nowhere.
    for e in events:
        if e.audience.kind != "public":
            continue
        blob = json.dumps(e.payload, ensure_ascii=False)
        for secret in ('"voter', '"ballots"', '"weight"', '"since"', "角色1", "角色4", "角色5"):
            assert secret not in blob, (secret, e)


def test_nobody_voted_means_no_top_and_no_reward():
    _, events = close(day_two())
    [result] = of(events, "vote_result")
    assert result.payload == {"day": 2, "revealed": [], "totals": []}
    assert of(events, "vote_reward") == []
    assert of(events, "vote_tally")[0].payload["top"] is None


def test_no_tally_on_the_first_day():
    _, events = close(day_one())
    assert of(events, "vote_result") == of(events, "vote_tally") == []


def test_advanced_counting_reveals_the_top_three_but_rewards_only_the_top():
    # 先进的记票制: 今日得票前三名的角色信息均被公开，但只有最高票获得奖励
    state = cast(day_two(holdings={1: [GOLD]}), (1, 2), (2, 3), (3, 3), (4, 4), (5, 5))
    state = set_flags(state, vote_reveal=3)
    after, events = close(state)
    [result] = of(events, "vote_result")
    # 2 has 6; 3 has 2; 4 and 5 have 1 each, 4 first
    assert [(s["rank"], s["character"]) for s in result.payload["revealed"]] == [
        (1, 2),
        (2, 3),
        (3, 4),
    ]
    [reward] = of(events, "vote_reward")
    assert reward.payload["character"] == 2
    assert after.characters[3].held == state.characters[3].held
    assert "vote_reveal" not in after.flags  # the event holds for its day only


def test_the_directors_see_the_full_tally_and_players_never_see_ballots():
    state = day_two(holdings={1: [BLUE_ARMOR]})
    events = []
    for action in [Vote(1, 2), Vote(3, 2), Vote(2, 4), VoteChange(3, 4), Vote(4, 4), Vote(5, 4)]:
        state, more = act(state, action)
        events += more
    state, more = close(state)
    events += more
    [tally] = of(events, "vote_tally")
    assert tally.audience.kind == "directors"
    assert tally.payload["ballots"] == [
        {
            "voter": v,
            "voter_name": f"角色{v}",
            "target": t,
            "target_name": f"角色{t}",
            "weight": w,
            "counted": True,
        }
        for v, t, w in [(1, 2, 4), (3, 4, 1), (2, 4, 1), (4, 4, 1), (5, 4, 1)]
    ]
    assert [(t["character"], t["total"]) for t in tally.payload["totals"]] == [(2, 4), (4, 4)]
    assert tally.payload["top"] == 2  # 2 reached 4 at the first ballot
    for e in not_for_directors(events):
        blob = json.dumps(e.payload, ensure_ascii=False)
        assert not {"voter", "ballots", "total"} & set(e.payload), e
        assert "角色1" not in blob or e.kind == "vote_result", e


def test_events_and_state_survive_json():
    state = cast(day_two(holdings={1: [GOLD]}), (1, 2), ("change", 1, 3))
    _, events = close(state)
    for e in events:
        assert GameEvent.from_json(json.loads(json.dumps(e.to_json()))) == e
    assert GameState.from_json(json.loads(json.dumps(state.to_json()))).to_json() == state.to_json()
    assert standing(GameState.from_json(json.loads(json.dumps(state.to_json()))))["top"] == 3


@pytest.mark.parametrize("ruleset", [I256, K252])
def test_a_simulated_game_votes_and_tallies_every_day_from_day_two(ruleset):
    res = play(ruleset, 12, 5, keep_log=True)
    public = [e for e in res.event_log if e.audience.kind == "public"]
    closed = [e.payload["day"] for e in public if e.kind == "day_closed"]
    assert [e.payload["day"] for e in public if e.kind == "vote_result"] == closed[1:]
    assert len(of(public, "vote_reward")) == len(closed) - 1  # the bots vote every day
