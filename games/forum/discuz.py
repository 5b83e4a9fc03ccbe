"""Discuz! X3.2 through its mobile API (version 4), with the web form as the fallback for replies.

Reading: ``module=viewthread`` pages cover floor ranges (page P of ``ppp`` holds positions
``(P-1)*ppp+1 … P*ppp``; deleted floors leave gaps, so a page may hold fewer posts), so a fetch
starts at the page of the first wanted floor and stops at the page of ``maxposition``. Every value
arrives as a string. Writing: log in, fetch a fresh ``formhash`` (the login answer still carries
the guest's), ``module=sendreply``. When the mobile plugin is off, the same is done through the
web pages a browser uses (``member.php`` login, the thread page's fast-reply form, ``inajax=1``).
Private messages go the same two ways: ``module=sendpm`` (``touid`` or ``username``,
``pmsubmit=yes``), or the web form ``home.php?mod=spacecp&ac=pm&op=send`` posted with ``inajax=1``.
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
    ForumPmRefused,
    ForumPmUnknownUser,
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
# Private messages (``source/include/spacecp/spacecp_pm.php``, op=send): the mobile API answers
# with the ``showmessage`` key, the web form only with its text (``lang_message.php``).
_PM_SENT = "do_success"
_PM_UNKNOWN = ("message_bad_touid", "message_bad_touser")
_PM_UNKNOWN_TEXT = "用户不存在或被冻结"
_PM_FLOOD = "message_can_not_send_2"
_PM_FLOOD_TEXT = "两次发送短消息太快"
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


def _pm_refusal(code: str, text: str) -> ForumError:
    """The error for a Discuz answer that did not send a private message."""
    if code in _PM_UNKNOWN or _PM_UNKNOWN_TEXT in text:
        return ForumPmUnknownUser(f"论坛找不到收信人：{text}" if text else None)
    if code == _PM_FLOOD or _PM_FLOOD_TEXT in text:
        # Discuz's PM interval is the posting one (``floodctrl``), but its text names no time.
        return ForumFlood(
            f"论坛灌水预防：{text}" if text else None, retry_after=FLOOD_FALLBACK_SECONDS
        )
    if code.startswith(("to_login", "login_")) or "需要先登录" in text:
        return ForumAuthFailed(f"论坛登录失败：{text}" if text else None)
    return ForumPmRefused(
        f"论坛拒绝发送站内信：{text or code}" if text or code else None,
        message_en=f"The forum refused the private message: {code or text}",
    )


def _recipient(to_uid: str, to_username: str) -> tuple[str, str]:
    """``(uid, "")`` when there is a uid (Discuz ignores the name then), else ``("", name)``."""
    uid, name = to_uid.strip(), to_username.strip()
    if uid and not uid.isdigit():
        raise ForumPmUnknownUser(
            f"论坛 UID 应是数字，收到：{to_uid}",
            message_en=f"A forum uid is a number, not {to_uid!r}.",
        )
    if not (uid or name):
        raise ForumPmUnknownUser(
            "未指定收信人（论坛 UID 或用户名）。", message_en="No recipient (uid or username)."
        )
    return (uid, "") if uid else ("", name)


def _page_encoding(page: httpx.Response) -> str:
    # A GBK forum reads its forms in its own charset.
    charset = re.search(r"charset=([\w-]+)", page.headers.get("content-type", ""))
    return charset.group(1) if charset else "utf-8"


def _post_form(http: httpx.Client, url: str, form: dict[str, str], encoding: str) -> httpx.Response:
    return transport.send(
        http,
        "POST",
        url,
        content=urlencode(form, encoding=encoding),
        headers={"Content-Type": f"application/x-www-form-urlencoded; charset={encoding}"},
    )


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
    supports_pm = True

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

    def _login_mobile(self, http: httpx.Client) -> None:
        login = _mobile_post(
            http,
            {"module": "login", "loginsubmit": "yes"},
            {"username": self.username, "password": self.password, "questionid": "0"},
        )
        code, message = _message(login)
        if code != "login_succeed":
            raise ForumAuthFailed(f"论坛登录失败：{message}" if message else None)

    def _login_web(self, http: httpx.Client) -> None:
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

    def _reply_mobile(self, http: httpx.Client, tid: str, text: str) -> str:
        self._login_mobile(http)
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
        self._login_web(http)
        page = transport.send(http, "GET", "forum.php", params={"mod": "viewthread", "tid": tid})
        if "主题不存在" in page.text:
            raise ForumThreadNotFound()
        if re.search(r"discuz_uid\s*=\s*'0'", page.text):
            raise ForumAuthFailed()
        action = re.search(r'id="fastpostform"[^>]*?action="([^"]+)"', page.text)
        formhash = re.search(r'name="formhash"\s+value="([0-9a-zA-Z]+)"', page.text)
        if action is None or formhash is None:
            raise ForumPostingOff("论坛页面上没有回帖框（该账号无权在此回帖，或帖子已关闭）。")
        form = {"formhash": formhash.group(1), "message": text, "usesig": "", "subject": ""}
        answer = _post_form(
            http, html.unescape(action.group(1)) + "&inajax=1", form, _page_encoding(page)
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

    # -- private messages -------------------------------------------------------------------

    def send_pm(self, *, to_uid: str, to_username: str, subject: str, text: str) -> None:
        """Discuz X's two-person messages have no subject (its form sends one only for group
        chats), so ``subject`` is not sent: ``text`` must stand on its own."""
        uid, username = _recipient(to_uid, to_username)
        if not (self.username and self.password):
            raise ForumAuthFailed("未设置论坛账号或密码。", message_en="No forum account is set.")
        with transport.client(self.base_url, timeout=self.timeout) as http:
            try:
                self._pm_mobile(http, uid, username, text)
            except ForumClosed:
                self._pm_web(http, uid, username, text)

    def _pm_mobile(self, http: httpx.Client, uid: str, username: str, text: str) -> None:
        self._login_mobile(http)
        params = {"module": "sendpm", **({"touid": uid} if uid else {})}
        # Without ``pmsubmit`` the module only runs the forum's checks (login, PM permission,
        # interval) and answers with the logged-in account's formhash; the login answer
        # still carries the guest's, and a PM has no thread to read one from.
        first = _mobile_body(
            transport.send(http, "GET", API, params={"version": "4", **params, "charset": "utf-8"})
        )
        code, message = _message(first)
        if code:
            raise _pm_refusal(code, message)
        variables = first.get("Variables") or {}
        if str(variables.get("member_uid") or "0") == "0":
            raise ForumAuthFailed()
        recipient = {"touid": uid} if uid else {"username": username}
        body = _mobile_post(
            http,
            {**params, "pmsubmit": "yes"},
            {"formhash": str(variables.get("formhash") or ""), "message": text, **recipient},
        )
        code, message = _message(body)
        if code != _PM_SENT:
            raise _pm_refusal(code, message)

    def _pm_web(self, http: httpx.Client, uid: str, username: str, text: str) -> None:
        self._login_web(http)
        params = {"mod": "spacecp", "ac": "pm", "op": "send", **({"touid": uid} if uid else {})}
        page = transport.send(http, "GET", "home.php", params=params)
        # A refusal is Discuz's message page; its first paragraph is the message, the next
        # ones are links back.
        refused = re.search(r'id="messagetext"[^>]*>\s*<p>(.*?)</p>', page.text, re.S)
        if refused:
            raise _pm_refusal("", html.unescape(re.sub(r"<[^>]+>", "", refused.group(1))).strip())
        if re.search(r"discuz_uid\s*=\s*'0'", page.text):
            raise ForumAuthFailed()
        formhash = re.search(r'name="formhash"\s+value="([0-9a-zA-Z]+)"', page.text)
        if formhash is None:
            raise _malformed("no formhash on the PM page")
        form = {"formhash": formhash.group(1), "pmsubmit": "true", "message": text}
        if not uid:
            form["username"] = username
        # Discuz names the handler in its answer only when asked for one by ``handlekey``.
        query = urlencode({**params, "pmsubmit": "yes", "handlekey": "pmsend", "inajax": "1"})
        answer = _post_form(http, f"home.php?{query}", form, _page_encoding(page))
        if "succeedhandle_pmsend" not in answer.text:
            raise _pm_refusal("", _ajax_text(answer.text))


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
