"""The control room's market card (商店、拍卖行、摆摊、交易): every lot with all its bids, exchange
requests to approve or refuse, stalls with their sellers, open trades; and the director's market
interventions: list a lot by hand, exchange a character's notes, use a supply for a character.

Registered on the royale admin (see ``RoyaleGameAdmin.get_urls``); every write is
``services.royale_intervene`` (logged with the director and the reason).
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from django import forms
from django.contrib import admin
from django.contrib.auth.models import User
from django.urls import URLPattern
from django.utils.translation import gettext_lazy as _

from games.models import Game
from royale import services
from royale.admin_common import CardForm, card_forms, card_urls
from royale.engine import economy
from royale.engine.ruleset import get_ruleset
from royale.engine.state import GameState


class _MarketForm(CardForm):
    op: ClassVar[str]  # the intervention (``services.royale_intervene``) the form runs

    def args(self) -> dict[str, Any]:
        """The intervention's logged payload."""
        raise NotImplementedError

    def run(self, game: Game, director: User) -> str:
        services.royale_intervene(
            game=game,
            director=director,
            op=self.op,
            args=self.args(),
            reason=self.cleaned_data["reason"],
        )
        return str(_("已完成。"))


class AnswerForm(_MarketForm):
    op = "exchange_answer"
    character = forms.IntegerField(widget=forms.HiddenInput)
    approve = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def args(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {"character": data["character"], "approve": data["approve"]}


class ExchangeForm(_MarketForm):
    op = "exchange"
    character = forms.TypedChoiceField(label=_("角色"), coerce=int)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast("forms.ChoiceField", self.fields["character"]).choices = [
            (c.id, c.name) for c in self.state.characters.values() if c.alive and not c.npc
        ]

    def args(self) -> dict[str, Any]:
        return {"character": self.cleaned_data["character"], "notes": []}


class ListLotForm(_MarketForm):
    op = "list_lot"
    selector = forms.CharField(
        label=_("拍品"),
        max_length=120,
        help_text=_("道具键（如 recon:GPS）或 类别:品级"),
        widget=forms.TextInput(attrs={"list": "kind-keys", "size": 24}),
    )

    def args(self) -> dict[str, Any]:
        return {"selector": self.cleaned_data["selector"].strip()}


class UseForForm(_MarketForm):
    op = "use_for"
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


FORMS: dict[str, type[CardForm]] = {
    form.op: form for form in (AnswerForm, ExchangeForm, ListLotForm, UseForForm)
}
TITLES = {
    "exchange_answer": _("兑换申请"),
    "exchange": _("兑换货币（全部换为大面值）"),
    "list_lot": _("拍卖行手动上货"),
    "use_for": _("帮角色使用补给"),
}


def market_context(state: GameState) -> dict[str, Any]:
    """What the control room's market card shows, with its forms (an exchange request is
    answered by the buttons of its row)."""
    return {
        "market": economy.market_director_view(state),
        "market_forms": card_forms(
            state, FORMS, TITLES, "m", ops=("list_lot", "exchange", "use_for")
        ),
    }


def urls(site: admin.AdminSite) -> list[URLPattern]:
    return card_urls(site, "market", FORMS, TITLES, "market")
