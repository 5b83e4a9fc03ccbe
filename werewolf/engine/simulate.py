"""Whole games played by the engine's bots, to see how a ruleset plays out.

    python -m werewolf.engine.simulate --ruleset lin_feng_061 --games 200

Seeds 1..N, each a whole game (``bots.Autoplay``) up to a cap of days; prints the share of
wins per faction (the ruleset's names), the days per game (mean, p50, max), the games the cap
stopped, and the engine's time per night (p50/p99, open to publication, the bots' own thinking
left out). ``simulate`` returns the figures for the bench and the tests.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .bots import Autoplay, Style
from .night import night_open, night_publish
from .ruleset import get_ruleset, ruleset_keys
from .state import GameState

NOBODY = "（无人胜利）"
TARGET_MS = 50.0


class TimedPlay(Autoplay):
    """An ``Autoplay`` that times the engine's calls of each night, open to publication."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.nights_ms: list[float] = []
        self._night_s: float | None = None

    def run(self, fn: Callable[..., tuple[GameState, Any]], *args: Any, **kw: Any) -> None:
        if fn is night_open:
            self._night_s = 0.0
        t0 = time.perf_counter()
        super().run(fn, *args, **kw)
        spent = time.perf_counter() - t0
        if self._night_s is not None:
            self._night_s += spent
            if fn is night_publish or self.state.phase == "over":
                self.nights_ms.append(self._night_s * 1000)
                self._night_s = None


@dataclass
class Figures:
    ruleset: str
    games: int
    wins: Counter[str] = field(default_factory=Counter)  # faction key ("" nobody) → games
    days: list[int] = field(default_factory=list)
    capped: int = 0
    nights_ms: list[float] = field(default_factory=list)
    paths: Counter[str] = field(default_factory=Counter)  # rule path → times taken

    def share(self, faction: str) -> float:
        return self.wins[faction] / self.games if self.games else 0.0


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def simulate(
    ruleset: str, games: int, *, first_seed: int = 1, max_days: int = 30, style: Style | None = None
) -> Figures:
    figures = Figures(ruleset, games)
    for seed in range(first_seed, first_seed + games):
        play = TimedPlay(ruleset, seed, style=style, max_days=max_days)
        state = play.play()
        if play.capped:
            figures.capped += 1
        else:
            figures.wins[state.winner or ""] += 1
        figures.days.append(state.day)
        figures.nights_ms.extend(play.nights_ms)
        figures.paths.update(play.paths)
    return figures


def report(f: Figures) -> list[str]:
    """The figures as lines, the factions under the ruleset's own names."""
    rs = get_ruleset(f.ruleset)
    lines = [f"{rs.name} ({f.ruleset}): {f.games} games"]
    lines.append("  win share per faction:")
    for key, faction in rs.factions.items():
        lines.append(f"    {faction.name:<8} {f.share(key):6.1%}  ({f.wins[key]})")
    lines.append(f"    {NOBODY:<8} {f.share(''):6.1%}  ({f.wins['']})")
    if f.days:
        lines.append(
            f"  days per game: mean {statistics.mean(f.days):.1f}, "
            f"p50 {pct(f.days, 0.5):.0f}, max {max(f.days)}"
        )
    lines.append(f"  games not ended by the cap: {f.capped}")
    p50, p99 = pct(f.nights_ms, 0.5), pct(f.nights_ms, 0.99)
    lines.append(
        f"  engine time per night ({len(f.nights_ms)} nights): p50 {p50:.2f} ms, "
        f"p99 {p99:.2f} ms (target ≤ {TARGET_MS:.0f} ms)"
    )
    lines.append(f"  rule paths taken: {len(f.paths)}")
    for kind in ("flip", "relic", "forfeit", "relic_curses", "scales"):
        taken = sorted((k, n) for k, n in f.paths.items() if k.startswith(kind + ":"))
        if taken:
            words = ", ".join(f"{k.split(':', 1)[1]} {n}" for k, n in taken)
            lines.append(f"    {kind}: {words}")
    never = untaken(f)
    lines.append(f"  skills never used: {', '.join(never) if never else 'none'}")
    return lines


def untaken(f: Figures) -> list[str]:
    """The ruleset's skills a player submits (a night step's, a window's, by day, a switch)
    that no simulated game used."""
    rs = get_ruleset(f.ruleset)
    found = []
    for key, sk in rs.skills.items():
        submitted = sk.step is not None or sk.window is not None or sk.by_day
        if (submitted or "开关" in sk.tags) and not f.paths[f"skill:{key}"]:
            found.append(f"{sk.name}({key})")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="whole role games played by the engine's bots")
    parser.add_argument("--ruleset", default="lin_feng_061", choices=ruleset_keys(unbuilt=True))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--max-days", type=int, default=30)
    args = parser.parse_args(argv)
    for line in report(simulate(args.ruleset, args.games, max_days=args.max_days)):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
