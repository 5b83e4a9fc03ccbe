"""Rooms (issue 18): 40 members in one room, messages 200 ms apart, send → every member's socket.

    python tests/bench/bench_rooms.py [--messages 200] [--gap-ms 200] [--servers 1]

Runnable alone or through ``make bench``; a database of its own (a temporary SQLite file, or a
fresh database on DATABASE_URL's PostgreSQL server, dropped afterwards), Redis at REDIS_URL or
an embedded one, daphne on free ports of 127.0.0.1.

The game is a [099] werewolf game of 40 characters prepared as a director does it through the
services: created, the director added, the cast, the passwords, the roles dealt by hand (the
ruleset's 18-seat deck does not deal 40). Its 联谊群 (the lobby: every character) is the room of
40 members. Each player signs in through the login API with a session of its own and opens the
game's websocket as the portal does; the director signs in through the admin's login form and
opens the control room's socket. Every message is a ``POST /api/games/{id}/rooms/{token}/
messages`` over a keep-alive connection of its author, with the session cookie and the double-
submit CSRF token, sent on a fixed schedule (``--gap-ms`` apart, whatever the answers take).

Three series, in this order:
  member         in preparation (players may post in the lobby): the posts go round the 40
                 members, so each member posts once every 40 messages, well under
                 ROOM_MESSAGE_RATE (nothing is overridden: the limit is the site's own);
  director-prep  the director posts, still in preparation (directors are not rate-limited):
                 against the two others, it tells what the author costs from what the game's
                 phase does;
  director       the director starts the game (``game_start``: [099] night 1 opens, the lobby
                 is muted for players) and posts in the lobby.
Measured in each: POST sent → the frame read at each of the 40 members' sockets (the author's
own included) and at the director's socket; → the last of the 40; the POST's answer; and, in
the same run, the websocket ping round trip (``{"type": "ping"}`` → pong on the members'
sockets in turn, every ``--ping-ms``), the baseline. With one game, all of it reaches one daphne
(``--servers 1``, a proxy routing by game, as bench_royale_live.py assumes); ``--servers 2``
spreads the sockets over two, as a proxy without that routing would.
Figures are printed, never asserted: the target (p99 ≤ 150 ms) is shown beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench.support import (  # noqa: E402
    AsyncHttp,
    LatencyTable,
    bench_run,
    close_connections,
    daphne_servers,
    director_login,
    django_migrated,
    ms,
    p99_target,
    percentile,
    player_login,
    ratio,
    socket_open,
    verdict,
    where,
)

GAME_NUMBER = "rooms"
MEMBERS = 40
TARGET_P99_MS = 150.0
WARMUP = 5  # messages before each series, at least one per author, not counted
DRAIN_SECONDS = 15.0  # after the last post, how long frames may still arrive
PONG_TIMEOUT = 5.0
DIRECTOR = ("bench-director", "bench-director-pass-123")
MARK = re.compile(r"#(-?\d+)#")  # a message's number in its body
# [099] seats as the engine tests deal them; the other 22 of the 40 are 村民.
ROLES = ["wolf"] * 4 + ["white_wolf", "seer", "witch", "guard", "lover", "chief", "hunter"]
ROLES += ["monk", "idiot", "dreamer"]


# --- the game, as a director prepares it (main thread, sync) ---------------------------------


@dataclass(frozen=True)
class Fixture:
    game_id: int
    passwords: list[tuple[int, str]]  # (character id, password), in seat order


def fixture_create() -> Fixture:
    from django.contrib.auth.models import Group, User
    from django.utils import timezone

    from games import services
    from games.models import Character
    from werewolf import services as werewolf_services

    services.groups_ensure()
    director = User.objects.create_user(username=DIRECTOR[0], password=DIRECTOR[1], is_staff=True)
    director.groups.add(Group.objects.get(name=services.DIRECTORS_GROUP))
    game = services.game_create(
        kind="werewolf",
        ruleset="arknights_099",
        number=GAME_NUMBER,
        title="群聊基准",
        start_date=timezone.localdate(),
    )
    game.directors.add(director)
    Character.objects.bulk_create(
        Character(game=game, name=f"成员{seat:02d}") for seat in range(1, MEMBERS + 1)
    )
    issued = services.character_passwords_generate(game=game, director=director)
    ids = [c.pk for c in game.characters.order_by("id")]
    roles = ROLES + ["villager"] * (len(ids) - len(ROLES))
    werewolf_services.werewolf_setup(
        game=game,
        roles=dict(zip(ids, roles, strict=True)),
        genders={pk: "男" if i % 2 else "女" for i, pk in enumerate(ids)},
    )
    secrets = {i.character.pk: i.secret for i in issued}
    return Fixture(game.pk, [(pk, secrets[pk]) for pk in ids])


def game_start(game_id: int) -> None:
    """开始, as the director's start page does it (night 1 opens, the lobby is muted)."""
    from django.contrib.auth.models import User

    from games import services
    from games.models import Game

    director = User.objects.get(username=DIRECTOR[0])
    services.game_start(game=Game.objects.get(pk=game_id), director=director)


