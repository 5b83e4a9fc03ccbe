"""Royale live: players acting over HTTP or their websockets, and the scheduled night close.

Runnable alone (``python tests/bench/bench_royale_live.py``) or through ``make bench``. It uses a
database of its own (a temporary SQLite file, or a fresh database on the PostgreSQL server of
DATABASE_URL, dropped afterwards), Redis at REDIS_URL or an embedded one, and daphne processes
on free ports of 127.0.0.1 (--servers, default 2: one per core; each game's players all use one
of them, as behind a proxy that routes by game).

Load model. Every player is a bot in this process with a keep-alive HTTP connection and a
websocket of its own (session cookie, Origin header), like a browser tab. In the night window a
bot chooses a legal action from its own ``me`` view (the last response, and the ``hit`` frames it
receives): spawn at one of a few crowded places, then attack what its search found, pick up the
found item, use a supply, equip a better weapon or armor, search when the 30 s cooldown allows,
otherwise move between the crowded places or whisper to another character, keeping 5 MP for a
search still possible before the window ends. Each request carries an Idempotency-Key, as the
portal's would. Between actions a bot waits a random think time (uniform 0.5-1.5 x --think-ms):
a night's MP in about 15 s, a real 15-minute window compressed some 60 times, so 40 players
offer about 80 actions/s and 5 games about 400 actions/s. A bot stops when nothing useful is
left before the window closes. Meanwhile a separate connection GETs /api/ping (the no-op
baseline) every --ping-ms, in the same run, and a socket of its own sends ``ping`` frames (the
socket's baseline, its ``pong``).

A third phase plays 25 games of 40 (--crowd-games) with every player's socket open at the
posts' own pace (--crowd-think-ms, one action per 10-20 s: the 30 s search cooldown, 5 MP an
action) for --crowd-window seconds; its sessions are made in this process rather than by 1,000
logins over HTTP (minutes of password hashing, not what it measures).

Two ways in (--via, default both: one after the other, each on fresh games, in the same run):
``http`` POSTs each action with its Idempotency-Key; ``socket`` sends it as an ``act`` frame
(``{"type": "act", "key": K, "action": {...}}``) on the bot's already open websocket and reads
the ``answer`` frame with that key, as the portal's act.js does.

Measured:
  action   request (frame) sent -> response (answer frame) read, per action (accepted;
           refused shown apart);
  push     request sent -> the action's frames read at the actor's socket (the last of them),
           and at the victim's socket (the ``hit`` of an attack; a whisper's recipient);
           frames are matched to actions by game and event time (``at``);
  rate     answered actions / (first request sent -> last response read);
  close    the scheduled ``night_close`` through games.services.transitions_run_due, its
           night_end run beforehand: one game of 40 characters (the one just played), then 25
           games of 40 (the 5 just played and 20 whose characters spawned through the service).
Figures are printed, never asserted: the targets are shown beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import math
import os
import platform
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from websockets.exceptions import ConnectionClosed

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench.support import (  # noqa: E402
    REQUEST_TIMEOUT,
    RULESET,
    SERVER_PIDS,
    AsyncHttp,
    LatencyTable,
    Reply,
    bench_game,
    bench_run,
    close_connections,
    daphne_servers,
    django_migrated,
    ms,
    p99_target,
    percentile,
    player_login,
    ratio,
    rss_mib,
    socket_open,
    verdict,
    where,
)

PLAYERS = 40
ACTION_P99_TARGET_MS = 100.0
ACTION_P99_TARGET_RATIO = 5.0
PUSH_P99_TARGET_MS = 150.0
RATE_TARGET = 200.0  # actions/s over 5 games
CLOSE_ONE_TARGET_S = 0.5
CLOSE_MANY_TARGET_S = 10.0
DRAIN_QUIET_SECONDS = 2.0  # after the last response, frames are awaited until none comes
DRAIN_MAX_SECONDS = 30.0  # for this long, or this long at most
HARD_STOP_SECONDS = 30.0  # after the window's end, bots still running are cancelled
CONCURRENT_SETUP = 16  # logins and websocket handshakes at once, before the window


# --- fixture (sync, main thread) -------------------------------------------------------------


@dataclass
class GameFixture:
    game_id: int
    number: str
    characters: list[tuple[int, str]]  # (id, name)
    passwords: dict[int, str] = field(default_factory=dict)
    # Sessions made in this process (the crowd's thousand logins would take minutes of
    # password hashing, which is not what the phase measures); else the bots log in.
    sessions: dict[int, str] = field(default_factory=dict)


@dataclass
class Schedule:
    """Day 1 of every bench game: the window open now; ends and closes far ahead, by group."""

    opened: dt.datetime
    single_end: dt.datetime
    single_close: dt.datetime
    many_end: dt.datetime
    many_close: dt.datetime


def schedule_make() -> Schedule:
    from django.utils import timezone

    now = timezone.now()
    hour = dt.timedelta(hours=1)
    five = dt.timedelta(minutes=5)
    return Schedule(now, now + hour, now + hour + five, now + 3 * hour, now + 3 * hour + five)


def game_make(number: str, end: dt.datetime, close: dt.datetime, *, passwords: bool) -> GameFixture:
    """A running royale game of 40 characters, set up, with day 1's times moved around now."""
    from django.utils import timezone

    from games import services
    from games.models import TimetableOverride
    from royale.services import royale_setup

    now = timezone.now()
    names = (f"{number}-角色{i:02d}" for i in range(1, PLAYERS + 1))
    game = bench_game(number, names, start_date=timezone.localdate())
    minute = dt.timedelta(minutes=1)
    moved = [
        (1, "day_close", now - 3 * minute),
        (1, "night_open", now - 2 * minute),
        (1, "night_end", end),
        (1, "night_close", close),
        (2, "day_open", close + dt.timedelta(days=1)),  # nothing after the close is due
    ]
    TimetableOverride.objects.bulk_create(
        TimetableOverride(game=game, day=day, kind=kind, at=at) for day, kind, at in moved
    )
    royale_setup(game=game)
    fixture = GameFixture(
        game.pk, number, list(game.characters.order_by("id").values_list("id", "name"))
    )
    if passwords:
        issued = services.character_passwords_generate(game=game, director=None)
        fixture.passwords = {i.character.pk: i.secret for i in issued}
    return fixture


