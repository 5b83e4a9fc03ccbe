from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from games import services


class Command(BaseCommand):
    help = "Run every due phase transition once (what Celery beat does every few seconds)."

    def handle(self, *args: Any, **options: Any) -> None:
        done = services.transitions_run_due(now=timezone.now())
        for game_id, day, kind in done:
            self.stdout.write(f"game {game_id}: day {day} {kind}")
