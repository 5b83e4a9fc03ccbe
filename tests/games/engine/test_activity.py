"""违规判定 by activity: posts per discussion day, votes, quiet runs, and 加速/延时."""

from __future__ import annotations

from collections.abc import Set
from datetime import UTC, datetime

import pytest

from games.engine.activity import (
    DELAY,
    DELAYED,
    NORMAL,
    SPED_UP,
    SPEED_UP,
    DayActivity,
    PaceKindNotAllowed,
    PaceRequest,
    cutoff,
    decide,
    needed,
    pace_check,
    proposals,
    request_kind,
)
from games.engine.cards import penalty_rules

R099 = penalty_rules("arknights_099")
R096 = penalty_rules("conan_096")
R256 = penalty_rules("islington_256")
R061 = penalty_rules("lin_feng_061")
CAST = frozenset({1, 2, 3})


def day(n: int, posts: dict[int, int], *, sped_up: bool = False, voted: Set[int] | None = None,
        required: frozenset[int] = CAST) -> DayActivity:  # fmt: skip
    return DayActivity(n, sped_up, required, posts, None if voted is None else frozenset(voted))


def reasons(found: list) -> list[tuple[int, str]]:
    return [(p.character, p.reason) for p in found]


def test_256_fewer_than_one_post_is_a_yellow() -> None:
    found = proposals(R256, [day(1, {1: 1, 2: 0, 3: 7})])
    assert reasons(found) == [(2, "posts")]
    assert found[0].color == "yellow"
    assert found[0].facts == {"posts": 0, "sped_up": False, "min_posts": 1}


def test_256_does_not_ask_for_votes() -> None:
    assert proposals(R256, [day(2, {1: 1, 2: 1, 3: 1}, voted=set())]) == []


def test_099_four_posts_is_a_yellow_five_is_not() -> None:
    found = proposals(R099, [day(1, {1: 4, 2: 5, 3: 12}, voted={1, 2, 3})])
    assert reasons(found) == [(1, "5.1")]


def test_099_no_vote_is_a_yellow() -> None:
    found = proposals(R099, [day(1, {1: 5, 2: 5, 3: 5}, voted={1, 3})])
    assert reasons(found) == [(2, "5.2")]
    assert found[0].facts["voted"] is False


def test_096_has_no_vote_rule() -> None:
    assert proposals(R096, [day(2, {1: 5, 2: 5, 3: 5}, voted=set())]) == []


def test_061_no_reply_in_the_vote_thread_is_a_yellow_and_posts_are_free() -> None:
    found = proposals(R061, [day(1, {1: 0, 2: 0, 3: 0}, voted={1, 2})])
    assert reasons(found) == [(3, "vote")]


def test_a_day_without_a_vote_thread_checks_no_votes() -> None:
    assert proposals(R099, [day(1, {1: 5, 2: 5, 3: 5}, voted=None)]) == []


def test_sped_up_day_proposes_nothing() -> None:
    quiet = day(1, {}, sped_up=True, voted=set())
    assert proposals(R099, [quiet]) == []
    assert proposals(R256, [quiet]) == []


def test_only_required_characters_are_checked() -> None:
    # 3 was out (or idle) that day
    found = proposals(R099, [day(1, {1: 6}, required=frozenset({1, 3}) - {3}, voted={1})])
    assert found == []


def test_three_consecutive_days_under_ten_is_a_yellow() -> None:
    days = [day(n, {1: 9, 2: 10, 3: 20}, voted=CAST) for n in (1, 2, 3)]
    assert reasons(proposals(R099, days[:2])) == []
    found = proposals(R099, days)
    assert reasons(found) == [(1, "5.1")]
    assert found[0].facts["streak"] == [9, 9, 9]
    assert found[0].facts["under"] == 10


def test_096_streak_has_its_own_entry() -> None:
    days = [day(n, {1: 6, 2: 10, 3: 10}) for n in (1, 2, 3)]
    assert reasons(proposals(R096, days)) == [(1, "5.2")]


def test_a_streak_and_a_day_under_five_are_two_cards() -> None:
    days = [
        day(1, {1: 9, 2: 10, 3: 10}),
        day(2, {1: 9, 2: 10, 3: 10}),
        day(3, {1: 3, 2: 10, 3: 10}),
    ]
    assert reasons(proposals(R096, days)) == [(1, "5.1"), (1, "5.2")]


def test_a_sped_up_day_breaks_the_streak() -> None:
    days = [day(1, {1: 9}), day(2, {1: 9}, sped_up=True), day(3, {1: 9}), day(4, {1: 9})]
    assert (1, "5.2") not in reasons(proposals(R096, days))
    assert (1, "5.2") in reasons(proposals(R096, [*days, day(5, {1: 9})]))


def test_a_carded_streak_starts_over() -> None:
    days = [day(n, {1: 7, 2: 10, 3: 10}) for n in range(1, 7)]
    fired = [n for n in range(1, 7) if (1, "5.2") in reasons(proposals(R096, days[:n]))]
    assert fired == [3, 6]


def test_a_missing_day_breaks_the_streak() -> None:
    days = [day(1, {1: 9}), day(2, {1: 9}), day(4, {1: 9})]
    assert (1, "5.2") not in reasons(proposals(R096, days))


