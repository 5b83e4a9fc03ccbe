from __future__ import annotations

from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The project package as an app, for its system checks (``config/checks.py``); it has
    no models."""

    name = "config"
    label = "site"
    verbose_name = "site"

    def ready(self) -> None:
        from config import checks  # noqa: F401  (registers the deploy checks)
