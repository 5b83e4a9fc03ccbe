"""Ballots in the admin: the directors' aliases for names, and each day's tally page — every post
of the vote thread with whether it counted and why not, the totals, the outcome — from which the
director posts the tally back to the thread or publishes it.

A director sees only the games they run. The forum's refusals (posting off, flood control, an
unreachable forum) are shown as the page's error; nothing changes then.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from games import ballots
from games.admin_base import DirectorScoped, directed_game, request_director
from games.admin_labels import GAME_FILTER, GameColumn
from games.engine.ballots import ABSTAIN, Tally
from games.engine.errors import RuleError
from games.models import Character, Game, VoteAlias

KIND_LABELS = {"vote": _("投票"), "change": _("改票"), "none": "—"}


class VoteAliasForm(forms.ModelForm):
    class Meta:
        model = VoteAlias
        fields = ("game", "alias", "character")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        game, alias, character = data.get("game"), data.get("alias"), data.get("character")
        if game is None or character is None or not alias:
            return data
        if character.game_id != game.pk:
            self.add_error("character", _("该角色不属于这局游戏。"))
        elif Character.objects.filter(game=game, name=alias).exclude(pk=character.pk).exists():
            self.add_error("alias", _("别名不能是另一名角色的名字。"))
        return data


@admin.register(VoteAlias)
class VoteAliasAdmin(GameColumn, DirectorScoped):
    form = VoteAliasForm
    list_display = ("alias", "character", "game_title")
    list_filter = (GAME_FILTER,)
    list_select_related = ("game", "character")
    search_fields = ("alias", "character__name")

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        return [
            path("tally/<int:game_id>/", wrap(self.tally_view), name="games_ballots"),
            path("tally/<int:game_id>/<int:day>/", wrap(self.tally_view), name="games_ballots_day"),
            path(
                "tally/<int:game_id>/<int:day>/<str:op>/",
                wrap(require_POST(self.act_view)),
                name="games_ballots_act",
            ),
            *super().get_urls(),
        ]

    def tally_view(
        self, request: HttpRequest, game_id: int, day: int | None = None
    ) -> HttpResponse:
        game = directed_game(request, game_id)
        days = ballots.vote_days(game=game)
        if day is None:
            day = next((d for d in days if d <= game.day), days[-1] if days else game.day)
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "title": gettext("第 %(day)s 天投票统计") % {"day": day},
            "opts": self.model._meta,
            "game": game,
            "day": day,
            "days": sorted(days),
        }
        try:
            context.update(tally_context(game, day))
        except RuleError as exc:
            context["error"] = exc.text
        return TemplateResponse(request, "admin/games/ballots.html", context)

    def act_view(self, request: HttpRequest, game_id: int, day: int, op: str) -> HttpResponse:
        game = directed_game(request, game_id)
        director = request_director(request)
        try:
            if op == "post":
                post = ballots.ballot_tally_post(game=game, day=day, director=director)
                self.message_user(
                    request, gettext("已回帖到投票帖（帖子 %(post)s）。") % {"post": post}
                )
            elif op == "publish":
                ballots.ballot_tally_publish(game=game, day=day, director=director)
                self.message_user(request, gettext("投票结果已公示。"))
            else:
                raise Http404
        except RuleError as exc:
            self.message_user(request, exc.text, messages.ERROR)
        return HttpResponseRedirect(reverse("admin:games_ballots_day", args=[game.pk, day]))


def tally_context(game: Game, day: int) -> dict[str, Any]:
    """What the tally page and the panel show (the director's view: every fact)."""
    thread = ballots.vote_thread(game=game, day=day)
    tally = ballots.ballot_tally(game=game, day=day)
    now = timezone.now()
    published = ballots.tally_published(game=game, day=day)
    posted = game.events.filter(kind="ballot_tally_posted", payload__day=day).order_by("seq")
    when = ballots.ballot_day(game=game, day=day)
    return {
        "thread": thread,
        "tally": tally,
        "closes_at": when.closes_at,
        "closed": now >= when.closes_at,
        "sped_up_at": when.sped_up_at,
        "sped_up_until": when.sped_up_until,
        "rows": _rows(tally, thread.posts.values("external_id", "author", "text")),
        "totals": _totals(tally),
        "abstained": [tally.names[c] for c in tally.abstained],
        "not_voted": [tally.names[c] for c in tally.not_voted],
        "weights": [
            {"name": tally.names.get(c, c), "value": _num(a.value), "why": a.why}
            for c, a in sorted(tally.modifiers.weights.items())
            if a.value != 1
        ],
        "public_text": ballots.tally_text(game=game, tally=tally, now=now),
        "published": published,
        # What was published stands: the live count below uses the statuses of now (after the
        # close the player voted out is out, and ballots for him read as void).
        "published_outcome": published.payload["outcome"]["text"] if published else None,
        "posted": [(e.created_at, e.payload["post"], e.director) for e in posted],
    }


def _num(value: Any) -> str:
    return f"{float(value):g}"


def _name(names: Mapping[int, str], character: int | None) -> str:
    return "" if character is None else names.get(character, "")


def _rows(tally: Tally, posts: Any) -> list[dict[str, Any]]:
    by_id: dict[str, dict[str, Any]] = {p["external_id"]: p for p in posts}
    names = tally.names
    rows = []
    for v in tally.verdicts:
        post = by_id.get(v.external_id, {})
        rows.append(
            {
                "v": v,
                "author": post.get("author", ""),
                "text": post.get("text", ""),
                "kind": KIND_LABELS[v.kind],
                "voter": _name(names, v.voter),
                "target": ABSTAIN if v.abstain else _name(names, v.target),
                "weight": _num(v.weight),
            }
        )
    return rows


def _totals(tally: Tally) -> list[dict[str, Any]]:
    mods = tally.modifiers
    return [
        {
            "name": tally.names[t.character],
            "votes": _num(t.votes),
            "ballots": t.ballots,
            "since": t.since,
            "multiplier": mods.multipliers.get(t.character),
            "immune": t.immune,
            "top": t.character == tally.outcome.character,
        }
        for t in tally.totals
    ]
