"""Forum sync against the local fake forum: new floors only, authors mapped, each post once,
edits noticed, failures backed off, printable pages stored the same way."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connections
from django.db.models import F
from django.utils import timezone

from config.celery import app as celery_app
from games import forum_services, tasks
from games.errors import NoForumSite
from games.forum.errors import ForumBadPage, ForumClosed, ForumThreadNotFound, ForumUnreachable
from games.models import (
    Character,
    DirectorForumAccount,
    Event,
    ForumPost,
    ForumThread,
    Game,
    Substitute,
)
from tests.conftest import make_game, on_forum
from tests.games.forum.conftest import pages_asked
from tests.games.forum.fake_forum import BJ, FakeForum

pytestmark = pytest.mark.django_db

SEED_061 = Path("/work/shared/seeds/002_423c9e1c77293a4f.txt")


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    """A moment of game day ``day`` (day 1 is 2018-10-29, 北京时间)."""
    return dt.datetime(2018, 10, 28, hour, minute, tzinfo=BJ) + dt.timedelta(days=day)


def forum_game(forum: FakeForum, *, kind: str = "discuz", number: str = "061") -> Game:
    """A running game on the fake forum: 饺子 and 包子 play their own accounts, 导演B directs."""
    game = on_forum(
        make_game(number, characters=("饺子", "包子", "馒头")), forum.base_url, kind=kind
    )
    Character.objects.filter(game=game, name="饺子").update(forum_uid=str(forum.user("饺子")))
    Character.objects.filter(game=game, name="包子").update(forum_username="包子")
    DirectorForumAccount.objects.create(game=game, forum_username="[061]导演B")
    return game


def register(game: Game, tid: int, *, day: int = 1, kind: str = "discussion") -> ForumThread:
    return ForumThread.objects.create(game=game, day=day, kind=kind, external_id=str(tid))


def stored(thread: ForumThread) -> list[tuple[int, str, str | None, bool]]:
    """(floor, author, character name, by director) of each stored post, in floor order."""
    return [
        (p.floor, p.author, p.character.name if p.character else None, p.by_director)
        for p in ForumPost.objects.filter(thread=thread).select_related("character")
    ]


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    celery_app.conf.task_always_eager = True
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = False


# --- authors and storing once --------------------------------------------------------------


def test_a_sync_stores_every_floor_once_with_its_author_mapped(fake_forum: FakeForum) -> None:
    game = forum_game(fake_forum)
    topic = fake_forum.thread("[061] 第1天 讨论帖")
    fake_forum.post(topic.tid, "[061]导演B", "第一天讨论开始")
    fake_forum.post(topic.tid, "饺子", "饺子好吃")
    fake_forum.post(topic.tid, "包子", "包子也好吃")
    fake_forum.post(topic.tid, "饺子", "匿名说一句", anonymous=True)
    fake_forum.post(topic.tid, "路人甲", "围观")
    fake_forum.post(topic.tid, "馒头", "deleted soon")
    fake_forum.delete(topic.tid, 6)
    thread = register(game, topic.tid)

    result = forum_services.forum_thread_sync(thread=thread)

    # The deleted floor 6 is the thread's highest: the next sync starts after it.
    assert result == forum_services.SyncResult(added=5, edited=0, last_floor=6)
    assert stored(thread) == [
        (1, "[061]导演B", None, True),
        (2, "饺子", "饺子", False),  # by uid
        (3, "包子", "包子", False),  # by username
        (4, "匿名", None, False),  # anonymous: nobody's
        (5, "路人甲", None, False),  # not in the game
    ]
    post = ForumPost.objects.get(thread=thread, floor=2)
    assert (post.text, post.posted_at) == ("饺子好吃", at(1, 13, 51))
    thread.refresh_from_db()
    assert (thread.last_floor, thread.failures, thread.last_error) == (6, 0, "")
    assert thread.last_synced_at is not None

    again = forum_services.forum_thread_sync(thread=thread)
    assert again.added == 0
    assert ForumPost.objects.filter(thread=thread).count() == 5


def test_a_sync_asks_only_for_the_floors_after_the_last_one_stored(
    fake_forum: FakeForum,
) -> None:
    game = forum_game(fake_forum)
    topic = fake_forum.thread()
    fake_forum.posts(topic.tid, 250, author="饺子")
    thread = register(game, topic.tid)
    forum_services.forum_thread_sync(thread=thread)
    fake_forum.requests.clear()
    fake_forum.post(topic.tid, "包子", "新的一楼")

    result = forum_services.forum_thread_sync(thread=thread)

    assert (result.added, result.last_floor) == (1, 251)
    assert pages_asked(fake_forum) == ["3"]  # floors 201-300 only, 100 a page
    assert ForumPost.objects.get(thread=thread, floor=251).character == game.characters.get(
        name="包子"
    )


def test_a_substitute_keeps_the_character_on_the_days_it_stands_in(
    fake_forum: FakeForum,
) -> None:
    game = forum_game(fake_forum)
    baozi = game.characters.get(name="包子")
    Substitute.objects.create(
        character=baozi,
        forum_uid=str(fake_forum.user("小明")),
        forum_username="小明",
        since=dt.date(2018, 10, 30),
        until=dt.date(2018, 10, 31),
    )
    topic = fake_forum.thread()
    fake_forum.post(topic.tid, "小明", "还没接手", at=at(1, 20))
    fake_forum.post(topic.tid, "小明", "替补包子发言", at=at(2, 0, 5))
    fake_forum.post(topic.tid, "小明", "已经交还", at=at(4, 9))
    thread = register(game, topic.tid)

    forum_services.forum_thread_sync(thread=thread)

    assert [name for _, _, name, _ in stored(thread)] == [None, "包子", None]


def test_accounts_registered_after_a_sync_take_effect_at_the_next_recheck(
    fake_forum: FakeForum,
) -> None:
    game = forum_game(fake_forum)
    topic = fake_forum.thread()
    fake_forum.post(topic.tid, "馒头", "我是馒头")
    thread = register(game, topic.tid)
    forum_services.forum_thread_sync(thread=thread)
    assert stored(thread)[0][2] is None

    Character.objects.filter(game=game, name="馒头").update(forum_username="馒头")
    forum_services.forum_thread_sync(thread=thread, full=True)

    assert stored(thread)[0][2] == "馒头"


# --- edits --------------------------------------------------------------------------------


def test_an_edit_is_noticed_by_a_recheck_kept_as_the_latest_text_and_logged(
    fake_forum: FakeForum,
) -> None:
    game = forum_game(fake_forum)
    topic = fake_forum.thread("[061] 第2天 投票帖")
    fake_forum.post(topic.tid, "[061]导演B", "投票帖")
    fake_forum.post(topic.tid, "饺子", "投票对象：包子<br />投票理由：包子也好吃")
    thread = register(game, topic.tid, day=2, kind="vote")
    forum_services.forum_thread_sync(thread=thread)
    fake_forum.edit(topic.tid, 2, "投票对象：馒头<br />投票理由：馒头更好吃")

    # A normal sync asks for new floors only, so it cannot see the edit yet.
    assert forum_services.forum_thread_sync(thread=thread).edited == 0
    result = forum_services.forum_thread_sync(thread=thread, full=True)

    assert (result.added, result.edited) == (0, 1)
    post = ForumPost.objects.get(thread=thread, floor=2)
    assert post.text == "投票对象：馒头\n投票理由：馒头更好吃"
    assert post.edited_at is not None
    event = Event.objects.get(game=game, kind="forum_post_edited")
    assert event.audience == "directors"
    assert event.actor == game.characters.get(name="饺子")
    assert event.payload["before"] == "投票对象：包子\n投票理由：包子也好吃"
    assert event.payload["after"] == post.text
    assert (event.payload["day"], event.payload["thread_kind"], event.payload["floor"]) == (
        2,
        "vote",
        2,
    )
    # Read again unchanged: not a second edit.
    assert forum_services.forum_thread_sync(thread=thread, full=True).edited == 0
    assert Event.objects.filter(game=game, kind="forum_post_edited").count() == 1


def test_a_recheck_falls_due_by_itself(fake_forum: FakeForum, settings: Any) -> None:
    settings.FORUM_RECHECK_SECONDS = 600
    game = forum_game(fake_forum)
    topic = fake_forum.thread()
    fake_forum.post(topic.tid, "饺子", "原文")
    thread = register(game, topic.tid)
    first = timezone.now()
    forum_services.forum_thread_sync(thread=thread, now=first)
    fake_forum.edit(topic.tid, 1, "改过")

    soon = forum_services.forum_thread_sync(thread=thread, now=first + dt.timedelta(minutes=9))
    later = forum_services.forum_thread_sync(thread=thread, now=first + dt.timedelta(minutes=10))

    assert (soon.edited, later.edited) == (0, 1)


# --- failures ------------------------------------------------------------------------------


def test_failures_back_off_exponentially_show_the_error_and_lose_nothing(
    fake_forum: FakeForum,
) -> None:
    game = forum_game(fake_forum)
    topic = fake_forum.thread()
    fake_forum.post(topic.tid, "饺子", "第一楼")
    thread = register(game, topic.tid)
    forum_services.forum_thread_sync(thread=thread)
    now = timezone.now()

    for failures, wait in ((1, 60), (2, 120), (3, 240)):
        fake_forum.fail_next(502)
        with pytest.raises(ForumUnreachable):
            forum_services.forum_thread_sync(thread=thread, now=now)
        thread.refresh_from_db()
        assert thread.failures == failures
        assert thread.retry_at == now + dt.timedelta(seconds=wait)
        assert "HTTP 502" in thread.last_error
    assert ForumPost.objects.filter(thread=thread).count() == 1

    fake_forum.post(topic.tid, "包子", "第二楼")
    assert forum_services.forum_thread_sync(thread=thread).added == 1
    thread.refresh_from_db()
    assert (thread.failures, thread.retry_at, thread.last_error) == (0, None, "")


def test_the_back_off_stops_growing_at_an_hour(fake_forum: FakeForum) -> None:
    game = forum_game(fake_forum)
    thread = register(game, fake_forum.thread().tid)
    ForumThread.objects.filter(pk=thread.pk).update(failures=20)
    fake_forum.fail_next(503)
    now = timezone.now()
    with pytest.raises(ForumUnreachable):
        forum_services.forum_thread_sync(thread=thread, now=now)
    thread.refresh_from_db()
    assert (thread.failures, thread.retry_at) == (21, now + dt.timedelta(hours=1))


def test_a_closed_plugin_and_an_unknown_thread_are_recorded_as_clear_errors(
    fake_forum: FakeForum,
) -> None:
    game = forum_game(fake_forum)
    unknown = register(game, 999999)
    with pytest.raises(ForumThreadNotFound):
        forum_services.forum_thread_sync(thread=unknown)
    unknown.refresh_from_db()
    assert unknown.last_error == ForumThreadNotFound.message
    assert unknown.failures == 1

    topic = fake_forum.thread()
    fake_forum.post(topic.tid, "饺子", "第一楼")
    closed = register(game, topic.tid, kind="vote")
    forum_services.forum_thread_sync(thread=closed)
    fake_forum.mobile_closed = True
    with pytest.raises(ForumClosed):
        forum_services.forum_thread_sync(thread=closed)
    closed.refresh_from_db()
    assert "mobile_is_closed" in closed.last_error
    assert ForumPost.objects.filter(thread=closed).count() == 1


def test_a_game_without_a_forum_cannot_sync(fake_forum: FakeForum) -> None:
    game = make_game("099", characters=("甲",))
    thread = register(game, 1)
    with pytest.raises(NoForumSite):
        forum_services.forum_thread_sync(thread=thread)


# --- printable pages ----------------------------------------------------------------------


def test_a_pasted_printable_page_is_stored_once_with_its_authors(fake_forum: FakeForum) -> None:
    game = forum_game(fake_forum)
    thread = register(game, 423, kind="progress")
    text = SEED_061.read_text()

    result = forum_services.forum_printable_import(thread=thread, text=text)

    assert (result.added, result.edited) == (5, 0)
    assert [(floor, director) for floor, _, _, director in stored(thread)] == [
        (n, True) for n in range(1, 6)
    ]
    first = ForumPost.objects.get(thread=thread, floor=1)
    assert first.posted_at == dt.datetime(2018, 10, 29, 13, 49, tzinfo=BJ)
    assert first.external_id.startswith(forum_services.PRINTED)
    assert forum_services.forum_printable_import(thread=thread, text=text).added == 0


def test_a_malformed_printable_page_changes_nothing_but_the_error(fake_forum: FakeForum) -> None:
    game = forum_game(fake_forum)
    thread = register(game, 423)
    forum_services.forum_printable_import(thread=thread, text=SEED_061.read_text())

    with pytest.raises(ForumBadPage):
        forum_services.forum_printable_import(thread=thread, text="这不是打印页")

    thread.refresh_from_db()
    assert thread.last_error.startswith(
        "没有找到任何楼层：打印页的每一楼都以“作者: … 时间: …”开头。"
    )
    assert ForumPost.objects.filter(thread=thread).count() == 5


def test_printable_imports_follow_deletions_and_edits_by_author_and_minute(
    fake_forum: FakeForum,
) -> None:
    game = forum_game(fake_forum)
    topic = fake_forum.thread()
    for text in ("一楼", "二楼", "三楼"):
        fake_forum.post(topic.tid, "饺子", text)
    original = fake_forum.post(topic.tid, "包子", "投票对象：馒头")
    fake_forum.post(topic.tid, "包子", fake_forum.quote(original, web=True) + "改票对象：饺子")
    thread = register(game, topic.tid)
    forum_services.forum_printable_import(thread=thread, text=fake_forum.printable(topic.tid))
    fake_forum.delete(topic.tid, 2)
    fake_forum.edit(topic.tid, 3, "三楼改过")
    fake_forum.post(topic.tid, "馒头", "新来的")

    result = forum_services.forum_printable_import(
        thread=thread, text=fake_forum.printable(topic.tid)
    )

    assert (result.added, result.edited) == (1, 1)
    posts = list(ForumPost.objects.filter(thread=thread).order_by("posted_at"))
    assert [(p.text, p.floor) for p in posts] == [
        ("一楼", 1),
        ("二楼", 2),  # deleted on the forum: kept here, as last read
        ("三楼改过", 2),
        ("投票对象：馒头", 3),
        ("改票对象：饺子", 4),
        ("新来的", 5),
    ]
    # The change still replies to the vote it changes, by the vote's stored id.
    assert posts[4].reply_to == posts[3].external_id
    assert len({p.external_id for p in posts}) == 6


def test_a_printable_import_and_the_forum_api_store_each_post_once(fake_forum: FakeForum) -> None:
    game = forum_game(fake_forum)
    topic = fake_forum.thread()
    fake_forum.post(topic.tid, "饺子", "一楼")
    fake_forum.post(topic.tid, "包子", "二楼")
    thread = register(game, topic.tid)
    # The mobile plugin was off: the director pasted the page.
    forum_services.forum_printable_import(thread=thread, text=fake_forum.printable(topic.tid))
    fake_forum.post(topic.tid, "馒头", "三楼")

    result = forum_services.forum_thread_sync(thread=thread)

    assert (result.added, result.edited) == (1, 0)
    ids = list(
        ForumPost.objects.filter(thread=thread)
        .order_by("floor")
        .values_list("external_id", "floor")
    )
    assert ids == [(str(p.pid), p.position) for p in fake_forum.threads[topic.tid].posts]
    # And the other way round: a page pasted after the API adds nothing.
    again = forum_services.forum_printable_import(
        thread=thread, text=fake_forum.printable(topic.tid)
    )
    assert (again.added, again.edited) == (0, 0)


def test_a_site_read_through_its_printable_page_is_synced_like_any_other(
    fake_forum: FakeForum,
) -> None:
    game = forum_game(fake_forum, kind="printable")
    # A printable page shows no uids: the usernames decide.
    Character.objects.filter(game=game, name__in=["饺子", "馒头"]).update(forum_username=F("name"))
    topic = fake_forum.thread()
    fake_forum.post(topic.tid, "饺子", "一楼")
    fake_forum.post(topic.tid, "包子", "二楼")
    thread = register(game, topic.tid)

    assert forum_services.forum_thread_sync(thread=thread).added == 2
    fake_forum.delete(topic.tid, 1)
    fake_forum.post(topic.tid, "馒头", "三楼")
    # The page now shows 二楼 as its first post: still one new post only.
    assert forum_services.forum_thread_sync(thread=thread).added == 1
    assert [name for _, _, name, _ in stored(thread)] == ["饺子", "包子", "馒头"]


# --- the periodic task ---------------------------------------------------------------------


def test_due_threads_of_live_games_are_claimed_once_until_their_sync_ends(
    fake_forum: FakeForum,
) -> None:
    game = forum_game(fake_forum)
    game.day = 3
    game.save()
    today = register(game, 1, day=3)
    yesterday = register(game, 2, day=2, kind="vote")
    register(game, 3, day=1)  # two days ago: done
    failing = register(game, 4, day=3, kind="vote")
    now = timezone.now()
    ForumThread.objects.filter(pk=failing.pk).update(retry_at=now + dt.timedelta(minutes=5))
    finished = forum_game(fake_forum, number="099")
    finished.status = "finished"
    finished.save()
    register(finished, 5)
    no_forum = make_game("096", characters=("甲",))
    register(no_forum, 6)

    assert forum_services.forum_threads_claim_due(now=now) == [today.pk, yesterday.pk]
    assert forum_services.forum_threads_claim_due(now=now) == []  # leased
    backed_off = now + dt.timedelta(minutes=5)
    assert forum_services.forum_threads_claim_due(now=backed_off) == [failing.pk]
    lease_over = now + forum_services.CLAIM_LEASE
    assert forum_services.forum_threads_claim_due(now=lease_over) == [today.pk, yesterday.pk]


def test_the_beat_task_syncs_every_due_thread(fake_forum: FakeForum, eager_tasks: None) -> None:
    game = forum_game(fake_forum)
    game.day = 1
    game.save()
    good = fake_forum.thread()
    fake_forum.post(good.tid, "饺子", "一楼")
    synced = register(game, good.tid)
    broken = register(game, 999999, kind="vote")

    assert tasks.forum_sync_due.apply().get() == 2

    assert ForumPost.objects.filter(thread=synced).count() == 1
    synced.refresh_from_db()
    broken.refresh_from_db()
    assert synced.retry_at is None
    assert broken.failures == 1
    assert broken.retry_at is not None


# --- PostgreSQL: concurrent syncs ------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_syncs_of_one_thread_store_each_post_once(fake_forum: FakeForum) -> None:
    game = forum_game(fake_forum)
    topic = fake_forum.thread()
    fake_forum.posts(topic.tid, 300, author="饺子")
    thread = register(game, topic.tid)
    workers = 6
    barrier = threading.Barrier(workers)
    errors: list[BaseException] = []
    results: list[forum_services.SyncResult] = []

    def sync(n: int) -> None:
        try:
            barrier.wait()
            for _ in range(3):
                results.append(forum_services.forum_thread_sync(thread=thread.pk, full=n % 2 == 0))
                fake_forum.post(topic.tid, "包子", f"第 {n} 个同步时的新楼")
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    pool = [threading.Thread(target=sync, args=(n,)) for n in range(workers)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors
    forum_services.forum_thread_sync(thread=thread.pk)
    ids = list(ForumPost.objects.filter(thread=thread).values_list("external_id", flat=True))
    assert len(ids) == len(set(ids)) == 300 + workers * 3
    assert sum(r.added for r in results) <= 300 + workers * 3
