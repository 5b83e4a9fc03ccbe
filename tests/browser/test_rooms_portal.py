"""The players' rooms on the portal (issue 18), in headless Chromium on a real daphne: tabs with
unread counts, messages live over the page's socket, posting with the answer shown once, the
error where the player acted, the muted lobby without a form, a room joined while the page is
open (a royale call accepted) and one left (the call's day closes, a red card) changing the tabs
at once, and a page that missed frames fetching them after it reconnects. A reader outside a
room never gets a word of it: not in its page, not in its socket's frames.

The [099] game is made the way a director makes one, page by page in the admin (as
test_real_game_099.py); the royale one by the services, as a night and a day would leave it
(the royale test runs first: the admin's content types are then fresh for the [099] one, see
test_real_game.py on one server living through a flush). Screenshots for a person to look at:
``/tmp/hA_rooms_*.png``.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from playwright.async_api import Browser, BrowserContext, Page, ViewportSize, WebSocketRoute, expect

from games import card_services
from games import services as game_services
from games.models import Character, Game, RoomMember, TimetableOverride
from royale import services as royale_services
from royale.models import RoyaleGame
from tests.browser.conftest import WAIT_MS, LiveServer, PageErrors
from tests.browser.test_real_game import (
    DIRECTOR,
    SERVER,
    admin_login,
    cast_import,
    credentials,
    director_account,
    forum_site_add,
    game_add,
    signup_thread,
    start,
    sync,
)
from tests.games.forum.fake_forum import FakeForum
from tests.royale.conftest import give, royale_game, state_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
# for a person to look at: /tmp/hA_rooms_<name>.png
SHOT = str(Path(tempfile.gettempdir()) / "hA_rooms_{}.png")
CLOCK = re.compile(r"^\d\d:\d\d$")
# What a player's rooms must never show: codes, JSON, the tokens' ids, Unix times.
LEAKS = re.compile(r"room_\w+|[{}]|\"kind\"|\b\d{9,}\b|undefined|null|NaN|\{n\}")
PACK_WORDS = "今晚先刀十号PACK7731"
PACK_REPLY = "同意，我明天跳预言家PACK4410"
PACK_MISSED = "断线时说的话PACK9052"
QUESTION = "白痴被投出后还能投票吗Q5521"
ANSWER = "不能投票，但可以发言A9034"
CALL_WORDS = "我在医院等你CALL7731"


class Relay:
    """A page's websocket through Playwright: every frame the server sends is recorded (what
    the reader received) and passed on, unless ``drop`` says to lose it (a push lost at most
    once, or a connection about to break); ``cut`` breaks the connection (the page reconnects)."""

    def __init__(self) -> None:
        self.frames: list[str] = []
        self.drop = False
        self.open: list[tuple[WebSocketRoute, WebSocketRoute]] = []

    def handler(self, page_side: WebSocketRoute) -> None:
        server = page_side.connect_to_server()

        def down(message: str | bytes) -> None:
            text = message if isinstance(message, str) else message.decode()
            self.frames.append(text)
            if not self.drop:
                page_side.send(message)

        server.on_message(down)
        page_side.on_message(server.send)
        self.open.append((page_side, server))

    async def cut(self) -> None:
        routes, self.open = self.open, []
        for page_side, server in routes:
            for side in (server, page_side):
                closing = side.close()  # the server side's close is not awaitable
                if inspect.isawaitable(closing):
                    await closing

    def text(self) -> str:
        return "\n".join(self.frames)


async def reader(
    browser: Browser, server: LiveServer, size: ViewportSize
) -> tuple[BrowserContext, Relay]:
    phone = size == PHONE
    made = await browser.new_context(
        base_url=server.url,
        locale="zh-CN",
        timezone_id="Asia/Shanghai",
        viewport=size,
        is_mobile=phone,
        has_touch=phone,
    )
    made.set_default_timeout(WAIT_MS)
    relay = Relay()
    await made.route_web_socket(re.compile(r"/ws/games/"), relay.handler)
    return made, relay


async def log_in(context: BrowserContext, number: str, secret: str) -> Page:
    page = await context.new_page()
    await page.goto(f"/play/{number}/")
    await page.get_by_label("密码").fill(secret)
    await page.get_by_role("button", name="登录", exact=True).click()
    await expect(page).to_have_url(re.compile(rf"/play/{number}/me/"))
    await expect(page.locator("#live-status")).to_have_text("已连接")
    return page


def tab(page: Page, name: str) -> Any:
    return page.locator("#rooms .rooms-tab").filter(
        has=page.locator(".rooms-tab-name", has_text=name)
    )


def pane(page: Page) -> Any:
    """The room shown now."""
    return page.locator("#rooms .rooms-pane:not([hidden])")


async def say(page: Page, text: str, topic: str | None = None) -> None:
    shown = pane(page)
    if topic:
        await shown.locator("select[name=topic]").select_option(label=topic)
    await shown.locator("textarea[name=body]").fill(text)
    await shown.get_by_role("button", name="发送").click()


async def shot(page: Page, name: str) -> None:
    await page.screenshot(path=SHOT.format(name), full_page=True)
    await page.locator("#rooms").screenshot(path=SHOT.format(f"{name}_panel"))


async def fits(page: Page) -> None:
    """Nothing wider than the screen: the page does not scroll sideways, the panel is inside
    it, and the tabs scroll within their own strip."""
    width = await page.evaluate("window.innerWidth")
    assert await page.evaluate("document.documentElement.scrollWidth") <= width
    box = await page.locator("#rooms").bounding_box()
    assert box is not None
    assert box["x"] >= 0, box
    assert box["x"] + box["width"] <= width, box
    strip = page.locator("#rooms .rooms-tabs")
    assert await strip.evaluate("el => getComputedStyle(el).overflowX") == "auto"
    for one in await page.locator("#rooms .rooms-tab").all():
        tab_box = await one.bounding_box()
        assert tab_box is not None
        assert tab_box["height"] >= 36, tab_box  # a finger's size


async def clean(page: Page) -> str:
    text = await page.locator("#rooms").inner_text()
    found = LEAKS.search(text)
    assert found is None, (found, text)
    return text


async def times_ok(page: Page) -> None:
    for stamp in await page.locator("#rooms .rooms-msg .rooms-time").all_inner_texts():
        assert CLOCK.match(stamp), stamp


def expected_only(errors: PageErrors, *allowed: str) -> list[str]:
    """The page's errors but the refusals the test asked for (a 400 of an empty message)."""
    return [e for e in errors.seen if not any(a in e for a in allowed)]


