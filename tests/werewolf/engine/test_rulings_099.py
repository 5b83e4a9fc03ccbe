"""[099] as the post words it, where the post is terse (RULINGS werewolf 7–9): 长生 is spent by
the first kill naming the 村长 whatever voids that kill; a lone wolf is the 主刀狼 without an
election; a game with a 梦中人 needs every character's gender (玩家在游戏中的性别将由马甲决定)."""

from __future__ import annotations

import pytest

from werewolf.engine import deadline_pass, get_ruleset, new_game, night_open, red_card
from werewolf.engine.errors import GendersMissing, StepClosed
from werewolf.engine.state import GameState

from .support import (
    A99,
    CHIEF,
    GUARD,
    MIN,
    SEATS,
    WHITE,
    WITCH,
    closed,
    game,
    open_night,
    outs,
    play_night,
    rng,
    usable,
    use,
)

# --- 长生<强制>: 当村长第一次成为指杀的目标时不会出局 (RULINGS 7) ------------------------------


def _longevity_night(picks: list[tuple[int, str, int]], block: int = 0, seed: int = 0) -> GameState:
    state = game(auction={CHIEF: {"block": block}})
    state, _ = play_night(state, picks, seed=seed)
    return state


@pytest.mark.parametrize(
    "picks",
    [
        [(1, "wolf_kill", CHIEF)],  # the kill alone
        [(GUARD, "protect", CHIEF), (1, "wolf_kill", CHIEF)],  # 守卫 would have voided it
        [(1, "wolf_kill", CHIEF), (WITCH, "save", CHIEF)],  # 救药 would have saved him
        [(WHITE, "white_kill", CHIEF)],  # the 白眼狼's kill is a 指杀 too
    ],
)
def test_the_first_kill_naming_the_chief_spends_longevity(
    picks: list[tuple[int, str, int]],
) -> None:
    state = _longevity_night(picks)
    assert outs(state) == []
    assert state.players[CHIEF].used.get("longevity") == 1
    # 第一次 only: the next kill on him lands.
    state, _ = play_night(state, [(1, "wolf_kill", CHIEF)])
    assert outs(state) == [(CHIEF, "杀人")]


@pytest.mark.parametrize("seed", range(8))
def test_longevity_is_spent_whether_or_not_the_night_1_block_roll_voids_the_kill(
    seed: int,
) -> None:
    """挡刀 50 against the 主刀狼's 0: half the rolls would void the kill. Being named is what
    spends 长生 (第一次成为指杀的目标), so every seed spends it, and no roll is needed."""
    state = _longevity_night([(1, "wolf_kill", CHIEF)], block=50, seed=seed)
    trace = state.flags["history"][0]["trace"]
    assert [t["step"] for t in trace if t["step"] in ("长生", "挡刀")] == ["长生"]
    assert state.players[CHIEF].used.get("longevity") == 1
    assert outs(state) == []
    state, _ = play_night(state, [(1, "wolf_kill", CHIEF)])
    assert outs(state) == [(CHIEF, "杀人")]


# --- 选举<强制> with one wolf: nothing to elect (RULINGS 8) --------------------------------------


def _lone_wolf_night() -> GameState:
    """Day 1 after a quiet night; wolves 2, 3 and 4 red-carded; night 2 open: P1 is the only
    living wolf."""
    state, _ = play_night(game())
    for wolf in (2, 3, 4):
        state, _ = red_card(state, wolf, rng(), closed(state) + 13 * 3600)
    return open_night(state)


def test_a_lone_wolf_is_the_leader_at_once_and_only_kills() -> None:
    state = _lone_wolf_night()
    assert state.night["leader"] == 1
    assert usable(state, 1) == ["wolf_kill"]  # no 选举 to submit
    with pytest.raises(StepClosed):
        use(state, 1, "elect", 1)


def test_a_lone_wolfs_kill_opens_the_witch_without_an_election() -> None:
    state = _lone_wolf_night()
    state, _ = use(state, WHITE, "white_kill", 15)
    state, events = use(state, 1, "wolf_kill", 16)
    assert state.night["steps"]["wolves"]["state"] == "closed"
    assert state.night["steps"]["witch"]["state"] == "open"
    sense = [e.payload for e in events if e.kind == "sense"]
    assert [[t["id"] for t in s["targets"]] for s in sense] == [[16, 15]]


def test_a_lone_wolf_missing_its_kill_misses_nothing_forced() -> None:
    """No <强制> election was due, so the card for a missed forced skill is never proposed."""
    state = _lone_wolf_night()
    state, events = deadline_pass(state, rng(), closed(state) + 30 * MIN)
    missed = [
        e.payload
        for e in events
        if e.kind == "forfeited" and e.audience.kind == "directors" and e.payload["actor"] == 1
    ]
    assert missed == [{"step": "wolves", "actor": 1, "forced": []}]
    elected = [e.payload for e in events if e.kind == "leader_elected"]
    assert elected == []  # P1 led from the night's open


def test_the_directors_are_told_the_lone_wolf_leads_unelected() -> None:
    state, _ = play_night(game())
    for wolf in (2, 3, 4):
        state, _ = red_card(state, wolf, rng(), closed(state) + 13 * 3600)
    state, events = night_open(state, rng(), closed(state) + 24 * 3600)
    told = [e for e in events if e.kind == "leader_elected"]
    assert [e.payload for e in told if e.audience.kind == "directors"] == [
        {"leader": 1, "votes": {}, "drawn_from": [], "alone": True}
    ]
    # The pack, the dead in it included (已经出局的狼群中的角色仍然留在狼群).
    assert {e.audience.character for e in told if e.audience.kind == "character"} == {1, 2, 3, 4}


# --- 性别: 玩家在游戏中的性别将由马甲决定; 魅惑 is <强制> (RULINGS 9) ----------------------------


def _cast(without: tuple[int, ...]) -> list[tuple[int, str, str | None]]:
    return [(i, f"P{i}", None if i in without else "女") for i in SEATS]


def test_a_game_with_a_dreamer_does_not_start_while_a_character_has_no_gender() -> None:
    state, _ = new_game(A99, _cast(without=(3, 17)), rng(), roles=SEATS)
    before = state.to_json()
    with pytest.raises(GendersMissing) as refused:
        night_open(state, rng(), 1_000_000.0)
    assert refused.value.code == "genders_missing"
    assert refused.value.text.startswith("以下角色没有性别：P3、P17。")
    assert refused.value.detail == {"missing": ["P3", "P17"]}
    assert state.to_json() == before


def test_a_gender_from_the_auctions_gender_card_counts() -> None:
    state, _ = new_game(A99, _cast(without=(3,)), rng(), roles=SEATS, auction={3: {"gender": "男"}})
    state, _ = night_open(state, rng(), 1_000_000.0)
    assert state.phase == "night"


def test_without_a_dreamer_in_play_genders_are_not_needed() -> None:
    assert get_ruleset(A99).skills["charm"].needs_genders
    roles = {**SEATS, 14: "villager"}  # the 梦中人's seat dealt a 村民 by the director
    state, _ = new_game(A99, _cast(without=tuple(SEATS)), rng(), roles=roles)
    state, _ = night_open(state, rng(), 1_000_000.0)
    assert state.phase == "night"
