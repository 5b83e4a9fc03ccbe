from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _groups(sender: AppConfig, **kwargs: Any) -> None:
    from games.services import groups_ensure

    groups_ensure()


def _director_signed_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """A director's logout closes the control-room sockets that browser session has open on
    any of their games (a player's logout does the same for its game, in views.logout)."""
    from games import live, selectors

    key = getattr(getattr(request, "session", None), "session_key", None)
    if user is None or not key:
        return
    for game_id in selectors.games_for_director(user=user).values_list("pk", flat=True):
        live.session_sockets_close(game_id, key)


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("游戏")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib import admin
        from django.contrib.auth.signals import user_logged_out

        post_migrate.connect(_groups, sender=self)
        user_logged_out.connect(_director_signed_out, dispatch_uid="games-director-signed-out")
        # The admin is the directors' and forum staff's control room: it carries the site's
        # name, not "Django 管理".
        admin.site.site_header = _("雾雨小镇 版杀 · 控制室")
        admin.site.site_title = _("雾雨小镇 版杀 · 控制室")
        admin.site.index_title = _("导演与论坛管理")
        from games import card_services  # noqa: F401  (the day close's cards, for every kind)
