"""Chinese column and filter labels for admin lists whose model field has no ``verbose_name``
(a ``game`` foreign key shows as "game" otherwise): each admin of a game's records mixes in
``GameColumn`` and lists ``game_title``, and filters by ``GAME_FILTER``."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.utils.translation import pgettext_lazy

from games.models import Game


class GameColumn:
    """The game a row belongs to, as the forum writes it (``[099] 明日方舟``)."""

    @admin.display(description=pgettext_lazy("admin column", "游戏"), ordering="game")
    def game_title(self, obj: Any) -> str:
        game: Game = obj.game
        return game.forum_title


class GameListFilter(admin.RelatedOnlyFieldListFilter):
    """Filter by game (only the games that have rows), titled in Chinese."""

    def __init__(
        self,
        field: Any,
        request: Any,
        params: Any,
        model: Any,
        model_admin: Any,
        field_path: str,
    ) -> None:
        super().__init__(field, request, params, model, model_admin, field_path)
        self.title = str(pgettext_lazy("admin column", "游戏"))


GAME_FILTER = ("game", GameListFilter)
