"""The royale (大逃杀) rules engine: pure, seeded, replayable.

    state, events = new_game("islington_256", [(1, "甲"), (2, "乙")], rng)
    state, events = day_open(state, rng)
    state, events = night_open(state, rng)
    state, events = apply_action(state, Spawn(actor=1, place="监狱"), rng, now)
    state, events = night_close(state, rng)

No Django, Channels, Celery or ninja here (an import-linter contract enforces it).
"""

from __future__ import annotations

from . import (
    economy,  # noqa: F401  (registers the shop/auction/stalls sections, actions and economy.close)
    events,  # noqa: F401  (registers the events section, its hooks and claim_reward)
    npcs,  # noqa: F401  (registers the npcs section and the NPCs' hooks)
    testmatch,  # noqa: F401  (registers the test_match section)
    votes,  # noqa: F401  (registers the vote actions and votes.tally)
)
from .actions import (
    ACTION_TYPES,
    Action,
    AnswerPhone,
    Attack,
    Drop,
    Equip,
    Gps,
    Megaphone,
    Move,
    Phone,
    PickUp,
    Rest,
    Search,
    Spawn,
    Telescope,
    Unequip,
    Upgrade,
    UseItem,
    Whisper,
    action_from_json,
)
from .hooks import HOOKS, register_hook, validate_hooks
from .night import (
    airdrop,
    day_close,
    day_open,
    grant_item,
    night_close,
    night_end,
    night_open,
    ranking,
    red_card,
)
from .rules import apply_action, register_action
from .ruleset import Ruleset, RulesetError, get_ruleset, register_ruleset, ruleset_keys
from .setup import new_game
from .state import GameState

__all__ = [
    "ACTION_TYPES",
    "HOOKS",
    "Action",
    "AnswerPhone",
    "Attack",
    "Drop",
    "Equip",
    "GameState",
    "Gps",
    "Megaphone",
    "Move",
    "Phone",
    "PickUp",
    "Rest",
    "Ruleset",
    "RulesetError",
    "Search",
    "Spawn",
    "Telescope",
    "Unequip",
    "Upgrade",
    "UseItem",
    "Whisper",
    "action_from_json",
    "airdrop",
    "apply_action",
    "day_close",
    "day_open",
    "get_ruleset",
    "grant_item",
    "new_game",
    "night_close",
    "night_end",
    "night_open",
    "ranking",
    "red_card",
    "register_action",
    "register_hook",
    "register_ruleset",
    "ruleset_keys",
    "validate_hooks",
]
