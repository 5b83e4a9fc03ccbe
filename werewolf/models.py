"""What the shell stores for a role game: the engine state, and the actions it accepted."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import ActionAnswer, Game


class WerewolfGame(models.Model):
    """A snapshot of one game's engine state after its latest step; the log's ``engine_step``
    events rebuild it from the seed alone (``werewolf.store.replay``)."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="werewolf"
    )
    state = models.JSONField(editable=False)
    # When the scheduler must next forfeit what is late (``engine.next_deadline``); indexed so
    # its pass reads only the games that are due.
    deadline = models.DateTimeField(null=True, blank=True, db_index=True, editable=False)
    # Publish the engine's night result at day open without waiting for the director.
    auto_publish = models.BooleanField(_("开门时自动发布夜晚结果"), default=False)

    class Meta:
        verbose_name = _("版杀状态")
        verbose_name_plural = _("版杀状态")

    def __str__(self) -> str:
        return str(self.game)


class WerewolfAction(ActionAnswer):
    """The role games' applied requests by idempotency key."""

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["game", "character", "key"], name="uniq_werewolf_action_key"
            )
        ]
