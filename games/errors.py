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


class Busy(RuleError):
    """Load shed: the process has as many actions in flight as it takes (games.actions). Said
    at once, with when to come back (``Retry-After``), rather than queued without bound."""

    code = "busy"
    status = 429
    message = "服务器繁忙，请稍后再试。"
    message_en = "The server is busy; please try again shortly."


class NotDirector(RuleError):
    code = "not_director"
    status = 403
    message = "只有本局导演可以执行该操作。"
    message_en = "Only a director of this game can do this."


class CloseMoveRefused(RuleError):
    code = "close_move_refused"
    status = 409
    message = "不能这样调整关门时间。"
    message_en = "The close cannot be moved so."


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


class NoForumSite(RuleError):
    code = "no_forum_site"
    status = 409
    message = "本局尚未设置论坛，请先在游戏设置中选择论坛。"
    message_en = "This game has no forum set; choose one in the game's settings."


class NoVoteThread(RuleError):
    code = "no_vote_thread"
    status = 404
    message = "这一天还没有登记投票帖。"
    message_en = "No vote thread is registered for this day."


class TallyPublished(RuleError):
    code = "tally_published"
    status = 409
    message = "这一天的投票结果已经公示；如需更正，请另发公示。"
    message_en = "This day's vote result is already published; publish a correction instead."


class BadIdempotencyKey(RuleError):
    code = "bad_idempotency_key"
    status = 400
    message = "Idempotency-Key 须为 1 到 64 个字母、数字、- 或 _。"
    message_en = "Idempotency-Key must be 1 to 64 letters, digits, - or _."


class UnknownRuleset(RuleError):
    code = "unknown_ruleset"
    status = 400
    message = "该类型没有这个规则集。"
    message_en = "This game kind has no such ruleset."


class DuplicateNumber(RuleError):
    code = "duplicate_number"
    status = 409
    message = "已有同编号的游戏。"
    message_en = "A game with this number exists already."


class CastLocked(RuleError):
    code = "cast_locked"
    status = 409
    message = "游戏已开始（或已发牌），不能再添加或删除角色；中途换人请登记替补。"
    message_en = (
        "The game has started (or been dealt): no character can be added or removed; "
        "record a substitute instead."
    )


class DuplicateCharacter(RuleError):
    code = "duplicate_character"
    status = 409
    message = "本局已有同名角色或同一论坛账号。"
    message_en = "The game already has a character of this name or forum account."


class SubstituteExists(RuleError):
    code = "substitute_exists"
    status = 409
    message = "每名角色仅限更换一次替补，该角色已经更换过。"
    message_en = "Each character may be substituted only once; this one has been."


class NotStartable(RuleError):
    code = "not_startable"
    status = 409
    message = "游戏还不能开始。"
    message_en = "The game cannot start yet."


class NoSignupThread(RuleError):
    code = "no_signup_thread"
    status = 409
    message = "本局还没有登记报名帖。"
    message_en = "No sign-up thread is registered for this game."
