"""``make bench``: every ``tests/bench/bench_*.py``, each in a process of its own, push first.

The figures are printed, never asserted. Each script sets up (and removes) what it needs; this
runner only shares one Redis between them: REDIS_URL, or an embedded one when it is unset
(``make bench`` already provides it). DATABASE_URL, when set, is passed on: each script makes a
fresh database of its own on that server.
"""

from __future__ import annotations

import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench.support import where  # noqa: E402

FIRST = "bench_push.py"
TIMEOUT_SECONDS = 600.0  # per script; then it is interrupted (its cleanup runs), then killed


def scripts() -> list[Path]:
    """The benchmark scripts, the push/login one first, the rest by name."""
    return sorted(HERE.glob("bench_*.py"), key=lambda path: (path.name != FIRST, path.name))


def run_one(script: Path, env: dict[str, str]) -> tuple[int | None, float]:
    """(exit code, None on timeout; seconds). Ctrl-C reaches the child too and is waited for."""
    start = time.monotonic()
    process = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, env=env)
    try:
        try:
            return process.wait(timeout=TIMEOUT_SECONDS), time.monotonic() - start
        except subprocess.TimeoutExpired:
            print(f"{script.name}: over {TIMEOUT_SECONDS:.0f} s, interrupting", file=sys.stderr)
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            return None, time.monotonic() - start
    except KeyboardInterrupt:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        raise


def main() -> int:
    from config.embedded import ensure_redis_url

    redis = ensure_redis_url()
    try:
        env = dict(os.environ)
        # Scripts run as files; let them import the project without arranging sys.path.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        found = scripts()
        print(
            f"benchmarks: {len(found)} script(s); Python {platform.python_version()} on "
            f"{platform.machine()}, {os.cpu_count()} CPUs; "
            f"database {where(env.get('DATABASE_URL'), 'SQLite (temp file per script)')}; "
            f"Redis {where(env.get('REDIS_URL'))}",
            flush=True,
        )
        results: list[tuple[str, int | None, float]] = []
        for script in found:
            print(f"\n=== {script.name} ===", flush=True)
            code, seconds = run_one(script, env)
            results.append((script.name, code, seconds))
        print("\n=== summary ===")
        for name, code, seconds in results:
            status = "ok" if code == 0 else ("timed out" if code is None else f"exit {code}")
            print(f"{name:<36} {status:<10} {seconds:6.1f} s")
        return 0 if all(code == 0 for _, code, _ in results) else 1
    except KeyboardInterrupt:
        return 130
    finally:
        if redis is not None:
            redis.stop()


if __name__ == "__main__":
    sys.exit(main())
