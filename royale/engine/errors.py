"""Every refusal of the royale rules, each with a stable code.

The shell maps these to 4xx responses; ``detail`` carries only what the actor may know (never a
hidden character's identity or HP).
"""

from __future__ import annotations

from games.engine.errors import RuleError, WrongPhase

__all__ = [
    "ActorDead",
    "AlreadyActed",
    "AlreadyAttacked",
    "AlreadySpawned",
    "BackpackFull",
    "CannotUpgrade",
    "EmptyMessage",
    "GameOver",
    "HandSlotTaken",
    "HandsFull",
    "InvalidTarget",
    "MessageTooLong",
    "NoSuchCall",
    "NotEnoughMP",
    "NotHeld",
    "NotInBackpack",
    "NotInHand",
    "NotSpawned",
    "NotUsable",
    "NothingFound",
    "PlaceClosed",
    "PlaceGone",
    "RestMoveUsed",
    "Resting",
    "RuleError",
    "SafeZone",
    "SamePlace",
    "SearchCooldown",
    "TargetGone",
    "TierExhausted",
    "UnknownCharacter",
    "UnknownItem",
    "UnknownPlace",
    "UsedThisNight",
    "UsedToday",
    "WrongPhase",
]


class RoyaleConflict(RuleError):
    """Well-formed, but the current game state does not allow it."""

    status = 409


class NotEnoughMP(RoyaleConflict):
    code = "not_enough_mp"
    message = "体力不足，行动失败。"
    message_en = "Not enough stamina (MP); the action failed."


class SearchCooldown(RoyaleConflict):
    code = "search_cooldown"
    message = "两次搜索之间必须间隔30秒以上。"
    message_en = "Searches must be at least 30 seconds apart."


class NothingFound(RoyaleConflict):
    code = "nothing_found"
    message = "上一次搜索没有发现可以这样处理的目标。"
    message_en = "Your last search found nothing this action can target."


class TargetGone(RoyaleConflict):
    code = "target_gone"
    message = "目标已不在此处。"
    message_en = "The target is no longer there."


class AlreadyAttacked(RoyaleConflict):
    code = "already_attacked"
    message = "每次搜索后只可攻击一次。"
    message_en = "Only one attack per search."


class SafeZone(RoyaleConflict):
    code = "safe_zone"
    message = "在安全区的攻击无效。"
    message_en = "Attacks (and bombs) have no effect in the safe zone."


class BackpackFull(RoyaleConflict):
    code = "backpack_full"
    message = "持有6件物品后，无法再获取物品。"
    message_en = "You already hold the maximum number of items."


class NotInHand(RoyaleConflict):
    code = "not_in_hand"
    message = "只能使用手中的道具。"
    message_en = "Only items in hand can be used."


class NotInBackpack(RoyaleConflict):
    code = "not_in_backpack"
    message = "该道具不在背包中。"
    message_en = "That item is not in your backpack."


class NotHeld(RoyaleConflict):
    code = "not_held"
    message = "你没有持有该道具。"
    message_en = "You do not hold that item."


class HandsFull(RoyaleConflict):
    code = "hands_full"
    message = "手中已有2件道具，请指定换下哪一件。"
    message_en = "Both hands are full; say which item to put away."


class HandSlotTaken(RoyaleConflict):
    code = "hand_slot_taken"
    message = "手中最多同时拿着一个武器和一个防具。"
    message_en = "Hands hold at most one weapon and one armor."


class ActorDead(RoyaleConflict):
    code = "actor_dead"
    message = "你已出局。"
    message_en = "Your character is out of the game."


class NotSpawned(RoyaleConflict):
    code = "not_spawned"
    message = "请先出生（选择初始位置）。"
    message_en = "Spawn first (choose a starting place)."


class AlreadySpawned(RoyaleConflict):
    code = "already_spawned"
    message = "你已经出生了。"
    message_en = "You have already spawned."


class Resting(RoyaleConflict):
    code = "resting"
    message = "静养状态下当夜不能进行其他行动。"
    message_en = "While resting you can do nothing else tonight."


class RestMoveUsed(RoyaleConflict):
    code = "rest_move_used"
    message = "静养状态最多进行一次移动。"
    message_en = "Resting allows a single move."


class AlreadyActed(RoyaleConflict):
    code = "already_acted"
    message = "本夜已经行动，不能再选择静养。"
    message_en = "You have already acted tonight; you cannot rest."


class UnknownPlace(RuleError):
    code = "unknown_place"
    message = "没有这个场所。"
    message_en = "No such place."


class PlaceGone(RoyaleConflict):
    code = "place_gone"
    message = "该场所已经消失。"
    message_en = "That place has vanished."


class PlaceClosed(RoyaleConflict):
    code = "place_closed"
    message = "该区域当前未开放。"
    message_en = "That zone is not open now."


class SamePlace(RoyaleConflict):
    code = "same_place"
    message = "你已经在这个场所。"
    message_en = "You are already there."


class UnknownCharacter(RuleError):
    code = "unknown_character"
    message = "没有这个角色。"
    message_en = "No such character."


class InvalidTarget(RuleError):
    code = "invalid_target"
    message = "目标无效。"
    message_en = "Invalid target."


class UnknownItem(RuleError):
    code = "unknown_item"
    message = "没有这个道具。"
    message_en = "No such item."


class NotUsable(RoyaleConflict):
    code = "not_usable"
    message = "该道具现在不能这样使用。"
    message_en = "That item cannot be used this way now."


class UsedThisNight(RoyaleConflict):
    code = "used_this_night"
    message = "该道具每晚限使用1次。"
    message_en = "That item can be used once a night."


class UsedToday(RoyaleConflict):
    code = "used_today"
    message = "该道具每日限使用1次。"
    message_en = "That item can be used once a day."


class CannotUpgrade(RoyaleConflict):
    code = "cannot_upgrade"
    message = "该升级器不能升级这件道具。"
    message_en = "This upgrader cannot upgrade that item."


class TierExhausted(RoyaleConflict):
    code = "tier_exhausted"
    message = "下一级别的道具已经全部出现，无法升级。"
    message_en = "Every item of the next tier is already in the game."


class MessageTooLong(RuleError):
    code = "message_too_long"
    message = "传音最多200字。"
    message_en = "A whisper is at most 200 characters."


class EmptyMessage(RuleError):
    code = "empty_message"
    message = "传音内容不能为空。"
    message_en = "A whisper cannot be empty."


class NoSuchCall(RoyaleConflict):
    code = "no_such_call"
    message = "没有待接听的通话。"
    message_en = "There is no pending call."


class GameOver(RoyaleConflict):
    code = "game_over"
    message = "本局游戏已经结束。"
    message_en = "The game is over."
