"""[096] 名侦探柯南 on the site while its rules are being written (``WEREWOLF_PREVIEW_RULESETS``):
a game a director prepares — 22 马甲, roles set by hand, started — has every page, for every
player and the director, without an error; a site game without the preview still refuses it."""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any

import pytest
import time_machine
from django.test import Client

from games import services as game_services
from games.models import Character
from tests.conftest import START, api_login, bj
from tests.werewolf.engine.support_096 import SEATS
from werewolf import services, store

pytestmark = pytest.mark.django_db


def _game(director: Any) -> tuple[Any, dict[str, str]]:
    game = game_services.game_create(
        kind="werewolf", ruleset="conan_096", number="096", title="名侦探柯南", start_date=START
    )
    game.directors.add(director)
    Character.objects.bulk_create(Character(game=game, name=f"侦探{n}") for n in SEATS)
    issued = game_services.character_passwords_generate(game=game, director=director)
    return game, {i.character.name: i.secret for i in issued}


def test_a_096_game_deals_on_any_site(director: Any) -> None:
    """[096] is built: no preview setting is needed to deal it."""
    game, _ = _game(director)
    services.werewolf_setup(game=game)
    assert store.state_load(game).phase == "setup"


def test_a_prepared_096_game_has_every_page(
    director: Any, director_client: Client, settings: Any
) -> None:
    settings.WEREWOLF_PREVIEW_RULESETS = True
    game, passwords, _ = _started(director)
    assert store.state_load(game).phase == "late"  # the empty 开局夜, drafted at once
    _every_page(game, passwords, director_client)
    assert Client().get(f"/games/{game.number}/").status_code == 200


def _started(director: Any) -> tuple[Any, dict[str, str], dict[int, int]]:
    """Roles set by hand on SEATS, started two hours before day 1's open."""
    game, passwords = _game(director)
    ids = {int(c.name[2:]): c.pk for c in game.characters.all()}
    services.werewolf_setup(game=game, roles={ids[s]: r for s, r in SEATS.items()})
    game_services.game_start(game=game, director=director, now=bj(1, 0) - dt.timedelta(hours=2))
    return game, passwords, ids


def _every_page(game: Any, passwords: dict[str, str], director_client: Client) -> None:
    room = director_client.get(f"/admin/werewolf/werewolfgame/{game.pk}/night/")
    assert room.status_code == 200
    for name, secret in passwords.items():
        c = Client()
        assert api_login(c, game.number, secret).status_code == 200
        for url in (f"/play/{game.number}/me/", f"/api/werewolf/games/{game.pk}/me"):
            page = c.get(url, follow=True)
            assert page.status_code == 200, (name, url, page.content[:300])


def test_night_1_of_a_prepared_096_game_has_every_page(
    director: Any, director_client: Client, settings: Any
) -> None:
    settings.WEREWOLF_PREVIEW_RULESETS = True
    game, passwords, _ = _day_1(director)
    with time_machine.travel(bj(1, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 21, 1))
    state = store.state_load(game)
    assert (state.phase, state.day) == ("night", 1), (state.phase, state.day)
    with time_machine.travel(bj(1, 21, 2), tick=False):
        _every_page(game, passwords, director_client)


def _day_1(director: Any) -> tuple[Any, dict[str, str], dict[int, int]]:
    game, passwords, ids = _started(director)
    with time_machine.travel(bj(1, 0, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 0, 1))
        if store.state_load(game).phase == "late":
            services.werewolf_night_publish(game=game, director=director, reason="")
    assert store.state_load(game).phase == "day"
    return game, passwords, ids


def _client(game: Any, passwords: dict[str, str], seat: int) -> Client:
    c = Client()
    assert api_login(c, game.number, passwords[f"侦探{seat}"]).status_code == 200
    return c


def _text(c: Client, game: Any, **post: Any) -> str:
    url = f"/play/{game.number}/me/"
    page = c.post(url, post, follow=True) if post else c.get(url)
    assert page.status_code == 200
    return html.unescape(re.sub(r"<[^>]+>", " ", page.content.decode()))


