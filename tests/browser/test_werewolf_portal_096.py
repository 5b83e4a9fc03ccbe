"""A [096] 名侦探柯南 day and night on the portal, in headless Chromium on a real daphne, while
its rules are being written (``WEREWOLF_PREVIEW_RULESETS``). The director creates the game in
the admin, pastes the 22 马甲, deals, sets the roles by hand and starts; the empty 开局夜 is
published at day 1's open. On day 1 a 狼人 (phone, 390×844) submits 藏匿 by day (21：00前),
then on night 1 撕咬; the director publishes; the page shows, live, 撕咬 in cooldown (冷却：1)
and the target out. The 黑龙 (desktop) switches 龙威 on. Screenshots: /tmp/hB_096_*.png."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.utils import timezone
from playwright.async_api import Browser, BrowserContext, Page, ViewportSize, expect

from tests.browser.conftest import WAIT_MS, LiveServer, PageErrors
from tests.werewolf.admin_director import AdminDirector
from tests.werewolf.engine.support_096 import DRAGON, ELVES, SEATS, WOLVES
from werewolf import services
from werewolf.engine import get_ruleset
from werewolf.engine.state import LATE
from werewolf.selectors import werewolf_state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RULES = get_ruleset("conan_096")
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
SHOTS = "/tmp/hB_096_{}.png"  # noqa: S108  (beside the other portals' screenshots)
NAMES = {s: f"柯{s}" for s in SEATS}
CODE_WORDS = re.compile(r"\b(?:" + "|".join([*RULES.roles, *RULES.skills]) + r")\b")


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    return database_sync_to_async(fn)


async def _context(browser: Browser, url: str, size: ViewportSize) -> BrowserContext:
    made = await browser.new_context(
        base_url=url, locale="zh-CN", viewport=size, device_scale_factor=2
    )
    made.set_default_timeout(WAIT_MS)
    return made


@pytest.fixture
async def phone(browser: Browser, daphne_server: LiveServer) -> AsyncIterator[BrowserContext]:
    made = await _context(browser, daphne_server.url, PHONE)
    try:
        yield made
    finally:
        await made.close()


@pytest.fixture
async def desktop(browser: Browser, daphne_server: LiveServer) -> AsyncIterator[BrowserContext]:
    made = await _context(browser, daphne_server.url, DESKTOP)
    try:
        yield made
    finally:
        await made.close()


def day_1(client: Client) -> tuple[AdminDirector, dict[str, str], dict[int, int]]:
    """Through the admin: created, cast, dealt, roles set by hand, started; the director's 开门
    (day 1) and 批准并发布 of the empty 开局夜."""
    director = AdminDirector(client)
    game = director.create(
        ruleset="conan_096", number="096", title="名侦探柯南", start=timezone.localdate()
    )
    director.cast([NAMES[s] for s in SEATS])
    shown = director.credentials()
    director.room("deal")
    director.roles({NAMES[s]: role for s, role in SEATS.items()}, reason="按座位表调整身份")
    director.prepare("start")
    assert werewolf_state(game=game).phase == LATE  # nothing to do in its 开局夜
    director.advance("导演开门")
    director.room("publish", reason="核对无误")
    assert werewolf_state(game=game).phase == "day"
    ids = {s: game.characters.get(name=NAMES[s]).pk for s in SEATS}
    return director, shown, ids


def night_1_published(director: AdminDirector) -> None:
    assert director.game is not None
    director.advance("导演关门")
    services.werewolf_deadlines_run(now=timezone.now() + dt.timedelta(minutes=80))
    assert werewolf_state(game=director.game).phase == LATE
    director.room("publish", reason="核对无误")


async def login(page: Page, secret: str) -> None:
    await page.goto("/play/096/")
    await page.get_by_label("密码").fill(secret)
    await page.get_by_role("button", name="登录", exact=True).click()
    await expect(page).to_have_url(re.compile(r"/play/096/me/$"))
    await expect(page.locator("#live-status")).to_have_text("已连接")


def skill_form(page: Page, skill: str) -> Any:
    return page.locator("#ww-act form.ww-skill").filter(
        has=page.locator(f"input[name=skill][value={skill}]")
    )


async def test_a_wolf_hides_by_day_bites_by_night_and_sees_the_cooldown_live(
    phone: BrowserContext,
    desktop: BrowserContext,
    director: Any,
    director_client: Client,
    daphne_server: LiveServer,
    settings: Any,
) -> None:
    settings.WEREWOLF_PREVIEW_RULESETS = True
    server_log = daphne_server.mark()
    admin, shown, ids = await sync(day_1)(director_client)
    wolf, hidden, bitten = WOLVES[0], ELVES[0], ELVES[2]
    page: Page = await phone.new_page()
    errors = PageErrors(page)
    await login(page, shown[NAMES[wolf]])
    role = page.locator("#ww-role")
    await expect(role.locator(".ww-role-name")).to_contain_text("狼人")
    await expect(role.locator(".ww-role-name .tag")).to_have_text("地下城阵营")
    await expect(page.locator("#ww-conan")).to_contain_text("狼群")
    hide = skill_form(page, "hide")
    await expect(hide).to_contain_text("截止：今日关门前")
    await page.screenshot(path=SHOTS.format("1_day"), full_page=True)
    await hide.locator("select[name=target]").select_option(str(ids[hidden]))
    await hide.get_by_role("button", name="发动").click()
    await expect(page.locator(".ww-flash")).to_contain_text("已提交。")
    await expect(page.locator("#ww-log")).to_contain_text(
        f"{NAMES[wolf]}为狼群提交【藏匿】：{NAMES[hidden]}。"
    )

    # The 黑龙 on a desktop: 龙威 is off by default and switched on.
    dragon: Page = await desktop.new_page()
    await login(dragon, shown[NAMES[DRAGON]])
    switch = dragon.locator("#ww-conan form.ww-toggle").filter(has_text="龙威")
    await expect(switch).to_contain_text("已关闭")
    await switch.get_by_role("button", name="开启").click()
    await expect(
        dragon.locator("#ww-conan form.ww-toggle").filter(has_text="龙威")
    ).to_contain_text("已开启")
    await dragon.screenshot(path=SHOTS.format("2_dragon_desktop"), full_page=True)

    # Night 1: 撕咬, then the director publishes; the page follows without a reload.
    await sync(admin.advance)("导演关门")
    await page.reload()
    bite = skill_form(page, "bite")
    await bite.locator("select[name=target]").select_option(str(ids[bitten]))
    await bite.get_by_role("button", name="发动").click()
    await expect(page.locator(".ww-flash")).to_contain_text("已提交。")
    await page.evaluate("() => { window.stillThisDocument = true; }")

    def publish() -> None:
        assert admin.game is not None
        services.werewolf_deadlines_run(now=timezone.now() + dt.timedelta(minutes=80))
        assert werewolf_state(game=admin.game).phase == LATE
        admin.room("publish", reason="核对无误")

    await sync(publish)()
    await expect(page.locator("#ww-cooldowns")).to_contain_text("撕咬（还需 1 天）")
    await expect(role).to_contain_text("第 2 天 · 白天")
    assert await page.evaluate("() => window.stillThisDocument") is True
    await page.screenshot(path=SHOTS.format("3_cooldown"), full_page=True)
    state = await sync(werewolf_state)(game=admin.game)
    assert not state.players[ids[bitten]].alive
    body = await page.locator("body").inner_text()
    assert CODE_WORDS.findall(body) == []
    width = await page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    assert errors.seen == []
    assert daphne_server.errors(since=server_log) == [], daphne_server.log_text()[-3000:]
