"""Benchmark of whole role games: 200 games of [061] 林峰 played by the engine's bots.

    python tests/bench/bench_werewolf_games.py [--games 200] [--ruleset lin_feng_061]

Prints the win share per faction, the days per game (mean/p50/max), the games a 30-day cap
stopped, and the engine's time per night (p50/p99, target ≤ 50 ms) — the simulator's report
(``python -m werewolf.engine.simulate``). Figures are printed, never asserted. Not collected by
pytest (its name does not start with ``test_``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from werewolf.engine.simulate import TARGET_MS, pct, report, simulate  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="whole role games played by bots")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--ruleset", default="lin_feng_061")
    args = parser.parse_args(argv)
    simulate(args.ruleset, 1, first_seed=0)  # warm-up: imports, ruleset load
    start = time.perf_counter()
    figures = simulate(args.ruleset, args.games)
    seconds = time.perf_counter() - start
    for line in report(figures):
        print(line)
    print(f"  wall time: {seconds:.1f} s for {args.games} games (bots included)")
    met = pct(figures.nights_ms, 0.99) <= TARGET_MS
    print("  targets met" if met else "  TARGETS MISSED")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
