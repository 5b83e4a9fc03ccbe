from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from games import services


@shared_task(ignore_result=True)
def tick() -> int:
    """Beat calls this every few seconds: run every due transition of every live game once."""
    return len(services.transitions_run_due(now=timezone.now()))