def crowded_places(game_id: int, count: int) -> list[str]:
    """A few places open tonight, not the safe zone (no attacks there), not vanishing."""
    from games.models import Game
    from royale.engine import get_ruleset
    from royale.selectors import map_view, royale_state

    state = royale_state(game=Game.objects.get(pk=game_id))
    safe = get_ruleset(RULESET).safe_zone
    usable = [
        p["name"]
        for p in map_view(state=state)
        if p["open"] and not p["gone"] and not p["vanishing"] and p["name"] != safe
    ]
    return random.Random(f"places|{count}").sample(sorted(usable), count)


def spawn_all(fixture: GameFixture, places: Sequence[str]) -> None:
    """Every character of a game not played over HTTP spawns, through the service."""
    from django.utils import timezone

    from games.models import Character, Game
    from royale.services import action_submit

    game = Game.objects.get(pk=fixture.game_id)
    for i, character in enumerate(Character.objects.filter(game=game).order_by("id")):
        data = {"kind": "spawn", "place": places[i % len(places)]}
        action_submit(
            game_id=game.pk, character_id=character.pk, data=data, key=None, now=timezone.now()
        )


def sessions_make(fixture: GameFixture) -> None:
    """A signed-in session for each character, left by the portal's own login step
    (``games.views.session_login``) on a request of this process rather than over HTTP."""
    from importlib import import_module

    from django.conf import settings
    from django.http import HttpRequest

    from games.models import Character
    from games.views import session_login

    store = import_module(settings.SESSION_ENGINE).SessionStore
    for character in Character.objects.filter(game_id=fixture.game_id):
        request = HttpRequest()
        request.session = store()
        session_login(request, character)
        fixture.sessions[character.pk] = request.session.session_key or ""


# --- the players -----------------------------------------------------------------------------


@dataclass
class Act:
    game_id: int
    actor: int
    kind: str
    sent: float
    received: float
    status: int
    code: str = ""
    at: str = ""
    frames: list[tuple[str, int]] = field(default_factory=list)  # (stream, stream_seq)
    target: str = ""  # a whisper's recipient (name)
    outcome: str = ""  # an attack's: hit / killed


@dataclass
class Frame:
    game_id: int
    character: int
    arrived: float
    stream: str
    stream_seq: int
    kind: str
    at: str


@dataclass
class Bot:
    game_id: int
    character: int
    name: str
    session: str
    http: AsyncHttp
    others: list[str]
    places: list[str]
    rng: random.Random
    me: dict[str, Any] = field(default_factory=dict)
    search_ready: float = 0.0
    found_used: bool = False
    dead: bool = False
    actions: int = 0
    ws: ClientConnection | None = None  # its socket, for the act frames (--via socket)
    answers: dict[str, asyncio.Future[tuple[dict[str, Any], float]]] = field(
        default_factory=dict
    )  # key -> (answer frame, read at)


@dataclass
class Run:
    """Everything a window produced."""

    acts: list[Act] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    pings: list[float] = field(default_factory=list)
    ping_failed: int = 0
    ws_pings: list[float] = field(default_factory=list)  # ping frame -> pong, own socket
    via: str = "http"
    failed: Counter[str] = field(default_factory=Counter)  # transport errors, by type
    server_errors: list[str] = field(default_factory=list)  # bodies of 5xx responses
    refreshes: int = 0
    start: float = 0.0
    deadline: float = 0.0
    bots: int = 0
    stopped: Counter[str] = field(default_factory=Counter)
    rss: dict[int, float] = field(default_factory=dict)  # daphne port -> MiB, window's end
    # (game, at) of the log's hits to players: an attack on an NPC (阿呆, 阿笨) has no victim's
    # socket to reach, and a bot cannot tell one from a player (a found handle names nobody).
    hits: set[tuple[int, str]] = field(default_factory=set)


