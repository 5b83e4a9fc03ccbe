"""捡拾, 更换, 使用, 丢弃, upgrades, recon and day tools."""

from __future__ import annotations

import pytest

from games.engine.errors import WrongPhase
from royale.engine import (
    AnswerPhone,
    Drop,
    Equip,
    Gps,
    Megaphone,
    Phone,
    PickUp,
    Telescope,
    Unequip,
    Upgrade,
    UseItem,
    get_ruleset,
)
from royale.engine.draft import open_draft
from royale.engine.errors import (
    BackpackFull,
    CannotUpgrade,
    HandsFull,
    HandSlotTaken,
    NotHeld,
    NothingFound,
    NotInHand,
    NotUsable,
    TierExhausted,
    UsedThisNight,
    UsedToday,
)
from royale.engine.night import night_close
from royale.engine.ruleset import kind_key
from royale.engine.state import GONE_CONSUMED, GONE_UPGRADED, Found

from .support import K252, act, edit, empty_game, give, of, put, rng


def found_item(state, actor, iid):
    place = state.characters[actor].place
    return edit(state, actor, found=Found("item", place, iid))


# --- pick up ----------------------------------------------------------------------------------


def test_pick_up_puts_the_found_item_in_the_backpack_for_0_mp():
    state = empty_game(n=1, where="监狱")
    state, iid = put(state, "监狱", "supply:[HP30]精油")
    state = found_item(state, 1, iid)
    after, _ = act(state, PickUp(1))
    assert after.characters[1].pack == [iid]
    assert after.places["监狱"].items == []
    assert after.characters[1].mp == 100


def test_pick_up_needs_a_found_item():
    state = empty_game(n=1, where="监狱")
    with pytest.raises(NothingFound):
        act(state, PickUp(1))


def test_six_items_and_the_backpack_is_full():
    state = empty_game(n=1, where="监狱")
    for _ in range(6):
        state, _ = give(state, 1, "supply:[HP10]草药")
    state, iid = put(state, "监狱", "supply:[HP30]精油")
    state = found_item(state, 1, iid)
    with pytest.raises(BackpackFull) as exc:
        act(state, PickUp(1))
    assert exc.value.code == "backpack_full"


# --- equip ------------------------------------------------------------------------------------


def test_equip_swaps_the_weapon_in_hand_with_one_from_the_backpack():
    state = empty_game(n=1, where="监狱")
    state, knife = give(state, 1, "weapon:green:小刀", hand=True)
    state, gun = give(state, 1, "weapon:blue:柯尔特手枪")
    after, _ = act(state, Equip(1, gun))
    assert after.characters[1].hands == [gun]
    assert after.characters[1].pack == [knife]


def test_hands_hold_two_items_and_one_weapon_at_most():
    state = empty_game(n=1, where="监狱")
    state, knife = give(state, 1, "weapon:green:小刀", hand=True)
    state, key = give(state, 1, "armor:green:万能钥匙", hand=True)
    state, herb = give(state, 1, "supply:[HP10]草药")
    with pytest.raises(HandsFull):
        act(state, Equip(1, herb))
    after, _ = act(state, Equip(1, herb, swap_out=key))
    assert sorted(after.characters[1].hands) == sorted([knife, herb])
    state, gun = give(state, 1, "weapon:blue:柯尔特手枪")
    with pytest.raises(HandSlotTaken):
        act(state, Equip(1, gun, swap_out=key))


def test_unequip_puts_a_hand_item_back():
    state = empty_game(n=1, where="监狱")
    state, knife = give(state, 1, "weapon:green:小刀", hand=True)
    after, _ = act(state, Unequip(1, knife))
    assert after.characters[1].hands == []
    assert after.characters[1].pack == [knife]


def test_drop_leaves_the_item_at_the_place():
    state = empty_game(n=1, where="监狱")
    state, knife = give(state, 1, "weapon:green:小刀")
    after, _ = act(state, Drop(1, knife))
    assert after.places["监狱"].items == [knife]
    with pytest.raises(NotHeld):
        act(after, Drop(1, knife))


