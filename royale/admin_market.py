"""The control room's market card (商店、拍卖行、摆摊、交易): every lot with all its bids, exchange
requests to approve or refuse, stalls with their sellers, open trades; and the director's market
interventions: list a lot by hand, exchange a character's notes, use a supply for a character.

Registered on the royale admin (see ``RoyaleGameAdmin.get_urls``); every write is
``services.royale_intervene`` (logged with the director and the reason).
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
from royale import services
from royale.engine.ruleset import get_ruleset
from royale.engine.state import GameState
from royale.market import market_control
from royale.selectors import royale_state


class _MarketForm(forms.Form):
    reason = forms.CharField(
        label=_("理由"),
        max_length=500,
        widget=forms.TextInput(attrs={"placeholder": _("必填，记入日志"), "size": 24}),
    )

    def __init__(self, *args: Any, state: GameState, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.state = state
        self.order_fields([*[f for f in self.fields if f != "reason"], "reason"])

    def args(self) -> dict[str, Any]:
        """The intervention's logged payload."""
        raise NotImplementedError


class AnswerForm(_MarketForm):
    character = forms.IntegerField(widget=forms.HiddenInput)
    approve = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def args(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {"character": data["character"], "approve": data["approve"]}


class ExchangeForm(_MarketForm):
    character = forms.TypedChoiceField(label=_("角色"), coerce=int)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast("forms.ChoiceField", self.fields["character"]).choices = [
            (c.id, c.name) for c in self.state.characters.values() if c.alive and not c.npc
        ]

    def args(self) -> dict[str, Any]:
        return {"character": self.cleaned_data["character"], "notes": []}


class ListLotForm(_MarketForm):
    selector = forms.CharField(
        label=_("拍品"),
        max_length=120,
        help_text=_("道具键（如 recon:GPS）或 类别:品级"),
        widget=forms.TextInput(attrs={"list": "kind-keys", "size": 24}),
    )

    def args(self) -> dict[str, Any]:
        return {"selector": self.cleaned_data["selector"].strip()}


class UseForForm(_MarketForm):
    item = forms.TypedChoiceField(label=_("补给"), coerce=int)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rs = get_ruleset(self.state.ruleset)
        self.holders = {
            iid: c.id
            for c in self.state.characters.values()
            if c.alive
            for iid in c.held
            if rs.kinds[self.state.items[iid].kind].effect == "supply"
        }
        cast("forms.ChoiceField", self.fields["item"]).choices = [
            (
                iid,
                f"{self.state.characters[cid].name} — {rs.kinds[self.state.items[iid].kind].name}",
            )
            for iid, cid in self.holders.items()
        ]

    def args(self) -> dict[str, Any]:
        item = self.cleaned_data["item"]
        return {"character": self.holders[item], "item": item}


FORMS: dict[str, type[_MarketForm]] = {
    "exchange_answer": AnswerForm,
    "exchange": ExchangeForm,
    "list_lot": ListLotForm,
    "use_for": UseForForm,
}
TITLES = {
    "exchange_answer": _("兑换申请"),
    "exchange": _("兑换货币（全部换为大面值）"),
    "list_lot": _("拍卖行手动上货"),
    "use_for": _("帮角色使用补给"),
}


def market_context(state: GameState) -> dict[str, Any]:
    """What the control room's market card shows, with its forms."""
    return {
        "market": market_control(state),
        "market_forms": [
            # ids of their own: the intervention forms below share the page and field names
            (op, TITLES[op], FORMS[op](state=state, auto_id=f"m_{op}_%s"))
            for op in ("list_lot", "exchange", "use_for")
        ],
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
    back = HttpResponseRedirect(reverse("admin:royale_control", args=[game.pk]) + "#market")
    if not form.is_valid():
        messages.error(request, f"{TITLES[op]}：{_('表单有误（理由必填），未作任何改动。')}")
        return back
    try:
        services.royale_intervene(
            game=game,
            director=request_director(request),
            op=op,
            args=form.args(),
            reason=form.cleaned_data["reason"],
        )
    except RuleError as exc:
        messages.error(request, f"{TITLES[op]}：{exc.text}")
    else:
        messages.success(request, f"{TITLES[op]}：{_('已完成。')}")
    return back


def urls(site: admin.AdminSite) -> list[URLPattern]:
    return [
        path(
            "<int:game_id>/control/market/<str:op>/",
            site.admin_view(require_POST(act_view)),
            name="royale_market_act",
        )
    ]
