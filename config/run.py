"""``make run``: migrate, load the demo, and serve daphne + a Celery worker + beat.

Ctrl-C (or SIGTERM) stops every process this started, and the embedded Redis with them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from types import FrameType

from config.embedded import ensure_redis_url


def _manage(*args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], check=True)  # noqa: S603


def main() -> int:
    port = os.environ.get("PORT", "8000")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    redis = ensure_redis_url()
    children: list[subprocess.Popen[bytes]] = []

    def stop(signum: int = 0, frame: FrameType | None = None) -> None:
        for child in children:
            if child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + 10
        for child in children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
        if redis is not None:
            redis.stop()

    # Ctrl-C and SIGTERM both end in the same clean stop, even when started in the background
    # (where a shell leaves SIGINT ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        _manage("migrate", "--noinput", "-v", "0")
        _manage("demo_load", "--host", f"127.0.0.1:{port}")
        _manage("werewolf_demo_load", "--host", f"127.0.0.1:{port}")
        bin_dir = os.path.dirname(sys.executable)
        commands = [
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                port,
                "config.asgi:application",
            ],
            [
                os.path.join(bin_dir, "celery"),
                "-A",
                "config",
                "worker",
                "-l",
                "warning",
                "--concurrency",
                "2",
            ],
            [os.path.join(bin_dir, "celery"), "-A", "config", "beat", "-l", "warning"],
        ]
        for command in commands:
            children.append(subprocess.Popen(command))  # noqa: S603
        print(f"serving on http://127.0.0.1:{port}/  (Ctrl-C stops everything)", flush=True)
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
        print("a process stopped; shutting down the rest", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        stop()


if __name__ == "__main__":
    sys.exit(main())