def test_day_1_portal_hide_by_day_a_switch_and_the_hp(director: Any, settings: Any) -> None:
    """藏匿 (21：00前, 第一日游戏夜晚之前) on a wolf's day page with its deadline in words, seen
    by the whole pack and no one else; 龙威 <开关> off by default, switched on from the page;
    the 树妖's 生命值 1 and its own group-less card."""
    from tests.werewolf.engine.support_096 import DRAGON, DRYAD, ELVES, WOLF_KING, WOLVES

    settings.WEREWOLF_PREVIEW_RULESETS = True
    with time_machine.travel(bj(1, 12), tick=False):
        game, passwords, ids = _day_1(director)
        wolf = _client(game, passwords, WOLVES[0])
        page = _text(wolf, game)
        assert "藏匿" in page
        assert "截止：今日关门前" in page
        assert "狼群" in page
        after = _text(wolf, game, op="use_skill", skill="hide", target=str(ids[ELVES[0]]), key="h1")
        assert "已提交。" in after
        picks = store.state_load(game).flags["cn_day_picks"]["hide"]
        assert picks["target"] == ids[ELVES[0]]
        king = _text(_client(game, passwords, WOLF_KING), game)
        assert "侦探16为狼群提交【藏匿】：侦探1。" in king
        elf = _text(_client(game, passwords, ELVES[1]), game)
        assert "藏匿" not in elf
        assert "我的状态" not in elf  # nothing of its own to show: no empty card
        dragon = _client(game, passwords, DRAGON)
        page = _text(dragon, game)
        assert re.search(r"龙威\s+已关闭", page)
        page = _text(dragon, game, op="use_skill", skill="majesty", option="on", key="m1")
        assert re.search(r"龙威\s+已开启", page)
        assert store.state_load(game).players[ids[DRAGON]].flags["on"] == {"majesty": True}
        dryad = _text(_client(game, passwords, DRYAD), game)
        assert re.search(r"生命值\s*：\s*1", dryad)


def test_a_096_night_in_the_room_traces_each_damage_and_publishes(
    director: Any, director_client: Client, settings: Any
) -> None:
    """(8) 狼人：选择【撕咬】的目标 on the portal; at 22:15 the steps are closed and the night room
    shows the damage settled (伤害结算流程 … 该角色出局); publishing puts the target out."""
    from tests.werewolf.engine.support_096 import ELVES, WOLVES

    settings.WEREWOLF_PREVIEW_RULESETS = True
    from games.card_selectors import elevator_rows

    game, passwords, ids = _day_1(director)
    # The day's 电梯楼 as the director's card and the post show it during the day (read before
    # the night opens: a missed 藏匿 is drawn at the open, and its holder may go out there and
    # then, 光明之魂, leaving the living after the open a different ring).
    shown = [r.character for r in elevator_rows(game=game, day=1)]
    with time_machine.travel(bj(1, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 21, 1))
        wolf = _client(game, passwords, WOLVES[0])
        page = _text(wolf, game, op="use_skill", skill="bite", target=str(ids[ELVES[2]]), key="b1")
        assert "已提交。" in page
    # 七轮感应法/尸爆 read the day's 电梯楼 (电梯楼角色顺序随机): the order the post showed
    order = store.state_load(game).flags["elevator"]
    assert order == shown
    assert sorted(order) == sorted(ids.values())
    services.werewolf_deadlines_run(now=bj(1, 22, 16))
    assert store.state_load(game).phase == "late"
    with time_machine.travel(bj(1, 22, 20), tick=False):
        room = director_client.get(f"/admin/werewolf/werewolfgame/{game.pk}/night/")
    text = html.unescape(re.sub(r"<[^>]+>", " ", room.content.decode()))
    assert "第1次伤害" in text
    assert "侦探16的【撕咬】对侦探3造成一次伤害。" in text
    services.werewolf_night_publish(game=game, director=director, reason="核对无误")
    state = store.state_load(game)
    assert not state.players[ids[ELVES[2]]].alive
    assert state.players[ids[WOLVES[0]]].counters["cd:bite"] == 1
