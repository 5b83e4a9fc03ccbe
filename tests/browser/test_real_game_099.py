"""[099] from an empty database through the admin and the portal (see test_real_game.py): create,
import the 18 sign-ups, credentials, 发身份 and the 马甲's genders in the night room, start; the
seer submits 预言 on the portal; the director ends the game; the archive shows every role."""

from __future__ import annotations

import pytest
from playwright.async_api import BrowserContext, Page, expect

from games.models import Game
from tests.browser.conftest import LiveServer, PageErrors
from tests.browser.test_real_game import (
    SERVER,
    admin_login,
    cast_import,
    changelist_action,
    credentials,
    director_account,
    forum_site_add,
    game_add,
    player_login,
    signup_thread,
    start,
    sync,
)
from tests.games.forum.fake_forum import FakeForum
from werewolf.selectors import werewolf_state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


async def test_a_099_game_from_sign_up_to_archive(
    page: Page, context: BrowserContext, daphne_server: LiveServer, fake_forum: FakeForum
) -> None:
    server_log = daphne_server.mark()
    SERVER[:] = [daphne_server]
    errors = PageErrors(page)
    await sync(director_account)()
    names = [f"干员{n}" for n in range(1, 19)]  # [099]: 18 players
    tid = signup_thread(fake_forum, "[099] 明日方舟 报名帖", names)

    await admin_login(page)
    await forum_site_add(page, fake_forum)
    prepare_url = await game_add(
        page, kind="werewolf", ruleset="arknights_099", number="099", title="明日方舟", tid=tid
    )
    await cast_import(page, names)
    shown = await credentials(page)

    # 发身份 in the night room, then each 马甲's gender (the 梦中人 needs them), then 开始.
    await page.goto(prepare_url)
    await page.locator("#deal a").click()
    await page.locator("#f-deal button").click()
    auction = page.locator("#f-auction")
    for index, select in enumerate(await auction.locator("select[name^=gender]").all()):
        await select.select_option("男" if index % 2 else "女")
    await auction.locator("input[name=reason]").fill("按马甲录入性别")
    await auction.locator("button").click()
    # The genders are saved before the start page is opened (its checklist reads them).
    await expect(page.locator(".messagelist")).to_contain_text("性别与竞拍结果已录入。")
    await start(page, prepare_url)

    game = await sync(Game.objects.get)(number="099")
    state = await sync(werewolf_state)(game=game)
    seer = next(p for p in state.players.values() if p.role == "seer")
    target = next(p for p in state.players.values() if p.id != seer.id)
    player = await player_login(context, "099", shown[seer.name])
    await expect(player.locator("#ww-role .ww-role-name")).to_contain_text("先知")
    divine = player.locator("#ww-act form.ww-skill").filter(
        has=player.locator("input[name=skill][value=divine]")
    )
    await divine.locator("select[name=target]").select_option(str(target.id))
    await divine.get_by_role("button", name="发动").click()
    await expect(player.locator(".ww-flash")).to_contain_text("已提交。")

    await changelist_action(page, game, "finish", "测试结束")
    archive = await context.new_page()
    await archive.goto("/games/099/archive/")
    await expect(archive.locator("#seed")).to_contain_text(game.seed)
    roster = archive.locator("#reveal")
    await expect(roster).to_contain_text("先知")
    await expect(roster).to_contain_text(seer.name)
    # Night 1's log, with the seer's 预言 (the role cards, sent as it opened, are in it too).
    await archive.get_by_role("link", name="第 1 天").click()
    await expect(archive.locator("body")).to_contain_text(f"{seer.name} 提交[预言]")

    assert errors.seen == []
    assert daphne_server.errors(since=server_log) == [], daphne_server.log_text()[-3000:]
