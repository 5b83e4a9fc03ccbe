"""Benchmark of whole simulated games, days included: 40 bots, each ruleset, several seeds.

    python tests/bench/bench_royale_days.py [--games 7] [--bots 40] [--seed 1]

By day the bots vote, claim rewards, shop, bid, keep [252] stalls, give and trade, and the director
writes 阿呆's riddle, stocks the auction and answers exchanges; by night the bots act (and whisper
阿呆 their guesses). Prints each game (days, actions, what the days saw, times), then per ruleset
the p50 and max of a whole game's time and of one day's time (bots included), and the engine's
actions per second (every ``apply_action`` call over the time spent in the engine: transitions,
director steps and actions). Figures are printed, never asserted. Not collected by pytest.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from royale.engine.simulate import SimResult, ending, play, tally_line  # noqa: E402
from tests.bench.support import percentile, verdict  # noqa: E402

RULESETS = ("islington_256", "kimetsu_252")
TARGET_GAME_SECONDS = 1.0  # the engine benchmark's target for a whole game, days now included


def _ending(res: SimResult) -> str:
    s = res.state
    if s.winner is not None:
        return f"winner {s.characters[s.winner].name}"
    return "导演获胜" if s.phase == "over" else f"unfinished ({s.phase})"


def _line(res: SimResult) -> str:
    n: Counter[str] = Counter()
    for log in res.day_logs:
        n += log.counts
    rate = res.actions / res.engine_seconds
    return (
        f"  seed {res.seed:>3}: {res.days:>2} days {res.actions:>5} actions "
        f"(bought {n['shop_buy']:>3}, bids {n['bid']:>2}, stalls {n['stall_sold']:>2}, "
        f"riddle {n['riddle_right']:>2})  engine {res.engine_seconds * 1000:6.1f} ms  "
        f"game {res.total_seconds * 1000:6.1f} ms  {rate:>7,.0f} actions/s  {_ending(res)}"
    )


def bench(ruleset: str, games: int, bots: int, first_seed: int) -> None:
    play(ruleset, bots, first_seed)  # warm-up: imports, ruleset load, caches
    results = []
    print(f"\n{ruleset}, {bots} bots:")
    for i in range(games):
        res = play(ruleset, bots, first_seed + i)
        results.append(res)
        print(_line(res))
    game_s = [r.total_seconds for r in results]
    day_s = [log.seconds for r in results for log in r.day_logs]
    day_engine = [log.engine_seconds for r in results for log in r.day_logs]
    rates = [r.actions / r.engine_seconds for r in results]
    days = [r.days for r in results]
    print(f"  {games} games, {len(day_s)} days:")
    print(
        f"    whole game   p50 {percentile(game_s, 50) * 1000:7.1f} ms   "
        f"max {max(game_s) * 1000:7.1f} ms   "
        f"(target < {TARGET_GAME_SECONDS * 1000:.0f} ms: "
        f"{verdict(max(game_s) < TARGET_GAME_SECONDS)})"
    )
    print(
        f"    one day      p50 {percentile(day_s, 50) * 1000:7.1f} ms   "
        f"max {max(day_s) * 1000:7.1f} ms   "
        f"(in the engine: p50 {percentile(day_engine, 50) * 1000:.1f} ms, "
        f"max {max(day_engine) * 1000:.1f} ms)"
    )
    print(f"    engine       p50 {percentile(rates, 50):,.0f} actions/s   min {min(rates):,.0f}")
    print(f"    days a game  p50 {percentile(days, 50):.0f}   max {max(days)}")
    print(f"    endings      {tally_line(ruleset, [ending(r) for r in results])}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="royale full-game (days included) benchmark")
    parser.add_argument("--games", type=int, default=7, help="games per ruleset")
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1, help="first seed; game i uses seed + i")
    args = parser.parse_args(argv)
    for ruleset in RULESETS:
        bench(ruleset, args.games, args.bots, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