def _rank(item: dict[str, Any]) -> int:
    from royale.engine.ruleset import TIER_RANK

    return TIER_RANK.get(item.get("tier") or "green", 0)


def choose(bot: Bot, now: float, deadline: float) -> dict[str, Any] | float | None:
    """The next action from what the character knows: a request body, a wait, or None (done)."""
    me, rng = bot.me, bot.rng
    if not me.get("alive", True) or bot.dead:
        return None
    place = me.get("place")
    if place is None:
        return {"kind": "spawn", "place": rng.choice(bot.places)}
    found = me.get("found")
    items: list[dict[str, Any]] = me.get("items", [])
    if found and found.get("place") == place and not bot.found_used:
        if found["kind"] == "character" and not found.get("attacked") and found.get("handle"):
            return {"kind": "attack", "handle": found["handle"]}
        if found["kind"] == "item" and len(items) < me.get("item_cap", 6):
            return {"kind": "pick_up"}
    hands = [i for i in items if i["in_hand"]]
    pack = [i for i in items if not i["in_hand"]]
    for item in hands:
        if item["effect"] == "supply" and (
            (item["hp"] and me["hp"] < 70) or (item["mp"] and me["mp"] < 60)
        ):
            return {"kind": "use", "item": item["id"]}
        if item["effect"] == "bomb" and rng.random() < 0.3:
            return {"kind": "use", "item": item["id"]}
    for item in pack:
        if item["category"] in ("weapon", "armor"):
            held = next((h for h in hands if h["category"] == item["category"]), None)
            if (held is None and len(hands) < 2) or (held and _rank(item) > _rank(held)):
                return {"kind": "equip", "item": item["id"]}
        elif item["effect"] in ("supply", "bomb") and len(hands) < 2:
            return {"kind": "equip", "item": item["id"]}
    mp = int(me.get("mp", 0))
    if now >= bot.search_ready and mp >= 5:
        return {"kind": "search"}
    reserve = 5 if bot.search_ready < deadline else 0
    if mp - 5 >= reserve:
        if rng.random() < 0.7:
            return {"kind": "move", "place": rng.choice([p for p in bot.places if p != place])}
        return {"kind": "whisper", "target": rng.choice(bot.others), "text": "今晚小心。"}
    if bot.search_ready < deadline and mp >= 5:
        return bot.search_ready - now
    return None


async def _act_http(bot: Bot, choice: dict[str, Any], key: str) -> Reply:
    path = f"/api/royale/games/{bot.game_id}/actions"
    return await bot.http.call("POST", path, choice, {"Idempotency-Key": key})


async def _act_socket(bot: Bot, choice: dict[str, Any], key: str) -> Reply:
    """The action as an ``act`` frame on the bot's socket; its ``answer`` frame as a Reply (the
    answer's body, or the error's, and its status), so both ways are read by the same code."""
    assert bot.ws is not None
    answered = asyncio.get_running_loop().create_future()
    bot.answers[key] = answered
    frame = json.dumps({"type": "act", "key": key, "action": choice}, ensure_ascii=False)
    sent = time.perf_counter()
    try:
        await bot.ws.send(frame)
        answer, received = await asyncio.wait_for(answered, REQUEST_TIMEOUT)
    finally:
        bot.answers.pop(key, None)
    status = int(answer["status"])
    body = answer["answer"] if status == 200 else answer.get("error", {})
    return Reply(status, json.dumps(body).encode(), [], sent, received)


async def bot_play(bot: Bot, run: Run, think: float) -> None:
    await asyncio.sleep(bot.rng.uniform(0, think))  # players arrive over the first moments
    act_send = _act_socket if run.via == "socket" else _act_http
    why = "window closed"
    while True:
        now = time.perf_counter()
        if now >= run.deadline:
            break
        choice = choose(bot, now, run.deadline)
        if choice is None:
            why = "dead" if bot.dead or not bot.me.get("alive", True) else "nothing left to do"
            break
        if isinstance(choice, float):
            await asyncio.sleep(max(0.0, min(choice, run.deadline - now)) + 0.05)
            continue
        bot.actions += 1
        key = f"c{bot.character}-{bot.actions}"
        try:
            reply = await act_send(bot, choice, key)
        except (TimeoutError, OSError, ValueError, ConnectionClosed) as exc:
            run.failed[type(exc).__name__] += 1
            why = "transport error"
            break
        act = Act(bot.game_id, bot.character, choice["kind"], reply.sent, reply.received, 0)
        act.status = reply.status
        if reply.status >= 500:  # not a refusal: the server failed (its log says why)
            run.failed[f"HTTP {reply.status}"] += 1
            run.server_errors.append(reply.body[:300].decode(errors="replace"))
            run.acts.append(act)
            if not await _refresh(bot, run):
                why = "transport error"
                break
            await asyncio.sleep(bot.rng.uniform(0.5, 1.5) * think)
            continue
        data = reply.json() if reply.body else {}
        if reply.status == 200:
            bot.me = data["me"]
            for event in data["events"]:
                act.frames.append((event["stream"], event["stream_seq"]))
                act.at = act.at or event["at"]
                if event["kind"] == "attack_result":
                    act.outcome = event["payload"].get("outcome", "")
            if choice["kind"] == "search":
                bot.found_used = False
            elif choice["kind"] in ("attack", "pick_up"):
                bot.found_used = True
            if choice["kind"] == "whisper":
                act.target = choice["target"]
            bot.search_ready = reply.received + float(bot.me.get("search_cooldown", 0))
        else:
            act.code = str((data or {}).get("code", reply.status))
            if act.code == "busy":  # shed: nothing changed; come back when told to
                run.acts.append(act)
                wait = float(((data or {}).get("detail") or {}).get("retry_after", 1))
                await asyncio.sleep(wait * bot.rng.uniform(0.5, 1.5))
                continue
            if act.code in {"actor_dead", "game_over", "wrong_phase", "game_not_live"}:
                run.acts.append(act)
                why = act.code
                break
            if not await _refresh(bot, run):
                why = "transport error"
                break
        run.acts.append(act)
        await asyncio.sleep(bot.rng.uniform(0.5, 1.5) * think)
    run.stopped[why] += 1


