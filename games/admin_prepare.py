"""A game's life in the admin beside its control room: the create and settings forms, and the
game's page (开局与管理) where a director imports the cast, hands out credentials, starts the
game, records substitutes and assistants, pauses and resumes. Every form here only parses
input and calls one service; a refusal is a Chinese message and changes nothing."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from games import card_services, selectors, services
from games.engine import timetable as tt
from games.engine.errors import RuleError
from games.engine.text import is_blank
from games.forum.errors import ForumError
from games.models import Character, ForumThread, Game, GameStatus, Substitute, ThreadKind
from games.registry import kind_get, kinds_all


def kind_choices() -> list[tuple[str, str]]:
    return [("", "———")] + [(k.key, k.label) for k in kinds_all()]


def ruleset_choices() -> list[Any]:
    """Rulesets grouped under their kind's Chinese name, as the registries list them."""
    return [("", "———")] + [
        (k.label, [(key, label) for key, label in k.rulesets.items()]) for k in kinds_all()
    ]


def ruleset_label(game: Game) -> str:
    try:
        return kind_get(game.kind).rulesets.get(game.ruleset, game.ruleset)
    except LookupError:
        return game.ruleset


def kind_label(game: Game) -> str:
    try:
        return kind_get(game.kind).label
    except LookupError:
        return game.kind


def _staff() -> Any:
    """Who may be a game's director: active staff in the 导演 group (or superusers), not the
    forum staff who review cards."""
    from django.db.models import Q

    return (
        User.objects.filter(is_staff=True, is_active=True)
        .filter(Q(groups__name=services.DIRECTORS_GROUP) | Q(is_superuser=True))
        .distinct()
        .order_by("username")
    )


class GameCreateForm(forms.ModelForm):
    kind = forms.ChoiceField(label=_("类型"), choices=kind_choices)
    ruleset = forms.ChoiceField(
        label=_("规则集"),
        choices=ruleset_choices,
        help_text=_("时间表按规则集的默认值生成，创建后可修改。"),
    )
    signup_thread = forms.CharField(
        label=_("报名帖"),
        required=False,
        max_length=32,
        help_text=_("论坛帖子编号（Discuz 的 tid）；用来导入报名名单。"),
    )
    rules_thread = forms.CharField(label=_("规则帖"), required=False, max_length=32)

    class Meta:
        model = Game
        fields = ("kind", "ruleset", "number", "title", "directors", "start_date", "forum_site")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "directors" in self.fields:
            self.fields["directors"].queryset = _staff()  # type: ignore[attr-defined]  # a ModelMultipleChoiceField
            self.fields["directors"].required = False

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            services.game_create_check(
                kind=data.get("kind", ""),
                ruleset=data.get("ruleset", ""),
                number=data.get("number", ""),
                title=data.get("title", ""),
                forum_site=data.get("forum_site"),
                threads=(data.get("signup_thread", ""), data.get("rules_thread", "")),
            )
        except RuleError as exc:
            field = exc.detail.get("field")
            raise ValidationError({field: exc.text} if field else exc.text) from None
        return data

    def validate_unique(self) -> None:
        # The number's uniqueness is the service's check (above), in its own words.
        pass


