from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RoyaleConfig(AppConfig):
    name = "royale"
    verbose_name = _("大逃杀")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from royale import ballots, kind  # noqa: F401  (register the kind and its vote weights)
        from royale.engine import ruleset_keys

        ruleset_keys()  # load the rulesets now, not on a request
