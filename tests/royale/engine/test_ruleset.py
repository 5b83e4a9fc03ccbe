"""Both rulesets load and validate; a broken file names its broken field."""

from __future__ import annotations

import copy
import json

import pytest

from royale.engine import RulesetError, get_ruleset, ruleset_keys, validate_hooks
from royale.engine.ruleset import parse_ruleset
from royale.rulesets import builtin_path, load_file

from .support import I256, K252


def raw(key: str) -> dict:
    return json.loads(builtin_path(key).read_text(encoding="utf-8"))


@pytest.mark.parametrize("key", [I256, K252])
def test_builtin_rulesets_load_and_validate(key):
    rs = load_file(builtin_path(key))
    assert rs.key == key
    assert key in ruleset_keys()
    validate_hooks(rs)


@pytest.mark.parametrize(
    ("category", "tier", "count"),
    [
        ("weapon", "green", 60),
        ("weapon", "blue", 40),
        ("weapon", "purple", 27),
        ("weapon", "orange", 12),
        ("armor", "green", 48),
        ("armor", "blue", 24),
        ("armor", "purple", 11),
        ("armor", "orange", 11),
    ],
)
@pytest.mark.parametrize("key", [I256, K252])
def test_every_name_of_every_tier(key, category, tier, count):
    assert len(get_ruleset(key).tier_names[(category, tier)]) == count


@pytest.mark.parametrize(
    ("category", "tier", "damage", "reduction", "uses", "vote"),
    [
        ("weapon", "green", 15, 0, None, 1),
        ("weapon", "blue", 25, 0, None, 2),
        ("weapon", "purple", 35, 0, None, 3),
        ("weapon", "orange", 50, 0, 5, 0),
        ("armor", "green", 0, 5, None, 2),
        ("armor", "blue", 0, 10, None, 3),
        ("armor", "purple", 0, 15, 5, 4),
        ("armor", "orange", 0, 25, 3, 0),
    ],
)
def test_tier_numbers_of_the_posts(category, tier, damage, reduction, uses, vote):
    for key in (I256, K252):
        rs = get_ruleset(key)
        kind = rs.kind(category, tier, rs.tier_names[(category, tier)][0])
        assert (kind.damage, kind.reduction, kind.uses, kind.vote) == (
            damage,
            reduction,
            uses,
            vote,
        )


def test_orange_weapons_splash_20_and_bleed_10():
    kind = get_ruleset(I256).kind("weapon", "orange", "安魂")
    assert (kind.splash, kind.bleeding) == (20, 10)


def test_252_name_in_two_categories_is_two_kinds():
    rs = get_ruleset(K252)
    weapon = rs.kind("weapon", "orange", "阳华突")
    armor = rs.kind("armor", "blue", "阳华突")
    assert weapon.key != armor.key
    assert (weapon.damage, armor.reduction) == (50, 10)


@pytest.mark.parametrize(
    ("key", "places", "safe", "night", "final"),
    [
        pytest.param(
            I256, 37, "教堂", 2, None, id="256 lists 37 places (its text says 36): all kept"
        ),
        pytest.param(
            K252, 36, "产屋敷宅邸", 3, "无限城", id="252: 36 places, 无限城 the final place"
        ),
    ],
)
def test_places_and_zones(key, places, safe, night, final):
    rs = get_ruleset(key)
    assert len(rs.places) == places
    assert (rs.safe_zone, rs.safe_zone_night, rs.final_place) == (safe, night, final)
    assert rs.shrink_schedule == (0, 5, 5, 5, 4, 4, 4, 3, 3, 2, 1)


@pytest.mark.parametrize(
    ("key", "names"),
    [
        (
            I256,
            [
                "[MP20]雪茄",
                "[MP50]咖啡",
                "[MP100]兴奋剂",
                "[HP10]草药",
                "[HP30]精油",
                "[HP60]甘草糖",
                "[HP100]蜂王浆",
            ],
        ),
        (
            K252,
            [
                "[MP20]清目水",
                "[MP50]静心丸",
                "[MP100]源命香",
                "[HP10]镇痛贴",
                "[HP30]止血散",
                "[HP60]愈合膏",
                "[HP100]再生之露",
            ],
        ),
    ],
)
def test_the_seven_supplies(key, names):
    rs = get_ruleset(key)
    assert [k.name for k in rs.kinds_with_effect("supply")] == names


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (
            I256,
            {
                "卷轴",
                "书籍",
                "GPS",
                "望远镜",
                "大喇叭",
                "电话",
                "1$",
                "2$",
                "3$",
                "4$",
                "金块",
                "炸弹",
            },
        ),
        (
            K252,
            {
                "呼吸法指南",
                "呼吸法奥义",
                "罗针盘",
                "望远镜",
                "大喇叭",
                "血鬼术符咒",
                "1円",
                "2円",
                "3円",
                "4円",
                "炸弹",
            },
        ),
    ],
)
def test_the_other_items(key, expected):
    rs = get_ruleset(key)
    names = {k.name for k in rs.kinds.values() if k.tier is None and k.effect != "supply"}
    assert names == expected


