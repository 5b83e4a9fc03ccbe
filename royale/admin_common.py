"""What every page of the royale control room shares: the game a director may open, the
intervention forms' state, and a card's forms and the view they post to (the reason and running
a submitted form are every room's: ``games.admin``).

Each card of the control room (see ``RoyaleGameAdmin.get_urls``) posts its forms to a view of its
own; they all look a game up the same way, refuse and report the same way, and lead back to the
card they came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path, reverse
from django.utils.functional import Promise
from django.views.decorators.http import require_POST

from games import admin_base as games_admin
from games.admin_base import InterventionForm, request_director, run_form
from games.models import Game
from royale.engine.state import GameState
from royale.selectors import royale_state


def directed_game(request: HttpRequest, game_id: int) -> Game:
    """The royale game if the signed-in user directs it; otherwise 404, so another director's
    game looks exactly like a game that does not exist."""
    return games_admin.directed_game(request, game_id, kind="royale")


def control_url(game: Game, anchor: str = "") -> str:
    """The game's control room, scrolled to the card ``anchor`` when given."""
    url = reverse("admin:royale_control", args=[game.pk])
    return f"{url}#{anchor}" if anchor else url


# --- forms ---------------------------------------------------------------------------------------


class StateForm(forms.Form):
    """A form whose choices come from the game's current state (characters, places, items)."""

    def __init__(self, *args: Any, state: GameState, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.state = state


class CardForm(StateForm, InterventionForm):
    """An intervention of a card registered with :func:`card_urls`."""

    def run(self, game: Game, director: User) -> str:
        """Carry the intervention out through a service; what the director is told was done."""
        raise NotImplementedError


# --- a card's forms ------------------------------------------------------------------------------


def card_forms(
    state: GameState,
    kinds: Mapping[str, type[CardForm]],
    titles: Mapping[str, str | Promise],
    prefix: str,
    ops: Iterable[str] | None = None,
) -> list[tuple[str, str | Promise, CardForm]]:
    """Blank forms of a card (``ops``, all by default), each as (op, title, form)."""
    return [
        # ids of their own: the cards share the page and some field names
        (op, titles[op], kinds[op](state=state, auto_id=f"{prefix}_{op}_%s"))
        for op in (kinds if ops is None else ops)
    ]


def card_urls(
    site: admin.AdminSite,
    card: str,
    kinds: Mapping[str, type[CardForm]],
    titles: Mapping[str, str | Promise],
    anchor: str,
) -> list[URLPattern]:
    """The view a card's forms post to (``admin:royale_<card>_act``), back to ``#<anchor>``."""

    def act_view(request: HttpRequest, game_id: int, op: str) -> HttpResponse:
        game = directed_game(request, game_id)
        if op not in kinds:
            raise Http404
        form = kinds[op](request.POST, state=royale_state(game=game))
        return run_form(
            request,
            form,
            lambda: form.run(game, request_director(request)),
            back=control_url(game, anchor),
            title=titles[op],
        )

    return [
        path(
            f"<int:game_id>/control/{card}/<str:op>/",
            site.admin_view(require_POST(act_view)),
            name=f"royale_{card}_act",
        )
    ]
