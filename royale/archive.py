"""The battle royale's 揭秘 for the archive (``GameKind.archive``): the final ranking with every
character's HP, stamina and items (what the dead held when they went out), the map of each
night at its close, and the replay of the whole log from the revealed seed.

Read only for a game that is over (the core's archive asks for nothing earlier); the whole log
is re-run once, from the seed and the logged steps alone, and the core caches what comes out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from django.utils.translation import gettext as _

from games.archive_selectors import ArchiveFacts, MapPlace, NightMap, ReplayCheck, RosterRow
from games.models import Game
from royale import store
from royale.engine.night import ranking_rows
from royale.engine.ruleset import Ruleset, get_ruleset
from royale.engine.state import LATE, NIGHT, OVER, Character, GameState
from royale.selectors import royale_state


@dataclass
class _Walk:
    """What one pass over the logged steps collects."""

    final: GameState | None = None
    steps: int = 0
    maps: list[NightMap] = field(default_factory=list)
    held_at_death: dict[int, str] = field(default_factory=dict)


def _items(rs: Ruleset, state: GameState, c: Character) -> str:
    def names(ids: Iterable[int]) -> str:
        counts: dict[str, int] = {}  # in the order held; alike items (2$ notes) counted
        for i in ids:
            item = state.items[i]
            name = rs.kinds[item.kind].name
            if item.uses is not None:
                name = _("%(name)s（剩 %(uses)d 次）") % {"name": name, "uses": item.uses}
            counts[name] = counts.get(name, 0) + 1
        return "、".join(n if k == 1 else f"{n}×{k}" for n, k in counts.items())

    parts = []
    if c.hands:
        parts.append(_("手中：%(items)s") % {"items": names(c.hands)})
    if c.pack:
        parts.append(_("背包：%(items)s") % {"items": names(c.pack)})
    return "；".join(parts) or _("无")


def _night_map(rs: Ruleset, before: GameState, after: GameState, out_from: int) -> NightMap:
    """Night ``before.day`` as its close found it (``before``) and left it (``after``)."""
    special = {z.place for z in rs.special_zones}
    places = []
    for p in before.places.values():
        if p.gone:
            note = _("第 %(night)d 夜消失") % {"night": p.gone_night} if p.gone_night else ""
            places.append(MapPlace(name=p.name, on_map=False, note=note))
            continue
        present = tuple(
            (_("%(name)s（NPC）") % {"name": c.name}) if c.npc else c.name
            for c in before.at_place(p.name)
        )
        note = _("安全区") if p.name == rs.safe_zone else _("特殊区") if p.name in special else ""
        places.append(
            MapPlace(
                name=p.name,
                present=present,
                vanishes=after.places[p.name].gone,
                note=note,
            )
        )
    unplaced = tuple(
        c.name for c in before.characters.values() if c.alive and not c.npc and c.place is None
    )
    out = tuple(
        _("%(name)s（%(cause)s）") % {"name": after.characters[d.character].name, "cause": d.cause}
        for d in after.deaths[out_from:]
        if not after.characters[d.character].npc
    )
    return NightMap(day=before.day, places=tuple(places), unplaced=unplaced, out=out)


def _walk(game: Game, rs: Ruleset) -> _Walk:
    """Re-run the whole log from the seed, step by step, keeping each night's close."""
    walk = _Walk()
    state: GameState | None = None
    out_from = 0
    for step in store.steps_after(game, None):
        before = state
        state = store.replay(game=game, base=before, steps=[step])
        walk.steps += 1
        if before is None or state is None:
            continue
        for c in before.characters.values():
            if c.alive and not c.npc and not state.characters[c.id].alive:
                walk.held_at_death[c.id] = _items(rs, before, c)
        op = str(step["op"])
        if op == "night_open":
            out_from = len(before.deaths)
        elif op == "night_close":
            walk.maps.append(_night_map(rs, before, state, out_from))
            out_from = len(state.deaths)
    walk.final = state
    if state is not None and state.phase in (NIGHT, LATE):
        # ended by a director during a night: the map as the end found it
        ended = _night_map(rs, state, state, out_from)
        walk.maps.append(replace(ended, ended=True))
    return walk


def royale_archive(game: Game) -> ArchiveFacts:
    state = royale_state(game=game)
    rs = get_ruleset(state.ruleset)
    walk = _walk(game, rs)
    rows = []
    for entry in ranking_rows(state.characters, state.deaths):
        c = state.characters[entry["character"]]
        if c.alive:
            fate = _("存活")
            hp, mp, items = str(c.hp), str(c.mp), _items(rs, state, c)
        else:
            fate = _("第 %(day)d 天 · %(cause)s") % {"day": entry["day"], "cause": entry["cause"]}
            held = walk.held_at_death.get(c.id, _("无"))
            hp, mp, items = "—", "—", _("出局时持有 %(items)s") % {"items": held}
        rows.append(
            RosterRow(
                character_id=c.id,
                cells=(str(entry["rank"]), c.name, fate, hp, mp, items),
                won=c.id == state.winner,
                out=not c.alive,
            )
        )
    if state.winner is not None:
        outcome = _("胜者：%(name)s") % {"name": state.characters[state.winner].name}
    elif state.phase == OVER:
        outcome = _("导演获胜：无人生还")
    else:
        alive = sum(1 for c in state.characters.values() if c.alive and not c.npc)
        outcome = _("导演结束了游戏：%(n)d 人存活，并列第一") % {"n": alive}
    final = walk.final
    replay = ReplayCheck(
        ok=final is not None and final.to_json() == state.to_json(), steps=walk.steps
    )
    return ArchiveFacts(
        outcome=outcome,
        columns=(_("名次"), _("马甲"), _("结局"), _("生命"), _("体力"), _("道具")),
        roster=tuple(rows),
        notes=(_("名次按出局的先后倒序；同一步结算出局的并列。"),),
        maps=tuple(walk.maps),
        replay=replay,
    )