def test_costs_caps_and_numbers():
    rs = get_ruleset(I256)
    assert (rs.hp_max, rs.mp_max, rs.item_cap, rs.hand_slots) == (100, 100, 6, 2)
    assert (rs.costs["move"], rs.costs["search"], rs.costs["whisper"], rs.costs["attack"]) == (
        5,
        5,
        5,
        0,
    )
    assert (rs.search_cooldown, rs.rest_hp, rs.rest_mp_to, rs.daily_mp, rs.unarmed_damage) == (
        30,
        25,
        100,
        40,
        5,
    )
    assert rs.kind("tool", None, "金块").value == 5


def test_reward_pools():
    assert get_ruleset(K252).reward_pool == (
        "weapon:blue",
        "armor:green",
        "supply:[HP60]愈合膏",
        "supply:[MP50]静心丸",
        "trap:炸弹",
        "upgrader:呼吸法奥义",
    )


def _without(data, path):
    *head, last = path
    for p in head:
        data = data[p]
    del data[last]


def _set(data, path, value):
    *head, last = path
    for p in head:
        data = data[p]
    data[last] = value


@pytest.mark.parametrize(
    ("change", "field"),
    [
        pytest.param(lambda d: _without(d, ["places"]), "places", id="missing places"),
        pytest.param(
            lambda d: _set(d, ["safe_zone", "place"], "月球"),
            "safe_zone.place",
            id="unknown safe zone",
        ),
        pytest.param(
            lambda d: _set(d, ["catalogue", "weapon", "tiers", "green", "damage"], "15"),
            "catalogue.weapon.tiers.green.damage",
            id="damage is not a number",
        ),
        pytest.param(
            lambda d: _without(d, ["catalogue", "armor", "tiers", "orange", "uses"]),
            "catalogue.armor.tiers.orange.uses",
            id="missing uses",
        ),
        pytest.param(
            lambda d: _set(d, ["catalogue", "supply", "kinds", 3, "bleeding"], "heal"),
            "catalogue.supply.kinds[3].bleeding",
            id="bleeding cure must be cancel or cure",
        ),
        pytest.param(
            lambda d: d["catalogue"]["weapon"]["tiers"]["blue"]["names"].append("柯尔特手枪"),
            "catalogue.weapon.tiers.blue.names[40]",
            id="duplicate name in a tier",
        ),
        pytest.param(
            lambda d: _set(d, ["shrink_schedule", 0], 40), "shrink_schedule", id="schedule too long"
        ),
        pytest.param(
            lambda d: _set(d, ["placement", 0, "count"], 61),
            "placement[0].count",
            id="more than 60 greens",
        ),
        pytest.param(
            lambda d: _set(d, ["vote", "reward_pool", 0], "weapon:pink"),
            "vote.reward_pool[0]",
            id="bad pool",
        ),
        pytest.param(
            lambda d: _set(d, ["hooks", "dawn"], []), "hooks.dawn", id="unknown hook stage"
        ),
        pytest.param(lambda d: _set(d, ["costs", "move"], -5), "costs.move", id="negative cost"),
    ],
)
def test_a_broken_ruleset_names_the_field(change, field):
    data = copy.deepcopy(raw(I256))
    change(data)
    with pytest.raises(RulesetError) as exc:
        parse_ruleset(data)
    assert exc.value.field == field
    assert field in str(exc.value)


def test_a_broken_file_names_the_line_and_a_wrong_key(tmp_path):
    bad = tmp_path / "islington_256.json"
    bad.write_text('{"key": "islington_256",\n "places": [', encoding="utf-8")
    with pytest.raises(RulesetError) as exc:
        load_file(bad)
    assert "line 2" in exc.value.field
    renamed = tmp_path / "other.json"
    renamed.write_text(json.dumps(raw(I256), ensure_ascii=False), encoding="utf-8")
    with pytest.raises(RulesetError) as exc:
        load_file(renamed)
    assert exc.value.field == "key"


def test_unknown_hook_names_the_field():
    data = raw(K252)
    data["hooks"]["post_night"] = ["no.such.hook"]
    rs = parse_ruleset(data)
    with pytest.raises(RulesetError) as exc:
        validate_hooks(rs)
    assert exc.value.field == "hooks.post_night[0]"
