"""A [061] 林峰 night on the portal, in headless Chromium at phone size (390×844) on a real
daphne. The director creates the game in the admin (HTTP), pastes the 19 马甲, deals, sets the
roles by hand and starts; the prelude and day 1 pass (the director opens and closes them). On
night 1 the 游侠 logs in, reads its role card, uses 查证 on 林1 with 公示 ticked (游侠可以选择
一名角色，反馈其属于狼人阵营、宝藏阵营和其他阵营中的哪一种，并选择是否在游戏日白天公示查证结果),
sees its submission; the director publishes the night and the open page shows, live, the result
(林1属于狼人阵营) and the public line. Screenshots: /tmp/hB_061_*.png."""

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
from tests.werewolf.engine import support_061 as seat
from tests.werewolf.engine.support_061 import SEATS
from tests.werewolf.game_061 import NAMES, STAGE
from tests.werewolf.players import Player
from werewolf import services
from werewolf.engine import get_ruleset
from werewolf.engine.state import LATE
from werewolf.selectors import werewolf_state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RULES = get_ruleset("lin_feng_061")
PHONE: ViewportSize = {"width": 390, "height": 844}
SHOTS = "/tmp/hB_061_{}.png"  # noqa: S108  (the brief asks for them there)
# Words a page may show only to their own reader, and never as code: role and skill keys.
CODE_WORDS = re.compile(r"\b(?:" + "|".join([*RULES.roles, *RULES.skills]) + r")\b")


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    return database_sync_to_async(fn)


@pytest.fixture
async def phone(browser: Browser, daphne_server: LiveServer) -> AsyncIterator[BrowserContext]:
    made = await browser.new_context(
        base_url=daphne_server.url, locale="zh-CN", viewport=PHONE, device_scale_factor=2
    )
    made.set_default_timeout(WAIT_MS)
    try:
        yield made
    finally:
        await made.close()


def night_1(
    client: Client, ballots: str = ""
) -> tuple[AdminDirector, dict[str, str], dict[int, int]]:
    """The game through the admin up to night 1's open: the prelude's picks over the API, the
    director's 开门 (day 1), 批准并发布, and 关门 — with no ballot, or the director's own count
    of ``ballots`` (手动计票) before it, the 天使's 偏爱 let pass."""
    director = AdminDirector(client)
    game = director.create(
        ruleset="lin_feng_061", number="061", title="林峰", start=timezone.localdate()
    )
    director.cast([NAMES[s] for s in SEATS])
    shown = director.credentials()
    director.room("deal")
    director.roles({NAMES[s]: role for s, role in SEATS.items()}, reason="按座位表调整身份")
    director.prepare("start")
    cast = {
        s: Player(game, NAMES[s], shown[NAMES[s]]) for s in (seat.GHOST, seat.HOSTAGE, seat.PILLAR)
    }
    ids = {s: game.characters.get(name=NAMES[s]).pk for s in SEATS}
    cast[seat.GHOST].use("possess", ids[seat.TREASURE])
    cast[seat.HOSTAGE].use("hostage", ids[seat.ANGEL])
    cast[seat.PILLAR].use("stage", *(ids[s] for s in STAGE[1]))
    cast[seat.PILLAR].act("forgo", skill="curse")
    assert werewolf_state(game=game).phase == LATE
    director.advance("导演开门")
    director.room("publish", reason="核对无误")
    if ballots:
        director.room("count", ballots=ballots, reason="论坛无法访问，手动计票")
        services.werewolf_deadlines_run(now=timezone.now() + dt.timedelta(minutes=11))
    director.advance("导演关门")
    assert werewolf_state(game=game).phase == "night"
    return director, shown, ids


def night_1_published(director: AdminDirector) -> None:
    """The scheduler's deadlines pass (the others forfeit); the director publishes."""
    assert director.game is not None
    moment = timezone.now()
    for hours in (1, 2):
        services.werewolf_deadlines_run(now=moment + dt.timedelta(hours=hours))
    assert werewolf_state(game=director.game).phase == LATE
    director.room("publish", reason="核对无误")


def others_roles(text: str) -> list[str]:
    """Role names of others ``text`` shows (faction names and the 游侠's own words taken out)."""
    return others_roles_for(text, "ranger")


def others_roles_for(text: str, mine: str) -> list[str]:
    """Role names of others ``text`` shows (faction names and the reader's own words out)."""
    # The public 票台 line's "铁柱<票台>" (the log's one role card is the reader's own: the
    # seed's deal, replaced by the director's 调整身份, sent no card).
    text = text.replace("铁柱<票台>", "")
    own = RULES.roles[mine]
    for key in own.skills:
        text = text.replace(RULES.skills[key].text, "")
    for f in sorted((f.name for f in RULES.factions.values()), key=len, reverse=True):
        text = text.replace(f, "")
    for step in RULES.night_steps:
        text = text.replace(step.name, "")
    return sorted({r.name for r in RULES.roles.values() if r.key != mine and r.name in text})


