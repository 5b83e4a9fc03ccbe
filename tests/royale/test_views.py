"""The player portal: the night page, the day page, the map, and what they must never show."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.test import Client

from games import services as game_services
from games.models import Announcement, AnnouncementStatus, Character, CharacterStatus, Game
from royale.engine.ruleset import get_ruleset
from tests.conftest import bj
from tests.royale.conftest import (
    empty_royale_game,
    give,
    night_one,
    players,
    royale_game,
    set_character,
    state_of,
)

pytestmark = pytest.mark.django_db


def page(client: Client, game: Game, **params: str) -> str:
    response = client.get(f"/play/{game.number}/me/", params)
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


def visible_text(markup: str) -> str:
    """The page without its tags: what the player reads. Its scripts' data (json_script) is
    read as the script reads it, \\uXXXX escapes decoded, without the rooms' random tokens
    (which may hold any digits)."""
    text = re.sub(r'"room": "[\w-]+"', "", markup)
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def form(body: str, kind: str) -> str:
    """The markup of the night page's action form of this kind: its button, cost and reason."""
    found = re.search(rf'<form[^>]*data-kind="{kind}">.*?</form>', body, re.S)
    assert found is not None, f"no {kind} form"
    return found.group(0)


def button(body: str, kind: str) -> str:
    """The submit button of that action form (where ``disabled`` shows)."""
    found = re.search(r"<button[^>]*>", form(body, kind))
    assert found is not None, f"no {kind} button"
    return found.group(0)


# --- access ---------------------------------------------------------------------------------


def test_redirects_to_login_when_not_logged_in() -> None:
    game = royale_game("256", ("甲", "乙"))
    response = Client().get(f"/play/{game.number}/me/")
    assert response.status_code == 302
    assert response["Location"] == f"/play/{game.number}/"


def test_state_fragment_also_needs_login() -> None:
    game = royale_game("256", ("甲", "乙"))
    response = Client().get(f"/play/{game.number}/me/", {"part": "state"})
    assert response.status_code == 302


# --- the night page -------------------------------------------------------------------------


