"""What every page of the royale control room shares: the game a director may open, the
intervention forms' reason and state, and running a submitted form.

Each card of the control room (see ``RoyaleGameAdmin.get_urls``) posts its forms to a view of its
own; they all look a game up the same way, refuse and report the same way, and lead back to the
card they came from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from games import selectors as game_selectors
from games.admin import request_director
from games.engine.errors import RuleError
from games.models import Game
from royale.engine.state import GameState
from royale.selectors import royale_state

INVALID = _("表单有误（理由必填），未作任何改动。")


def directed_game(request: HttpRequest, game_id: int) -> Game:
    """The royale game if the signed-in user directs it; otherwise 404, so another director's
    game looks exactly like a game that does not exist."""
    game = (
        game_selectors.games_for_director(user=request_director(request))
        .filter(pk=game_id, kind="royale")
        .first()
    )
    if game is None:
        raise Http404
    return game


def control_url(game: Game, anchor: str = "") -> str:
    """The game's control room, scrolled to the card ``anchor`` when given."""
    url = reverse("admin:royale_control", args=[game.pk])
    return f"{url}#{anchor}" if anchor else url


# --- forms ---------------------------------------------------------------------------------------


class ReasonForm(forms.Form):
    """Every intervention is logged with the director's reason: required, the form's last field."""

    reason = forms.CharField(
        label=_("理由"),
        max_length=500,
        widget=forms.TextInput(attrs={"placeholder": _("必填，记入日志"), "size": 30}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.order_fields([*[f for f in self.fields if f != "reason"], "reason"])


class StateForm(forms.Form):
    """A form whose choices come from the game's current state (characters, places, items)."""

    def __init__(self, *args: Any, state: GameState, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.state = state


class CardForm(StateForm, ReasonForm):
    """An intervention of a card registered with :func:`card_urls`."""

    def run(self, game: Game, director: User) -> str:
        """Carry the intervention out through a service; what the director is told was done."""
        raise NotImplementedError


def run_form(
    request: HttpRequest,
    form: forms.Form,
    run: Callable[[], str | HttpResponse],
    *,
    back: str,
    title: str | Promise = "",
    invalid: str | Promise = INVALID,
) -> HttpResponse:
    """Validate a submitted form and run it: an invalid form or a rule's refusal changes nothing
    and says why, success says what ``run`` did; then back to ``back`` (unless ``run`` answers
    with a page of its own). Messages start with the form's ``title`` when it has one."""

    def said(text: str | Promise) -> str:
        return f"{title}：{text}" if title else str(text)

    if not form.is_valid():
        messages.error(request, said(invalid))
        return HttpResponseRedirect(back)
    try:
        done = run()
    except RuleError as exc:
        messages.error(request, said(exc.text))
        return HttpResponseRedirect(back)
    if isinstance(done, HttpResponse):
        return done
    messages.success(request, said(done))
    return HttpResponseRedirect(back)


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
