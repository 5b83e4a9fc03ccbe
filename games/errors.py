"""Errors of the shared shell (login, permissions); game rules raise engine RuleErrors."""

from __future__ import annotations

from games.engine.errors import RuleError


class LoginFailed(RuleError):
    # One message for every cause (no such game, no such password, another game's password,
    # malformed input), so a failure tells nothing about which games or characters exist.
    code = "login_failed"
    status = 401
    message = "密码错误或登录链接已失效。"
    message_en = "Wrong password, or the login link is no longer valid."


class NotDirector(RuleError):
    code = "not_director"
    status = 403
    message = "只有本局导演可以执行该操作。"
    message_en = "Only a director of this game can do this."


class GameNotLive(RuleError):
    code = "game_not_live"
    status = 409
    message = "游戏尚未开始或已经结束。"
    message_en = "The game has not started or is over."


class NoStartDate(RuleError):
    code = "no_start_date"
    status = 409
    message = "请先设置第一天的日期。"
    message_en = "Set the date of day 1 first."


class GamePaused(RuleError):
    code = "game_paused"
    status = 409
    message = "导演已暂停游戏，请稍候。"
    message_en = "The director has paused the game; please wait."
