"""Forum failures, as typed errors with a stable code, so the director's page can say what broke.

They are ``RuleError``s so the API and the admin show them like any other refusal; the status
says whose fault it was (502/503/504: the forum's; 4xx: the thread or the settings).
"""

from __future__ import annotations

from typing import Any

from games.engine.errors import RuleError


class ForumError(RuleError):
    code = "forum_error"
    status = 502
    message = "论坛出错。"
    message_en = "The forum returned an error."


class ForumUnreachable(ForumError):
    code = "forum_unreachable"
    status = 503
    message = "无法连接论坛（超时、连接失败或论坛服务器出错），稍后会自动重试。"
    message_en = "The forum cannot be reached (timeout, connection error or server error)."


class ForumClosed(ForumError):
    code = "forum_closed"
    status = 503
    message = "论坛的手机版接口已关闭（mobile_is_closed）。"
    message_en = "The forum's mobile API is switched off (mobile_is_closed)."


class ForumThreadNotFound(ForumError):
    code = "forum_thread_not_found"
    status = 404
    message = "论坛上找不到该帖子，请检查帖子编号。"
    message_en = "The forum has no such thread; check the thread id."


class ForumPostingOff(ForumError):
    code = "forum_posting_off"
    status = 409
    message = "该论坛已关闭回帖，或本站未开启向论坛回帖。"
    message_en = "Posting to this forum is switched off."


class ForumFlood(ForumError):
    code = "forum_flood"
    status = 429
    message = "论坛灌水预防：两次发帖间隔太短，请稍后再试。"
    message_en = "The forum's flood control refused the post; try again later."

    def __init__(self, message: str | None = None, *, retry_after: int, **detail: Any) -> None:
        self.retry_after = retry_after
        super().__init__(message, retry_after=retry_after, **detail)


class ForumAuthFailed(ForumError):
    code = "forum_auth_failed"
    status = 502
    message = "论坛登录失败，请检查论坛账号、密码或 API Key。"
    message_en = "Logging in to the forum failed; check the account, password or API key."


class ForumBadPage(ForumError):
    code = "forum_bad_page"
    status = 400
    message = "无法识别的打印页（打印本页）内容。"
    message_en = "This is not a readable printable page."


class ForumPmRefused(ForumError):
    code = "forum_pm_refused"
    status = 409
    message = "论坛拒绝发送站内信（该账号无权发送短消息、对方的隐私设置不允许，或已达发送上限）。"
    message_en = "The forum refused to send the private message."


class ForumPmUnknownUser(ForumPmRefused):
    code = "forum_pm_unknown_user"
    status = 404
    message = "论坛上找不到收信人（用户不存在或已被冻结），请检查该玩家登记的论坛 UID 或用户名。"
    message_en = "The forum has no such recipient; check the player's forum uid or username."


class ForumPmUnsupported(ForumError):
    code = "forum_pm_unsupported"
    status = 409
    message = "该论坛类型不支持站内信。"
    message_en = "This kind of forum cannot send private messages."
