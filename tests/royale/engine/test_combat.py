"""攻击, armor, limited uses, orange splash, loot, bombs — with the posts' numbers."""

from __future__ import annotations

import pytest

from royale.engine import Attack, UseItem
from royale.engine.errors import AlreadyAttacked, InvalidTarget, NothingFound, SafeZone, TargetGone
from royale.engine.state import CAUSE_ATTACK, CAUSE_BOMB, GONE_BROKEN

from .support import I256, K252, act, edit, empty_game, found_character, give, of

GREEN_W, BLUE_W, PURPLE_W, ORANGE_W = (
    "weapon:green:小刀",
    "weapon:blue:柯尔特手枪",
    "weapon:purple:酒吧凶器",
    "weapon:orange:安魂",
)
GREEN_A, BLUE_A, PURPLE_A, ORANGE_A = (
    "armor:green:万能钥匙",
    "armor:blue:马",
    "armor:purple:水晶铠甲",
    "armor:orange:于无声处",
)


def duel(weapon: str | None, armor: str | None, *, armor_in_hand: bool = True):
    state = empty_game(n=2, where="监狱")
    if weapon:
        state, _ = give(state, 1, weapon, hand=True)
    armor_id = None
    if armor:
        state, armor_id = give(state, 2, armor, hand=armor_in_hand)
    return state, armor_id


@pytest.mark.parametrize(
    ("weapon", "armor", "damage"),
    [
        pytest.param(None, None, 5, id="bare hands deal 5 (挥拳伤害为5)"),
        pytest.param(None, GREEN_A, 0, id="fists against green armor (−5) deal 0"),
        pytest.param(GREEN_W, None, 15, id="green weapon deals 15"),
        pytest.param(GREEN_W, GREEN_A, 10, id="green weapon against green armor deals 10"),
        pytest.param(BLUE_W, BLUE_A, 15, id="blue 25 against blue armor −10 deals 15"),
        pytest.param(BLUE_W, PURPLE_A, 10, id="blue 25 against purple armor −15 deals 10"),
        pytest.param(PURPLE_W, ORANGE_A, 10, id="purple 35 against orange armor −25 deals 10"),
        pytest.param(ORANGE_W, BLUE_A, 40, id="orange 50 counts the armor: 40"),
    ],
)
def test_damage_is_weapon_minus_armor_in_hand(weapon, armor, damage):
    state, _ = duel(weapon, armor)
    state, handle = found_character(state, 1, 2)
    after, events = act(state, Attack(1, handle))
    assert after.characters[2].hp == 100 - damage
    assert of(events, "hit")[0].payload["damage"] == damage


def test_armor_in_the_backpack_does_nothing():
    state, _ = duel(GREEN_W, PURPLE_A, armor_in_hand=False)
    state, handle = found_character(state, 1, 2)
    after, _ = act(state, Attack(1, handle))
    assert after.characters[2].hp == 85


@pytest.mark.parametrize(
    ("armor_kind", "uses", "hps"),
    [
        pytest.param(
            PURPLE_A,
            5,
            [90, 80, 70, 60, 50, 25],
            id="紫色防具限用5次: five hits of 25−15=10, then the full 25",
        ),
        pytest.param(
            ORANGE_A,
            3,
            [100, 100, 100, 75],
            id="橙色防具限用3次: three hits of 25−25=0, then the full 25",
        ),
    ],
)
def test_blue_weapon_wears_limited_armor_out(armor_kind, uses, hps):
    state, armor = duel(BLUE_W, armor_kind)
    seen = []
    for n in range(uses + 1):
        state, handle = found_character(state, 1, 2)
        state, _ = act(state, Attack(1, handle), seed=n)
        seen.append(state.characters[2].hp)
        if n < uses - 1:
            assert state.items[armor].uses == uses - 1 - n
    # one use per hit, then it breaks and vanishes: the last hit meets no armor
    assert seen == hps
    assert state.gone[armor] == GONE_BROKEN
    assert armor not in state.characters[2].hands


def test_limited_armor_spends_a_use_even_when_the_hit_is_reduced_to_zero():
    state, armor = duel(None, ORANGE_A)
    state, handle = found_character(state, 1, 2)
    state, _ = act(state, Attack(1, handle))
    assert state.characters[2].hp == 100
    assert state.items[armor].uses == 2


def test_orange_weapon_splashes_three_bystanders_and_makes_everyone_hit_bleed():
    state = empty_game(n=6, where="监狱")
    state = edit(state, 6, place="医院")  # elsewhere: untouched
    state, weapon = give(state, 1, ORANGE_W, hand=True)
    state, _ = give(state, 2, BLUE_A, hand=True)
    for bystander in (3, 4, 5):
        state, _ = give(state, bystander, GREEN_A, hand=True)  # splash ignores armor
    state, handle = found_character(state, 1, 2)
    after, events = act(state, Attack(1, handle))
    hp = {cid: after.characters[cid].hp for cid in range(1, 7)}
    assert hp == {1: 100, 2: 60, 3: 80, 4: 80, 5: 80, 6: 100}
    assert {cid for cid in hp if after.characters[cid].bleeding == 10} == {2, 3, 4, 5}
    assert after.items[weapon].uses == 4
    result = of(events, "attack_result")[0].payload
    assert result["others_hit"] == 3
    assert "hp" not in result


