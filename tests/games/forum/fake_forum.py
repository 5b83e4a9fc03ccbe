"""A local forum for tests: a real HTTP server on loopback answering in the forums' own formats.

One store of threads is served three ways: the Discuz! X3.2 mobile API (version 4) with its
login, formhash and ``sendreply``, the Discuz web pages a browser would use (the printable page,
the ``authorid`` filter, the thread page with its fast-reply form, the ``inajax`` form posts), and
the Discourse JSON API. Tests build threads with :meth:`FakeForum.post` and friends, flip the
failure switches, and point an adapter at :attr:`FakeForum.base_url`.

Private messages are delivered into :attr:`FakeForum.pms` through the mobile API's ``sendpm``,
the web form ``home.php?mod=spacecp&ac=pm&op=send`` (``inajax``) and Discourse's ``POST
/posts.json`` with ``archetype=private_message``; ``pm_off`` refuses them as each forum refuses
an account that may not send PMs, and unknown recipients are refused in each forum's words.

Formats follow the real software: every value of the mobile API is a string, ``position`` is the
floor and deleted posts leave gaps, a page past the end answers with the last page (Discuz clamps
``page``), anonymous posts show the forum's anonymous name and uid 0, quotes are
``<div class="reply_wrap">`` (mobile) or ``<div class="quote"><blockquote>`` (web) with a
``goto=findpost`` link, the web form answers are ``<root><![CDATA[...]]></root>``.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import html
import itertools
import json
import re
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

BJ = dt.timezone(dt.timedelta(hours=8))
COOKIEPRE = "Y5zN_2132_"
ANONYMOUS = "匿名"
GUEST_FORMHASH = "0a1b2c3d"
FLOOD_MESSAGE = "抱歉，您两次发表间隔少于 {seconds} 秒，请稍候再发表"
PASSWORD = "secret"  # every account made by post() has this one
REPLY_OK = "非常感谢，回复发布成功，现在将转入主题页，请稍候……"
PM_SENT = "操作成功 "  # Discuz's do_success, trailing space and all


@dataclass
class FakePost:
    pid: int
    tid: int
    position: int
    author: str
    authorid: int
    posted_at: dt.datetime
    message: str  # HTML as the forum serves it
    raw: str  # the source text (Discourse ``raw``, Discuz BBCode-ish)
    anonymous: bool = False
    first: bool = False
    deleted: bool = False
    reply_to_post_number: int | None = None
    updated_at: dt.datetime | None = None
    version: int = 1


@dataclass
class FakePM:
    """A private message the forum delivered."""

    pmid: int
    to_uid: int
    to_username: str
    sender: str
    sender_uid: int
    subject: str  # Discuz's two-person messages have none: ""
    message: str  # as the sender sent it
    via: str  # "mobile", "web" (Discuz's two ways) or "discourse"


@dataclass
class FakeThread:
    tid: int
    subject: str
    fid: int = 2
    closed: bool = False  # 本主题已关闭: nobody may reply
    posts: list[FakePost] = field(default_factory=list)

    def visible(self) -> list[FakePost]:
        return [p for p in self.posts if not p.deleted]

    @property
    def maxposition(self) -> int:
        return self.posts[-1].position if self.posts else 0  # posts are kept in floor order


@dataclass
class _Session:
    uid: int
    username: str
    formhash: str


class FakeForum:
    """The forum's state and switches; the server reads them on every request."""

    def __init__(self, *, site_name: str = "雾雨小镇") -> None:
        self.site_name = site_name
        self.threads: dict[int, FakeThread] = {}
        self.users: dict[str, tuple[int, str]] = {}  # username -> (uid, password)
        self.api_key = "fake-discourse-key"
        self.api_username = "system"
        # Switches.
        self.mobile_closed = False  # {"error":"mobile_is_closed"} from the mobile API
        self.posting_off = False  # the account may not reply anywhere (权限不足)
        self.delay = 0.0  # seconds to wait before answering (timeouts)
        self.flood_seconds = 0  # Discuz floodctrl / Discourse rate limit; 0 = off
        self.max_ppp = 200
        # The sending account may not send PMs (Discuz no_privilege_sendpm, Discourse cant_send_pm).
        self.pm_off = False
        self.pms: list[FakePM] = []  # every delivered private message, in order
        self.requests: list[tuple[str, str]] = []  # (method, path?query) of every request
        self._fail: list[int | None] = []  # the next requests' statuses (None: answer)
        self._sessions: dict[str, _Session] = {}
        self._last_post_at: dict[int, float] = {}
        self._lock = threading.RLock()
        self._pids = itertools.count(1001)
        self._pmids = itertools.count(1)
        self._tids = itertools.count(501)
        self._uids = itertools.count(11)
        self._clock = dt.datetime(2018, 10, 29, 13, 49, tzinfo=BJ)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- life -------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start() the forum first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/"

    def start(self) -> FakeForum:
        handler = type("Handler", (_Handler,), {"forum": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # -- building threads -------------------------------------------------------------------

    def user(
        self,
        username: str,
        password: str = PASSWORD,
        *,
        uid: int | None = None,
    ) -> int:
        """A forum account; returns its uid."""
        with self._lock:
            if username in self.users:
                return self.users[username][0]
            number = uid if uid is not None else next(self._uids)
            self.users[username] = (number, password)
            return number

    def thread(self, subject: str = "[256] 第1天 讨论帖", *, tid: int | None = None) -> FakeThread:
        with self._lock:
            number = tid if tid is not None else next(self._tids)
            thread = FakeThread(tid=number, subject=subject)
            self.threads[number] = thread
            return thread

    def post(
        self,
        tid: int,
        author: str,
        message: str,
        *,
        at: dt.datetime | None = None,
        anonymous: bool = False,
        raw: str | None = None,
        reply_to: FakePost | None = None,
        floor: int | None = None,
        uid: int | None = None,
    ) -> FakePost:
        """A new floor by ``author`` (an account is made if needed) with this HTML message.

        ``at`` defaults to one minute after the previous post; ``floor`` skips positions (as
        if the posts between had been deleted before anyone saw them); ``uid`` fixes the
        account's uid when this post makes it; ``reply_to`` is Discourse's reply link.
        """
        with self._lock:
            thread = self.threads[tid]
            uid = self.user(author, uid=uid)
            if at is None:
                self._clock += dt.timedelta(minutes=1)
                at = self._clock
            else:
                self._clock = max(self._clock, at)
            position = floor if floor is not None else thread.maxposition + 1
            post = FakePost(
                pid=next(self._pids),
                tid=tid,
                position=position,
                author=author,
                authorid=uid,
                posted_at=at,
                message=message,
                raw=raw if raw is not None else _html_to_raw(message),
                anonymous=anonymous,
                first=not thread.posts,
                reply_to_post_number=reply_to.position if reply_to else None,
            )
            in_order = position > thread.maxposition
            thread.posts.append(post)
            if not in_order:
                thread.posts.sort(key=lambda p: p.position)
            return post

    def posts(self, tid: int, count: int, *, author: str = "路人甲", text: str = "楼") -> None:
        """``count`` plain floors by ``author``; for paging and benchmarks."""
        for _ in range(count):
            self.post(tid, author, f"{text}{self.threads[tid].maxposition + 1}")

    def find(self, tid: int, floor: int) -> FakePost:
        return next(p for p in self.threads[tid].posts if p.position == floor)

    def delete(self, tid: int, floor: int) -> None:
        """Delete a floor: it disappears, its position stays used (a gap)."""
        with self._lock:
            self.find(tid, floor).deleted = True

    def edit(self, tid: int, floor: int, message: str, *, at: dt.datetime | None = None) -> None:
        """Edit a floor the way Discuz shows it: a 本帖最后由 … 编辑 line before the message."""
        with self._lock:
            post = self.find(tid, floor)
            when = at or post.posted_at + dt.timedelta(minutes=5)
            stamp = when.astimezone(BJ).strftime("%Y-%m-%d %H:%M")
            post.message = (
                f'<i class="pstatus"> 本帖最后由 {html.escape(post.author)} 于 {stamp} 编辑 '
                f"</i><br />\r\n{message}"
            )
            post.raw = _html_to_raw(message)
            post.updated_at = when
            post.version += 1

    def quote(self, quoted: FakePost, excerpt: str | None = None, *, web: bool = False) -> str:
        """Discuz's markup for a quote of ``quoted`` (mobile API form, or the web page's)."""
        stamp = quoted.posted_at.astimezone(BJ).strftime("%Y-%m-%d %H:%M")
        link = (
            f"forum.php?mod=redirect&amp;goto=findpost&amp;pid={quoted.pid}&amp;ptid={quoted.tid}"
        )
        who = f"{html.escape(quoted.author)} 发表于 {stamp}"
        body = excerpt if excerpt is not None else quoted.message
        if web:
            return (
                f'<div class="quote"><blockquote><font size="2"><a href="{link}" '
                f'target="_blank"><font color="#999999">{who}</font></a></font><br />\r\n'
                f"{body}</blockquote></div><br />\r\n"
            )
        return (
            f'<div class="reply_wrap"><a href="{self.base_url}{link}"><font color="#999999">'
            f"{who}</font></a>\r\n{body}</div>\r\n"
        )

    def reply_header(self, replied: FakePost) -> str:
        """Discuz's 回复 N# 作者 header (the 回复 button on a floor)."""
        link = (
            f"forum.php?mod=redirect&amp;goto=findpost&amp;pid={replied.pid}&amp;ptid={replied.tid}"
        )
        return (
            f'<strong>回复 <a href="{link}" target="_blank">{replied.position}#</a> '
            f"<i>{html.escape(replied.author)}</i> </strong><br />\r\n"
        )

    def discourse_quote(self, quoted: FakePost, excerpt: str) -> str:
        """Discourse's cooked markup for a quote of ``quoted``."""
        name = html.escape(quoted.author)
        return (
            f'<aside class="quote no-group" data-username="{name}" '
            f'data-post="{quoted.position}" data-topic="{quoted.tid}">\n'
            f'<div class="title">\n<div class="quote-controls"></div>\n{name}:</div>\n'
            f"<blockquote>\n<p>{excerpt}</p>\n</blockquote>\n</aside>\n"
        )

    # -- switches ---------------------------------------------------------------------------

    def fail_next(self, status: int = 502, times: int = 1, *, after: int = 0) -> None:
        """Answer ``times`` requests with this HTTP status, once ``after`` more have been served."""
        with self._lock:
            self._fail.extend([None] * after + [status] * times)

    def printable_url(self, tid: int) -> str:
        return f"{self.base_url}forum.php?mod=viewthread&action=printable&tid={tid}"

    def printable(self, tid: int) -> str:
        """The 打印本页 page of a thread, as Discuz X3.2 renders it."""
        return _printable_page(self, self.threads[tid])

    # -- the server side --------------------------------------------------------------------

    def _next_failure(self) -> int | None:
        with self._lock:
            return self._fail.pop(0) if self._fail else None

    def _login(self, username: str, password: str) -> tuple[str, _Session] | None:
        with self._lock:
            account = self.users.get(username)
            if account is None or account[1] != password:
                return None
            token = secrets.token_hex(8)
            session = _Session(uid=account[0], username=username, formhash=secrets.token_hex(4))
            self._sessions[token] = session
            return token, session

    def _session(self, cookies: SimpleCookie) -> _Session | None:
        morsel = cookies.get(COOKIEPRE + "auth")
        return self._sessions.get(morsel.value) if morsel else None

    def _add_reply(self, session: _Session, tid: int, message: str) -> tuple[str, Any]:
        """Post a reply for a logged-in session: ("ok", post) or (error kind, detail)."""
        with self._lock:
            thread = self.threads.get(tid)
            if thread is None:
                return "thread_nonexistence", None
            if self.posting_off:
                return "nopermission", None
            if thread.closed:
                return "closed", None
            now = time.monotonic()
            last = self._last_post_at.get(session.uid)
            if self.flood_seconds and last is not None and now - last < self.flood_seconds:
                return "flood", self.flood_seconds
            self._last_post_at[session.uid] = now
            body = html.escape(message).replace("\n", "<br />\r\n")
            return "ok", self.post(tid, session.username, body, raw=message)

    def _account(self, *, uid: int = 0, username: str = "") -> tuple[int, str] | None:
        """(uid, username) of an account by uid, or by username without case (as Discuz's
        MySQL collation and Discourse's ``username_lower`` compare)."""
        with self._lock:
            for name, (number, _) in self.users.items():
                if (uid and number == uid) or (not uid and name.lower() == username.lower()):
                    return number, name
            return None

    def _flooded(self, uid: int) -> bool:
        last = self._last_post_at.get(uid)
        return bool(self.flood_seconds and last is not None) and (
            time.monotonic() - (last or 0.0) < self.flood_seconds
        )

    def _pm_checks(self, session: _Session) -> str | None:
        """What Discuz checks before the PM form (interval, then permission): a refusal or None."""
        with self._lock:
            if self._flooded(session.uid):
                return "flood"
            return "pm_off" if self.pm_off else None

    def _send_pm(
        self, session: _Session, *, touid: int, username: str, subject: str, message: str, via: str
    ) -> tuple[str, Any]:
        """Deliver a PM for a logged-in sender: ("ok", pm) or (refusal kind, None)."""
        with self._lock:
            if not message.strip():
                return "empty", None
            if touid:
                account = self._account(uid=touid)
                missing, to_self = "bad_touid", "self_uid"
            elif username:
                account = self._account(username=username)
                missing, to_self = "bad_touser", "self_name"
            else:
                return "no_recipient", None
            if account is None:
                return missing, None
            if account[0] == session.uid:
                return to_self, None
            pm = FakePM(
                pmid=next(self._pmids),
                to_uid=account[0],
                to_username=account[1],
                sender=session.username,
                sender_uid=session.uid,
                subject=subject,
                message=message,
                via=via,
            )
            self.pms.append(pm)
            # Discuz counts a PM as a post for its interval (it updates the member's lastpost).
            self._last_post_at[session.uid] = time.monotonic()
            return "ok", pm


def _html_to_raw(message: str) -> str:
    text = re.sub(r"<br\s*/?>\s*", "\n", message)
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def _s(value: object) -> str:
    return str(value)


def _display(moment: dt.datetime) -> str:
    local = moment.astimezone(BJ)
    return f"{local.year}-{local.month}-{local.day} {local:%H:%M}"


def _mobile_post(forum: FakeForum, post: FakePost) -> dict[str, str]:
    anonymous = post.anonymous
    return {
        "pid": _s(post.pid),
        "tid": _s(post.tid),
        "first": "1" if post.first else "0",
        "author": ANONYMOUS if anonymous else post.author,
        "authorid": "0" if anonymous else _s(post.authorid),
        "username": ANONYMOUS if anonymous else post.author,
        "dateline": _display(post.posted_at),
        "dbdateline": _s(int(post.posted_at.timestamp())),
        "message": post.message,
        "anonymous": "1" if anonymous else "0",
        "position": _s(post.position),
        "number": _s(post.position),
        "attachment": "0",
        "status": "0",
        "groupid": "7" if anonymous else "10",
        "adminid": "0",
        "memberstatus": "0",
        "replycredit": "",
        "groupiconid": "1",
    }


def _variables(forum: FakeForum, session: _Session | None, extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "cookiepre": COOKIEPRE,
        "auth": None,
        "saltkey": "kR1pQ8aA",
        "member_uid": _s(session.uid) if session else "0",
        "member_username": session.username if session else "",
        "member_avatar": "",
        "groupid": "10" if session else "7",
        "formhash": session.formhash if session else GUEST_FORMHASH,
        "ismoderator": None,
        "readaccess": "10",
        "notice": {"newpush": "0", "newpm": "0", "newprompt": "0", "newmypost": "0"},
        **extra,
    }


def _mobile(
    forum: FakeForum,
    session: _Session | None,
    extra: dict[str, Any],
    message: tuple[str, str] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "Version": "4",
        "Charset": "UTF-8",
        "Variables": _variables(forum, session, extra),
    }
    if message:
        body["Message"] = {"messageval": message[0], "messagestr": message[1]}
    return body


def _viewthread(forum: FakeForum, session: _Session | None, query: dict[str, str]) -> Any:
    thread = forum.threads.get(int(query.get("tid", "0") or 0))
    if thread is None:
        return _mobile(
            forum,
            session,
            {},
            ("thread_nonexistence", "抱歉，指定的主题不存在或已被删除或正在被审核"),
        )
    ppp = max(1, min(int(query.get("ppp") or 10), forum.max_ppp))
    maxposition = thread.maxposition
    totalpage = max(1, -(-maxposition // ppp))
    page = min(max(1, int(query.get("page") or 1)), totalpage)  # Discuz clamps the page
    start = (page - 1) * ppp + 1
    first_index = bisect.bisect_left(thread.posts, start, key=lambda p: p.position)
    posts = [
        p
        for p in thread.posts[first_index : first_index + ppp]
        if p.position < start + ppp and not p.deleted
    ]
    first = thread.posts[0] if thread.posts else None
    return _mobile(
        forum,
        session,
        {
            "thread": {
                "tid": _s(thread.tid),
                "fid": _s(thread.fid),
                "subject": thread.subject,
                "author": first.author if first else "",
                "authorid": _s(first.authorid) if first else "0",
                "replies": _s(max(0, len(thread.visible()) - 1)),
                "maxposition": _s(maxposition),
                "closed": "1" if thread.closed else "0",
                "views": "100",
            },
            "fid": _s(thread.fid),
            "postlist": [_mobile_post(forum, p) for p in posts],
            "allowpostcomment": ["1"],
            "comments": [],
            "commentcount": [],
            "ppp": _s(ppp),
            "setting_rewriterule": None,
            "setting_rewritestatus": "",
            "forum_threadpay": "",
            "cache_custominfo_postno": ["<sup>#</sup>", "楼主", "沙发", "板凳", "地板"],
            "forum": {"password": "0"},
        },
    )


_REPLY_MESSAGES = {
    "thread_nonexistence": ("thread_nonexistence", "抱歉，指定的主题不存在或已被删除或正在被审核"),
    "nopermission": ("replyperm_none_nopermission", "抱歉，您没有权限在该版块回帖"),
    "closed": ("post_thread_closed", "抱歉，本主题已关闭，不再接受新内容"),
}


def _sendreply(
    forum: FakeForum, session: _Session | None, query: dict[str, str], form: dict[str, str]
) -> Any:
    if session is None:
        return _mobile(forum, None, {}, ("to_login//1", "您需要先登录才能继续本操作"))
    if form.get("formhash") != session.formhash:
        return _mobile(
            forum,
            session,
            {},
            ("submit_invalid", "抱歉，您的请求来路不正确或表单验证串不符，无法提交"),
        )
    outcome, detail = forum._add_reply(session, int(query.get("tid") or 0), form.get("message", ""))
    if outcome == "ok":
        return _mobile(
            forum,
            session,
            {"tid": _s(detail.tid), "pid": _s(detail.pid)},
            ("post_reply_succeed", REPLY_OK),
        )
    if outcome == "flood":
        return _mobile(
            forum,
            session,
            {},
            ("post_flood_ctrl", FLOOD_MESSAGE.format(seconds=detail)),
        )
    return _mobile(forum, session, {}, _REPLY_MESSAGES[outcome])


def _ajax(inner: str) -> str:
    return f'<?xml version="1.0" encoding="utf-8"?>\n<root><![CDATA[{inner}]]></root>'


def _js(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def _handled(outcome: str, handlekey: str, text: str, args: str) -> str:
    """Discuz's ``inajax`` answer: the message, then a call of the page's handler."""
    handler = f"{outcome}handle_{handlekey}"
    return _ajax(
        f'{text}<script type="text/javascript" reload="1">'
        f"if(typeof {handler}=='function') {{{handler}({args});}}</script>"
    )


def _web_reply(
    forum: FakeForum, session: _Session | None, query: dict[str, str], form: dict[str, str]
) -> str:
    handlekey = query.get("handlekey", "")
    if session is None:
        text = "抱歉，您尚未登录，没有权限在该版块回帖"
        return _handled("error", handlekey, text, f"'{_js(text)}', {{}}")
    if form.get("formhash") != session.formhash:
        text = "抱歉，您的请求来路不正确或表单验证串不符，无法提交"
        return _handled("error", handlekey, text, f"'{_js(text)}', {{}}")
    outcome, detail = forum._add_reply(session, int(query.get("tid") or 0), form.get("message", ""))
    if outcome == "ok":
        tid, pid = detail.tid, detail.pid
        url = f"forum.php?mod=viewthread&tid={tid}&pid={pid}&page=1&extra=#pid{pid}"
        params = f"{{'fid':'2','tid':'{tid}','pid':'{pid}','from':'','sechash':''}}"
        return _handled("succeed", handlekey, REPLY_OK, f"'{url}', '{REPLY_OK}', {params}")
    if outcome == "flood":
        text = FLOOD_MESSAGE.format(seconds=detail)
        extra = f"{{'floodctrl':'{detail}'}}"
    else:
        text = _REPLY_MESSAGES[outcome][1]
        extra = "{}"
    return _handled("error", handlekey, text, f"'{_js(text)}', {extra}")


NO_PRIVILEGE_SENDPM = (
    '抱歉，您目前没有权限发短消息，<a href="home.php?mod=spacecp&ac=usergroup" '
    'target="_blank">点击这里查看权限</a>'
)
TO_LOGIN = ("to_login//1", "您需要先登录才能继续本操作")
SUBMIT_INVALID = ("submit_invalid", "抱歉，您的请求来路不正确或表单验证串不符，无法提交")
# spacecp_pm.php's refusals, as lang_message.php words them (the mobile API strips the tags).
_PM_MESSAGES = {
    "flood": ("message_can_not_send_2", "两次发送短消息太快，请稍候再发送"),
    "pm_off": ("no_privilege_sendpm", NO_PRIVILEGE_SENDPM),
    "empty": ("unable_to_send_air_news", "抱歉，不能发送空消息"),
    "bad_touid": ("message_bad_touid", "抱歉，用户不存在或被冻结，请检查用户uid是否正确"),
    "bad_touser": ("message_bad_touser", "抱歉，用户不存在或被冻结，请检查用户名是否正确"),
    "self_uid": ("message_can_not_send_8", "抱歉，您不能给自己发短消息"),
    "self_name": ("message_can_not_send_to_self", "不能给自己发送短消息"),
    "no_recipient": ("message_can_not_send_9", "收件人为空或对方屏蔽了您的短消息"),
}


def _int_or_zero(value: str | None) -> int:
    return int(value) if value and value.isdigit() else 0  # PHP's intval of a uid


def _sendpm(
    forum: FakeForum,
    method: str,
    session: _Session | None,
    query: dict[str, str],
    form: dict[str, str],
) -> Any:
    """``module=sendpm``: spacecp_pm.php's op=send behind the mobile API. ``pmid`` is the
    number UCenter returned (the module does not make it a string)."""
    if session is None:
        return _mobile(forum, None, {}, TO_LOGIN)
    refused = forum._pm_checks(session)
    if refused:
        code, text = _PM_MESSAGES[refused]
        return _mobile(forum, session, {"pmid": None}, (code, re.sub(r"<[^>]+>", "", text)))
    if not (query.get("pmsubmit") or form.get("pmsubmit")):
        return _mobile(forum, session, {"pmid": None})  # the form itself: just the variables
    if method != "POST" or form.get("formhash") != session.formhash:
        return _mobile(forum, session, {}, SUBMIT_INVALID)
    outcome, pm = forum._send_pm(
        session,
        touid=_int_or_zero(query.get("touid") or form.get("touid")),
        username=form.get("username", ""),
        subject="",
        message=form.get("message", ""),
        via="mobile",
    )
    if outcome == "ok":
        return _mobile(forum, session, {"pmid": pm.pmid}, ("do_success", PM_SENT))
    code, text = _PM_MESSAGES[outcome]
    return _mobile(forum, session, {"pmid": 0}, (code, re.sub(r"<[^>]+>", "", text)))


def _message_page(forum: FakeForum, text: str, session: _Session | None) -> str:
    """Discuz's 提示信息 page (``showmessage`` outside ``inajax``)."""
    body = (
        f'<div id="messagetext" class="alert_error"><p>{text}</p>'
        '<p class="alert_btnleft"><a href="javascript:history.back()">[ 点击这里返回上一页 ]</a>'
        "</p></div>"
    )
    return _page(forum, "提示信息", body, session)


def _web_pm_form(forum: FakeForum, session: _Session | None, query: dict[str, str]) -> str:
    """``home.php?mod=spacecp&ac=pm&op=send``: the send form, or the refusal page."""
    if session is None:
        return _message_page(forum, TO_LOGIN[1], None)
    refused = forum._pm_checks(session)
    if refused:
        return _message_page(forum, _PM_MESSAGES[refused][1], session)
    touid = _int_or_zero(query.get("touid"))
    to = "" if touid else '<input type="text" id="username" name="username" class="px" value="" />'
    form = (
        f'<form id="pmform_0" name="pmform_0" method="post" autocomplete="off" '
        f'action="home.php?mod=spacecp&amp;ac=pm&amp;op=send&amp;touid={touid}&amp;pmid=0">'
        '<input type="hidden" name="referer" value="home.php?mod=space&amp;do=pm" />'
        '<input type="hidden" name="pmsubmit" value="true" />'
        f'<input type="hidden" name="formhash" value="{session.formhash}" />{to}'
        '<textarea id="sendmessage" name="message" cols="80" rows="7"></textarea></form>'
    )
    return _page(forum, "发送短消息", form, session)


def _web_pm_send(
    forum: FakeForum, session: _Session | None, query: dict[str, str], form: dict[str, str]
) -> str:
    """The send form posted with ``inajax=1``: Discuz's ``<root><![CDATA[…]]></root>``."""
    handlekey = query.get("handlekey", "")

    def refuse(text: str) -> str:
        return _handled("error", handlekey, text, f"'{_js(text)}', {{}}")

    if session is None:
        return refuse(TO_LOGIN[1])
    refused = forum._pm_checks(session)
    if refused:
        return refuse(_PM_MESSAGES[refused][1])
    if form.get("formhash") != session.formhash:
        return refuse(SUBMIT_INVALID[1])
    touid = _int_or_zero(query.get("touid") or form.get("touid"))
    outcome, pm = forum._send_pm(
        session,
        touid=touid,
        username=form.get("username", ""),
        subject="",
        message=form.get("message", ""),
        via="web",
    )
    if outcome != "ok":
        return refuse(_PM_MESSAGES[outcome][1])
    # do_success with showmsg off: no text, only the handler with the new pmid.
    url = f"home.php?mod=space&do=pm&subop=view&touid={pm.to_uid}"
    return _handled("succeed", handlekey, "", f"'{url}', '{PM_SENT}', {{'pmid':'{pm.pmid}'}}")


def _web_thread(forum: FakeForum, session: _Session | None, query: dict[str, str]) -> str:
    """The thread page (or its ``authorid`` filter): posts, and the fast-reply form if allowed."""
    thread = forum.threads.get(int(query.get("tid") or 0))
    if thread is None:
        return _page(
            forum,
            "提示信息",
            '<div id="messagetext"><p>抱歉，指定的主题不存在或已被删除或正在被审核</p></div>',
            session,
        )
    authorid = query.get("authorid")
    posts = [
        p
        for p in thread.visible()
        if authorid is None or (str(p.authorid) == authorid and not p.anonymous)
    ]
    items = "\n".join(
        f'<div id="post_{p.pid}"><table id="pid{p.pid}"><tr><td class="pls">'
        f'<div class="authi"><a href="home.php?mod=space&amp;uid={p.authorid}" class="xw1">'
        f"{html.escape(ANONYMOUS if p.anonymous else p.author)}</a></div></td>"
        f'<td class="plc"><div class="pi"><strong><a href="forum.php?mod=redirect&amp;goto=findpost'
        f'&amp;ptid={p.tid}&amp;pid={p.pid}" id="postnum{p.pid}"><em>{p.position}</em><sup>#</sup>'
        f'</a></strong><em id="authorposton{p.pid}">发表于 {_display(p.posted_at)}</em></div>'
        f'<td class="t_f" id="postmessage_{p.pid}">\r\n{p.message}</td></td></tr></table></div>'
        for p in posts
    )
    form = ""
    if session is not None and not forum.posting_off and not thread.closed:
        form = (
            f'<form method="post" autocomplete="off" id="fastpostform" action="forum.php?mod=post'
            f"&amp;action=reply&amp;fid={thread.fid}&amp;tid={thread.tid}&amp;extra=page%3D1"
            f'&amp;replysubmit=yes&amp;infloat=yes&amp;handlekey=fastpost" '
            'onSubmit="return fastpostvalidate(this)">'
            f'<input type="hidden" name="formhash" value="{session.formhash}" />'
            '<input type="hidden" name="usesig" value="" />'
            '<input type="hidden" name="subject" value="  " />'
            f'<textarea rows="6" cols="80" name="message" id="fastpostmessage"></textarea></form>'
        )
    body = f'<h1>{html.escape(thread.subject)}</h1>\n<div id="postlist">{items}</div>\n{form}'
    return _page(forum, thread.subject, body, session)


def _page(forum: FakeForum, title: str, body: str, session: _Session | None) -> str:
    uid = session.uid if session else 0
    formhash = session.formhash if session else GUEST_FORMHASH
    return (
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
        f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8" />'
        f"<title>{html.escape(title)} - {forum.site_name} -  Powered by Discuz!</title>"
        f"<script type=\"text/javascript\">var STYLEID = '1', discuz_uid = '{uid}', "
        f"cookiepre = '{COOKIEPRE}';</script></head><body>"
        f'<div id="toptb"><input type="hidden" name="formhash" value="{formhash}" /></div>'
        f"{body}</body></html>"
    )


def _web_login(forum: FakeForum, form: dict[str, str]) -> tuple[str, str | None]:
    result = forum._login(form.get("username", ""), form.get("password", ""))
    if result is None:
        text = "登录失败，您还可以尝试 4 次"
        return _handled("error", "ls", text, f"'{text}', {{'loginperm':'4'}}"), None
    token, session = result
    text = f"欢迎您回来，{session.username}，现在将转入登录前页面"
    params = (
        f"{{'username':'{_js(session.username)}','usergroup':'注册会员',"
        f"'uid':'{session.uid}','groupid':'10','syn':'0'}}"
    )
    return _handled("succeed", "ls", "", f"'forum.php', '{_js(text)}', {params}"), token


def _web_message(message: str) -> str:
    """The web pages' form of a message: every line break is a ``<br />``."""
    return re.sub(
        r"(<br\s*/?>)?\r?\n", lambda m: m.group(0) if m.group(1) else "<br />\r\n", message
    )


def _printable_page(forum: FakeForum, thread: FakeThread) -> str:
    parts = [
        "<html>\n<head>\n"
        f"<title>{html.escape(thread.subject)} - {forum.site_name}</title>\n"
        '<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />\n'
        '<style type="text/css">\nbody \t   {margin: 10px 80px;}\n</style>\n</head>\n\n<body>\n'
        f"<h1>{forum.site_name}</h1>\n"
        f'<b>标题: </b>{html.escape(thread.subject)} <b><a href="###" onclick="this.style.'
        "visibility='hidden';window.print();this.style.visibility='visible'\">[打印本页]</a></b>"
        "</span><br />\n"
    ]
    for post in thread.visible():
        author = ANONYMOUS if post.anonymous else html.escape(post.author)
        parts.append(
            '\t<hr noshade size="2" width="100%" color="#808080">\n'
            f"\t<b>作者: </b>{author}&nbsp; &nbsp; <b>时间: </b>{_display(post.posted_at)}\n"
            "\t<br />\n"
            + (f"\t\t<b>标题: </b>{html.escape(thread.subject)}<br />" if post.first else "")
            + f"\t\t{_web_message(post.message)}\n"
        )
    parts.append(
        '\n<br /><br /><br /><br /><hr noshade size="2" width="100%" color="#808080">\n'
        '<table cellspacing="0" cellpadding="0" border="0" width="95%" align="center" '
        'style="font-size: 12px; font-family: Tahoma">\n'
        f'<tr><td>欢迎光临 {forum.site_name} (<a href="{forum.base_url}">{forum.base_url}</a>)'
        '</td>\n<td align="right">Powered by Discuz! X3.2</td></tr></table>\n\n</body>\n</html>'
    )
    return "".join(parts)


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _discourse_post(post: FakePost) -> dict[str, Any]:
    return {
        "id": post.pid,
        "name": post.author,
        "username": post.author,
        "avatar_template": f"/user_avatar/forum/{post.author}/{{size}}/1_2.png",
        "created_at": _iso(post.posted_at),
        "updated_at": _iso(post.updated_at or post.posted_at),
        "cooked": post.message,
        "raw": post.raw,
        "post_number": post.position,
        "post_type": 1,
        "reply_count": 0,
        "reply_to_post_number": post.reply_to_post_number,
        "topic_id": post.tid,
        "user_id": post.authorid,
        "version": post.version,
        "deleted_at": None,
        "hidden": False,
    }


_NOT_FOUND = {
    "errors": ["The requested URL or resource could not be found."],
    "error_type": "not_found",
}


_BAD_KEY = {
    "errors": [
        "You are not permitted to view the requested resource. The API username or key is invalid."
    ],
    "error_type": "invalid_access",
}


def _rate_limited(seconds: int) -> tuple[int, Any, dict[str, str]]:
    return (
        429,
        {
            "errors": [
                "You’ve performed this action too many times. "
                f"Please wait {seconds} seconds before trying again."
            ],
            "error_type": "rate_limit",
            "extras": {"wait_seconds": seconds, "time_left": f"{seconds} seconds"},
        },
        {"Retry-After": str(seconds)},
    )


def _discourse_pm(forum: FakeForum, body: Any) -> tuple[int, Any, dict[str, str]]:
    """A new private-message topic, as TopicCreator checks it (422 with ``errors`` on a
    refusal). Today's Discourse permits ``target_recipients`` only."""

    def refuse(*errors: str) -> tuple[int, Any, dict[str, str]]:
        return 422, {"action": "create_post", "errors": list(errors)}, {}

    title, raw = str(body.get("title") or ""), str(body.get("raw") or "")
    names = [n.strip() for n in str(body.get("target_recipients") or "").split(",") if n.strip()]
    # min_personal_message_title_length and min_personal_message_post_length are 2 by default.
    if len(title.strip()) < 2:
        return refuse("Title is too short (minimum is 2 characters)")
    if len(raw.strip()) < 2:
        return refuse("Body is too short (minimum is 2 characters)")
    if not names:
        return refuse("You must select a valid user.")
    accounts = [a for a in (forum._account(username=n) for n in names) if a is not None]
    if accounts and forum.pm_off:
        return refuse("Sorry, you cannot send a personal message to that user.")
    if len(accounts) != len(names):
        return refuse("One of the users you are sending this message to could not be found.")
    session = _Session(uid=forum.user(forum.api_username), username=forum.api_username, formhash="")
    with forum._lock:
        if forum._flooded(session.uid):
            return _rate_limited(forum.flood_seconds)
        for uid, _ in accounts:
            forum._send_pm(
                session, touid=uid, username="", subject=title, message=raw, via="discourse"
            )
    topic_id = next(forum._tids)
    return (
        200,
        {
            "id": next(forum._pids),
            "username": forum.api_username,
            "created_at": _iso(dt.datetime.now(dt.UTC)),
            "cooked": f"<p>{html.escape(raw)}</p>",
            "raw": raw,
            "post_number": 1,
            "post_type": 1,
            "topic_id": topic_id,
            "topic_slug": "private-message",
            "user_id": session.uid,
            "version": 1,
        },
        {},
    )


def _discourse(
    forum: FakeForum, method: str, path: str, query: dict[str, list[str]], headers: Any, body: Any
) -> tuple[int, Any, dict[str, str]]:
    keyed = (
        headers.get("Api-Key") == forum.api_key
        and headers.get("Api-Username") == forum.api_username
    )
    if method == "POST" and path == "/posts.json":
        if not keyed:
            return 403, _BAD_KEY, {}
        if body.get("archetype") == "private_message":
            return _discourse_pm(forum, body)
        tid = int(body.get("topic_id") or 0)
        thread = forum.threads.get(tid)
        if thread is None:
            return 404, _NOT_FOUND, {}
        session = _Session(
            uid=forum.user(forum.api_username), username=forum.api_username, formhash=""
        )
        outcome, detail = forum._add_reply(session, tid, str(body.get("raw", "")))
        if outcome == "ok":
            return 200, _discourse_post(detail), {}
        if outcome == "flood":
            return _rate_limited(detail)
        return (
            403,
            {
                "errors": ["You are not permitted to view the requested resource."],
                "error_type": "invalid_access",
            },
            {},
        )
    user = re.fullmatch(r"/u/([^/]+)\.json", path)
    if method == "GET" and user:
        named = forum._account(username=unquote(user.group(1)))
        if named is None:
            return 404, _NOT_FOUND, {}
        return 200, {"user": {"id": named[0], "username": named[1], "name": named[1]}}, {}
    admin_user = re.fullmatch(r"/admin/users/(\d+)\.json", path)
    if method == "GET" and admin_user:
        if not keyed:
            return 403, _BAD_KEY, {}
        numbered = forum._account(uid=int(admin_user.group(1)))
        if numbered is None:
            return 404, _NOT_FOUND, {}
        return 200, {"id": numbered[0], "username": numbered[1], "admin": False}, {}
    by_number = re.fullmatch(r"/posts/by_number/(\d+)/(\d+)\.json", path)
    if method == "GET" and by_number:
        topic = forum.threads.get(int(by_number.group(1)))
        number = int(by_number.group(2))
        found = [p for p in topic.visible() if p.position == number] if topic else []
        return (200, _discourse_post(found[0]), {}) if found else (404, _NOT_FOUND, {})
    match = re.fullmatch(r"/t/(\d+)(/posts)?\.json", path)
    if method != "GET" or match is None:
        return 404, _NOT_FOUND, {}
    thread = forum.threads.get(int(match.group(1)))
    if thread is None:
        return 404, _NOT_FOUND, {}
    visible = thread.visible()
    if match.group(2):
        wanted = {int(i) for i in query.get("post_ids[]", [])}
        posts = [_discourse_post(p) for p in visible if p.pid in wanted]
        return 200, {"post_stream": {"posts": posts}, "id": thread.tid}, {}
    return (
        200,
        {
            "id": thread.tid,
            "title": thread.subject,
            "fancy_title": thread.subject,
            "posts_count": len(visible),
            "highest_post_number": thread.maxposition,
            "closed": thread.closed,
            "archived": False,
            "post_stream": {
                "posts": [_discourse_post(p) for p in visible[:20]],
                "stream": [p.pid for p in visible],
            },
        },
        {},
    )


class _Handler(BaseHTTPRequestHandler):
    forum: FakeForum
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out apart; no delayed-ACK stall

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet tests

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        forum = self.forum
        length = int(self.headers.get("Content-Length") or 0)
        raw_body = self.rfile.read(length) if length else b""
        forum.requests.append((method, self.path))
        if forum.delay:
            time.sleep(forum.delay)
        failure = forum._next_failure()
        if failure is not None:
            self._send(
                failure, "text/html", f"<html><body><h1>{failure} Bad Gateway</h1></body></html>"
            )
            return
        url = urlsplit(self.path)
        multi = parse_qs(url.query, keep_blank_values=True)
        query = {k: v[-1] for k, v in multi.items()}
        ctype = self.headers.get("Content-Type", "")
        if "json" in ctype:
            body: Any = json.loads(raw_body or b"{}")
            form: dict[str, str] = {}
        else:
            form = {
                k: v[-1] for k, v in parse_qs(raw_body.decode(), keep_blank_values=True).items()
            }
            body = form
        cookies: SimpleCookie = SimpleCookie(self.headers.get("Cookie", ""))
        session = forum._session(cookies)

        if url.path == "/api/mobile/index.php":
            self._mobile(method, query, form, session)
        elif url.path == "/forum.php":
            self._forum(query, form, session)
        elif url.path == "/home.php" and (query.get("mod"), query.get("ac")) == ("spacecp", "pm"):
            if query.get("inajax") and method == "POST":
                self._send(200, "text/xml", _web_pm_send(forum, session, query, form))
            else:
                self._send(200, "text/html", _web_pm_form(forum, session, query))
        elif url.path == "/member.php" and query.get("mod") == "logging":
            page, token = _web_login(forum, form)
            self._send(200, "text/xml", page, token=token)
        else:
            status, payload, extra = _discourse(forum, method, url.path, multi, self.headers, body)
            self._send(
                status, "application/json", json.dumps(payload, ensure_ascii=False), headers=extra
            )

    def _mobile(
        self, method: str, query: dict[str, str], form: dict[str, str], session: _Session | None
    ) -> None:
        forum = self.forum
        if forum.mobile_closed:
            self._json({"error": "mobile_is_closed"})
            return
        module = query.get("module")
        if module == "viewthread":
            self._json(_viewthread(forum, session, query))
        elif module == "login" and method == "POST":
            result = forum._login(form.get("username", ""), form.get("password", ""))
            if result is None:
                self._json(
                    _mobile(
                        forum,
                        None,
                        {"auth": None},
                        ("login_invalid", "登录失败，您还可以尝试 4 次"),
                    )
                )
                return
            token, account = result
            # FORMHASH is computed before the login, so this answer still carries a guest's.
            reply = _mobile(
                forum,
                None,
                {"auth": token},
                ("login_succeed", f"欢迎您回来，{account.username}，现在将转入登录前页面"),
            )
            self._json(reply, token=token)
        elif module == "sendreply" and method == "POST":
            self._json(_sendreply(forum, session, query, form))
        elif module == "sendpm":
            self._json(_sendpm(forum, method, session, query, form))
        else:
            self._json(_mobile(forum, session, {}, ("undefined_action", "未定义操作")))

    def _forum(self, query: dict[str, str], form: dict[str, str], session: _Session | None) -> None:
        forum = self.forum
        if query.get("mod") == "viewthread" and query.get("action") == "printable":
            thread = forum.threads.get(int(query.get("tid") or 0))
            if thread is None:
                self._send(
                    200,
                    "text/html",
                    _page(
                        forum, "提示信息", "抱歉，指定的主题不存在或已被删除或正在被审核", session
                    ),
                )
            else:
                self._send(200, "text/html", _printable_page(forum, thread))
        elif query.get("mod") == "viewthread":
            self._send(200, "text/html", _web_thread(forum, session, query))
        elif query.get("mod") == "post" and query.get("action") == "reply":
            self._send(200, "text/xml", _web_reply(forum, session, query, form))
        else:
            self._send(404, "text/html", "<html><body>404 Not Found</body></html>")

    def _json(self, payload: Any, *, token: str | None = None) -> None:
        self._send(200, "application/json", json.dumps(payload, ensure_ascii=False), token=token)

    def _send(
        self,
        status: int,
        ctype: str,
        text: str,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        data = text.encode()
        # The client may have given up waiting (the timeout tests): nobody to answer.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.send_response(status)
            self.send_header("Content-Type", f"{ctype}; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            if token is not None:
                self.send_header("Set-Cookie", f"{COOKIEPRE}auth={token}; path=/; HttpOnly")
                self.send_header("Set-Cookie", f"{COOKIEPRE}saltkey=kR1pQ8aA; path=/; HttpOnly")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)


def running_forum() -> Iterator[FakeForum]:
    """Start a forum for one test and stop it after (the body of the ``fake_forum`` fixture)."""
    forum = FakeForum().start()
    try:
        yield forum
    finally:
        forum.stop()
