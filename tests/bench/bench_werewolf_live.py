"""Benchmark of a [099] night through the shell: submitted, resolved and published.

    python tests/bench/bench_werewolf_live.py [--nights 20]

Each run is a fresh 18-player game: night 1 opens (the director's start); every role with a
night skill submits through ``werewolf_action_submit`` (the wolves elect a 主刀狼 who kills,
the white wolf kills, the seer divines, the guard protects, the lover admires); the scheduler's
deadline passes close the steps (the witch's turn opens and passes, and the draft is made);
then the director reads the draft and publishes it: the row lock, the engine, the logged step,
the events with their audiences, the characters' rows and the pushes after commit. Printed,
never asserted: the targets are ≤ 50 ms in the engine (bench_werewolf_engine.py) and ≤ 1 s to
publish.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench.support import bench_run, django_migrated, percentile, where  # noqa: E402

PUBLISH_TARGET_MS = 1000.0
# The engine tests' seats: 1-4 狼人, 5 白眼狼, 6 先知, 7 女巫, 8 守护, 9 情痴, 15-18 村民 ...
SEATS = {
    **dict.fromkeys((1, 2, 3, 4), "wolf"),
    5: "white_wolf",
    6: "seer",
    7: "witch",
    8: "guard",
    9: "lover",
    10: "chief",
    11: "hunter",
    12: "monk",
    13: "idiot",
    14: "dreamer",
    **dict.fromkeys((15, 16, 17, 18), "villager"),
}
# (seat, skill, target seat) in submission order
NIGHT = [
    *((w, "elect", 1) for w in (1, 2, 3, 4)),
    (1, "wolf_kill", 16),  # the elected 主刀狼's kill closes the wolves' step
    (5, "white_kill", 17),
    (6, "divine", 1),
    (8, "protect", 10),
    (9, "admire", 15),
]


def night(number: str, close: dt.datetime) -> dict[str, float]:
    from django.contrib.auth.models import User

    from games import services as game_services
    from games.models import Character, GameStatus
    from werewolf import services

    director, _ = User.objects.get_or_create(username="bench-director", is_staff=True)
    game = game_services.game_create(
        kind="werewolf",
        ruleset="arknights_099",
        number=number,
        title="基准测试",
        status=GameStatus.RUNNING,
    )
    Character.objects.bulk_create(Character(game=game, name=f"P{seat}") for seat in SEATS)
    ids = {int(c.name[1:]): c.pk for c in game.characters.all()}
    services.werewolf_setup(
        game=game,
        roles={ids[s]: r for s, r in SEATS.items()},
        genders={pk: "男" if s % 2 else "女" for s, pk in ids.items()},
    )
    services.werewolf_start(game=game, director=director, now=close)
    started = time.perf_counter()
    for seat, skill, target in NIGHT:
        services.werewolf_action_submit(
            game_id=game.pk,
            character_id=ids[seat],
            data={"kind": "use_skill", "skill": skill, "targets": [ids[target]]},
            key=None,
            now=close + dt.timedelta(minutes=5),
        )
    submitted = time.perf_counter()
    services.werewolf_deadlines_run(now=close + dt.timedelta(minutes=31))
    services.werewolf_deadlines_run(now=close + dt.timedelta(minutes=62))
    deadlines = time.perf_counter()
    draft = services.werewolf_night_resolve(game=game, director=director)
    resolved = time.perf_counter()
    services.werewolf_night_publish(game=game, director=director, reason="基准测试")
    published = time.perf_counter()
    assert draft["hits"], "the wolves' kill should land"
    return {
        "submit (9 skills)": (submitted - started) * 1000,
        "deadline passes": (deadlines - submitted) * 1000,
        "resolve (draft)": (resolved - deadlines) * 1000,
        "publish": (published - resolved) * 1000,
    }


def run(args: argparse.Namespace, db_label: str) -> int:
    django_migrated()
    print(
        f"werewolf live benchmark: {db_label}; Redis {where(os.environ.get('REDIS_URL'))}; "
        f"18 players of [099], {args.nights} nights (one fresh game each) after a warm-up"
    )
    close = dt.datetime(2026, 12, 1, 21, 0, tzinfo=dt.UTC)
    night("warm", close)
    rows: dict[str, list[float]] = {}
    for i in range(args.nights):
        for name, value in night(f"b{i}", close).items():
            rows.setdefault(name, []).append(value)
    print(f"{'ms':<22}{'p50':>9}{'p99':>9}{'max':>9}")
    for name, values in rows.items():
        print(
            f"{name:<22}{percentile(values, 50):>9.1f}{percentile(values, 99):>9.1f}"
            f"{max(values):>9.1f}"
        )
    p99 = percentile(rows["publish"], 99)
    verdict = "ok" if p99 <= PUBLISH_TARGET_MS else "MISSED"
    print(f"publish p99 {p99:.1f} ms (target ≤ {PUBLISH_TARGET_MS:.0f} ms: {verdict})")
    return 0


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--nights", type=int, default=20)
    args = parser.parse_args(argv)
    return bench_run(lambda db_label: run(args, db_label))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
