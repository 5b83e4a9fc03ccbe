"""Rooms as the rules make them: who talks with whom, read from a game's state.

A kind's engine says which rooms its state holds (a faction's 共群, a <团队> group, a phone
call) and who is in each now; the shell keeps the rooms, their history and their messages, and
follows these facts after every step that may change them. The directors are in every room and
are never listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RoomKind = Literal["lobby", "inbox", "team", "phone"]


@dataclass(frozen=True, slots=True)
class RoomSpec:
    # Stable within a game ("team:wolves", "phone:3"): the same room across steps. Never shown
    # to a player (it would name a faction or count the calls): players see a random token.
    key: str
    kind: RoomKind
    name: str  # as its members read it: 狼群, 游侠群, 通话：A 与 B
    members: frozenset[int]