async def _refresh(bot: Bot, run: Run) -> bool:
    """After a refusal the view may be stale: fetch it again (not counted as an action)."""
    try:
        reply = await bot.http.call("GET", f"/api/royale/games/{bot.game_id}/me")
    except (TimeoutError, OSError, ValueError) as exc:
        run.failed[type(exc).__name__] += 1
        return False
    run.refreshes += 1
    if reply.status == 200:
        bot.me = reply.json()["me"]
        bot.search_ready = reply.received + float(bot.me.get("search_cooldown", 0))
        bot.found_used = bot.found_used and bool(bot.me.get("found"))
    elif reply.status >= 500:
        run.failed[f"HTTP {reply.status}"] += 1
    return True


async def receive(ws: ClientConnection, bot: Bot, run: Run) -> None:
    async for raw in ws:
        arrived = time.perf_counter()
        frame = json.loads(raw)
        if frame.get("type") == "answer":
            answered = bot.answers.get(frame.get("key") or "")
            if answered is not None and not answered.done():
                answered.set_result((frame, arrived))
            continue
        if frame.get("type") != "event":
            continue
        run.frames.append(
            Frame(
                bot.game_id,
                bot.character,
                arrived,
                frame["stream"],
                int(frame["stream_seq"]),
                frame["kind"],
                frame["at"],
            )
        )
        if frame["kind"] == "hit" and bot.me:  # a player sees its HP drop on its page
            bot.me["hp"] = frame["payload"]["hp"]
            if frame["payload"]["hp"] <= 0:
                bot.dead = True


async def pinger(port: int, run: Run, interval: float, stop: asyncio.Event) -> None:
    client = AsyncHttp(port)
    try:
        while not stop.is_set():
            try:
                reply = await client.call("GET", "/api/ping")
                if reply.status == 200:
                    run.pings.append(reply.received - reply.sent)
                else:
                    run.ping_failed += 1
            except (TimeoutError, OSError, ValueError):
                run.ping_failed += 1
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
    finally:
        await client.close()


async def socket_pinger(
    port: int, bot: Bot, run: Run, interval: float, stop: asyncio.Event
) -> None:
    """``ping`` frames on a socket of their own (a second tab of one bot's session): the round
    trip the socket's actions are compared with."""
    from websockets.asyncio.client import connect
    from websockets.typing import Origin

    async with connect(
        f"ws://127.0.0.1:{port}/ws/games/{bot.game_id}/",
        origin=Origin(f"http://127.0.0.1:{port}"),
        additional_headers={"Cookie": f"sessionid={bot.session}"},
        open_timeout=15,
        max_queue=None,
    ) as ws:
        while not stop.is_set():
            sent = time.perf_counter()
            try:
                await ws.send('{"type":"ping"}')
                while (
                    json.loads(await asyncio.wait_for(ws.recv(), REQUEST_TIMEOUT)).get("type")
                    != "pong"
                ):
                    pass  # the character's own frames come on this socket too
                run.ws_pings.append(time.perf_counter() - sent)
            except (TimeoutError, OSError, ConnectionClosed):
                run.ping_failed += 1
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)


async def _login(port: int, number: str, password: str, limit: asyncio.Semaphore) -> str:
    async with limit:
        return await player_login(port, number, password)


async def _connect(port: int, bot: Bot, limit: asyncio.Semaphore) -> ClientConnection:
    async with limit:
        ws, _hello = await socket_open(port, bot.game_id, bot.session)
        reply = await bot.http.call("GET", f"/api/royale/games/{bot.game_id}/me")
        if reply.status != 200:
            await ws.close()
            raise RuntimeError(f"GET me: HTTP {reply.status}")
        bot.me = reply.json()["me"]
        return ws