class GameChangeForm(forms.ModelForm):
    change_reason = forms.CharField(
        label=_("修改理由"),
        required=False,
        max_length=500,
        help_text=_("游戏进行中修改时间表时必填，记入日志并公告。"),
    )

    class Meta:
        model = Game
        fields = (
            "title",
            "directors",
            "forum_site",
            *services.TIMETABLE_FIELDS,
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "directors" in self.fields:
            self.fields["directors"].queryset = _staff()  # type: ignore[attr-defined]  # a ModelMultipleChoiceField

    def timetable_changed(self) -> bool:
        return any(name in self.changed_data for name in services.TIMETABLE_FIELDS)

    def clean_night_stages(self) -> Any:
        stages = self.cleaned_data.get("night_stages") or []
        if not isinstance(stages, list) or not all(
            isinstance(s, dict) and {"at", "label"} <= set(s) for s in stages
        ):
            raise ValidationError(
                _('夜间时限须为列表，如 [{"at": "21:10", "label": "【援护】"}]。')
            )
        return stages

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        game = self.instance
        if self.timetable_changed() and game.is_live and is_blank(data.get("change_reason", "")):
            raise ValidationError({"change_reason": _("游戏进行中修改时间表须填写理由。")})
        return data


# --- the game's page --------------------------------------------------------------------------


class PasteForm(forms.Form):
    text = forms.CharField(
        label=_("粘贴名单"),
        widget=forms.Textarea(
            attrs={"rows": 5, "placeholder": "马甲　论坛用户名　论坛UID（每行一个）"}
        ),
    )


class CredentialsForm(forms.Form):
    send_pm = forms.BooleanField(
        label=_("同时通过论坛站内信发给每名玩家"),
        required=False,
    )


class CharacterPick(forms.Form):
    character = forms.ModelChoiceField(label=_("角色"), queryset=Character.objects.none())

    def __init__(self, *args: Any, game: Game, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Only this game's characters, in the queryset and so on submit too.
        self.fields["character"].queryset = game.characters.order_by("id")  # type: ignore[attr-defined]  # a ModelChoiceField


class SubstituteForm(CharacterPick):
    forum_username = forms.CharField(label=_("替补的论坛用户名"), max_length=64)
    forum_uid = forms.CharField(label=_("论坛 UID"), max_length=32, required=False)
    since = forms.DateField(label=_("接手日期"), required=False, help_text=_("留空为今天"))
    reason = forms.CharField(label=_("理由"), max_length=500)


class AssistantForm(CharacterPick):
    forum_username = forms.CharField(label=_("场外助理的论坛用户名"), max_length=64)
    forum_uid = forms.CharField(label=_("论坛 UID"), max_length=32, required=False)
    note = forms.CharField(label=_("备注"), max_length=200, required=False)


class ReasonOnly(forms.Form):
    reason = forms.CharField(label=_("理由"), max_length=500)


def prepare_url(game: Game, anchor: str = "") -> str:
    url = reverse("admin:games_game_prepare", args=[game.pk])
    return f"{url}#{anchor}" if anchor else url


def _credentials_rows(
    request: HttpRequest,
    game: Game,
    pairs: list[tuple[services.IssuedCredential, services.IssuedCredential]],
) -> list[dict[str, str]]:
    base = f"{request.scheme}://{request.get_host()}"
    return [
        {
            "name": password.character.name,
            "password": password.secret,
            "link": base + reverse("play-link", args=[game.number, link.secret]),
        }
        for password, link in pairs
    ]


def credentials_context(
    game: Game,
    rows: list[dict[str, str]],
    *,
    back: str,
    sent: list[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """What ``admin/games/credentials.html`` shows: the table and the QQ block
    (``马甲　密码　链接``, one a line; no link column when no row has one)."""
    qq_text = "\n".join(
        "　".join(part for part in (r["name"], r["password"], r.get("link", "")) if part)
        for r in rows
    )
    return {
        "title": _("登录凭据（只显示这一次）"),
        "game": game,
        "rows": rows,
        "links": any(r.get("link") for r in rows),
        "qq_text": qq_text,
        "sent": sent,
        "back": back,
    }


def _credentials_page(
    request: HttpRequest,
    admin_context: dict[str, Any],
    game: Game,
    rows: list[dict[str, str]],
    sent: list[tuple[str, str]] | None = None,
) -> TemplateResponse:
    context = {
        **admin_context,
        **credentials_context(game, rows, back=prepare_url(game, "credentials"), sent=sent),
    }
    return TemplateResponse(request, "admin/games/credentials.html", context)


def prepare_view(
    request: HttpRequest, game: Game, admin_context: dict[str, Any], who: User
) -> HttpResponse:
    """GET: the game's page. POST ``op``: one step, then back here (or the credentials page)."""
    if request.method == "POST":
        return _prepare_post(request, game, admin_context, who)
    return TemplateResponse(
        request,
        "admin/games/prepare.html",
        {**admin_context, **_prepare_context(game), "title": game.forum_title},
    )


def _prepare_context(game: Game) -> dict[str, Any]:
    game_kind = kind_get(game.kind)
    characters = list(game.characters.order_by("id").prefetch_related("substitutes", "assistants"))
    signup = ForumThread.objects.filter(game=game, day=0, kind=ThreadKind.SIGNUP).first()
    dealt = services.game_dealt(game)
    cast_open = game.status == GameStatus.DRAFT and not dealt
    return {
        "game": game,
        "kind_label": kind_label(game),
        "ruleset_label": ruleset_label(game),
        "calendar": selectors.game_calendar(game=game),
        # [061]: the director's 执行加速 (the post names no threshold), while the game runs
        "pace_days": tt.schedule_for(game.ruleset).pace_days and game.start_date is not None,
        "speed_up": _speed_up_now(game),
        "speed_up_form": ReasonOnly(prefix="speed"),
        "characters": characters,
        "signup": signup,
        "cast_open": cast_open,
        "dealt": dealt,
        "deal_url": reverse(game_kind.deal_page, args=[game.pk]) if game_kind.deal_page else "",
        "room_url": reverse(game_kind.control_room, args=[game.pk])
        if game_kind.control_room
        else "",
        "draft": game.status == GameStatus.DRAFT,
        "live": game.is_live,
        "paste_form": PasteForm(),
        "credentials_form": CredentialsForm(),
        "substitute_form": SubstituteForm(game=game),
        "assistant_form": AssistantForm(game=game),
        "reason_form": ReasonOnly(),
        "substituted": {s.character_id for s in Substitute.objects.filter(character__game=game)},
        "change_url": reverse("admin:games_game_change", args=[game.pk]),
        "public_url": reverse("game-public", args=[game.number]),
        "start_missing": services.game_start_missing(game=game, characters=characters),
    }


def _speed_up_now(game: Game) -> selectors.SpeedUp | None:
    """Today's 加速, if the game is under one now (not ended by a 延时)."""
    if not game.is_live or game.start_date is None:
        return None
    speed_up = selectors.day_speed_up(game=game, day=max(game.day, 1))
    return speed_up if speed_up is not None and speed_up.until is None else None


def _prepare_post(
    request: HttpRequest, game: Game, admin_context: dict[str, Any], who: User
) -> HttpResponse:
    op = request.POST.get("op", "")
    back = prepare_url(game)
    try:
        if op == "import":
            result = services.cast_import_signup(game=game, director=who)
            _cast_message(request, result, _("从报名帖导入"))
            return HttpResponseRedirect(prepare_url(game, "cast"))
        if op == "paste":
            paste = PasteForm(request.POST)
            if not paste.is_valid():
                messages.error(request, _("请粘贴名单：每行一个角色。"))
                return HttpResponseRedirect(prepare_url(game, "cast"))
            result = services.cast_paste(game=game, director=who, text=paste.cleaned_data["text"])
            _cast_message(request, result, _("粘贴名单"))
            return HttpResponseRedirect(prepare_url(game, "cast"))
        if op in ("remove", "reset"):
            character = _picked(request, game)
            if character is None:
                messages.error(request, _("没有这个角色。"))
                return HttpResponseRedirect(prepare_url(game, "cast"))
            if op == "remove":
                services.character_remove(game=game, director=who, character=character)
                messages.success(request, _("已删除角色 %(name)s。") % {"name": character.name})
                return HttpResponseRedirect(prepare_url(game, "cast"))
            pair = services.character_credentials_reset(
                game=game, director=who, character=character
            )
            return _credentials_page(
                request, admin_context, game, _credentials_rows(request, game, [pair])
            )
        if op == "credentials":
            choice = CredentialsForm(request.POST)
            send = choice.is_valid() and choice.cleaned_data["send_pm"]
            return credentials_issue_page(request, game, admin_context, who, send_pm=send)
        if op == "start":
            services.game_start(game=game, director=who)
            messages.success(request, _("游戏已开始。"))
            return HttpResponseRedirect(back)
        if op == "substitute":
            sub = SubstituteForm(request.POST, game=game)
            if not sub.is_valid():
                messages.error(
                    request, _("替补：表单有误（角色、论坛用户名与理由必填），未作任何改动。")
                )
                return HttpResponseRedirect(prepare_url(game, "substitutes"))
            data = sub.cleaned_data
            _substitute, password, link = services.substitute_record(
                game=game,
                director=who,
                character=data["character"],
                forum_username=data["forum_username"],
                forum_uid=data["forum_uid"],
                since=data["since"],
                reason=data["reason"],
            )
            return _credentials_page(
                request, admin_context, game, _credentials_rows(request, game, [(password, link)])
            )
        if op == "assistant":
            helper = AssistantForm(request.POST, game=game)
            if not helper.is_valid():
                messages.error(request, _("场外助理：表单有误，未作任何改动。"))
                return HttpResponseRedirect(prepare_url(game, "substitutes"))
            data = helper.cleaned_data
            services.assistant_record(
                game=game,
                director=who,
                character=data["character"],
                forum_username=data["forum_username"],
                forum_uid=data["forum_uid"],
                note=data["note"],
            )
            messages.success(request, _("已登记场外助理。"))
            return HttpResponseRedirect(prepare_url(game, "substitutes"))
        if op == "speed_up":
            form = ReasonOnly(request.POST, prefix="speed")
            if not form.is_valid():
                messages.error(request, _("执行加速：请填写理由。"))
                return HttpResponseRedirect(prepare_url(game, "calendar"))
            day = card_services.pace_speed_up(
                game=game, director=who, reason=form.cleaned_data["reason"]
            )
            messages.success(
                request,
                _("已执行加速：第 %(day)s 天起不可改票，之后每个讨论日只有一个自然日。")
                % {"day": day},
            )
            return HttpResponseRedirect(prepare_url(game, "calendar"))
        if op in ("pause", "resume"):
            reason = ReasonOnly(request.POST)
            if not reason.is_valid():
                messages.error(request, _("请填写理由。"))
                return HttpResponseRedirect(back)
            services.game_pause(
                game=game, director=who, paused=op == "pause", reason=reason.cleaned_data["reason"]
            )
            messages.success(request, _("已暂停。") if op == "pause" else _("已继续。"))
            return HttpResponseRedirect(back)
    except (RuleError, ForumError) as exc:
        messages.error(request, exc.text)
        return HttpResponseRedirect(back)
    messages.error(request, _("未知的操作。"))
    return HttpResponseRedirect(back)


def _picked(request: HttpRequest, game: Game) -> Character | None:
    """The posted character when it is one of this game's (the form's queryset says so)."""
    pick = CharacterPick(request.POST, game=game)
    return pick.cleaned_data["character"] if pick.is_valid() else None


def _cast_message(request: HttpRequest, result: services.CastResult, what: Any) -> None:
    names = "、".join(c.name for c in result.added) or str(_("无"))
    messages.success(
        request,
        _("%(what)s：新增 %(n)s 名角色（%(names)s）。")
        % {"what": what, "n": len(result.added), "names": names},
    )
    for line in result.skipped:
        messages.warning(request, line)


def credentials_issue_page(
    request: HttpRequest,
    game: Game,
    admin_context: dict[str, Any],
    who: User,
    *,
    send_pm: bool = False,
) -> HttpResponse:
    """New credentials for the whole cast, shown once (and sent by private message if asked)."""
    pairs = services.game_credentials_issue(game=game, director=who)
    rows = _credentials_rows(request, game, pairs)
    sent = None
    if send_pm:
        sent = services.credentials_send_pm(
            game=game,
            director=who,
            rows=[
                (password.character, row["password"], row["link"])
                for (password, _link), row in zip(pairs, rows, strict=True)
            ],
        )
    return _credentials_page(request, admin_context, game, rows, sent)
