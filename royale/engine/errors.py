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
    "AlreadyBid",
    "AlreadyBought",
    "AlreadyOffered",
    "AlreadySpawned",
    "AlreadyVoted",
    "BackpackFull",
    "BadAsk",
    "BadChoice",
    "BidTooLow",
    "CannotPay",
    "CannotSell",
    "CannotUpgrade",
    "EmptyMessage",
    "EventFixedDay",
    "EventNotAllowed",
    "ExchangePending",
    "GameOver",
    "HandSlotTaken",
    "HandsFull",
    "HeldByMarket",
    "InvalidTarget",
    "MarketHours",
    "MarketNotOpen",
    "MessageTooLong",
    "NoBarter",
    "NoItems",
    "NoRewardOffer",
    "NoSuchCall",
    "NoSuchMarket",
    "NoSuchRequest",
    "NoSuchTrade",
    "NoVoteToday",
    "NotASupply",
    "NotAnOption",
    "NotAtMarket",
    "NotBeforeDayOne",
    "NotCurrency",
    "NotDead",
    "NotEnoughMP",
    "NotEnoughMoney",
    "NotHeld",
    "NotInBackpack",
    "NotInHand",
    "NotSpawned",
    "NotTestMatch",
    "NotUsable",
    "NotVoted",
    "NothingFound",
    "NothingToExchange",
    "NpcCannotVote",
    "NpcsAbsent",
    "PlaceClosed",
    "PlaceGone",
    "RestMoveUsed",
    "Resting",
    "RuleError",
    "SafeZone",
    "SamePlace",
    "SameVote",
    "SearchCooldown",
    "SoldOut",
    "TargetDead",
    "TargetGone",
    "TierExhausted",
    "TradeNotHere",
    "TradePending",
    "TradeStale",
    "UnknownCharacter",
    "UnknownEvent",
    "UnknownItem",
    "UnknownLot",
    "UnknownPlace",
    "UnknownWare",
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


class NoVoteToday(RoyaleConflict):
    code = "no_vote_today"
    message = "今天不进行投票（第一日讨论日不投票）。"
    message_en = "There is no vote today (the first day is for discussion only)."


class AlreadyVoted(RoyaleConflict):
    code = "already_voted"
    message = "你今天已经投过票了，可以改票。"
    message_en = "You have already voted today; you may change your vote."


class NotVoted(RoyaleConflict):
    code = "not_voted"
    message = "你今天还没有投票，无法改票。"
    message_en = "You have not voted today, so there is no vote to change."


class SameVote(RoyaleConflict):
    code = "same_vote"
    message = "你的票已经投给了该角色。"
    message_en = "Your vote is already for that character."


class TargetDead(RoyaleConflict):
    code = "target_dead"
    message = "该角色已出局，不能投票给TA。"
    message_en = "That character is out of the game and cannot be voted for."


class NpcCannotVote(RoyaleConflict):
    code = "npc_cannot_vote"
    message = "NPC不参与投票。"
    message_en = "NPCs do not vote."


class UnknownEvent(RuleError):
    code = "unknown_event"
    message = "没有这个事件。"
    message_en = "No such event."


class EventNotAllowed(RoyaleConflict):
    code = "event_not_allowed"
    message = "该事件明天不能发生。"
    message_en = "That event cannot happen tomorrow."


class EventFixedDay(RoyaleConflict):
    code = "event_fixed_day"
    message = "明天的事件是固定的，不能指定或否决。"
    message_en = "Tomorrow's event is fixed; it cannot be picked or vetoed."


class NoRewardOffer(RoyaleConflict):
    code = "no_reward_offer"
    message = "你没有可以领取的奖励。"
    message_en = "You have no reward to claim."


class NotAnOption(RoyaleConflict):
    code = "not_an_option"
    message = "奖励只能在给定的选项中选择。"
    message_en = "Choose one of the rewards offered."


class NpcsAbsent(RoyaleConflict):
    code = "npcs_absent"
    message = "阿呆不在场，无法设置谜题。"
    message_en = "The riddle NPC is not in the game now."


# --- the economy (货币、商店、拍卖行、摆摊、交易) -------------------------------------------------


class NoSuchMarket(RoyaleConflict):
    code = "no_such_market"
    message = "本局没有这种交易方式。"
    message_en = "This game has no such market."


class MarketNotOpen(RoyaleConflict):
    code = "market_not_open"
    message = "尚未开放交易。"
    message_en = "This market is not open yet."


class NotAtMarket(RoyaleConflict):
    code = "not_at_market"
    message = "只有在指定区域过夜的角色可以在这里交易。"
    message_en = "Only characters who spent the night at the market's place may trade here."


class MarketHours(RoyaleConflict):
    code = "market_hours"
    message = "现在不在交易时间内。"
    message_en = "This is outside the market's hours."


class UnknownWare(RuleError):
    code = "unknown_ware"
    message = "商店没有这件商品。"
    message_en = "The shop does not sell that."