def test_orange_weapon_breaks_after_five_uses():
    state = empty_game(n=2, where="监狱")
    state, weapon = give(state, 1, ORANGE_W, hand=True)
    state = edit(state, 2, hp=10_000)
    for n in range(5):
        state, handle = found_character(state, 1, 2)
        state, _ = act(state, Attack(1, handle), seed=n)
    assert state.gone[weapon] == GONE_BROKEN
    assert state.characters[1].hands == []


def test_bleeding_does_not_stack():
    state = empty_game(n=2, where="监狱")
    state, _ = give(state, 1, ORANGE_W, hand=True)
    state = edit(state, 2, hp=1000)
    for n in range(2):
        state, handle = found_character(state, 1, 2)
        state, _ = act(state, Attack(1, handle), seed=n)
    assert state.characters[2].bleeding == 10
    assert state.characters[2].hp == 900


def test_victim_learns_the_damage_not_the_source_and_attacker_not_the_hp():
    state, _ = duel(GREEN_W, None)
    state, handle = found_character(state, 1, 2)
    _, events = act(state, Attack(1, handle))
    hit = of(events, "hit")[0]
    assert hit.audience.character == 2
    assert hit.actor is None
    assert set(hit.payload) == {"damage", "hp", "bleeding"}
    mine = of(events, "attack_result")[0]
    assert mine.audience.character == 1
    assert mine.payload == {"handle": handle, "outcome": "hit"}


SAFE_ZONES = [
    pytest.param(I256, "教堂", "weapon:orange:安魂", id="256: 教堂为安全区"),
    pytest.param(K252, "产屋敷宅邸", "weapon:orange:圆舞", id="252: 产屋敷宅邸为安全区"),
]


@pytest.mark.parametrize(("ruleset", "safe", "orange"), SAFE_ZONES)
def test_attack_in_the_safe_zone_is_refused_and_costs_nothing(ruleset, safe, orange):
    # 在安全区进行的攻击无效: the orange weapon neither hits, splashes nor spends a use.
    state = empty_game(ruleset, n=3, where=safe)
    state, weapon = give(state, 1, orange, hand=True)
    state, handle = found_character(state, 1, 2)
    before = state.to_json()
    with pytest.raises(SafeZone) as exc:
        act(state, Attack(1, handle))
    assert exc.value.code == "safe_zone"
    assert state.to_json() == before
    assert state.items[weapon].uses == 5


def test_attacks_in_the_special_zone_of_252_are_valid():
    state = empty_game("kimetsu_252", n=2, where="无限城")
    state, handle = found_character(state, 1, 2)
    after, _ = act(state, Attack(1, handle))
    assert after.characters[2].hp == 95


def test_one_attack_per_search():
    state, _ = duel(GREEN_W, None)
    state, handle = found_character(state, 1, 2)
    state, _ = act(state, Attack(1, handle))
    with pytest.raises(AlreadyAttacked):
        act(state, Attack(1, handle))


def test_only_the_last_search_target_while_still_there():
    state, _ = duel(GREEN_W, None)
    with pytest.raises(NothingFound):
        act(state, Attack(1, "whatever"))
    state, handle = found_character(state, 1, 2)
    with pytest.raises(InvalidTarget):
        act(state, Attack(1, "not-the-handle"))
    gone = edit(state, 2, place="医院")
    with pytest.raises(TargetGone) as exc:
        act(gone, Attack(1, handle))
    assert exc.value.code == "target_gone"


def test_killer_gets_the_loot_list_and_the_dead_is_out():
    state, _ = duel(GREEN_W, None)
    state = edit(state, 2, hp=15)
    state, coffee = give(state, 2, "supply:[MP50]咖啡")
    state, handle = found_character(state, 1, 2)
    after, events = act(state, Attack(1, handle))
    assert not after.characters[2].alive
    assert after.deaths[-1].cause == CAUSE_ATTACK
    assert coffee in after.characters[1].pack
    result = of(events, "attack_result")[0].payload
    assert result["outcome"] == "killed"
    assert [x["id"] for x in result["loot"]] == [coffee]