async def window(
    ports: Sequence[int],
    fixtures: Sequence[GameFixture],
    places: dict[int, list[str]],
    args: argparse.Namespace,
    via: str,
) -> Run:
    """Log everyone in, open their sockets, then play one (compressed) night window."""
    run = Run(via=via)
    limit = asyncio.Semaphore(CONCURRENT_SETUP)
    bots: list[Bot] = []
    sockets: list[ClientConnection] = []
    tasks: list[asyncio.Task[None]] = []
    stop = asyncio.Event()
    try:
        for index, fixture in enumerate(fixtures):
            # A game's players all reach the same server (as a proxy with sticky routing would),
            # so that process keeps the game's decoded state between actions.
            port = ports[index % len(ports)]
            names = [name for _, name in fixture.characters]
            if fixture.sessions:
                sessions = [fixture.sessions[cid] for cid, _ in fixture.characters]
            else:
                logins = (
                    _login(port, fixture.number, fixture.passwords[cid], limit)
                    for cid, _ in fixture.characters
                )
                sessions = await asyncio.gather(*logins)
            for (cid, name), session in zip(fixture.characters, sessions, strict=True):
                bots.append(
                    Bot(
                        fixture.game_id,
                        cid,
                        name,
                        session,
                        AsyncHttp(port, session),
                        [n for n in names if n != name],
                        places[fixture.game_id],
                        random.Random(f"bot|{args.seed}|{cid}"),
                    )
                )
        sockets += await asyncio.gather(*(_connect(bot.http.port, bot, limit) for bot in bots))
        for ws, bot in zip(sockets, bots, strict=True):
            bot.ws = ws
        tasks += [
            asyncio.create_task(receive(ws, bot, run))
            for ws, bot in zip(sockets, bots, strict=True)
        ]
        run.bots = len(bots)
        await asyncio.sleep(0.3)
        pinging = asyncio.create_task(pinger(ports[0], run, args.ping_ms / 1000, stop))
        ws_pinging = asyncio.create_task(
            socket_pinger(ports[0], bots[0], run, args.ping_ms / 1000, stop)
        )
        tasks += [pinging, ws_pinging]
        run.start = time.perf_counter()
        run.deadline = run.start + args.window
        players = [asyncio.create_task(bot_play(bot, run, args.think_ms / 1000)) for bot in bots]
        done, pending = await asyncio.wait(players, timeout=args.window + HARD_STOP_SECONDS)
        for task in pending:
            task.cancel()
            run.stopped["cancelled at the hard stop"] += 1
        for task in done:
            if task.exception() is not None:
                run.failed[type(task.exception()).__name__] += 1
        # Frames still on their way: wait until none has come for a while (bounded).
        quiet_until = time.perf_counter() + DRAIN_QUIET_SECONDS
        give_up = time.perf_counter() + DRAIN_MAX_SECONDS
        seen = len(run.frames)
        while time.perf_counter() < min(quiet_until, give_up):
            await asyncio.sleep(0.1)
            if len(run.frames) != seen:
                seen = len(run.frames)
                quiet_until = time.perf_counter() + DRAIN_QUIET_SECONDS
        stop.set()
        await asyncio.gather(pinging, ws_pinging, return_exceptions=True)
        run.rss = {port: rss_mib(SERVER_PIDS[port]) for port in ports if port in SERVER_PIDS}
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
        await asyncio.gather(*(bot.http.close() for bot in bots), return_exceptions=True)
    return run


# --- figures ---------------------------------------------------------------------------------


@dataclass
class Figures:
    accepted: list[float]
    refused: list[float]
    by_kind: dict[str, list[float]]
    refusals: Counter[str]
    actor_push: list[float]
    actor_frames: tuple[int, int]  # received, expected
    victim_push: dict[str, list[float]]  # "attack", "whisper"
    victim_expected: dict[str, int]
    rate: float
    accepted_rate: float
    span: float
    unmatched: int


