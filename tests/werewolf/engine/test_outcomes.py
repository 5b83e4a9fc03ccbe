"""Triggers are data: each skill names when it fires and for which causes, a registered handler
does the rest. [099]'s triggers as the post writes them, the checks on bad data, and a variant
ruleset whose changed data changes what happens, with no code changed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from werewolf.engine import get_ruleset, new_game
from werewolf.engine import ruleset as ruleset_module
from werewolf.engine.ruleset import RULESET_DIR, RulesetError, load_ruleset

from .support import A99, DREAMER, SEATS, WITCH, kinds, play_night, rng


def _data() -> dict[str, Any]:
    return json.loads((RULESET_DIR / f"{A99}.json").read_text(encoding="utf-8"))


def test_099_triggers_as_the_post_writes_them() -> None:
    rs = get_ruleset(A99)
    fired = {
        k: [
            (t.on, t.handler, sorted(t.causes) if t.causes is not None else None)
            for t in s.triggers
        ]
        for k, s in rs.skills.items()
        if s.triggers
    }
    assert fired == {
        # 替死: 当[爱慕]对象因投票、指杀而出局时，情痴代替其出局
        "substitute": [("replace", "substitute", ["投票", "杀人"])],
        # 长生: 因投票、毒药、最后一枪出局时，村民阵营其余角色失去技能
        "longevity": [("out", "strip_faction", ["投票", "最后一枪", "毒药"])],
        # 最后一枪: 猎人出局时 (not by a red card: 红牌罚下出局的角色不能任何技能)
        "last_shot": [("out", "window", None)],
        # 遗志: 高僧因[献身]出局时
        "will": [("out", "window", ["献身"])],
        # 魅惑: 梦中人被投票出局时
        "charm": [("out", "charm", ["投票"])],
        # 装傻: 白痴被投票出局时
        "feign": [("voted_out", "feign", None)],
        # 献身: 投票出现平票时
        "sacrifice": [("tie", "sacrifice", None)],
        # 殉职: the 警长's badge, on any elimination but a red card
        "succession": [("out", "window", None)],
    }
    assert rs.skills["longevity"].triggers[0].after_check  # stripping after the win check
    assert rs.skills["succession"].forfeit_announce == "badge_withdrawn"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            lambda d: d["skills"]["charm"].update(triggers=[{"on": "dawn", "handler": "charm"}]),
            "skills.charm.triggers.on",
        ),
        (
            lambda d: d["skills"]["charm"].update(triggers=[{"on": "out", "handler": "curse"}]),
            "skills.charm.triggers",
        ),
        # A window trigger on a skill with no day window: nothing could be opened.
        (
            lambda d: d["skills"]["charm"].update(triggers=[{"on": "out", "handler": "window"}]),
            "skills.charm.triggers",
        ),
        (lambda d: d["skills"]["will"].update(announce="farewell"), "skills.will"),
    ],
)
def test_bad_trigger_data_is_refused_by_field(change: Any, field: str) -> None:
    data = _data()
    change(data)
    with pytest.raises(RulesetError) as err:
        load_ruleset(data)
    assert err.value.field == field


@pytest.fixture
def poison_charms(monkeypatch: pytest.MonkeyPatch) -> str:
    """A variant of [099] whose 梦中人 also charms when poisoned: only the data differs."""
    data = _data()
    data["key"] = "arknights_099_poison_charms"
    data["skills"]["charm"]["triggers"][0]["causes"] = ["投票", "毒药"]
    rs = load_ruleset(data)
    get_ruleset(A99)  # the built-ins are loaded before the variant joins them
    monkeypatch.setitem(ruleset_module._REGISTRY, rs.key, rs)
    return rs.key


def _poison_the_dreamer(key: str) -> tuple[Any, list[Any]]:
    chars = [(i, f"P{i}", "男" if i % 2 else "女") for i in SEATS]
    state, _ = new_game(key, chars, rng(), roles=SEATS)
    return play_night(state, [(WITCH, "poison", DREAMER)])


def test_a_poisoned_dreamer_charms_nobody_in_099() -> None:
    state, events = _poison_the_dreamer(A99)
    assert not state.players[DREAMER].alive
    assert "charm" not in kinds(events)
    assert "charm" not in state.flags


def test_changing_only_the_data_makes_the_poisoned_dreamer_charm(poison_charms: str) -> None:
    state, events = _poison_the_dreamer(poison_charms)
    assert not state.players[DREAMER].alive
    assert "charm" in kinds(events)
    # The dreamer (seat 14) is 女: the next night every 男 is charmed.
    assert state.flags["charm"] == {"night": 2, "gender": "女"}
