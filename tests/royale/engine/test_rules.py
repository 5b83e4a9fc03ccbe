"""出生, 移动, 搜索, 传音, 静养 and the refusals every action shares."""

from __future__ import annotations

import pytest

from games.engine.errors import WrongPhase
from royale.engine import (
    Attack,
    Move,
    Rest,
    Search,
    Spawn,
    Whisper,
    get_ruleset,
    night_close,
    register_ruleset,
)
from royale.engine.errors import (
    ActorDead,
    AlreadyActed,
    AlreadySpawned,
    EmptyMessage,
    MessageTooLong,
    NotEnoughMP,
    NotSpawned,
    PlaceGone,
    Resting,
    RestMoveUsed,
    SamePlace,
    SearchCooldown,
    TargetGone,
    UnknownPlace,
)
from royale.engine.state import MODE_ACT, MODE_NONE, MODE_REST

from .support import I256, T0, act, edit, empty_game, found_character, of, put, rng, vanished


def test_spawn_is_free_and_once():
    state = empty_game(n=1)
    after, events = act(state, Spawn(1, "钟楼"))
    assert after.characters[1].place == "钟楼"
    assert after.characters[1].mp == 100
    with pytest.raises(AlreadySpawned):
        act(after, Spawn(1, "监狱"))
    assert of(events, "spawned")[0].audience.character == 1


def test_nothing_but_spawning_before_spawning():
    state = empty_game(n=1)
    with pytest.raises(NotSpawned) as exc:
        act(state, Search(1))
    assert exc.value.code == "not_spawned"


@pytest.mark.parametrize(
    ("action", "cost"),
    [
        pytest.param(Move(1, "医院"), 5, id="移动 costs 5"),
        pytest.param(Search(1), 5, id="搜索 costs 5"),
        pytest.param(Whisper(1, 2, "你好"), 5, id="传音 costs 5"),
    ],
)
def test_costs(action, cost):
    state = empty_game(n=2, where="监狱")
    after, _ = act(state, action)
    assert after.characters[1].mp == 100 - cost
    assert after.characters[1].mode == MODE_ACT


@pytest.mark.parametrize("mp", [0, 4])
def test_not_enough_stamina_fails_and_changes_nothing(mp):
    state = empty_game(n=1, where="监狱")
    state = edit(state, 1, mp=mp)
    before = state.to_json()
    with pytest.raises(NotEnoughMP) as exc:
        act(state, Move(1, "医院"))
    assert exc.value.detail == {"need": 5, "have": mp}
    assert state.to_json() == before


@pytest.mark.parametrize(
    ("place", "error"),
    [("监狱", SamePlace), ("不存在的地方", UnknownPlace)],
)
def test_move_refusals(place, error):
    state = empty_game(n=1, where="监狱")
    with pytest.raises(error):
        act(state, Move(1, place))


def test_cannot_move_to_a_vanished_place():
    state = vanished(empty_game(n=1, where="监狱"), "医院")
    with pytest.raises(PlaceGone):
        act(state, Move(1, "医院"))


def test_moving_into_a_place_vanishing_tonight_is_allowed():
    state = empty_game(n=1, where="监狱")
    state.shrink_tonight = ("医院",)  # as announced at day open
    after, _ = act(state, Move(1, "医院"))
    assert after.characters[1].place == "医院"


def test_search_30_seconds_apart_with_seconds_left():
    state = empty_game(n=1, where="监狱")
    state, _ = act(state, Search(1), now=T0)
    with pytest.raises(SearchCooldown) as exc:
        act(state, Search(1), now=T0 + 18)
    assert exc.value.code == "search_cooldown"
    assert exc.value.detail == {"seconds_left": 12}
    after, _ = act(state, Search(1), now=T0 + 30)
    assert after.characters[1].mp == 90


def test_search_finds_nothing_only_when_there_is_nothing():
    state = empty_game(n=1, where="监狱")
    _, events = act(state, Search(1))
    assert of(events, "searched")[0].payload["found"] == "nothing"


def test_search_shows_an_unknown_character_through_a_handle_naming_nobody():
    state = empty_game(n=2, where="监狱")
    after, events = act(state, Search(1))
    mine = [e for e in events if e.audience.kind == "character"]
    (result,) = mine
    assert result.payload["found"] == "character"
    handle = result.payload["handle"]
    assert "2" not in {str(v) for v in result.payload.values() if v != handle}
    assert "角色2" not in str(result.payload)
    (full,) = [e for e in events if e.audience.kind == "directors"]
    assert full.payload["target"] == 2
    after2, _ = act(after, Attack(1, handle))
    assert after2.characters[2].hp == 95


def test_search_finds_an_item():
    state = empty_game(n=1, where="监狱")
    state, iid = put(state, "监狱", "supply:[MP20]雪茄")
    _, events = act(state, Search(1))
    assert of(events, "searched")[0].payload["item"]["id"] == iid


def test_search_draws_uniformly_among_characters_and_items():
    state = empty_game(n=3, where="监狱")
    state, _ = put(state, "监狱", "supply:[MP20]雪茄")
    seen = {"character": 0, "item": 0}
    for seed in range(600):
        _, events = act(state, Search(1), seed=seed)
        seen[of(events, "searched")[0].payload["found"]] += 1
    # 2 characters and 1 item: about two thirds characters
    assert 340 < seen["character"] < 460


@pytest.mark.parametrize(
    ("text", "error"),
    [("   ", EmptyMessage), ("字" * 201, MessageTooLong)],
)
def test_whisper_limits(text, error):
    state = empty_game(n=2, where="监狱")
    with pytest.raises(error):
        act(state, Whisper(1, 2, text))


