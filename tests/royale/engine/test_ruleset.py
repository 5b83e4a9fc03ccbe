"""Both rulesets load and validate; a broken file names its broken field."""

from __future__ import annotations

import copy
import json

import pytest

from royale.engine import RulesetError, get_ruleset, ruleset_keys, validate_hooks
from royale.engine.ruleset import builtin_path, load_file, parse_ruleset

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


@pytest.mark.parametrize("key", [I256, K252])
def test_orange_weapons_splash_20_and_bleed_10(key):
    # 对所在区域其他角色造成伤血20（无视护甲）... 额外受到10点流血效果（不叠加）
    rs = get_ruleset(key)
    for name in rs.tier_names[("weapon", "orange")]:
        kind = rs.kind("weapon", "orange", name)
        assert (kind.splash, kind.bleeding) == (20, 10)
    lesser = [rs.kind("weapon", t, rs.tier_names[("weapon", t)][0]) for t in ("green", "blue")]
    assert [(k.splash, k.bleeding) for k in lesser] == [(0, 0), (0, 0)]


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


@pytest.mark.parametrize("key", [I256, K252])
def test_costs_caps_and_numbers(key):
    rs = get_ruleset(key)
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
    # RULINGS 17 (200 characters), 9 (drowned after night 2), 8 (one free move when resting)
    assert (rs.whisper_max, rs.drown_after_night, rs.rest_free_moves) == (200, 2, 1)
    # 每名角色本身持有一票; 第一日讨论日不进行投票; 统一为雾天
    assert (rs.vote_base, rs.vote_from_day, rs.weather) == (1, 2, "雾天")


@pytest.mark.parametrize(
    ("key", "numbers"),
    [
        pytest.param(
            I256,
            {
                "recon:GPS": ("gps", 3, {}),
                "recon:望远镜": ("telescope", 3, {}),
                "tool:大喇叭": ("megaphone", 3, {}),
                "tool:电话": ("phone", 0, {}),
                "tool:1$": ("currency", 1, {"value": 1}),
                "tool:2$": ("currency", 2, {"value": 2}),
                "tool:3$": ("currency", 3, {"value": 3}),
                "tool:4$": ("currency", 4, {"value": 4}),
                "tool:金块": ("currency", 5, {"value": 5}),  # 1金块等于5$，白天票数+5
                "trap:炸弹": ("bomb", 0, {"damage": 30}),
                "upgrader:卷轴": ("upgrade", 0, {"max_tier": "purple"}),
                "upgrader:书籍": ("upgrade", 0, {"max_tier": "orange"}),
            },
            id="256",
        ),
        pytest.param(
            K252,
            {
                "recon:罗针盘": ("gps", 3, {}),
                "recon:望远镜": ("telescope", 3, {}),
                "tool:大喇叭": ("megaphone", 3, {}),
                "tool:血鬼术符咒": ("phone", 0, {}),
                "tool:1円": ("currency", 1, {"value": 1}),
                "tool:2円": ("currency", 2, {"value": 2}),
                "tool:3円": ("currency", 3, {"value": 3}),
                "tool:4円": ("currency", 4, {"value": 4}),
                "trap:炸弹": ("bomb", 0, {"damage": 30}),
                "upgrader:呼吸法指南": ("upgrade", 0, {"max_tier": "purple"}),
                "upgrader:呼吸法奥义": ("upgrade", 0, {"max_tier": "orange"}),
            },
            id="252",
        ),
    ],
)
def test_recon_tools_traps_and_upgraders_of_the_posts(key, numbers):
    # 白天票数 of each kind as the posts give it (upgraders: not given, the site's 0), 炸弹 -30,
    # 卷轴/呼吸法指南 最多升级到紫色, 书籍/呼吸法奥义 任意升级.
    rs = get_ruleset(key)
    untiered = {k.key for k in rs.kinds.values() if k.tier is None and k.effect != "supply"}
    assert untiered == set(numbers)
    for kind_key, (effect, vote, extra) in numbers.items():
        kind = rs.kinds[kind_key]
        assert (kind.effect, kind.vote) == (effect, vote), kind_key
        assert {f: getattr(kind, f) for f in extra} == extra, kind_key


@pytest.mark.parametrize(
    ("key", "supplies"),
    [
        pytest.param(
            I256,
            {
                "[MP20]雪茄": (0, 20, None),
                "[MP50]咖啡": (0, 50, None),
                "[MP100]兴奋剂": (0, 100, None),
                "[HP10]草药": (10, 0, "cancel"),
                "[HP30]精油": (30, 0, "cancel"),
                "[HP60]甘草糖": (60, 0, "cure"),
                "[HP100]蜂王浆": (100, 0, "cure"),
            },
            id="256",
        ),
        pytest.param(
            K252,
            {
                "[MP20]清目水": (0, 20, None),
                "[MP50]静心丸": (0, 50, None),
                "[MP100]源命香": (0, 100, None),
                "[HP10]镇痛贴": (10, 0, "cancel"),
                "[HP30]止血散": (30, 0, "cancel"),
                "[HP60]愈合膏": (60, 0, "cure"),
                "[HP100]再生之露": (100, 0, "cure"),
            },
            id="252",
        ),
    ],
)
def test_supply_numbers_of_the_posts(key, supplies):
    # 体力值+N / 生命值+N; HP10 and HP30 抵消流血 (cancel), HP60 and HP100 治愈流血 (cure); 票数+0
    rs = get_ruleset(key)
    for name, (hp, mp, cure) in supplies.items():
        kind = rs.kind("supply", None, name)
        assert (kind.hp, kind.mp, kind.bleeding_cure, kind.vote) == (hp, mp, cure, 0), name


@pytest.mark.parametrize(
    ("key", "pool"),
    [
        pytest.param(
            I256,
            (
                "weapon:blue",
                "armor:green",
                "supply:[HP60]甘草糖",
                "supply:[MP50]咖啡",
                "trap:炸弹",
                "upgrader:书籍",
            ),
            id="256: 蓝色武器、绿色防具、[HP60]甘草糖、[MP50]咖啡、炸弹、书籍",
        ),
        pytest.param(
            K252,
            (
                "weapon:blue",
                "armor:green",
                "supply:[HP60]愈合膏",
                "supply:[MP50]静心丸",
                "trap:炸弹",
                "upgrader:呼吸法奥义",
            ),
            id="252: 蓝色武器、绿色防具、[HP60]愈合膏、[MP50]静心丸、炸弹、呼吸法奥义",
        ),
    ],
)
def test_reward_pools(key, pool):
    assert get_ruleset(key).reward_pool == pool


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
