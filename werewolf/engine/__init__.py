"""The role-game (版杀) rules engine: pure, seeded, replayable.

    state, events = new_game("arknights_099", [(1, "甲", "男"), ...], rng, auction={...})
    state, events = night_open(state, rng, close)         # the day's close (关门)
    state, events = apply_action(state, UseSkill(actor=3, skill="protect", targets=(5,)), rng, now)
    state, events = deadline_pass(state, rng, now)        # the scheduler: forfeits (RULINGS 5)
    state, events = night_resolve(state, rng)             # draft + trace, directors only
    state, events = night_publish(state, rng, open_at, overrides=None)
    state, events = day_vote(state, totals, rng, close)
    state, events = apply_action(state, Vote(actor=3, target=5), rng, now)  # portal ballot

No Django, Channels, Celery or ninja here (an import-linter contract enforces it).
"""

from __future__ import annotations

from . import conan, conan_relic, conan_status, conan_undead, lin_feng  # noqa: F401  # by name
from .actions import (
    ACTION_TYPES,
    Action,
    Forgo,
    Surrender,
    SurrenderAnswer,
    UseSkill,
    action_from_json,
    register_action_type,
)
from .ballot import Vote, ballots, portal_ballots, portal_totals
from .day import day_vote, faction_forfeit, red_card, tally, vote_modifiers
from .night import (
    deadline_pass,
    next_deadline,
    night_open,
    night_publish,
    night_resolve,
    register_stage,
)
from .ruleset import Ruleset, RulesetError, get_ruleset, ruleset_keys
from .setup import GENDERS, auction_cost, new_game
from .skills import apply_action, register_action, register_handler
from .state import GameState
from .victory import register_condition
from .views import director_view, player_view

__all__ = [
    "ACTION_TYPES",
    "GENDERS",
    "Action",
    "Forgo",
    "GameState",
    "Ruleset",
    "RulesetError",
    "Surrender",
    "SurrenderAnswer",
    "UseSkill",
    "Vote",
    "action_from_json",
    "apply_action",
    "auction_cost",
    "ballots",
    "day_vote",
    "deadline_pass",
    "director_view",
    "faction_forfeit",
    "get_ruleset",
    "new_game",
    "next_deadline",
    "night_open",
    "night_publish",
    "night_resolve",
    "player_view",
    "portal_ballots",
    "portal_totals",
    "red_card",
    "register_action",
    "register_action_type",
    "register_condition",
    "register_handler",
    "register_stage",
    "ruleset_keys",
    "tally",
    "vote_modifiers",
]