def figures(run: Run) -> Figures:
    accepted = [a.received - a.sent for a in run.acts if a.status == 200]
    refused = [a.received - a.sent for a in run.acts if 400 <= a.status < 500]
    by_kind: dict[str, list[float]] = defaultdict(list)
    for a in run.acts:
        if a.status == 200:
            by_kind[a.kind].append(a.received - a.sent)
    refusals = Counter(f"{a.kind}:{a.code}" for a in run.acts if 400 <= a.status < 500)

    by_at: dict[tuple[int, str], Act] = {}
    clashes: set[tuple[int, str]] = set()
    for a in run.acts:
        if a.status == 200 and a.at:
            key = (a.game_id, a.at)
            if key in by_at:
                clashes.add(key)  # two actions with the same time: neither is matched
            by_at[key] = a
    for key in clashes:
        del by_at[key]
    actor_seen: dict[int, list[float]] = defaultdict(list)  # id(act) -> arrivals at its actor
    victim_seen: dict[tuple[int, int], list[float]] = defaultdict(list)
    unmatched = 0
    for f in run.frames:
        act = by_at.get((f.game_id, f.at))
        if act is None:
            unmatched += 1
        elif f.character == act.actor:
            actor_seen[id(act)].append(f.arrived)
        elif f.kind in ("hit", "whisper"):
            victim_seen[(id(act), f.character)].append(f.arrived)
    acts = {id(a): a for a in by_at.values()}
    actor_push = []
    received = expected = 0
    for a in acts.values():
        arrivals = actor_seen.get(id(a), [])
        expected += len(a.frames)
        received += min(len(arrivals), len(a.frames))
        if arrivals and len(arrivals) >= len(a.frames):
            actor_push.append(max(arrivals) - a.sent)
    victim_push: dict[str, list[float]] = {"attack": [], "whisper": []}
    for (act_id, _), arrivals in victim_seen.items():
        act = acts[act_id]
        if act.kind in victim_push:
            victim_push[act.kind].append(max(arrivals) - act.sent)
    victim_expected = {
        "attack": sum(
            1 for a in acts.values() if a.kind == "attack" and (a.game_id, a.at) in run.hits
        ),
        "whisper": sum(1 for a in acts.values() if a.kind == "whisper"),
    }
    if run.acts:
        first = min(a.sent for a in run.acts)
        last = max(a.received for a in run.acts)
        span = max(last - first, 1e-9)
    else:
        span = math.nan
    return Figures(
        accepted,
        refused,
        dict(by_kind),
        refusals,
        actor_push,
        (received, expected),
        victim_push,
        victim_expected,
        (len(accepted) + len(refused)) / span,
        len(accepted) / span,
        span,
        unmatched,
    )


def path_pings(run: Run) -> list[float]:
    """The baseline of the run's way in: GET /api/ping for HTTP, the socket's ping frame."""
    return run.ws_pings if run.via == "socket" else run.pings


def report_window(title: str, run: Run, fig: Figures, *, rate_target: float | None) -> None:
    act99 = percentile(fig.accepted, 99)
    way = "act frames on the sockets" if run.via == "socket" else "POST over HTTP"
    print(f"\n{title}, {way}: {run.bots} players, window {run.deadline - run.start:.0f} s")
    table = LatencyTable(path_pings(run))  # the ratios: to the baseline of the same way in
    table.header()
    row = table.row

    row("ping   GET /api/ping (baseline)", run.pings)
    row("ping   socket ping -> pong (baseline)", run.ws_pings)
    action_ok = (
        act99 * 1000 <= ACTION_P99_TARGET_MS and act99 <= ACTION_P99_TARGET_RATIO * table.ping99
    )
    row(
        "action accepted",
        fig.accepted,
        target=f"p99 ≤ {ACTION_P99_TARGET_MS:.0f} ms and ≤ {ACTION_P99_TARGET_RATIO:.0f}x ping: "
        + verdict(action_ok),
    )
    row("action refused (4xx)", fig.refused)
    for kind in ("spawn", "move", "search", "attack", "pick_up", "equip", "use", "whisper"):
        if kind in fig.by_kind:
            row(f"  {kind}", fig.by_kind[kind])
    got, wanted = fig.actor_frames
    row(
        "push   → actor's socket",
        fig.actor_push,
        f"{got}/{wanted}",
        p99_target(fig.actor_push, PUSH_P99_TARGET_MS),
    )
    for kind, label in (
        ("attack", "push   attack → victim's socket"),
        ("whisper", "push   whisper → recipient"),
    ):
        values = fig.victim_push[kind]
        row(
            label,
            values,
            f"{len(values)}/{fig.victim_expected[kind]}",
            p99_target(values, PUSH_P99_TARGET_MS),
        )
    shed = sum(n for k, n in fig.refusals.items() if k.endswith(":busy"))
    rate_line = (
        f"rate: {fig.rate:.0f} actions/s answered ({fig.accepted_rate:.0f}/s accepted, "
        f"{shed} shed as busy), "
        f"{len(fig.accepted) + len(fig.refused)} actions in {fig.span:.1f} s"
    )
    if rate_target is not None:
        rate_line += f"  target ≥ {rate_target:.0f}/s: {verdict(fig.rate >= rate_target)}"
    print(rate_line)
    top = ", ".join(f"{k} {n}" for k, n in fig.refusals.most_common(6)) or "none"
    print(f"refused: {top}; views re-read after a refusal: {run.refreshes}")
    stops = ", ".join(f"{k} {n}" for k, n in run.stopped.most_common())
    failures = ", ".join(f"{k} {n}" for k, n in run.failed.items()) or "none"
    print(
        f"bots stopped: {stops}; errors: {failures}; failed pings {run.ping_failed}; "
        f"frames not matched to an action {fig.unmatched}"
    )
    memory = ", ".join(f"{mib:.0f} MiB" for mib in run.rss.values()) or "-"
    print(f"daphne memory (RSS at the window's end, each process): {memory}")
    for body, n in Counter(run.server_errors).most_common(2):
        print(f"  {n} x HTTP 5xx: {' '.join(body.split())[:160]}")


