"""Benchmark of the royale engine: the simulator's 40-bot full game.

    python tests/bench/bench_royale_engine.py [--runs 7] [--ruleset islington_256] [--bots 40]

Prints engine actions per second (every ``apply_action`` call, applied or refused, over the time
spent inside the engine) and the wall time of a whole game (bots included), as the median of
several runs with different seeds. Targets: ≥ 20,000 actions/s and a whole game < 1 s.
Not collected by pytest (its name does not start with ``test_``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from royale.engine.simulate import play  # noqa: E402

TARGET_RATE = 20_000
TARGET_GAME_SECONDS = 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="royale engine benchmark")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--ruleset", default="islington_256")
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7, help="first seed; run i uses seed + i")
    args = parser.parse_args(argv)

    play(args.ruleset, args.bots, args.seed)  # warm-up: imports, ruleset load, caches
    rates, totals, engines, actions, days = [], [], [], [], []
    for i in range(args.runs):
        res = play(args.ruleset, args.bots, args.seed + i)
        rates.append(res.actions / res.engine_seconds)
        totals.append(res.total_seconds)
        engines.append(res.engine_seconds)
        actions.append(res.actions)
        days.append(res.days)
        engine_ms, game_ms = res.engine_seconds * 1000, res.total_seconds * 1000
        print(
            f"  run {i + 1}: seed {args.seed + i:>3} {res.actions:>5} actions {res.days:>2} days "
            f"engine {engine_ms:7.1f} ms  game {game_ms:7.1f} ms  {rates[-1]:>9,.0f} actions/s"
        )
    rate = statistics.median(rates)
    total = statistics.median(totals)
    print(f"\n{args.ruleset}, {args.bots} bots, median of {args.runs} runs:")
    print(f"  engine actions/s : {rate:,.0f}   (target ≥ {TARGET_RATE:,})")
    limit_ms = TARGET_GAME_SECONDS * 1000
    print(f"  whole game       : {total * 1000:.1f} ms   (target < {limit_ms:.0f} ms)")
    print(f"  time in engine   : {statistics.median(engines) * 1000:.1f} ms")
    print(
        f"  actions per game : {statistics.median(actions):.0f}, days {statistics.median(days):.0f}"
    )
    ok = rate >= TARGET_RATE and total < TARGET_GAME_SECONDS
    # Figures are printed, never asserted (tests/bench/run.py runs every bench the same way).
    print("  targets met" if ok else "  TARGETS MISSED")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