async def test_the_ranger_verifies_on_a_phone_and_sees_the_result_live(
    phone: BrowserContext, director: Any, director_client: Client, daphne_server: LiveServer
) -> None:
    server_log = daphne_server.mark()
    admin, shown, ids = await sync(night_1)(director_client)
    ranger, target = NAMES[seat.RANGER], NAMES[seat.QUEEN]
    page: Page = await phone.new_page()
    errors = PageErrors(page)

    # The 游侠 logs in with its password alone and reads its own card.
    await page.goto("/play/061/")
    await page.get_by_label("密码").fill(shown[ranger])
    await page.get_by_role("button", name="登录", exact=True).click()
    await expect(page).to_have_url(re.compile(r"/play/061/me/$"))
    await expect(page.locator("#live-status")).to_have_text("已连接")
    role = page.locator("#ww-role")
    await expect(role.locator(".ww-role-name")).to_contain_text("游侠")
    await expect(role.locator(".ww-role-name .tag")).to_have_text("野心家阵营")
    await expect(role).to_contain_text("第 1 天 · 夜晚")
    for skill in ("天罡护体", "查证", "守护", "磐石"):
        await expect(role.locator(".ww-skills")).to_contain_text(skill)
    await page.screenshot(path=SHOTS.format("1_card"), full_page=True)
    body = await page.locator("body").inner_text()
    assert others_roles(body) == []
    assert CODE_WORDS.findall(body) == []

    # 查证 on 林1, 公示 ticked.
    verify = page.locator("#ww-act form.ww-skill").filter(
        has=page.locator("input[name=skill][value=verify]")
    )
    await verify.locator("select[name=target]").select_option(str(ids[seat.QUEEN]))
    await verify.get_by_label("在白天公示查证结果").check()
    await page.screenshot(path=SHOTS.format("2_form"), full_page=True)
    await verify.get_by_role("button", name="发动").click()
    await expect(page.locator(".ww-flash")).to_contain_text("已提交。")
    await expect(page.locator("#ww-log")).to_contain_text(f"查证 → {target}")
    await page.screenshot(path=SHOTS.format("3_submitted"), full_page=True)
    state = await sync(werewolf_state)(game=admin.game)
    assert state.night["subs"]["verify"] == {
        str(ids[seat.RANGER]): {"targets": [ids[seat.QUEEN]], "option": "publish"}
    }
    await expect(page.locator("#ww-feedback")).to_have_count(0)  # nothing before the day

    # The director publishes; the page shows the result and the public line without a reload.
    await page.evaluate("() => { window.stillThisDocument = true; }")
    await sync(night_1_published)(admin)
    # 游戏日夜晚: the night after day 1 is 第 1 夜, though day 2 is open when it is told.
    await expect(page.locator("#ww-feedback")).to_contain_text(f"第 1 夜：{target}属于狼人阵营。")
    await expect(page.locator("#ww-log")).to_contain_text(
        f"游侠公示查证结果：{target}属于狼人阵营。"
    )
    await expect(role).to_contain_text("第 2 天 · 白天")
    assert await page.evaluate("() => window.stillThisDocument") is True
    await page.screenshot(path=SHOTS.format("4_result"), full_page=True)
    body = await page.locator("body").inner_text()
    assert others_roles(body) == [], others_roles(body)
    assert CODE_WORDS.findall(body) == []
    # Nothing wider than the phone: no sideways scrolling.
    width = await page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width

    assert errors.seen == []
    assert daphne_server.errors(since=server_log) == [], daphne_server.log_text()[-3000:]


async def test_the_keeper_picks_its_soul_until_the_next_night_on_a_phone(
    phone: BrowserContext, director: Any, director_client: Client, daphne_server: LiveServer
) -> None:
    """<勾魂>：每当有狼人阵营的玩家出局时，仅在下一个游戏日夜晚开始前，守宝人可选择一名玩家… The
    狼王 voted out on day 1 (the director's count); in night 1 the 守宝人's portal offers 勾魂
    with its real deadline in words — not a clock time — and takes the pick."""
    server_log = daphne_server.mark()
    ballots = "\n".join(
        f"{NAMES[v]} {NAMES[seat.KING]}" for v in (seat.FOX, seat.PSYCHIC, seat.ANGEL)
    )
    admin, shown, ids = await sync(night_1)(director_client, ballots)
    state = await sync(werewolf_state)(game=admin.game)
    assert not state.players[ids[seat.KING]].alive
    keeper = NAMES[seat.KEEPER]
    page: Page = await phone.new_page()
    errors = PageErrors(page)
    await page.goto("/play/061/")
    await page.get_by_label("密码").fill(shown[keeper])
    await page.get_by_role("button", name="登录", exact=True).click()
    await expect(page).to_have_url(re.compile(r"/play/061/me/$"))
    soul = page.locator("#ww-act form.ww-skill").filter(
        has=page.locator("input[name=skill][value=soul]")
    )
    await expect(soul).to_contain_text("勾魂")
    await expect(soul).to_contain_text("截止：下一个夜晚开始（关门）前")
    await expect(soul.locator(".ww-countdown")).to_have_count(0)
    await page.screenshot(path=SHOTS.format("5_soul"), full_page=True)
    await soul.locator("select[name=target]").select_option(str(ids[seat.FOX]))
    await soul.get_by_role("button", name="发动").click()
    await expect(page.locator(".ww-flash")).to_contain_text("已提交。")
    await expect(page.locator("#ww-log")).to_contain_text(f"勾魂 → {NAMES[seat.FOX]}")
    await page.screenshot(path=SHOTS.format("6_soul_submitted"), full_page=True)
    body = await page.locator("body").inner_text()
    assert others_roles_for(body, "keeper") == []
    assert errors.seen == []
    assert daphne_server.errors(since=server_log) == [], daphne_server.log_text()[-3000:]
