from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from werewolf import demo, services


@shared_task(ignore_result=True)
def deadlines() -> int:
    """Beat calls this every tick: forfeit the role games' late night skills and windows."""
    return services.werewolf_deadlines_run(now=timezone.now())


@shared_task(ignore_result=True)
def vote_reminders() -> int:
    """Beat calls this every tick: remind the role games' players to vote before the close."""
    return services.werewolf_vote_reminders_run(now=timezone.now())


@shared_task(ignore_result=True)
def bots_act() -> int:
    """Beat calls this every few seconds: the bots of both demos ([099], [061]) do what is open
    to them — night skills, windows, the day's ballot."""
    return demo.bots_act(now=timezone.now())