class SoldOut(RoyaleConflict):
    code = "sold_out"
    message = "该商品已售罄（同类道具已全部出现）。"
    message_en = "Sold out: every item of that kind is already in the game."


class NotEnoughMoney(RoyaleConflict):
    code = "not_enough_money"
    message = "货币不足。"
    message_en = "Not enough money."


class CannotSell(RoyaleConflict):
    code = "cannot_sell"
    message = "商店不收购这些道具（请按售出价目表选择道具与数量）。"
    message_en = "The shop does not buy that (see the sale price list for items and counts)."


class UnknownLot(RoyaleConflict):
    code = "unknown_lot"
    message = "拍卖行没有这件拍品（或尚未开拍）。"
    message_en = "No such lot (or it is not up for auction yet)."


class BidTooLow(RuleError):
    code = "bid_too_low"
    message = "出价低于最低出价。"
    message_en = "The bid is below the minimum."


class AlreadyBid(RoyaleConflict):
    code = "already_bid"
    message = "你今天已对这件拍品出价，出价不可撤回或更改。"
    message_en = "You have already bid on this lot today; bids are final."


class NotCurrency(RoyaleConflict):
    code = "not_currency"
    message = "只能兑换货币。"
    message_en = "Only currency can be exchanged."


class NothingToExchange(RoyaleConflict):
    code = "nothing_to_exchange"
    message = "这些货币无法兑换成更少张的高面值货币。"
    message_en = "These notes cannot be exchanged into fewer, larger ones."


class ExchangePending(RoyaleConflict):
    code = "exchange_pending"
    message = "你已有一个等待导演处理的兑换申请。"
    message_en = "You already have an exchange request waiting for the director."


class NoSuchRequest(RoyaleConflict):
    code = "no_such_request"
    message = "没有待处理的兑换申请。"
    message_en = "There is no pending exchange request."


class BadAsk(RuleError):
    code = "bad_ask"
    message = "报酬无效：每种报酬是一类道具（可带数量）或若干货币。"
    message_en = "Invalid price: each is an item kind (with a count) or an amount of currency."


class AlreadyOffered(RoyaleConflict):
    code = "already_offered"
    message = "每人每天只有一次【售卖】机会。"
    message_en = "One sale per character per day."


class AlreadyBought(RoyaleConflict):
    code = "already_bought"
    message = "每人每天只有一次【购买】机会，回帖后不可撤回。"
    message_en = "One purchase per character per day, and it is final."


class BadChoice(RuleError):
    code = "bad_choice"
    message = "购买志愿无效。"
    message_en = "Invalid purchase choice."


class CannotPay(RoyaleConflict):
    code = "cannot_pay"
    message = "你没有足够的道具或货币支付该报酬。"
    message_en = "You do not hold what that price asks."


class NoItems(RuleError):
    code = "no_items"
    message = "请至少选择一件道具（不可重复）。"
    message_en = "Choose at least one item (each once)."


class TradePending(RoyaleConflict):
    code = "trade_pending"
    message = "你对该角色已有一个未完成的交易提议。"
    message_en = "You already have an open trade offer to that character."


class NoSuchTrade(RoyaleConflict):
    code = "no_such_trade"
    message = "没有这个交易提议。"
    message_en = "There is no such trade offer."


class TradeStale(RoyaleConflict):
    code = "trade_stale"
    message = "提议方已不再持有所提供的道具，交易无法完成。"
    message_en = "The offering side no longer holds what it offered."


class HeldByMarket(RoyaleConflict):
    code = "held_by_market"
    message = "该道具在拍卖行、托管或摊位中。"
    message_en = "That item is held by the auction house, in escrow or on a stall."


class NotBeforeDayOne(RoyaleConflict):
    code = "not_before_day_1"
    message = "正式比赛第一日前只能使用测试赛奖励的道具（每件一次）。"
    message_en = "Before day 1 only a test-match prize can be used (once each)."


class NotTestMatch(RoyaleConflict):
    code = "not_test_match"
    message = "只有测试赛中导演才能复活角色或直接往背包中提供补给。"
    message_en = "Only in the test match may the director restore a character or hand supplies."


class NotDead(RoyaleConflict):
    code = "not_dead"
    message = "该角色没有出局，无需复活。"
    message_en = "That character is not out."


class NotASupply(RuleError):
    code = "not_a_supply"
    message = "只能提供本场规则中的补给类道具。"
    message_en = "Only a supply item of this ruleset can be handed out."


class NoBarter(RoyaleConflict):
    code = "no_barter"
    message = "本场取消了以物易物：交易只能要求货币。"
    message_en = "This game has no barter: a trade may ask for money only."


class TradeNotHere(RoyaleConflict):
    code = "trade_not_here"
    message = "只有在交易场所过夜的玩家之间可以交易。"
    message_en = "Only players who spent the night at the trading place may trade."
