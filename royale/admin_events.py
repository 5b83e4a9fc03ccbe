"""The control room's day events (随机事件) and NPCs: today's events, the villain, the bounties,
where 阿呆 and 阿笨 stand (the live panel), and the director's two forms: pick or veto the next
day's event (among those the rules allow that day), and write 阿呆's riddle.

Registered on the royale admin (see ``RoyaleGameAdmin.get_urls``); every write is a service
(``services.royale_intervene``, logged with the director and the reason).
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib import admin
from django.contrib.auth.models import User
from django.urls import URLPattern
from django.utils.translation import gettext_lazy as _

from games.models import Game
from royale import services
from royale.admin_common import CardForm, card_forms, card_urls
from royale.day_events import director_events
from royale.engine.events import allowed_events
from royale.engine.npcs import RIDDLE_MAX
from royale.engine.ruleset import get_ruleset
from royale.engine.state import GameState
from royale.selectors import villain_title


class EventChooseForm(CardForm):
    pick = forms.ChoiceField(label=_("指定事件"), required=False)
    veto = forms.MultipleChoiceField(
        label=_("否决（不参与抽取）"), required=False, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        allowed = [(s.key, s.name) for s in allowed_events(self.state)]
        cast("forms.ChoiceField", self.fields["pick"]).choices = [("", _("随机抽取")), *allowed]
        cast("forms.ChoiceField", self.fields["veto"]).choices = allowed

    def run(self, game: Game, director: User) -> str:
        data = self.cleaned_data
        services.royale_event_choose(
            game=game,
            director=director,
            pick=data["pick"] or None,
            veto=data["veto"],
            reason=data["reason"],
        )
        return str(_("明天开门时生效。") if data["pick"] or data["veto"] else _("已取消。"))


class RiddleForm(CardForm):
    text = forms.CharField(
        label=_("谜题"),
        max_length=RIDDLE_MAX,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 28}),
    )

    def run(self, game: Game, director: User) -> str:
        data = self.cleaned_data
        services.royale_riddle_set(
            game=game, director=director, text=data["text"], reason=data["reason"]
        )
        return str(_("谜题已公布。"))


FORMS: dict[str, type[CardForm]] = {"event_choose": EventChooseForm, "riddle": RiddleForm}
TITLES = {
    "event_choose": _("明天的随机事件：指定或否决"),
    "riddle": _("阿呆的每日谜题（公开）"),
}


def events_panel(state: GameState) -> dict[str, Any]:
    """The live panel's part: today's events and the NPCs, everything shown."""
    return {
        "day_events": director_events(state),
        "villain_title": villain_title(get_ruleset(state.ruleset)),
    }


def events_forms(state: GameState) -> dict[str, Any]:
    return {"events_forms": card_forms(state, FORMS, TITLES, "e")}


def urls(site: admin.AdminSite) -> list[URLPattern]:
    return card_urls(site, "events", FORMS, TITLES, "day-events")
