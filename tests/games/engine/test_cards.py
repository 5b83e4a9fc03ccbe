"""判罚: the catalogues as the posts list them, colours, and 三张蓝牌→黄牌、三张黄牌→红牌."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine.activity import PaceKindNotAllowed, pace_check, request_kind
from games.engine.cards import (
    BLUE,
    NO_PACE,
    RED,
    YELLOW,
    CardColorNotAllowed,
    Entry,
    Merge,
    PenaltyDataError,
    UnknownViolation,
    escalate,
    parse_penalty_rules,
    penalty_rules,
    penalty_rulesets,
)
from games.engine.errors import NotFound

ALL = ("arknights_099", "conan_096", "islington_256", "kimetsu_252", "lin_feng_061")


def test_every_ruleset_of_both_kinds_has_its_rules() -> None:
    assert penalty_rulesets() == sorted(ALL)
    with pytest.raises(NotFound):
        penalty_rules("nope_000")


def test_099_catalogue_is_the_posts_判罚依据_list() -> None:
    rules = penalty_rules("arknights_099")
    assert len(rules.catalogue) == 33
    assert rules.violation("4.2").text == "禁止提及过去场次"
    assert rules.violation("4.2").section == "马甲"
    assert rules.violation("5.2").text == "在未加快进程的任一讨论日未投票"
    assert rules.violation("12.3").text == "导演认为违规的其他行为"


def test_096_catalogue_is_the_posts_判罚依据_list() -> None:
    rules = penalty_rules("conan_096")
    assert len(rules.catalogue) == 29
    assert rules.violation("5.2").text == "连续三个未执行加速的讨论日均不足十帖"
    assert rules.violation("2.9").text == "以“贴脸”作为讨论依据"


def test_潜水_is_always_a_yellow() -> None:
    rules = penalty_rules("conan_096")
    assert rules.check("5.1", YELLOW).code == "5.1"
    with pytest.raises(CardColorNotAllowed):
        rules.check("5.1", BLUE)
    with pytest.raises(CardColorNotAllowed):
        rules.check("5.1", RED)


def test_096_假设性发誓_starts_at_yellow() -> None:
    rules = penalty_rules("conan_096")
    with pytest.raises(CardColorNotAllowed):
        rules.check("2.7", BLUE)
    assert rules.check("2.7", YELLOW).code == "2.7"
    assert rules.check("2.7", RED).code == "2.7"


def test_other_entries_take_any_colour_the_director_picks() -> None:
    rules = penalty_rules("arknights_099")
    assert {rules.check("3.1", c).code for c in (BLUE, YELLOW, RED)} == {"3.1"}


def test_unknown_entry_is_refused() -> None:
    with pytest.raises(UnknownViolation):
        penalty_rules("islington_256").check("9.9", BLUE)


def test_royale_posts_rules() -> None:
    for key in ("islington_256", "kimetsu_252"):
        rules = penalty_rules(key)
        posts = rules.violation("posts")
        assert posts.text == "白天发言不足1帖，黄牌一张。但可以不投票或不行动。"
        assert posts.color == YELLOW
        assert rules.activity.min_posts == 1
        assert rules.activity.vote_reason is None
        assert rules.red_card == "eliminate"


def test_red_card_effects() -> None:
    assert penalty_rules("arknights_099").red_card == "eliminate"  # 红牌罚下
    assert penalty_rules("conan_096").red_card == "idle"  # 进入挂机状态


def test_activity_thresholds_per_ruleset() -> None:
    a099 = penalty_rules("arknights_099").activity
    assert (a099.min_posts, a099.min_posts_reason, a099.vote_reason) == (5, "5.1", "5.2")
    assert a099.streak is not None
    assert (a099.streak.days, a099.streak.under, a099.streak.reason) == (3, 10, "5.1")
    # 必须行使特权的角色未在规定时间内行使: only [099] has the rule.
    assert a099.missed_duty_reason == "5.3"
    a096 = penalty_rules("conan_096").activity
    assert a096.streak is not None
    assert (a096.min_posts, a096.streak.reason, a096.vote_reason) == (5, "5.2", None)
    a061 = penalty_rules("lin_feng_061").activity
    assert (a061.min_posts, a061.streak, a061.vote_reason) == (0, None, "vote")
    assert a096.missed_duty_reason is None
    assert a061.missed_duty_reason is None


def test_three_blue_make_a_yellow() -> None:
    merges = escalate([Entry("1", BLUE), Entry("2", BLUE), Entry("3", BLUE)])
    assert merges == [Merge("+0", YELLOW, ("1", "2", "3"))]


def test_two_blue_stay_blue() -> None:
    assert escalate([Entry("1", BLUE), Entry("2", BLUE), Entry("3", YELLOW)]) == []


def test_three_yellow_make_a_red_oldest_first() -> None:
    entries = [Entry(str(i), YELLOW) for i in range(1, 5)]
    assert escalate(entries) == [Merge("+0", RED, ("1", "2", "3"))]


def test_a_yellow_from_blues_counts_towards_a_red() -> None:
    entries = [Entry("y1", YELLOW), Entry("y2", YELLOW)] + [Entry(f"b{i}", BLUE) for i in range(3)]
    assert escalate(entries) == [
        Merge("+0", YELLOW, ("b0", "b1", "b2")),
        Merge("+1", RED, ("y1", "y2", "+0")),
    ]


def test_seven_blue_make_two_yellow_and_leave_one() -> None:
    merges = escalate([Entry(str(i), BLUE) for i in range(7)])
    assert [m.sources for m in merges] == [("0", "1", "2"), ("3", "4", "5")]


def test_reds_do_not_merge() -> None:
    assert escalate([Entry(str(i), RED) for i in range(3)]) == []


def test_bad_data_names_the_field() -> None:
    data: dict[str, Any] = {
        "ruleset": "x",
        "title": "x",
        "catalogue": [{"code": "a", "section": "s", "text": "t", "color": "green"}],
    }
    with pytest.raises(PenaltyDataError) as err:
        parse_penalty_rules(data)
    assert err.value.field == "catalogue[0].color"
    data["catalogue"] = [{"code": "a", "section": "s", "text": "t"}]
    data.update(
        activity={"min_posts": 5, "min_posts_reason": "zz", "streak": None, "vote": None},
        pace={"quorum": "half", "cutoff_hours": 3, "kinds": ["speed_up"]},
        elevator={"random_order": False},
        red_card="eliminate",
        faction_decision=False,
    )
    with pytest.raises(PenaltyDataError) as err:
        parse_penalty_rules(data)
    assert err.value.field == "activity.min_posts_reason"


def test_pace_kinds_and_cut_off_are_each_posts() -> None:
    r099 = penalty_rules("arknights_099").pace
    # 099 玩家须知 8: 提议进程加速…过半数同意 — no 延时, no cut-off before the close
    assert (r099.kinds, r099.cutoff_hours, r099.quorum) == (("speed_up",), 0, "majority")
    assert not r099.allows("delay")
    # 061: 申请加速或延时…讨论日结束三个小时前; 096's post is silent: as before
    for ruleset in ("lin_feng_061", "conan_096"):
        pace = penalty_rules(ruleset).pace
        assert (pace.kinds, pace.cutoff_hours) == (("speed_up", "delay"), 3)
    # neither royale post has 加速 or 延时: no request of either kind
    for ruleset in ("islington_256", "kimetsu_252"):
        pace = penalty_rules(ruleset).pace
        assert pace.kinds == ()
        assert not pace.enabled
        assert not pace.allows("speed_up")
        assert not pace.allows("delay")


def test_pace_null_means_no_requests_and_a_request_is_refused_in_chinese() -> None:
    rules = parse_penalty_rules({**_with_pace({}), "pace": None})
    assert rules.pace == NO_PACE
    assert request_kind("申请加速", rules.pace) is None
    with pytest.raises(PaceKindNotAllowed) as refused:
        pace_check("speed_up", rules.pace)
    assert refused.value.text == "本场规则没有加速/延时申请。"


def _with_pace(pace: dict[str, Any]) -> dict[str, Any]:
    return {
        "ruleset": "x",
        "title": "x",
        "catalogue": [{"code": "a", "section": "s", "text": "t"}],
        "activity": {"min_posts": 0, "streak": None, "vote": None},
        "pace": pace,
        "elevator": {"random_order": False},
        "red_card": "eliminate",
        "faction_decision": False,
    }


def test_pace_data_accepts_a_zero_cut_off_and_orders_the_kinds() -> None:
    rules = parse_penalty_rules(
        _with_pace({"quorum": "half", "cutoff_hours": 0, "kinds": ["delay", "speed_up"]})
    )
    assert (rules.pace.cutoff_hours, rules.pace.kinds) == (0, ("speed_up", "delay"))


@pytest.mark.parametrize(
    ("pace", "field"),
    [
        ({"quorum": "half", "cutoff_hours": -1, "kinds": ["speed_up"]}, "pace.cutoff_hours"),
        ({"quorum": "half", "cutoff_hours": 3}, "pace.kinds"),
        ({"quorum": "half", "cutoff_hours": 3, "kinds": []}, "pace.kinds"),
        ({"quorum": "half", "cutoff_hours": 3, "kinds": ["speed_up", "speed_up"]}, "pace.kinds"),
        ({"quorum": "half", "cutoff_hours": 3, "kinds": ["pause"]}, "pace.kinds"),
        ({"quorum": "most", "cutoff_hours": 3, "kinds": ["speed_up"]}, "pace.quorum"),
    ],
)
def test_bad_pace_data_names_the_field(pace: dict[str, Any], field: str) -> None:
    with pytest.raises(PenaltyDataError) as err:
        parse_penalty_rules(_with_pace(pace))
    assert err.value.field == field
