from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from royale import demo


@shared_task(ignore_result=True)
def bots_act() -> int:
    """Beat calls this every few seconds: the demo's bots act during the night window."""
    return demo.bots_act(now=timezone.now())
