"""A [061] vote thread on the local forum, synced and stored, to the director's tally page; the
tally posted back to the thread and published once the day has closed."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from games import ballots, forum_services, services
from games.models import (
    Announcement,
    Character,
    DirectorForumAccount,
    Event,
    ForumSite,
    ForumThread,
    Game,
    TransitionRecord,
    VoteAlias,
)
from tests.conftest import on_forum
from tests.games.forum.fake_forum import BJ, PASSWORD, FakeForum

pytestmark = pytest.mark.django_db

DIRECTOR = "[061]导演B"
CLOSE = dt.datetime(2018, 10, 30, 21, 0, tzinfo=BJ)  # day 2's close


def day2(hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2018, 10, 30, hour, minute, tzinfo=BJ)


@pytest.fixture
def game(director: Any, fake_forum: FakeForum) -> Game:
    """[061] on day 2; 馄饨 is out; everyone plays under the character's name."""
    game = services.game_create(
        kind="werewolf",
        ruleset="lin_feng_061",
        number="061",
        title="林峰",
        start_date=dt.date(2018, 10, 29),
        status="running",
    )
    # Days of one date, as in these posts' dates ([061]'s two-date default is tested apart).
    Game.objects.filter(pk=game.pk).update(day=2, phase="day", day_span=1, weekend_extra=False)
    game.refresh_from_db()
    game.directors.add(director)
    for name in ("饺子", "包子", "饺子皮", "馄饨", "春卷"):
        Character.objects.create(game=game, name=name, forum_username=name)
    Character.objects.filter(game=game, name="馄饨").update(status="eliminated")
    on_forum(game, fake_forum.base_url, username=DIRECTOR, password=PASSWORD, posting_enabled=True)
    DirectorForumAccount.objects.create(game=game, forum_username=DIRECTOR)
    VoteAlias.objects.create(game=game, alias="皮皮", character=game.characters.get(name="饺子皮"))
    return game


@pytest.fixture
def thread(game: Game, fake_forum: FakeForum) -> ForumThread:
    """The day's vote thread as the players wrote it, synced and stored."""
    f = fake_forum
    topic = f.thread("[061] 第2天 投票帖")
    tid = topic.tid
    f.post(tid, DIRECTOR, "投票格式：<br />投票对象：饺子<br />投票理由：饺子好吃", at=day2(0, 5))
    first = f.post(tid, "包子", "投票对象：饺子皮<br />投票理由：皮薄", at=day2(10))
    own = f.post(tid, "饺子皮", "投票对象:饺子<br />投票理由:半角冒号", at=day2(10, 30))
    f.post(tid, "春卷", f.quote(first) + "我也觉得有道理", at=day2(11))
    f.post(tid, "饺子", "投票对象：皮皮 投票理由：导演加的别名", at=day2(12))
    f.post(tid, DIRECTOR, "代投：春卷<br />投票对象：饺子", at=day2(19))
    f.post(
        tid, "包子", f.reply_header(first) + "改票对象：饺子<br />改票理由：想通了", at=day2(19, 30)
    )
    f.post(
        tid, "包子", f.reply_header(first) + "改票对象：春卷<br />改票理由：再改", at=day2(19, 45)
    )
    f.post(
        tid, "饺子皮", f.reply_header(own) + "改票对象：包子<br />改票理由：晚了", at=day2(20, 1)
    )
    f.post(tid, "馄饨", "投票对象：饺子<br />投票理由：诈尸", at=day2(20, 10))
    f.post(tid, "包子", "投票对象：饺子<br />投票理由：关门以后", at=day2(21, 1))
    thread = ForumThread.objects.create(game=game, day=2, kind="vote", external_id=str(tid))
    forum_services.forum_thread_sync(thread=thread)
    return thread


def page(game: Game) -> str:
    return f"/admin/games/votealias/tally/{game.pk}/2/"


def test_the_stored_posts_tally_as_the_rules_say(game: Game, thread: ForumThread) -> None:
    tally = ballots.ballot_tally(game=game, day=2)
    why = {v.floor: (v.counted, v.reason.code if v.reason else None) for v in tally.verdicts}
    assert why == {
        1: (False, "director_post"),
        2: (False, "changed"),
        3: (True, None),
        4: (False, "not_ballot"),  # the quoted ballot is not 春卷's
        5: (True, None),
        6: (True, None),
        7: (True, None),
        8: (False, "second_change"),
        9: (False, "change_late"),  # 59 minutes before the close
        10: (False, "voter_out"),
        11: (False, "after_close"),
    }
    proxy = next(v for v in tally.verdicts if v.floor == 6)
    assert (proxy.proxy, tally.names[proxy.voter or 0], proxy.at) == (True, "春卷", day2(19))
    assert [(tally.names[t.character], t.votes) for t in tally.totals] == [
        ("饺子", 3),
        ("饺子皮", 1),
    ]
    assert tally.outcome.text == "最高票：饺子"
    assert tally.not_voted == ()


