"""A real game from an empty database, the way a director runs one: every step is a page of the
admin or the portal in headless Chromium on a real daphne — no demo loader, no shell. The only
things made outside the pages are what lies outside the site: the director's account (as
``manage.py createsuperuser`` makes it) and the forum, whose sign-up thread the players fill.

Each game is a module of its own (this one and test_real_game_099.py), so each has a daphne of
its own: a transactional test empties the tables between tests, content types included, and a
server that lived through that would hold ids that no longer exist.

[256]: create the game, register the forum, import the cast from the 报名帖, generate the
credentials, deal, start; the director opens the night by hand; a player logs in with a generated
password and spawns; the director ends the game; the archive shows the seed, the ranking and the
log. [099]: the same up to the start (with the 马甲's genders the deal needs), the seer submits
预言 on the portal; the director ends it; the archive shows every role."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from playwright.async_api import BrowserContext, Page, expect

from games.models import Game
from tests.browser.conftest import LiveServer, PageErrors
from tests.games.forum.fake_forum import PASSWORD, FakeForum

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DIRECTOR, DIRECTOR_PASSWORD = "导演甲", "daoyan-pass-8421"
SERVER: list[LiveServer] = []  # the module's server, for a 500's traceback
SECRET = re.compile(r"^[2-9a-z]{6}(?:-[2-9a-z]{6}){3}$")


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    return database_sync_to_async(fn)


def today() -> str:
    from django.utils import timezone

    return timezone.localdate().isoformat()  # 北京时间: the site's time zone


def director_account() -> None:
    from django.contrib.auth.models import User

    User.objects.create_superuser(DIRECTOR, "d@example.com", DIRECTOR_PASSWORD)


def signup_thread(forum: FakeForum, subject: str, names: list[str]) -> int:
    """The 报名帖 as the forum has it: the director's opening floor, then one floor a player."""
    forum.user(DIRECTOR, PASSWORD)
    thread = forum.thread(subject)
    forum.post(thread.tid, DIRECTOR, f"{subject}：回帖报名，注明马甲。")
    for name in names:
        forum.post(thread.tid, f"玩家{name}", f"马甲：{name}<br>报名！")
    return thread.tid


async def admin_login(page: Page) -> None:
    await page.goto("/admin/login/")
    await page.fill("#id_username", DIRECTOR)
    await page.fill("#id_password", DIRECTOR_PASSWORD)
    await page.click("input[type=submit]")
    await expect(page).to_have_url(re.compile(r"/admin/$"))


async def forum_site_add(page: Page, forum: FakeForum) -> None:
    await page.goto("/admin/games/forumsite/add/")
    await page.fill("#id_name", "雾雨小镇")
    await page.select_option("#id_kind", "discuz")
    await page.fill("#id_base_url", forum.base_url)
    await page.fill("#id_username", DIRECTOR)
    await page.fill("#id_password", PASSWORD)
    await page.click("input[name=_save]")
    if "500" in await page.title():
        raise AssertionError(SERVER[0].log_text()[-4000:])
    await expect(page.locator(".messagelist")).to_contain_text("雾雨小镇")


async def game_add(
    page: Page, *, kind: str, ruleset: str, number: str, title: str, tid: int
) -> str:
    """The add form, then the game's page; returns that page's address."""
    await page.goto("/admin/games/game/add/")
    await page.select_option("#id_kind", kind)
    await page.select_option("#id_ruleset", ruleset)
    await page.fill("#id_number", number)
    await page.fill("#id_title", title)
    await page.fill("#id_start_date", today())
    await page.select_option("#id_forum_site", label="雾雨小镇")
    await page.fill("#id_signup_thread", str(tid))
    await page.click("input[name=_save]")
    await expect(page).to_have_url(re.compile(r"/admin/games/game/\d+/prepare/$"))
    await expect(page.locator("#calendar")).to_contain_text("第 1 天")
    return page.url


async def cast_import(page: Page, names: list[str]) -> None:
    await page.get_by_role("button", name="从报名帖导入").click()
    await expect(page.locator(".messagelist")).to_contain_text(f"新增 {len(names)} 名角色")
    cast = page.locator("#cast table")
    for name in names:
        await expect(cast).to_contain_text(name)


