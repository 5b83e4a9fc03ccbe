"""Login and live-push latency against a real daphne, with a no-op endpoint as the baseline.

Runnable alone (``python tests/bench/bench_push.py``) or through ``make bench``. It uses a
database of its own: a temporary SQLite file, or, when DATABASE_URL is set, a fresh database on
that PostgreSQL server, dropped afterwards. Redis is REDIS_URL, or an embedded one when unset.

Measured, on 127.0.0.1 with one daphne process:
  ping   GET /api/ping (no-op ninja endpoint), the baseline;
  login  POST /api/play/<n>/login, successful logins only;
  push   40 websocket clients, one per character; events committed from this process through
         services.event_record; latency from the commit (an on_commit hook registered before
         the service's own push) to the frame's arrival at each socket it is meant for.
Figures are printed, never asserted: the targets are shown beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import http.client
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench.support import (  # noqa: E402
    LatencyTable,
    bench_game,
    bench_run,
    close_connections,
    daphne_server,
    django_migrated,
    p99_target,
    session_from,
    where,
)

GAME_NUMBER = "bench"
CHARACTERS = 40
LOGIN_P99_TARGET_MS = 100.0
PUSH_P99_TARGET_MS = 50.0
DRAIN_SECONDS = 15.0  # after the last commit, how long frames may still arrive
WARMUP = 20


# --- fixture ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fixture:
    game_id: int
    characters: list[tuple[int, str]]  # (character id, password)


def fixture_create() -> Fixture:
    """A running royale game with 40 characters and fresh passwords (main thread, sync)."""
    from games import services

    game = bench_game(GAME_NUMBER, (f"角色{i:02d}" for i in range(1, CHARACTERS + 1)))
    issued = services.character_passwords_generate(game=game, director=None)
    return Fixture(game.pk, [(c.character.pk, c.secret) for c in issued])


# --- HTTP: ping and login --------------------------------------------------------------------


class Http:
    """One keep-alive connection, as a browser tab would use; returns (status, cookie, seconds)."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def close(self) -> None:
        self.connection.close()

    def call(self, method: str, path: str, body: bytes | None = None) -> tuple[int, str, float]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        start = time.perf_counter()
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        response.read()
        elapsed = time.perf_counter() - start
        return response.status, session_from(response.headers.get_all("Set-Cookie") or []), elapsed

    def ping(self) -> tuple[int, str, float]:
        return self.call("GET", "/api/ping")

    def login(self, password: str) -> tuple[int, str, float]:
        body = json.dumps({"password": password}).encode()
        return self.call("POST", f"/api/play/{GAME_NUMBER}/login", body)


@dataclass
class HttpFigures:
    ping: list[float] = field(default_factory=list)
    login: list[float] = field(default_factory=list)
    login_failed: int = 0
    ping_failed: int = 0


def measure_http(client: Http, passwords: Sequence[str], rounds: int) -> HttpFigures:
    """Alternate ping and login so both see the same conditions."""
    figures = HttpFigures()
    order = random.Random(1).choices(passwords, k=rounds + WARMUP)
    for i, password in enumerate(order):
        status_ping, _, ping_s = client.ping()
        status_login, _, login_s = client.login(password)
        if i < WARMUP:
            continue
        if status_ping == 200:
            figures.ping.append(ping_s)
        else:
            figures.ping_failed += 1
        if status_login == 200:
            figures.login.append(login_s)
        else:
            figures.login_failed += 1
    return figures


def sessions_open(client: Http, characters: Sequence[tuple[int, str]]) -> list[tuple[int, str]]:
    """(character id, session cookie) for every character, via the login endpoint."""
    sessions = []
    for character_id, password in characters:
        status, session, _ = client.login(password)
        if status != 200 or not session:
            raise RuntimeError(f"login for character {character_id} failed: HTTP {status}")
        sessions.append((character_id, session))
    return sessions


# --- push ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stamp:
    called: float  # before the transaction
    committed: float  # in the first on_commit callback: the commit has returned
    returned: float  # service call returned (the push was sent to Redis in between)


def record_one(game_id: int, bench_id: int, target: int | None) -> Stamp:
    """Commit one event through the service; sync, Django ORM: call only from a sync thread."""
    from django.db import transaction

    from games import services
    from games.engine.events import PUBLIC, GameEvent, to_character

    audience = PUBLIC if target is None else to_character(target)
    payload = {"bench": bench_id, "perf": time.perf_counter(), "wall": time.time()}
    committed: list[float] = []
    called = time.perf_counter()
    # The outer transaction only lets us hook the commit before the service's own push hook:
    # the service's transaction becomes a savepoint and commits with ours, callbacks in order.
    with transaction.atomic():
        transaction.on_commit(lambda: committed.append(time.perf_counter()))
        services.event_record(game=game_id, events=[GameEvent("bench", audience, payload)])
    return Stamp(called, committed[0], time.perf_counter())


@dataclass
class Receipts:
    at: dict[tuple[int, int], float] = field(default_factory=dict)  # (bench id, character id)
    duplicates: int = 0
    count: int = 0


