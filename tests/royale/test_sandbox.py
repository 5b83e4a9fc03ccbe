"""The control room's 发牌 page and the test match (测试赛): copy, prize carried over, archive."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from games import eventlog
from games.errors import GameNotLive
from games.models import Character, Event, Game, GameStatus
from royale import services
from royale.engine import get_ruleset, testmatch
from royale.models import RoyaleGame
from tests.conftest import api_login, make_game
from tests.royale.conftest import (
    admin_client,
    control,
    players,
    royale_game,
    state_edit,
    state_of,
)

pytestmark = pytest.mark.django_db


def url(game: Game, suffix: str) -> str:
    return f"/admin/royale/royalegame/{game.pk}/{suffix}"


def held_kinds(game: Game, name: str) -> list[str]:
    state = state_of(game)
    cid = Character.objects.get(game=game, name=name).pk
    return [state.items[i].kind for i in state.characters[cid].held]


def test_a_game_without_state_is_dealt_from_the_setup_page(director: Any) -> None:
    game = make_game("256", characters=("甲", "乙"))
    game.directors.add(director)
    client = admin_client(director)
    page = client.get(url(game, "control/"))
    assert page.status_code == 302
    assert page["Location"].endswith(url(game, "setup/"))
    form = client.get(url(game, "setup/"))
    assert form.status_code == 200
    assert 'name="trap:炸弹"' in form.content.decode()
    counts = {p: 0 for p in ("weapon:green", "armor:green")}
    done = client.post(url(game, "setup/"), {**counts, "trap:炸弹": 9, "supply:[HP10]草药": 3})
    assert done.status_code == 200  # an incomplete form is shown again, with its errors
    assert "errorlist" in done.content.decode()
    assert not RoyaleGame.objects.filter(pk=game.pk).exists()
    full = {field: 0 for field in re.findall(r'name="([a-z]+:[^"]+)"', form.content.decode())}
    done = client.post(url(game, "setup/"), {**full, "trap:炸弹": 9})
    assert done.status_code == 302
    kinds = [i.kind for i in state_of(game).items.values()]
    assert kinds == ["trap:炸弹"] * 9


def test_the_test_match_copies_the_cast_and_carries_the_megaphone_into_the_real_game(
    director: Any,
) -> None:
    real = royale_game("256", ("甲", "乙", "丙"))
    real.directors.add(director)
    client = admin_client(director)
    before = state_of(real)

    page = client.post(url(real, "test-match/"), {"reason": "4月3日测试赛"})
    assert page.status_code == 200
    html = page.content.decode()
    copy = Game.objects.get(number="256测1")
    assert copy.status == GameStatus.TEST
    assert list(copy.characters.order_by("id").values_list("name", flat=True)) == ["甲", "乙", "丙"]
    assert RoyaleGame.objects.get(pk=copy.pk).test_of_id == real.pk
    sandbox = state_of(copy)
    assert sandbox.flags["test_match"] is True
    # 更多道具: the ruleset's factor times the real game's herbs
    factor = testmatch.rules(get_ruleset(real.ruleset)).item_factor
    dealt = [k for k in (i.kind for i in before.items.values()) if k == "supply:[HP10]草药"]
    herbs = [i for i in sandbox.items.values() if i.kind == "supply:[HP10]草药"]
    assert len(herbs) == factor * len(dealt) > len(dealt) > 0
    # The passwords are shown once, and they open the copy, not the real game.
    password = re.search(r"<td>甲</td><td><code[^>]*>([^<]+)</code>", html)
    assert password is not None
    assert api_login(Client(), copy.number, password.group(1)).status_code == 200
    assert api_login(Client(), real.number, password.group(1)).status_code != 200
    assert state_of(real).to_json() == before.to_json()  # the real game is untouched

    # A second test match while this one runs is refused.
    again = client.post(url(real, "test-match/"), {"reason": "再来一场"}, follow=True)
    assert "已有一场未结束的测试赛" in again.content.decode()
    assert not Game.objects.filter(number="256测2").exists()

    # 乙 killed 阿笨 first and 丙 whispered 阿呆 first in the copy (recorded by the NPC code).
    ids = dict(copy.characters.values_list("name", "pk"))
    state_edit(copy, lambda s: s.flags.__setitem__("test_prizes", [ids["乙"], ids["丙"]]))
    done = client.post(url(copy, "test-match/conclude/"), {"reason": "测试赛结束"}, follow=True)
    assert "乙、丙" in done.content.decode()
    assert held_kinds(real, "乙") == ["tool:大喇叭"]
    assert held_kinds(real, "丙") == ["tool:大喇叭"]
    assert held_kinds(real, "甲") == []
    copy.refresh_from_db()
    assert copy.status == GameStatus.ARCHIVED
    with pytest.raises(GameNotLive):
        services.royale_give(
            game=copy, director=director, character=ids["甲"], kind="supply:[HP10]草药", reason="x"
        )
    # Concluding twice gives nothing twice.
    client.post(url(copy, "test-match/conclude/"), {"reason": "再发一次"})
    assert held_kinds(real, "乙") == ["tool:大喇叭"]
    assert Event.objects.filter(game=real, kind="test_match_prizes").count() == 1
    # 并可在正式比赛第一日前使用: 乙 shouts before day 1 of the real game, once.
    assert state_of(real).phase == "before"
    yi = players(real)["乙"]
    [megaphone] = state_of(real).characters[yi.id].pack
    shout = yi.act("megaphone", item=megaphone, place="钟楼")
    assert shout.status_code == 200, shout.content
    assert Event.objects.filter(game=real, kind="megaphone", audience="public").count() == 1
    again = yi.act("megaphone", item=megaphone, place="钟楼")
    assert (again.status_code, again.json()["code"]) == (409, "not_before_day_1")
    call_command("replay_game", real.number)  # the prize is a logged, replayable step


def test_the_252_prize_goes_to_the_leader_of_the_power_ranking(director: Any) -> None:
    real = royale_game("252", ("甲", "乙"), ruleset="kimetsu_252")
    real.directors.add(director)
    client = admin_client(director)
    client.post(url(real, "test-match/"), {"reason": "测试赛"})
    copy = Game.objects.get(number="252测1")
    ids = dict(copy.characters.values_list("name", "pk"))

    def hurt_甲(state: Any) -> None:
        state.characters[ids["甲"]].hp = 60

    state_edit(copy, hurt_甲)
    client.post(url(copy, "test-match/conclude/"), {"reason": "测试赛结束"})
    assert held_kinds(real, "乙") == ["tool:大喇叭"]
    assert held_kinds(real, "甲") == []


def test_a_test_match_needs_a_reason_and_a_director_of_the_game(
    director: Any, django_user_model: Any
) -> None:
    real = royale_game("256", ("甲",))
    real.directors.add(director)
    client = admin_client(director)
    client.post(url(real, "test-match/"), {"reason": " "})
    assert not Game.objects.filter(number="256测1").exists()
    stranger = django_user_model.objects.create_user(username="x", password="p", is_staff=True)
    other = admin_client(stranger)
    # Not one of the game's directors: the game looks like one that does not exist.
    assert other.post(url(real, "test-match/"), {"reason": "r"}).status_code == 404
    assert not Game.objects.filter(number="256测1").exists()


def test_the_director_restores_and_supplies_in_the_test_match_only(
    director: Any, django_user_model: Any
) -> None:
    # 若测试赛中死亡或者体力不够可实时要求导演直接往背包中提供补给 (RULINGS 28)
    real = royale_game("256", ("甲", "乙", "丙"))
    real.directors.add(director)
    client = admin_client(director)
    client.post(url(real, "test-match/"), {"reason": "测试赛"})
    copy = Game.objects.get(number="256测1")
    ids = dict(copy.characters.values_list("name", "pk"))
    services.royale_adjust(
        game=copy, director=director, character=ids["甲"], hp=-100, reason="测试赛中被打死"
    )
    assert not state_of(copy).characters[ids["甲"]].alive
    page = client.get(control(copy)).content.decode()
    assert "复活角色（测试赛）" in page
    assert "往背包中提供补给（测试赛）" in page

    done = client.post(
        control(copy, "test_match/test_restore/"),
        {"character": ids["甲"], "reason": "测试赛中死亡"},
        follow=True,
    )
    assert "已复活" in done.content.decode()
    jia = state_of(copy).characters[ids["甲"]]
    assert (jia.alive, jia.hp, jia.mp) == (True, 100, 100)
    assert Character.objects.get(pk=ids["甲"]).status == "alive"
    done = client.post(
        control(copy, "test_match/test_supply/"),
        {"character": ids["乙"], "kind": "supply:[MP50]咖啡", "reason": "体力不够"},
        follow=True,
    )
    assert "补给已放入背包" in done.content.decode()
    assert held_kinds(copy, "乙") == ["supply:[MP50]咖啡"]
    texts = [
        line.text
        for line in eventlog.event_lines(
            game=copy, events=Event.objects.filter(game=copy, kind="intervention")
        )
    ]
    assert "测试赛：导演让 甲 复活（生命 100，体力 100，重新出生）" in texts
    assert any(t.startswith("测试赛：导演往 乙 的背包中提供补给") and "咖啡" in t for t in texts)
    steps = Event.objects.filter(game=copy, kind="engine_step", payload__op__startswith="test_")
    assert [line.text for line in eventlog.event_lines(game=copy, events=steps)] == [
        "引擎步骤：测试赛复活",
        "引擎步骤：测试赛补给",
    ]
    call_command("replay_game", copy.number)  # both are logged, replayable steps

    # The real game: no such forms, and a post is refused with the rule's words.
    assert "往背包中提供补给（测试赛）" not in client.get(control(real)).content.decode()
    before = state_of(real).to_json()
    refused = client.post(
        control(real, "test_match/test_supply/"),
        {
            "character": Character.objects.get(game=real, name="乙").pk,
            "kind": "supply:[MP50]咖啡",
            "reason": "正式赛",
        },
        follow=True,
    )
    assert "只有测试赛中导演才能复活角色或直接往背包中提供补给。" in refused.content.decode()
    assert state_of(real).to_json() == before
    # Another director's test match looks like none at all.
    stranger = django_user_model.objects.create_user(username="x", password="p", is_staff=True)
    answer = admin_client(stranger).post(
        control(copy, "test_match/test_supply/"),
        {"character": ids["乙"], "kind": "supply:[MP50]咖啡", "reason": "r"},
    )
    assert answer.status_code == 404
    assert held_kinds(copy, "乙") == ["supply:[MP50]咖啡"]
