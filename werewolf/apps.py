from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WerewolfConfig(AppConfig):
    name = "werewolf"
    verbose_name = _("版杀")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from werewolf import ballots, kind  # noqa: F401  (register the kind and its vote weights)
