"""The royale portal on a phone (390×844): an attack's result and the hit it deals are shown at
the top of the night panel, where the players act, not only in the live log 2,500 px below.

Two players at one place: the attacker searches (only the other is there: the search finds it),
attacks, and sees the result banner; the victim's page gets the hit banner live over the
websocket and its tab title the 【受伤】 mark until the page is seen. Then the night closes and
day 2 opens: the day page's log tells each phase change and the morning report once. Every step
is screenshotted at 390×844 and 1280×800 (``/tmp/h15d_*.png``, for a person to look at) and
checked for what must never show: event codes, JSON, ids, Unix times, the attacker's name.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone
from playwright.async_api import Browser, BrowserContext, Page, ViewportSize, expect

from games import services as game_services
from games.models import Game, TimetableOverride
from royale.models import RoyaleGame
from tests.browser.conftest import WAIT_MS, LiveServer, PageErrors
from tests.browser.test_real_game import player_login
from tests.royale.conftest import empty_royale_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
SHOTS = str(Path(tempfile.gettempdir()) / "h15d_{}.png")
# What a player's page must never show: engine codes, JSON, ids or handles, Unix times.
LEAKS = re.compile(
    r"attack_result|phase_changed|morning_report|night_ended|payload|[{}]|\"kind\"|"
    r"\b\d{9,}\b|\b[0-9a-f]{12}\b|（[a-z_]+）"
)


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    return database_sync_to_async(fn)


def arrange(now: datetime) -> tuple[Game, dict[str, str]]:
    """[256] with nothing on the ground, night 1's window open now; day 2 opens in an hour."""
    game = empty_royale_game("256", ("甲", "乙"))
    game.start_date = timezone.localdate(now)
    game.save(update_fields=["start_date"])
    RoyaleGame.objects.filter(pk=game.pk).update(auto_publish=True)
    moments = {
        (1, "day_open"): now - timedelta(minutes=10),
        (1, "day_close"): now - timedelta(minutes=9),
        (1, "night_open"): now - timedelta(minutes=8),
        (1, "night_end"): now + timedelta(minutes=60),
        (1, "night_close"): now + timedelta(minutes=61),
        (2, "day_open"): now + timedelta(minutes=62),
        (2, "day_close"): now + timedelta(hours=8),
    }
    TimetableOverride.objects.bulk_create(
        TimetableOverride(game=game, day=day, kind=kind, at=at)
        for (day, kind), at in moments.items()
    )
    game_services.transitions_run_due(now=now)
    issued = game_services.character_passwords_generate(game=game, director=None)
    return Game.objects.get(pk=game.pk), {i.character.name: i.secret for i in issued}


def herb_for(game: Game, name: str) -> None:
    """The director hands a character a supply (it lands in the backpack)."""
    from django.contrib.auth.models import User

    from games.models import Character
    from royale import services

    director = User.objects.create_user("导演乙")
    game.directors.add(director)
    cid = Character.objects.get(game=game, name=name).pk
    services.royale_give(
        game=game, director=director, character=cid, kind="supply:[HP10]草药", reason="测试补给"
    )


def day_two(now: datetime) -> None:
    game_services.transitions_run_due(now=now + timedelta(minutes=63))


async def phone(browser: Browser, server: LiveServer) -> BrowserContext:
    made = await browser.new_context(
        base_url=server.url, locale="zh-CN", timezone_id="Asia/Shanghai", viewport=PHONE
    )
    made.set_default_timeout(WAIT_MS)
    return made


async def spawn(page: Page, place: str) -> None:
    form = page.locator("form.r-spawn")
    await form.locator("select[name=place]").select_option(label=place)
    await form.get_by_role("button").click()
    await expect(page.locator("#r-place")).to_have_text(place)


async def shots(page: Page, name: str) -> None:
    """The page at both sizes, from its top (the night panel's top is where the banner is)."""
    for size, label in ((PHONE, "phone"), (DESKTOP, "desktop")):
        await page.set_viewport_size(size)
        await page.evaluate("window.scrollTo(0, 0)")
        await page.screenshot(path=SHOTS.format(f"{name}_{label}"))
        await page.screenshot(path=SHOTS.format(f"{name}_{label}_full"), full_page=True)
        for part in ("#r-log", "#r-events", ".r-items"):
            where = page.locator(part).last
            if await where.count():
                await where.screenshot(path=SHOTS.format(f"{name}_{label}_{part.strip('#.')}"))
    await page.set_viewport_size(PHONE)


async def clean(page: Page) -> str:
    text = await page.locator("main").inner_text()
    assert not LEAKS.search(text), LEAKS.search(text)
    return text


