"""[061] 林峰's days in the shell (RULINGS [061] 1 and 14): two natural days closing 21:00 of
the second, one more when the span touches a weekend; a granted 加速 makes the following days one
natural day each, a 延时 adds one and ends the 加速. The calendar the director sees, the
scheduler's transitions (each once), the ballots' 执行加速时不允许改票 and the cards follow.

The game's day 1 opens on Monday 2026-11-02 (北京时间)."""

from __future__ import annotations

import datetime as dt
from typing import Any
from unittest import mock

import pytest

from games import ballots, card_selectors, selectors, services
from games import card_services as cs
from games.models import (
    Character,
    DayPace,
    Event,
    ForumThread,
    Game,
    TimetableOverride,
    TransitionRecord,
)
from tests.conftest import bj
from tests.games.test_cards import NAMES, cards, post, thread

pytestmark = pytest.mark.django_db

MONDAY = dt.date(2026, 11, 2)


def lin_feng() -> Game:
    game = services.game_create(
        kind="werewolf",
        ruleset="lin_feng_061",
        number="061",
        title="林峰",
        start_date=MONDAY,
        status="running",
    )
    Character.objects.bulk_create(
        Character(game=game, name=n, forum_uid=str(100 + i)) for i, n in enumerate(NAMES)
    )
    return game


def run(now: dt.datetime) -> list[tuple[int, str]]:
    return [(day, kind) for _game, day, kind in services.transitions_run_due(now=now)]


def at_phase(game: Game) -> tuple[int, str]:
    game.refresh_from_db()
    return game.day, game.phase


def closed_at(game: Game, day: int) -> dt.datetime | None:
    record = TransitionRecord.objects.get(game=game, day=day, kind="day_close")
    return record.due_at


def ask(game: Game, day: int, when: dt.datetime, words: str, names: tuple[str, ...]) -> None:
    progress = thread(game, day, "progress")
    for name in names:
        post(progress, name, when, words)


def calendar_row(game: Game, day: int) -> selectors.CalendarDay:
    game.refresh_from_db()
    return selectors.game_calendar(game=game)[day - 1]


def test_061_days_are_two_natural_days_plus_one_for_a_weekend() -> None:
    game = lin_feng()
    days = selectors.game_calendar(game=game)
    assert len(days) == 10  # the ruleset's usual length, shown before the start
    assert days[0].dates == "11月2日（周一） 至 11月3日（周二）"
    assert ("关门", "11月3日 21:00") in days[0].steps
    assert days[2].dates == "11月6日（周五） 至 11月8日（周日）"  # 周五、周六 + 周日
    assert run(bj(3, 20, 59)) == [(1, "day_open")]
    assert run(bj(3, 21, 0)) == [(1, "day_close"), (1, "night_open")]
    assert closed_at(game, 1) == bj(3, 21)


def test_061_speed_up_on_day_2_makes_day_3_one_natural_day_and_the_scheduler_follows() -> None:
    game = lin_feng()
    run(bj(4, 0, 1))
    assert at_phase(game) == (2, "day")
    assert calendar_row(game, 3).dates == "11月6日（周五） 至 11月8日（周日）"
    ask(game, 2, bj(5, 10), "申请加速", ("阿米娅", "陈"))  # 2 of 4: at least half
    assert cs.paces_update(now=bj(5, 11)) == 1
    # the day it was granted on keeps its dates; the calendar shows the shorter days at once
    day2, day3, day4 = (calendar_row(game, d) for d in (2, 3, 4))
    assert day2.dates == "11月4日（周三） 至 11月5日（周四）"
    assert (day3.dates, day3.pace) == ("11月6日（周五）", "加速：一个自然日")
    assert ("关门", "11月6日 21:00") in day3.steps
    assert day4.dates == "11月7日（周六）"  # no weekend day under 加速
    public = Event.objects.get(game=game, kind="pace", audience="public")
    sentence = "自第 3 天起每个讨论日只有一个自然日（第 3 天于 11月6日 21:00 关门）"
    assert sentence in public.payload["text"]

    assert run(bj(6, 21, 0)) == [
        (2, "day_close"), (2, "night_open"), (2, "night_end"), (2, "night_close"),
        (3, "day_open"), (3, "day_close"), (3, "night_open"),
    ]  # fmt: skip
    assert closed_at(game, 3) == bj(6, 21)  # 周五 21:00, the day it opened
    assert run(bj(6, 21, 0)) == []  # each transition once
    assert TransitionRecord.objects.filter(game=game, day=3, kind="day_close").count() == 1
    run(bj(7, 0, 1))
    assert at_phase(game) == (4, "day")  # 周六
    # 执行加速时，所有人不可改票: from the grant on day 2, from the open of day 3
    assert ballots.ballot_day(game=game, day=2).sped_up_at == bj(5, 10)
    assert ballots.ballot_day(game=game, day=3).sped_up_at == bj(6, 0)
    assert ballots.ballot_day(game=game, day=4).sped_up_at == bj(7, 0)


