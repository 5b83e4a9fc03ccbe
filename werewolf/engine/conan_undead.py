"""[096]'s damage flow steps and the undead: 五龙分威术, 祝福/四叶草, 许愿
(the wished one's choice, effect 1), 聚灵术, 招魂术 with 通灵术's list,
尸爆, 光明之魂, 净化洗礼, 腐化, 灵能, 虚体, 援护, 森林先知, 九星金光咒's undead count,
the 驱魔人 joining a faction.

Stubs registered by the names the ruleset lists; each is to be written (see
docs/werewolf-engine.md, "[096] 名侦探柯南 (being built)")."""

from __future__ import annotations

from typing import Any

from .conan import register_damage_step, register_on_flip
from .draft import Draft
from .hooks import register_hook
from .ruleset import NightStep
from .state import Player


@register_hook("cn_undead_night_open")
def _night_open(d: Draft) -> None:
    return None


@register_hook("cn_undead_night_end")
def _night_end(d: Draft) -> None:
    return None


@register_hook("cn_undead_day_open")
def _day_open(d: Draft) -> None:
    return None


@register_hook("cn_undead_out")
def _out(d: Draft, pid: int, cause: str, night: bool) -> None:
    return None


@register_hook("cn_undead_step_open")
def _step_open(d: Draft, step: NightStep) -> None:
    return None


@register_hook("cn_undead_view")
def _view(d: Draft, p: Player, view: dict[str, Any]) -> dict[str, Any]:
    return view


@register_damage_step("five_dragons")
def _step_five_dragons(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    return False


@register_damage_step("bless")
def _step_bless(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    return False


@register_damage_step("wish_immune")
def _step_wish_immune(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    return False


@register_damage_step("gather_spirit")
def _step_gather_spirit(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    return False


@register_damage_step("summon")
def _step_summon(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    return False


@register_on_flip("light_soul")
def _flip_light_soul(d: Draft, pid: int, old: str, why: str) -> None:
    return None


@register_on_flip("spirit")
def _flip_spirit(d: Draft, pid: int, old: str, why: str) -> None:
    return None
