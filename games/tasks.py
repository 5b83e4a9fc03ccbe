from __future__ import annotations

import contextlib

from celery import shared_task
from django.utils import timezone

from games import ballots, card_services, forum_services, services
from games.engine.errors import RuleError


@shared_task(ignore_result=True)
def tick() -> int:
    """Beat calls this every few seconds: run every due transition of every live game once."""
    return len(services.transitions_run_due(now=timezone.now()))


@shared_task(ignore_result=True)
def forum_sync_due() -> int:
    """Beat calls this every FORUM_SYNC_SECONDS: hand each due thread of a live game to a worker."""
    thread_ids = forum_services.forum_threads_claim_due(now=timezone.now())
    for thread_id in thread_ids:
        forum_sync.delay(thread_id)
    return len(thread_ids)


@shared_task(ignore_result=True)
def forum_sync(thread_id: int) -> None:
    # A forum's refusal is recorded on the thread (shown to its directors, retried later).
    with contextlib.suppress(RuleError):
        forum_services.forum_thread_sync(thread=thread_id)


@shared_task(ignore_result=True)
def paces_update() -> int:
    """Beat calls this with the forum sync: today's 加速/延时 requests of every game, decided."""
    return card_services.paces_update(now=timezone.now())


@shared_task(ignore_result=True)
def ballots_publish_due() -> int:
    """Beat calls this with the forum sync: publish each closed day's vote tally, once."""
    return len(ballots.ballots_publish_due(now=timezone.now()))
