"""Typed rule errors shared by every engine.

A rule break is an exception with a stable ``code``; the API maps it to a 4xx response with the
Chinese message (and the English one when the client asks for English). Engines stay pure, so the
messages live here as plain strings rather than Django translations.
"""

from __future__ import annotations

from typing import Any, ClassVar


class RuleError(Exception):
    """A request that the rules refuse. Nothing changes when it is raised."""

    code: ClassVar[str] = "rule_error"
    status: ClassVar[int] = 400
    message: ClassVar[str] = "该操作不符合规则。"
    message_en: ClassVar[str] = "The rules do not allow this."

    def __init__(
        self,
        message: str | None = None,
        *,
        message_en: str | None = None,
        **detail: Any,
    ) -> None:
        self.text = message or self.message
        self.text_en = message_en or self.message_en
        self.detail = detail
        super().__init__(f"{self.code}: {self.text}")

    def as_dict(self, *, english: bool = False) -> dict[str, Any]:
        body: dict[str, Any] = {
            "code": self.code,
            "message": self.text_en if english else self.text,
        }
        if self.detail:
            body["detail"] = self.detail
        return body


class InvalidInput(RuleError):
    code = "invalid_input"
    status = 400
    message = "输入无效。"
    message_en = "Invalid input."


class NotFound(RuleError):
    code = "not_found"
    status = 404
    message = "找不到该对象。"
    message_en = "Not found."


class Forbidden(RuleError):
    code = "forbidden"
    status = 403
    message = "你没有权限执行该操作。"
    message_en = "You are not allowed to do this."


class NotAuthenticated(RuleError):
    code = "not_authenticated"
    status = 401
    message = "请先登录。"
    message_en = "Please log in first."


class WrongPhase(RuleError):
    code = "wrong_phase"
    status = 409
    message = "当前阶段不能进行该操作。"
    message_en = "This cannot be done in the current phase."


class TooManyAttempts(RuleError):
    code = "too_many_attempts"
    status = 429
    message = "尝试次数过多，请稍后再试。"
    message_en = "Too many attempts, please try again later."


class CsrfFailed(RuleError):
    code = "csrf_failed"
    status = 403
    message = "页面已过期或请求来源不明，请刷新页面后重试。"
    message_en = "The page has expired or the request's origin is unknown; reload and retry."
