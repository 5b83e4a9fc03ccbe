"""[096]'s statuses and votes: 束缚 (缠绕) and its penalty, 变羊 (变羊术),
石化 (魔眼, 蛇发诅咒), 咒术's chain, 龙鳞, the vote weights (龙威, 咆哮, 神恩's
1.5 unaffected by statuses, 石化's void votes, 变羊's void votes
against the 巫师) and the day vote from day 2.

Stubs registered by the names the ruleset lists; each is to be written (see
docs/werewolf-engine.md, "[096] 名侦探柯南 (being built)")."""

from __future__ import annotations

from typing import Any

from games.engine.ballots import VoteModifiers

from .conan import register_damage_step, register_on_flip
from .draft import Draft
from .hooks import register_hook
from .state import Player


@register_hook("cn_status_night_open")
def _night_open(d: Draft) -> None:
    return None


@register_hook("cn_status_night_end")
def _night_end(d: Draft) -> None:
    return None


@register_hook("cn_status_day_open")
def _day_open(d: Draft) -> None:
    return None


@register_hook("cn_status_out")
def _out(d: Draft, pid: int, cause: str, night: bool) -> None:
    return None


@register_hook("cn_status_vote_modifiers")
def _vote_modifiers(d: Draft, mods: VoteModifiers) -> VoteModifiers:
    return mods


@register_hook("cn_status_voted_out")
def _voted_out(d: Draft, pid: int) -> bool:
    return False


@register_hook("cn_status_view")
def _view(d: Draft, p: Player, view: dict[str, Any]) -> dict[str, Any]:
    return view


@register_damage_step("scales")
def _step_scales(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    return False


@register_on_flip("wizard_flip")
def _flip_wizard_flip(d: Draft, pid: int, old: str, why: str) -> None:
    return None
