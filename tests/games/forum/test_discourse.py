from __future__ import annotations

import datetime as dt

import pytest

from games.forum.errors import (
    ForumAuthFailed,
    ForumFlood,
    ForumPostingOff,
    ForumThreadNotFound,
    ForumUnreachable,
)
from tests.games.forum.conftest import MakeDiscourse
from tests.games.forum.fake_forum import BJ, FakeForum


def chunks_asked(forum: FakeForum) -> list[int]:
    """How many post ids each ``posts.json`` request asked for."""
    return [path.count("post_ids") for _, path in forum.requests if "/posts.json" in path]


def test_fetch_reads_every_field_of_a_post(fake_forum: FakeForum, discourse: MakeDiscourse) -> None:
    topic = fake_forum.thread("第1天 投票帖")
    at = dt.datetime(2026, 11, 2, 20, 15, tzinfo=BJ)
    fake_forum.post(topic.tid, "daoyan", "<p>投票帖</p>", at=at)
    vote = fake_forum.post(topic.tid, "jia", "<p>投票对象：乙<br>\n投票理由：可疑</p>", at=at)
    page = discourse().fetch(str(topic.tid), after_floor=0)
    opening, ballot = page.posts
    assert page.last_floor == 2
    assert (opening.first, ballot.first) == (True, False)
    assert (ballot.external_id, ballot.floor, ballot.author) == (str(vote.pid), 2, "jia")
    assert ballot.author_uid == str(fake_forum.users["jia"][0])
    assert ballot.posted_at == dt.datetime(2026, 11, 2, 12, 15, tzinfo=dt.UTC)
    assert ballot.text == "投票对象：乙\n投票理由：可疑"
    assert (ballot.reply_to, ballot.anonymous) == (None, False)


def test_long_topics_are_read_in_chunks_of_twenty_after_the_first_posts(
    fake_forum: FakeForum,
    discourse: MakeDiscourse,
) -> None:
    topic = fake_forum.thread()
    fake_forum.posts(topic.tid, 65)
    page = discourse().fetch(str(topic.tid), after_floor=0)
    assert [p.floor for p in page.posts] == list(range(1, 66))
    assert chunks_asked(fake_forum) == [20, 20, 5]  # the topic itself brought the first 20


def test_only_the_tail_after_the_last_synced_floor_is_read(
    fake_forum: FakeForum, discourse: MakeDiscourse
) -> None:
    topic = fake_forum.thread()
    fake_forum.posts(topic.tid, 65)
    page = discourse().fetch(str(topic.tid), after_floor=60)
    assert [p.floor for p in page.posts] == [61, 62, 63, 64, 65]
    assert chunks_asked(fake_forum) == [5]


def test_deleted_posts_leave_gaps(fake_forum: FakeForum, discourse: MakeDiscourse) -> None:
    topic = fake_forum.thread()
    fake_forum.posts(topic.tid, 30)
    for floor in (25, 28, 30):
        fake_forum.delete(topic.tid, floor)
    page = discourse().fetch(str(topic.tid), after_floor=22)
    assert [p.floor for p in page.posts] == [23, 24, 26, 27, 29]
    assert page.last_floor == 30


def test_quotes_and_replies_name_the_post_id_even_of_an_old_post(
    fake_forum: FakeForum, discourse: MakeDiscourse
) -> None:
    topic = fake_forum.thread()
    ballot = fake_forum.post(topic.tid, "jia", "<p>投票对象：乙</p>")
    fake_forum.posts(topic.tid, 3)
    fake_forum.post(
        topic.tid, "bing", fake_forum.discourse_quote(ballot, "投票对象：乙") + "<p>同意</p>"
    )
    fake_forum.post(topic.tid, "jia", "<p>改票对象：丙</p>", reply_to=ballot)
    quoting, change = discourse().fetch(str(topic.tid), after_floor=4).posts
    assert (quoting.text, quoting.reply_to) == ("同意", str(ballot.pid))
    assert (change.text, change.reply_to) == ("改票对象：丙", str(ballot.pid))


def test_an_unknown_topic_is_not_found(discourse: MakeDiscourse) -> None:
    with pytest.raises(ForumThreadNotFound):
        discourse().fetch("999", after_floor=0)


def test_server_errors_and_timeouts_are_unreachable(
    fake_forum: FakeForum, discourse: MakeDiscourse
) -> None:
    topic = fake_forum.thread()
    fake_forum.fail_next(500)
    with pytest.raises(ForumUnreachable):
        discourse().fetch(str(topic.tid), after_floor=0)
    fake_forum.delay = 1.0
    with pytest.raises(ForumUnreachable):
        discourse(timeout=0.2).fetch(str(topic.tid), after_floor=0)


def test_reply_posts_raw_text_with_the_api_key(
    fake_forum: FakeForum, discourse: MakeDiscourse
) -> None:
    topic = fake_forum.thread()
    pid = discourse().reply(str(topic.tid), "计票结果：乙 1 票")
    posted = fake_forum.find(topic.tid, 1)
    assert pid == str(posted.pid)
    assert (posted.author, posted.raw) == ("system", "计票结果：乙 1 票")


def test_reply_with_a_wrong_key_fails_to_authenticate(
    fake_forum: FakeForum, discourse: MakeDiscourse
) -> None:
    topic = fake_forum.thread()
    with pytest.raises(ForumAuthFailed):
        discourse(api_key="wrong").reply(str(topic.tid), "计票")
    with pytest.raises(ForumAuthFailed):
        discourse(api_key="").reply(str(topic.tid), "计票")
    assert topic.posts == []


def test_reply_rate_limited_says_how_long_to_wait(
    fake_forum: FakeForum, discourse: MakeDiscourse
) -> None:
    topic = fake_forum.thread()
    fake_forum.flood_seconds = 10
    writer = discourse()
    writer.reply(str(topic.tid), "第一条")
    with pytest.raises(ForumFlood) as caught:
        writer.reply(str(topic.tid), "第二条")
    assert caught.value.retry_after == 10


def test_reply_into_a_closed_topic_or_switched_off_is_posting_off(
    fake_forum: FakeForum, discourse: MakeDiscourse
) -> None:
    topic = fake_forum.thread()
    topic.closed = True
    with pytest.raises(ForumPostingOff):
        discourse().reply(str(topic.tid), "计票")
    fake_forum.requests.clear()
    with pytest.raises(ForumPostingOff):
        discourse(posting_enabled=False).reply(str(topic.tid), "计票")
    assert fake_forum.requests == []
