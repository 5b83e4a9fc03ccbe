"""Helpers the live benchmarks share: percentiles and their table, session cookies, a bench game,
a database and a daphne of their own, a browser tab's HTTP connection and websocket.

Not a benchmark itself (its name does not start with ``bench_``). Importing it puts the project
root on ``sys.path``, so a benchmark run as a file can import the project.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import http.client
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from http.cookies import SimpleCookie
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

    from games.models import Game

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

READY_SECONDS = 30.0  # daphne must answer within this
REQUEST_TIMEOUT = 15.0  # one HTTP request or websocket handshake
CSRF_TOKEN = "benchbenchbenchbenchbenchbench12"  # any 32 letters and digits will do
RULESET = "islington_256"  # the bench games'


# --- small helpers ---------------------------------------------------------------------------


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (no interpolation); nan for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds * 1000:.2f}"


def ratio(value: float, base: float) -> str:
    if math.isnan(value) or math.isnan(base) or base <= 0:
        return "-"
    return f"{value / base:.1f}x"


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def p99_target(values: Sequence[float], limit_ms: float) -> str:
    """The target column for a p99 limit: ``p99 ≤ 50 ms: ok``."""
    return f"p99 ≤ {limit_ms:.0f} ms: {verdict(percentile(values, 99) * 1000 <= limit_ms)}"


class LatencyTable:
    """Latency rows in ms (n, p50, p99, max), each beside the ping baseline's p50 and p99."""

    def __init__(self, ping: Sequence[float], name_width: int = 40) -> None:
        self.ping50, self.ping99 = percentile(ping, 50), percentile(ping, 99)
        self.name_width = name_width

    def header(self) -> None:
        line = (
            f"{'measure':<{self.name_width}}{'n':>10}{'p50':>8}{'p99':>8}{'max':>8}"
            f"{'p50/ping':>10}{'p99/ping':>10}  target"
        )
        print(line)
        print("-" * len(line))

    def row(self, name: str, values: Sequence[float], n: str = "", target: str = "") -> None:
        p50, p99 = percentile(values, 50), percentile(values, 99)
        high = max(values) if values else math.nan
        print(
            f"{name:<{self.name_width}}{n or len(values):>10}{ms(p50):>8}{ms(p99):>8}{ms(high):>8}"
            f"{ratio(p50, self.ping50):>10}{ratio(p99, self.ping99):>10}  {target}"
        )


def where(url: str | None, default: str = "?") -> str:
    """A service's address for the report, never its password."""
    if not url:
        return default
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}:{parts.port}{parts.path}"


def session_from(set_cookie_headers: Iterable[str]) -> str:
    """The ``sessionid`` a response's Set-Cookie headers set ("" when none)."""
    session = ""
    for header in set_cookie_headers:
        morsel = SimpleCookie(header).get("sessionid")
        if morsel is not None:
            session = morsel.value
    return session


def bench_environment() -> None:
    """Settings every live benchmark wants, set before Django loads; SIGTERM runs cleanups."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # Every request comes from 127.0.0.1: lift the login limits (only failures count anyway).
    os.environ["LOGIN_LIMIT_PER_ADDRESS"] = "1000000"
    os.environ["LOGIN_LIMIT_TOTAL"] = "1000000"
    # Keys of our own, so a shared Redis (tests, a dev server) neither disturbs nor is disturbed;
    # under the prefix the caller gave, if any (a shared machine's worker keeps to its own).
    for name in ("CHANNELS_PREFIX", "CACHE_PREFIX"):
        os.environ[name] = f"{os.environ.get(name, '')}bench{os.getpid()}"
    signal.signal(signal.SIGTERM, raise_interrupt)


def django_migrated() -> None:
    """Django set up on the bench's fresh database, its tables created."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


def close_connections() -> None:
    from django.db import connections

    connections.close_all()


# --- HTTP over asyncio streams ---------------------------------------------------------------