@pytest.mark.parametrize(
    ("killer_has", "victim_has", "gained", "dropped"),
    [
        pytest.param(4, 5, 2, 3, id="4 held + 5 looted: killer stops at 6, 3 drop at the place"),
        pytest.param(6, 3, 0, 3, id="killer already holds 6: everything drops"),
        pytest.param(1, 5, 5, 0, id="room for all: killer takes everything"),
    ],
)
def test_loot_overflow_past_six(killer_has, victim_has, gained, dropped):
    state, _ = duel(None, None)
    state = edit(state, 2, hp=5)
    for _ in range(killer_has):
        state, _ = give(state, 1, "supply:[HP10]草药")
    victim_items = []
    for _ in range(victim_has):
        state, iid = give(state, 2, "supply:[MP20]雪茄")
        victim_items.append(iid)
    state, handle = found_character(state, 1, 2)
    after, _ = act(state, Attack(1, handle))
    killer = after.characters[1]
    assert killer.item_count() == killer_has + gained
    got = [i for i in killer.pack if i in victim_items]
    on_ground = [i for i in after.places["监狱"].items if i in victim_items]
    assert (len(got), len(on_ground)) == (gained, dropped)
    assert sorted(got + on_ground) == sorted(victim_items)


def test_splash_kills_also_give_their_loot_to_the_attacker():
    state = empty_game(n=3, where="监狱")
    state, _ = give(state, 1, ORANGE_W, hand=True)
    state = edit(state, 3, hp=20)
    state, bomb = give(state, 3, "trap:炸弹")
    state, handle = found_character(state, 1, 2)
    after, _ = act(state, Attack(1, handle))
    assert not after.characters[3].alive
    assert bomb in after.characters[1].pack


def test_bomb_hits_every_other_character_at_the_place_for_30_ignoring_armor():
    state = empty_game(n=4, where="监狱")
    state = edit(state, 4, place="医院")
    state, bomb = give(state, 1, "trap:炸弹", hand=True)
    state, _ = give(state, 2, ORANGE_A, hand=True)
    state = edit(state, 3, hp=30)
    state, herb = give(state, 3, "supply:[HP10]草药")
    after, events = act(state, UseItem(1, bomb))
    assert after.characters[1].hp == 100
    assert after.characters[2].hp == 70
    assert not after.characters[3].alive
    assert after.deaths[-1].cause == CAUSE_BOMB
    assert herb in after.places["监狱"].items  # the dead drop their items there
    assert after.characters[4].hp == 100
    assert bomb in after.gone
    assert of(events, "bomb_used")[0].payload.keys() == {"item"}


@pytest.mark.parametrize(("ruleset", "safe", "orange"), SAFE_ZONES)
def test_bomb_in_the_safe_zone_is_refused(ruleset, safe, orange):
    state = empty_game(ruleset, n=2, where=safe)
    state, bomb = give(state, 1, "trap:炸弹", hand=True)
    before = state.to_json()
    with pytest.raises(SafeZone):
        act(state, UseItem(1, bomb))
    assert state.to_json() == before


def test_a_special_zone_whose_ruleset_forbids_attacks_refuses_them_like_the_safe_zone():
    # 252 says 在无限城进行的攻击有效 (attacks: true); a ruleset entry saying false is honoured.
    from royale.engine import get_ruleset, register_ruleset
    from royale.engine.ruleset import parse_ruleset

    raw = dict(get_ruleset(K252).raw, key="test_no_attacks_252")
    raw["special_zones"] = [dict(z, attacks=False) for z in raw["special_zones"]]
    register_ruleset(parse_ruleset(raw))
    state = empty_game("test_no_attacks_252", n=2, where="无限城")
    state, bomb = give(state, 1, "trap:炸弹", hand=True)
    state, handle = found_character(state, 1, 2)
    before = state.to_json()
    with pytest.raises(SafeZone):
        act(state, Attack(1, handle))
    with pytest.raises(SafeZone):
        act(state, UseItem(1, bomb))
    assert state.to_json() == before


def test_death_hooks_see_the_killer_in_real_time():
    from royale.engine import get_ruleset, register_hook, register_ruleset
    from royale.engine.ruleset import parse_ruleset

    @register_hook("test.villain")
    def villain(d, stage, context):
        # 恶棍: if the villain is killed at night, the killer becomes the new villain at once.
        if d.flags.get("villain") == context["character"] and context["killer"] is not None:
            d.wflags()["villain"] = context["killer"]
            d.public("villain", {"character": context["killer"]})

    raw = dict(get_ruleset("islington_256").raw, key="test_villain_256")
    raw["hooks"] = {"death": ["test.villain"]}
    register_ruleset(parse_ruleset(raw))
    state = empty_game("test_villain_256", n=2, where="监狱")
    state.flags["villain"] = 2
    state = edit(state, 2, hp=5)
    state, handle = found_character(state, 1, 2)
    after, events = act(state, Attack(1, handle))
    assert after.flags["villain"] == 1
    assert state.flags["villain"] == 2  # the input state is untouched
    assert of(events, "villain")[0].audience.kind == "public"