async def credentials(page: Page) -> dict[str, str]:
    """生成全部密码与链接: the one-time page; every name's password, read off the table."""
    await page.get_by_role("button", name="生成全部密码与链接").click()
    await expect(page.locator("#credentials")).to_be_visible()
    rows = await page.locator("#credentials tbody tr").all()
    shown = {}
    for row in rows:
        name = (await row.locator("td").nth(0).inner_text()).strip()
        shown[name] = (await row.locator("td").nth(1).inner_text()).strip()
        assert SECRET.match(shown[name]), shown[name]
    block = await page.locator("#credentials-block").input_value()
    assert len(block.splitlines()) == len(shown)
    return shown


async def start(page: Page, prepare_url: str) -> None:
    await page.goto(prepare_url)
    await expect(page.locator("#start .wy-todo")).to_have_count(0)
    await page.get_by_role("button", name="开始游戏").click()
    await expect(page.locator(".messagelist")).to_contain_text("游戏已开始")


async def changelist_action(page: Page, game: Game, action: str, reason: str) -> None:
    """A GameAdmin list action with its reason page (推进阶段, 结束游戏)."""
    await page.goto("/admin/games/game/")
    await page.check(f"input[name=_selected_action][value='{game.pk}']")
    await page.select_option("select[name=action]", action)
    await page.click("button[name=index]")
    await page.fill("textarea[name=reason]", reason)
    await page.click("#content-main input[type=submit], #content input[type=submit]")
    await expect(page.locator(".messagelist")).to_contain_text(game.forum_title)


async def player_login(context: BrowserContext, number: str, secret: str) -> Page:
    page = await context.new_page()
    await page.goto(f"/play/{number}/")
    await page.get_by_label("密码").fill(secret)
    await page.get_by_role("button", name="登录", exact=True).click()
    await expect(page).to_have_url(re.compile(rf"/play/{number}/me/$"))
    await expect(page.locator("#live-status")).to_have_text("已连接")
    return page


async def test_a_256_game_from_sign_up_to_archive(
    page: Page, context: BrowserContext, daphne_server: LiveServer, fake_forum: FakeForum
) -> None:
    server_log = daphne_server.mark()
    SERVER[:] = [daphne_server]
    errors = PageErrors(page)
    await sync(director_account)()
    names = ["河城荷取", "琪露诺", "雾雨魔理沙", "博丽灵梦"]
    tid = signup_thread(fake_forum, "[256] 伊斯灵顿不眠夜 报名帖", names)

    await admin_login(page)
    await forum_site_add(page, fake_forum)
    prepare_url = await game_add(
        page, kind="royale", ruleset="islington_256", number="256", title="伊斯灵顿不眠夜", tid=tid
    )
    await expect(page.locator("#calendar")).to_contain_text("夜间行动开始")
    await cast_import(page, names)
    shown = await credentials(page)
    assert sorted(shown) == sorted(names)

    # 发牌 on the kind's page, then 开始 on the game's.
    await page.goto(prepare_url)
    await page.locator("#deal a").click()
    await page.get_by_role("button", name="发牌").click()
    await expect(page.locator(".messagelist")).to_contain_text("已发牌")
    await start(page, prepare_url)
    game = await sync(Game.objects.get)(number="256")
    public = await context.new_page()
    await public.goto("/games/256/")
    await expect(public.locator("body")).to_contain_text(game.seed_hash)

    # The director opens night 1 by hand (开门, 关门, 夜间行动开始), each with a reason.
    for _ in range(3):
        await changelist_action(page, game, "advance_phase", "测试：手动推进到夜间行动")
    player = await player_login(context, "256", shown["琪露诺"])
    await expect(player.locator("h1")).to_contain_text("琪露诺")
    posted: list[str] = []  # the action goes over the open socket: no POST to /actions
    player.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    spawn = player.locator("form.r-spawn")
    await spawn.locator("select[name=place]").select_option(label="教堂")
    await spawn.get_by_role("button").click()
    await expect(player.locator("#royale-log")).to_contain_text("你出生在【教堂】")
    assert [url for url in posted if "/actions" in url] == []

    # The director ends it; the archive shows the seed, the cast and the log.
    await changelist_action(page, game, "finish", "测试结束")
    archive = await context.new_page()
    await archive.goto("/games/256/archive/")
    await expect(archive.locator("#seed")).to_contain_text(game.seed)
    roster = archive.locator("#reveal")
    for name in names:
        await expect(roster).to_contain_text(name)
    await expect(archive.locator("body")).to_contain_text("教堂")

    assert errors.seen == []
    assert daphne_server.errors(since=server_log) == [], daphne_server.log_text()[-3000:]
