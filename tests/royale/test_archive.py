"""The royale's archive (复盘), over HTTP: a [256] game played through the API and the scheduler
to its last survivor (and one where everyone dies at once), then read by anyone: the seed, the
ranking with HP and items, the director's intervention with its reason, each night's map, the
private events; before the end none of it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from games import services as game_services
from games.models import Character, Event, Game
from royale import services
from tests.conftest import bj
from tests.games.test_archive import page_text
from tests.royale.conftest import night_one, players, royale_game, state_of

pytestmark = pytest.mark.django_db

REASON = "补偿掉线ADJ4471"
DICE_REASON = "抽奖理由DIC3307"


def _safe_places(game: Game, count: int) -> list[str]:
    state = state_of(game)
    vanishing = set(state.shrink_tonight) | {"教堂"}
    return [p for p in state.places_on_map() if p not in vanishing][:count]


def _played_to_the_end(director: Any, at_night_one: Any) -> tuple[Game, dict[str, int]]:
    """甲 and 乙 spawn on night 1, 丙 never does; the director adjusts 甲 (with a reason) and
    rolls a die; on night 2 乙 walks into a vanishing place, 丙 drowns: 甲 is the last one."""
    game = royale_game("256", ("甲", "乙", "丙"))
    game.directors.add(director)
    night_one(game)
    cast = players(game)
    ids = {name: p.id for name, p in cast.items()}
    first, second = _safe_places(game, 2)
    assert cast["甲"].act("spawn", place=first).status_code == 200
    assert cast["乙"].act("spawn", place=second).status_code == 200
    assert cast["甲"].act("search").status_code == 200
    services.royale_adjust(game=game, director=director, character=ids["甲"], hp=-3, reason=REASON)
    game_services.dice_roll(
        game=game, director=director, purpose="抽奖", sides=6, reason=DICE_REASON
    )
    game_services.transitions_run_due(now=bj(2, 21, 12))  # night 1 closes, day 2, night 2 opens
    at_night_one.move_to(bj(2, 21, 12))
    state = state_of(game)
    doomed = [p for p in state.shrink_tonight if p != "教堂" and not state.places[p].gone]
    safe = _safe_places(game, 1)[0]
    if state.characters[ids["甲"]].place != safe:
        assert cast["甲"].act("move", place=safe).status_code == 200
    if state.characters[ids["乙"]].place not in doomed:
        assert cast["乙"].act("move", place=doomed[0]).status_code == 200
    game_services.transitions_run_due(now=bj(3, 0, 1))  # night 2 closes: 乙 and 丙 are out
    game.refresh_from_db()
    return game, ids


def test_before_the_end_the_archive_does_not_exist_and_shows_nothing_hidden(
    director: Any, at_night_one: Any
) -> None:
    game = royale_game("256", ("甲", "乙"))
    game.directors.add(director)
    night_one(game)
    cast = players(game)
    place = _safe_places(game, 1)[0]
    assert cast["甲"].act("spawn", place=place).status_code == 200
    services.royale_adjust(
        game=game, director=director, character=cast["甲"].id, hp=-3, reason=REASON
    )
    game_services.dice_roll(game=game, director=director, purpose="抽奖", sides=6)
    roll = Event.objects.get(game=game, kind="dice_rolled")
    client = Client()  # anyone, and a player too
    for reader in (client, cast["甲"].client, cast["乙"].client):
        for url in (
            "/games/256/archive/",
            "/games/256/archive/day/0/",
            "/games/256/archive/day/1/",
            f"/games/256/archive/roll/{roll.seq}/0/",
        ):
            text = page_text(reader, url, 404)
            assert "游戏结束后" in text
            for secret in (game.seed, REASON, place, "仅 ", "揭秘", "名次", "生命"):
                assert secret not in text, (url, secret)
    assert "/archive/" not in page_text(client, "/games/256/")


def test_the_last_survivor_ends_the_game_once_and_the_archive_tells_everything(
    director: Any, at_night_one: Any
) -> None:
    game, ids = _played_to_the_end(director, at_night_one)
    assert (game.status, game.seed_revealed) == ("finished", True)
    assert Event.objects.filter(game=game, kind="game_finished").count() == 1
    client = Client()
    public = page_text(client, "/games/256/")
    assert "/games/256/archive/" in public

    page = page_text(client, "/games/256/archive/")
    assert game.seed in page
    assert game.seed_hash in page
    assert f"verify_game 256 --seed {game.seed}" in page
    assert "胜者：甲" in page
    assert "按规则结束" in page
    # The ranking: 甲 first and alive, 乙 (缩圈) second, 丙 (淹死, first out) third.
    rows = re.findall(r"<tr class=\"[^\"]*\"><td>(\d+)</td><td>(.)</td><td>([^<]*)</td>", page)
    assert [(r[0], r[1]) for r in rows] == [("1", "甲"), ("2", "乙"), ("3", "丙")]
    assert rows[0][2] == "存活"
    assert "缩圈" in rows[1][2]
    assert "淹死" in rows[2][2]
    me = state_of(game).characters[ids["甲"]]
    assert f"<td>{me.hp}</td>" in page  # the final HP, after the director's -3
    # The director's intervention, with its reason; the die with its verification link.
    assert REASON in page
    assert DICE_REASON in page
    roll = Event.objects.get(game=game, kind="dice_rolled")
    assert f"/games/256/archive/roll/{roll.seq}/0/" in page
    # Each night's map: who stood where at the close, what vanished.
    assert "第 1 夜" in page
    assert "第 2 夜" in page
    assert "本夜出局" in page
    assert "乙（缩圈）" in page
    assert "丙（淹死）" in page
    assert 'class="vanishes' in page
    assert "与存储的最终状态一致" in page

    # The log, day by day: private events marked whose they were.
    days = re.findall(r"/games/256/archive/day/(\d+)/", page)
    assert days[0] == "0"
    assert "2" in days
    logged = "".join(page_text(client, f"/games/256/archive/day/{d}/") for d in days)
    assert "仅 甲" in logged
    assert "仅 乙" in logged
    assert REASON in logged
    assert logged.count('class="a-') > Event.objects.filter(game=game).count() / 2


def test_a_roll_verifies_from_the_seed_and_a_tampered_one_does_not(
    director: Any, at_night_one: Any
) -> None:
    game, _ = _played_to_the_end(director, at_night_one)
    roll = Event.objects.get(game=game, kind="dice_rolled")
    url = f"/games/256/archive/roll/{roll.seq}/0/"
    page = page_text(Client(), url)
    assert "一致" in page
    assert "不一致" not in page
    tampered = dict(roll.payload)
    first = dict(tampered["rolls"][0])
    first["result"] = [(first["result"][0] + 1) % 6]
    tampered["rolls"] = [first]
    Event.objects.filter(pk=roll.pk).update(payload=tampered)
    assert "不一致" in page_text(Client(), url)
    page_text(Client(), f"/games/256/archive/roll/{roll.seq}/1/", 404)  # no second roll there


def test_when_everyone_dies_at_once_the_director_wins_and_they_share_the_rank(
    at_night_one: Any,
) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)  # nobody spawns: both drown after night 2 in the same step
    game_services.transitions_run_due(now=bj(3, 0, 1))
    game.refresh_from_db()
    assert game.status == "finished"
    page = page_text(Client(), "/games/256/archive/")
    assert "导演获胜" in page
    rows = re.findall(r"<tr class=\"[^\"]*\"><td>(\d+)</td><td>(.)</td>", page)
    assert set(rows) == {("1", "甲"), ("1", "乙")}
    dead = Character.objects.filter(game=game, status="eliminated").count()
    assert dead == 2


def test_a_game_the_director_ends_during_a_night_shows_that_night_as_the_end_found_it(
    director: Any, at_night_one: Any
) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    cast = players(game)
    place = _safe_places(game, 1)[0]
    assert cast["甲"].act("spawn", place=place).status_code == 200
    game_services.game_finish(game=game, director=director, reason="停电")
    page = page_text(Client(), "/games/256/archive/")
    assert "第 1 夜（游戏结束时）" in page
    tile = rf"<b>{place}</b>(?:(?!</li>).)*<span class=\"who\">甲</span>"  # within its tile
    assert re.search(tile, page, re.S)
    assert "未出生：乙" in page
