"""Reads of the day's events (随机事件) and NPCs: the player's day card and the director's panel.

A player sees what the posts announce — today's events with their text, the villain (恶棍/鬼王)
named, the bounties, 阿呆's riddle, which NPCs are in the game — and its own rewards to claim;
never who got 意料之外的剧情's items nor where the NPCs stand. The director sees everything.
"""

from __future__ import annotations

from typing import Any

from royale.engine.events import allowed_events, event_plan, fixed_event, rules_of, todays_events
from royale.engine.npcs import npcs_in_game, npcs_known, riddle_today
from royale.engine.ruleset import get_ruleset
from royale.engine.state import GameState


def _today(state: GameState, key: str) -> dict[str, Any] | None:
    found = state.flags.get(key)
    return dict(found) if found and found["day"] == state.day else None


def _name(state: GameState, cid: int | None) -> str | None:
    return state.characters[cid].name if cid is not None else None


def _kind_name(state: GameState, selector: str) -> str:
    kinds = get_ruleset(state.ruleset).selector_kinds(selector)
    return kinds[0].name if len(kinds) == 1 else selector


def _public(state: GameState) -> dict[str, Any]:
    villain = _today(state, "villain")
    bounty = _today(state, "bounty")
    return {
        "today": [{"key": s.key, "name": s.name, "text": s.text} for s in todays_events(state)],
        "villain": _name(state, villain["character"]) if villain else None,
        "bounties": [state.characters[c].name for c in bounty["targets"]] if bounty else [],
        "riddle": riddle_today(state),
        # As the players know them: a night's death shows in the morning report, not before.
        "npcs": [c.name for c in npcs_known(state)],
    }


def player_events(state: GameState, character_id: int) -> dict[str, Any]:
    """The day card of one character: the public facts and its own rewards (二选一)."""
    me = state.characters[character_id]
    offers = [
        {
            "event": o["name"],
            "ready": o["from_day"] <= state.day,
            "from_day": o["from_day"],
            "options": [{"kind": k, "name": _kind_name(state, k)} for k in o["options"]],
        }
        for o in me.flags.get("reward_offers", ())
    ]
    return {**_public(state), "offers": offers if me.alive else []}


def director_events(state: GameState) -> dict[str, Any]:
    """Everything about the day's events and the NPCs, for the control room."""
    rules = rules_of(get_ruleset(state.ruleset))
    plan = event_plan(state)
    names = {s.key: s.name for s in rules.events} if rules else {}
    twist = _today(state, "twist")
    answers = _today(state, "riddle_answers") or {"tried": [], "right": []}
    tomorrow = fixed_event(state, state.day + 1)
    return {
        **_public(state),
        "enabled": rules is not None,
        "tomorrow_fixed": tomorrow.name if tomorrow else None,
        "allowed": [s.name for s in allowed_events(state)],
        "plan": {
            "pick": names.get(plan["pick"]) if plan["pick"] else None,
            "veto": [names.get(k, k) for k in plan["veto"]],
        }
        if plan
        else None,
        "twist": _name(state, twist["character"]) if twist else None,
        "npc_rows": [
            {
                "name": c.name,
                "place": c.place,
                "hp": "∞" if c.flags.get("immortal") else c.hp,
                "items": [_kind_name(state, state.items[i].kind) for i in c.held],
            }
            for c in npcs_in_game(state)
        ],
        "riddle_tried": [state.characters[c].name for c in answers["tried"]],
        "riddle_right": [state.characters[c].name for c in answers["right"]],
        "revenants": [
            c.name for c in state.characters.values() if c.alive and "revenant" in c.flags
        ],
    }
