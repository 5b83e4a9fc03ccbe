"""The director's interventions (导演干预): what each changes, and who learns what."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine.errors import InvalidInput
from royale.engine.director import adjust, drop_supplies, give, relocate, take
from royale.engine.errors import ActorDead, GameOver, PlaceGone, UnknownCharacter, UnknownItem
from royale.engine.invariants import problems
from royale.engine.state import CAUSE_DIRECTOR, GONE_VANISHED, OVER
from royale.engine.state import GameState as State

from .support import edit, empty_game, of, put, rng, vanished
from .support import give as hand


def heard_by(events: list[Any], cid: int) -> list[Any]:
    return [e for e in events if e.audience.kind == "character" and e.audience.character == cid]


def public(events: list[Any]) -> list[Any]:
    return [e for e in events if e.audience.kind == "public"]


def logged(events: list[Any]) -> dict[str, Any]:
    (entry,) = [e for e in events if e.kind == "intervention"]
    assert entry.audience.kind == "directors"
    return dict(entry.payload)


# --- HP and MP ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hp", "mp", "delta_hp", "delta_mp", "after_hp", "after_mp"),
    [
        pytest.param(60, 40, 30, 0, 90, 40, id="+30 HP"),
        pytest.param(90, 40, 30, 0, 100, 40, id="HP stops at 100"),
        pytest.param(60, 40, 0, -50, 60, 0, id="MP stops at 0"),
        pytest.param(60, 90, -10, 20, 50, 100, id="both at once, MP stops at 100"),
    ],
)
def test_adjust_clamps_to_the_rulesets_bounds(
    hp: int, mp: int, delta_hp: int, delta_mp: int, after_hp: int, after_mp: int
) -> None:
    state = edit(empty_game(n=2, where="钟楼"), 1, hp=hp, mp=mp)
    state, events = adjust(state, 1, rng(), hp=delta_hp, mp=delta_mp)
    assert (state.characters[1].hp, state.characters[1].mp) == (after_hp, after_mp)
    entry = logged(events)
    assert entry["before"] == {"hp": hp, "mp": mp, "bleeding": 0}
    assert entry["after"] == {"hp": after_hp, "mp": after_mp, "bleeding": 0}
    assert not problems(state)


def test_the_character_learns_its_own_new_numbers_and_nobody_else_learns_anything() -> None:
    state = empty_game(n=3, where="钟楼")
    state, events = adjust(state, 1, rng(), hp=-20)
    (mine,) = heard_by(events, 1)
    assert mine.kind == "director_adjusted"
    assert mine.payload["hp"] == 80
    assert mine.payload["text"].startswith("导演调整了你的生命值")
    assert heard_by(events, 2) == heard_by(events, 3) == []
    assert public(events) == []


def test_bleeding_can_be_stopped_or_set() -> None:
    state = edit(empty_game(n=2, where="钟楼"), 1, bleeding=10)
    stopped, events = adjust(state, 1, rng(), bleeding=0)
    assert stopped.characters[1].bleeding == 0
    assert "流血已止住" in heard_by(events, 1)[0].payload["text"]
    started, _ = adjust(stopped, 2, rng(), bleeding=10)
    assert started.characters[2].bleeding == 10


def test_hp_brought_to_zero_kills_by_directors_ruling_and_drops_the_items_where_it_stood() -> None:
    state, sword = hand(empty_game(n=3, where="钟楼"), 1, "weapon:green:小刀", hand=True)
    state, events = adjust(state, 1, rng(), hp=-500)
    dead = state.characters[1]
    assert not dead.alive
    assert state.deaths[-1].cause == CAUSE_DIRECTOR == "导演判定"  # not 特殊事件
    assert sword in state.places["钟楼"].items
    assert [e.kind for e in heard_by(events, 1)] == ["director_adjusted", "died"]
    assert heard_by(events, 2) == []
    assert not problems(state)


def test_a_director_kill_that_leaves_one_player_ends_the_game_as_a_red_card_does() -> None:
    state, events = adjust(empty_game(n=2, where="钟楼"), 1, rng(), hp=-100)
    assert state.phase == OVER
    assert state.winner == 2
    assert of(events, "game_over")


@pytest.mark.parametrize(
    ("change", "error"),
    [
        pytest.param({}, InvalidInput, id="nothing to change"),
        pytest.param({"bleeding": -1}, InvalidInput, id="negative bleeding"),
    ],
)
def test_adjust_refuses_what_changes_nothing_or_makes_no_sense(
    change: dict[str, Any], error: type[Exception]
) -> None:
    state = empty_game(n=2, where="钟楼")
    with pytest.raises(error):
        adjust(state, 1, rng(), **change)


def test_the_dead_and_the_unknown_are_refused_and_nothing_changes() -> None:
    state, _ = adjust(empty_game(n=3, where="钟楼"), 1, rng(), hp=-100)
    snapshot = state.to_json()
    with pytest.raises(ActorDead):
        adjust(state, 1, rng(), hp=50)
    with pytest.raises(UnknownCharacter):
        relocate(state, 99, "医院", rng())
    assert state.to_json() == snapshot


def test_nothing_can_be_changed_once_the_game_is_over() -> None:
    state, _ = adjust(empty_game(n=2, where="钟楼"), 1, rng(), hp=-100)
    with pytest.raises(GameOver):
        adjust(state, 2, rng(), mp=10)


# --- moving --------------------------------------------------------------------------------------


def test_relocate_moves_for_free_and_forgets_the_last_search() -> None:
    state = empty_game(n=3, where="钟楼")
    state, events = relocate(state, 1, "医院", rng())
    moved = state.characters[1]
    assert (moved.place, moved.mp, moved.found) == ("医院", 100, None)
    assert logged(events) == {"op": "relocate", "character": 1, "from": "钟楼", "to": "医院"}
    (mine,) = heard_by(events, 1)
    assert (mine.kind, mine.payload["place"]) == ("director_moved", "医院")
    # the characters at either place learn nothing of the arrival or the departure
    assert heard_by(events, 2) == heard_by(events, 3) == public(events) == []


def test_relocate_spawns_an_unspawned_character() -> None:
    state = empty_game(n=2)
    state, _ = relocate(state, 1, "监狱", rng())
    assert state.characters[1].place == "监狱"


def test_relocate_refuses_a_vanished_place() -> None:
    state = vanished(empty_game(n=2, where="钟楼"), "医院")
    with pytest.raises(PlaceGone):
        relocate(state, 1, "医院", rng())


# --- items ---------------------------------------------------------------------------------------


def test_give_puts_a_new_item_in_the_backpack_even_past_six() -> None:
    state = empty_game(n=2, where="钟楼")
    for _ in range(6):
        state, _ = hand(state, 1, "supply:[HP10]草药")
    state, events = give(state, 1, "supply:[HP30]精油", rng())
    me = state.characters[1]
    assert me.item_count() == 7  # the test match's live supplies may pass 6 (RULINGS 10, 20)
    assert state.items[me.pack[-1]].kind == "supply:[HP30]精油"
    (granted,) = heard_by(events, 1)
    assert granted.kind == "item_granted"
    assert granted.payload["why"] == "director"
    assert logged(events)["item"] == me.pack[-1]
    assert heard_by(events, 2) == public(events) == []
    assert not problems(state, cap_items=False)


def test_give_by_tier_draws_a_name_not_yet_in_the_game() -> None:
    state = empty_game(n=2, where="钟楼")
    state, _ = give(state, 1, "weapon:blue", rng(1))
    state, _ = give(state, 1, "weapon:blue", rng(1))
    first, second = (state.items[i].kind for i in state.characters[1].pack)
    assert first != second
    assert first.startswith("weapon:blue:")


def test_give_refuses_an_unknown_kind() -> None:
    with pytest.raises(InvalidInput):
        give(empty_game(n=2, where="钟楼"), 1, "weapon:green:没有这件", rng())


def test_take_from_a_character_vanishes_the_item_and_tells_only_the_holder() -> None:
    state, iid = hand(empty_game(n=2, where="钟楼"), 1, "recon:GPS", hand=True)
    state, events = take(state, iid, rng())
    assert iid not in state.characters[1].held
    assert state.gone[iid] == GONE_VANISHED  # conserved: the ledger says where it went
    assert logged(events)["from"] == {"character": 1}
    assert of(events, "items_vanished")[0].payload == {"items": [iid], "why": "director"}
    (told,) = heard_by(events, 1)
    assert told.kind == "director_took"
    assert "导演收走了你的" in told.payload["text"]
    assert heard_by(events, 2) == []
    assert not problems(state)


def test_take_from_the_ground_tells_nobody() -> None:
    state, iid = put(empty_game(n=2, where="钟楼"), "钟楼", "trap:炸弹")
    state, events = take(state, iid, rng())
    assert iid not in state.places["钟楼"].items
    assert logged(events)["from"] == {"place": "钟楼"}
    assert [e for e in events if e.audience.kind != "directors"] == []
    assert not problems(state)


def test_take_refuses_an_item_already_gone() -> None:
    state, iid = put(empty_game(n=2, where="钟楼"), "钟楼", "trap:炸弹")
    state, _ = take(state, iid, rng())
    with pytest.raises(UnknownItem):
        take(state, iid, rng())
    with pytest.raises(UnknownItem):
        take(state, 12345, rng())


# --- airdrop -------------------------------------------------------------------------------------


def test_airdrop_announces_the_names_but_not_the_places() -> None:
    state = empty_game(n=2, where="钟楼")
    state, events = drop_supplies(state, ["supply:[HP100]蜂王浆", "weapon:blue"], rng(3))
    (announced,) = public(events)
    assert announced.kind == "airdrop"
    assert announced.payload["items"][0] == "[HP100]蜂王浆"
    entry = logged(events)
    assert set(announced.payload) == {"items"}
    assert not any(x["place"] in str(announced.payload) for x in entry["items"])
    assert entry["items"][0]["kind"] == "supply:[HP100]蜂王浆"
    for x in entry["items"]:
        assert x["item"] in state.places[x["place"]].items
        assert x["place"] != "教堂"  # never in the safe zone
    assert heard_by(events, 1) == heard_by(events, 2) == []
    assert not problems(state)


def test_an_airdrop_needs_at_least_one_item() -> None:
    with pytest.raises(InvalidInput):
        drop_supplies(empty_game(n=2), [], rng())


def test_interventions_never_touch_their_input_state() -> None:
    state: State = empty_game(n=2, where="钟楼")
    snapshot = state.to_json()
    adjust(state, 1, rng(), hp=-100)
    relocate(state, 2, "医院", rng())
    give(state, 1, "recon:GPS", rng())
    assert state.to_json() == snapshot
