"""Discuz! X3.2 through its mobile API (version 4), with the web form as the fallback for replies.

Reading: ``module=viewthread`` pages cover floor ranges (page P of ``ppp`` holds positions
``(P-1)*ppp+1 … P*ppp``; deleted floors leave gaps, so a page may hold fewer posts), so a fetch
starts at the page of the first wanted floor and stops at the page of ``maxposition``. Every value
arrives as a string. Writing: log in, fetch a fresh ``formhash`` (the login answer still carries
the guest's), ``module=sendreply``. When the mobile plugin is off, the same is done through the
web pages a browser uses (``member.php`` login, the thread page's fast-reply form, ``inajax=1``).
"""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any
from urllib.parse import urlencode

import httpx

from games.forum import transport
from games.forum.base import ForumPost, ForumSiteConfig, ThreadPage
from games.forum.errors import (
    ForumAuthFailed,
    ForumClosed,
    ForumError,
    ForumFlood,
    ForumPostingOff,
    ForumThreadNotFound,
)
from games.forum.text import read_html

API = "api/mobile/index.php"
PPP = 100
# Discuz says how long to wait only as "间隔少于 N 秒"; its per-hour quota names no time.
FLOOD_FALLBACK_SECONDS = 60

_REPLY_OK = frozenset({"post_reply_succeed", "post_reply_mod_succeed"})
_NOT_FOUND = ("thread_nonexistence", "thread_nopermission_nonexistence")
# Discuz's refusals that mean "this account may not reply here (now)".
_POSTING_OFF = re.compile(r"nopermission|closed|post_forum_newreply|replyperm|readperm")
_SECONDS = re.compile(r"(\d+)\s*秒")
_FLOODCTRL = re.compile(r"'floodctrl'\s*:\s*'(\d+)'")


def _malformed(what: str) -> ForumError:
    return ForumError(
        f"论坛返回的数据无法识别：{what}", message_en=f"Unexpected forum data: {what}"
    )


def _int(value: object, what: str) -> int:
    """A number the API sends as a string ("" or absent: 0)."""
    try:
        return int(str(value or 0))
    except ValueError:
        raise _malformed(f"{what}={value!r}") from None


def _tid(thread: str) -> str:
    if not thread.strip().isdigit():
        raise ForumThreadNotFound(
            f"帖子编号应是数字（tid），收到：{thread}",
            message_en=f"A thread id (tid) is a number, not {thread!r}.",
        )
    return thread.strip()


def _message(body: dict[str, Any]) -> tuple[str, str]:
    message = body.get("Message") or {}
    return str(message.get("messageval") or ""), str(message.get("messagestr") or "")


def _mobile_body(response: httpx.Response) -> dict[str, Any]:
    body = transport.json_body(response)
    if not isinstance(body, dict):
        raise _malformed("not an object")
    if body.get("error") == "mobile_is_closed":
        raise ForumClosed()
    return body


def _mobile_post(
    http: httpx.Client, params: dict[str, str], data: dict[str, str]
) -> dict[str, Any]:
    query = {"version": "4", **params, "charset": "utf-8"}
    return _mobile_body(transport.send(http, "POST", API, params=query, data=data))


def _refusal(code: str, text: str) -> ForumError:
    """The error for a Discuz ``messageval`` (or web message) that refused a reply."""
    if code.startswith("post_flood_ctrl") or "灌水" in text or "间隔少于" in text:
        seconds = _SECONDS.search(text)
        return ForumFlood(
            f"论坛灌水预防：{text}" if text else None,
            retry_after=int(seconds.group(1)) if seconds else FLOOD_FALLBACK_SECONDS,
        )
    if code.startswith(_NOT_FOUND) or "主题不存在" in text:
        return ForumThreadNotFound()
    if _POSTING_OFF.search(code) or "没有权限" in text or "已关闭" in text:
        return ForumPostingOff(f"论坛拒绝回帖：{text}" if text else None)
    if code.startswith(("to_login", "login_")):
        return ForumAuthFailed(f"论坛登录失败：{text}" if text else None)
    return ForumError(f"论坛拒绝了回帖：{text or code}", message_en=f"The forum refused: {code}")