# --- royale: a call's room comes and goes while the pages are open ------------------------------


def royale_day_two(now: datetime) -> tuple[Game, dict[str, str], int]:
    """[256] with 甲 乙 丙 spawned on night 1, day 2 open now (till 8 hours from now), 甲
    holding a 电话; their passwords; the phone's item id."""
    game = royale_game("256", ("甲", "乙", "丙"))
    game.start_date = timezone.localdate(now - timedelta(hours=4))
    game.save(update_fields=["start_date"])
    RoyaleGame.objects.filter(pk=game.pk).update(auto_publish=True)
    moments = {
        (1, "day_open"): now - timedelta(hours=4),
        (1, "day_close"): now - timedelta(hours=3),
        (1, "night_open"): now - timedelta(hours=2),
        (1, "night_end"): now - timedelta(minutes=90),
        (1, "night_close"): now - timedelta(minutes=80),
        (2, "day_open"): now - timedelta(minutes=10),
        (2, "day_close"): now + timedelta(hours=8),
    }
    TimetableOverride.objects.bulk_create(
        TimetableOverride(game=game, day=day, kind=kind, at=at)
        for (day, kind), at in moments.items()
    )
    night = now - timedelta(minutes=100)
    game_services.transitions_run_due(now=night)
    ids = dict(Character.objects.filter(game=game).values_list("name", "pk"))
    for name, place in (("甲", "医院"), ("乙", "监狱"), ("丙", "墓地")):
        royale_services.action_submit(
            game_id=game.pk,
            character_id=ids[name],
            data={"kind": "spawn", "place": place},
            key=None,
            now=night,
        )
    game_services.transitions_run_due(now=now)
    # before any page has read the state (a server keeps the state it read by the log's number)
    phone = give(game, "甲", "tool:电话")
    issued = game_services.character_passwords_generate(game=game, director=None)
    return Game.objects.get(pk=game.pk), {i.character.name: i.secret for i in issued}, phone


