"""Discourse through its JSON API.

``GET /t/{id}.json`` gives ``highest_post_number`` and ``post_stream.stream``, every visible
post id in post-number order. At most ``highest_post_number - after_floor`` posts can be newer
than ``after_floor``, so only that tail of the stream is read, 20 ids per
``GET /t/{id}/posts.json?post_ids[]=…`` (Discourse's own chunk size), and older posts are never
fetched again. Quotes and replies name post *numbers*; the contract wants post ids, so numbers
outside the fetched tail are looked up with ``GET /posts/by_number/{topic}/{number}.json``.
A private message is a new topic: ``POST /posts.json`` with ``archetype=private_message``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import quote

import httpx

from games.forum import transport
from games.forum.base import ForumPost, ForumSiteConfig, ThreadPage
from games.forum.errors import (
    ForumAuthFailed,
    ForumError,
    ForumFlood,
    ForumPmRefused,
    ForumPmUnknownUser,
    ForumPostingOff,
    ForumThreadNotFound,
)
from games.forum.text import read_html

CHUNK = 20
RATE_LIMIT_FALLBACK_SECONDS = 60


def _topic(thread: str) -> str:
    if not thread.strip().isdigit():
        raise ForumThreadNotFound(
            f"帖子编号应是数字（topic id），收到：{thread}",
            message_en=f"A topic id is a number, not {thread!r}.",
        )
    return thread.strip()


def _errors(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("errors"), list):
        return "；".join(str(e) for e in body["errors"])
    return ""


class DiscourseAdapter(transport.HttpAdapter):
    supports_pm = True

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str = "",
        api_username: str = "",
        posting_enabled: bool = True,
        timeout: float = transport.TIMEOUT,
    ) -> None:
        self.posting_enabled = posting_enabled
        self.has_key = bool(api_key and api_username)
        headers = {"Api-Key": api_key, "Api-Username": api_username} if self.has_key else {}
        headers["Accept"] = "application/json"
        super().__init__(base_url, timeout=timeout, headers=headers)

    def _get(self, path: str, **params: Any) -> Any:
        response = transport.send(self._http, "GET", path, params=params or None)
        if response.status_code == 404:
            raise ForumThreadNotFound()
        if response.status_code in (401, 403):
            raise ForumAuthFailed(_errors(transport.json_body(response)) or None)
        if response.status_code >= 400:
            raise ForumError(
                f"论坛拒绝了请求（HTTP {response.status_code}）。",
                message_en=f"The forum answered HTTP {response.status_code}.",
            )
        return transport.json_body(response)

    def fetch(self, thread: str, *, after_floor: int) -> ThreadPage:
        topic_id = _topic(thread)
        topic = self._get(f"t/{topic_id}.json")
        try:
            highest = int(topic["highest_post_number"])
            stream = [int(i) for i in topic["post_stream"]["stream"]]
            loaded = {int(p["id"]): p for p in topic["post_stream"].get("posts") or []}
        except (KeyError, TypeError, ValueError) as error:
            raise ForumError(f"论坛返回的数据无法识别：{error!r}") from error
        newer = max(0, highest - after_floor)
        tail = stream[max(0, len(stream) - newer) :] if newer else []
        missing = [i for i in tail if i not in loaded]
        for start in range(0, len(missing), CHUNK):
            chunk = missing[start : start + CHUNK]
            body = self._get(f"t/{topic_id}/posts.json", **{"post_ids[]": chunk})
            for raw in (body.get("post_stream") or {}).get("posts") or []:
                loaded[int(raw["id"])] = raw
        wanted = [loaded[i] for i in tail if i in loaded]
        wanted = [p for p in wanted if int(p["post_number"]) > after_floor]
        ids = {int(p["post_number"]): str(p["id"]) for p in loaded.values()}
        posts = [self._post(topic_id, raw, ids) for raw in wanted]
        posts.sort(key=lambda p: p.floor)
        return ThreadPage(posts=posts, last_floor=max([highest, *(p.floor for p in posts)]))

    def _post(self, topic_id: str, raw: dict[str, Any], ids: dict[int, str]) -> ForumPost:
        try:
            cooked = str(raw.get("cooked") or "")
            read = read_html(cooked)
            number = raw.get("reply_to_post_number")
            replied = int(number) if number else (read.quoted_numbers or (None,))[0]
            return ForumPost(
                external_id=str(raw["id"]),
                floor=int(raw["post_number"]),
                author=str(raw.get("username") or ""),
                author_uid=str(raw.get("user_id") or ""),
                posted_at=dt.datetime.fromisoformat(str(raw["created_at"])).astimezone(dt.UTC),
                text=read.text,
                html=cooked,
                reply_to=self._post_id(topic_id, replied, ids) if replied else None,
                anonymous=False,
                first=int(raw["post_number"]) == 1,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ForumError(f"论坛返回的数据无法识别：{error!r}") from error

    def _post_id(self, topic_id: str, number: int, ids: dict[int, str]) -> str | None:
        if number not in ids:
            try:
                ids[number] = str(self._get(f"posts/by_number/{topic_id}/{number}.json")["id"])
            except ForumThreadNotFound:
                return None  # the quoted post was deleted
        return ids[number]

    def reply(self, thread: str, text: str) -> str:
        topic_id = _topic(thread)
        if not self.posting_enabled:
            raise ForumPostingOff("本站未开启向该论坛回帖。", message_en="Posting is switched off.")
        if not self.has_key:
            raise ForumAuthFailed("未设置 API Key 或 API 用户名。", message_en="No API key is set.")
        response = transport.send(
            self._http, "POST", "posts.json", json={"topic_id": int(topic_id), "raw": text}
        )
        if response.status_code != 200:
            raise self._refusal(response)
        body = transport.json_body(response)
        if not isinstance(body, dict) or "id" not in body:
            raise ForumError("论坛返回的数据无法识别：回帖结果里没有帖子编号。")
        return str(body["id"])

    def _refusal(self, response: httpx.Response) -> ForumError:
        body = transport.json_body(response)
        reason = _errors(body)
        if response.status_code == 429:
            extras = (body.get("extras") or {}) if isinstance(body, dict) else {}
            wait = extras.get("wait_seconds") or response.headers.get("Retry-After")
            return ForumFlood(
                f"论坛限制发帖频率：{reason}" if reason else None,
                retry_after=int(wait) if str(wait or "").isdigit() else RATE_LIMIT_FALLBACK_SECONDS,
            )
        if response.status_code == 404:
            return ForumThreadNotFound()
        if "API" in reason and response.status_code in (401, 403):
            return ForumAuthFailed(f"API Key 无效：{reason}")
        if response.status_code in (403, 422):
            return ForumPostingOff(f"论坛拒绝回帖：{reason}" if reason else None)
        return ForumError(f"论坛拒绝了回帖：{reason or response.status_code}")

    # -- private messages -------------------------------------------------------------------

    def send_pm(self, *, to_uid: str, to_username: str, subject: str, text: str) -> None:
        """Discourse addresses messages by username, so the uid is used only to look the
        username up (an admin API key's ``/admin/users/{id}.json``) when there is none."""
        if not self.has_key:
            raise ForumAuthFailed("未设置 API Key 或 API 用户名。", message_en="No API key is set.")
        username = to_username.strip() or self._username_of(to_uid.strip())
        message = {
            "title": subject,
            "raw": text,
            "archetype": "private_message",
            # ``target_recipients`` is today's name; Discourse before it read ``target_usernames``,
            # and versions since drop that one unread, so both are sent.
            "target_recipients": username,
            "target_usernames": username,
        }
        response = transport.send(self._http, "POST", "posts.json", json=message)
        if response.status_code != 200:
            raise self._pm_refusal(response, username)

    def _username_of(self, uid: str) -> str:
        if not uid.isdigit():
            raise ForumPmUnknownUser(
                f"论坛 UID 应是数字，收到：{uid}" if uid else "未指定收信人（论坛 UID 或用户名）。",
                message_en="No recipient (a numeric uid or a username).",
            )
        response = transport.send(self._http, "GET", f"admin/users/{uid}.json")
        if response.status_code == 404:
            raise ForumPmUnknownUser(f"论坛上没有 UID 为 {uid} 的用户。")
        if response.status_code in (401, 403):
            raise ForumAuthFailed(
                "按 UID 查找 Discourse 用户需要管理员的 API Key；或请登记该玩家的论坛用户名。",
                message_en="Looking a user up by uid needs an admin API key; or give a username.",
            )
        body = transport.json_body(response)
        if response.status_code != 200 or not isinstance(body, dict) or not body.get("username"):
            raise ForumError(f"论坛返回的数据无法识别：用户 {uid}（HTTP {response.status_code}）。")
        return str(body["username"])

    def _pm_refusal(self, response: httpx.Response, username: str) -> ForumError:
        if response.status_code == 429:
            return self._refusal(response)
        reason = _errors(transport.json_body(response))
        if response.status_code in (401, 403) and "API" in reason:
            return ForumAuthFailed(f"API Key 无效：{reason}")
        if response.status_code in (403, 422):
            # The refusal's text is in the forum's language; whether the account exists is not.
            found = transport.send(self._http, "GET", f"u/{quote(username, safe='')}.json")
            if found.status_code == 404:
                return ForumPmUnknownUser(f"论坛找不到收信人：{username}")
            return ForumPmRefused(
                f"论坛拒绝发送站内信：{reason}" if reason else None,
                message_en=f"The forum refused the private message: {reason}",
            )
        return ForumError(f"论坛拒绝了站内信：{reason or response.status_code}")


def from_site(site: ForumSiteConfig) -> DiscourseAdapter:
    return DiscourseAdapter(
        site.base_url,
        api_key=site.api_key,
        api_username=site.api_username,
        posting_enabled=site.posting_enabled,
    )
