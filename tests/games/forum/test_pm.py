"""Private messages through each adapter, over real HTTP to the fake forum."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from games.forum.base import ForumAdapter
from games.forum.errors import (
    ForumAuthFailed,
    ForumFlood,
    ForumPmRefused,
    ForumPmUnknownUser,
    ForumPmUnsupported,
)
from games.forum.printable import PrintableAdapter
from games.forum.registry import adapter_for
from tests.games.forum.conftest import DIRECTOR, MakeDiscourse, MakeDiscuz
from tests.games.forum.fake_forum import FakeForum, FakePM

SUBJECT = "[256] 角色登录信息"
# What a director sends: line breaks, full-width colons and the characters a form encodes.
TEXT = "角色：灵梦\n密码：Xy7+q&z=9 %41\n登录：http://127.0.0.1:8000/games/3/login?c=12&t=a+b"


def only_pm(forum: FakeForum) -> FakePM:
    assert len(forum.pms) == 1, forum.pms
    return forum.pms[0]


# -- Discuz ---------------------------------------------------------------------------------


def test_discuz_sends_by_uid_through_the_mobile_api(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    fake_forum.user("灵梦", uid=42)
    fake_forum.user("灵梦的替身", uid=43)
    forum = discuz()
    assert forum.supports_pm is True
    forum.send_pm(to_uid="42", to_username="灵梦的替身", subject=SUBJECT, text=TEXT)
    pm = only_pm(fake_forum)
    # The uid wins over the name; Discuz's two-person messages carry no subject.
    assert (pm.to_uid, pm.to_username, pm.sender, pm.via) == (42, "灵梦", DIRECTOR, "mobile")
    assert (pm.message, pm.subject) == (TEXT, "")
    sent = [path for method, path in fake_forum.requests if "module=sendpm" in path]
    assert len(sent) == 2
    assert "touid=42" in sent[1]
    assert "pmsubmit=yes" in sent[1]


def test_discuz_sends_by_username_when_there_is_no_uid(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    fake_forum.user("Marisa", uid=44)
    discuz().send_pm(to_uid="", to_username="marisa", subject=SUBJECT, text=TEXT)
    pm = only_pm(fake_forum)
    assert (pm.to_uid, pm.to_username, pm.message) == (44, "Marisa", TEXT)


def test_discuz_refuses_a_message_to_the_sender_itself(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    forum = discuz()
    with pytest.raises(ForumPmRefused) as caught:
        forum.send_pm(to_uid="", to_username=DIRECTOR, subject=SUBJECT, text=TEXT)
    assert "不能给自己发送短消息" in caught.value.text


def test_discuz_wrong_password_fails_the_login(fake_forum: FakeForum, discuz: MakeDiscuz) -> None:
    fake_forum.user("灵梦", uid=42)
    with pytest.raises(ForumAuthFailed):
        discuz(password="wrong").send_pm(to_uid="42", to_username="", subject=SUBJECT, text=TEXT)
    assert fake_forum.pms == []


def test_discuz_without_a_recipient_asks_nothing(fake_forum: FakeForum, discuz: MakeDiscuz) -> None:
    forum = discuz()
    for uid, username in (("", ""), ("灵梦", "")):
        with pytest.raises(ForumPmUnknownUser):
            forum.send_pm(to_uid=uid, to_username=username, subject=SUBJECT, text=TEXT)
    assert fake_forum.requests == []


def test_discuz_with_the_mobile_plugin_off_sends_through_the_web_form(
    fake_forum: FakeForum, discuz: MakeDiscuz
) -> None:
    fake_forum.user("灵梦", uid=42)
    fake_forum.user("Marisa", uid=44)
    fake_forum.mobile_closed = True
    forum = discuz()
    forum.send_pm(to_uid="42", to_username="", subject=SUBJECT, text=TEXT)
    forum.send_pm(to_uid="", to_username="Marisa", subject=SUBJECT, text=TEXT)
    assert [(pm.to_uid, pm.message, pm.via) for pm in fake_forum.pms] == [
        (42, TEXT, "web"),
        (44, TEXT, "web"),
    ]
    assert any("inajax=1" in path and "home.php" in path for _, path in fake_forum.requests)


def test_discuz_web_form_refusals_are_typed(fake_forum: FakeForum, discuz: MakeDiscuz) -> None:
    fake_forum.mobile_closed = True
    forum = discuz()
    with pytest.raises(ForumPmUnknownUser) as unknown:
        forum.send_pm(to_uid="", to_username="不存在的人", subject=SUBJECT, text=TEXT)
    assert "请检查用户名是否正确" in unknown.value.text
    fake_forum.pm_off = True
    with pytest.raises(ForumPmRefused) as refused:
        forum.send_pm(to_uid="42", to_username="", subject=SUBJECT, text=TEXT)
    assert type(refused.value) is ForumPmRefused
    assert "没有权限发短消息" in refused.value.text
    assert "<a" not in refused.value.text
    assert fake_forum.pms == []


# -- Discourse ------------------------------------------------------------------------------


def test_discourse_sends_a_private_message_topic(
    fake_forum: FakeForum, discourse: MakeDiscourse
) -> None:
    fake_forum.user("reimu", uid=42)
    forum = discourse()
    assert forum.supports_pm is True
    forum.send_pm(to_uid="42", to_username="Reimu", subject=SUBJECT, text=TEXT)
    pm = only_pm(fake_forum)
    assert (pm.to_uid, pm.to_username, pm.sender, pm.via) == (42, "reimu", "system", "discourse")
    assert (pm.subject, pm.message) == (SUBJECT, TEXT)


def test_discourse_looks_the_username_up_by_uid(
    fake_forum: FakeForum, discourse: MakeDiscourse
) -> None:
    fake_forum.user("marisa", uid=44)
    discourse().send_pm(to_uid="44", to_username="", subject=SUBJECT, text=TEXT)
    assert only_pm(fake_forum).to_username == "marisa"
    assert ("GET", "/admin/users/44.json") in fake_forum.requests


def test_discourse_without_a_key_asks_nothing(
    fake_forum: FakeForum, discourse: MakeDiscourse
) -> None:
    with pytest.raises(ForumAuthFailed):
        discourse(api_key="").send_pm(to_uid="", to_username="reimu", subject=SUBJECT, text=TEXT)
    assert fake_forum.requests == []


# -- both forums ----------------------------------------------------------------------------


def adapter(kind: str, discuz: MakeDiscuz, discourse: MakeDiscourse) -> ForumAdapter:
    return discuz() if kind == "discuz" else discourse()


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("discuz", "论坛拒绝发送站内信：抱歉，您目前没有权限发短消息，点击这里查看权限"),
        (
            "discourse",
            "论坛拒绝发送站内信：Sorry, you cannot send a personal message to that user.",
        ),
    ],
)
def test_an_account_without_pm_permission_is_refused(
    fake_forum: FakeForum, discuz: MakeDiscuz, discourse: MakeDiscourse, kind: str, text: str
) -> None:
    fake_forum.user("reimu", uid=42)
    fake_forum.pm_off = True
    with pytest.raises(ForumPmRefused) as caught:
        adapter(kind, discuz, discourse).send_pm(
            to_uid="", to_username="reimu", subject=SUBJECT, text=TEXT
        )
    assert type(caught.value) is ForumPmRefused
    assert caught.value.code == "forum_pm_refused"
    assert caught.value.text == text
    assert fake_forum.pms == []


@pytest.mark.parametrize(
    ("kind", "uid", "username", "text"),
    [
        ("discuz", "4242", "", "论坛找不到收信人：抱歉，用户不存在或被冻结，请检查用户uid是否正确"),
        (
            "discuz",
            "",
            "nobody",
            "论坛找不到收信人：抱歉，用户不存在或被冻结，请检查用户名是否正确",
        ),
        ("discourse", "4242", "", "论坛上没有 UID 为 4242 的用户。"),
        ("discourse", "", "nobody", "论坛找不到收信人：nobody"),
    ],
)
def test_an_unknown_recipient_is_refused(
    fake_forum: FakeForum,
    discuz: MakeDiscuz,
    discourse: MakeDiscourse,
    kind: str,
    uid: str,
    username: str,
    text: str,
) -> None:
    with pytest.raises(ForumPmUnknownUser) as caught:
        adapter(kind, discuz, discourse).send_pm(
            to_uid=uid, to_username=username, subject=SUBJECT, text=TEXT
        )
    assert caught.value.code == "forum_pm_unknown_user"
    assert caught.value.text == text
    assert fake_forum.pms == []


# Discuz's PM interval is its posting interval, and its words name no time: 60 s.
@pytest.mark.parametrize(("kind", "retry_after"), [("discuz", 60), ("discourse", 25)])
def test_sending_too_fast_is_flood_control(
    fake_forum: FakeForum,
    discuz: MakeDiscuz,
    discourse: MakeDiscourse,
    kind: str,
    retry_after: int,
) -> None:
    fake_forum.user("reimu", uid=42)
    fake_forum.user("marisa", uid=44)
    fake_forum.flood_seconds = 25
    forum = adapter(kind, discuz, discourse)
    forum.send_pm(to_uid="", to_username="reimu", subject=SUBJECT, text=TEXT)
    with pytest.raises(ForumFlood) as caught:
        forum.send_pm(to_uid="", to_username="marisa", subject=SUBJECT, text=TEXT)
    assert caught.value.retry_after == retry_after
    assert only_pm(fake_forum).to_username == "reimu"


# -- printable pages ------------------------------------------------------------------------


def test_printable_pages_cannot_send_and_ask_nothing(fake_forum: FakeForum) -> None:
    fake_forum.user("灵梦", uid=42)
    with PrintableAdapter(fake_forum.base_url) as forum:
        assert forum.supports_pm is False
        with pytest.raises(ForumPmUnsupported) as caught:
            forum.send_pm(to_uid="42", to_username="灵梦", subject=SUBJECT, text=TEXT)
    assert caught.value.code == "forum_pm_unsupported"
    assert caught.value.text == "该论坛类型不支持站内信。"
    assert fake_forum.requests == []
    assert fake_forum.pms == []


@dataclass
class Site:
    kind: str
    base_url: str = "http://bbs.example/"
    username: str = DIRECTOR
    password: str = "dao-yan-pass"
    api_key: str = "key"
    api_username: str = "system"
    posting_enabled: bool = False


@pytest.mark.parametrize(
    ("kind", "supported"), [("discuz", True), ("discourse", True), ("printable", False)]
)
def test_every_kind_says_whether_it_sends_pms(kind: str, supported: bool) -> None:
    with adapter_for(Site(kind)) as forum:
        assert forum.supports_pm is supported


def test_a_pm_needs_no_posting_switch(fake_forum: FakeForum, discuz: MakeDiscuz) -> None:
    fake_forum.user("灵梦", uid=42)
    discuz(posting_enabled=False).send_pm(to_uid="42", to_username="", subject=SUBJECT, text=TEXT)
    assert only_pm(fake_forum).message == TEXT
