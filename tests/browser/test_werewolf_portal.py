"""The role game's portal (/play/<n>/me/) in a real browser, on a real daphne: a player logs in
through the login page, sees its own role card and nobody else's role, submits its night skill
through the page's form, and the director's publication reaches the open page live (the
websocket push makes ``static/js/werewolf.js`` redraw the state region), without a reload."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone
from playwright.async_api import Page, WebSocket, expect

from games import services as game_services
from games.models import Character, Game
from tests.browser.conftest import LiveServer, PageErrors
from tests.werewolf.engine.support import SEATS
from tests.werewolf.players import werewolf_game
from werewolf import services
from werewolf.engine import get_ruleset
from werewolf.engine.state import LATE
from werewolf.selectors import werewolf_state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RULES = get_ruleset("arknights_099")
SEER, WOLF = 6, 1  # seats of tests/werewolf/players.py: P6 先知, P1 狼人
CONNECTED = "已连接"  # werewolf.js's live status once the socket is open


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    return database_sync_to_async(fn)


def night_1_open(director: Any) -> tuple[Game, dict[int, int]]:
    """A dealt [099] game (tests/werewolf/players.py's seats), night 1 open now."""
    game, ids = werewolf_game()
    game.directors.add(director)
    services.werewolf_start(game=game, director=director)
    return game, ids


def password(game: Game, character_id: int) -> str:
    (issued,) = game_services.character_passwords_generate(
        game=game, director=None, characters=[Character.objects.get(pk=character_id)]
    )
    return issued.secret


def night_closed(game: Game) -> None:
    """Every step still open is forfeited by the scheduler, an hour at a time, until the
    night is drafted (as the deadlines task would)."""
    moment = timezone.now()
    for _ in range(24):
        if werewolf_state(game=game).phase == LATE:
            return
        moment += timedelta(hours=1)
        services.werewolf_deadlines_run(now=moment)
    raise AssertionError(f"night not drafted: {werewolf_state(game=game).phase}")


def leaked_roles(text: str, role: str) -> list[str]:
    """The names of roles other than ``role`` that ``text`` mentions. The reader's own faction
    name is taken out first (先知's is 村民阵营, which names no one's role)."""
    mine = RULES.roles[role]
    text = text.replace(RULES.factions[mine.faction].name, "")
    return sorted({r.name for r in RULES.roles.values() if r.key != role and r.name in text})


def frames_of(page: Page) -> list[str]:
    """Every websocket frame the page receives from now on, as text."""
    frames: list[str] = []

    def watch(socket: WebSocket) -> None:
        socket.on(
            "framereceived",
            lambda payload: frames.append(
                payload if isinstance(payload, str) else payload.decode()
            ),
        )

    page.on("websocket", watch)
    return frames


async def log_in(page: Page, game: Game, secret: str) -> None:
    """Through the login page, as a player does; lands on the portal with its socket open."""
    await page.goto(f"/play/{game.number}/")
    await page.get_by_label("密码").fill(secret)
    await page.get_by_role("button", name="登录", exact=True).click()
    await expect(page).to_have_url(re.compile(rf"/play/{game.number}/me/$"))
    await expect(page.locator("#live-status")).to_have_text(CONNECTED)


async def test_the_seer_acts_and_sees_the_night_published_live(
    page: Page, director: Any, daphne_server: LiveServer
) -> None:
    server_log = daphne_server.mark()
    errors = PageErrors(page)
    frames = frames_of(page)
    game, ids = await sync(night_1_open)(director)
    assert SEATS[SEER] == "seer"
    assert SEATS[WOLF] == "wolf"
    seer, wolf = f"P{SEER}", f"P{WOLF}"

    # 1. The seer logs in and reads its own card, and nobody else's role.
    await log_in(page, game, await sync(password)(game, ids[SEER]))
    await expect(page.locator("h1")).to_have_text(seer)
    role = page.locator("#ww-role")
    await expect(role.locator(".ww-role-name")).to_contain_text("先知")
    await expect(role).to_contain_text("第 1 天 · 夜晚")
    await expect(role.locator(".ww-skills")).to_contain_text("预言")
    assert leaked_roles(await page.locator("body").inner_text(), "seer") == []
    assert leaked_roles(await page.content(), "seer") == []  # attributes, scripts, JSON too
    await expect(page.locator("#ww-team")).to_have_count(0)  # a wolf's section only

    # 2. 预言 on P1 through the page's form: the confirmation, and the log line. The form goes
    # over the open socket (static/js/act.js): no POST, no new page, the socket's answer.
    await page.evaluate("() => { window.stillThisDocument = true; }")
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    divine = page.locator("#ww-act form.ww-skill").filter(
        has=page.locator("input[name=skill][value=divine]")
    )
    await divine.locator("select[name=target]").select_option(str(ids[WOLF]))
    await divine.get_by_role("button", name="发动").click()
    await expect(page.locator(".ww-flash")).to_contain_text("已提交。")
    await expect(page.locator("#ww-log")).to_contain_text(f"已提交 预言 → {wolf}")
    await expect(page.locator("#live-status")).to_have_text(CONNECTED)
    state = await sync(werewolf_state)(game=game)
    assert state.night["subs"]["divine"] == {str(ids[SEER]): ids[WOLF]}
    assert posted == []
    assert await page.evaluate("() => window.stillThisDocument") is True
    answers = [json.loads(f) for f in frames if json.loads(f).get("type") == "answer"]
    assert [(a["status"], [e["kind"] for e in a["answer"]["events"]]) for a in answers] == [
        (200, ["submitted"])
    ]
    assert leaked_roles(await page.content(), "seer") == []
    await expect(page.locator("#ww-feedback")).to_have_count(0)  # nothing before the day

    # 3. The director closes, drafts and publishes the night from here; the open page
    # follows without a reload (the marker set on this document survives).
    await page.evaluate("() => { window.stillThisDocument = true; }")
    frames.clear()
    await sync(night_closed)(game)
    draft = await sync(services.werewolf_night_resolve)(game=game, director=director)
    assert draft["trace"]
    # Everything the seer's socket carried until now told no role.
    assert leaked_roles("\n".join(frames), "seer") == []
    await sync(services.werewolf_night_publish)(game=game, director=director, reason="")

    await expect(page.locator("#ww-feedback")).to_contain_text(f"第 1 夜：{wolf} — 狼人")
    await expect(role).to_contain_text("第 1 天 · 白天")
    await expect(page.locator("#ww-log")).to_contain_text(f"预言：{wolf} 是 狼人")
    await expect(page.locator("#ww-log")).to_contain_text("第 1 天开始，昨夜出局：无人")
    assert await page.evaluate("() => window.stillThisDocument") is True
    kinds = {json.loads(f).get("kind") for f in frames}
    assert {"day_open", "feedback"} <= kinds  # it came over the socket, as pushed
    # The wolf's role is the seer's to know now; every other role still is not.
    assert leaked_roles(await page.locator("body").inner_text(), "seer") == ["狼人"]

    assert errors.seen == []
    assert daphne_server.errors(since=server_log) == []


async def test_a_wolf_sees_its_teammates_pick_arrive_live(
    page: Page, director: Any, daphne_server: LiveServer
) -> None:
    server_log = daphne_server.mark()
    errors = PageErrors(page)
    game, ids = await sync(night_1_open)(director)
    mate = 2
    assert SEATS[mate] == "wolf"

    await log_in(page, game, await sync(password)(game, ids[WOLF]))
    team = page.locator("#ww-team")
    await expect(team).to_contain_text("P2")
    assert leaked_roles(await page.content(), "wolf") == []
    await page.evaluate("() => { window.stillThisDocument = true; }")

    # P2 votes for P1 as 主刀狼 from its own portal (here: the service that page posts to).
    await sync(services.werewolf_action_submit)(
        game_id=game.pk,
        character_id=ids[mate],
        data={"kind": "use_skill", "skill": "elect", "targets": [ids[WOLF]]},
        key=None,
        now=timezone.now(),
    )
    await expect(team).to_contain_text(f"P{mate}：选举 → P{WOLF}")
    assert await page.evaluate("() => window.stillThisDocument") is True
    assert leaked_roles(await page.content(), "wolf") == []

    assert errors.seen == []
    assert daphne_server.errors(since=server_log) == []
