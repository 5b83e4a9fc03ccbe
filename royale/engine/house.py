"""Items the house holds: 拍卖行 lots, the notes of sealed bids (escrow) and [252] stall goods.

Such an item lies in no place and no character's hands, yet is still in the game (it goes back to
someone, or to a buyer). The economy keeps it in ``GameState.flags["market"]``; this module only
reads that layout, so ``Draft.locate`` and the invariants (item conservation) know where each one
is without importing the economy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MARKET = "market"
AT_AUCTION, IN_ESCROW, ON_STALL = "auction", "escrow", "stall"


def house_items(flags: Mapping[str, Any]) -> list[tuple[int, str]]:
    """Every item the house holds, with where: ``(item, "auction" | "escrow" | "stall")``. A list,
    not a dict, so the invariants can see an item held twice."""
    market = flags.get(MARKET)
    if not market:
        return []
    held = [(int(lot["item"]), AT_AUCTION) for lot in market.get("lots", ())]
    held += [(int(iid), IN_ESCROW) for bid in market.get("bids", ()) for iid in bid["notes"]]
    held += [(int(s["item"]), ON_STALL) for s in market.get("stalls", ()) if not s["sold"]]
    return held