def call_accepted(game: Game, phone: int) -> None:
    ids = dict(Character.objects.filter(game=game).values_list("name", "pk"))

    def act(name: str, data: dict[str, Any]) -> None:
        royale_services.action_submit(
            game_id=game.pk, character_id=ids[name], data=data, key=None, now=timezone.now()
        )

    act("甲", {"kind": "phone", "item": phone, "target": "乙"})
    call = state_of(game).calls[-1]
    act("乙", {"kind": "answer_phone", "call": call.id, "accept": True})


def day_two_closes(game: Game, now: datetime) -> None:
    game_services.transitions_run_due(now=now + timedelta(hours=8, minutes=1))


async def test_a_royale_call_adds_its_tab_live_and_the_day_close_takes_it(
    browser: Browser, daphne_server: LiveServer
) -> None:
    server_log = daphne_server.mark()
    now = timezone.now()
    game, secrets, phone = await sync(royale_day_two)(now)
    pages: dict[str, Page] = {}
    relays: dict[str, Relay] = {}
    errors: dict[str, PageErrors] = {}
    for name, size in (("甲", PHONE), ("乙", DESKTOP), ("丙", PHONE)):
        context, relays[name] = await reader(browser, daphne_server, size)
        pages[name] = await log_in(context, game.number, secrets[name])
        errors[name] = PageErrors(pages[name])
    caller, callee, other = pages["甲"], pages["乙"], pages["丙"]
    for page in pages.values():
        await expect(page.locator("#rooms .rooms-tab-name")).to_have_text(["私聊导演", "联谊群"])
    # the lobby while the game runs: why, and no form
    await tab(caller, "联谊群").click()
    await expect(pane(caller).locator(".rooms-why")).to_have_text(
        "游戏进行中，联谊群禁言，只有导演可以发言。"
    )
    await expect(pane(caller).locator("form, textarea")).to_have_count(0)
    await fits(caller)
    await shot(caller, "royale_lobby_muted_phone")
    # on a phone the panel is far down the page: the page's own tabs lead to it
    await caller.evaluate("window.scrollTo(0, 0)")
    await caller.screenshot(path=SHOT.format("royale_top_phone"))
    await caller.locator("nav.r-tabs").get_by_role("link", name="群聊").click()
    await expect(caller.locator("#rooms")).to_be_in_viewport()
    await caller.wait_for_function(
        "document.querySelector('#rooms-title').getBoundingClientRect().top >="
        " document.querySelector('nav.r-tabs').getBoundingClientRect().bottom"
    )  # the heading is not under the sticky tabs
    await caller.screenshot(path=SHOT.format("royale_rooms_link_phone"))

    await sync(call_accepted)(game, phone)
    # the call's room arrives on both ends' open pages, first in the row; 丙's stays as it was
    room_name = "通话：甲 与 乙"
    for page in (caller, callee):
        await expect(page.locator("#rooms .rooms-tab-name")).to_have_text(
            [room_name, "私聊导演", "联谊群"]
        )
    await tab(caller, room_name).click()
    await expect(pane(caller).locator(".rooms-note").first).to_contain_text("加入了")
    await say(caller, CALL_WORDS)
    await expect(pane(caller).locator(".rooms-msg")).to_have_count(1)
    await expect(pane(caller).locator(".rooms-msg .rooms-text")).to_have_text(CALL_WORDS)
    # 乙 is on its inbox (the page opened there): the call's tab counts what came
    await expect(tab(callee, room_name).locator(".rooms-unread")).to_have_text("1")
    await shot(callee, "royale_call_unread_desktop")
    await tab(callee, room_name).click()
    await expect(pane(callee).locator(".rooms-msg")).to_have_count(1)
    await expect(pane(callee).locator(".rooms-author")).to_have_text("甲")
    await expect(tab(callee, room_name).locator(".rooms-unread")).to_be_hidden()
    await expect(pane(caller).locator(".rooms-msg")).to_have_count(1)  # once, not twice
    await times_ok(caller)
    await clean(caller)
    await fits(caller)
    await shot(caller, "royale_call_phone")

    # 至投票结束: the day's close ends the call; the tab goes at once, the page says why
    await sync(day_two_closes)(game, now)
    for page in (caller, callee):
        await expect(tab(page, room_name)).to_have_count(0)
        await expect(page.locator("#rooms-notice")).to_have_text(
            f"你已不在{room_name}中，此后不会再收到其中的消息"
        )
        await expect(pane(page)).to_have_count(1)  # another room is shown in its place
        # said once, by the panel: not again in the page's log
        await expect(page.get_by_text("此后不会再收到其中的消息")).to_have_count(1)
    await shot(caller, "royale_call_ended_phone")

    # 丙 read nothing of it: not on its page, not in its socket's frames
    assert CALL_WORDS not in await other.content()
    assert "通话：" not in await other.content()
    assert CALL_WORDS not in relays["丙"].text()
    assert "通话：" not in relays["丙"].text()
    assert CALL_WORDS in relays["乙"].text()
    for name, seen in errors.items():
        assert seen.seen == [], (name, seen.seen)
    assert daphne_server.errors(since=server_log) == [], daphne_server.log_text()[-3000:]


