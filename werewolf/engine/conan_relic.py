"""[096]'s 亡灵圣物 and 神眷者: 藏匿, 诅咒 at the night's open and its
immunities (神恩, 共鸣, 无限魔力, 全知, 龙鳞), 灾厄, 馈赠, 认主, 追踪, 七轮感应法,
戈尔贡之血, 龙息's transfer, 共鸣 (damage flow step 5), 无限魔力's 变羊术, 全知,
许愿 effect 3, the 高塔 holder's notice; 神眷者's election on day 1,
神恩 and 传承.

Stubs registered by the names the ruleset lists; each is to be written (see
docs/werewolf-engine.md, "[096] 名侦探柯南 (being built)")."""

from __future__ import annotations

from typing import Any

from .conan import register_damage_step
from .draft import Draft
from .hooks import register_hook
from .state import Player


@register_hook("cn_relic_night_open")
def _night_open(d: Draft) -> None:
    return None


@register_hook("cn_relic_night_end")
def _night_end(d: Draft) -> None:
    return None


@register_hook("cn_relic_day_open")
def _day_open(d: Draft) -> None:
    return None


@register_hook("cn_relic_out")
def _out(d: Draft, pid: int, cause: str, night: bool) -> None:
    return None


@register_hook("cn_relic_window_closed")
def _window_closed(d: Draft, w: dict[str, Any], used: bool) -> None:
    return None


@register_hook("cn_relic_voted_out")
def _voted_out(d: Draft, pid: int) -> bool:
    return False


@register_hook("cn_relic_view")
def _view(d: Draft, p: Player, view: dict[str, Any]) -> dict[str, Any]:
    return view


@register_damage_step("resonance")
def _step_resonance(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    return False
