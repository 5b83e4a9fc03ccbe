"""Helpers the live benchmarks share: percentiles, a database and a daphne of their own.

Not a benchmark itself (its name does not start with ``bench_``). Importing it puts the project
root on ``sys.path``, so a benchmark run as a file can import the project.
"""

from __future__ import annotations

import contextlib
import http.client
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
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

READY_SECONDS = 30.0  # daphne must answer within this


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


def bench_environment() -> None:
    """Settings every live benchmark wants, set before Django loads; SIGTERM runs cleanups."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # Every request comes from 127.0.0.1: lift the login limits (only failures count anyway).
    os.environ["LOGIN_LIMIT_PER_ADDRESS"] = "1000000"
    os.environ["LOGIN_LIMIT_TOTAL"] = "1000000"
    # Keys of our own, so a shared Redis (tests, a dev server) neither disturbs nor is disturbed.
    os.environ["CHANNELS_PREFIX"] = f"bench{os.getpid()}"
    os.environ["CACHE_PREFIX"] = f"bench{os.getpid()}"
    signal.signal(signal.SIGTERM, raise_interrupt)


def close_connections() -> None:
    from django.db import connections

    connections.close_all()


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
        yield port
        ok = True
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        log.close()
        if exceptions is not None:
            text = Path(log.name).read_text(errors="replace")
            exceptions.update(m.group(0)[:200] for m in EXCEPTION_LINE.finditer(text))
        if not ok:
            tail = Path(log.name).read_text(errors="replace")[-3000:]
            print(f"--- daphne log (tail) ---\n{tail}", file=sys.stderr)
        os.unlink(log.name)


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