def _post(raw: dict[str, Any]) -> ForumPost:
    try:
        message = str(raw.get("message") or "")
        anonymous = str(raw.get("anonymous") or "0") == "1"
        uid = str(raw.get("authorid") or "0")
        read = read_html(message)
        return ForumPost(
            external_id=str(raw["pid"]),
            floor=int(raw["position"]),
            author=html.unescape(str(raw.get("author") or "")),
            author_uid="" if anonymous or uid == "0" else uid,
            posted_at=dt.datetime.fromtimestamp(int(raw["dbdateline"]), tz=dt.UTC),
            text=read.text,
            html=message,
            reply_to=read.reply_to,
            anonymous=anonymous,
            first=str(raw.get("first") or "0") == "1",
        )
    except (KeyError, TypeError, ValueError) as error:
        raise _malformed(f"post {raw.get('pid')!r}: {error!r}") from error


class DiscuzAdapter(transport.HttpAdapter):
    def __init__(
        self,
        base_url: str,
        *,
        username: str = "",
        password: str = "",
        posting_enabled: bool = True,
        ppp: int = PPP,
        timeout: float = transport.TIMEOUT,
    ) -> None:
        self.base_url = base_url
        self.username = username
        self.password = password
        self.posting_enabled = posting_enabled
        self.ppp = ppp
        self.timeout = timeout
        super().__init__(base_url, timeout=timeout)

    # -- reading ----------------------------------------------------------------------------

    def fetch(self, thread: str, *, after_floor: int) -> ThreadPage:
        tid = _tid(thread)
        ppp = self.ppp
        page = after_floor // ppp + 1
        posts: dict[int, ForumPost] = {}
        while True:
            variables = self._viewthread(self._http, tid, page=page, ppp=ppp)
            served_ppp = _int(variables.get("ppp"), "ppp") or ppp
            if served_ppp != ppp:
                # The forum capped ``ppp``: pages cover other floors than asked; start again.
                ppp = served_ppp
                page = after_floor // ppp + 1
                continue
            info = variables.get("thread") or {}
            last_floor = _int(info.get("maxposition"), "maxposition") or (
                _int(info.get("replies"), "replies") + 1
            )
            for raw in variables.get("postlist") or []:
                post = _post(raw)
                if post.floor > after_floor:
                    posts[post.floor] = post
            if page * ppp >= last_floor:
                break
            page += 1
        ordered = [posts[floor] for floor in sorted(posts)]
        return ThreadPage(posts=ordered, last_floor=max([last_floor, *posts]))

    def _viewthread(self, http: httpx.Client, tid: str, *, page: int, ppp: int) -> dict[str, Any]:
        params = {"version": "4", "module": "viewthread", "tid": tid, "page": page, "ppp": ppp}
        body = _mobile_body(transport.send(http, "GET", API, params=params))
        code, text = _message(body)
        variables = body.get("Variables")
        if not isinstance(variables, dict) or not isinstance(variables.get("thread"), dict):
            if code.startswith(_NOT_FOUND):
                raise ForumThreadNotFound()
            raise _malformed(text or code or "no thread")
        return variables

    # -- writing ----------------------------------------------------------------------------

    def reply(self, thread: str, text: str) -> str:
        tid = _tid(thread)
        if not self.posting_enabled:
            raise ForumPostingOff("本站未开启向该论坛回帖。", message_en="Posting is switched off.")
        if not (self.username and self.password):
            raise ForumAuthFailed("未设置论坛账号或密码。", message_en="No forum account is set.")
        with transport.client(self.base_url, timeout=self.timeout) as http:
            try:
                return self._reply_mobile(http, tid, text)
            except ForumClosed:
                return self._reply_web(http, tid, text)

    def _reply_mobile(self, http: httpx.Client, tid: str, text: str) -> str:
        login = _mobile_post(
            http,
            {"module": "login", "loginsubmit": "yes"},
            {"username": self.username, "password": self.password, "questionid": "0"},
        )
        code, message = _message(login)
        if code != "login_succeed":
            raise ForumAuthFailed(f"论坛登录失败：{message}" if message else None)
        variables = self._viewthread(http, tid, page=1, ppp=1)
        if str(variables.get("member_uid") or "0") == "0":
            raise ForumAuthFailed()
        body = _mobile_post(
            http,
            {"module": "sendreply", "tid": tid, "replysubmit": "yes"},
            {"formhash": str(variables.get("formhash") or ""), "message": text},
        )
        code, message = _message(body)
        pid = str((body.get("Variables") or {}).get("pid") or "")
        if code in _REPLY_OK and pid:
            return pid
        raise _refusal(code, message)

    def _reply_web(self, http: httpx.Client, tid: str, text: str) -> str:
        login = transport.send(
            http,
            "POST",
            "member.php",
            params={
                "mod": "logging",
                "action": "login",
                "loginsubmit": "yes",
                "infloat": "yes",
                "lssubmit": "yes",
                "inajax": "1",
            },
            data={
                "fastloginfield": "username",
                "username": self.username,
                "password": self.password,
                "quickforward": "yes",
                "handlekey": "ls",
            },
        )
        if "succeedhandle_" not in login.text:
            raise ForumAuthFailed(f"论坛登录失败：{_ajax_text(login.text)}")
        page = transport.send(http, "GET", "forum.php", params={"mod": "viewthread", "tid": tid})
        if "主题不存在" in page.text:
            raise ForumThreadNotFound()
        if re.search(r"discuz_uid\s*=\s*'0'", page.text):
            raise ForumAuthFailed()
        action = re.search(r'id="fastpostform"[^>]*?action="([^"]+)"', page.text)
        formhash = re.search(r'name="formhash"\s+value="([0-9a-zA-Z]+)"', page.text)
        if action is None or formhash is None:
            raise ForumPostingOff("论坛页面上没有回帖框（该账号无权在此回帖，或帖子已关闭）。")
        # A GBK forum reads the form in its own charset.
        charset = re.search(r"charset=([\w-]+)", page.headers.get("content-type", ""))
        encoding = charset.group(1) if charset else "utf-8"
        form = {"formhash": formhash.group(1), "message": text, "usesig": "", "subject": ""}
        answer = transport.send(
            http,
            "POST",
            html.unescape(action.group(1)) + "&inajax=1",
            content=urlencode(form, encoding=encoding),
            headers={"Content-Type": f"application/x-www-form-urlencoded; charset={encoding}"},
        )
        if "succeedhandle_" in answer.text:
            pid = re.search(r"'pid'\s*:\s*'(\d+)'", answer.text) or re.search(
                r"pid=(\d+)", answer.text
            )
            if pid:
                return pid.group(1)
        message = _ajax_text(answer.text)
        flood = _FLOODCTRL.search(answer.text)
        if flood:
            raise ForumFlood(f"论坛灌水预防：{message}", retry_after=int(flood.group(1)))
        raise _refusal("", message)


def _ajax_text(answer: str) -> str:
    """The message of an ``inajax`` answer: the CDATA's text before its script."""
    inner = re.search(r"<!\[CDATA\[(.*?)(?:<script|\]\]>)", answer, re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", inner.group(1))).strip() if inner else ""


def from_site(site: ForumSiteConfig) -> DiscuzAdapter:
    return DiscuzAdapter(
        site.base_url,
        username=site.username,
        password=site.password,
        posting_enabled=site.posting_enabled,
    )
