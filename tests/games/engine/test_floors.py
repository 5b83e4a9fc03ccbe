"""电梯楼, and [061]'s 遗言字数, 抢楼 and 过度水贴."""

from __future__ import annotations

import random

from games.engine.cards import FloodRules, penalty_rules
from games.engine.floors import (
    ElevatorRow,
    FloodRun,
    Floor,
    elevator_order,
    elevator_text,
    last_words_length,
    prize_floor,
    prize_post,
)
from games.engine.floors import flood_runs as runs_of

ROWS = [
    ElevatorRow(3, "丙", "303", "bing"),
    ElevatorRow(1, "甲", "101", "jia"),
    ElevatorRow(2, "乙", "", ""),
]


def test_elevator_in_sign_up_order() -> None:
    order = elevator_order(ROWS, random.Random(1), shuffle=False)
    assert [r.name for r in order] == ["甲", "乙", "丙"]


def test_096_elevator_in_an_order_drawn_from_the_seed() -> None:
    assert penalty_rules("conan_096").elevator_random
    assert not penalty_rules("arknights_099").elevator_random
    rows = [ElevatorRow(i, f"角色{i}", str(i), "") for i in range(1, 21)]
    first = elevator_order(rows, random.Random(7), shuffle=True)
    again = elevator_order(list(reversed(rows)), random.Random(7), shuffle=True)
    assert first == again  # the same seed, the same order, whatever order the rows came in
    assert [r.character for r in first] != list(range(1, 21))
    assert sorted(r.character for r in first) == list(range(1, 21))


def test_elevator_text_links_each_character_to_only_its_posts() -> None:
    order = elevator_order(ROWS, random.Random(1), shuffle=False)
    text, missing = elevator_text(
        order, day=2, site_kind="discuz", base_url="http://www.mistytown.cn/", thread="4321"
    )
    assert text.splitlines() == [
        "第2天 电梯楼（点击角色名，只看该角色当天的全部发言）",
        "[url=http://www.mistytown.cn/forum.php?mod=viewthread&tid=4321&authorid=101]甲[/url]",
        "乙",
        "[url=http://www.mistytown.cn/forum.php?mod=viewthread&tid=4321&authorid=303]丙[/url]",
    ]
    assert missing == ["乙"]


def test_elevator_text_on_discourse_filters_by_username() -> None:
    text, missing = elevator_text(
        ROWS[:1], day=1, site_kind="discourse", base_url="https://f.example", thread="77"
    )
    assert text.splitlines()[1] == "[丙](https://f.example/t/77?username_filters=bing)"
    assert missing == []


def test_061_last_words_one_character_per_ten_posts() -> None:
    per = penalty_rules("lin_feng_061").last_words_per_char
    assert per == 10
    assert last_words_length(9, per) == 0  # 不足十贴出局的，没有遗言
    assert last_words_length(10, per) == 1
    assert last_words_length(57, per) == 5


def test_061_prize_floor_between_700_and_1200() -> None:
    low, high = penalty_rules("lin_feng_061").floor_prize or (0, 0)
    assert (low, high) == (700, 1200)
    floors = {prize_floor(random.Random(n), low, high) for n in range(300)}
    assert min(floors) >= 700
    assert max(floors) <= 1200
    assert len(floors) > 100
    assert prize_floor(random.Random(5), low, high) == prize_floor(random.Random(5), low, high)


def test_prize_post_is_the_floor_or_the_next_one_standing() -> None:
    floors = [Floor(n, n % 3, "x") for n in (998, 999, 1001, 1002)]
    assert prize_post(floors, 999) == Floor(999, 0, "x")
    assert prize_post(floors, 1000) == Floor(1001, 2, "x")  # 1000 was deleted
    assert prize_post(floors, 1003) is None  # not reached yet


FLOOD = FloodRules(run=10, short_chars=4)


def test_ten_floors_in_a_row_by_one_character_are_flagged() -> None:
    floors = [Floor(n, 1, "这是一段正常长度的发言") for n in range(2, 12)]
    floors.append(Floor(12, 2, "这也是一段正常长度的发言"))
    assert runs_of(floors, FLOOD) == [FloodRun(1, "streak", tuple(range(2, 12)))]
    assert runs_of(floors[1:], FLOOD) == []  # nine


def test_ten_near_empty_posts_of_one_character_are_flagged_even_interleaved() -> None:
    floors = []
    for n in range(10):
        floors.append(Floor(2 * n + 2, 1, "顶 " if n % 2 else "哈哈哈"))
        floors.append(Floor(2 * n + 3, 2, "我认为狼在 3 号和 5 号之间"))
    assert runs_of(floors, FLOOD) == [FloodRun(1, "short", tuple(range(2, 22, 2)))]


def test_a_real_post_ends_a_run_of_short_ones() -> None:
    floors = [Floor(n, 1, "顶") for n in range(2, 7)]
    floors.append(Floor(7, 1, "认真分析一下昨天的票型"))
    floors += [Floor(n, 1, "顶") for n in range(8, 13)]
    # eleven floors in a row by 1 (a streak), but no ten short ones in a row
    assert runs_of(floors, FLOOD) == [FloodRun(1, "streak", tuple(range(2, 13)))]


def test_director_and_unknown_posts_are_never_flagged() -> None:
    floors = [Floor(n, None, "顶") for n in range(2, 30)]
    assert runs_of(floors, FLOOD) == []