# --- supplies ---------------------------------------------------------------------------------


def test_only_items_in_hand_can_be_used():
    state = empty_game(n=1, where="监狱")
    state, herb = give(state, 1, "supply:[HP10]草药")
    with pytest.raises(NotInHand) as exc:
        act(state, UseItem(1, herb))
    assert exc.value.code == "not_in_hand"


@pytest.mark.parametrize(
    ("supply", "bleeding", "hp", "after_hp", "after_bleeding"),
    [
        pytest.param("[HP10]草药", False, 50, 60, False, id="HP10 heals 10"),
        pytest.param(
            "[HP10]草药", True, 50, 50, False, id="HP10 cancels bleeding instead of healing (抵消)"
        ),
        pytest.param(
            "[HP30]精油", True, 50, 50, False, id="HP30 cancels bleeding instead of healing (抵消)"
        ),
        pytest.param(
            "[HP60]甘草糖", True, 50, 100, False, id="HP60 cures bleeding and heals (治愈)"
        ),
        pytest.param(
            "[HP100]蜂王浆", True, 5, 100, False, id="HP100 cures bleeding and heals to the cap"
        ),
        pytest.param("[HP30]精油", False, 90, 100, False, id="healing stops at 100"),
    ],
)
def test_healing_supplies_and_bleeding(supply, bleeding, hp, after_hp, after_bleeding):
    state = empty_game(n=1, where="监狱")
    state = edit(state, 1, hp=hp, bleeding=10 if bleeding else 0)
    state, iid = give(state, 1, f"supply:{supply}", hand=True)
    after, _ = act(state, UseItem(1, iid))
    c = after.characters[1]
    assert (c.hp, c.bleeding > 0) == (after_hp, after_bleeding)
    assert after.gone[iid] == GONE_CONSUMED


@pytest.mark.parametrize(
    ("supply", "mp", "after"),
    [("[MP20]雪茄", 10, 30), ("[MP50]咖啡", 60, 100), ("[MP100]兴奋剂", 0, 100)],
)
def test_stamina_supplies(supply, mp, after):
    state = empty_game(n=1, where="监狱")
    state = edit(state, 1, mp=mp)
    state, iid = give(state, 1, f"supply:{supply}", hand=True)
    state, _ = act(state, UseItem(1, iid))
    assert state.characters[1].mp == after


def test_cured_bleeding_no_longer_hurts_at_night_close_but_uncured_does():
    state = empty_game(n=2, where="监狱")
    state = edit(state, 1, 2, bleeding=10, hp=50)
    state, herb = give(state, 1, "supply:[HP10]草药", hand=True)
    state, _ = act(state, UseItem(1, herb))
    state, _ = night_close(state, rng())
    assert state.characters[1].hp == 50
    assert state.characters[2].hp == 40


def test_currency_cannot_be_used_at_night():
    state = empty_game(n=1, where="监狱")
    state, coin = give(state, 1, "tool:1$", hand=True)
    with pytest.raises(NotUsable):
        act(state, UseItem(1, coin))


# --- upgrades ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("upgrader", "item", "tier"),
    [
        pytest.param(
            "upgrader:卷轴", "weapon:green:小刀", "blue", id="scroll: green weapon → blue"
        ),
        pytest.param("upgrader:卷轴", "armor:blue:马", "purple", id="scroll: blue armor → purple"),
        pytest.param(
            "upgrader:书籍", "weapon:purple:电锯", "orange", id="book: purple weapon → orange"
        ),
        pytest.param(
            "upgrader:书籍", "armor:green:万能钥匙", "blue", id="book: green armor → blue"
        ),
    ],
)
def test_upgrade_gives_the_next_tier_same_category(upgrader, item, tier):
    state = empty_game(n=1, where="监狱")
    state, up = give(state, 1, upgrader, hand=True)
    state, target = give(state, 1, item)
    after, events = act(state, Upgrade(1, up, target))
    c = after.characters[1]
    (new,) = c.pack
    kind = get_ruleset("islington_256").kinds[after.items[new].kind]
    assert (kind.category, kind.tier) == (item.split(":")[0], tier)
    assert after.gone[up] == GONE_CONSUMED
    assert after.gone[target] == GONE_UPGRADED
    assert c.hands == []
    assert c.mp == 100
    assert of(events, "upgraded")[0].payload["into"]["id"] == new


