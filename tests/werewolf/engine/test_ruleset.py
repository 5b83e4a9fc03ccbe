"""[099]'s ruleset data: the roles, the skills' tags, the night order and the deadlines."""

from __future__ import annotations

import json

import pytest

from werewolf.engine import get_ruleset, ruleset_keys
from werewolf.engine.ruleset import RULESET_DIR, RulesetError, parse_ruleset

from .support import A99


def test_099_as_the_post_writes_it() -> None:
    rs = get_ruleset(A99)
    assert A99 in ruleset_keys()
    assert rs.players == 18
    assert [s.name for s in rs.night_steps] == [
        "情痴行动", "守护行动", "预言家行动", "狼人阵营行动", "白眼狼阵营行动", "女巫行动",
    ]  # fmt: skip
    assert rs.settlement == ("shot", "poison", "kill")
    assert [s.minutes_after_close for s in rs.night_steps] == [30, 30, 30, 30, 30, 60]
    assert rs.step("witch").minutes_after_open == 30
    assert rs.sheriff_weight == 1.5
    assert {k for k, s in rs.skills.items() if s.limited} == {"admire", "save", "poison"}
    assert {k for k, s in rs.skills.items() if "强制" in s.tags} == {
        "elect", "sense", "substitute", "longevity", "feign", "sacrifice", "charm", "lead",
    }  # fmt: skip
    assert rs.factions["white_wolf"].name == "白眼狼阵营"
    assert all(w.day_minutes == 30 for w in rs.windows.values())
    # 在投票结束前一个半至两个小时之间提醒玩家投票: the site reminds at the start of that span.
    assert rs.vote_reminder == (120, 90)


def _data() -> dict:
    return json.loads((RULESET_DIR / f"{A99}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["roles"]["wolf"].update(count=5), "roles"),
        (lambda d: d["roles"]["wolf"].update(faction="bandits"), "roles.wolf.faction"),
        (lambda d: d["skills"]["save"].update(tags=["限定", "奇怪"]), "skills.save.tags"),
        (lambda d: d["skills"]["save"].update(step="dawn"), "skills.save.step"),
        (lambda d: d["victory"].pop("white_wolf"), "victory"),
        (lambda d: d.update(vote_reminder_minutes=120), "vote_reminder_minutes"),
        (lambda d: d.update(vote_reminder_minutes=[90, 120]), "vote_reminder_minutes"),
        (lambda d: d["announcements"].pop("vote_reminder"), "vote_reminder_minutes"),
    ],
)
def test_bad_data_is_refused_by_field(change, field: str) -> None:
    data = _data()
    change(data)
    with pytest.raises(RulesetError) as err:
        parse_ruleset(data)
    assert err.value.field == field