# --- sockets ---------------------------------------------------------------------------------


@dataclass
class Member:
    character: int  # 0: the director
    session: str
    http: AsyncHttp
    ws: ClientConnection | None = None
    pong: asyncio.Future[float] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one request at a time


@dataclass
class Receipts:
    at: dict[tuple[int, int], float] = field(default_factory=dict)  # (message, character) → s
    duplicates: int = 0
    count: int = 0  # counted messages' frames (warm-up ones excluded)


async def receive(member: Member, receipts: Receipts) -> None:
    """Room frames at a member's socket, the directors' frames at the director's, and pongs."""
    assert member.ws is not None
    async for raw in member.ws:
        now = time.perf_counter()
        frame = json.loads(raw)
        kind = frame.get("type")
        if kind == "pong":
            if member.pong is not None and not member.pong.done():
                member.pong.set_result(now)
            continue
        if frame.get("kind") != "room_message":
            continue
        body = frame["body"] if kind == "room" else frame.get("payload", {}).get("body", "")
        found = MARK.search(str(body))
        if found is None:
            continue
        key = (int(found.group(1)), member.character)
        if key in receipts.at:
            receipts.duplicates += 1
            continue
        receipts.at[key] = now
        if key[0] >= 0:
            receipts.count += 1


async def pinger(
    members: Sequence[Member], pings: list[float], every: float, stop: asyncio.Event
) -> None:
    """The baseline: a websocket ping round trip on the members' sockets in turn, until
    ``stop``. Stopped by the event, not cancelled: Python 3.11's ``wait_for`` can swallow a
    cancellation that meets a pong arriving, which left a run waiting for ever."""
    turn = 0
    while not stop.is_set():
        member = members[turn % len(members)]
        turn += 1
        assert member.ws is not None
        pong = member.pong = asyncio.get_running_loop().create_future()
        sent = time.perf_counter()
        await member.ws.send('{"type":"ping"}')
        done, _ = await asyncio.wait({pong}, timeout=PONG_TIMEOUT)
        if done:
            pings.append(pong.result() - sent)
        await asyncio.sleep(every)


# --- posting ---------------------------------------------------------------------------------


@dataclass
class Post:
    number: int
    author: int  # character id, 0 for the director
    sent: float = 0.0
    answered: float = 0.0
    status: int = 0
    code: str = ""


async def post_one(member: Member, path: str, post: Post) -> None:
    body = {"body": f"基准消息 #{post.number}# 今晚大家注意发言顺序。"}
    async with member.lock:
        try:
            reply = await member.http.call("POST", path, body)
        except (TimeoutError, OSError, ValueError) as exc:
            post.code = type(exc).__name__
            return
    post.sent, post.answered, post.status = reply.sent, reply.received, reply.status
    if reply.status != 200:
        post.code = str((reply.json() or {}).get("code", reply.status))


