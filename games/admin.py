"""The games' admin: the models registered for the directors, each reaching only their own games."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from games import selectors, services
from games.admin_base import (
    DirectorScoped,
    ReadOnly,
    ReasonForm,
    action_form,
    directed_game,
    request_director,
)
from games.admin_prepare import (
    GameChangeForm,
    GameCreateForm,
    credentials_issue_page,
    kind_label,
    prepare_url,
    prepare_view,
    ruleset_label,
)
from games.engine.errors import RuleError
from games.models import (
    PHASE_LABELS,
    TRANSITION_LABELS,
    Announcement,
    Assistant,
    Character,
    Event,
    Game,
    GameStatus,
    Substitute,
    TimetableOverride,
)
from games.registry import kind_get, kinds_all


class CharacterInline(admin.TabularInline):
    """The cast on the game's settings page: names and forum accounts are edited here before the
    deal; what the rules decide (status, cause, order, 挂机) only ever changes through the
    engine, so it is shown, never edited; nobody is added or removed once the cast is fixed."""

    model = Character
    extra = 0
    # The director's part (until the cast is fixed), then what only the engine changes.
    EDITABLE = ("name", "forum_uid", "forum_username", "signup_floor")
    readonly_fields = (
        "status",
        "cause",
        "elimination_order",
        "eliminated_day",
        "idle",
        "has_password",
        "has_link",
    )
    fields = (*EDITABLE, *readonly_fields)

    def _cast_open(self, obj: Game | None) -> bool:
        return obj is None or (obj.status == GameStatus.DRAFT and not services.game_dealt(obj))

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._cast_open(obj) and super().has_add_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._cast_open(obj) and super().has_delete_permission(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if self._cast_open(obj):
            return self.readonly_fields
        return (*self.EDITABLE, *self.readonly_fields)

    @admin.display(boolean=True, description=_("已设密码"))
    def has_password(self, obj: Character) -> bool:
        return bool(obj.password_digest)

    @admin.display(boolean=True, description=_("登录链接"))
    def has_link(self, obj: Character) -> bool:
        return bool(obj.link_digest)


class TimetableOverrideInline(admin.TabularInline):
    model = TimetableOverride
    extra = 0


class DiceForm(forms.Form):
    purpose = forms.CharField(label=_("用途"), max_length=100)
    sides = forms.IntegerField(label=_("面数"), min_value=2, max_value=1_000_000, initial=6)


class KindFilter(admin.SimpleListFilter):
    """By game kind, named as the registry names it (大逃杀, 版杀), not by its key."""

    title = _("类型")
    parameter_name = "kind"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(k.key, k.label) for k in kinds_all()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(kind=self.value()) if self.value() else queryset


TIMETABLE_FIELDSET: Any = (
    _("时间表（北京时间）"),
    {"fields": (*services.TIMETABLE_FIELDS, "change_reason", "calendar")},
)


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = (
        "title_display",
        "kind_display",
        "ruleset_display",
        "status",
        "day",
        "phase",
        "next_due",
        "manage",
        "control_room",
    )
    list_filter = ("status", KindFilter)
    search_fields = ("number", "title")
    filter_horizontal = ("directors",)
    inlines = (CharacterInline, TimetableOverrideInline)
    readonly_fields = (
        "kind_display",
        "ruleset_display",
        "status",
        "day",
        "phase",
        "seq",
        "seed_hash",
        "seed_revealed",
        "upcoming",
        "calendar",
        "forum_sync",
        "ballots",
        "manage",
    )
    add_fieldsets = (
        (None, {"fields": ("kind", "ruleset", "number", "title", "directors")}),
        (_("时间表"), {"fields": ("start_date",)}),
        (_("论坛"), {"fields": ("forum_site", "signup_thread", "rules_thread")}),
    )
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "manage",
                    "kind_display",
                    "ruleset_display",
                    "title",
                    "status",
                    "directors",
                )
            },
        ),
        TIMETABLE_FIELDSET,
        (_("进程"), {"fields": ("day", "phase", "seq", "seed_hash", "seed_revealed", "upcoming")}),
        (_("论坛"), {"fields": ("forum_site", "forum_sync", "ballots")}),
    )
    actions = (
        "generate_passwords",
        "revoke_links",
        "advance_phase",
        "roll_dice",
        "finish",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return selectors.games_for_director(user=request_director(request))

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.add_fieldsets if obj is None else self.fieldsets

    def get_inlines(self, request: HttpRequest, obj: Any) -> Any:
        return () if obj is None else self.inlines

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        kwargs["form"] = GameCreateForm if obj is None else GameChangeForm
        kwargs["fields"] = None  # the forms say which fields they have
        return super().get_form(request, obj, change, **kwargs)

    def get_urls(self) -> list[Any]:
        from django.urls import path

        return [
            path(
                "<int:game_id>/prepare/",
                self.admin_site.admin_view(self.prepare),
                name="games_game_prepare",
            ),
            *super().get_urls(),
        ]

    def prepare(self, request: HttpRequest, game_id: int) -> HttpResponse:
        game = directed_game(request, game_id)
        context = {**self.admin_site.each_context(request), "opts": self.model._meta}
        return prepare_view(request, game, context, request_director(request))

    def save_model(self, request: HttpRequest, obj: Game, form: Any, change: bool) -> None:
        if not change:
            data = form.cleaned_data
            directors = list(data.get("directors") or [])
            if not request.user.is_superuser:
                directors.append(request_director(request))
            created = services.game_create(
                kind=data["kind"],
                ruleset=data["ruleset"],
                number=data["number"],
                title=data["title"],
                start_date=data.get("start_date"),
                directors=directors,
                forum_site=data.get("forum_site"),
                signup_thread=data.get("signup_thread", ""),
                rules_thread=data.get("rules_thread", ""),
            )
            obj.__dict__.update(created.__dict__)
            obj._state.adding = False
            return
        # The timetable goes through its service (logged, with the reason once live); the
        # rest of the form is plain settings.
        values = {
            f: form.cleaned_data[f] for f in services.TIMETABLE_FIELDS if f in form.cleaned_data
        }
        current = Game.objects.get(pk=obj.pk)
        for name in values:
            setattr(obj, name, getattr(current, name))
        super().save_model(request, obj, form, change)
        services.game_timetable_set(
            game=obj,
            director=request_director(request),
            values=values,
            reason=form.cleaned_data.get("change_reason", ""),
        )
        obj.refresh_from_db()

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        if not change:
            return  # game_create set the directors (the creator among them) and threads
        super().save_related(request, form, formsets, change)

    def response_add(
        self, request: HttpRequest, obj: Game, post_url_continue: str | None = None
    ) -> HttpResponse:
        # After creating, the director goes on to the game's page: cast, credentials, start.
        if "_addanother" in request.POST or "_continue" in request.POST:
            return super().response_add(request, obj, post_url_continue)
        messages.success(request, _("已创建 %(game)s，接下来导入报名名单。") % {"game": obj})
        return HttpResponseRedirect(prepare_url(obj))

    @admin.display(description=_("游戏"), ordering="number")
    def title_display(self, obj: Game) -> str:
        return obj.forum_title

    @admin.display(description=_("类型"), ordering="kind")
    def kind_display(self, obj: Game) -> str:
        return kind_label(obj)

    @admin.display(description=_("规则集"), ordering="ruleset")
    def ruleset_display(self, obj: Game) -> str:
        return ruleset_label(obj)

    @admin.display(description=_("开局与管理"))
    def manage(self, obj: Game) -> str:
        if not obj.pk:
            return "—"
        return format_html('<a href="{}">{}</a>', prepare_url(obj), _("开局与管理"))

    @admin.display(description=_("日程（北京时间）"))
    def calendar(self, obj: Game) -> str:
        if not obj.pk:
            return "—"
        return render_to_string(
            "admin/games/_calendar.html", {"calendar": selectors.game_calendar(game=obj)}
        )

    @admin.display(description=_("控制室"))
    def control_room(self, obj: Game) -> str:
        name = kind_get(obj.kind).control_room
        if name is None:
            return "—"
        return format_html('<a href="{}">{}</a>', reverse(name, args=[obj.pk]), _("进入控制室"))

    @admin.display(description=_("下一个时间点"))
    def next_due(self, obj: Game) -> Any:
        return selectors.transition_next_due(game=obj) if obj.is_live else "—"

    @admin.display(description=_("论坛同步"))
    def forum_sync(self, obj: Game) -> str:
        return render_to_string("admin/games/_forum_panel.html", {"game": obj})

    @admin.display(description=_("投票帖统计"))
    def ballots(self, obj: Game) -> str:
        return render_to_string("admin/games/_ballots.html", {"game": obj})

    @admin.display(description=_("接下来的阶段切换"))
    def upcoming(self, obj: Game) -> str:
        steps = selectors.transitions_upcoming(game=obj) if obj.pk else []
        if not steps:
            return "—"
        return format_html(
            "<ol>{}</ol>",
            format_html_join(
                "",
                "<li>第 {} 天 · {} → {} · {}</li>",
                (
                    (
                        s.day,
                        TRANSITION_LABELS[s.kind],
                        PHASE_LABELS[s.phase_after],
                        s.due_at.strftime("%Y-%m-%d %H:%M"),
                    )
                    for s in steps
                ),
            ),
        )

    @admin.action(description=_("生成（重置）所有角色的密码和登录链接"))
    def generate_passwords(self, request: HttpRequest, queryset: QuerySet[Game]) -> Any:
        games = list(queryset[:2])
        if len(games) != 1:
            self.message_user(request, _("请只选择一局游戏。"), messages.ERROR)
            return None
        # The game's page does it, with the copyable block and the forum's private messages.
        context = {**self.admin_site.each_context(request), "opts": self.model._meta}
        return credentials_issue_page(request, games[0], context, request_director(request))

    @admin.action(description=_("作废所有角色的登录链接"))
    def revoke_links(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        for game in queryset:
            services.character_links_revoke(game=game, director=request_director(request))
        self.message_user(request, _("登录链接已作废。"))

    def _form_action(
        self,
        request: HttpRequest,
        queryset: QuerySet[Game],
        form_class: type[forms.Form],
        action: str,
        title: str,
        run: Any,
    ) -> Any:
        form = action_form(self, request, queryset, form_class, action, title)
        if not isinstance(form, forms.Form):
            return form
        for game in queryset:
            try:
                message = run(game, form.cleaned_data)
            except RuleError as exc:
                self.message_user(request, f"{game}: {exc.text}", messages.ERROR)
            else:
                self.message_user(request, f"{game}: {message}")
        return None

    @admin.action(description=_("手动推进到下一阶段（记录为导演干预）"))
    def advance_phase(self, request: HttpRequest, queryset: QuerySet[Game]) -> Any:
        def run(game: Game, data: dict[str, Any]) -> str:
            step = services.phase_advance(
                game=game, director=request_director(request), reason=data["reason"]
            )
            return f"第 {step.day} 天 · {TRANSITION_LABELS[step.kind]}"

        return self._form_action(
            request, queryset, ReasonForm, "advance_phase", str(_("手动推进阶段")), run
        )

    @admin.action(description=_("导演掷骰（公开，可验证）"))
    def roll_dice(self, request: HttpRequest, queryset: QuerySet[Game]) -> Any:
        def run(game: Game, data: dict[str, Any]) -> str:
            value = services.dice_roll(
                game=game,
                director=request_director(request),
                purpose=data["purpose"],
                sides=data["sides"],
            )
            return f"{data['purpose']}：{value} / {data['sides']}"

        return self._form_action(request, queryset, DiceForm, "roll_dice", str(_("掷骰")), run)

    @admin.action(description=_("结束游戏并公开种子"))
    def finish(self, request: HttpRequest, queryset: QuerySet[Game]) -> Any:
        def run(game: Game, data: dict[str, Any]) -> str:
            services.game_finish(
                game=game, director=request_director(request), reason=data["reason"]
            )
            return str(_("已结束，种子已公开。"))

        return self._form_action(request, queryset, ReasonForm, "finish", str(_("结束游戏")), run)


@admin.register(Event)
class EventAdmin(ReadOnly, DirectorScoped):
    """The log as the directors read it: each event a Chinese sentence (the control rooms'
    renderer), never its code or its payload."""

    list_display = ("seq", "game", "sentence", "audience", "director", "reason", "created_at")
    list_filter = (("game", admin.RelatedOnlyFieldListFilter), "audience")
    search_fields = ("reason",)
    list_select_related = ("game", "audience_character", "actor", "director")
    ordering = ("-game", "-seq")
    exclude = ("payload", "stream", "stream_seq", "kind")
    readonly_fields = ("sentence",)

    @admin.display(description=_("内容"))
    def sentence(self, obj: Event) -> str:
        from games.eventlog import event_sentence

        return event_sentence(obj)


@admin.register(Announcement)
class AnnouncementAdmin(DirectorScoped):
    list_display = ("game", "day", "title", "status", "by_site", "published_at")
    list_filter = (("game", admin.RelatedOnlyFieldListFilter), "status")
    readonly_fields = ("status", "published_at", "by_site", "author")
    actions = ("publish",)

    def save_model(self, request: HttpRequest, obj: Announcement, form: Any, change: bool) -> None:
        if not change:
            obj.author = request_director(request)
        super().save_model(request, obj, form, change)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A published announcement is part of the record; publish a correction instead.
        if obj is not None and obj.status == "published":
            return False
        return super().has_change_permission(request, obj)

    @admin.action(description=_("发布所选公示"))
    def publish(self, request: HttpRequest, queryset: QuerySet[Announcement]) -> None:
        for announcement in queryset:
            services.announcement_publish(
                announcement=announcement, director=request_director(request)
            )
        self.message_user(request, _("已发布。"))


@admin.register(Substitute)
class SubstituteAdmin(ReadOnly, DirectorScoped):
    """The record of substitutes; a substitute is recorded on the game's page (开局与管理),
    through the service that checks the character is the game's and gives new credentials."""

    game_path = "character__game"
    list_display = ("character", "forum_username", "since", "director", "reason")


@admin.register(Assistant)
class AssistantAdmin(ReadOnly, DirectorScoped):
    game_path = "character__game"
    list_display = ("character", "forum_username", "note", "director", "created_at")


# The forum's pages (sync, ballots, cards) build on DirectorScoped above.
from games import admin_ballots, admin_cards, admin_forum  # noqa: E402, F401
