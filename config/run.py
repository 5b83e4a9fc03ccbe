"""``make run``: migrate, load the demo, and serve daphne + a Celery worker + beat.

Ctrl-C (or SIGTERM) stops every process this started, and the embedded Redis with them.

Every child runs in a session of its own, so the terminal's Ctrl-C (sent to the whole
foreground process group, ``make`` included) reaches only this runner, which then asks each
child to stop exactly once. Once stopping has begun, further SIGINT/SIGTERM are only recorded:
a second Ctrl-C cannot cut the shutdown short and leave the embedded Redis behind.

``RUN_SKIP_DEMO=1`` skips the demo loading (the tests' quick start).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from types import FrameType

from config.embedded import ensure_redis_url

STOP_SECONDS = 10.0  # how long children get to exit after SIGTERM before SIGKILL
# Beat writes its whole schedule to the database as it starts, and its SIGTERM handler saves
# from inside whatever it is doing: a signal in that window ends in a traceback about a closed
# database. So beat is only signalled once it has run this long (seconds; its start takes
# about one on a quiet machine, a few under load); Ctrl-C right after the start waits for it.
BEAT_SETTLE_SECONDS = 8.0


class _Signals:
    """SIGINT/SIGTERM: the first asks to stop; later ones are recorded and otherwise ignored.

    While ``interruptible`` (the migrate and demo commands), the first signal raises
    KeyboardInterrupt so a long command is cut short; otherwise it only sets ``requested``,
    which the main loop polls.
    """

    def __init__(self) -> None:
        self.requested = False
        self.interruptible = False
        self.count = 0

    def install(self) -> None:
        # Installed even when started in the background (where a shell leaves SIGINT ignored).
        signal.signal(signal.SIGINT, self.handle)
        signal.signal(signal.SIGTERM, self.handle)

    def handle(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        if self.requested:
            return
        self.requested = True
        if self.interruptible:
            self.interruptible = False
            raise KeyboardInterrupt


def _manage(signals: _Signals, *args: str) -> None:
    if signals.requested:
        raise KeyboardInterrupt
    signals.interruptible = True
    try:
        # Own session: Ctrl-C reaches the runner only; on KeyboardInterrupt run() kills it.
        subprocess.run(  # noqa: S603
            [sys.executable, "manage.py", *args], check=True, start_new_session=True
        )
    finally:
        signals.interruptible = False


def _kill_group(pid: int) -> None:
    """SIGKILL whatever is left of a child's process group (e.g. a worker's pool processes)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _stop_children(children: list[subprocess.Popen[bytes]], beat_at: float | None) -> None:
    if beat_at is not None:
        time.sleep(max(0.0, beat_at + BEAT_SETTLE_SECONDS - time.monotonic()))
    for child in children:
        if child.poll() is None:
            child.terminate()  # once, to the child itself; it stops its own helpers
    deadline = time.monotonic() + STOP_SECONDS
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            print(f"pid {child.pid} did not stop in time; killing it", file=sys.stderr)
            _kill_group(child.pid)
            child.wait()
    for child in children:
        _kill_group(child.pid)


def _commands(port: str) -> list[list[str]]:
    bin_dir = os.path.dirname(sys.executable)
    celery = os.path.join(bin_dir, "celery")
    return [
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", port, "config.asgi:application"],
        [celery, "-A", "config", "worker", "-l", "warning", "--concurrency", "2"],
        [celery, "-A", "config", "beat", "-l", "warning"],
    ]


def main() -> int:
    port = os.environ.get("PORT", "8000")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    signals = _Signals()
    signals.install()
    redis = ensure_redis_url()
    children: list[subprocess.Popen[bytes]] = []
    beat_at: float | None = None
    try:
        _manage(signals, "migrate", "--noinput", "-v", "0")
        if os.environ.get("RUN_SKIP_DEMO", "") not in ("", "0"):
            print("RUN_SKIP_DEMO set: no demo loaded", file=sys.stderr)
        else:
            _manage(signals, "demo_load", "--host", f"127.0.0.1:{port}")
            _manage(signals, "werewolf_demo_load", "--host", f"127.0.0.1:{port}")
        for command in _commands(port):
            if signals.requested:
                return 0
            children.append(subprocess.Popen(command, start_new_session=True))  # noqa: S603
            if "beat" in command:
                beat_at = time.monotonic()
        print(f"serving on http://127.0.0.1:{port}/  (Ctrl-C stops everything)", flush=True)
        while not signals.requested:
            if any(child.poll() is not None for child in children):
                print("a process stopped; shutting down the rest", file=sys.stderr)
                return 1
            time.sleep(0.2)
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        # From here on every SIGINT/SIGTERM is only recorded (the handler never raises again).
        signals.requested = True
        signals.interruptible = False
        try:
            _stop_children(children, beat_at)
        finally:
            if redis is not None:
                redis.stop()
        print("stopped", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