@pytest.mark.parametrize(
    ("upgrader", "item"),
    [
        pytest.param("upgrader:卷轴", "weapon:purple:电锯", id="a scroll goes up to purple only"),
        pytest.param("upgrader:书籍", "weapon:orange:安魂", id="nothing upgrades orange"),
        pytest.param("upgrader:书籍", "supply:[HP10]草药", id="only weapons and armor"),
    ],
)
def test_upgrade_refusals(upgrader, item):
    state = empty_game(n=1, where="监狱")
    state, up = give(state, 1, upgrader, hand=True)
    state, target = give(state, 1, item)
    with pytest.raises(CannotUpgrade):
        act(state, Upgrade(1, up, target))


def test_upgrades_exhaust_a_tier():
    rs = get_ruleset("islington_256")
    state = empty_game(n=1, where="监狱")
    oranges = rs.tier_names[("weapon", "orange")]
    assert len(oranges) == 12
    made = set()
    for n in range(12):
        state, book = give(state, 1, "upgrader:书籍", hand=True)
        state, purple = give(state, 1, "weapon:purple:电锯")
        state, _ = act(state, Upgrade(1, book, purple), seed=n)
        (new,) = state.characters[1].pack
        made.add(state.items[new].kind)
        state = edit(state, 1, pack=[])  # set it aside (test setup)
    assert made == {kind_key("weapon", "orange", n) for n in oranges}
    state, book = give(state, 1, "upgrader:书籍", hand=True)
    state, purple = give(state, 1, "weapon:purple:电锯")
    with pytest.raises(TierExhausted) as exc:
        act(state, Upgrade(1, book, purple))
    assert exc.value.code == "tier_exhausted"


def test_252_upgrade_draws_among_unused_names_and_keeps_the_hand_slot():
    state = empty_game(K252, n=1, where="蝶屋")
    state, scroll = give(state, 1, "upgrader:呼吸法指南", hand=True)
    state, blade = give(state, 1, "armor:green:护额", hand=True)
    after, _ = act(state, Upgrade(1, scroll, blade))
    (new,) = after.characters[1].hands
    assert after.items[new].kind.startswith("armor:blue:")


# --- recon ------------------------------------------------------------------------------------


def test_gps_on_an_item_in_a_backpack_reports_the_holders_place_not_the_holder():
    state = empty_game(n=2, where="监狱")
    state = edit(state, 2, place="医院")
    state, gps = give(state, 1, "recon:GPS", hand=True)
    state, _ = give(state, 2, "weapon:green:猎刀")  # in 2's backpack
    after, events = act(state, Gps(1, gps, "weapon:green:猎刀"))
    (result,) = of(events, "gps_result")
    assert result.payload["places"] == ["医院"]
    assert "2" not in str(result.payload)
    assert "character" not in result.payload
    with pytest.raises(UsedThisNight):
        act(after, Gps(1, gps, "weapon:green:猎刀"))


def test_gps_on_an_item_lying_somewhere():
    state = empty_game(n=1, where="监狱")
    state, gps = give(state, 1, "recon:GPS", hand=True)
    state, _ = put(state, "钟楼", "weapon:green:骨锯")
    _, events = act(state, Gps(1, gps, "weapon:green:骨锯"))
    assert of(events, "gps_result")[0].payload["places"] == ["钟楼"]