@dataclass
class Reply:
    status: int
    body: bytes
    cookies: list[str]
    sent: float
    received: float

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class AsyncHttp:
    """One keep-alive HTTP/1.1 connection, as a browser tab would use (no new dependency)."""

    def __init__(self, port: int, session: str = "") -> None:
        self.port = port
        self.session = session
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        writer, self.reader, self.writer = self.writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def call(
        self,
        method: str,
        path: str,
        payload: Any = None,
        headers: dict[str, str] | None = None,
        form: dict[str, str] | None = None,
    ) -> Reply:
        """``payload`` is sent as JSON; ``form`` as a form's fields, with the CSRF cookie and
        its ``csrfmiddlewaretoken`` (a page's login form)."""
        reused = self.writer is not None
        try:
            return await self._call_once(method, path, payload, headers, form)
        except ConnectionError:
            # The server closes a keep-alive connection idle for a minute (Twisted's timeout):
            # a browser sends the request again on a new one, and so does this (once; the
            # actions carry idempotency keys).
            if not reused:
                raise
        return await self._call_once(method, path, payload, headers, form)

    async def _call_once(
        self,
        method: str,
        path: str,
        payload: Any,
        headers: dict[str, str] | None,
        form: dict[str, str] | None,
    ) -> Reply:
        try:
            return await asyncio.wait_for(
                self._call(method, path, payload, headers, form), REQUEST_TIMEOUT
            )
        except BaseException:
            await self.close()  # never reuse a connection left mid-response
            raise

    async def _call(
        self,
        method: str,
        path: str,
        payload: Any,
        headers: dict[str, str] | None,
        form: dict[str, str] | None,
    ) -> Reply:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        lines.append("Accept: application/json")
        if self.session:
            # Double-submit CSRF, as the portal's script does: the cookie and the header agree.
            lines.append(f"Cookie: sessionid={self.session}; csrftoken={CSRF_TOKEN}")
            lines.append(f"X-CSRFToken: {CSRF_TOKEN}")
        elif form is not None:
            lines.append(f"Cookie: csrftoken={CSRF_TOKEN}")
        if form is not None:
            body = urlencode({**form, "csrfmiddlewaretoken": CSRF_TOKEN}).encode()
            lines += ["Content-Type: application/x-www-form-urlencoded"]
            lines += [f"Content-Length: {len(body)}"]
        elif payload is not None:
            body = json.dumps(payload).encode()
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        else:
            body = b""
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        sent = time.perf_counter()
        self.writer.write(raw)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("connection closed by the server")
        status = int(status_line.split()[1])
        fields: dict[str, str] = {}
        cookies: list[str] = []
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                cookies.append(value)
            fields[name] = value
        if "content-length" in fields:
            content = await self.reader.readexactly(int(fields["content-length"]))
        elif fields.get("transfer-encoding", "").lower() == "chunked":
            content = await self._chunks()
        else:
            content = await self.reader.read()
            fields["connection"] = "close"
        received = time.perf_counter()
        if fields.get("connection", "").lower() == "close":
            await self.close()
        return Reply(status, content, cookies, sent, received)

    async def _chunks(self) -> bytes:
        assert self.reader is not None
        parts: list[bytes] = []
        while True:
            size = int((await self.reader.readline()).split(b";")[0], 16)
            if size == 0:
                await self.reader.readline()
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readline()


async def session_sign_in(
    port: int,
    path: str,
    *,
    payload: Any = None,
    form: dict[str, str] | None = None,
    status: int = 200,
) -> str:
    """The session cookie a sign-in sets (a JSON ``payload`` or a page's ``form``), over a
    connection of its own; anything but ``status`` with a session is an error."""
    client = AsyncHttp(port)
    try:
        reply = await client.call("POST", path, payload, form=form)
    finally:
        await client.close()
    session = session_from(reply.cookies)
    if reply.status != status or not session:
        raise RuntimeError(f"sign-in at {path} failed: HTTP {reply.status}")
    return session


async def player_login(port: int, number: str, password: str) -> str:
    """A character's session, signed in as its player does (the login API)."""
    return await session_sign_in(port, f"/api/play/{number}/login", payload={"password": password})


async def director_login(port: int, username: str, password: str) -> str:
    """A director's session, through the admin's login form (the CSRF cookie and field)."""
    form = {"username": username, "password": password, "next": "/admin/"}
    return await session_sign_in(port, "/admin/login/?next=/admin/", form=form, status=302)


async def socket_open(
    port: int, game_id: int, session: str
) -> tuple[ClientConnection, dict[str, Any]]:
    """A game's websocket as a page opens it (session cookie, the site's Origin), and its hello."""
    from websockets.asyncio.client import connect
    from websockets.typing import Origin

    ws = await connect(
        f"ws://127.0.0.1:{port}/ws/games/{game_id}/",
        origin=Origin(f"http://127.0.0.1:{port}"),
        additional_headers={"Cookie": f"sessionid={session}"},
        open_timeout=REQUEST_TIMEOUT,
        max_queue=None,
    )
    hello = json.loads(await asyncio.wait_for(ws.recv(), timeout=REQUEST_TIMEOUT))
    if hello.get("type") != "hello":
        await ws.close()
        raise RuntimeError(f"expected hello, got {hello!r}")
    return ws, hello


# --- a game of our own ----------------------------------------------------------------------


def bench_game(number: str, names: Iterable[str], start_date: date | None = None) -> Game:
    """A running [256] royale game with these characters (main thread, sync; not set up)."""
    from games import services
    from games.models import Character, GameStatus

    game = services.game_create(
        kind="royale",
        ruleset=RULESET,
        number=number,
        title="基准测试",
        start_date=start_date,
        status=GameStatus.RUNNING,
    )
    Character.objects.bulk_create(
        Character(game=game, name=name, forum_uid=str(i)) for i, name in enumerate(names, 1)
    )
    return game