def test_night_page_before_spawning(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    a = players(game)["甲"]
    body = page(a.client, game)
    text = visible_text(body)
    assert "甲" in text
    assert "生命 100 / 100" in " ".join(text.split())
    assert "体力 100 / 100" in " ".join(text.split())
    assert "未出生" in text
    assert 'data-kind="spawn"' in body  # the spawn form is offered
    assert "请先出生" in text  # every other action says why it is disabled
    # the map: every place is a tile, the safe zone marked
    rs = get_ruleset("islington_256")
    tiles = re.findall(r'<li class="tile[^"]*"\s+data-place="([^"]+)"', body)
    assert tiles == list(rs.places)
    assert re.search(r'class="tile open safe"\s+data-place="教堂"', body)
    # the countdown is to the end of the window (21:25 北京时间)
    assert "距行动截止" in text
    assert 'data-until="2026-11-01T21:25:00+08:00"' in body
    # the live client and its stylesheet
    assert "js/royale.js" in body
    assert "css/royale.css" in body
    assert 'id="royale-config"' in body


def test_night_page_shows_numbers_items_and_own_place(at_night_one: Any) -> None:
    game = empty_royale_game("256", ("甲", "乙"))  # every green name still free
    knife = give(game, "甲", "weapon:green:小刀")
    give(game, "甲", "supply:[HP10]草药")
    night_one(game)
    a = players(game)["甲"]
    assert a.act("spawn", place="监狱").status_code == 200
    assert a.act("equip", item=knife).status_code == 200  # 更换: 0 体力
    assert a.act("move", place="广场").status_code == 200
    body = page(a.client, game)
    text = " ".join(visible_text(body).split())
    assert "小刀" in text
    assert "伤害 15" in text  # 绿色武器：伤血15，使用次数无限制
    assert "不限次数" in text
    assert "[HP10]草药" in text
    assert "体力 95 / 100" in text  # 【移动】：-5体力
    assert "位置：广场" in text.replace(" ", "")
    assert re.search(r'class="tile open mine"\s+data-place="广场"', body)
    assert "行动模式" in text
    # buttons carry their costs (【移动】【搜索】：消耗5体力); the search has no cooldown yet
    assert 'data-cooldown="0"' in button(body, "search")
    for kind in ("search", "move"):
        assert re.search(r"(?<!\d)5 体力", visible_text(form(body, kind))), kind
    # the spawn form is gone once spawned
    assert 'data-kind="spawn"' not in body


def test_search_cooldown_and_found_item(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    a = players(game)["甲"]
    # 乙 never spawns: at a place with items on the ground, a search can only find one of them
    stocked = next(p.name for p in state_of(game).places.values() if p.items and not p.gone)
    assert a.act("spawn", place=stocked).status_code == 200
    assert a.act("search").json()["me"]["found"]["kind"] == "item"
    body = page(a.client, game)
    text = visible_text(body)
    assert "发现道具" in text
    # 两次【搜索】之间必须间隔30秒以上: the clock stands still, so all 30 s are left
    assert re.findall(r'data-cooldown="(\d+)"', body) == ["30"]
    assert "搜索冷却 30 秒" in text
    # pick-up is enabled, attack is not (the search found no character)
    assert "disabled" not in button(body, "pick_up")
    assert "disabled" in button(body, "attack")
    assert "需先搜索到角色" in visible_text(form(body, "attack"))


def test_resting_disables_actions_with_reason(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    a = players(game)["甲"]
    assert a.act("spawn", place="监狱").status_code == 200
    assert a.act("rest").status_code == 200
    body = page(a.client, game)
    text = visible_text(body)
    assert "静养中" in text
    assert "已选择静养" in text
    assert "disabled" in button(body, "search")
    # the one free move of a rest is still offered, at no cost (最多进行一次移动)
    assert "disabled" not in button(body, "move")
    assert re.search(r"(?<!\d)0 体力", visible_text(form(body, "move")))


def test_outside_the_window_every_action_says_so() -> None:
    game = royale_game("256", ("甲", "乙"))
    with time_machine.travel(bj(1, 12, 0), tick=False):
        game_services.transitions_run_due(now=bj(1, 12, 0))
        a = players(game)["甲"]
        body = page(a.client, game, view="night")
    text = visible_text(body)
    assert "不在夜间行动时间" in text
    assert 'data-kind="spawn"' not in body  # nobody spawns before 21:10
    assert "距关门" in text


def test_not_enough_mp_is_the_reason(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    a = players(game)["甲"]
    assert a.act("spawn", place="监狱").status_code == 200
    set_character(game, "甲", mp=3)
    body = page(a.client, game)
    assert "体力不足（需 5，现有 3）" in visible_text(body)


def test_dead_character_sees_that_it_is_out(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    a = players(game)["甲"]
    set_character(game, "甲", alive=False, hp=0)
    Character.objects.filter(pk=a.id).update(status=CharacterStatus.ELIMINATED, cause="攻击")
    text = visible_text(page(a.client, game))
    assert "你已出局" in text
    assert "死因：攻击" in text  # 出局时公示死因


def test_state_fragment_is_the_state_region_only(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    a = players(game)["甲"]
    fragment = page(a.client, game, part="state")
    assert "<html" not in fragment
    assert "r-tiles" in fragment
    assert 'id="r-whisper-state"' in fragment


# --- hidden information ---------------------------------------------------------------------


def test_page_of_a_shows_nothing_of_b(at_night_one: Any) -> None:
    game = empty_royale_game("256", ("甲", "乙", "丙"))
    night_one(game)
    cast = players(game)
    a, b = cast["甲"], cast["乙"]
    assert a.act("spawn", place="监狱").status_code == 200
    assert b.act("spawn", place="灯塔").status_code == 200
    # B holds two items with distinctive names, one in hand, and has lost HP and MP
    weapon = give(game, "乙", "weapon:green:维京战斧")
    give(game, "乙", "armor:green:羊头面具")
    assert b.act("equip", item=weapon).status_code == 200
    set_character(game, "乙", mp=77, hp=63)
    b_items = ["维京战斧", "羊头面具"]

    for view in ("night", "day"):
        for part in ("", "state"):
            params = {"view": view, **({"part": part} if part else {})}
            body = page(a.client, game, **params)
            text = visible_text(body)
            for name in b_items:
                assert name not in text, (view, part, name)
            assert "灯塔" not in re.sub(r'data-place="灯塔"|>灯塔<|value="灯塔"', "", body), view
            assert not re.search(r'class="tile[^"]*mine[^"]*"\s+data-place="灯塔"', body)
            assert "63" not in text  # B's HP
            assert "77" not in text  # B's MP
    # the map marks only A's place
    body = page(a.client, game)
    assert re.findall(r'class="tile[^"]*\bmine\b[^"]*"\s+data-place="([^"]+)"', body) == ["监狱"]


def test_a_search_that_finds_b_does_not_name_b(at_night_one: Any) -> None:
    game = empty_royale_game("256", ("甲", "乙"))  # nothing on the ground: a search finds B
    night_one(game)
    cast = players(game)
    a, b = cast["甲"], cast["乙"]
    assert a.act("spawn", place="祭坛").status_code == 200
    assert b.act("spawn", place="祭坛").status_code == 200
    me = a.act("search").json()["me"]
    assert me["found"]["kind"] == "character"
    body = page(a.client, game)
    text = visible_text(body)
    assert "发现了一名未知角色" in text
    # B's name appears only in the whisper/telescope name list and the id→name map, never
    # next to the search result
    found = re.search(r'<div class="r-found">.*?</div>', body, re.S)
    assert found is not None
    assert "乙" not in found.group(0)
    assert str(b.id) not in found.group(0)
    assert me["found"]["handle"]  # the attack form carries the random handle only
    assert "乙" not in form(body, "attack")


def test_deaths_of_tonight_are_not_shown_before_the_morning(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙", "丙"))
    night_one(game)
    cast = players(game)
    a = cast["甲"]
    Character.objects.filter(game=game, name="乙").update(
        status=CharacterStatus.ELIMINATED, cause="攻击", eliminated_day=1, elimination_order=1
    )
    for view in ("night", "day"):
        body = page(a.client, game, view=view)
        # 乙 appears nowhere but in the name lists (whisper targets, the id→name map)
        rest = re.sub(r"<datalist.*?</datalist>|<script.*?</script>", "", body, flags=re.S)
        assert "乙" not in rest, view
        # 乙 is still offered as a whisper target: refusing would reveal the death
        datalist = re.search(r'<datalist id="r-names">(.*?)</datalist>', body, re.S)
        assert datalist is not None
        assert 'value="乙"' in datalist.group(1)
    assert "尚无角色出局" in visible_text(page(a.client, game, view="day"))


# --- the day page ---------------------------------------------------------------------------


def test_day_page_lists_announcements_deaths_and_vanishing_places() -> None:
    game = royale_game("256", ("甲", "乙", "丙"))
    with time_machine.travel(bj(2, 12, 0), tick=False):
        # night 1 passes, day 2 opens: tonight's five places are drawn
        game_services.transitions_run_due(now=bj(2, 12, 0))
        cast = players(game)
        a = cast["甲"]
        Character.objects.filter(game=game, name="乙").update(
            status=CharacterStatus.ELIMINATED,
            cause="缩圈",
            eliminated_day=1,
            elimination_order=1,
            death_public=True,  # announced by this morning's report
        )
        Announcement.objects.create(
            game=game, day=2, title="第二天公示", body="昨夜平安。", status=AnnouncementStatus.DRAFT
        )
        published = Announcement.objects.create(
            game=game, day=2, title="晨报", body="乙 出局（缩圈）", status=AnnouncementStatus.DRAFT
        )
        game_services.announcement_publish(announcement=published, director=None)
        body = page(a.client, game)
    text = visible_text(body)
    assert 'href="?view=day" class="current"' in body  # by day the day page is the default
    assert "晨报" in text
    assert "第二天公示" not in text  # drafts stay hidden
    deaths = re.search(r'class="r-deaths".*?</table>', body, re.S)
    assert deaths is not None
    assert "乙" in deaths.group(0)
    assert "缩圈" in deaths.group(0)
    vanishing = list(state_of(game).shrink_tonight)
    assert len(vanishing) == 5
    for name in vanishing:
        assert name in text
        assert re.search(rf'class="tile vanishing[^"]*"\s+data-place="{name}"', body)


def test_night_page_reachable_by_day_and_day_page_by_night(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    a = players(game)["甲"]
    assert 'href="?view=night" class="current"' in page(a.client, game)
    body = page(a.client, game, view="day")
    assert 'href="?view=day" class="current"' in body
    assert "出局名单" in visible_text(body)


# --- player text ----------------------------------------------------------------------------


def test_whisper_html_is_escaped_in_every_rendering(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    cast = players(game)
    a, b = cast["甲"], cast["乙"]
    assert a.act("spawn", place="监狱").status_code == 200
    assert b.act("spawn", place="监狱").status_code == 200
    evil = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    sent = a.act("whisper", target="乙", text=evil)
    assert sent.status_code == 200, sent.content
    for player in (a, b):
        body = page(player.client, game)
        assert "<script>alert(1)" not in body
        assert "<img src=x" not in body
        texts = [
            f["payload"].get("text") for f in player.events() if f["kind"].startswith("whisper")
        ]
        assert evil in texts  # stored raw, delivered as JSON data; the client uses textContent
    script = Path("static/js/royale.js").read_text(encoding="utf-8")
    assert ".innerHTML = html" in script  # only the server-rendered state region
    assert script.count("innerHTML") == 1


def test_character_names_with_markup_are_escaped(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "<b>乙</b>"))
    night_one(game)
    a = players(game)["甲"]
    body = page(a.client, game)
    assert "<b>乙</b>" not in body
    assert "&lt;b&gt;乙&lt;/b&gt;" in body  # in the page's markup
    assert "\\u003Cb\\u003E" in body  # in its JSON config


# --- the player's faces (issue 15) ------------------------------------------------------------


def test_a_supply_in_the_backpack_says_it_must_be_taken_in_hand(at_night_one: Any) -> None:
    game = empty_royale_game("256", ("甲", "乙"))
    night_one(game)
    a = players(game)["甲"]
    assert a.act("spawn", place="监狱").status_code == 200
    herb = give(game, "甲", "supply:[HP10]草药")

    def herb_row(body: str) -> str:
        found = re.search(r'<li class="r-item[^"]*cat-supply">.*?</li>', body, re.S)
        assert found is not None
        return visible_text(found.group(0))

    assert "需先拿在手上才能使用" in herb_row(page(a.client, game))
    assert "需先拿在手上才能使用" in herb_row(page(a.client, game, view="day"))
    assert a.act("equip", item=herb).status_code == 200
    assert "需先拿在手上才能使用" not in herb_row(page(a.client, game))


def test_the_spawn_button_names_its_cost_in_stamina(at_night_one: Any) -> None:
    game = empty_royale_game("256", ("甲", "乙"))
    night_one(game)
    body = page(players(game)["甲"].client, game)
    spawn = re.search(r'<form class="act r-spawn".*?</form>', body, re.S)
    assert spawn is not None
    button = re.search(r"<button.*?</button>", spawn.group(0), re.S)
    assert button is not None
    assert " ".join(visible_text(button.group(0)).split()) == "出生 0 体力"


def test_an_announcement_heading_says_its_day_once(at_night_one: Any) -> None:
    game = empty_royale_game("256", ("甲", "乙"))
    night_one(game)
    for day, title in ((1, "第 1 天 晨报"), (1, "晨报"), (1, "导演公告")):
        made = Announcement.objects.create(
            game=game, day=day, title=title, body="平安夜", status=AnnouncementStatus.DRAFT
        )
        game_services.announcement_publish(announcement=made, director=None)
    portal = page(players(game)["甲"].client, game, view="day")
    public = Client().get(f"/games/{game.number}/").content.decode()
    for body in (portal, public):  # the player's day page and the game's public page
        headings = [visible_text(h).strip() for h in re.findall(r"<h3>.*?</h3>", body, re.S)]
        assert "第 1 天 · 导演公告" in headings
        assert headings.count("第 1 天 · 晨报") == 2
        assert not [h for h in headings if h.count("第 1 天") > 1]


@pytest.mark.day_events
@pytest.mark.parametrize(
    ("ruleset", "title", "other"),
    [("islington_256", "恶棍", "鬼王"), ("kimetsu_252", "鬼王", "恶棍")],
)
def test_the_villain_is_called_by_its_rulesets_own_name(
    at_night_one: Any, ruleset: str, title: str, other: str
) -> None:
    game = royale_game(ruleset[-3:], ("甲", "乙"), ruleset=ruleset)
    night_one(game)
    cid = Character.objects.get(game=game, name="乙").pk

    def villain(state: Any) -> None:
        state.flags["villain"] = {"day": state.day, "character": cid, "holders": [cid]}
        state.flags["events_today"] = {"day": state.day, "keys": ["villain"]}

    from tests.royale.conftest import state_edit

    state_edit(game, villain)
    text = " ".join(visible_text(page(players(game)["甲"].client, game, view="day")).split())
    assert f"今日的【{title}】： 乙" in text
    assert "恶棍 / 鬼王" not in text
    assert f"【{other}】" not in text
