"""Named hooks a ruleset plugs into the shared flow (061's conversions, possession, rosters…).

A ruleset's ``hooks`` maps a point of the flow to handler names, run in the data's order:

- ``deal`` (d): after the roles are dealt (``new_game``);
- ``night_open`` (d): the night's steps set, before any opens;
- ``step_open`` (d, step): a night step has just opened (096's 通灵术 list before 招魂术);
- ``night_end`` (d): after the night's eliminations are settled (in the draft and at publish);
- ``day_open`` (d): at the night's publication, after the day's number is set;
- ``out`` (d, pid, cause, night): after an elimination and its holder's triggers, before the
  win check (炼狱, 早夭, 遇难, 附身, 勾魂's window …);
- ``vote_modifiers`` (d, mods) → mods: the day's vote modifiers (独尊, 诅咒, 票台);
- ``voted_out`` (d, pid) → bool: True when the top-voted player does not go out (天罡护体, 守护);
- ``tied`` (d, leaders) → bool: True when a hook settled a tie of the vote (096's 最先高票者);
- ``tie_break`` (d, leaders) → pid or None: who of the tied leaders is the top (096: the first
  to reach the top total); None leaves the tie to the ``tie`` triggers;
- ``available`` (d, player, skill) → bool: False when the ruleset forbids the skill now;
- ``refuse`` (d, player, skill): raises the ruleset's own refusal of a use before the step's
  (096: a cooling or locked skill says so, not "the step is closed");
- ``spare`` (d, pid, cause, night) → bool: True when ``pid`` does not go out (061's 守护);
- ``window_closed`` (d, window, used): a day window forgone or expired (``used`` False);
- ``view`` (d, player, view) → view: what a player's own view adds (061's roster, 狼群, marks);
- ``won`` (d, faction) → factions: who wins beside the winner (096's 中立 共同胜利);
- ``idle`` (d, pid): a red card put ``pid`` in 挂机 (096: 有群的角色从自已所在的群中立即移除).

``load_ruleset`` refuses a hook name that is not registered. No rule post is named here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .ruleset import CHECKS, Ruleset, RulesetError

POINTS = frozenset(
    {
        "deal",
        "night_open",
        "step_open",
        "won",
        "idle",
        "night_end",
        "day_open",
        "out",
        "vote_modifiers",
        "voted_out",
        "tied",
        "tie_break",
        "available",
        "refuse",
        "spare",
        "window_closed",
        "view",
        "rooms",
    }
)
Hook = Callable[..., Any]
HOOKS: dict[str, Hook] = {}


def register_hook(name: str) -> Callable[[Hook], Hook]:
    def add(fn: Hook) -> Hook:
        HOOKS[name] = fn
        return fn

    return add


def hooks(rs: Ruleset, point: str) -> list[Hook]:
    return [HOOKS[n] for n in rs.hooks.get(point, ())]


def _check_names(rs: Ruleset) -> None:
    for point, names in rs.hooks.items():
        if point not in POINTS:
            raise RulesetError("hooks", f"unknown point {point}")
        for n in names:
            if n not in HOOKS:
                raise RulesetError(f"hooks.{point}", f"unknown hook {n}")


CHECKS.append(_check_names)