def test_a_day_out_of_the_game_breaks_the_streak() -> None:
    days = [day(1, {1: 9}), day(2, {}, required=frozenset({2, 3})), day(3, {1: 9})]
    assert (1, "5.2") not in reasons(proposals(R096, days))


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("申请加速", SPEED_UP),
        ("我 申请 加速！", SPEED_UP),
        ("同意加速+1", SPEED_UP),
        ("申请延时，周末有事", DELAY),
        ("申请延迟", DELAY),
        ("不同意加速", None),
        ("加速吧", None),
        ("申请加速 申请延时", None),
        ("今天天气不错", None),
    ],
)
def test_request_kind(text: str, kind: str | None) -> None:
    assert request_kind(text, R061.pace) == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("申请加速", SPEED_UP),
        ("申请延时，周末有事", None),  # 099 has no 延时: not a request
        ("申请延迟", None),
        ("同意加速，不过也可以申请延时", SPEED_UP),  # only the 加速 is a request here
    ],
)
def test_099_reads_only_speed_up_requests(text: str, kind: str | None) -> None:
    assert request_kind(text, R099.pace) == kind


def test_pace_check_refuses_a_kind_the_rules_lack() -> None:
    assert pace_check(SPEED_UP, R099.pace) == SPEED_UP
    assert pace_check(DELAY, R061.pace) == DELAY
    with pytest.raises(PaceKindNotAllowed) as refused:
        pace_check(DELAY, R099.pace)
    assert refused.value.code == "pace_kind_not_allowed"
    assert refused.value.text == "本场规则没有延时申请，只能申请加速。"
    assert refused.value.detail == {"kind": DELAY, "allowed": [SPEED_UP]}


CLOSE = datetime(2026, 11, 3, 13, 0, tzinfo=UTC)  # 21:00 北京时间


def test_cutoff_is_three_hours_before_the_close() -> None:
    assert cutoff(CLOSE, R061.pace) == datetime(2026, 11, 3, 10, 0, tzinfo=UTC)


def test_099_counts_requests_until_the_close() -> None:
    assert cutoff(CLOSE, R099.pace) == CLOSE
    last_second = datetime(2026, 11, 3, 12, 59, 59, tzinfo=UTC)
    requests = [ask(c, SPEED_UP, 9) for c in range(1, 6)] + [PaceRequest(6, SPEED_UP, last_second)]
    decision = decide(requests, LIVING, cutoff(CLOSE, R099.pace), R099.pace)
    assert (decision.pace, decision.since) == (SPED_UP, last_second)
    at_close = [*requests[:5], PaceRequest(6, SPEED_UP, CLOSE)]
    assert decide(at_close, LIVING, cutoff(CLOSE, R099.pace), R099.pace).pace == NORMAL


def test_099_delay_requests_count_for_nothing() -> None:
    requests = [ask(c, SPEED_UP, 8) for c in range(1, 7)] + [ask(c, DELAY, 8) for c in LIVING]
    decision = decide(requests, LIVING, cutoff(CLOSE, R099.pace), R099.pace)
    assert decision.pace == SPED_UP  # no 延时 quorum overrides it
    assert decision.delay == ()


def test_061_half_is_enough_099_needs_more_than_half() -> None:
    assert needed(10, R061.pace) == 5  # 大于等于存活人数的一半
    assert needed(9, R061.pace) == 5
    assert needed(10, R099.pace) == 6  # 过半数
    assert needed(9, R099.pace) == 5


def ask(character: int, kind: str, hour: int) -> PaceRequest:
    return PaceRequest(character, kind, datetime(2026, 11, 3, hour, 0, tzinfo=UTC))  # type: ignore[arg-type]


LIVING = frozenset(range(1, 11))


def test_speed_up_granted_by_half_before_the_cutoff() -> None:
    deadline = cutoff(CLOSE, R061.pace)
    requests = [ask(c, SPEED_UP, 9) for c in (1, 2, 3, 4, 5)]
    decision = decide(requests, LIVING, deadline, R061.pace)
    assert decision.pace == SPED_UP
    assert decision.speed_up == (1, 2, 3, 4, 5)
    assert (decision.living, decision.needed) == (10, 5)


def test_requests_after_the_cutoff_do_not_count() -> None:
    deadline = cutoff(CLOSE, R061.pace)
    requests = [ask(c, SPEED_UP, 9) for c in (1, 2, 3, 4)] + [ask(5, SPEED_UP, 10)]
    assert decide(requests, LIVING, deadline, R061.pace).pace == NORMAL


def test_dead_askers_and_repeats_do_not_count() -> None:
    deadline = cutoff(CLOSE, R061.pace)
    requests = [ask(1, SPEED_UP, 8), ask(1, SPEED_UP, 9), ask(11, SPEED_UP, 8)]
    requests += [ask(c, SPEED_UP, 8) for c in (2, 3, 4)]
    decision = decide(requests, LIVING, deadline, R061.pace)
    assert decision.speed_up == (1, 2, 3, 4)
    assert decision.pace == NORMAL


def test_delay_wins_over_speed_up() -> None:
    deadline = cutoff(CLOSE, R061.pace)
    requests = [ask(c, SPEED_UP, 8) for c in range(1, 6)] + [ask(c, DELAY, 8) for c in range(6, 11)]
    assert decide(requests, LIVING, deadline, R061.pace).pace == DELAYED


def test_the_pace_holds_since_the_request_that_completed_the_quorum() -> None:
    deadline = cutoff(CLOSE, R099.pace)
    hours = {1: 2, 2: 5, 3: 3, 4: 7, 5: 4, 6: 6}  # character: hour asked
    requests = [ask(c, SPEED_UP, h) for c, h in hours.items()]
    decision = decide(requests, LIVING, deadline, R099.pace)  # needs 6 of 10
    assert decision.pace == SPED_UP
    assert decision.since == datetime(2026, 11, 3, 7, 0, tzinfo=UTC)
    assert decide(requests[:5], LIVING, deadline, R099.pace).since is None
