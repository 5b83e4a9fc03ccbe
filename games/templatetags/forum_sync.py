"""``{% forum_sync_panel game %}``: each of a game's threads with its last sync, floors stored
and last error, for the director's pages."""

from __future__ import annotations

from typing import Any

from django import template

from games import forum_selectors
from games.models import Game

register = template.Library()


@register.inclusion_tag("admin/games/_forum_sync.html", takes_context=True)
def forum_sync_panel(
    context: template.Context, game: Game, buttons: bool = False
) -> dict[str, Any]:
    """With ``buttons`` (only where the panel is outside any other form), sync it from here."""
    request = context.get("request")
    return {
        "game": game,
        "rows": forum_selectors.forum_threads_sync(game=game) if game.pk else [],
        "buttons": buttons,
        "csrf_token": context.get("csrf_token"),
        "next_url": request.get_full_path() if request is not None else "",
    }
