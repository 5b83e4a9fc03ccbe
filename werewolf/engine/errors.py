"""Every refusal of the role-game rules, each with a stable code (the shell maps them to 4xx).
``detail`` carries only what the actor may know."""

from __future__ import annotations

from games.engine.errors import InvalidInput, RuleError, WrongPhase

__all__ = [
    "ActorOut",
    "CannotVote",
    "ChangeLate",
    "ChangeSpedUp",
    "Charmed",
    "ForcedSkill",
    "GameOver",
    "GendersMissing",
    "InvalidInput",
    "InvalidTarget",
    "NightNotDone",
    "NoSurrender",
    "NotYourSkill",
    "PotionTonight",
    "RepeatTarget",
    "RuleError",
    "RulesetNotBuilt",
    "SkillUsedUp",
    "StepClosed",
    "StepNotOpen",
    "UnknownPlayer",
    "VoteClosed",
    "WindowClosed",
    "WrongPhase",
]


class WerewolfConflict(RuleError):
    status = 409


class GameOver(WerewolfConflict):
    code = "game_over"
    message = "游戏已经结束。"
    message_en = "The game is over."


class RulesetNotBuilt(WerewolfConflict):
    """A game of a rule post whose ruleset is not written yet ([061], [096] come next)."""

    code = "ruleset_not_built"
    message = "这个规则贴的版杀规则尚未在本站实现，暂时不能发身份。"
    message_en = "This rule post's role-game ruleset is not on the site yet; roles cannot be dealt."


class UnknownPlayer(RuleError):
    code = "unknown_player"
    status = 404
    message = "没有这名角色。"
    message_en = "No such character."


class ActorOut(WerewolfConflict):
    code = "actor_out"
    message = "你已出局，不能行使特权。"
    message_en = "You are out of the game and cannot act."


class NotYourSkill(WerewolfConflict):
    code = "not_your_skill"
    message = "你没有这个技能（或已失去技能）。"
    message_en = "You do not have this skill (or have lost your skills)."


class Charmed(WerewolfConflict):
    code = "charmed"
    message = "梦中人[魅惑]：今晚你不能使用技能。"
    message_en = "Charmed by the dreamer: you cannot use skills tonight."


class StepNotOpen(WerewolfConflict):
    code = "step_not_open"
    message = "还没有轮到这个技能。"
    message_en = "This skill's turn has not come yet tonight."


class StepClosed(WerewolfConflict):
    code = "step_closed"
    message = "这个技能今晚的行动时限已过或已经结算。"
    message_en = "This skill's time tonight is over or already settled."


class WindowClosed(WerewolfConflict):
    code = "window_closed"
    message = "现在不能发动这个技能（没有触发或已超过行动时限）。"
    message_en = "This skill cannot be used now (not triggered, or past its deadline)."


class ForcedSkill(WerewolfConflict):
    code = "forced_skill"
    message = "标明<强制>的技能不允许放弃发动。"
    message_en = "A <forced> skill cannot be forgone."


class SkillUsedUp(WerewolfConflict):
    code = "skill_used_up"
    message = "限定技能整局游戏仅能发动一次。"
    message_en = "A limited skill can be used once a game."


class PotionTonight(WerewolfConflict):
    code = "potion_tonight"
    message = "同一个夜晚只能选择救药和毒药之一使用。"
    message_en = "Only one of the save and the poison can be used in one night."


class RepeatTarget(WerewolfConflict):
    code = "repeat_target"
    message = "一名角色不可连续被守卫两次。"
    message_en = "Nobody can be guarded two nights running."


class InvalidTarget(WerewolfConflict):
    code = "invalid_target"
    message = "不能选择这个目标。"
    message_en = "That target cannot be chosen."


class NightNotDone(WerewolfConflict):
    code = "night_not_done"
    message = "还有未结束的夜晚行动。"
    message_en = "Some night steps are still open."


class NoSurrender(WerewolfConflict):
    code = "no_surrender"
    message = "现在不能投降或答复投降。"
    message_en = "There is no surrender to start or answer now."


class VoteClosed(WerewolfConflict):
    code = "vote_closed"
    message = "现在不能投票（不是白天，或今天已经关门）。"
    message_en = "Voting is not open now (it is not day, or today's vote has closed)."


class CannotVote(WerewolfConflict):
    code = "cannot_vote"
    # The rules that take a vote differ by post (099's 装傻, 096's 石化 and 挂机): the words
    # name none of them.
    message = "你今天不能投票（规则使你的投票无效，或你处于挂机状态）。"
    message_en = "You cannot vote today (a rule voids your vote, or you are idle)."


class ChangeLate(WerewolfConflict):
    code = "change_late"
    message = "关门前1小时内不允许改票。"
    message_en = "No vote changes in the last hour before the close."


class ChangeSpedUp(WerewolfConflict):
    code = "change_sped_up"
    message = "执行加速时不允许改票。"
    message_en = "No vote changes during a speed-up."


class GendersMissing(WerewolfConflict):
    """RULINGS werewolf 9: a game with a 梦中人 (魅惑<强制> reads 异性玩家) does not start while
    any character lacks a gender; ``missing`` names them."""

    code = "genders_missing"
    message = "有角色没有性别，本局不能开始。"
    message_en = "Some characters have no gender; the game cannot start."

    def __init__(self, missing: list[str]) -> None:
        super().__init__(
            "以下角色没有性别：" + "、".join(missing) + "。"
            "本局有[魅惑]<强制>（异性玩家不能使用技能），玩家的性别由马甲决定："
            "请先在夜晚控制室录入每名角色的性别。",
            message_en="These characters have no gender: " + ", ".join(missing) + ".",
            missing=missing,
        )
