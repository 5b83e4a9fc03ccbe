"""What the shell stores for a battle royale: the engine state, and the actions it accepted."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import ActionAnswer, Game


class RoyaleGame(models.Model):
    """A snapshot of one game's engine state, after the step numbered ``state_rng_seq``.

    The log's ``engine_step`` events after it bring it up to date, and all of them rebuild it
    from the seed alone (``royale.store``; ``manage.py replay_game`` checks both).
    """

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="royale"
    )
    state = models.JSONField(editable=False)
    state_rng_seq = models.BigIntegerField(default=0, editable=False)
    # Publish the site's morning report at day open without waiting for the director.
    auto_publish = models.BooleanField(_("开门时自动发布公示"), default=False)
    # Set on a test match's copy (测试赛): the real game whose characters it copies and to which
    # its prizes carry over.
    test_of = models.ForeignKey(
        Game,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="test_copies",
        editable=False,
        verbose_name=_("测试赛所属正式赛"),
    )

    class Meta:
        verbose_name = _("大逃杀状态")
        verbose_name_plural = _("大逃杀状态")

    def __str__(self) -> str:
        return str(self.game)


class ActionRecord(ActionAnswer):
    """The battle royale's applied requests by idempotency key."""

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "character", "key"], name="uniq_action_key")
        ]