async def _receive(ws: ClientConnection, character_id: int, receipts: Receipts) -> None:
    async for raw in ws:
        now = time.perf_counter()
        frame = json.loads(raw)
        if frame.get("type") != "event" or frame.get("kind") != "bench":
            continue
        key = (int(frame["payload"]["bench"]), character_id)
        if key in receipts.at:
            receipts.duplicates += 1
            continue
        receipts.at[key] = now
        if key[0] >= 0:  # warm-up events are not waited for
            receipts.count += 1


PACED, BURST, LOOPLESS = "paced", "burst", "loopless"


@dataclass(frozen=True)
class Planned:
    bench_id: int
    target: int | None  # None: public
    series: str  # PACED (gap between commits), BURST (back to back), LOOPLESS (Celery path)


@dataclass
class PushFigures:
    plan: list[Planned]
    stamps: dict[int, Stamp]
    receipts: Receipts
    character_ids: list[int]

    def _chosen(self, series: str, public: bool | None = None) -> list[Planned]:
        return [
            p
            for p in self.plan
            if p.series == series and (public is None or (p.target is None) == public)
        ]

    def latencies(self, series: str, *, public: bool) -> tuple[list[float], int]:
        """(commit → receipt at each socket the event is meant for, frames expected)."""
        values, expected = [], 0
        for planned in self._chosen(series, public):
            committed = self.stamps[planned.bench_id].committed
            recipients = self.character_ids if planned.target is None else [planned.target]
            for character_id in recipients:
                expected += 1
                at = self.receipts.at.get((planned.bench_id, character_id))
                if at is not None:
                    values.append(at - committed)
        return values, expected

    def fanout_complete(self, series: str) -> list[float]:
        """Per public event: commit → the last of the sockets has it (complete events only)."""
        values = []
        for planned in self._chosen(series, public=True):
            ats = [self.receipts.at.get((planned.bench_id, c)) for c in self.character_ids]
            arrived = [at for at in ats if at is not None]
            if len(arrived) == len(ats):
                values.append(max(arrived) - self.stamps[planned.bench_id].committed)
        return values

    def misdelivered(self) -> int:
        """Frames of a private event at a socket it was not meant for (must be 0)."""
        targets = {p.bench_id: p.target for p in self.plan}
        return sum(
            1
            for bench_id, character_id in self.receipts.at
            if targets.get(bench_id) is not None and targets[bench_id] != character_id
        )

    def stage(self, what: Callable[[Stamp], float], series: Sequence[str]) -> list[float]:
        return [what(self.stamps[p.bench_id]) for p in self.plan if p.series in series]


def push_plan(
    character_ids: Sequence[int], public: int, private: int, burst: int, loopless: int
) -> list[Planned]:
    rng = random.Random(2)
    targets: list[int | None] = [None] * public
    targets += [rng.choice(character_ids) for _ in range(private)]
    rng.shuffle(targets)
    plan = [Planned(i, target, PACED) for i, target in enumerate(targets)]
    plan += [Planned(len(plan) + i, None, BURST) for i in range(burst)]
    plan += [Planned(len(plan) + i, None, LOOPLESS) for i in range(loopless)]
    return plan


async def measure_push(
    port: int,
    game_id: int,
    sessions: Sequence[tuple[int, str]],
    plan: Sequence[Planned],
    gap: float,
) -> PushFigures:
    from asgiref.sync import sync_to_async
    from websockets.asyncio.client import connect
    from websockets.typing import Origin

    url = f"ws://127.0.0.1:{port}/ws/games/{game_id}/"
    origin = Origin(f"http://127.0.0.1:{port}")
    # The ORM is sync: every call goes to asgiref's one thread-sensitive thread (like a view's
    # code under daphne), never to this event loop. record_one's push then runs its group_send
    # back on this loop, as it does in daphne.
    record = sync_to_async(record_one, thread_sensitive=True)
    close_db = sync_to_async(close_connections, thread_sensitive=True)
    # A plain thread has no event loop: async_to_sync makes one per push (the Celery path).
    plain = ThreadPoolExecutor(max_workers=1, thread_name_prefix="loopless")
    loop = asyncio.get_running_loop()

    receipts = Receipts()
    sockets: list[ClientConnection] = []
    tasks: list[asyncio.Task[None]] = []
    stamps: dict[int, Stamp] = {}
    try:
        for character_id, session in sessions:
            ws = await connect(
                url,
                origin=origin,
                additional_headers={"Cookie": f"sessionid={session}"},
                open_timeout=10,
                max_queue=None,
            )
            sockets.append(ws)
            hello = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
            if hello.get("type") != "hello":
                raise RuntimeError(f"expected hello, got {hello!r}")
            tasks.append(asyncio.create_task(_receive(ws, character_id, receipts)))

        # Warm-up: a few public events, not counted (ids below zero).
        for i in range(1, 6):
            await record(game_id, -i, None)
        await asyncio.sleep(0.3)

        previous = PACED
        for planned in plan:
            if planned.series != previous:
                await asyncio.sleep(0.5)  # let the previous series drain first
                previous = planned.series
            if planned.series == LOOPLESS:
                stamp = await loop.run_in_executor(
                    plain, record_one, game_id, planned.bench_id, planned.target
                )
            else:
                stamp = await record(game_id, planned.bench_id, planned.target)
            stamps[planned.bench_id] = stamp
            await asyncio.sleep(0 if planned.series == BURST else gap)

        expected = sum(len(sessions) if p.target is None else 1 for p in plan)
        deadline = time.monotonic() + DRAIN_SECONDS
        while receipts.count < expected and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)  # anything stray or duplicated shows up too
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
        await close_db()
        await loop.run_in_executor(plain, close_connections)
        plain.shutdown(wait=True)
    return PushFigures(list(plan), stamps, receipts, [c for c, _ in sessions])


