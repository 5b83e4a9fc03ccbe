from __future__ import annotations

import datetime as dt
import socket

import httpx
import pytest

from games.forum.discuz import DiscuzAdapter
from games.forum.errors import (
    ForumAuthFailed,
    ForumClosed,
    ForumError,
    ForumFlood,
    ForumPostingOff,
    ForumThreadNotFound,
    ForumUnreachable,
)
from tests.games.forum.conftest import MakeDiscuz, pages_asked
from tests.games.forum.fake_forum import BJ, FakeForum

AT = dt.datetime(2026, 11, 2, 20, 15, tzinfo=BJ)


def test_the_mobile_api_answers_in_strings_only(fake_forum: FakeForum) -> None:
    thread = fake_forum.thread()
    fake_forum.post(thread.tid, "甲", "投票对象：乙", at=AT)
    body = httpx.get(
        fake_forum.base_url + "api/mobile/index.php",
        params={"version": 4, "module": "viewthread", "tid": thread.tid, "page": 1, "ppp": 10},
    ).json()
    post = body["Variables"]["postlist"][0]
    assert all(isinstance(value, str) for value in post.values())
    assert body["Variables"]["thread"]["maxposition"] == "1"


def test_fetch_reads_every_field_of_a_floor(fake_forum: FakeForum, discuz: MakeDiscuz) -> None:
    thread = fake_forum.thread()
    first = fake_forum.post(thread.tid, "导演B", "第1天讨论帖<br />\r\n请发言", at=AT)
    vote = fake_forum.post(thread.tid, "甲", "投票对象：乙\r\n投票理由：他很可疑", at=AT)
    page = discuz().fetch(str(thread.tid), after_floor=0)
    assert page.last_floor == 2
    opening, ballot = page.posts
    assert (opening.first, ballot.first) == (True, False)
    assert (ballot.external_id, ballot.floor, ballot.author) == (str(vote.pid), 2, "甲")
    assert ballot.author_uid == str(fake_forum.users["甲"][0])
    assert ballot.posted_at == dt.datetime(2026, 11, 2, 12, 15, tzinfo=dt.UTC)
    assert ballot.text == "投票对象：乙\n投票理由：他很可疑"
    assert ballot.html == "投票对象：乙\r\n投票理由：他很可疑"
    assert opening.text == "第1天讨论帖\n请发言"
    assert opening.external_id == str(first.pid)
    assert (ballot.reply_to, ballot.anonymous) == (None, False)


def test_deleted_floors_leave_gaps(fake_forum: FakeForum, discuz: MakeDiscuz) -> None:
    thread = fake_forum.thread()
    fake_forum.posts(thread.tid, 6)
    fake_forum.delete(thread.tid, 3)
    fake_forum.delete(thread.tid, 6)
    page = discuz(ppp=2).fetch(str(thread.tid), after_floor=0)
    assert [p.floor for p in page.posts] == [1, 2, 4, 5]
    assert page.last_floor == 6  # the deleted last floor was there: new ones come after it


def test_anonymous_posts_have_no_uid(fake_forum: FakeForum, discuz: MakeDiscuz) -> None:
    thread = fake_forum.thread()
    fake_forum.post(thread.tid, "甲", "我是匿名的", anonymous=True)
    (post,) = discuz().fetch(str(thread.tid), after_floor=0).posts
    assert (post.author, post.author_uid, post.anonymous) == ("匿名", "", True)