async def series(
    authors: Sequence[Member],
    path: str,
    first: int,
    count: int,
    gap: float,
) -> list[Post]:
    """``count`` posts numbered from ``first``, ``gap`` apart on a fixed schedule, the authors
    taking turns; each post waits only for its author's connection."""
    posts = [Post(first + i, authors[i % len(authors)].character) for i in range(count)]
    start = time.perf_counter()
    tasks = []
    for i, post in enumerate(posts):
        await asyncio.sleep(max(0.0, start + i * gap - time.perf_counter()))
        tasks.append(asyncio.create_task(post_one(authors[i % len(authors)], path, post)))
    await asyncio.gather(*tasks)
    return posts


@dataclass
class Figures:
    name: str
    posts: list[Post]
    pings: list[float]
    members: list[int]  # character ids
    receipts: Receipts

    def accepted(self) -> list[Post]:
        return [p for p in self.posts if p.status == 200]

    def delivery(self) -> tuple[list[float], int]:
        """(POST sent → frame at each member's socket, frames expected)."""
        values, expected = [], 0
        for post in self.accepted():
            for character in self.members:
                expected += 1
                at = self.receipts.at.get((post.number, character))
                if at is not None:
                    values.append(at - post.sent)
        return values, expected

    def last_of(self) -> list[float]:
        """Per message: POST sent → the last of the members has it (complete ones only)."""
        values = []
        for post in self.accepted():
            ats = [self.receipts.at.get((post.number, c)) for c in self.members]
            if all(at is not None for at in ats):
                values.append(max(at for at in ats if at is not None) - post.sent)
        return values

    def director(self) -> list[float]:
        values = []
        for post in self.accepted():
            at = self.receipts.at.get((post.number, 0))
            if at is not None:
                values.append(at - post.sent)
        return values

    def answers(self) -> list[float]:
        return [p.answered - p.sent for p in self.accepted()]


async def drain(receipts: Receipts, base: int, expected: int) -> None:
    """Until the series' frames are all in (``base``: the count before it), or the drain ends."""
    deadline = time.monotonic() + DRAIN_SECONDS
    while receipts.count - base < expected and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.3)  # anything stray or duplicated shows up too


async def measure(
    ports: Sequence[int], fixture: Fixture, args: argparse.Namespace
) -> list[Figures]:
    from asgiref.sync import sync_to_async

    port = ports[0]  # the game's server: its requests (and, with one server, its sockets)
    sessions = [await player_login(port, GAME_NUMBER, pw) for _, pw in fixture.passwords]
    members = [
        Member(cid, session, AsyncHttp(port, session))
        for (cid, _), session in zip(fixture.passwords, sessions, strict=True)
    ]
    director_session = await director_login(port, *DIRECTOR)
    director = Member(0, director_session, AsyncHttp(port, director_session))
    everyone = [*members, director]
    receipts = Receipts()
    tasks: list[asyncio.Task[None]] = []
    results: list[Figures] = []
    gap = args.gap_ms / 1000
    try:
        for i, member in enumerate(everyone):
            member.ws, _hello = await socket_open(
                ports[i % len(ports)], fixture.game_id, member.session
            )
            tasks.append(asyncio.create_task(receive(member, receipts)))
        rooms = f"/api/games/{fixture.game_id}/rooms"
        path = f"{rooms}/{await lobby_token(members[0], rooms)}/messages"
        ids = [m.character for m in members]
        first = 0
        plan = (("member", members), ("director-prep", [director]), ("director", [director]))
        for name, authors in plan:
            if name == "director":
                await sync_to_async(game_start, thread_sensitive=True)(fixture.game_id)
                await asyncio.sleep(0.5)  # the start's own frames go by first
            # Warm-up (negative numbers): a connection's and a session's first requests are
            # not measured (each author posts once).
            warm = max(WARMUP, len(authors))
            await series(authors, path, -(first + warm), warm, gap)
            await asyncio.sleep(0.5)
            pings: list[float] = []
            stop = asyncio.Event()
            pinging = asyncio.create_task(pinger(members, pings, args.ping_ms / 1000, stop))
            base = receipts.count
            posts = await series(authors, path, first, args.messages, gap)
            accepted = sum(1 for p in posts if p.status == 200)
            await drain(receipts, base, accepted * len(everyone))
            stop.set()
            await asyncio.gather(pinging, return_exceptions=True)  # a pinger that failed ends too
            results.append(Figures(name, posts, pings, ids, receipts))
            first += args.messages
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(
            *(m.ws.close() for m in everyone if m.ws is not None), return_exceptions=True
        )
        await asyncio.gather(*(m.http.close() for m in everyone), return_exceptions=True)
        await sync_to_async(close_connections, thread_sensitive=True)()
    return results


