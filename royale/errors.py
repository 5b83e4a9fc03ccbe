"""Errors of the royale shell (the engine's own refusals are in royale/engine/errors.py)."""

from __future__ import annotations

from games.engine.errors import RuleError


class NotSetUp(RuleError):
    code = "royale_not_set_up"
    status = 409
    message = "本局大逃杀尚未开局（导演需先生成初始状态）。"
    message_en = "This battle royale has not been set up yet."


class AlreadySetUp(RuleError):
    code = "royale_already_set_up"
    status = 409
    message = "本局已经开局。"
    message_en = "This game has already been set up."


class TestMatchRefused(RuleError):
    code = "test_match_refused"
    status = 409
    message = "无法进行该测试赛操作。"
    message_en = "This test match operation is not possible."