# --- [099]: the pack, the inbox and the muted lobby of a game a director made ------------------


def pack_of(game: Game) -> list[str]:
    return sorted(
        RoomMember.objects.filter(
            room__game=game, room__name="狼群", left_at__isnull=True
        ).values_list("character__name", flat=True)
    )


def red_card(game: Game, name: str) -> None:
    """A director's red card, confirmed by the staff: 红牌罚下 (the rooms let the player go)."""
    from django.contrib.auth.models import User

    director = User.objects.get(username=DIRECTOR)
    staff = User.objects.create_user("版务甲", is_staff=True)
    card = card_services.card_add(
        game=game,
        director=director,
        character=Character.objects.get(game=game, name=name),
        color="red",
        reason="11.1",
    )
    card_services.cards_review(cards=[card], reviewer=staff, confirm=True, reason="审核通过")


async def a_099_game(page: Page, fake_forum: FakeForum) -> dict[str, str]:
    """The director's pages: create, import 18 sign-ups, credentials, 发身份 and genders, start."""
    await sync(director_account)()
    names = [f"干员{n}" for n in range(1, 19)]
    tid = signup_thread(fake_forum, "[099] 明日方舟 报名帖", names)
    await admin_login(page)
    await forum_site_add(page, fake_forum)
    prepare_url = await game_add(
        page, kind="werewolf", ruleset="arknights_099", number="099", title="明日方舟", tid=tid
    )
    await cast_import(page, names)
    shown = await credentials(page)
    await page.goto(prepare_url)
    await page.locator("#deal a").click()
    await page.locator("#f-deal button").click()
    auction = page.locator("#f-auction")
    for index, select in enumerate(await auction.locator("select[name^=gender]").all()):
        await select.select_option("男" if index % 2 else "女")
    await auction.locator("input[name=reason]").fill("按马甲录入性别")
    await auction.locator("button").click()
    await expect(page.locator(".messagelist")).to_contain_text("性别与竞拍结果已录入。")
    await start(page, prepare_url)
    return shown


