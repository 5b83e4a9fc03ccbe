"""The directors' live log in a real browser on a real daphne: each event arrives as a Chinese
sentence in 北京时间 (the browser sits in New York), a whisper's words stay text, and the
character filter, the kind filter and the engine-steps toggle show what they say."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from playwright.async_api import Browser, expect

from games import services as game_services
from games.models import Character, Game
from royale import services
from tests.browser.conftest import WAIT_MS, LiveServer, PageErrors
from tests.conftest import bj
from tests.royale.conftest import empty_royale_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "导演的密码-9f3k"
WHISPER = "<b>今晚别来监狱</b>"


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    return database_sync_to_async(fn)


def night_one(director: Any) -> tuple[Game, dict[str, int]]:
    """[256] night 1 open, nothing lying anywhere; 甲 and 乙 at 监狱, 丙 at 医院."""
    game = empty_royale_game("256", ("甲", "乙", "丙"))
    game.directors.add(director)
    game_services.transitions_run_due(now=bj(1, 21, 12))
    ids = dict(Character.objects.filter(game=game).values_list("name", "pk"))
    for name, where in (("甲", "监狱"), ("乙", "监狱"), ("丙", "医院")):
        act(game, ids[name], {"kind": "spawn", "place": where}, bj(1, 21, 12))
    return game, ids


def act(game: Game, character: int, data: dict[str, Any], now: Any) -> None:
    services.action_submit(game_id=game.pk, character_id=character, data=data, key=None, now=now)


async def test_the_log_shows_sentences_in_beijing_time_and_filters_them(
    browser: Browser, director: Any, daphne_server: LiveServer
) -> None:
    server_log = daphne_server.mark()
    director.set_password(PASSWORD)
    await sync(director.save)()
    game, ids = await sync(night_one)(director)
    context = await browser.new_context(
        base_url=daphne_server.url, locale="zh-CN", timezone_id="America/New_York"
    )
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    errors = PageErrors(page)
    await page.goto("/admin/login/")
    await page.fill("#id_username", director.username)
    await page.fill("#id_password", PASSWORD)
    await page.click("input[type=submit]")
    await page.goto(f"/admin/royale/royalegame/{game.pk}/control/")
    await expect(page.locator("#live-status")).to_have_text("实时连接")
    log = page.locator("#control-log")
    # The history arrived rendered: the spawns, each as a sentence, the steps hidden.
    await expect(log.locator("li:not([hidden])", has_text="甲 出生在【监狱】")).to_have_count(2)
    assert await log.locator("li.step:not([hidden])").count() == 0

    await sync(act)(
        game, ids["甲"], {"kind": "whisper", "target": "丙", "text": WHISPER}, bj(1, 21, 13)
    )
    line = log.locator("li", has_text="甲 传音给 丙").first
    await expect(line).to_contain_text(f"甲 传音给 丙：「{WHISPER}」")
    await expect(line.locator(".when")).to_have_text("11月1日 21:13:00")
    await expect(line.locator(".kind")).to_have_text("[传音]")
    await expect(line.locator(".aud")).to_have_text("（导演）")
    assert await log.locator("b:not(.kind)").count() == 0  # the player's words never became HTML

    # The engine steps behind the toggle.
    steps = log.locator("li.step")
    await expect(steps.first).to_be_hidden()
    await page.check("#log-steps")
    await expect(steps.first).to_be_visible()
    await expect(steps.first).to_contain_text("引擎步骤：甲 的行动（传音）")
    await page.uncheck("#log-steps")

    # By character: 丙's lines only (its spawn and the whisper to it), not 乙's spawn.
    await page.select_option("#log-character", label="丙")
    await expect(log.locator("li:not([hidden])", has_text="传音")).to_have_count(3)
    await expect(log.locator("li:not([hidden])", has_text="乙 出生")).to_have_count(0)
    await page.select_option("#log-character", label="全部角色")
    # By kind: the Chinese labels seen so far.
    await page.select_option("#log-kind", label="出生")
    await expect(log.locator("li:not([hidden])")).to_have_count(6)
    await expect(log.locator("li:not([hidden])", has_text="传音")).to_have_count(0)
    assert errors.seen == []
    assert daphne_server.errors(since=server_log) == []
    await context.close()
