"""The live status beside a page's messages is in the browser's language: the words come from
the page (its ``data-open``/``data-closed``, translated by Django), not from the script, which
is the same file for every language. In headless Chromium on a real daphne."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from games import services as game_services
from games.models import Game
from tests.browser.conftest import WAIT_MS, LiveServer
from tests.browser.test_real_game import sync
from tests.royale.conftest import royale_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _game() -> tuple[Game, str]:
    game = royale_game("256", ("甲", "乙"))
    issued = game_services.character_passwords_generate(game=game, director=None)
    return game, next(i.secret for i in issued if i.character.name == "甲")


@pytest.mark.parametrize(
    ("locale", "connected", "closed"),
    [
        ("zh-CN", "已连接", "已断开，正在重连…"),
        ("en-US", "Connected", "Disconnected, reconnecting…"),
    ],
)
async def test_the_live_status_reads_in_the_browsers_language(
    browser: Browser, daphne_server: LiveServer, locale: str, connected: str, closed: str
) -> None:
    game, secret = await sync(_game)()
    context = await browser.new_context(base_url=daphne_server.url, locale=locale)
    context.set_default_timeout(WAIT_MS)
    await context.add_init_script(_TRACK_SOCKETS)
    try:
        page = await context.new_page()
        await page.goto(f"/play/{game.number}/")
        await page.locator("#password").fill(secret)
        await page.locator("#password").press("Enter")
        status = page.locator("#live-status")
        await expect(status).to_have_text(connected)
        # The socket drops (the server going away, say): the page says so in the same words,
        # until it has reconnected.
        await page.evaluate("() => window.__sockets.forEach((s) => s.close())")
        await expect(status).to_have_text(closed)
        await expect(status).to_have_text(connected)
    finally:
        await context.close()


# Keeps the page's websockets where the test can close them, as a dropped connection would.
_TRACK_SOCKETS = """(() => {
  const Native = window.WebSocket;
  window.__sockets = [];
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); window.__sockets.push(this); }
  };
})();"""
