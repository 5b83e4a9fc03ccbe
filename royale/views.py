"""The royale's portal pages (a helper fills these in; see the royale live issue)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.models import Character, Game


def player_page(request: HttpRequest, game: Game, character: Character) -> HttpResponse:
    return render(request, "games/home.html", {"game": game, "character": character})