def test_the_director_sees_every_post_counted_or_why_not(
    director_client: Client, game: Game, thread: ForumThread
) -> None:
    response = director_client.get(page(game))
    assert response.status_code == 200
    rows = {r["v"].floor: r for r in response.context["rows"]}
    assert (rows[7]["kind"], rows[7]["voter"], rows[7]["target"]) == ("改票", "包子", "饺子")
    assert rows[6]["author"] == DIRECTOR
    html = response.content.decode()
    for shown in (
        "最高票：饺子",
        "关门前60分钟内不允许改票",
        "改票只允许一次",
        "投票人已出局",
        "关门后发帖",
        "导演发帖（不是代投）",
        "导演代投",
        "10-30 19:00:00",
    ):
        assert shown in html, shown
    assert [t["name"] for t in response.context["totals"]] == ["饺子", "饺子皮"]

    latest = director_client.get(f"/admin/games/votealias/tally/{game.pk}/")
    assert latest.context["day"] == 2
    change = director_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert "第 2 天投票帖统计" in change
    assert "最高票：饺子" in change


def test_another_directors_game_is_not_shown(
    django_user_model: Any, game: Game, thread: ForumThread
) -> None:
    other = django_user_model.objects.create_user("other", password="pw-123456789", is_staff=True)
    client = Client()
    client.force_login(other)
    assert client.get(page(game)).status_code == 404


def test_publishing_announces_the_result_once(
    director_client: Client, game: Game, thread: ForumThread
) -> None:
    response = director_client.post(page(game) + "publish/", follow=True)
    assert "投票结果已公示" in response.content.decode()
    announcement = Announcement.objects.get(game=game, day=2)
    assert announcement.status == "published"
    assert announcement.body.splitlines()[:2] == ["【第2天投票结果】", "最高票：饺子"]
    assert "6楼 春卷 → 饺子（导演代投，10-30 19:00）" in announcement.body
    assert "9楼 饺子皮：关门前60分钟内不允许改票" in announcement.body
    public = Event.objects.get(game=game, kind="announcement")
    assert (public.audience, public.payload["body"]) == ("public", announcement.body)
    tally = Event.objects.get(game=game, kind="ballot_tally")
    assert tally.audience == "directors"
    assert tally.payload["outcome"]["name"] == "饺子"
    assert len(tally.payload["posts"]) == 11

    again = director_client.post(page(game) + "publish/", follow=True)
    assert "已经公示" in again.content.decode()
    assert Announcement.objects.filter(game=game).count() == 1


def test_the_tally_is_posted_back_to_the_vote_thread(
    director_client: Client, game: Game, thread: ForumThread, fake_forum: FakeForum
) -> None:
    response = director_client.post(page(game) + "post/", follow=True)
    assert "已回帖到投票帖" in response.content.decode()
    reply = fake_forum.threads[int(thread.external_id)].posts[-1]
    assert reply.author == DIRECTOR
    assert "【第2天投票结果】" in reply.message
    logged = Event.objects.get(game=game, kind="ballot_tally_posted")
    assert logged.payload["post"] == str(reply.pid)

    # The reply comes back with the next sync and is no ballot.
    forum_services.forum_thread_sync(thread=thread)
    after = ballots.ballot_tally(game=game, day=2)
    assert (after.verdicts[-1].floor, after.verdicts[-1].kind) == (12, "none")
    assert after.outcome.text == "最高票：饺子"


def test_posting_back_when_posting_is_off_says_so_and_posts_nothing(
    director_client: Client, game: Game, thread: ForumThread, fake_forum: FakeForum
) -> None:
    ForumSite.objects.filter(game=game).update(posting_enabled=False)
    floors = len(fake_forum.threads[int(thread.external_id)].posts)
    response = director_client.post(page(game) + "post/", follow=True)
    assert "本站未开启向该论坛回帖" in response.content.decode()
    assert len(fake_forum.threads[int(thread.external_id)].posts) == floors
    assert not Event.objects.filter(game=game, kind="ballot_tally_posted").exists()


def test_a_day_without_a_vote_thread_says_so(director_client: Client, game: Game) -> None:
    response = director_client.get(f"/admin/games/votealias/tally/{game.pk}/3/")
    assert response.status_code == 200
    assert "这一天还没有登记投票帖" in response.content.decode()


def test_the_closed_days_tally_is_published_once_the_thread_is_synced_past_the_close(
    game: Game, thread: ForumThread
) -> None:
    now = timezone.now()
    assert ballots.ballots_publish_due(now=now) == []  # the day has not closed
    TransitionRecord.objects.create(game=game, day=2, kind="day_close", due_at=CLOSE, done_at=now)
    ForumThread.objects.filter(pk=thread.pk).update(last_synced_at=CLOSE - dt.timedelta(seconds=30))
    assert ballots.ballots_publish_due(now=now) == []  # posts of the last half minute unseen
    ForumThread.objects.filter(pk=thread.pk).update(last_synced_at=CLOSE + dt.timedelta(seconds=5))

    assert ballots.ballots_publish_due(now=now) == [(game.pk, 2)]
    assert ballots.ballots_publish_due(now=now) == []
    assert Announcement.objects.get(game=game, day=2).title == "第2天投票结果"


def test_an_alias_must_not_be_another_characters_name(director_client: Client, game: Game) -> None:
    response = director_client.post(
        "/admin/games/votealias/add/",
        {"game": game.pk, "alias": "包子", "character": game.characters.get(name="饺子").pk},
    )
    assert response.status_code == 200
    assert "别名不能是另一名角色的名字" in response.content.decode()
    assert VoteAlias.objects.filter(game=game).count() == 1
