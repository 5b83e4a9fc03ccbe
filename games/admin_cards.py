"""判罚 in the admin: the directors' ledger and day page (activity, elevator floor, [061]'s
extras, pace, cards by hand), and the forum staff's review queue across games."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from games import card_selectors, card_services, selectors
from games import services as game_services
from games.admin import (
    DirectorScoped,
    ReadOnly,
    ReasonForm,
    action_form,
    directed_game,
    request_director,
)
from games.engine.cards import COLOR_NAMES
from games.engine.errors import RuleError
from games.models import Card, CardReview, CardStatus, Game, Pace
from games.services import FORUM_STAFF_GROUP


class CardColumns(ReadOnly, admin.ModelAdmin):
    """What the ledger and the staff's queue share: cards are written by the services only."""

    readonly_fields = tuple(f.name for f in Card._meta.fields)

    @admin.display(description=_("颜色"), ordering="color")
    def colour(self, obj: Card) -> str:
        return format_html('<span class="card-{}">{}</span>', obj.color, COLOR_NAMES[obj.color])

    @admin.display(description=_("判罚依据"))
    def reason_text(self, obj: Card) -> str:
        return card_services.reason_text(obj, card_services.rules_of(obj.game))


# The bulk actions' page lists the cards they act on.
CARD_ACTION = "admin/games/card_action.html"


class FactionForm(forms.Form):
    loses = forms.TypedChoiceField(
        label=_("该角色所在阵营"),
        choices=[("0", _("不判负")), ("1", _("判负"))],
        coerce=lambda v: v == "1",
    )
    reason = forms.CharField(label=_("理由"), widget=forms.Textarea(attrs={"rows": 3}))