def test_telescope_shows_all_items_of_two_characters_once_a_night():
    state = empty_game(n=3, where="监狱")
    state, scope = give(state, 1, "recon:望远镜", hand=True)
    state, knife = give(state, 2, "weapon:green:小刀", hand=True)
    state, herb = give(state, 3, "supply:[HP10]草药")
    after, events = act(state, Telescope(1, scope, (2, 3)))
    seen = of(events, "telescope_result")[0].payload["seen"]
    assert [[i["id"] for i in s["items"]] for s in seen] == [[knife], [herb]]
    with pytest.raises(UsedThisNight):
        act(after, Telescope(1, scope, (2, 3)))


# --- by day -----------------------------------------------------------------------------------


def day_game():
    state = empty_game(n=3, where="监狱")
    state, _ = night_close(state, rng())
    from royale.engine import day_open

    state, _ = day_open(state, rng())
    return state


def test_megaphone_announces_a_place_by_day_once_a_day():
    state = day_game()
    state, mega = give(state, 1, "tool:大喇叭")
    state, knife = put(state, "监狱", "weapon:green:小刀")
    after, events = act(state, Megaphone(1, mega, "监狱"))
    (public,) = [e for e in events if e.audience.kind == "public"]
    assert public.payload["place"] == "监狱"
    assert [c["character"] for c in public.payload["characters"]] == [1, 2, 3]
    assert [i["id"] for i in public.payload["items"]] == [knife]
    with pytest.raises(UsedToday):
        act(after, Megaphone(1, mega, "监狱"))


def test_megaphone_is_refused_at_night():
    state = empty_game(n=1, where="监狱")
    state, mega = give(state, 1, "tool:大喇叭", hand=True)
    with pytest.raises(WrongPhase):
        act(state, Megaphone(1, mega, "监狱"))


@pytest.mark.parametrize(
    ("ruleset", "phone", "accept", "text"),
    [
        ("islington_256", "tool:电话", True, "有玩家接听了电话"),
        ("islington_256", "tool:电话", False, "有玩家拒听了电话"),
        ("kimetsu_252", "tool:血鬼术符咒", True, "有玩家成功使用血鬼术符咒"),
        ("kimetsu_252", "tool:血鬼术符咒", False, "目标拒绝了使用者的血鬼术符咒"),
    ],
)
def test_phone_call_and_answer(ruleset, phone, accept, text):
    state = empty_game(ruleset, n=2)
    d = open_draft(state, rng())
    d.phase = "day"
    state = d.finish()
    state, item = give(state, 1, phone)
    state, events = act(state, Phone(1, item, 2))
    call = of(events, "phone_call")[0]
    assert call.audience.character == 2
    assert call.payload["sender"] == 1
    assert state.gone[item] == GONE_CONSUMED
    state, events = act(state, AnswerPhone(2, call.payload["call"], accept))
    (public,) = [e for e in events if e.audience.kind == "public"]
    assert public.payload == {"text": text}
    assert state.calls[0].answer == ("accepted" if accept else "refused")


def test_a_phone_calls_a_player_never_an_npc():
    # 指定一名玩家: an NPC (阿笨) is no player and cannot answer; the refused call keeps the phone.
    from royale.engine import day_open, new_game
    from royale.engine.errors import InvalidTarget

    zero = {p.selector: 0 for p in get_ruleset("islington_256").placement}
    chars = [(1, "甲"), (2, "乙")]
    state, _ = new_game("islington_256", chars, rng(), placement=zero, npcs=[(90, "阿笨", 50)])
    state, _ = day_open(state, rng())
    state, phone = give(state, 1, "tool:电话")
    before = state.to_json()
    with pytest.raises(InvalidTarget):
        act(state, Phone(1, phone, 90))
    assert state.to_json() == before
    after, _ = act(state, Phone(1, phone, 2))
    assert after.calls[0].target == 2
