"""``{% rooms_panel game character %}``: the player's rooms (联谊群, 私聊导演, a 共群, a call) as
tabs, each with its messages (fetched and kept live by ``static/js/rooms.js``) and its form,
for any kind's player page.

The tabs and forms are drawn here, in the reader's language, so the script never writes a
label of its own; the rooms a player joins later (a call accepted, a conversion) are built by
the script from the ``<template>`` this renders."""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings

from games import room_selectors
from games.models import Character, Game
from games.selectors import Viewer

register = template.Library()


@register.inclusion_tag("games/_rooms.html", takes_context=True)
def rooms_panel(context: template.Context, game: Game, character: Character) -> dict[str, Any]:
    rooms = room_selectors.rooms_for_viewer(viewer=Viewer(game=game, character=character))
    return {
        # the included forms post with the page's own token (the API checks CSRF)
        "csrf_token": context.get("csrf_token"),
        "rooms": rooms,
        "active": rooms[0]["room"] if rooms else "",
        "topics": room_selectors.topic_choices(),
        "max": settings.ROOM_MESSAGE_MAX,
        # What the script needs and cannot read off the page: whose messages are the reader's
        # own (they are not unread) and where each room stands when the page was drawn.
        "config": {
            "game": game.pk,
            "me": character.pk,
            "rooms": rooms,
        },
    }
