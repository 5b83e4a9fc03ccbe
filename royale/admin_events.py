"""The control room's day events (随机事件) and NPCs: today's events, the villain, the bounties,
where 阿呆 and 阿笨 stand (the live panel), and the director's two forms: pick or veto the next
day's event (among those the rules allow that day), and write 阿呆's riddle.

Registered on the royale admin (see ``RoyaleGameAdmin.get_urls``); every write is a service
(``services.royale_intervene``, logged with the director and the reason).
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from games import selectors as game_selectors
from games.admin import request_director
from games.engine.errors import RuleError
from games.models import Game
from royale import services
from royale.day_events import director_events
from royale.engine.events import allowed_events
from royale.engine.npcs import RIDDLE_MAX
from royale.engine.state import GameState
from royale.selectors import royale_state


class _EventsForm(forms.Form):
    reason = forms.CharField(
        label=_("理由"),
        max_length=500,
        widget=forms.TextInput(attrs={"placeholder": _("必填，记入日志"), "size": 24}),
    )

    def __init__(self, *args: Any, state: GameState, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.state = state
        self.order_fields([*[f for f in self.fields if f != "reason"], "reason"])

    def run(self, game: Game, director: Any) -> str:
        raise NotImplementedError


class EventChooseForm(_EventsForm):
    pick = forms.ChoiceField(label=_("指定事件"), required=False)
    veto = forms.MultipleChoiceField(
        label=_("否决（不参与抽取）"), required=False, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        allowed = [(s.key, s.name) for s in allowed_events(self.state)]
        cast("forms.ChoiceField", self.fields["pick"]).choices = [("", _("随机抽取")), *allowed]
        cast("forms.ChoiceField", self.fields["veto"]).choices = allowed

    def run(self, game: Game, director: Any) -> str:
        data = self.cleaned_data
        services.royale_event_choose(
            game=game,
            director=director,
            pick=data["pick"] or None,
            veto=data["veto"],
            reason=data["reason"],
        )
        return str(_("明天开门时生效。") if data["pick"] or data["veto"] else _("已取消。"))


class RiddleForm(_EventsForm):
    text = forms.CharField(
        label=_("谜题"),
        max_length=RIDDLE_MAX,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 28}),
    )

    def run(self, game: Game, director: Any) -> str:
        data = self.cleaned_data
        services.royale_riddle_set(
            game=game, director=director, text=data["text"], reason=data["reason"]
        )
        return str(_("谜题已公布。"))


FORMS: dict[str, type[_EventsForm]] = {"event_choose": EventChooseForm, "riddle": RiddleForm}
TITLES = {
    "event_choose": _("明天的随机事件：指定或否决"),
    "riddle": _("阿呆的每日谜题（公开）"),
}


def events_panel(state: GameState) -> dict[str, Any]:
    """The live panel's part: today's events and the NPCs, everything shown."""
    return {"day_events": director_events(state)}


def events_forms(state: GameState) -> dict[str, Any]:
    return {
        "events_forms": [
            # ids of their own: the intervention forms below share the page and field names
            (op, TITLES[op], FORMS[op](state=state, auto_id=f"e_{op}_%s"))
            for op in FORMS
        ]
    }


def act_view(request: HttpRequest, game_id: int, op: str) -> HttpResponse:
    game = (
        game_selectors.games_for_director(user=request_director(request))
        .filter(pk=game_id, kind="royale")
        .first()
    )
    if game is None or op not in FORMS:
        raise Http404
    form = FORMS[op](request.POST, state=royale_state(game=game))
    back = HttpResponseRedirect(reverse("admin:royale_control", args=[game.pk]) + "#day-events")
    if not form.is_valid():
        messages.error(request, f"{TITLES[op]}：{_('表单有误（理由必填），未作任何改动。')}")
        return back
    try:
        done = form.run(game, request_director(request))
    except RuleError as exc:
        messages.error(request, f"{TITLES[op]}：{exc.text}")
    else:
        messages.success(request, f"{TITLES[op]}：{done}")
    return back


def urls(site: admin.AdminSite) -> list[URLPattern]:
    return [
        path(
            "<int:game_id>/control/events/<str:op>/",
            site.admin_view(require_POST(act_view)),
            name="royale_events_act",
        )
    ]