def test_061_delay_on_day_4_adds_a_natural_day_and_ends_the_speed_up(director: Any) -> None:
    game = lin_feng()
    run(bj(4, 0, 1))
    cs.pace_set(game=game, day=2, pace="sped_up", director=director, reason="存活人数少")
    run(bj(7, 0, 1))
    assert at_phase(game) == (4, "day")  # 周六, one natural day
    assert calendar_row(game, 4).dates == "11月7日（周六）"
    ask(game, 4, bj(7, 15), "申请延时", ("能天使", "德克萨斯"))
    assert cs.paces_update(now=bj(7, 15, 5)) == 1
    assert DayPace.objects.get(game=game, day=4).pace == "delayed"
    delay = Event.objects.filter(game=game, kind="pace", audience="public").last()
    assert delay is not None
    assert delay.payload["text"] == (
        "延时成功：第 4 天延长一个自然日，于 11月8日 21:00 关门；不再视为“执行加速”状态。"
    )
    day4, day5 = calendar_row(game, 4), calendar_row(game, 5)
    assert (day4.dates, day4.pace) == ("11月7日（周六） 至 11月8日（周日）", "延时：多一个自然日")
    assert day5.dates == "11月9日（周一） 至 11月10日（周二）"  # 加速 over: two days again
    assert day5.pace == ""
    assert run(bj(7, 21, 1)) == []  # the old close passes by
    assert run(bj(8, 21, 0)) == [(4, "day_close"), (4, "night_open")]
    assert closed_at(game, 4) == bj(8, 21)
    # the 延时 ended 执行加速 during day 4: changes before it were refused, after it allowed
    day = ballots.ballot_day(game=game, day=4)
    assert (day.sped_up_at, day.sped_up_until) == (bj(7, 0), bj(7, 15))
    assert ballots.ballot_day(game=game, day=5).sped_up_at is None


def test_061_a_delay_the_periodic_task_missed_is_settled_before_the_close_runs() -> None:
    game = lin_feng()
    run(bj(2, 0, 1))
    ask(game, 1, bj(3, 17, 59), "申请延时", ("阿米娅", "陈"))  # before the 18:00 cut-off
    assert run(bj(3, 21, 1)) == []  # the close that was due moved to 周三 21:00
    assert at_phase(game) == (1, "day")
    assert DayPace.objects.get(game=game, day=1).pace == "delayed"
    assert not TransitionRecord.objects.filter(game=game, kind="day_close").exists()
    assert run(bj(4, 21, 1)) == [(1, "day_close"), (1, "night_open")]
    assert closed_at(game, 1) == bj(4, 21)
    assert run(bj(4, 21, 2)) == []


def test_061_the_director_executes_the_speed_up_with_a_reason(director: Any) -> None:
    game = lin_feng()
    run(bj(2, 9))
    with pytest.raises(Exception, match="理由"):
        cs.pace_speed_up(game=game, director=director, reason=" ")
    assert cs.pace_speed_up(game=game, director=director, reason="未出局角色只剩四人") == 1
    pace = DayPace.objects.get(game=game, day=1)
    assert (pace.pace, pace.director, pace.reason) == ("sped_up", director, "未出局角色只剩四人")
    event = Event.objects.get(game=game, kind="pace", audience="public")
    assert event.reason == "未出局角色只剩四人"
    assert event.payload["text"].startswith(
        "执行加速：所有人不可改票，发言不足或未投票者将不被判罚"
    )
    assert calendar_row(game, 1).dates == "11月2日（周一） 至 11月3日（周二）"
    assert calendar_row(game, 2).dates == "11月4日（周三）"
    with pytest.raises(cs.AlreadySpedUp):
        cs.pace_speed_up(game=game, director=director, reason="再来一次")
    run(bj(4, 0, 1))
    assert at_phase(game) == (2, "day")
    with pytest.raises(cs.AlreadySpedUp):  # carried over to day 2
        cs.pace_speed_up(game=game, director=director, reason="再来一次")


def test_061_a_pace_may_not_move_a_day_already_closed_or_past(director: Any) -> None:
    game = lin_feng()
    run(bj(3, 21, 1))
    assert at_phase(game) == (1, "night")
    with pytest.raises(cs.PaceMovesHeldDay) as refused:
        cs.pace_set(game=game, day=1, pace="delayed", director=director, reason="晚了")
    assert refused.value.code == "pace_moves_held_day"
    assert "第1天" in refused.value.text
    # a 加速 during the night shortens only the days after it
    cs.pace_set(game=game, day=1, pace="sped_up", director=director, reason="存活人数少")
    assert calendar_row(game, 2).dates == "11月4日（周三）"
    run(bj(4, 0, 1))
    with pytest.raises(cs.PaceMovesHeldDay):  # a past day's 延时 would move the days after it
        cs.pace_set(game=game, day=1, pace="delayed", director=director, reason="补延时")
    assert DayPace.objects.get(game=game, day=1).pace == "sped_up"
    # today's close may still move: the director's 正常 gives day 2 its two natural days back
    cs.pace_set(game=game, day=1, pace="normal", director=director, reason="改回")
    assert calendar_row(game, 2).dates == "11月4日（周三） 至 11月5日（周四）"


