"""``{% ballots_panel game %}``: the latest vote day's tally (outcome, totals, who has not
voted) with a link to every post, for the director's pages."""

from __future__ import annotations

from typing import Any

from django import template

from games import ballots
from games.admin_ballots import tally_context
from games.engine.errors import RuleError
from games.models import Game

register = template.Library()


@register.inclusion_tag("admin/games/_ballots_panel.html", takes_context=True)
def ballots_panel(context: template.Context, game: Game, buttons: bool = False) -> dict[str, Any]:
    """With ``buttons`` (only where the panel is outside any other form), post back and publish
    from here."""
    shown: dict[str, Any] = {
        "game": game,
        "buttons": buttons,
        "csrf_token": context.get("csrf_token"),
    }
    days = [d for d in ballots.vote_days(game=game) if d <= game.day] if game.pk else []
    if not days:
        return shown
    shown["day"] = days[0]
    try:
        shown.update(tally_context(game, days[0]))
    except RuleError as exc:
        shown["error"] = exc.text
    return shown
