"""``{% player_cards game character %}``: a player's own cards and today's 加速/延时, for any
kind's player page."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import timezone

from games import card_selectors
from games.models import Character, Game

register = template.Library()


@register.inclusion_tag("games/_player_cards.html", takes_context=True)
def player_cards(context: template.Context, game: Game, character: Character) -> dict[str, Any]:
    return {
        # the pace button's refusals come back as messages; not every page shows them
        "messages": context.get("messages", ()),
        "game": game,
        "cards": card_selectors.cards_of_character(character=character),
        "pace": card_selectors.pace_for_player(game=game, character=character, now=timezone.now()),
    }