async def test_the_pack_talks_live_the_inbox_answers_and_others_read_nothing(
    browser: Browser, daphne_server: LiveServer, fake_forum: FakeForum
) -> None:
    server_log = daphne_server.mark()
    SERVER[:] = [daphne_server]
    desk, _relay = await reader(browser, daphne_server, DESKTOP)
    director = await desk.new_page()
    director_errors = PageErrors(director)
    shown = await a_099_game(director, fake_forum)
    game = await sync(Game.objects.get)(number="099")
    pack = await sync(pack_of)(game)
    assert len(pack) >= 2
    first, second = pack[0], pack[1]
    villager = next(name for name in shown if name not in pack)

    a_context, a_relay = await reader(browser, daphne_server, PHONE)
    b_context, b_relay = await reader(browser, daphne_server, DESKTOP)
    v_context, v_relay = await reader(browser, daphne_server, PHONE)
    a = await log_in(a_context, "099", shown[first])
    b = await log_in(b_context, "099", shown[second])
    v = await log_in(v_context, "099", shown[villager])
    a_errors, b_errors, v_errors = PageErrors(a), PageErrors(b), PageErrors(v)

    # Each reader's own rooms, the groups first; the villager has no 狼群.
    for page in (a, b):
        await expect(page.locator("#rooms .rooms-tab-name")).to_have_text(
            ["狼群", "私聊导演", "联谊群"]
        )
    await expect(v.locator("#rooms .rooms-tab-name")).to_have_text(["私聊导演", "联谊群"])

    # 游戏开始之后，联谊群禁言: the lobby says so where the form would be, and has no form.
    await tab(v, "联谊群").click()
    await expect(pane(v).locator(".rooms-why")).to_have_text(
        "游戏进行中，联谊群禁言，只有导演可以发言。"
    )
    await expect(pane(v).locator("form, textarea, button")).to_have_count(0)
    await fits(v)
    await shot(v, "lobby_muted_phone")
    await tab(v, "私聊导演").click()

    # The pack talks: b waits on the lobby, a writes; b's 狼群 tab counts it, live.
    await tab(b, "联谊群").click()
    await say(a, PACK_WORDS)
    mine = pane(a).locator(".rooms-msg")
    await expect(mine).to_have_count(1)
    await expect(mine.locator(".rooms-author")).to_have_text(first)
    await expect(mine.locator(".rooms-text")).to_have_text(PACK_WORDS)
    await expect(mine).to_have_class(re.compile(r"\bmine\b"))
    await expect(pane(a).locator("textarea")).to_have_value("")
    unread = tab(b, "狼群").locator(".rooms-unread")
    await expect(unread).to_have_text("1")
    await expect(unread).to_be_visible()
    await shot(b, "pack_unread_desktop")
    await tab(b, "狼群").click()
    await expect(pane(b).locator(".rooms-msg .rooms-text")).to_have_text([PACK_WORDS])
    await expect(unread).to_be_hidden()
    await say(b, PACK_REPLY)
    # a reads the reply where it is, without a reload; its own message is there once
    await expect(pane(a).locator(".rooms-msg .rooms-text")).to_have_text([PACK_WORDS, PACK_REPLY])
    await expect(tab(a, "狼群").locator(".rooms-unread")).to_be_hidden()
    await expect(pane(b).locator(".rooms-msg .rooms-text")).to_have_text([PACK_WORDS, PACK_REPLY])
    await times_ok(a)

    # A refusal is told under the form where the player pressed 发送, in Chinese.
    await say(a, "   ")
    await expect(pane(a).locator(".rooms-error")).to_have_text("消息不能为空。")
    await expect(pane(a).locator(".rooms-msg")).to_have_count(2)
    await fits(a)
    await shot(a, "pack_error_phone")
    await say(a, "好")
    await expect(pane(a).locator(".rooms-error")).to_be_hidden()
    await expect(pane(a).locator(".rooms-msg")).to_have_count(3)
    await clean(a)

    # Frames lost while b's connection breaks: the page reconnects, the hello's heads say what
    # it lacks, and the message is fetched (?after=N) and counted on the tab.
    await tab(b, "联谊群").click()
    b_relay.drop = True
    await say(a, PACK_MISSED)
    await expect(pane(a).locator(".rooms-msg")).to_have_count(4)
    await asyncio.sleep(0.5)
    assert await b.locator("#rooms .rooms-msg").count() == 3
    await b_relay.cut()
    b_relay.drop = False
    await expect(tab(b, "狼群").locator(".rooms-unread")).to_have_text("1")  # 好 was read
    await tab(b, "狼群").click()
    await expect(pane(b).locator(".rooms-msg .rooms-text")).to_have_text(
        [PACK_WORDS, PACK_REPLY, "好", PACK_MISSED]
    )

    # 私聊导演: the villager asks with a topic; the director reads it in the control room and
    # answers there; the villager, now on the lobby, sees the inbox's count, then the answer.
    await say(v, QUESTION, topic="规则提问")
    await expect(pane(v).locator(".rooms-msg .rooms-text")).to_have_text([QUESTION])
    await expect(pane(v).locator(".rooms-topic-tag")).to_have_text(["规则提问"])
    await tab(v, "联谊群").click()
    await director.goto(f"/admin/werewolf/werewolfgame/{game.pk}/night/")
    await expect(director.locator("#rooms-log")).to_contain_text(
        f"{villager}：【规则提问】{QUESTION}"
    )
    await director.locator("#rooms-target").select_option(label=f"私聊导演 · {villager}")
    await director.locator("#rooms-body").fill(ANSWER)
    await director.locator("#rooms-compose").get_by_role("button", name="发送").click()
    await expect(tab(v, "私聊导演").locator(".rooms-unread")).to_have_text("1")
    await fits(v)
    await shot(v, "inbox_unread_phone")
    await tab(v, "私聊导演").click()
    answer = pane(v).locator(".rooms-msg").nth(1)
    await expect(answer.locator(".rooms-author")).to_have_text(f"导演 {DIRECTOR}")
    await expect(answer.locator(".rooms-text")).to_have_text(ANSWER)
    await expect(answer).to_have_class(re.compile(r"\bdirector\b"))
    await times_ok(v)
    await clean(v)
    await shot(v, "inbox_answer_phone")

    # The villager never read the pack: not in the page, not in a frame.
    page_html = await v.content()
    for words in (PACK_WORDS, PACK_REPLY, PACK_MISSED):
        assert words not in page_html
        assert words not in v_relay.text()
    assert "狼群" not in (await v.locator("#rooms").inner_html())
    assert QUESTION not in a_relay.text()
    assert ANSWER not in (await a.content())

    # 红牌罚下: b leaves the pack at once; its tab goes and the page says why; a reads it.
    await tab(b, "狼群").click()
    await sync(red_card)(game, second)
    await expect(tab(b, "狼群")).to_have_count(0)
    await expect(b.locator("#rooms-notice")).to_have_text(
        "你已不在狼群中，此后不会再收到其中的消息"
    )
    await expect(pane(b)).to_have_count(1)
    await expect(pane(a).locator(".rooms-note").last).to_have_text(f"{second} 已被移出狼群")
    await shot(b, "pack_removed_desktop")
    await shot(a, "pack_phone")
    await fits(a)

    assert expected_only(a_errors, "400 POST") == []
    for errors in (b_errors, v_errors, director_errors):
        assert errors.seen == []
    assert daphne_server.errors(since=server_log) == [], daphne_server.log_text()[-3000:]
