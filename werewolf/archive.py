"""The role game's 揭秘 for the archive (``GameKind.archive``): every player's role and faction
(its first and, when it changed, its last), how and when it went out — a night death's true
cause too, now that the game is over —, the winning faction and those judged lost, and the
replay of the whole log from the revealed seed.

Read only for a game that is over (the core's archive asks for nothing earlier).
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.archive_selectors import ArchiveFacts, ReplayCheck, RosterRow
from games.eventlog import listing
from games.models import Event, Game
from werewolf import store
from werewolf.engine import get_ruleset
from werewolf.engine.state import OVER, Out, Player
from werewolf.eventtext import night_name


def _fate(out: Out | None) -> str:
    if out is None:
        return _("存活")
    when = night_name(out.day) if out.night else _("第 %(day)d 天") % {"day": max(out.day, 1)}
    return _("%(when)s出局 · %(cause)s") % {"when": when, "cause": out.cause}


def werewolf_archive(game: Game) -> ArchiveFacts:
    state = store.state_load(game)
    rs = get_ruleset(state.ruleset)
    outs = {o.id: o for o in state.outs}
    order = list(rs.factions)

    def faction_name(key: str) -> str:
        faction = rs.factions.get(key)
        return faction.name if faction is not None else key

    def place(p: Player) -> tuple[bool, int, int]:
        # the winners first, then faction by faction in the ruleset's order
        rank = order.index(p.faction) if p.faction in order else len(order)
        return (p.faction not in winners, rank, p.id)

    # 096's 中立 wins beside the winner (共同胜利): both are winners in the roster.
    co = [str(f) for f in state.flags.get("co_winners", [])]
    winners = {state.winner, *co} if state.winner else set()
    players = sorted(state.players.values(), key=place)
    rows = []
    for p in players:
        role = rs.roles.get(p.role)
        dealt = role.faction if role is not None else p.faction
        faction = faction_name(p.faction)
        if dealt != p.faction:
            faction = _("%(first)s → %(last)s") % {"first": faction_name(dealt), "last": faction}
        won = p.faction in winners
        result = "—" if state.winner is None else _("胜") if won else _("负")
        cells = (
            p.name,
            role.name if role is not None else p.role,
            faction,
            _fate(outs.get(p.id)),
            result,
        )
        rows.append(
            RosterRow(
                character_id=p.id,
                cells=cells,
                won=won,
                out=not p.alive,
            )
        )
    if state.winner is not None:
        outcome = _("%(faction)s胜利") % {"faction": faction_name(state.winner)}
        if co:
            outcome += _("（%(factions)s共同胜利）") % {
                "factions": listing(faction_name(f) for f in co)
            }
    elif state.phase == OVER:
        outcome = _("游戏结束，没有胜者")
    else:
        outcome = _("导演结束了游戏，未分胜负")
    notes = []
    if state.lost:
        lost = listing(faction_name(f) for f in state.lost)
        notes.append(_("判负的阵营（按先后）：%(factions)s") % {"factions": lost})
    if state.sheriff is not None and state.sheriff in state.players:
        notes.append(_("最后的警长：%(name)s") % {"name": state.players[state.sheriff].name})
    rebuilt = store.replay(game=game)
    steps = Event.objects.filter(game=game, kind="engine_step").count()
    return ArchiveFacts(
        outcome=outcome,
        columns=(_("马甲"), _("身份"), _("阵营"), _("结局"), _("胜负")),
        roster=tuple(rows),
        notes=tuple(notes),
        replay=ReplayCheck(
            ok=rebuilt is not None and rebuilt.to_json() == state.to_json(), steps=steps
        ),
    )
