"""Every kind of page under the site's Content-Security-Policy in a real Chromium on a real
daphne, with every tab of the browser watched for a refused script, style or connection (a
``securitypolicyviolation`` anywhere fails the test): the admin's game page and its one-time
credentials page (the copy button, a static file now), a director's control room with its
socket, the bookmark link's page and its button (opening the link logs nobody in), the
player's portal with its socket, the archive and a day of it (its filter, an inline script with
the nonce), and the API's docs (ninja's own Swagger UI)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from playwright.async_api import BrowserContext, ConsoleMessage, Page, expect

from games import services as game_services
from games.models import Game
from tests.browser.conftest import LiveServer, PageErrors
from tests.royale.conftest import empty_royale_game, royale_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "导演的密码-c5p1"
# Chromium reports each refusal on the page's console, and the page fires the DOM event too.
WATCH = """document.addEventListener("securitypolicyviolation", function (e) {
  console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI);
});"""


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    return database_sync_to_async(fn)


def games(director: Any) -> tuple[Game, Game]:
    """A running [256] (the director's) and a finished [252] with its archive open."""
    director.set_password(PASSWORD)
    director.save()
    running = empty_royale_game("256", ("甲", "乙"))
    running.directors.add(director)
    finished = royale_game("252", ("丁", "戊"))
    finished.directors.add(director)
    game_services.game_finish(game=finished, director=director, reason="测试结束")
    return running, finished


class Violations:
    """CSP refusals and script errors on any page of the context."""

    def __init__(self, context: BrowserContext) -> None:
        self.seen: list[str] = []
        context.on("console", self._console)

    def _console(self, message: ConsoleMessage) -> None:
        text = message.text
        if "Content Security Policy" in text or text.startswith("CSP violation"):
            self.seen.append(text[:300])


async def opened(context: BrowserContext, url: str, errors: list[PageErrors]) -> Page:
    page = await context.new_page()
    errors.append(PageErrors(page))
    await page.goto(url)
    return page


async def test_every_kind_of_page_works_under_the_policy(
    context: BrowserContext, director: Any, daphne_server: LiveServer
) -> None:
    server_log = daphne_server.mark()
    await context.add_init_script(WATCH)
    violations = Violations(context)
    errors: list[PageErrors] = []
    running, finished = await sync(games)(director)

    # The director: the game's page, the credentials shown once, the copy button.
    admin = await opened(context, "/admin/login/", errors)
    await admin.fill("#id_username", director.username)
    await admin.fill("#id_password", PASSWORD)
    await admin.click("input[type=submit]")
    await expect(admin).to_have_url(re.compile(r"/admin/$"))
    await admin.goto(f"/admin/games/game/{running.pk}/prepare/")
    await admin.get_by_role("button", name="生成全部密码与链接").click()
    row = admin.locator("#credentials tbody tr", has_text="甲")
    link = (await row.locator("td").nth(2).inner_text()).strip()
    copy = admin.get_by_role("button", name="复制")
    await copy.click()
    await expect(copy).to_have_text("已复制")
    # The control room and its live socket.
    await admin.goto(f"/admin/royale/royalegame/{running.pk}/control/")
    await expect(admin.locator("#live-status")).to_have_text("实时连接")

    # The player opens the bookmark link: a page with a button; pressing it logs in.
    path = re.sub(r"^https?://[^/]+", "", link)
    assert path.startswith("/play/256/k/"), link
    player = await opened(context, path, errors)
    await expect(player.locator("h1")).to_contain_text("[256] 角色登录")
    assert player.url.endswith(path)  # opening it logged nobody in
    await player.get_by_role("button", name="用此链接登录").click()
    await expect(player).to_have_url(re.compile(r"/play/256/me/$"))
    await expect(player.locator("#live-status")).to_have_text("已连接")
    await player.get_by_role("button", name="退出登录").click()
    await expect(player).to_have_url(re.compile(r"/play/256/$"))

    # The archive, a day of it and its character filter (the inline script with the nonce).
    archive = await opened(context, f"/games/{finished.number}/archive/", errors)
    await expect(archive.locator("#seed")).to_contain_text(finished.seed)
    await archive.goto(f"/games/{finished.number}/archive/day/0/")
    lines = archive.locator(".a-log > li")
    assert await lines.count() > 0
    await archive.select_option("#a-who", label="丁")
    await expect(archive.locator(".a-log > li[hidden]").first).to_be_attached()
    await archive.select_option("#a-who", index=0)
    await expect(archive.locator(".a-log > li[hidden]")).to_have_count(0)

    # The API's docs: ninja's own Swagger UI, from the site's static files.
    docs = await opened(context, "/api/docs", errors)
    await expect(docs.locator("#swagger-ui .info")).to_contain_text("雾雨小镇 版杀 API")

    assert violations.seen == []
    assert [seen for page_errors in errors for seen in page_errors.seen] == []
    assert daphne_server.errors(since=server_log) == []
