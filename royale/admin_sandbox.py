"""Control-room pages around a game's life: dealing a new game (发牌) and its test match (测试赛),
with the test match's live supplies (复活、补给: RULINGS 28).

Registered on the royale admin (see ``RoyaleGameAdmin.get_urls``); every write is a service.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from games.admin_base import InterventionForm, request_director, run_form
from games.admin_prepare import credentials_context
from games.engine.errors import RuleError
from games.models import Game
from royale import sandbox, services
from royale.admin_common import CardForm, card_forms, card_urls, control_url, directed_game
from royale.engine.ruleset import get_ruleset
from royale.engine.state import GameState
from royale.models import RoyaleGame
from royale.views import CATEGORY_LABELS, TIER_LABELS

NO_REASON = _("请填写理由。")


class SetupForm(forms.Form):
    """One count per placement selector, preset to the ruleset's defaults."""

    def __init__(self, *args: Any, game: Game, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rs = get_ruleset(game.ruleset)
        for p in rs.placement:
            self.fields[p.selector] = forms.IntegerField(
                label=placement_label(p.selector), min_value=0, max_value=1000, initial=p.count
            )


def placement_label(selector: str) -> str:
    """``weapon:green`` → 绿色武器, ``supply:[HP10]草药`` → 补给【[HP10]草药】 (a name as the post
    writes it)."""
    category, _, rest = selector.partition(":")
    what = gettext(CATEGORY_LABELS.get(category, category))
    if rest in TIER_LABELS:
        return f"{gettext(TIER_LABELS[rest])}色{what}"
    return f"{what}【{rest}】" if rest else what


def setup_view(site: admin.AdminSite, request: HttpRequest, game_id: int) -> HttpResponse:
    """Deal a game that has characters but no state yet: the item counts, then 发牌."""
    game = directed_game(request, game_id)
    if RoyaleGame.objects.filter(pk=game.pk).exists():
        return HttpResponseRedirect(control_url(game))
    form = SetupForm(request.POST or None, game=game)
    if request.method == "POST" and form.is_valid():
        try:
            services.royale_setup(game=game, placement=dict(form.cleaned_data))
        except RuleError as exc:
            messages.error(request, exc.text)
        else:
            messages.success(request, _("已发牌：道具已按数量随机分布。"))
            return HttpResponseRedirect(control_url(game))
    context = {
        **site.each_context(request),
        "title": f"{game.forum_title} · {_('发牌')}",
        "game": game,
        "form": form,
        "characters": game.characters.count(),
    }
    return TemplateResponse(request, "admin/royale/setup.html", context)


def _with_reason(
    request: HttpRequest, game_id: int, run: Callable[[Game, str], str | HttpResponse]
) -> HttpResponse:
    """A test-match button: the reason is required, ``run(game, reason)`` does it, and the
    director is sent back to the control room (unless ``run`` answers with a page)."""
    game = directed_game(request, game_id)
    form = InterventionForm(request.POST)
    return run_form(
        request,
        form,
        lambda: run(game, form.cleaned_data["reason"]),
        back=control_url(game),
        invalid=NO_REASON,
    )


def testmatch_create_view(
    site: admin.AdminSite, request: HttpRequest, game_id: int
) -> HttpResponse:
    def create(game: Game, reason: str) -> HttpResponse:
        copy, passwords = sandbox.testmatch_create(
            game=game, director=request_director(request), reason=reason
        )
        rows = [{"name": p.character.name, "password": p.secret} for p in passwords]
        created = _("测试赛已创建")  # outside the f-string, where makemessages can find it
        context = {
            **site.each_context(request),
            **credentials_context(copy, rows, back=control_url(copy)),
            "title": f"{copy.forum_title} · {created}",
            "control": control_url(copy),
        }
        return TemplateResponse(request, "admin/royale/test_created.html", context)

    return _with_reason(request, game_id, create)


def testmatch_conclude_view(
    site: admin.AdminSite, request: HttpRequest, game_id: int
) -> HttpResponse:
    def conclude(game: Game, reason: str) -> str:
        winners = sandbox.testmatch_conclude(
            test_game=game, director=request_director(request), reason=reason
        )
        return _("测试赛已结束并归档；奖励已发放给：%(names)s") % {
            "names": "、".join(winners) or str(_("（无人获奖）"))
        }

    return _with_reason(request, game_id, conclude)


# --- the test match's live supplies (RULINGS 28: 复活、补给) ---------------------------------


def _players(state: GameState, *, alive: bool) -> list[tuple[int, str]]:
    return [
        (c.id, f"{c.name}（{c.place or _('未出生')}）" if alive else c.name)
        for c in state.characters.values()
        if not c.npc and c.alive == alive
    ]


class RestoreForm(CardForm):
    character = forms.TypedChoiceField(label=_("出局的角色"), coerce=int)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = cast("forms.ChoiceField", self.fields["character"])
        field.choices = _players(self.state, alive=False)

    def run(self, game: Game, director: User) -> str:
        sandbox.testmatch_restore(
            game=game,
            director=director,
            character=self.cleaned_data["character"],
            reason=self.cleaned_data["reason"],
        )
        return str(_("已复活。"))


class SupplyForm(CardForm):
    character = forms.TypedChoiceField(label=_("角色"), coerce=int)
    kind = forms.ChoiceField(label=_("补给"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast("forms.ChoiceField", self.fields["character"]).choices = _players(
            self.state, alive=True
        )
        rs = get_ruleset(self.state.ruleset)
        cast("forms.ChoiceField", self.fields["kind"]).choices = [
            (k.key, k.name) for k in rs.kinds.values() if k.category == "supply"
        ]

    def run(self, game: Game, director: User) -> str:
        sandbox.testmatch_supply(
            game=game,
            director=director,
            character=self.cleaned_data["character"],
            kind=self.cleaned_data["kind"],
            reason=self.cleaned_data["reason"],
        )
        return str(_("补给已放入背包。"))


SUPPLY_FORMS: dict[str, type[CardForm]] = {"test_restore": RestoreForm, "test_supply": SupplyForm}
SUPPLY_TITLES = {
    "test_restore": _("复活角色（测试赛）"),
    "test_supply": _("往背包中提供补给（测试赛）"),
}


def urls(site: admin.AdminSite) -> list[URLPattern]:
    wrap = site.admin_view

    def bind(view: Any, *, post_only: bool = False) -> Any:
        def bound(request: HttpRequest, game_id: int) -> HttpResponse:
            return view(site, request, game_id)

        return wrap(require_POST(bound) if post_only else bound)

    return [
        path("<int:game_id>/setup/", bind(setup_view), name="royale_setup"),
        path(
            "<int:game_id>/test-match/",
            bind(testmatch_create_view, post_only=True),
            name="royale_test_create",
        ),
        path(
            "<int:game_id>/test-match/conclude/",
            bind(testmatch_conclude_view, post_only=True),
            name="royale_test_conclude",
        ),
        *card_urls(site, "test_match", SUPPLY_FORMS, SUPPLY_TITLES, "test-match"),
    ]


def testmatch_context(game: Game, royale: RoyaleGame, state: GameState) -> dict[str, Any]:
    """What the control room's test-match card shows (a running test match: its supply forms)."""
    running = royale.test_of_id is not None and game.is_live
    return {
        "test_of": royale.test_of,
        "test_copies": list(
            RoyaleGame.objects.filter(test_of=game).select_related("game").order_by("pk")
        ),
        "test_form": InterventionForm(),
        "test_supply_forms": card_forms(state, SUPPLY_FORMS, SUPPLY_TITLES, "t") if running else [],
    }
