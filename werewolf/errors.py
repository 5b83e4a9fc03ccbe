"""Errors of the role games' shell (the engine's own refusals are in werewolf/engine/errors.py)."""

from __future__ import annotations

from games.engine.errors import RuleError


class NotSetUp(RuleError):
    code = "werewolf_not_set_up"
    status = 409
    message = "本局版杀尚未发牌（导演需先发身份）。"
    message_en = "This role game has not been dealt yet."


class AlreadySetUp(RuleError):
    code = "werewolf_already_set_up"
    status = 409
    message = "本局版杀已经发牌。"
    message_en = "The roles of this game have already been dealt."


class AlreadyStarted(RuleError):
    code = "werewolf_already_started"
    status = 409
    message = "游戏已经开始，不能再调整身份。"
    message_en = "The game has started: the roles can no longer be changed."
