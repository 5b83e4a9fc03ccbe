"""What the admin's modules share: who the director is, the games they reach, and the pieces
every director's page is built from. ``games/admin.py`` registers the models; it and the
``admin_*`` modules (and the kinds' admins) import these helpers from here, never each other."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.db import models
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games import selectors
from games.engine.errors import RuleError
from games.models import Announcement, Card, Character, ForumPost, ForumThread, Game
from games.registry import kind_get


def request_director(request: HttpRequest) -> User:
    # The admin only lets active staff in, so the user is a real account here.
    return cast("User", request.user)


def directed_game(request: HttpRequest, game_id: int, kind: str | None = None) -> Game:
    """The game (of ``kind`` when given) if the signed-in user directs it; otherwise 404, so
    another director's game looks exactly like a game that does not exist."""
    games = selectors.games_for_director(user=request_director(request))
    if kind is not None:
        games = games.filter(kind=kind)
    game = games.select_related("forum_site").filter(pk=game_id).first()
    if game is None:
        raise Http404
    return game


class ReadOnly:
    """A record the site keeps (the log, the stored posts, the cards): shown, never edited here."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class GameStateAdmin(ReadOnly, admin.ModelAdmin):
    """A game kind's state (one row per game, keyed by ``game``): listed for the directors of the
    game, never added, edited or deleted here (only its control room's services change it); its
    change page leads to the kind's control room (``GameKind.control_room``)."""

    kind: str  # the game kind's key (``games.registry``)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        return qs.filter(game__directors=request_director(request))

    def _directs_any(self, request: HttpRequest) -> bool:
        user = request.user
        if not (user.is_active and user.is_staff):
            return False
        return selectors.games_for_director(user=request_director(request)).exists()

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._directs_any(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is None:
            return self._directs_any(request)
        return selectors.game_is_directed_by(game=obj.game, user=request_director(request))

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        # The change page of a state has nothing to change: the control room is the page. A game
        # the user does not direct, or one without this state, is a 404 like a missing game.
        if object_id.isdigit():
            game = directed_game(request, int(object_id), kind=self.kind)
            if not self.model._default_manager.filter(pk=game.pk).exists():
                raise Http404
            room = kind_get(self.kind).control_room
            assert room is not None  # noqa: S101  (a kind with a state admin has a room)
            return HttpResponseRedirect(reverse(room, args=[game.pk]))
        return super().change_view(request, object_id, form_url, extra_context)


# --- a director's room: its interventions ------------------------------------------------------

INVALID = _("表单有误（理由必填），未作任何改动。")


class InterventionForm(forms.Form):
    """Every intervention is logged with the director's reason: required, the form's last field."""

    reason = forms.CharField(
        label=_("理由"),
        max_length=500,
        widget=forms.TextInput(attrs={"placeholder": _("必填，记入日志"), "size": 30}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.order_fields([*[f for f in self.fields if f != "reason"], "reason"])


def run_form(
    request: HttpRequest,
    form: forms.Form,
    run: Callable[[], str | HttpResponse],
    *,
    back: str,
    title: str | Promise = "",
    invalid: str | Promise = INVALID,
) -> HttpResponse:
    """Validate a submitted form and run it: an invalid form or a rule's refusal changes nothing
    and says why, success says what ``run`` did; then back to ``back`` (unless ``run`` answers
    with a page of its own). Messages start with the form's ``title`` when it has one."""

    def said(text: str | Promise) -> str:
        return f"{title}：{text}" if title else str(text)

    if not form.is_valid():
        messages.error(request, said(invalid))
        return HttpResponseRedirect(back)
    try:
        done = run()
    except RuleError as exc:
        messages.error(request, said(exc.text))
        return HttpResponseRedirect(back)
    if isinstance(done, HttpResponse):
        return done
    messages.success(request, said(done))
    return HttpResponseRedirect(back)


def action_form(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet[Any],
    form_class: type[forms.Form],
    action: str,
    title: str,
    template: str = "admin/games/action_form.html",
) -> forms.Form | TemplateResponse:
    """A bulk action's intermediate page: the bound, valid form once confirmed, else the page."""
    form = form_class(request.POST if "confirm" in request.POST else None)
    if "confirm" in request.POST and form.is_valid():
        return form
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "form": form,
        "queryset": queryset,
        "action": action,
        "opts": model_admin.model._meta,
    }
    return TemplateResponse(request, template, context)


# How each model a director's form can point at reaches its game: every foreign key and
# many-to-many to one of these is limited to the director's games (choices and submit alike).
GAME_PATHS: dict[type[models.Model], str] = {
    Game: "",
    Character: "game",
    ForumThread: "game",
    ForumPost: "thread__game",
    Card: "game",
    Announcement: "game",
}


def directed_choices(model: type[models.Model], user: Any) -> QuerySet[Any] | None:
    """The rows of ``model`` within the games ``user`` directs (all for a superuser); None for
    a model that belongs to no game."""
    if model not in GAME_PATHS:
        return None
    rows = model._default_manager.all()
    if user.is_superuser:
        return rows
    path = GAME_PATHS[model]
    return rows.filter(**{f"{path}__directors" if path else "directors": user}).distinct()


def game_of(obj: Any) -> int | None:
    """The game id a game-bound row belongs to, following its path."""
    path = GAME_PATHS.get(type(obj))
    if path is None:
        return None
    if not path:
        return int(obj.pk)
    *hops, last = path.split("__")
    for hop in hops:
        obj = getattr(obj, hop)
    return int(getattr(obj, f"{last}_id"))


class DirectorScoped(admin.ModelAdmin):
    """Limits every list and object to the games the signed-in director runs, and every choice
    of a form to them: a foreign key to a game-bound model offers only the director's rows (so a
    forged id fails the form's own validation), and all of one form's game-bound choices must
    belong to one game."""

    game_path = "game"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        return qs.filter(**{f"{self.game_path}__directors": request_director(request)}).distinct()

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        scoped = directed_choices(db_field.related_model, request.user)
        if scoped is not None:
            kwargs["queryset"] = scoped
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        scoped = directed_choices(db_field.related_model, request.user)
        if scoped is not None:
            kwargs["queryset"] = scoped
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        return type(form.__name__, (OneGameForm, form), {})


class OneGameForm(forms.ModelForm):
    """A form whose game-bound choices point into one game (an alias's character of the
    alias's game, not of another game the same director runs)."""

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        games = {game_of(v) for v in data.values() if type(v) in GAME_PATHS}
        games.discard(None)
        if len(games) > 1:
            raise forms.ValidationError(_("所选内容不属于同一局游戏。"))
        return data


class ReasonForm(forms.Form):
    reason = forms.CharField(label=_("理由"), widget=forms.Textarea(attrs={"rows": 3}))