async def test_the_attack_and_the_hit_show_at_the_top_of_the_night_panel(
    browser: Browser, daphne_server: LiveServer
) -> None:
    server_log = daphne_server.mark()
    now = timezone.now()
    game, secrets = await sync(arrange)(now)
    attacker_ctx = await phone(browser, daphne_server)
    victim_ctx = await phone(browser, daphne_server)
    try:
        attacker = await player_login(attacker_ctx, game.number, secrets["甲"])
        victim = await player_login(victim_ctx, game.number, secrets["乙"])
        errors = [PageErrors(attacker), PageErrors(victim)]
        spawn_button = attacker.locator("form.r-spawn button")
        await expect(spawn_button).to_have_text(re.compile(r"^\s*出生\s+0 体力\s*$"))
        await spawn_button.screenshot(path=SHOTS.format("spawn_button_phone"))
        await spawn(attacker, "监狱")
        await spawn(victim, "监狱")
        await sync(herb_for)(game, "乙")
        herb = victim.locator(".r-items .r-item.cat-supply")
        await expect(herb).to_contain_text("需先拿在手上才能使用")
        title = await victim.title()
        assert not title.startswith("【受伤】")

        # The attacker searches: only the victim is there, so the search finds it; then attacks.
        await attacker.locator("form[data-kind=search] button").click()
        await expect(attacker.locator(".r-found")).to_contain_text("发现了一名未知角色")
        attack = attacker.locator("form[data-kind=attack] button")
        await expect(attack).to_be_enabled()
        await attack.click()

        banner = attacker.locator(".r-actions #r-banner")
        await expect(banner).to_be_visible()
        await expect(banner.locator(".r-banner-entry.mine")).to_contain_text("你的行动结果")
        await expect(banner).to_contain_text("攻击命中。")
        # the state region refreshes after the result; the banner stays
        await expect(attacker.locator(".r-found")).to_contain_text("已攻击")
        await expect(banner).to_contain_text("攻击命中。")
        # at the top of the night panel: right under its heading, above the first button
        # (measured in one go: the state region may be redrawn between two reads)
        top, bottom, search = await attacker.evaluate(
            """() => {
              const rect = (q) => document.querySelector(q).getBoundingClientRect();
              const box = rect(".r-actions #r-banner"), first = rect("form[data-kind=search]");
              return [box.top, box.bottom, first.top];
            }"""
        )
        assert top < search
        assert bottom < PHONE["height"]  # on the first screen of a phone

        # The victim: the hit, live, at the top of its night panel; the tab title marked.
        hurt = victim.locator(".r-actions #r-banner .r-banner-entry.hurt")
        # live; a loaded machine may drop the socket, and the page reconnects and catches up
        await expect(hurt).to_contain_text("受伤提醒", timeout=20_000)
        await expect(hurt).to_contain_text(re.compile(r"你受到 \d+ 点伤害，生命剩余 \d+。"))
        await expect(victim).to_have_title("【受伤】" + title)
        assert "甲" not in await hurt.inner_text()  # the hit never names its source
        assert "甲" not in await victim.locator("#royale-log").inner_text()
        # the mark stays until the page is seen
        await victim.wait_for_timeout(1_500)
        await expect(victim).to_have_title("【受伤】" + title)
        await shots(attacker, "night_attacker")
        await shots(victim, "night_victim")
        for page in (attacker, victim):
            text = await clean(page)
            assert text.count("攻击命中。") <= 2  # the banner and the log line, nothing more
        await victim.locator("h1").click()
        await expect(victim).to_have_title(title)
        # dismissed, the banner goes
        await hurt.get_by_role("button", name="知道了").click()
        await expect(victim.locator(".r-actions #r-banner")).to_be_hidden()

        # Night 1 closes, day 2 opens: the day page, its log and its 公示.
        await sync(day_two)(now)
        for page in (attacker, victim):
            await page.goto(f"/play/{game.number}/me/?view=day")
            await expect(page.locator("#live-status")).to_have_text("已连接")
            log = page.locator("#royale-log")
            await expect(log).to_contain_text("【晨报】第 2 天")
            text = await log.inner_text()
            assert text.count("夜间行动截止") == 1, text
            assert "夜行动截止" not in text, text  # night_ended: the phase change says it
            assert "夜结算完毕" not in text, text
            assert text.count("【晨报】第 2 天") == 1, text
            assert "【公示】" not in text, text  # the report's own 公示 is not told again
            body = await clean(page)
            assert "第 2 天 · 第 2 天" not in body
            assert "恶棍 / 鬼王" not in body
        await shots(attacker, "day_attacker")
        await shots(victim, "day_victim")

        assert [seen for e in errors for seen in e.seen] == []
        assert daphne_server.errors(since=server_log) == []
    except BaseException:
        print("--- daphne log ---\n" + daphne_server.log_text()[-6000:])
        raise
    finally:
        await attacker_ctx.close()
        await victim_ctx.close()
