"""Reads of the economy (商店、拍卖行、摆摊、交易) for the portal's day page.

A player gets only :func:`royale.engine.economy.market_view`: its own money, bids, stall and
trades, the public lot list, and the stalls in their buying hours without their sellers. (The
control room reads :func:`royale.engine.economy.market_director_view`: every bid, the sellers,
the pending requests.)
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.translation import gettext

from royale.engine import economy
from royale.engine.ruleset import get_ruleset
from royale.engine.state import GameState


def market_page(*, state: GameState, character_id: int, now: datetime) -> dict[str, Any]:
    """The market panel of one character's day page."""
    view = economy.market_view(state, character_id, now.timestamp())
    view["ask_options"] = economy.ask_options(get_ruleset(state.ruleset))
    stalls = view["stalls"]
    if stalls is not None:
        # 【购买】 choices name a stall and the price paid, never the seller.
        stalls["choices"] = [
            {
                "value": f"{s['id']}:{k}",
                "label": gettext("%(id)s 号摊【%(name)s】— %(ask)s")
                % {"id": s["id"], "name": s["name"], "ask": ask},
            }
            for s in stalls["list"]
            if not s["sold"] and not s["mine"]
            for k, ask in enumerate(s["asks"])
        ]
    return view
