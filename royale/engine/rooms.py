"""The phone's room: 使用者与目标共群至投票结束 ([256] 电话, [252] 血鬼术符咒).

An accepted call of today holds a room of its two ends while the day lasts; the day's close
(the vote's end) ends it. A dead end leaves it at once: the out do not talk with the living.
"""

from __future__ import annotations

from games.engine.rooms import RoomSpec

from .state import DAY, GameState


def rooms(state: GameState) -> list[RoomSpec]:
    if state.phase != DAY:
        return []
    specs = []
    for call in state.calls:
        if call.answer != "accepted" or call.day != state.day:
            continue
        ends = [state.characters.get(call.caller), state.characters.get(call.target)]
        members = frozenset(c.id for c in ends if c is not None and c.alive)
        if not members:
            continue
        names = " 与 ".join(c.name for c in ends if c is not None)
        specs.append(RoomSpec(f"phone:{call.id}", "phone", f"通话：{names}", members))
    return specs
