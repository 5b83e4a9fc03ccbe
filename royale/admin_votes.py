"""The control room's vote and power panels: today's full tally live, and the power ranking.

Directors see everything here (who voted whom, weights, totals, how the tie-break stands); the
player pages never read this module.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from royale.engine.power import power_rows
from royale.engine.ruleset import get_ruleset
from royale.engine.state import DAY, GameState
from royale.engine.votes import standing


def _tie_note(totals: list[dict[str, Any]]) -> str:
    """Why the top is the top when others have the same total (平票则最先到达最高票)."""
    if len(totals) < 2 or totals[1]["total"] != totals[0]["total"]:
        return ""
    tied = [t for t in totals if t["total"] == totals[0]["total"]]
    return _("平票 %(n)s 人：%(top)s 在今天第 %(at)s 次投票/改票时最先达到 %(total)s 票") % {
        "n": len(tied),
        "top": tied[0]["name"],
        "at": tied[0]["since"] + 1,
        "total": tied[0]["total"],
    }


def votes_panel(state: GameState) -> dict[str, Any]:
    rs = get_ruleset(state.ruleset)
    tally = standing(state)
    voted = {b["voter"] for b in tally["ballots"]}
    waiting = [
        c.name
        for c in sorted(state.characters.values(), key=lambda c: c.id)
        if c.alive and not c.npc and c.id not in voted
    ]
    top = next((t for t in tally["totals"] if t["character"] == tally["top"]), None)
    return {
        "votes": {
            **tally,
            "open": state.phase == DAY and state.day >= rs.vote_from_day,
            "reveal": int(state.flags.get("vote_reveal", 1)),
            "top_row": top,
            "tie_note": _tie_note(tally["totals"]),
            "waiting": waiting,
            "totals": [{**t, "since_ballot": t["since"] + 1} for t in tally["totals"]],
        },
        "power": power_rows(state),
    }
