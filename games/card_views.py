"""The player's 申请加速/申请延时 button (a plain form: works without JavaScript)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_POST

from games import card_services, selectors
from games.engine.errors import RuleError
from games.views import _game_or_404


@require_POST
def pace_request(request: HttpRequest, number: str) -> HttpResponse:
    game = _game_or_404(number)
    character = selectors.session_character(game=game, session=request.session)
    if character is None:
        return redirect("play-login", number=number)
    try:
        card_services.pace_request(
            game=game,
            character=character,
            kind=str(request.POST.get("kind", "")),
            now=timezone.now(),
        )
    except RuleError as exc:
        messages.error(request, exc.text)
    return redirect("play-home", number=number)
