"""The 共群 rooms a role game's state holds, for the site's rooms (``games.engine.rooms``).

A faction that 互知共群 has one room of all its members, the out included ([099]: 已经出局的
狼群中的角色仍然留在狼群); a faction that 互知不共群 has a roster and no room. A ruleset whose
groups are built by its skills ([061]'s 狼王, [096]'s <团队> groups and 活尸) adds them through
its ``rooms`` hook (``(state) -> list[RoomSpec]``). A red-carded player is in none.
"""

from __future__ import annotations

from games.engine.rooms import RoomSpec

from .hooks import hooks
from .ruleset import get_ruleset
from .state import CAUSE_RED_CARD, GameState


def rooms(state: GameState) -> list[RoomSpec]:
    if state.phase == "setup":
        # Until the start the deal is the director's to adjust (cards go out at the start).
        return []
    rs = get_ruleset(state.ruleset)
    specs = [
        RoomSpec(
            key=f"team:{key}",
            kind="team",
            name=faction.room or f"{faction.name}群",
            members=frozenset(p.id for p in state.players.values() if p.faction == key),
        )
        for key, faction in rs.factions.items()
        if faction.team
    ]
    for hook in hooks(rs, "rooms"):
        specs.extend(hook(state))
    # 红牌罚下 is leaving the game, not dying in it: a sent-off player talks in no group.
    sent_off = {o.id for o in state.outs if o.cause == CAUSE_RED_CARD}
    return [
        RoomSpec(s.key, s.kind, s.name, s.members - sent_off) if sent_off & s.members else s
        for s in specs
    ]