# --- a database of our own -------------------------------------------------------------------


def bench_run(run: Callable[[str], int]) -> int:
    """A live benchmark's whole life: its settings, a Redis (embedded when REDIS_URL is unset),
    a fresh database, then ``run(database label)``; everything is cleaned up however it ends."""
    bench_environment()
    from config.embedded import ensure_redis_url

    redis = ensure_redis_url()
    try:
        with fresh_database() as db_label:
            try:
                return run(db_label)
            finally:
                if "django" in sys.modules:
                    with contextlib.suppress(Exception):
                        close_connections()
    finally:
        if redis is not None:
            redis.stop()


@contextlib.contextmanager
def fresh_database() -> Iterator[str]:
    """Point the environment at a new, empty database; yield a label for the report."""
    url = os.environ.get("DATABASE_URL")
    if not url:
        folder = tempfile.mkdtemp(prefix="wuyu-bench-db-")
        previous = os.environ.get("SQLITE_PATH")
        os.environ["SQLITE_PATH"] = os.path.join(folder, "bench.sqlite3")
        try:
            yield "SQLite (WAL, temp file)"
        finally:
            if previous is None:
                os.environ.pop("SQLITE_PATH", None)
            else:
                os.environ["SQLITE_PATH"] = previous
            shutil.rmtree(folder, ignore_errors=True)
        return

    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = f"wuyu_bench_{os.getpid()}"
    with psycopg.connect(url, autocommit=True) as admin:
        version = admin.info.server_version
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    os.environ["DATABASE_URL"] = urlunsplit(parts._replace(path=f"/{name}"))
    label = (
        f"PostgreSQL {version // 10000}.{version % 10000} at {parts.hostname}:{parts.port or 5432}"
    )
    try:
        yield f"{label}, db {name}"
    finally:
        os.environ["DATABASE_URL"] = url
        with psycopg.connect(url, autocommit=True) as admin:
            # FORCE (PostgreSQL 13+) ends any connection a crashed run left behind.
            drop = "DROP DATABASE IF EXISTS {} WITH (FORCE)" if version >= 130000 else None
            admin.execute(
                sql.SQL(drop or "DROP DATABASE IF EXISTS {}").format(sql.Identifier(name))
            )


# --- daphne ----------------------------------------------------------------------------------


@contextlib.contextmanager
def daphne_servers(count: int) -> Iterator[list[int]]:
    """``count`` daphne processes (their ports) for clients in this process, whose own garbage
    collector is kept from pausing what is measured (the servers' is left alone: it is part of
    the figures); the servers' commonest exception lines are printed once they have stopped."""
    gc.collect()
    gc.freeze()
    exceptions: Counter[str] = Counter()
    try:
        with contextlib.ExitStack() as servers:
            ports = [servers.enter_context(daphne_server(exceptions)) for _ in range(count)]
            gc.disable()
            try:
                yield ports
            finally:
                gc.enable()
    finally:
        for line, n in exceptions.most_common(3):
            print(f"daphne log: {n} x {line}")


SERVER_PIDS: dict[int, int] = {}  # port -> pid of each running daphne_server


def rss_mib(pid: int) -> float:
    """A process's resident memory now (Linux /proc; nan elsewhere)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return math.nan


EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception)\b.*$", re.MULTILINE)


@contextlib.contextmanager
def daphne_server(exceptions: Counter[str] | None = None) -> Iterator[int]:
    """One daphne process on a free loopback port, same environment; stopped on exit.

    ``exceptions``, when given, counts the exception lines of daphne's log (tracebacks' last
    lines), collected when the server stops.
    """
    port = free_port()
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115  (closed in finally)
        prefix="wuyu-bench-daphne-", suffix=".log", delete=False
    )
    command = [
        sys.executable,
        "-m",
        "daphne",
        "-b",
        "127.0.0.1",
        "-p",
        str(port),
        "config.asgi:application",
    ]
    process = subprocess.Popen(command, cwd=ROOT, env=dict(os.environ), stdout=log, stderr=log)
    ok = False
    try:
        wait_ready(process, port)
        SERVER_PIDS[port] = process.pid
        yield port
        ok = True
    finally:
        SERVER_PIDS.pop(port, None)
        process_stop(process)
        log.close()
        text = Path(log.name).read_text(errors="replace")
        os.unlink(log.name)
        if exceptions is not None:
            exceptions.update(m.group(0)[:200] for m in EXCEPTION_LINE.finditer(text))
        if not ok:
            print(f"--- daphne log (tail) ---\n{text[-3000:]}", file=sys.stderr)


def wait_ready(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode} before answering")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/api/ping")
            if connection.getresponse().status == 200:
                connection.close()
                return
            connection.close()
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"daphne did not answer /api/ping within {READY_SECONDS:.0f} s")


def process_stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate a server started for a run, killing it if it does not stop within 10 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