class CardAddForm(forms.Form):
    character = forms.ChoiceField(label=_("角色"))
    color = forms.ChoiceField(label=_("颜色"), choices=list(COLOR_NAMES.items()))
    reason = forms.ChoiceField(label=_("判罚依据"))
    note = forms.CharField(
        label=_("说明"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    day = forms.IntegerField(label=_("第几天"), min_value=1)

    def __init__(self, game: Game, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rules = card_services.rules_of(game)
        self.fields["character"].choices = [  # type: ignore[attr-defined]
            (c.pk, f"{c.name}{'' if c.is_alive else '（已出局）'}")
            for c in game.characters.order_by("id")
        ]
        self.fields["reason"].choices = [  # type: ignore[attr-defined]
            (v.code, v.label) for v in (rules.catalogue if rules else ())
        ]
        self.fields["day"].initial = max(game.day, 1)


class PaceForm(forms.Form):
    pace = forms.ChoiceField(label=_("进程"), choices=Pace.choices)
    reason = forms.CharField(label=_("理由"))


class CloseForm(forms.Form):
    """执行加速 (or the director's own call): today's 关门 moved, announced, with a reason."""

    at = forms.DateTimeField(
        label=_("关门时间（北京时间）"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M"],
    )
    reason = forms.CharField(label=_("理由"))


@admin.register(Card)
class CardAdmin(CardColumns, DirectorScoped):
    """The ledger (判罚记录) of the director's games."""

    change_list_template = "admin/games/card/change_list.html"
    list_display = (
        "game",
        "day",
        "character",
        "colour",
        "reason_text",
        "source",
        "status",
        "effect",
        "faction_loses",
    )
    list_filter = (("game", admin.RelatedOnlyFieldListFilter), "status", "color", "source")
    list_select_related = ("game", "character")
    search_fields = ("character__name", "note")
    # Cards by hand are added on the day page, which offers the ruleset's catalogue.
    actions = ("decide_faction",)

    def has_decide_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "game/<int:game_id>/day/<int:day>/",
                self.admin_site.admin_view(self.day_view),
                name="games_card_day",
            ),
        ]
        return own + super().get_urls()

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        games = selectors.games_for_director(user=request_director(request)).exclude(status="draft")
        return super().changelist_view(request, {**(extra_context or {}), "day_games": games})

    @admin.action(description=_("决定红牌角色的阵营是否判负"), permissions=["decide"])
    def decide_faction(self, request: HttpRequest, queryset: QuerySet[Card]) -> Any:
        reds = queryset.filter(color="red", status=CardStatus.CONFIRMED)
        outcome = action_form(
            self, request, reds, FactionForm, "decide_faction", str(_("阵营是否判负")), CARD_ACTION
        )
        if not isinstance(outcome, forms.Form):
            return outcome
        for card in reds:
            try:
                card_services.card_faction_decide(
                    card=card,
                    director=request_director(request),
                    loses=outcome.cleaned_data["loses"],
                    reason=outcome.cleaned_data["reason"],
                )
            except RuleError as exc:
                self.message_user(request, f"{card}: {exc.text}", messages.ERROR)
        self.message_user(request, _("已记录。"))
        return None

    def day_view(self, request: HttpRequest, game_id: int, day: int) -> HttpResponse:
        game = directed_game(request, game_id)
        director = request_director(request)
        add_form = CardAddForm(game, request.POST if "add_card" in request.POST else None)
        pace_form = PaceForm(request.POST if "set_pace" in request.POST else None)
        close_at = card_selectors.day_close_at(game=game, day=day)
        close_form = CloseForm(
            request.POST if "move_close" in request.POST else None, initial={"at": close_at}
        )
        here = reverse("admin:games_card_day", args=[game.pk, day])
        try:
            if "add_card" in request.POST and add_form.is_valid():
                data = add_form.cleaned_data
                card_services.card_add(
                    game=game,
                    director=director,
                    character=game.characters.get(pk=int(data["character"])),
                    color=data["color"],
                    reason=data["reason"],
                    note=data["note"],
                    day=data["day"],
                )
                self.message_user(request, _("已提交，等待论坛管理审核。"))
                return HttpResponseRedirect(here)
            if "set_pace" in request.POST and pace_form.is_valid():
                card_services.pace_set(
                    game=game,
                    day=day,
                    pace=pace_form.cleaned_data["pace"],
                    director=director,
                    reason=pace_form.cleaned_data["reason"],
                )
                return HttpResponseRedirect(here)
            if "move_close" in request.POST and close_form.is_valid():
                game_services.day_close_move(
                    game=game,
                    day=day,
                    at=close_form.cleaned_data["at"],
                    director=director,
                    reason=close_form.cleaned_data["reason"],
                )
                self.message_user(request, _("关门时间已调整并公示。"))
                return HttpResponseRedirect(here)
            if "propose" in request.POST:
                n = card_services.cards_propose_again(game=game, day=day, director=director)
                self.message_user(request, _("新提议 %(n)d 张。") % {"n": n})
                return HttpResponseRedirect(here)
        except RuleError as exc:
            self.message_user(request, exc.text, messages.ERROR)
        context = {
            **self.admin_site.each_context(request),
            "title": f"{game.forum_title} · 第 {day} 天 · 发言与判罚",
            "tools": card_selectors.day_tools(game=game, day=day),
            "days": range(1, max(game.day, 1) + 1),
            "add_form": add_form,
            "pace_form": pace_form,
            "close_form": close_form,
            "close_at": close_at,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/games/card_day.html", context)


@admin.register(CardReview)
class CardReviewAdmin(CardColumns):
    """The forum staff's queue: proposed cards of every game, confirmed or rejected in bulk."""

    list_display = (
        "game",
        "day",
        "character",
        "colour",
        "reason_text",
        "facts_text",
        "source",
        "director",
        "proposed_at",
        "status",
    )
    list_filter = ("status", "color", "source", ("game", admin.RelatedOnlyFieldListFilter))
    list_select_related = ("game", "character", "director")
    search_fields = ("character__name", "game__number")
    ordering = ("proposed_at", "id")
    actions = ("confirm", "reject")

    def has_review_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(
            user.is_superuser
            or (user.is_active and user.groups.filter(name=FORUM_STAFF_GROUP).exists())
        )

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        if not any(key.startswith("status") for key in request.GET):
            # the queue: what waits for review, unless another status is asked for
            query = request.GET.copy()
            query["status__exact"] = CardStatus.PROPOSED
            return HttpResponseRedirect(f"{request.path}?{query.urlencode()}")
        return super().changelist_view(request, extra_context)

    @admin.display(description=_("统计"))
    def facts_text(self, obj: Card) -> str:
        facts = obj.facts or {}
        parts = []
        if "posts" in facts:
            parts.append(f"发帖 {facts['posts']}")
        if "streak" in facts:
            parts.append("连续 " + "/".join(str(n) for n in facts["streak"]))
        if facts.get("voted") is False:
            parts.append("未投票")
        return "，".join(parts) or obj.note[:60]

    def _review(self, request: HttpRequest, queryset: QuerySet[Card], confirm: bool) -> Any:
        action = "confirm" if confirm else "reject"
        title = str(_("确认判罚") if confirm else _("驳回判罚"))
        outcome = action_form(self, request, queryset, ReasonForm, action, title, CARD_ACTION)
        if not isinstance(outcome, forms.Form):
            return outcome
        try:
            result = card_services.cards_review(
                cards=list(queryset),
                reviewer=request_director(request),
                confirm=confirm,
                reason=outcome.cleaned_data["reason"],
            )
        except RuleError as exc:
            self.message_user(request, exc.text, messages.ERROR)
            return None
        self.message_user(
            request,
            _("已审核 %(n)d 张，跳过已审核的 %(s)d 张；累计升级 %(m)d 张，执行红牌 %(r)d 张。")
            % {
                "n": len(result.reviewed),
                "s": len(result.skipped),
                "m": len(result.made),
                "r": len(result.reds),
            },
        )
        return None

    @admin.action(description=_("确认所选判罚（计入记录）"), permissions=["review"])
    def confirm(self, request: HttpRequest, queryset: QuerySet[Card]) -> Any:
        return self._review(request, queryset, True)

    @admin.action(description=_("驳回所选判罚"), permissions=["review"])
    def reject(self, request: HttpRequest, queryset: QuerySet[Card]) -> Any:
        return self._review(request, queryset, False)