def test_whisper_of_200_characters_shows_the_sender_name():
    state = empty_game(n=2, where="监狱")
    state = edit(state, 2, place="医院")
    _, events = act(state, Whisper(1, 2, "<b>" + "字" * 197))
    (received,) = [e for e in of(events, "whisper") if e.audience.kind == "character"]
    assert received.audience.character == 2
    assert received.payload["sender_name"] == "角色1"
    assert received.payload["text"].startswith("<b>")  # stored raw; escaping is the page's job


def test_rest_allows_one_free_move_and_nothing_else():
    state = empty_game(n=2, where="监狱")
    state, _ = act(state, Rest(1))
    assert state.characters[1].mode == MODE_REST
    state, _ = act(state, Move(1, "医院"))
    assert state.characters[1].mp == 100
    with pytest.raises(RestMoveUsed):
        act(state, Move(1, "钟楼"))
    with pytest.raises(Resting) as exc:
        act(state, Search(1))
    assert exc.value.code == "resting"


def test_rest_must_come_before_any_action():
    state = empty_game(n=1, where="监狱")
    state, _ = act(state, Move(1, "医院"))
    with pytest.raises(AlreadyActed):
        act(state, Rest(1))


def test_the_dead_never_act():
    state = empty_game(n=1, where="监狱")
    state = edit(state, 1, alive=False, hp=0)
    with pytest.raises(ActorDead) as exc:
        act(state, Move(1, "医院"))
    assert exc.value.code == "actor_dead"


def test_night_actions_need_the_night():
    state = empty_game(n=2, where="监狱")
    state, _ = night_close(state, rng())
    with pytest.raises(WrongPhase) as exc:
        act(state, Search(1))
    assert exc.value.code == "wrong_phase"


def test_an_applied_action_leaves_its_input_untouched_and_returns_a_new_state():
    state = empty_game(n=2, where="监狱")
    before = state.to_json()
    after, _ = act(state, Move(1, "医院"))
    assert state.to_json() == before
    assert after is not state
    assert after.characters[2] is state.characters[2]  # copy-on-write shares untouched parts


def test_spawning_does_not_count_as_acting():
    state = empty_game(n=1)
    state, _ = act(state, Spawn(1, "钟楼"))
    state, _ = act(state, Rest(1))
    assert state.characters[1].mode == MODE_REST


def test_a_spawn_cost_set_in_a_ruleset_is_checked_like_any_other_cost():
    # The posts make 出生 free; a director's ruleset may charge it (here: a move's 5 MP), and then
    # 体力不足 refuses it like any action (RULINGS 7), still without committing to act.
    from royale.engine.ruleset import parse_ruleset

    raw = dict(get_ruleset(I256).raw, key="test_spawn_cost_256")
    raw["costs"] = dict(raw["costs"], spawn=raw["costs"]["move"])
    register_ruleset(parse_ruleset(raw))
    state = edit(empty_game("test_spawn_cost_256", n=1), 1, mp=4)
    before = state.to_json()
    with pytest.raises(NotEnoughMP) as exc:
        act(state, Spawn(1, "钟楼"))
    assert exc.value.detail == {"need": 5, "have": 4}
    assert state.to_json() == before
    after, _ = act(edit(state, 1, mp=5), Spawn(1, "钟楼"))
    assert (after.characters[1].place, after.characters[1].mp) == ("钟楼", 0)
    assert after.characters[1].mode == MODE_NONE


def test_a_refused_search_does_not_restart_the_cooldown():
    state = empty_game(n=1, where="监狱")
    state, _ = act(state, Search(1), now=T0)
    with pytest.raises(SearchCooldown):
        act(state, Search(1), now=T0 + 29)
    after, _ = act(state, Search(1), now=T0 + 31)
    assert after.characters[1].last_search_at == T0 + 31


def test_npcs_are_found_and_attacked_but_never_ranked_or_drowned():
    from royale.engine import ranking

    state = empty_game(n=2)  # [256] day 1: 阿笨 (50 HP) stands at 金色狂欢剧团
    aben, adai = -1002, -1001
    state = edit(state, 1, place="金色狂欢剧团")
    state = edit(state, 2, adai, place="钟楼")
    state, events = act(state, Search(1))
    handle = of(events, "searched")[0].payload["handle"]
    state, _ = act(state, Attack(1, handle))
    assert state.characters[aben].hp == 45
    assert [r["character"] for r in ranking(state)] == [1, 2]


def test_a_whisper_does_not_reveal_a_death_before_the_morning_report():
    from royale.engine import day_open, night_close, night_open

    state = empty_game(n=3, where="监狱")
    state, handle = found_character(state, 1, 2)
    state = edit(state, 2, hp=5)
    state, _ = act(state, Attack(1, handle))
    assert not state.characters[2].alive
    state, _ = act(state, Whisper(3, 2, "还活着吗"))  # died tonight: no refusal leaks it
    assert state.characters[3].mp == 95
    state, _ = night_close(state, rng())
    state, _ = day_open(state, rng())
    state, _ = night_open(state, rng())
    with pytest.raises(TargetGone):
        act(state, Whisper(3, 2, "还活着吗"))  # announced this morning


def test_now_may_be_a_datetime():
    from datetime import UTC, datetime, timedelta

    state = empty_game(n=1, where="监狱")
    t0 = datetime(2026, 4, 3, 21, 10, tzinfo=UTC)
    state, _ = act(state, Search(1), now=t0)
    with pytest.raises(SearchCooldown) as exc:
        act(state, Search(1), now=t0 + timedelta(seconds=20))
    assert exc.value.detail == {"seconds_left": 10}