# --- report ----------------------------------------------------------------------------------


Row = tuple[str, str, list[float], float | None]  # name, n, seconds, p99 target in ms


def _push_row(push: PushFigures, name: str, series: str, *, public: bool, target: bool) -> Row:
    values, expected = push.latencies(series, public=public)
    return (name, f"{len(values)}/{expected}", values, PUSH_P99_TARGET_MS if target else None)


def report(db_label: str, http: HttpFigures, push: PushFigures, args: argparse.Namespace) -> int:
    rows: list[Row] = [
        ("ping   GET /api/ping (baseline)", str(len(http.ping)), http.ping, None),
        ("login  POST /api/play/n/login", str(len(http.login)), http.login, LOGIN_P99_TARGET_MS),
        _push_row(push, "push   public → each of 40", PACED, public=True, target=True),
        ("push   public → last of 40", "", push.fanout_complete(PACED), None),
        _push_row(push, "push   private → its socket", PACED, public=False, target=True),
    ]
    if args.burst:
        rows.append(
            _push_row(push, "push   public, burst → each", BURST, public=True, target=False)
        )
    if args.celery_like:
        name = "push   public, Celery-like → each"
        rows.append(_push_row(push, name, LOOPLESS, public=True, target=False))
    rows += [
        ("write  call → commit", "", push.stage(lambda s: s.committed - s.called, [PACED]), None),
        (
            "send   commit → return",
            "",
            push.stage(lambda s: s.returned - s.committed, [PACED]),
            None,
        ),
    ]
    if args.celery_like:
        returned = push.stage(lambda s: s.returned - s.committed, [LOOPLESS])
        rows.append(("send   commit → return, Celery-like", "", returned, None))

    print(
        f"push/login benchmark: {db_label}; Redis {where(os.environ.get('REDIS_URL'))}; "
        f"1 daphne; {os.cpu_count()} CPUs; Python {platform.python_version()}"
    )
    print(
        f"{CHARACTERS} websocket clients, one per character, in the bench process; paced events "
        f"{args.gap:g} ms apart, bursts back to back; push = commit → frame received; ms"
    )
    table = LatencyTable(http.ping)
    table.header()
    for name, n, values, limit in rows:
        table.row(name, values, n, "" if limit is None else p99_target(values, limit))
    expected = received = 0
    for series in (PACED, BURST, LOOPLESS):
        for public in (True, False):
            values, wanted = push.latencies(series, public=public)
            expected, received = expected + wanted, received + len(values)
    lost, leaked = expected - received, push.misdelivered()
    print(
        f"frames: {expected} expected, lost {lost}, duplicated {push.receipts.duplicates}, "
        f"private ones at a wrong socket {leaked}; failed requests: ping {http.ping_failed}, "
        f"login {http.login_failed}"
    )
    if leaked:
        print("PRIVATE EVENTS REACHED OTHER CHARACTERS: this is a bug, not a figure.")
    return 1 if leaked else 0


# --- main ------------------------------------------------------------------------------------


def run(args: argparse.Namespace, db_label: str) -> int:
    django_migrated()
    fixture = fixture_create()
    close_connections()  # the bench's main thread is done with the database

    with daphne_server() as port:
        client = Http(port)
        try:
            passwords = [password for _, password in fixture.characters]
            http = measure_http(client, passwords, args.logins)
            sessions = sessions_open(client, fixture.characters)
        finally:
            client.close()
        characters = [c for c, _ in sessions]
        plan = push_plan(characters, args.public, args.private, args.burst, args.celery_like)
        # The 40 clients live in this process: keep its own garbage collector from adding pauses
        # to what is measured (the server's collector is left alone; it is part of the figure).
        gc.collect()
        gc.freeze()
        gc.disable()
        try:
            push = asyncio.run(measure_push(port, fixture.game_id, sessions, plan, args.gap / 1000))
        finally:
            gc.enable()
    return report(db_label, http, push, args)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--logins", type=int, default=400, help="measured logins (and pings)")
    parser.add_argument("--public", type=int, default=200, help="public events (to 40 sockets)")
    parser.add_argument("--private", type=int, default=200, help="private events")
    parser.add_argument("--burst", type=int, default=20, help="public events back to back")
    parser.add_argument(
        "--celery-like", type=int, default=40, help="public events sent from a loopless thread"
    )
    parser.add_argument("--gap", type=float, default=25.0, help="ms between paced commits")
    args = parser.parse_args(argv)

    return bench_run(lambda db_label: run(args, db_label))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
