"""The players' rooms panel (``{% rooms_panel %}``, templates/games/_rooms.html) as each kind's
player page draws it: the reader's own rooms as tabs, in Chinese or English, the muted lobby
with its reason and no form, the inbox's topics, and nothing of a room the reader is not in.
The live side is the browser test's (tests/browser/test_rooms_portal.py)."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
import time_machine

from games.models import Game, Room
from tests.conftest import bj
from tests.royale.conftest import night_one, royale_game
from tests.royale.conftest import players as royale_players
from tests.werewolf.players import players, werewolf_game
from werewolf import services

pytestmark = pytest.mark.django_db

TAB = re.compile(r'class="rooms-tab-name">([^<]+)<')
WOLF, VILLAGER = 1, 15  # seats of tests/werewolf/players.py


def tabs(page: str) -> list[str]:
    return [html.unescape(name) for name in TAB.findall(page)]


def panes(page: str) -> dict[str, str]:
    """Each drawn room's pane by its token (the templates' blank pane has none)."""
    found = {}
    for chunk in page.split('<section class="rooms-pane"')[1:]:
        token = re.search(r'data-room="([^"]+)"', chunk.split(">", 1)[0])
        if token:
            found[token.group(1)] = chunk.split("</section>", 1)[0]
    return found


def config(page: str) -> dict[str, Any]:
    raw = re.search(r'<script id="rooms-config" type="application/json">(.*?)</script>', page)
    assert raw, "no rooms-config"
    return dict(json.loads(raw.group(1)))


def running_099(director: Any) -> tuple[Game, dict[int, Any]]:
    game, _ids = werewolf_game()
    game.directors.add(director)
    cast = players(game)
    with time_machine.travel(bj(1, 19), tick=False):
        services.werewolf_start(game=game, director=director, now=bj(1, 19))
    return game, cast


def test_a_wolf_sees_its_pack_the_inbox_and_the_muted_lobby(director: Any) -> None:
    game, cast = running_099(director)
    page = cast[WOLF].client.get(f"/play/{game.number}/me/").content.decode()
    assert tabs(page) == ["狼群", "私聊导演", "联谊群"]
    rooms = {r.name: r for r in Room.objects.filter(game=game)}
    drawn = panes(page)
    pack, lobby = rooms["狼群"].token, rooms["联谊群"].token
    inbox = next(t for t in drawn if t not in (pack, lobby))
    assert set(drawn) == {pack, lobby, inbox}
    # 游戏开始之后，联谊群禁言: the reason where the form would be, and no form
    assert "游戏进行中，联谊群禁言，只有导演可以发言。" in drawn[lobby]
    assert "<form" not in drawn[lobby]
    assert "<textarea" not in drawn[lobby]
    # the pack's form has no topic; 私聊导演's offers the five
    assert "<textarea" in drawn[pack]
    assert 'name="topic"' not in drawn[pack]
    topics = re.findall(r'<option value="(\w+)"[^>]*>([^<]+)<', drawn[inbox])
    assert topics == [
        ("rule", "规则提问"),
        ("complaint", "投诉"),
        ("item", "使用道具"),
        ("proxy_vote", "代投"),
        ("other", "其他"),
    ]
    # the first tab is the one shown; the others wait hidden
    assert " hidden>" not in drawn[pack].split(">", 1)[0] + ">"
    assert drawn[lobby].split(">", 1)[0].endswith(" hidden")
    data = config(page)
    assert data["me"] == cast[WOLF].id
    assert data["game"] == game.pk
    assert [r["room"] for r in data["rooms"]] == [pack, inbox, lobby]


def test_a_villager_page_holds_nothing_of_the_pack(director: Any) -> None:
    game, cast = running_099(director)
    pack = Room.objects.get(game=game, name="狼群")
    page = cast[VILLAGER].client.get(f"/play/{game.number}/me/").content.decode()
    assert tabs(page) == ["私聊导演", "联谊群"]
    assert pack.token not in page
    assert "狼群" not in page.split('id="rooms"', 1)[1]


def test_the_panel_speaks_english(director: Any) -> None:
    game, cast = running_099(director)
    client = cast[WOLF].client
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    page = client.get(f"/play/{game.number}/me/").content.decode()
    assert tabs(page) == ["Wolf pack", "directors' inbox", "lobby"]
    lobby = Room.objects.get(game=game, name="联谊群").token
    assert "联谊群禁言" not in panes(page)[lobby]
    assert "<form" not in panes(page)[lobby]
    assert "Send" in page


def test_a_royale_player_sees_the_inbox_and_the_lobby() -> None:
    with time_machine.travel(bj(1, 21, 12), tick=False):
        game = royale_game("256", ("甲", "乙", "丙"))
        night_one(game)
        cast = royale_players(game)
        page = cast["甲"].client.get(f"/play/{game.number}/me/").content.decode()
    assert tabs(page) == ["私聊导演", "联谊群"]
    assert 'href="#rooms"' in page  # the page's own tabs lead to it on a phone
    data = config(page)
    assert data["me"] == cast["甲"].id
    inbox = Room.objects.get(game=game, kind="inbox", owner_id=cast["甲"].id).token
    others = Room.objects.filter(game=game, kind="inbox").exclude(token=inbox)
    assert inbox in page
    assert not any(r.token in page for r in others)
