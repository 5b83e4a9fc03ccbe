"""The role game's archive (复盘), over HTTP: a [099] game played through the API, the scheduler,
the night room (an override with a note and its reason) and the card ledger (red cards with
their factions' loss) until the village wins; then anyone reads every role, the winner, each
player's private messages and the override's reason. Before the end the archive is closed and
no role, note or private event shows."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.test import Client

from games import card_services
from games import services as game_services
from games.models import Character, Event, Game
from tests.conftest import bj
from tests.games.test_archive import page_text
from tests.werewolf.engine.support import SEATS
from tests.werewolf.players import players, werewolf_game
from werewolf import services
from werewolf.engine import get_ruleset

pytestmark = pytest.mark.django_db

RULES = get_ruleset("arknights_099")
ROLE_NAMES = sorted({r.name for r in RULES.roles.values()} - {"村民"})
NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)
OVERRIDE_REASON = "覆盖理由OVR5150"
NOTE = "导演私信NOTE8812"


def _night_and_day_1(director: Any) -> tuple[Game, dict[int, int]]:
    """Night 1 through the API (the wolves kill P16, the seer divines P2); the director
    publishes it at day 1's open with a private note to P12 (the reason logged)."""
    game, ids = werewolf_game()
    game.directors.add(director)
    cast = players(game)
    with time_machine.travel(NIGHT_1 + dt.timedelta(minutes=1), tick=False):
        services.werewolf_start(game=game, director=director, now=NIGHT_1)
        for seat in (1, 2, 3, 4):
            cast[seat].use("elect", ids[1])
        cast[1].use("wolf_kill", ids[16])
        cast[6].use("divine", ids[2])
    late = NIGHT_1 + dt.timedelta(minutes=62)
    with time_machine.travel(late, tick=False):
        services.werewolf_deadlines_run(now=late)
        services.werewolf_deadlines_run(now=late + dt.timedelta(minutes=1))
    with time_machine.travel(bj(1, 8), tick=False):
        game_services.transitions_run_due(now=bj(1, 8))
        services.werewolf_night_resolve(game=game, director=director)
        services.werewolf_night_publish(
            game=game,
            director=director,
            reason=OVERRIDE_REASON,
            overrides={"feedback": {str(ids[12]): [{"kind": "note", "text": NOTE}]}},
        )
        game_services.dice_roll(game=game, director=director, purpose="发言顺序", sides=18)
    return game, ids


def _red_card_and_loss(game: Game, director: Any, staff: Any, character_id: int) -> None:
    card = card_services.card_add(
        game=game,
        director=director,
        character=Character.objects.get(pk=character_id),
        color="red",
        reason="11.1",
    )
    card_services.cards_review(cards=[card], reviewer=staff, confirm=True, reason="属实")
    card.refresh_from_db()
    card_services.card_faction_decide(card=card, director=director, loses=True, reason="恶意")


def test_before_the_end_the_archive_shows_no_role_and_no_private_event(director: Any) -> None:
    game, _ = _night_and_day_1(director)
    roll_seq = Event.objects.get(game=game, kind="dice_rolled").seq
    for reader in (Client(), players(game)[6].client):
        for url in (
            "/games/099/archive/",
            "/games/099/archive/day/0/",
            "/games/099/archive/day/1/",
            f"/games/099/archive/roll/{roll_seq}/0/",
        ):
            text = page_text(reader, url, 404)
            assert "游戏结束后" in text
            for secret in (game.seed, NOTE, OVERRIDE_REASON, "仅 ", *ROLE_NAMES):
                assert secret not in text, (url, secret)


def test_when_a_faction_wins_the_archive_reveals_every_role_and_private_message(
    director: Any, staff: Any
) -> None:
    game, ids = _night_and_day_1(director)
    with time_machine.travel(bj(1, 12), tick=False):
        _red_card_and_loss(game, director, staff, ids[2])  # the wolves lose
        _red_card_and_loss(game, director, staff, ids[5])  # the 白眼狼 loses: the village wins
    game.refresh_from_db()
    assert (game.status, game.seed_revealed) == ("finished", True)
    assert Event.objects.filter(game=game, kind="game_finished").count() == 1

    client = Client()
    assert "/games/099/archive/" in page_text(client, "/games/099/")
    page = page_text(client, "/games/099/archive/")
    assert game.seed in page
    assert "村民阵营胜利" in page
    assert "按规则结束" in page  # by the engine, after the director's 判负 (not by 结束游戏)
    assert "结束了游戏" not in page
    assert "判负的阵营" in page
    for seat, role in SEATS.items():
        name = RULES.roles[role].name
        assert f"<td>P{seat}</td><td>{name}</td>" in page, (seat, name)
    assert "<td>胜</td>" in page
    assert "<td>负</td>" in page
    assert OVERRIDE_REASON in page  # the director's override, with its reason
    roll = Event.objects.get(game=game, kind="dice_rolled")
    assert "发言顺序" in page
    assert "一致" in page_text(client, f"/games/099/archive/roll/{roll.seq}/0/")
    assert "与存储的最终状态一致" in page

    # The deal is before the game (day 0); night 1 and its feedback are day 1's (a role game's
    # night comes before its day).
    logged = "".join(page_text(client, f"/games/099/archive/day/{d}/") for d in (0, 1))
    private = Event.objects.filter(game=game, audience="character")
    assert logged.count('class="a-character') == private.count()
    assert "仅 P6" in logged  # the seer's result went to the seer alone, now shown
    assert "仅 P12" in logged  # the director's note to P12
    assert NOTE in logged  # and what it said
