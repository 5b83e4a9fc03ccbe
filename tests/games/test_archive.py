"""The core of the archive (复盘): a game ends once (the engine's end or the director's 结束游戏并
公开种子, whichever comes first), the archive opens with it and never before, it is computed
once and kept, and a late event (a card reviewed after the end) shows in it."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.db import transaction
from django.test import Client

from games import card_services, services
from games.errors import GameNotLive
from games.models import Character, Event, Game
from tests.royale.conftest import royale_game

pytestmark = pytest.mark.django_db

FINISH_REASON = "提前结束FIN6620"


def page_text(client: Client, url: str, status: int = 200) -> str:
    """A page as its reader sees the text (the royale and werewolf archive tests use it too);
    what differs from one request to the next (the language form's CSRF token, the scripts'
    CSP nonce) left out."""
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    text = re.sub(r'name="csrfmiddlewaretoken" value="\w+"', "", response.content.decode())
    text = re.sub(r'nonce="[^"]*"', "", text)
    return html.unescape(text)


def _page(url: str, status: int = 200) -> str:
    return page_text(Client(), url, status)


def _finished(game: Game) -> int:
    return Event.objects.filter(game=game, kind="game_finished").count()


def test_marking_a_game_finished_twice_reveals_and_logs_once() -> None:
    game = royale_game("256", ("甲", "乙"))
    with transaction.atomic():
        locked = services.game_lock(game)
        first = services.game_mark_finished(game=locked)
        again = services.game_mark_finished(game=locked)
    assert [e.kind for e in first] == ["game_finished"]
    assert first[0].payload["seed"] == game.seed
    assert again == []
    game.refresh_from_db()
    assert (game.status, game.seed_revealed) == ("finished", True)


def test_the_directors_finish_opens_the_archive_and_a_late_red_card_does_not_end_it_again(
    director: Any, staff: Any
) -> None:
    game = royale_game("256", ("甲", "乙"))
    game.directors.add(director)
    _page("/games/256/archive/", 404)
    services.game_finish(game=game, director=director, reason=FINISH_REASON)
    with pytest.raises(GameNotLive):
        services.game_finish(game=game, director=director, reason="再来一次")
    page = _page("/games/256/archive/")
    assert game.seed in page
    assert f"导演 {director.username} 结束了游戏：{FINISH_REASON}" in page
    assert "导演结束了游戏" in page  # no winner: both alive, sharing the first place
    # A red card confirmed after the end sends 乙 off: the engine's game is over now too, and
    # the game stays finished once, with one event; the archive shows the late events.
    card = card_services.card_add(
        game=game,
        director=director,
        character=Character.objects.get(game=game, name="乙"),
        color="red",
        reason="malicious",
    )
    card_services.cards_review(cards=[card], reviewer=staff, confirm=True, reason="属实")
    game.refresh_from_db()
    assert game.status == "finished"
    assert _finished(game) == 1
    assert "胜者：甲" in _page("/games/256/archive/")


def test_the_archive_is_computed_once_and_kept(
    director: Any, django_assert_max_num_queries: Any
) -> None:
    game = royale_game("256", ("甲", "乙"))
    services.game_finish(game=game, director=director, reason=FINISH_REASON)
    first = _page("/games/256/archive/")
    day = _page("/games/256/archive/day/0/")
    with django_assert_max_num_queries(3):  # the game row (and the session's): nothing else
        assert _page("/games/256/archive/") == first
        assert _page("/games/256/archive/day/0/") == day
    _page("/games/256/archive/day/9/", 404)  # no such day
    # A die rolled after the end is a new event: the archive shows it.
    services.dice_roll(game=game, director=director, purpose="彩蛋", sides=20, reason="赛后")
    assert "彩蛋" in _page("/games/256/archive/")