async def lobby_token(member: Member, rooms: str) -> str:
    """The lobby as a player's page finds it: in its rooms' listing."""
    reply = await member.http.call("GET", rooms)
    if reply.status != 200:
        raise RuntimeError(f"GET rooms: HTTP {reply.status}")
    return str({r["name"]: r for r in reply.json()["rooms"]}["联谊群"]["room"])


# --- report ----------------------------------------------------------------------------------

TITLES = {
    "member": "member-posted, in preparation (the 40 members take turns)",
    "director-prep": "director-posted, in preparation (tells the author from the game's phase)",
    "director": "director-posted, the game running (the lobby muted for players)",
}


def report(figures: Figures, args: argparse.Namespace) -> None:
    delivery, expected = figures.delivery()
    accepted = figures.accepted()
    refused = Counter(p.code for p in figures.posts if p.status != 200)
    print(f"\n{TITLES[figures.name]}: {len(accepted)}/{len(figures.posts)} posts accepted")
    table = LatencyTable(figures.pings, name_width=44)
    table.header()
    table.row("ping   websocket ping → pong (baseline)", figures.pings)
    table.row(
        "room   POST sent → each member's socket",
        delivery,
        f"{len(delivery)}/{expected}",
        p99_target(delivery, TARGET_P99_MS),
    )
    table.row("room   POST sent → the last of 40", figures.last_of())
    director = figures.director()
    table.row(
        "room   POST sent → the director's socket", director, f"{len(director)}/{len(accepted)}"
    )
    table.row("post   POST sent → answer read", figures.answers())
    received = len(delivery)
    p99 = percentile(delivery, 99)
    print(
        f"deliveries to members: {expected} expected, {received} received, lost "
        f"{expected - received}; duplicates {figures.receipts.duplicates} (whole run); "
        f"refused posts: {dict(refused) or 'none'}"
    )
    print(
        f"delivery p50 {ms(percentile(delivery, 50))} ms, p99 {ms(p99)} ms; ping p50 "
        f"{ms(table.ping50)} ms, p99 {ms(table.ping99)} ms; delivery p99 / ping p99 "
        f"{ratio(p99, table.ping99)}; target p99 ≤ {TARGET_P99_MS:.0f} ms: "
        f"{verdict(p99 * 1000 <= TARGET_P99_MS)}"
    )


# --- main ------------------------------------------------------------------------------------


def run(args: argparse.Namespace, db_label: str) -> int:
    from django.conf import settings

    django_migrated()
    fixture = fixture_create()
    close_connections()  # the main thread is done with the database
    print(
        f"rooms benchmark: {db_label}; Redis {where(os.environ.get('REDIS_URL'))}; "
        f"{args.servers} daphne; {os.cpu_count()} CPUs; Python {platform.python_version()}"
    )
    print(
        f"[099] game of {MEMBERS} characters, its 联谊群 ({MEMBERS} members); {args.messages} "
        f"messages a series, {args.gap_ms:g} ms apart (after one not counted from each author, "
        f"{WARMUP} at least); ws ping "
        f"every {args.ping_ms:g} ms; ROOM_MESSAGE_RATE {settings.ROOM_MESSAGE_RATE} (not "
        f"overridden: a member posts once every {MEMBERS} messages); times in ms"
    )
    with daphne_servers(args.servers) as ports:
        results = asyncio.run(measure(ports, fixture, args))
    for figures in results:
        report(figures, args)
    return 0


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=200, help="messages in each series")
    parser.add_argument("--gap-ms", type=float, default=200.0, help="ms between two posts")
    parser.add_argument("--ping-ms", type=float, default=50.0, help="ms between two ws pings")
    parser.add_argument(
        "--servers", type=int, default=1, help="daphne processes the sockets are spread over"
    )
    args = parser.parse_args(argv)
    return bench_run(lambda db_label: run(args, db_label))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