def test_a_quote_of_another_ballot_is_not_the_posts_text(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    thread = fake_forum.thread()
    ballot = fake_forum.post(thread.tid, "甲", "投票对象：乙\r\n投票理由：可疑")
    fake_forum.post(thread.tid, "丙", fake_forum.quote(ballot, "投票对象：乙") + "同意楼上")
    fake_forum.post(thread.tid, "甲", fake_forum.reply_header(ballot) + "改票对象：丁")
    _, quoting, change = discuz().fetch(str(thread.tid), after_floor=0).posts
    assert (quoting.text, quoting.reply_to) == ("同意楼上", str(ballot.pid))
    assert (change.text, change.reply_to) == ("改票对象：丁", str(ballot.pid))


def test_paging_reads_every_page_in_floor_order(fake_forum: FakeForum, discuz: MakeDiscuz) -> None:
    thread = fake_forum.thread()
    fake_forum.posts(thread.tid, 10)
    page = discuz(ppp=3).fetch(str(thread.tid), after_floor=0)
    assert [p.floor for p in page.posts] == list(range(1, 11))
    assert pages_asked(fake_forum) == ["1", "2", "3", "4"]


def test_only_floors_after_the_last_synced_one_are_read(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    thread = fake_forum.thread()
    fake_forum.posts(thread.tid, 10)
    page = discuz(ppp=3).fetch(str(thread.tid), after_floor=7)
    assert [p.floor for p in page.posts] == [8, 9, 10]
    assert pages_asked(fake_forum) == ["3", "4"]  # floors 7–9 and 10; earlier pages untouched


def test_nothing_new_reads_one_page_and_returns_nothing(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    thread = fake_forum.thread()
    fake_forum.posts(thread.tid, 5)
    page = discuz(ppp=3).fetch(str(thread.tid), after_floor=5)
    assert (page.posts, page.last_floor) == ([], 5)
    assert len(pages_asked(fake_forum)) == 1


def test_a_forum_that_caps_ppp_is_still_read_whole(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    fake_forum.max_ppp = 4
    thread = fake_forum.thread()
    fake_forum.posts(thread.tid, 9)
    page = discuz(ppp=100).fetch(str(thread.tid), after_floor=5)
    assert [p.floor for p in page.posts] == [6, 7, 8, 9]


def test_an_edited_post_shows_its_new_text_without_the_edit_stamp(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    thread = fake_forum.thread()
    fake_forum.post(thread.tid, "甲", "投票对象：乙")
    fake_forum.edit(thread.tid, 1, "投票对象：丙")
    (post,) = discuz().fetch(str(thread.tid), after_floor=0).posts
    assert post.text == "投票对象：丙"
    assert "本帖最后由" in post.html


def test_a_closed_mobile_plugin_is_reported(fake_forum: FakeForum, discuz: MakeDiscuz) -> None:
    thread = fake_forum.thread()
    fake_forum.mobile_closed = True
    with pytest.raises(ForumClosed) as caught:
        discuz().fetch(str(thread.tid), after_floor=0)
    assert caught.value.code == "forum_closed"


def test_a_forum_that_does_not_answer_in_time_is_unreachable(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    thread = fake_forum.thread()
    fake_forum.delay = 1.0
    with pytest.raises(ForumUnreachable) as caught:
        discuz(timeout=0.2).fetch(str(thread.tid), after_floor=0)
    assert caught.value.detail["reason"] == "timeout"


def test_a_server_error_is_unreachable_and_the_next_fetch_works(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    thread = fake_forum.thread()
    fake_forum.posts(thread.tid, 3)
    fake_forum.fail_next(502)
    reader = discuz()
    with pytest.raises(ForumUnreachable) as caught:
        reader.fetch(str(thread.tid), after_floor=0)
    assert caught.value.detail["http_status"] == 502
    assert len(reader.fetch(str(thread.tid), after_floor=0).posts) == 3


def test_a_failure_on_a_later_page_fails_the_whole_fetch(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    # Half a fetch would let the caller store floors 3–4 and skip 5–6 for good.
    thread = fake_forum.thread()
    fake_forum.posts(thread.tid, 6)
    fake_forum.fail_next(503, after=1)
    with pytest.raises(ForumUnreachable):
        discuz(ppp=2).fetch(str(thread.tid), after_floor=2)
    assert pages_asked(fake_forum) == ["2", "3"]


def test_no_server_at_all_is_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with (
        DiscuzAdapter(f"http://127.0.0.1:{port}/", timeout=1) as forum,
        pytest.raises(ForumUnreachable),
    ):
        forum.fetch("5", after_floor=0)


def test_an_answer_that_is_not_api_data_is_a_clear_error(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    fake_forum.fail_next(403)
    with pytest.raises(ForumError) as caught:
        discuz().fetch("501", after_floor=0)
    assert "论坛地址" in caught.value.text


def test_an_unknown_thread_is_not_found(discuz: MakeDiscuz) -> None:
    with pytest.raises(ForumThreadNotFound):
        discuz().fetch("999", after_floor=0)
    with pytest.raises(ForumThreadNotFound):
        discuz().fetch("第1天", after_floor=0)


def test_reply_logs_in_and_posts_with_a_fresh_formhash(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    thread = fake_forum.thread()
    fake_forum.post(thread.tid, "甲", "投票对象：乙")
    pid = discuz().reply(str(thread.tid), "计票结果：\n乙 1 票")
    posted = fake_forum.find(thread.tid, 2)
    assert pid == str(posted.pid)
    assert posted.author == "导演B"
    assert posted.raw == "计票结果：\n乙 1 票"


def test_reply_too_soon_is_flood_control_with_the_wait(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    thread = fake_forum.thread()
    fake_forum.flood_seconds = 15
    writer = discuz()
    writer.reply(str(thread.tid), "第一条")
    with pytest.raises(ForumFlood) as caught:
        writer.reply(str(thread.tid), "第二条")
    assert caught.value.retry_after == 15
    assert caught.value.status == 429
    assert "15 秒" in caught.value.text


def test_reply_in_a_closed_thread_or_without_permission_is_posting_off(
    fake_forum: FakeForum,
    discuz: MakeDiscuz,
) -> None:
    thread = fake_forum.thread()
    thread.closed = True
    with pytest.raises(ForumPostingOff):
        discuz().reply(str(thread.tid), "计票")
    thread.closed = False
    fake_forum.posting_off = True
    with pytest.raises(ForumPostingOff):
        discuz().reply(str(thread.tid), "计票")


def test_reply_switched_off_on_the_site_sends_nothing(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    thread = fake_forum.thread()
    with pytest.raises(ForumPostingOff):
        discuz(posting_enabled=False).reply(str(thread.tid), "计票")
    assert fake_forum.requests == []


def test_reply_with_a_wrong_password_fails_to_log_in(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    thread = fake_forum.thread()
    writer = discuz()
    writer.password = "wrong"
    with pytest.raises(ForumAuthFailed) as caught:
        writer.reply(str(thread.tid), "计票")
    assert "登录失败" in caught.value.text
    assert len(thread.posts) == 0


def test_reply_into_an_unknown_thread_is_not_found(discuz: MakeDiscuz) -> None:
    with pytest.raises(ForumThreadNotFound):
        discuz().reply("999", "计票")


def test_reply_falls_back_to_the_web_form_when_the_plugin_is_closed(
    fake_forum: FakeForum,
    discuz: MakeDiscuz,
) -> None:
    thread = fake_forum.thread()
    fake_forum.post(thread.tid, "甲", "投票对象：乙")
    fake_forum.mobile_closed = True
    pid = discuz().reply(str(thread.tid), "计票结果：乙 1 票")
    assert pid == str(fake_forum.find(thread.tid, 2).pid)
    assert any(
        "mod=post&action=reply" in path and "inajax=1" in path for _, path in fake_forum.requests
    )


def test_web_form_refusals_are_the_same_errors(fake_forum: FakeForum, discuz: MakeDiscuz) -> None:
    thread = fake_forum.thread()
    fake_forum.mobile_closed = True
    fake_forum.flood_seconds = 30
    writer = discuz()
    writer.reply(str(thread.tid), "第一条")
    with pytest.raises(ForumFlood) as flood:
        writer.reply(str(thread.tid), "第二条")
    assert flood.value.retry_after == 30
    thread.closed = True
    with pytest.raises(ForumPostingOff):
        writer.reply(str(thread.tid), "第三条")
    with pytest.raises(ForumThreadNotFound):
        writer.reply("999", "第四条")
    writer.password = "wrong"
    with pytest.raises(ForumAuthFailed):
        writer.reply(str(thread.tid), "第五条")
