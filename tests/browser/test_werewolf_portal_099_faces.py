"""The [099] portal on a phone (390×844), in a real browser on a real daphne (issue 15): the
witch's 毒药 has no target chosen for her, submitting without one says so in Chinese, the use
is confirmed first by a dialog naming the target (the page itself asks when JavaScript is
off), the deadline counts down, 已提交。 shows once, and once her night is done the page says
夜晚已结束，等待导演公布 until the director publishes (then 白天, live)."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from django.utils import timezone
from playwright.async_api import Browser, BrowserContext, Dialog, Page, ViewportSize, expect

from tests.browser.conftest import WAIT_MS, LiveServer, PageErrors
from tests.browser.test_werewolf_portal import (
    leaked_roles,
    log_in,
    night_1_open,
    night_closed,
    password,
    sync,
)
from werewolf import services
from werewolf.selectors import werewolf_state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
WITCH, VICTIM, TARGET = 7, 15, 16  # seats of tests/werewolf/players.py
WAITING = "夜晚已结束，等待导演公布"
QUESTION = f"确定对 P{TARGET} 使用 毒药？此技能只能使用一次。"


async def _context(browser: Browser, server: LiveServer, **options: Any) -> BrowserContext:
    made = await browser.new_context(base_url=server.url, locale="zh-CN", **options)
    made.set_default_timeout(WAIT_MS)
    return made


@pytest.fixture
async def phone(browser: Browser, daphne_server: LiveServer) -> AsyncIterator[BrowserContext]:
    made = await _context(browser, daphne_server, viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        yield made
    finally:
        await made.close()


def witch_turn(director: Any) -> tuple[Any, dict[int, int]]:
    """Night 1 open; the wolves elect P1 and kill P15, the 白眼狼 forgoes: the witch's step
    opens with 通灵."""
    game, ids = night_1_open(director)
    now = timezone.now()

    def act(seat: int, kind: str, skill: str, *targets: int) -> None:
        data = {"kind": kind, "skill": skill, "targets": [ids[t] for t in targets]}
        services.werewolf_action_submit(
            game_id=game.pk, character_id=ids[seat], data=data, key=None, now=now
        )

    for wolf in (1, 2, 3, 4):
        act(wolf, "use_skill", "elect", 1)
    act(1, "use_skill", "wolf_kill", VICTIM)
    act(5, "forgo", "white_kill")
    return game, ids


def poison_form(page: Page) -> Any:
    return page.locator("#ww-act form.ww-skill").filter(
        has=page.locator("input[name=skill][value=poison]")
    )


async def shot(page: Page, name: str) -> None:
    """A full-page screenshot, for a person to look at, when SCREENSHOTS gives a path prefix
    (SCREENSHOTS=/tmp/h15c_ writes /tmp/h15c_<name>.png)."""
    prefix = os.environ.get("SCREENSHOTS")
    if prefix:
        await page.screenshot(path=f"{prefix}{name}.png", full_page=True)


async def until(check: Callable[[], bool]) -> None:
    for _ in range(50):
        if check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError("timed out")


async def no_duplicates(page: Page) -> None:
    """Nothing of the page shows twice: one flash, one waiting line, no raw placeholder."""
    body = await page.locator("body").inner_text()
    assert body.count("已提交。") <= 1, body
    assert body.count(WAITING) <= 1, body
    assert "{target}" not in body
    assert "%(" not in body


async def test_the_witch_confirms_her_poison_and_then_waits_for_the_director(
    browser: Browser, phone: BrowserContext, director: Any, daphne_server: LiveServer
) -> None:
    server_log = daphne_server.mark()
    game, ids = await sync(witch_turn)(director)
    secret = await sync(password)(game, ids[WITCH])

    # Without JavaScript: the page itself asks, and 取消 changes nothing.
    plain = await _context(browser, daphne_server, viewport=PHONE, java_script_enabled=False)
    bare = await plain.new_page()
    await bare.goto(f"/play/{game.number}/")
    await bare.get_by_label("密码").fill(secret)
    await bare.get_by_role("button", name="登录", exact=True).click()
    await poison_form(bare).get_by_role("button", name="发动").click()
    await expect(bare.locator(".ww-flash")).to_have_text("请先选择目标。")
    await poison_form(bare).locator("select[name=target]").select_option(str(ids[TARGET]))
    await poison_form(bare).get_by_role("button", name="发动").click()
    await expect(bare.locator("#ww-confirm")).to_contain_text(QUESTION)
    await shot(bare, "phone_nojs_confirm")
    await bare.locator("#ww-confirm").get_by_role("link", name="取消").click()
    await expect(bare.locator("#ww-confirm")).to_have_count(0)
    await plain.close()
    assert "poison" not in (await sync(werewolf_state)(game=game)).night["subs"]

    page = await phone.new_page()
    errors = PageErrors(page)
    await log_in(page, game, secret)
    await expect(page.locator("#ww-sense")).to_contain_text(f"P{VICTIM}")
    form = poison_form(page)
    select = form.locator("select[name=target]")
    # No target is chosen for her; the deadline counts down live.
    await expect(select).to_have_value("")
    await expect(select.locator("option").first).to_have_text("请选择")
    countdown = form.locator(".ww-countdown")
    await expect(countdown).to_be_visible()
    await expect(countdown).to_have_text(re.compile(r"^还剩 \d+分\d{2}秒$"))
    first = await countdown.inner_text()
    await expect(countdown).not_to_have_text(first, timeout=3000)
    await expect(page.locator("#ww-role .ww-skills")).to_contain_text(
        "对其使用毒药。该角色在夜晚结束前出局。"
    )
    await shot(page, "phone_witch_turn")

    # Submitting without a target: the form says so, and no dialog opens.
    dialogs: list[str] = []

    async def answer(dialog: Dialog, accept: bool) -> None:
        dialogs.append(dialog.message)
        await (dialog.accept() if accept else dialog.dismiss())

    page.once("dialog", lambda d: answer(d, False))
    await form.get_by_role("button", name="发动").click()
    await expect(form.locator(".ww-need")).to_be_visible()
    await expect(form.locator(".ww-need")).to_have_text("请先选择目标。")
    assert dialogs == []

    # The dialog names the target; dismissed, nothing is used.
    await select.select_option(str(ids[TARGET]))
    await form.get_by_role("button", name="发动").click()
    await until(lambda: dialogs == [QUESTION])
    await expect(form.locator(".ww-need")).to_be_hidden()
    assert "poison" not in (await sync(werewolf_state)(game=game)).night["subs"]

    # Accepted: submitted once, and her night is done.
    page.once("dialog", lambda d: answer(d, True))
    await form.get_by_role("button", name="发动").click()
    await expect(page.locator(".ww-flash")).to_have_text("已提交。")
    assert dialogs == [QUESTION, QUESTION]
    state = await sync(werewolf_state)(game=game)
    assert state.night["subs"]["poison"] == {str(ids[WITCH]): ids[TARGET]}
    phase = page.locator("#ww-phase")
    await expect(phase).to_contain_text(WAITING)
    await expect(page.locator("#ww-act")).to_contain_text("你今晚的行动已结束。")
    await expect(page.locator("#live-status")).to_have_text("已连接")
    await no_duplicates(page)
    assert leaked_roles(await page.content(), "witch") == []
    await shot(page, "phone_witch_waiting")
    await page.set_viewport_size(DESKTOP)
    await shot(page, "desktop_witch_waiting")
    await page.set_viewport_size(PHONE)

    # The others' steps run out and the night is drafted: still waiting, until published.
    await sync(night_closed)(game)
    await sync(services.werewolf_night_resolve)(game=game, director=director)
    await page.reload()
    await expect(phase).to_contain_text(WAITING)
    await no_duplicates(page)
    await page.evaluate("() => { window.stillThisDocument = true; }")
    await sync(services.werewolf_night_publish)(game=game, director=director, reason="")
    await expect(phase).to_contain_text("第 1 天 · 白天")
    await expect(phase).not_to_contain_text(WAITING)
    assert await page.evaluate("() => window.stillThisDocument") is True
    await expect(page.locator("#ww-log")).to_contain_text(f"第 1 天开始，昨夜出局：P{TARGET}")
    await expect(page.locator("#ww-log .ww-at").first).to_have_text(re.compile(r"^\d{2}:\d{2}$"))
    await expect(page.locator("#ww-sense")).to_have_count(0)  # 今晚被指杀的是 … is last night's
    await no_duplicates(page)
    await shot(page, "phone_witch_day")

    assert errors.seen == []
    assert daphne_server.errors(since=server_log) == []
