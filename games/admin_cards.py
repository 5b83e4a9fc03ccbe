"""判罚 in the admin: the directors' ledger and day page (activity, elevator floor, [061]'s
extras, pace, cards by hand), and the forum staff's review queue across games."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games import card_selectors, card_services, selectors
from games import services as game_services
from games.admin_base import (
    DirectorScoped,
    ReadOnly,
    ReasonForm,
    action_form,
    directed_game,
    request_director,
)
from games.admin_labels import GAME_FILTER, GameColumn
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
        return card_selectors.rule_text(obj, card_services.rules_of(obj.game))


# The bulk actions' page lists the cards they act on.
CARD_ACTION = "admin/games/card_action.html"
REVIEW_ACTION = "admin/games/cardreview/action.html"


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
class CardAdmin(GameColumn, CardColumns, DirectorScoped):
    """The ledger (判罚记录) of the director's games."""

    change_list_template = "admin/games/card/change_list.html"
    list_display = (
        "game_title",
        "day",
        "character",
        "colour",
        "reason_text",
        "source",
        "status",
        "effect",
        "faction_loses",
    )
    list_filter = (GAME_FILTER, "status", "color", "source")
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


class ReviewChangeList(ChangeList):
    """The queue's page: each listed card's review view (the posts it rests on) in a few
    queries for the page, kept on the card for its columns."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        for row in card_selectors.review_cards(self.result_list):
            setattr(row.card, REVIEW_ROW, row)


REVIEW_ROW = "review_row"
REVIEW_SELECT = ("game", "game__forum_site", "character", "director", "reviewer")


def review_row(card: Card) -> card_selectors.ReviewCard:
    row = getattr(card, REVIEW_ROW, None)
    return row if row is not None else card_selectors.review_cards([card])[0]


@admin.register(CardReview)
class CardReviewAdmin(CardColumns):
    """The forum staff's queue: proposed cards of every game, each confirmed or rejected with a
    reason on its row or its page (or several at once); a secret reason of a running game shows
    neither who nor why (``card_selectors.card_hidden``)."""

    change_list_template = "admin/games/cardreview/change_list.html"
    list_display = (
        "game_day",
        "who",
        "colour",
        "rule",
        "evidence",
        "origin",
        "review",
    )
    list_display_links = ("rule",)
    list_filter = ("status", "color", "source", GAME_FILTER)
    list_select_related = REVIEW_SELECT
    search_fields = ("character__name", "game__number")
    ordering = ("proposed_at", "id")
    actions = ("confirm", "reject")

    def has_review_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(
            user.is_superuser
            or (user.is_active and user.groups.filter(name=FORUM_STAFF_GROUP).exists())
        )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Card]:
        """Every game's cards for the staff; anyone else only those of the games they direct."""
        qs = super().get_queryset(request).select_related(*REVIEW_SELECT)
        if self.has_review_permission(request):
            return qs
        return qs.filter(game__directors=request_director(request)).distinct()

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Card], search_term: str
    ) -> tuple[QuerySet[Card], bool]:
        qs, duplicates = super().get_search_results(request, queryset, search_term)
        if search_term.strip():
            # a search by name must not find the card whose very name is hidden
            qs = qs.exclude(card_selectors.hidden_cards())
        return qs, duplicates

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return ReviewChangeList

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<int:card_id>/review/",
                self.admin_site.admin_view(self.review_view),
                name="games_cardreview_review",
            ),
        ]
        return own + super().get_urls()

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        if not any(key.startswith("status") for key in request.GET):
            # the queue: what waits for review, unless another status is asked for
            query = request.GET.copy()
            query["status__exact"] = CardStatus.PROPOSED
            return HttpResponseRedirect(f"{request.path}?{query.urlencode()}")
        context = {
            "title": _("判罚审核"),
            **(extra_context or {}),
            "can_review": self.has_review_permission(request),
        }
        return super().changelist_view(request, context)

    # --- columns --------------------------------------------------------------------------------

    @staticmethod
    def _label(obj: Card) -> str:
        """The card as the queue names it (``Card.__str__`` has the character's name)."""
        row = review_row(obj)
        who = row.who if not row.hidden else str(_("（保密）"))
        return f"D{obj.day} {who} {obj.get_color_display()}"

    @admin.display(description=mark_safe('<input type="checkbox" id="action-toggle">'))
    def action_checkbox(self, obj: Card) -> SafeString:
        attrs = {
            "class": "action-select",
            "aria-label": format_html(gettext("选择此判罚 - {}"), self._label(obj)),
        }
        box = forms.CheckboxInput(attrs, lambda value: False)
        return box.render(helpers.ACTION_CHECKBOX_NAME, str(obj.pk))

    @admin.display(description=pgettext_lazy("admin column", "游戏"), ordering="game")
    def game_day(self, obj: Card) -> str:
        return str(_("%(game)s · 第 %(day)d 天") % {"game": obj.game.forum_title, "day": obj.day})

    @admin.display(description=_("来源"), ordering="source")
    def origin(self, obj: Card) -> str:
        who = f" · {obj.director}" if obj.director else ""
        return f"{obj.get_source_display()}{who}"

    @admin.display(description=pgettext_lazy("admin column", "角色"))
    def who(self, obj: Card) -> str:
        row = review_row(obj)
        return row.who if not row.hidden else str(_("（保密）"))

    @admin.display(description=_("判罚依据"))
    def rule(self, obj: Card) -> str:
        row = review_row(obj)
        return row.rule if not row.hidden else str(_("保密（游戏进行中不公开）"))

    @admin.display(description=_("统计与帖子"))
    def evidence(self, obj: Card) -> str:
        return render_to_string(
            "admin/games/cardreview/_evidence.html", {"row": review_row(obj), "compact": True}
        )

    @admin.display(description=_("审核"))
    def review(self, obj: Card) -> str:
        return render_to_string("admin/games/cardreview/_review_row.html", {"card": obj})

    # --- the card's page and its buttons --------------------------------------------------------

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        card = self.get_object(request, object_id)
        if card is None:
            raise Http404
        row = review_row(card)
        context = {
            **self.admin_site.each_context(request),
            "title": _("判罚审核 · %(game)s · 第 %(day)d 天")
            % {"game": card.game.forum_title, "day": card.day},
            "row": row,
            "card": card,
            "can_review": self.has_review_permission(request)
            and card.status == CardStatus.PROPOSED,
            "opts": self.model._meta,
            "original": card,
        }
        return TemplateResponse(request, "admin/games/cardreview/review.html", context)

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # Cards are changed by the services only, which log to the game's event log; the admin's
        # history would be empty and its title would name a hidden card's character.
        return HttpResponseRedirect(reverse("admin:games_cardreview_change", args=[object_id]))

    def review_view(self, request: HttpRequest, card_id: int) -> HttpResponse:
        """确认/驳回 one card (its row's or its page's buttons): the reason is required; a card
        reviewed meanwhile is left as it is."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_review_permission(request):
            raise PermissionDenied
        card = self.get_queryset(request).filter(pk=card_id).first()
        if card is None:
            raise Http404
        back = self._back(request, card)
        decision = request.POST.get("decision", "")
        if decision not in ("confirm", "reject"):
            self.message_user(request, _("请选择确认或驳回。"), messages.ERROR)
            return HttpResponseRedirect(back)
        try:
            result = card_services.cards_review(
                cards=[card],
                reviewer=request_director(request),
                confirm=decision == "confirm",
                reason=str(request.POST.get("reason", "")),
            )
        except RuleError as exc:
            self.message_user(request, exc.text, messages.ERROR)
            return HttpResponseRedirect(back)
        if result.skipped:
            self.message_user(request, _("这张判罚已被审核，未作改动。"), messages.ERROR)
        else:
            self.message_user(request, self._outcome(result, decision == "confirm"))
        return HttpResponseRedirect(back)

    def _back(self, request: HttpRequest, card: Card) -> str:
        back = str(request.POST.get("next", ""))
        if back and url_has_allowed_host_and_scheme(
            back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return back
        return reverse("admin:games_cardreview_change", args=[card.pk])

    @staticmethod
    def _outcome(result: card_services.ReviewResult, confirm: bool) -> str:
        done = _("已确认。") if confirm else _("已驳回。")
        extra = []
        if result.made:
            extra.append(str(_("累计升级 %(n)d 张") % {"n": len(result.made)}))
        if result.reds:
            extra.append(str(_("执行红牌 %(n)d 张") % {"n": len(result.reds)}))
        return str(done) + ("，".join(extra) + "。" if extra else "")

    # --- several at once ----------------------------------------------------------------------

    def _review(self, request: HttpRequest, queryset: QuerySet[Card], confirm: bool) -> Any:
        action = "confirm" if confirm else "reject"
        title = str(_("确认判罚") if confirm else _("驳回判罚"))
        outcome = action_form(self, request, queryset, ReasonForm, action, title, REVIEW_ACTION)
        if isinstance(outcome, TemplateResponse):
            # the page names the cards as the queue does (a hidden one without its name)
            (outcome.context_data or {})["rows"] = card_selectors.review_cards(queryset)
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
