"""The battle royale's control room in the admin: one live page per game for its directors.

The page shows everything (it is the directors' view: hidden facts included), follows the log
over the directors' websocket, and offers each intervention as a form with a required reason.
Every write goes through a service; this module only reads, validates and renders.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from games import selectors as game_selectors
from games import services as game_services
from games.admin_base import GameStateAdmin, InterventionForm, request_director, run_form
from games.admin_labels import GameColumn
from games.models import PHASE_LABELS, TRANSITION_LABELS, Announcement, Game
from royale import admin_events, admin_market, admin_sandbox, services
from royale.admin_common import StateForm, control_url, directed_game
from royale.admin_votes import votes_panel
from royale.engine.ruleset import TIERED_CATEGORIES, Ruleset, get_ruleset
from royale.engine.state import MODE_ACT, MODE_REST, GameState
from royale.models import RoyaleGame
from royale.selectors import director_view, royale_state, search_cooldown_left
from royale.views import TIER_LABELS

MODE_LABELS = {MODE_ACT: _("行动"), MODE_REST: _("静养"), "": _("未选择")}


def _game_for(request: HttpRequest, game_id: int) -> tuple[Game, RoyaleGame]:
    """The directed game and its royale state; 404 when either is missing."""
    game = directed_game(request, game_id)
    royale = RoyaleGame.objects.filter(pk=game_id).first()
    if royale is None:
        raise Http404
    return game, royale


# --- forms -------------------------------------------------------------------------------------


class _ReasonForm(StateForm, InterventionForm):
    """An intervention of the main card (run by ``RUNS``)."""


def _character_choices(state: GameState) -> list[tuple[int, str]]:
    return [
        (c.id, f"{c.name}（{c.place or _('未出生')}）")
        for c in state.characters.values()
        if c.alive
    ]


class _CharacterForm(_ReasonForm):
    """An intervention on one living character."""

    character = forms.TypedChoiceField(label=_("角色"), coerce=int)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast("forms.ChoiceField", self.fields["character"]).choices = _character_choices(self.state)


class AdjustForm(_CharacterForm):
    hp = forms.IntegerField(
        label=_("生命 ±"), initial=0, required=False, min_value=-1000, max_value=1000
    )
    mp = forms.IntegerField(
        label=_("体力 ±"), initial=0, required=False, min_value=-1000, max_value=1000
    )
    bleeding = forms.TypedChoiceField(label=_("流血"), coerce=int, empty_value=None, required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # the bleeding amounts are those the ruleset's weapons inflict
        rs = get_ruleset(self.state.ruleset)
        amounts = sorted({k.bleeding for k in rs.kinds.values() if k.bleeding})
        cast("forms.ChoiceField", self.fields["bleeding"]).choices = [
            ("", _("不变")),
            ("0", _("止血")),
            *((str(n), _("流血 %(n)s") % {"n": n}) for n in amounts),
        ]


class RelocateForm(_CharacterForm):
    place = forms.ChoiceField(label=_("移动到"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        places = self.state.places_on_map()
        cast("forms.ChoiceField", self.fields["place"]).choices = [(p, p) for p in places]


class GiveForm(_CharacterForm):
    kind = forms.CharField(
        label=_("道具"),
        max_length=120,
        help_text=_("道具键（如 supply:[HP30]精油）或 类别:品级（如 weapon:blue，抽一件未出现的）"),
        widget=forms.TextInput(attrs={"list": "kind-keys", "size": 28}),
    )


class TakeForm(_ReasonForm):
    item = forms.TypedChoiceField(label=_("道具"), coerce=int)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices: list[tuple[int, str]] = []
        rs = get_ruleset(self.state.ruleset)
        for c in self.state.characters.values():
            for iid in c.held:
                choices.append((iid, f"#{iid} {_kind_label(rs, self.state, iid)} — {c.name}"))
        for p in self.state.places.values():
            for iid in p.items:
                label = f"#{iid} {_kind_label(rs, self.state, iid)} — 【{p.name}】地面"
                choices.append((iid, label))
        cast("forms.ChoiceField", self.fields["item"]).choices = choices


class AirdropForm(_ReasonForm):
    selectors = forms.CharField(
        label=_("空投道具"),
        help_text=_("一行一件（或用逗号、顿号分隔）；道具键或 类别:品级"),
        widget=forms.Textarea(attrs={"rows": 3, "cols": 28}),
    )

    def clean_selectors(self) -> list[str]:
        parts = re.split(r"[\n,，、]+", self.cleaned_data["selectors"])
        chosen = [p.strip() for p in parts if p.strip()]
        if not chosen:
            raise forms.ValidationError(_("请至少写一件道具。"))
        return chosen


class ExtendForm(_ReasonForm):
    minutes = forms.IntegerField(
        label=_("延长（分钟）"),
        initial=5,
        min_value=1,
        max_value=services.EXTEND_MAX_MINUTES,
    )


class AdvanceForm(_ReasonForm):
    """Open or close the next phase now (the timetable's next transition, run by hand)."""


class PauseForm(_ReasonForm):
    """Pause a running game, or resume a paused one."""


class AutoPublishForm(StateForm):
    enabled = forms.BooleanField(label=_("开门时自动发布晨报公示"), required=False)


FORMS: dict[str, type[StateForm]] = {
    "adjust": AdjustForm,
    "relocate": RelocateForm,
    "give": GiveForm,
    "take": TakeForm,
    "airdrop": AirdropForm,
    "extend": ExtendForm,
    "advance": AdvanceForm,
    "pause": PauseForm,
    "auto_publish": AutoPublishForm,
}
FORM_TITLES = {
    "adjust": _("调整生命 / 体力 / 流血"),
    "relocate": _("移动角色"),
    "give": _("发放道具"),
    "take": _("收回道具（道具消失）"),
    "airdrop": _("空投（公开道具名，不公开地点）"),
    "extend": _("延长今晚的行动时间"),
    "advance": _("立即推进到下一阶段"),
    "pause": _("暂停 / 继续"),
}


def _tier_label(tier: str | None) -> str:
    return gettext(TIER_LABELS[tier]) if tier else ""


def _kind_label(rs: Ruleset, state: GameState, iid: int) -> str:
    item = state.items[iid]
    kind = rs.kinds[item.kind]
    tier = f"{_tier_label(kind.tier)}·" if kind.tier else ""
    uses = f"（剩 {item.uses} 次）" if item.uses is not None else ""
    return f"{tier}{kind.name}{uses}"


# --- what a service call means for each form --------------------------------------------------

Run = Callable[[Game, User, dict[str, Any]], str]


def _run_adjust(game: Game, who: User, data: dict[str, Any]) -> str:
    services.royale_adjust(
        game=game,
        director=who,
        character=data["character"],
        hp=data["hp"] or 0,
        mp=data["mp"] or 0,
        bleeding=data["bleeding"],
        reason=data["reason"],
    )
    return str(_("已调整。"))


def _run_relocate(game: Game, who: User, data: dict[str, Any]) -> str:
    services.royale_relocate(
        game=game,
        director=who,
        character=data["character"],
        place=data["place"],
        reason=data["reason"],
    )
    return str(_("已移动。"))


def _run_give(game: Game, who: User, data: dict[str, Any]) -> str:
    services.royale_give(
        game=game,
        director=who,
        character=data["character"],
        kind=data["kind"],
        reason=data["reason"],
    )
    return str(_("已发放。"))


def _run_take(game: Game, who: User, data: dict[str, Any]) -> str:
    services.royale_take(game=game, director=who, item=data["item"], reason=data["reason"])
    return str(_("已收回，道具已消失。"))


def _run_airdrop(game: Game, who: User, data: dict[str, Any]) -> str:
    services.royale_airdrop(
        game=game, director=who, selectors=data["selectors"], reason=data["reason"]
    )
    return str(_("空投已投放。"))


def _run_extend(game: Game, who: User, data: dict[str, Any]) -> str:
    end = services.window_extend(
        game=game, director=who, minutes=data["minutes"], reason=data["reason"]
    )
    return str(_("行动截止时间改为 %(at)s。") % {"at": timezone.localtime(end).strftime("%H:%M")})


def _run_advance(game: Game, who: User, data: dict[str, Any]) -> str:
    step = game_services.phase_advance(game=game, director=who, reason=data["reason"])
    return f"第 {step.day} 天 · {TRANSITION_LABELS[step.kind]}"


def _run_pause(game: Game, who: User, data: dict[str, Any]) -> str:
    pause = not game.paused
    game_services.game_pause(game=game, director=who, paused=pause, reason=data["reason"])
    return str(_("游戏已暂停。") if pause else _("游戏已继续。"))


def _run_auto_publish(game: Game, who: User, data: dict[str, Any]) -> str:
    services.royale_auto_publish_set(game=game, director=who, enabled=data["enabled"])
    return str(_("已开启自动发布。") if data["enabled"] else _("已关闭自动发布。"))


RUNS: dict[str, Run] = {
    "adjust": _run_adjust,
    "relocate": _run_relocate,
    "give": _run_give,
    "take": _run_take,
    "airdrop": _run_airdrop,
    "extend": _run_extend,
    "advance": _run_advance,
    "pause": _run_pause,
    "auto_publish": _run_auto_publish,
}


# --- what the page shows ------------------------------------------------------------------------


def state_context(game: Game, royale: RoyaleGame, now: datetime) -> dict[str, Any]:
    """Everything the live panel shows: the window, the map, every character's full state."""
    state = royale_state(game=game)
    rs = get_ruleset(state.ruleset)
    view = director_view(state=state)
    names = {c.id: c.name for c in state.characters.values()}
    moment = now.timestamp()

    def item_row(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "tier_label": _tier_label(data["tier"])}

    characters = []
    for c in view["characters"]:
        found = c.get("found")
        seen = ""
        if found:
            if found["kind"] == "character":
                seen = f"{_('角色')} {names.get(found['target'], '?')}"
                if found.get("attacked"):
                    seen += f"（{_('已攻击')}）"
            elif found["kind"] == "item" and found.get("target") in state.items:
                seen = f"{_('道具')} {_kind_label(rs, state, found['target'])}"
            else:
                seen = str(_("一无所获"))
            seen += f" @{found['place']}"
        left = search_cooldown_left(rs, c["last_search_at"], moment)
        characters.append(
            {
                **c,
                "items": [item_row(i) for i in c["items"]],
                "mode_label": MODE_LABELS.get(c["mode"], c["mode"]),
                "cooldown": left,
                "cooldown_until": (float(c["last_search_at"]) + rs.search_cooldown)
                if left
                else None,
                "seen": seen,
                "cause": next(
                    (d.cause for d in state.deaths if d.character == c["id"]),
                    "",
                ),
            }
        )
    places = []
    for p in view["places"]:
        here = [x for x in characters if x["alive"] and x["place"] == p["name"]]
        places.append({**p, "items": [item_row(i) for i in p["items"]], "here": here})
    upcoming = game_selectors.transitions_upcoming(game=game, count=5) if game.is_live else []
    alive = [c for c in characters if c["alive"] and not c["npc"]]
    return {
        "game": game,
        "royale": royale,
        "state": state,
        "rules": rs,
        "engine_phase": state.phase,
        "phase_label": PHASE_LABELS.get(game.phase, game.phase),
        "upcoming": [
            {
                "day": s.day,
                "kind": s.kind,
                "label": TRANSITION_LABELS[s.kind],
                "phase_after": PHASE_LABELS[s.phase_after],
                "due_at": s.due_at,
            }
            for s in upcoming
        ],
        "characters": characters,
        "places": places,
        "unspawned": [c for c in characters if c["alive"] and c["place"] is None],
        "alive_count": len(alive),
        "shrink_tonight": list(state.shrink_tonight),
        **votes_panel(state),
        **admin_events.events_panel(state),
        "now": now,
    }


def _kind_keys(rs: Ruleset) -> list[tuple[str, str]]:
    """Every kind key of the catalogue, then the ``category:tier`` selectors (for the datalist)."""
    keys = [(k.key, k.name) for k in rs.kinds.values()]
    tiers = sorted({f"{cat}:{tier}" for cat, tier in rs.tier_names if cat in TIERED_CATEGORIES})
    return keys + [(t, str(_("该品级中未出现的一件"))) for t in tiers]


@admin.register(RoyaleGame)
class RoyaleGameAdmin(GameColumn, GameStateAdmin):
    kind = "royale"
    list_display = ("game_title", "day", "phase", "paused", "auto_publish", "control_room")
    list_select_related = ("game",)
    fields = ("game_title", "auto_publish")
    readonly_fields = ("game_title", "auto_publish")

    @admin.display(description=_("第几天"))
    def day(self, obj: RoyaleGame) -> int:
        return obj.game.day

    @admin.display(description=_("阶段"))
    def phase(self, obj: RoyaleGame) -> str:
        return str(PHASE_LABELS.get(obj.game.phase, obj.game.phase))

    @admin.display(boolean=True, description=_("暂停"))
    def paused(self, obj: RoyaleGame) -> bool:
        return obj.game.paused

    @admin.display(description=_("控制室"))
    def control_room(self, obj: RoyaleGame) -> str:
        url = reverse("admin:royale_control", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, _("进入控制室"))

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        mine = [
            path("<int:game_id>/control/", wrap(self.control_view), name="royale_control"),
            path(
                "<int:game_id>/control/state/",
                wrap(self.state_view),
                name="royale_control_state",
            ),
            path(
                "<int:game_id>/control/<str:op>/",
                wrap(require_POST(self.act_view)),
                name="royale_control_act",
            ),
        ]
        return [
            *mine,
            *admin_sandbox.urls(self.admin_site),
            *admin_market.urls(self.admin_site),
            *admin_events.urls(self.admin_site),
            *super().get_urls(),
        ]

    # -- the page ---------------------------------------------------------------------------------

    def control_view(
        self, request: HttpRequest, game_id: int, bound: dict[str, forms.Form] | None = None
    ) -> HttpResponse:
        # another director's game is a 404 before anything else, as for no game at all
        game = directed_game(request, game_id)
        royale = RoyaleGame.objects.filter(pk=game_id).first()
        if royale is None:  # not dealt yet: 发牌 first
            return HttpResponseRedirect(reverse("admin:royale_setup", args=[game_id]))
        context = state_context(game, royale, timezone.now())
        context.update(admin_sandbox.testmatch_context(game, royale, context["state"]))
        context.update(admin_market.market_context(context["state"]))
        context.update(admin_events.events_forms(context["state"]))
        state: GameState = context["state"]
        bound = bound or {}
        built = {
            op: bound.get(op)
            or cls(
                state=state,
                initial={"enabled": royale.auto_publish} if op == "auto_publish" else None,
            )
            for op, cls in FORMS.items()
        }
        drafts = Announcement.objects.filter(game=game, by_site=True).order_by("-day", "-id")
        latest = drafts.first()
        context.update(
            {
                **self.admin_site.each_context(request),
                "title": f"{game.forum_title} · {_('控制室')}",
                "opts": self.model._meta,
                "forms": [(op, FORM_TITLES[op], built[op]) for op in FORM_TITLES],
                "auto_publish_form": built["auto_publish"],
                "kind_keys": _kind_keys(context["rules"]),
                "next_step": context["upcoming"][0] if context["upcoming"] else None,
                "latest_report": latest,
                "links": {
                    "game": reverse("admin:games_game_change", args=[game.pk]),
                    "events": reverse("admin:games_event_changelist")
                    + f"?game__id__exact={game.pk}",
                    "announcements": reverse("admin:games_announcement_changelist")
                    + f"?game__id__exact={game.pk}",
                    "report": reverse("admin:games_announcement_change", args=[latest.pk])
                    if latest
                    else None,
                },
                "config": {
                    "game": game.pk,
                    "head": game.seq,
                    "state_url": reverse("admin:royale_control_state", args=[game.pk]),
                    "names": {str(c["id"]): c["name"] for c in context["characters"]},
                },
            }
        )
        status = 400 if bound else 200
        return TemplateResponse(request, "admin/royale/control.html", context, status=status)

    def state_view(self, request: HttpRequest, game_id: int) -> HttpResponse:
        """The live panel alone, re-fetched by control.js whenever an event arrives."""
        game, royale = _game_for(request, game_id)
        return render(
            request, "admin/royale/_state.html", state_context(game, royale, timezone.now())
        )

    def act_view(self, request: HttpRequest, game_id: int, op: str) -> HttpResponse:
        game, _royale = _game_for(request, game_id)
        if op not in RUNS:
            raise Http404
        form = FORMS[op](request.POST, state=royale_state(game=game))
        if not form.is_valid():
            # shown again with its errors, on the page itself
            messages.error(request, _("表单有误，未作任何改动。"))
            return self.control_view(request, game_id, bound={op: form})
        return run_form(
            request,
            form,
            lambda: RUNS[op](game, request_director(request), form.cleaned_data),
            back=control_url(game, f"f-{op}"),
            title=FORM_TITLES.get(op, _("设置")),
        )