def report_sides(results: Sequence[tuple[str, str, Run, Figures]]) -> None:
    """Each scenario's headline figures, one column per way in, measured in this run."""
    scenarios = list(dict.fromkeys(title for title, _, _, _ in results))
    vias = list(dict.fromkeys(via for _, via, _, _ in results))
    if len(vias) < 2:
        return
    cells = {(title, via): (run, fig) for title, via, run, fig in results}

    def pair(values: Sequence[float]) -> str:
        return f"{ms(percentile(values, 50))} / {ms(percentile(values, 99))}"

    lines: list[tuple[str, Callable[[Run, Figures], str]]] = [
        ("actions/s answered", lambda r, f: f"{f.rate:.0f}"),
        ("action p50 / p99", lambda r, f: pair(f.accepted)),
        ("push → actor p50 / p99", lambda r, f: pair(f.actor_push)),
        ("push → victim p50 / p99", lambda r, f: pair(f.victim_push["attack"])),
        ("push → whisper p50 / p99", lambda r, f: pair(f.victim_push["whisper"])),
        ("ping of the way p50 / p99", lambda r, f: pair(path_pings(r))),
        (
            "action p99 / ping p99",
            lambda r, f: ratio(percentile(f.accepted, 99), percentile(path_pings(r), 99)),
        ),
        (
            "push p99 / action p99",
            lambda r, f: ratio(percentile(f.actor_push, 99), percentile(f.accepted, 99)),
        ),
        (
            "shed (429 busy)",
            lambda r, f: str(sum(n for k, n in f.refusals.items() if k.endswith(":busy"))),
        ),
        ("pushes lost (actor)", lambda r, f: str(f.actor_frames[1] - f.actor_frames[0])),
        (
            "pushes lost (victims)",
            lambda r, f: str(
                sum(f.victim_expected.values()) - sum(len(v) for v in f.victim_push.values())
            ),
        ),
    ]
    for title in scenarios:
        print(f"\n{title}, side by side (ms):")
        print(f"{'':<28}" + "".join(f"{via:>22}" for via in vias))
        for name, cell in lines:
            values = [cell(*cells[(title, via)]) if (title, via) in cells else "-" for via in vias]
            print(f"{name:<28}" + "".join(f"{v:>22}" for v in values))


# --- night close -----------------------------------------------------------------------------


def hits_logged(fixtures: Sequence[GameFixture]) -> set[tuple[int, str]]:
    """The (game, at) of every hit the games' logs sent to a player, as its frame dates it."""
    from games import live
    from games.models import Event

    rows = Event.objects.filter(
        game_id__in=[f.game_id for f in fixtures], kind="hit", audience_character__isnull=False
    )
    hits = {(row.game_id, live.frame_for_player(row)["at"]) for row in rows}
    close_connections()
    return hits


def close_time(end: dt.datetime, close: dt.datetime) -> tuple[float, list[tuple[int, int, str]]]:
    """night_end (untimed), then the scheduler tick that runs night_close, timed."""
    from games.services import transitions_run_due

    transitions_run_due(now=end)
    start = time.perf_counter()
    done = transitions_run_due(now=close)
    return time.perf_counter() - start, done


def close_check(done: list[tuple[int, int, str]], games: int) -> str:
    closes = sum(1 for _, _, kind in done if kind == "night_close")
    extra = [kind for _, _, kind in done if kind != "night_close"]
    note = f"{closes}/{games} games closed"
    return note + (f", also ran {extra}" if extra else "")


# --- main ------------------------------------------------------------------------------------


