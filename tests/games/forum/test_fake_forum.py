"""The test forum itself, where no adapter reads it: the pages other parts link to."""

from __future__ import annotations

import re

import httpx

from tests.games.forum.fake_forum import FakeForum


def test_the_authorid_filter_shows_only_that_authors_named_posts(fake_forum: FakeForum) -> None:
    thread = fake_forum.thread()
    fake_forum.post(thread.tid, "甲", "甲的第一帖", uid=42)
    fake_forum.post(thread.tid, "乙", "乙的帖子")
    fake_forum.post(thread.tid, "甲", "甲的匿名帖", anonymous=True)
    fake_forum.post(thread.tid, "甲", "甲的第二帖")
    page = httpx.get(
        fake_forum.base_url + "forum.php",
        params={"mod": "viewthread", "tid": thread.tid, "authorid": 42},
    ).text
    assert re.findall(r'id="postmessage_\d+">\s*(.*?)</td>', page) == ["甲的第一帖", "甲的第二帖"]
