"""The directors' log of a lone wolf's night (RULINGS werewolf 8): it leads without an
election, and the sentence says so, naming it with its role."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.utils import timezone

from games import eventlog
from games.engine.events import DIRECTORS, GameEvent
from games.models import Event
from games.services import events_append, game_lock
from tests.werewolf.players import werewolf_game

pytestmark = pytest.mark.django_db


def test_the_lone_wolf_leads_unelected_in_the_directors_log() -> None:
    game, ids = werewolf_game()
    facts = {"leader": ids[1], "votes": {}, "drawn_from": [], "alone": True}
    with transaction.atomic():
        locked = game_lock(game)
        told = GameEvent("leader_elected", DIRECTORS, facts)
        events_append(game=locked, events=[told], now=timezone.now())
    lines = eventlog.event_lines(game=game, events=Event.objects.filter(kind="leader_elected"))
    (line,) = [x.text for x in lines]
    assert line == "狼人 P1 是唯一能行动的狼人，无需选举，直接成为主刀狼"
