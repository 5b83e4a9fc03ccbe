"""Win and loss (胜负判定), checked after every single elimination and every surrender.

Losses are judged first (优先判负) and stick (已经被判负的阵营无法再次达到胜利条件); a faction
that is the only one not lost wins; otherwise a faction meeting a win condition wins, the
ruleset's order of ``victory`` breaking a simultaneous win (061's priority list). A win ends
all settlement at once (宣布阵营获得胜利会立即终止一切结算). Condition kinds are registered
handlers, so 061's 吹笛/平安夜 conditions plug in beside 099's.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from .draft import Draft
from .hooks import hooks
from .ruleset import CHECKS, Condition, Ruleset, RulesetError
from .state import OVER

Check = Callable[[Draft, str, Condition], bool]
CONDITIONS: dict[str, Check] = {}


def register_condition(kind: str) -> Callable[[Check], Check]:
    def add(fn: Check) -> Check:
        CONDITIONS[kind] = fn
        return fn

    return add


@register_condition("alive_share")
def _alive_share(d: Draft, faction: str, c: Condition) -> bool:
    living = d.living()
    ours = sum(1 for p in living if p.faction == faction)
    return bool(living) and Fraction(ours, len(living)) >= Fraction(c.params["at_least"])


@register_condition("lost")
def _lost(d: Draft, faction: str, c: Condition) -> bool:
    return all(f in d.lost for f in c.params["factions"])


@register_condition("all_out")
def _all_out(d: Draft, faction: str, c: Condition) -> bool:
    return not any(p.alive and p.faction == faction for p in d.players.values())


@register_condition("roles_out")
def _roles_out(d: Draft, faction: str, c: Condition) -> bool:
    """Every holder of these roles in the faction is out (村民阵营的4村民出局, 屠边)."""
    holders = [
        p for p in d.players.values() if p.role in c.params["roles"] and p.faction == faction
    ]
    return bool(holders) and not any(p.alive for p in holders)


def _check_names(rs: Ruleset) -> None:
    for faction, v in rs.victory.items():
        for c in (*v.win, *v.lose):
            if c.kind not in CONDITIONS:
                raise RulesetError(f"victory.{faction}", f"unknown condition {c.kind}")


CHECKS.append(_check_names)


def lose(d: Draft, faction: str, why: str) -> None:
    if faction in d.lost:
        return
    d.lost = (*d.lost, faction)
    # A loss by eliminations would tell who the dead were: the directors see it, the players
    # learn it with the result of the game.
    d.directors("faction_lost", {"faction": faction, "why": why})
    d.note("胜负", f"{d.rs.factions[faction].name}判负（{why}）。")


def check(d: Draft) -> bool:
    """Judge losses and wins now; True once the game is over."""
    if d.winner is not None:
        return True
    for faction, v in d.rs.victory.items():
        if faction not in d.lost and any(CONDITIONS[c.kind](d, faction, c) for c in v.lose):
            lose(d, faction, "失败条件")
    remaining = [f for f in d.rs.victory if f not in d.lost]
    if not remaining:
        _no_winner(d)  # every faction lost at once: nobody wins
        return True
    if len(remaining) == 1:
        _win(d, remaining[0])
        return True
    for faction in remaining:
        if any(CONDITIONS[c.kind](d, faction, c) for c in d.rs.victory[faction].win):
            _win(d, faction)
            return True
    return False


def _no_winner(d: Draft) -> None:
    d.winner = ""  # over, and nobody won (``winner`` None means the game goes on)
    d.phase = OVER
    d.note("胜负", "所有阵营均已判负，无人胜利，游戏结束。")
    d.public(
        "game_over", {"winner": None, "winner_name": None, "lost": list(d.lost), "roles": _roles(d)}
    )


def _roles(d: Draft) -> list[dict[str, object]]:
    return [
        {"id": p.id, "name": p.name, "role": d.role_name(p.id), "faction": p.faction}
        for p in d.players.values()
    ]


def _win(d: Draft, faction: str) -> None:
    d.winner = faction
    d.phase = OVER
    d.note("胜负", f"{d.rs.factions[faction].name}胜利，游戏结束。")
    beside = [f for hook in hooks(d.rs, "won") for f in hook(d, faction) if f != faction]
    extra: dict[str, object] = {}
    if beside:
        d.set_flag("co_winners", beside)
        names = "、".join(d.rs.factions[f].name for f in beside)
        d.note("胜负", f"{names}共同胜利。")
        extra = {"co_winners": beside, "co_winner_names": [d.rs.factions[f].name for f in beside]}
    # 揭秘: once the game is over every role is public.
    d.public(
        "game_over",
        {
            "winner": faction,
            "winner_name": d.rs.factions[faction].name,
            "lost": list(d.lost),
            "roles": _roles(d),
            **extra,
        },
    )