def run(args: argparse.Namespace, db_label: str) -> int:
    started = time.perf_counter()
    django_migrated()
    from games.models import Character
    from games.services import transitions_run_due

    when = schedule_make()
    vias = ["http", "socket"] if args.via == "both" else [args.via]
    # Fresh games for each way in. The first way's are the ones the night close times; the
    # others' nights end after it, so the close counts are those of one way's games.
    later_end = when.many_close + dt.timedelta(hours=1)
    later_close = later_end + dt.timedelta(minutes=5)
    played: dict[str, tuple[GameFixture, list[GameFixture]]] = {}
    crowds: dict[str, list[GameFixture]] = {}
    for n, via in enumerate(vias):
        first = n == 0
        played[via] = (
            game_make(
                f"live-1-{via}",
                when.single_end if first else later_end,
                when.single_close if first else later_close,
                passwords=True,
            ),
            [
                game_make(
                    f"live-5-{via}-{i}",
                    when.many_end if first else later_end,
                    when.many_close if first else later_close,
                    passwords=True,
                )
                for i in range(args.games)
            ],
        )
        crowds[via] = [
            game_make(f"crowd-{via}-{i}", later_end, later_close, passwords=False)
            for i in range(args.crowd_games)
        ]
    single = played[vias[0]][0]
    playing = [f for one, five in played.values() for f in (one, *five)]
    playing += [f for crowd in crowds.values() for f in crowd]
    extra = [
        game_make(f"close-{i}", when.many_end, when.many_close, passwords=False)
        for i in range(args.close_games - args.games)
    ]
    opened = transitions_run_due(now=when.opened)
    nights = sum(1 for _, _, kind in opened if kind == "night_open")
    places = {f.game_id: crowded_places(f.game_id, args.places) for f in [*playing, *extra]}
    spawn_start = time.perf_counter()
    for fixture in extra:
        spawn_all(fixture, places[fixture.game_id])
    spawned = time.perf_counter() - spawn_start
    for crowd in crowds.values():
        for fixture in crowd:
            sessions_make(fixture)
    close_connections()  # the main thread is done with the database until the closes
    print(
        f"royale live benchmark: {db_label}; Redis {where(os.environ.get('REDIS_URL'))}; "
        f"{args.servers} daphne; {os.cpu_count()} CPUs; Python {platform.python_version()}"
    )
    print(
        f"setup {time.perf_counter() - started:.1f} s: {len(playing) + len(extra)} games of "
        f"{PLAYERS}, night 1 open in {nights}; {len(extra) * PLAYERS} characters spawned through "
        f"action_submit in {spawned:.1f} s ({spawned / max(1, len(extra) * PLAYERS) * 1000:.1f} "
        f"ms each); think {args.think_ms:.0f} ms ±50%, ping every {args.ping_ms:.0f} ms; "
        f"{args.places} crowded places per game; times in ms"
    )

    results: list[tuple[str, str, Run, Figures]] = []
    with daphne_servers(args.servers) as ports:
        for via in vias:
            one_game, games = played[via]
            one = asyncio.run(window(ports, [one_game], places, args, via))
            one.hits = hits_logged([one_game])
            results.append(("one game", via, one, figures(one)))
            report_window("one game", one, results[-1][3], rate_target=None)
            if args.games:
                five = asyncio.run(window(ports, games, places, args, via))
                five.hits = hits_logged(games)
                title = f"{args.games} games at once"
                results.append((title, via, five, figures(five)))
                report_window(title, five, results[-1][3], rate_target=RATE_TARGET)
            if args.crowd_games:
                pace = argparse.Namespace(
                    **{**vars(args), "think_ms": args.crowd_think_ms, "window": args.crowd_window}
                )
                many = asyncio.run(window(ports, crowds[via], places, pace, via))
                many.hits = hits_logged(crowds[via])
                title = (
                    f"{args.crowd_games} games, {args.crowd_games * PLAYERS} players, "
                    f"one action per {args.crowd_think_ms / 1000:.0f} s ±50%"
                )
                results.append((title, via, many, figures(many)))
                report_window(title, many, results[-1][3], rate_target=None)
        report_sides(results)

    alive = Character.objects.filter(game_id=single.game_id, status="alive").count()
    seconds, done = close_time(when.single_end, when.single_close)
    print("\nnight close (scheduler tick, transitions_run_due), seconds:")
    print(
        f"  1 game, {PLAYERS} characters ({alive} alive):  {seconds:6.3f}   "
        f"target ≤ {CLOSE_ONE_TARGET_S:g} s: {verdict(seconds <= CLOSE_ONE_TARGET_S)}  "
        f"({close_check(done, 1)})"
    )
    count = args.close_games
    seconds, done = close_time(when.many_end, when.many_close)
    print(
        f"  {count} games, {count * PLAYERS} characters:    {seconds:6.3f}   "
        f"target ≤ {CLOSE_MANY_TARGET_S:g} s: {verdict(seconds <= CLOSE_MANY_TARGET_S)}  "
        f"({close_check(done, count)}; {seconds / max(1, count) * 1000:.0f} ms a game)"
    )
    return 0


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--window", type=float, default=20.0, help="night window, seconds")
    parser.add_argument("--think-ms", type=float, default=500.0, help="mean pause between actions")
    parser.add_argument("--ping-ms", type=float, default=50.0, help="baseline ping interval")
    parser.add_argument("--games", type=int, default=5, help="games played at once (phase 2)")
    parser.add_argument(
        "--servers",
        type=int,
        default=2,
        help="daphne processes, one per core (games spread over them)",
    )
    parser.add_argument(
        "--crowd-games",
        type=int,
        default=25,
        help="games of the realistic-pace phase, every player's socket open (0: none)",
    )
    parser.add_argument(
        "--crowd-think-ms",
        type=float,
        default=15000.0,
        help="the crowd's mean pause between actions (the posts' pace: one per 10-20 s)",
    )
    parser.add_argument(
        "--crowd-window", type=float, default=60.0, help="the crowd's night window, seconds"
    )
    parser.add_argument("--close-games", type=int, default=25, help="games closed together")
    parser.add_argument("--places", type=int, default=4, help="crowded places per game")
    parser.add_argument("--seed", type=int, default=1, help="the bots' choices")
    parser.add_argument(
        "--via",
        choices=("http", "socket", "both"),
        default="both",
        help="how the bots act: POST over HTTP, act frames on their sockets, or both in turn",
    )
    args = parser.parse_args(argv)
    if args.close_games < args.games:
        parser.error("--close-games must be at least --games")

    return bench_run(lambda db_label: run(args, db_label))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