def test_061_a_carried_speed_up_refuses_changes_of_vote_and_spares_the_non_voters(
    director: Any,
) -> None:
    game = lin_feng()
    run(bj(2, 0, 1))
    cs.pace_set(game=game, day=1, pace="sped_up", director=director, reason="存活人数少")
    run(bj(4, 0, 1))
    assert at_phase(game) == (2, "day")  # 周三, one natural day under the carried 加速
    talk, vote = thread(game, 2, "discussion"), thread(game, 2, "vote")
    post(talk, "阿米娅", bj(4, 9))
    first = post(vote, "阿米娅", bj(4, 10), "投票对象：陈\n投票理由：发言太少")
    post(vote, "陈", bj(4, 10), "投票对象：阿米娅\n投票理由：太吵")
    post(
        vote, "阿米娅", bj(4, 11), "改票对象：能天使\n改票理由：再想想", reply_to=first.external_id
    )
    tally = ballots.ballot_tally(game=game, day=2)
    refused = {v.reason.code for v in tally.verdicts if v.reason is not None}
    assert "change_sped_up" in refused
    run(bj(4, 21, 1))
    assert closed_at(game, 2) == bj(4, 21)
    assert cards(game) == []  # 能天使、德克萨斯 did not vote: 不被判罚 under 加速


def test_061_after_a_delay_the_voters_are_asked_again() -> None:
    game = lin_feng()
    run(bj(2, 0, 1))
    talk, vote = thread(game, 1, "discussion"), thread(game, 1, "vote")
    post(talk, "阿米娅", bj(2, 9))
    for name in ("阿米娅", "陈", "能天使"):
        post(vote, name, bj(2, 10), "投票对象：德克萨斯\n投票理由：不说话")
    ask(game, 1, bj(2, 12), "申请延时", ("阿米娅", "陈"))
    run(bj(4, 21, 1))
    assert closed_at(game, 1) == bj(4, 21)
    assert cards(game) == [("德克萨斯", "yellow", "vote", "proposed")]
    assert ForumThread.objects.filter(game=game, day=1).count() == 3


def test_061_the_prepare_page_shows_the_calendar_and_executes_the_speed_up(
    director: Any, director_client: Any
) -> None:
    game = lin_feng()
    game.directors.add(director)
    url = f"/admin/games/game/{game.pk}/prepare/"
    page = director_client.get(url).content.decode()
    assert 'value="speed_up"' in page
    assert "11月6日（周五） 至 11月8日（周日）" in page
    director_client.post(url, {"op": "speed_up", "speed-reason": ""})
    assert not DayPace.objects.filter(game=game).exists()
    run(bj(2, 9))
    director_client.post(url, {"op": "speed_up", "speed-reason": "未出局角色只剩四人"})
    assert DayPace.objects.get(game=game, day=1).reason == "未出局角色只剩四人"
    page = director_client.get(url).content.decode()
    assert "执行加速中" in page
    assert "11月4日（周三）</td>" not in page  # the row carries its pace note
    assert "11月4日（周三）<br><small" in page
    assert "加速：一个自然日" in page


def test_061_players_and_the_day_page_see_a_carried_speed_up(
    director: Any, director_client: Any
) -> None:
    game = lin_feng()
    game.directors.add(director)
    run(bj(2, 0, 1))
    cs.pace_set(game=game, day=1, pace="sped_up", director=director, reason="存活人数少")
    run(bj(4, 0, 1))
    game.refresh_from_db()
    me = Character.objects.get(game=game, name="陈")
    seen = card_selectors.pace_for_player(game=game, character=me, now=bj(4, 9))
    assert seen is not None
    assert (seen.day, seen.pace) == (2, "sped_up")
    assert seen.cutoff == bj(4, 18)  # 3 hours before 周三 21:00
    page = director_client.get(f"/admin/games/card/game/{game.pk}/day/2/").content.decode()
    assert "执行加速（沿用前一天的加速，自 11-04 00:00 起）" in page


def test_061_a_close_the_director_moved_keeps_its_hour_on_the_delayed_day(director: Any) -> None:
    game = lin_feng()
    run(bj(2, 0, 1))
    with mock.patch("django.utils.timezone.now", return_value=bj(2, 9)):
        services.day_close_move(
            game=game, day=1, at=bj(3, 20), director=director, reason="提前一小时"
        )
    ask(game, 1, bj(3, 9), "申请延时", ("阿米娅", "陈"))  # before 17:00, 3 hours before 20:00
    assert cs.paces_update(now=bj(3, 10)) == 1
    assert TimetableOverride.objects.get(game=game, day=1).at == bj(4, 20)
    assert run(bj(3, 20, 1)) == []
    assert run(bj(4, 20, 0)) == [(1, "day_close")]
    assert closed_at(game, 1) == bj(4, 20)
    assert calendar_row(game, 2).dates == "11月5日（周四） 至 11月6日（周五）"  # no empty date
