"""Benchmark of a werewolf night through the shell, [099], [061] and [096]: submitted, published.

    python tests/bench/bench_werewolf_live.py [--nights 20]

Each night is a fresh game's night 1, the three rulesets taking turns so that all see the same
machine and database in the same run:

[099], 18 players: night 1 opens (the director's start); every role with a night skill submits
through ``werewolf_action_submit`` (the wolves elect a 主刀狼 who kills, the white wolf kills,
the seer divines, the guard protects, the lover admires); the wolves' kill has opened the
witch's turn, so the scheduler's first deadline pass (at 31 minutes) finds nothing due and the
second (at 62) lets her turn pass and makes the draft.

[061] 林峰, 19 players, one of each role: the game is prepared as a director does (characters
with passwords, ``werewolf_setup``, ``game_start``), its 开局夜 runs out (附身, 遇难, 票台 drawn
from the seed) and day 1 is published; the scheduler's ``transitions_run_due`` closes day 1 and
opens night 1; 14 submissions (铁柱 票台/诅咒, 野心家 独尊, 妖狐 狡黠, 洞察者 明察, 吹笛者 吹笛,
狼王 统领, 狼判官 审判/献策, 狼后 杀人, 游侠 查证/磐石, 宝藏 预言/传音); the 灵能 has nobody to
感知 (no vote-out on day 1) and the 游侠 keeps its 守护, so the scheduler's deadline pass just
after 关门四十分钟 forfeits their steps and makes the draft. The 毒士 has no ‹炼› mark on night 1,
so 鸩毒 (and with it 救治/杀人) is not yet his to use. The scheduler's clock is set with
time-machine where the shell reads the wall clock (the transition, the publish); the timings use
``perf_counter``, which it leaves alone.

[096] 名侦探柯南, 22 players on the engine tests' seats (``support_096``), still ``"built":
false``: dealt under ``WEREWOLF_PREVIEW_RULESETS`` (overridden for its nights only). The game is
prepared as a director does (侦探1 … 侦探22 with passwords, roles set by hand, ``game_start``:
the empty 开局夜 is drafted at once and published at day 1's open); a wolf's 藏匿 by day names
the 魔像; the scheduler's ``transitions_run_due`` at 关门 (21:00) opens night 1 (藏匿 gives him
the relic, his 共鸣 stops the curse); 18 submissions a minute later (魔像 援护, 树妖 缠绕, 巫师
咒术, 德鲁伊 森林先知, 灯神 许愿 and the wished 精灵's choice, 祝福 ×7, 美杜莎 魔眼, 游侠 穿心箭,
狼人 撕咬, 黑龙 龙息, 驱魔人 九星金光咒); the steps still open (the 独角兽's 净化洗礼, the bound
second 游侠's 穿心箭, the held 撕咬 and 啃咬 steps) keep the night until the scheduler's deadline
pass at 22:16 makes the draft: 德鲁伊, 巫师, 魔像 and 狼王 out, the bite voided by 祝福.

Then, for all three, the director reads the draft and publishes it: the row lock, the engine, the
logged step, the events with their audiences, the characters' rows and the pushes after commit.
Each game is set aside (finished) after its night, so the scheduler's scans stay one game long.
Printed, never asserted: the targets are ≤ 50 ms in the engine (bench_werewolf_engine.py) and
≤ 1 s to publish.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench.support import (  # noqa: E402
    bench_run,
    django_migrated,
    percentile,
    ratio,
    verdict,
    where,
)
from tests.werewolf.engine.support_096 import (  # noqa: E402  (the engine tests' seats)
    DRAGON,
    DRUID,
    DRYAD,
    ELVES,
    EXORCIST,
    GENIE,
    GOLEM,
    MEDUSA,
    RANGER_A,
    RANGER_B,
    WIZARD,
    WOLF_KING,
    WOLVES,
)
from tests.werewolf.engine.support_096 import SEATS as SEATS_096  # noqa: E402

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from games.models import Game

PUBLISH_TARGET_MS = 1000.0
Rows = dict[str, list[float]]

# --- [099] ------------------------------------------------------------------------------------

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

# --- [061] ------------------------------------------------------------------------------------

RULESET_061 = "lin_feng_061"
START_061 = dt.date(2026, 11, 2)  # a Monday: day 1 is two calendar days (no weekend extra)
# (role, skill, target roles, option) in submission order; the 铁柱's 票台 is worked out from
# the state (a third of the living, none of the 开局夜's), see ``stage_targets``.
NIGHT_061: list[tuple[str, str, tuple[str, ...], str | None]] = [
    ("pillar", "curse", ("wolf_judge",), None),
    ("ambitious", "supreme", ("wolf_hunter",), None),
    ("fox", "cunning", ("wolf_queen",), "wolf_queen"),
    ("seer", "insight", ("angel",), None),
    ("piper", "pipe", ("ranger",), None),
    ("wolf_king", "command", ("fox", "wolf_hunter"), None),
    ("wolf_judge", "judge", ("ambitious", "shadow", "ranger"), None),
    ("wolf_judge", "advise", ("treasure", "keeper"), None),
    ("wolf_queen", "kill", ("angel",), None),
    ("ranger", "verify", ("wolf_queen",), "publish"),
    ("ranger", "rock", ("seer",), None),
    ("treasure", "prophecy", ("wolf_king",), None),
    ("treasure", "whisper", (), "今晚小心"),
]
SUBMISSIONS_061 = len(NIGHT_061) + 1  # and the 票台


# --- [096] ------------------------------------------------------------------------------------

RULESET_096 = "conan_096"
START_096 = dt.date(2026, 11, 1)  # the [096] tests' start: 关门 21:00, the night's steps to 22:15
HIDDEN = GOLEM  # 藏匿's pick by day: 共鸣 keeps the night's open curse off him
BLESSED = ELVES[3]  # six 祝福 on him, one from him: the bite on him is voided
# (seat, skill, target seats, option) in submission order, a minute after the close.
NIGHT_096: list[tuple[int, str, tuple[int, ...], str | None]] = [
    (GOLEM, "cover", (), "unicorn"),  # 援护 (限定): what aims at the 独角兽 tonight hits him
    (DRYAD, "entangle", (RANGER_B,), None),  # 束缚: the second 游侠 sits the night out
    (WIZARD, "hex", (ELVES[4], ELVES[5]), None),  # 咒术: 侦探5 and 侦探6 chained
    (DRUID, "forest_seer", (HIDDEN,), None),
    (GENIE, "wish", (ELVES[6],), None),
    (ELVES[6], "wish_effect", (), "1"),  # the wished one: immune to one damage
    *((e, "bless", (BLESSED,), None) for e in ELVES if e != BLESSED),
    (BLESSED, "bless", (ELVES[4],), None),
    (MEDUSA, "evil_eye", (ELVES[5],), None),  # 石化, passed on to 侦探5 by the 咒术
    (RANGER_A, "heart_arrow", (WOLF_KING,), None),
    (WOLVES[0], "bite", (BLESSED,), None),
    (DRAGON, "breath", (DRUID, WIZARD), None),  # one damage each
    (EXORCIST, "nine_stars", (HIDDEN,), None),  # the relic's holder: a second damage
]


def director() -> User:
    from django.contrib.auth.models import User

    user, _ = User.objects.get_or_create(username="bench-director", is_staff=True)
    return user


def set_aside(game: Game) -> None:
    """The night measured, the game leaves the scheduler's scans (untimed)."""
    from games.models import Game, GameStatus

    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)


def submit(game: Game, character_id: int, data: dict[str, Any], now: dt.datetime) -> float:
    """One player's submission through the shell; its time in ms."""
    from werewolf import services

    started = time.perf_counter()
    services.werewolf_action_submit(
        game_id=game.pk, character_id=character_id, data=data, key=None, now=now
    )
    return (time.perf_counter() - started) * 1000


def night_099(number: str, close: dt.datetime) -> Rows:
    from games import services as game_services
    from games.models import Character, GameStatus
    from werewolf import services, store

    by = director()
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
    services.werewolf_start(game=game, director=by, now=close)
    at = close + dt.timedelta(minutes=5)
    each = [
        submit(game, ids[seat], {"kind": "use_skill", "skill": skill, "targets": [ids[target]]}, at)
        for seat, skill, target in NIGHT
    ]
    started = time.perf_counter()
    services.werewolf_deadlines_run(now=close + dt.timedelta(minutes=31))
    first = time.perf_counter()
    services.werewolf_deadlines_run(now=close + dt.timedelta(minutes=62))
    second = time.perf_counter()
    assert store.state_load(game).phase == "late", "the second deadline pass makes the draft"
    resolving = time.perf_counter()
    draft = services.werewolf_night_resolve(game=game, director=by)
    resolved = time.perf_counter()
    services.werewolf_night_publish(game=game, director=by, reason="基准测试")
    published = time.perf_counter()
    assert draft["hits"], "the wolves' kill should land"
    set_aside(game)
    return {
        f"submit ({len(NIGHT)} skills)": [sum(each)],
        "one submission": each,
        "deadline pass (none due)": [(first - started) * 1000],
        "deadline pass (draft)": [(second - first) * 1000],
        "resolve (reads draft)": [(resolved - resolving) * 1000],
        "publish": [(published - resolved) * 1000],
    }


def stage_targets(game: Game) -> list[int]:
    """票台: a third of the living (rounded down), none the 铁柱 named the night before."""
    from werewolf import store

    state = store.state_load(game)
    last = set(state.flags.get("lf_stage_last", []))
    living = sorted((p.id for p in state.players.values() if p.alive), reverse=True)
    return [pid for pid in living if pid not in last][: len(living) // 3]


def night_061(number: str) -> Rows:
    import time_machine

    from games import services as game_services
    from games.models import Character
    from werewolf import services, store
    from werewolf.engine import get_ruleset

    by = director()
    roles = list(get_ruleset(RULESET_061).roles)
    # As a director prepares it: the game, its characters with their passwords, the deal.
    game = game_services.game_create(
        kind="werewolf", ruleset=RULESET_061, number=number, title="林峰", start_date=START_061
    )
    game.directors.add(by)
    Character.objects.bulk_create(Character(game=game, name=f"演员{n}") for n in range(1, 20))
    game_services.character_passwords_generate(game=game, director=by)
    names = {c.name: c.pk for c in game.characters.all()}
    ids = {role: names[f"演员{n}"] for n, role in enumerate(roles, 1)}
    services.werewolf_setup(game=game, roles={ids[r]: r for r in roles})
    timetable = game.timetable()
    day_1 = timetable.due_at(1, "day_open")
    night_0 = day_1 - dt.timedelta(hours=2)
    game_services.game_start(game=game, director=by, now=night_0)
    # The 开局夜 runs out; day 1 is published in its morning.
    services.werewolf_deadlines_run(now=night_0 + dt.timedelta(minutes=62))
    morning = day_1 + dt.timedelta(hours=8)
    with time_machine.travel(morning, tick=True) as clock:
        game_services.transitions_run_due(now=morning)
        if store.state_load(game).phase != "day":
            services.werewolf_night_publish(game=game, director=by, reason="")
        # 关门: the scheduler's tick closes day 1 and opens night 1.
        close = timetable.due_at(1, "day_close")
        clock.move_to(close)
        opening = time.perf_counter()
        game_services.transitions_run_due(now=close)
        opened = time.perf_counter()
        assert store.state_load(game).phase == "night", "the close opens night 1"
        at = close + dt.timedelta(minutes=5)
        clock.move_to(at)
        stage = {"kind": "use_skill", "skill": "stage", "targets": stage_targets(game)}
        each = [submit(game, ids["pillar"], stage, at)]
        for role, skill, targets, option in NIGHT_061:
            data: dict[str, Any] = {
                "kind": "use_skill",
                "skill": skill,
                "targets": [ids[t] for t in targets],
            }
            if option is not None:
                data["option"] = option
            each.append(submit(game, ids[role], data, at))
        assert store.state_load(game).phase == "night", "the 灵能 and the 游侠 keep it open"
        # 关门四十分钟: the 灵能's and the 游侠's steps are forfeited and the draft is made.
        passing = close + dt.timedelta(minutes=41)
        clock.move_to(passing)
        started = time.perf_counter()
        services.werewolf_deadlines_run(now=passing)
        drafted = time.perf_counter()
        assert store.state_load(game).phase == "late", "the deadline pass makes the draft"
        clock.move_to(passing + dt.timedelta(minutes=5))
        resolving = time.perf_counter()
        draft = services.werewolf_night_resolve(game=game, director=by)
        resolved = time.perf_counter()
        services.werewolf_night_publish(game=game, director=by, reason="基准测试")
        published = time.perf_counter()
    assert [ids["angel"], "杀人"] in [h[:2] for h in draft["hits"]], "the 狼后's kill should land"
    assert store.state_load(game).phase == "day", "published: day 2"
    set_aside(game)
    return {
        "day close, night open": [(opened - opening) * 1000],
        f"submit ({SUBMISSIONS_061} skills)": [sum(each)],
        "one submission": each,
        "deadline pass (draft)": [(drafted - started) * 1000],
        "resolve (reads draft)": [(resolved - resolving) * 1000],
        "publish": [(published - resolved) * 1000],
    }


def night_096(number: str) -> Rows:
    """[096] night 1, the ruleset still ``"built": false``: dealt under the preview setting."""
    from django.test.utils import override_settings

    with override_settings(WEREWOLF_PREVIEW_RULESETS=True):
        return _night_096(number)


def _night_096(number: str) -> Rows:
    import time_machine

    from games import services as game_services
    from games.models import Character
    from werewolf import services, store

    by = director()
    # As a director prepares it (test_pages_096): 22 马甲 with passwords, roles set by hand.
    game = game_services.game_create(
        kind="werewolf",
        ruleset=RULESET_096,
        number=number,
        title="名侦探柯南",
        start_date=START_096,
    )
    game.directors.add(by)
    Character.objects.bulk_create(Character(game=game, name=f"侦探{n}") for n in SEATS_096)
    game_services.character_passwords_generate(game=game, director=by)
    ids = {int(c.name[2:]): c.pk for c in game.characters.all()}
    services.werewolf_setup(game=game, roles={ids[s]: r for s, r in SEATS_096.items()})
    timetable = game.timetable()
    day_1 = timetable.due_at(1, "day_open")
    game_services.game_start(game=game, director=by, now=day_1 - dt.timedelta(hours=2))
    assert store.state_load(game).phase == "late", "the empty 开局夜 is drafted at once"
    opening_day = day_1 + dt.timedelta(minutes=1)
    with time_machine.travel(opening_day, tick=True) as clock:
        # Day 1 opens and its (empty) night is published; 藏匿 by day.
        game_services.transitions_run_due(now=opening_day)
        if store.state_load(game).phase == "late":
            services.werewolf_night_publish(game=game, director=by, reason="")
        assert store.state_load(game).phase == "day"
        by_day = day_1 + dt.timedelta(hours=10)
        clock.move_to(by_day)
        hide = {"kind": "use_skill", "skill": "hide", "targets": [ids[HIDDEN]]}
        submit(game, ids[WOLVES[0]], hide, by_day)
        # 关门 (21:00): the scheduler's tick settles the day and opens night 1 (藏匿, the curse).
        close = timetable.due_at(1, "day_close")
        clock.move_to(close)
        opening = time.perf_counter()
        game_services.transitions_run_due(now=close)
        opened = time.perf_counter()
        state = store.state_load(game)
        assert (state.phase, state.day) == ("night", 1), "the close opens night 1"
        assert state.flags["relic"]["holder"] == ids[HIDDEN], "藏匿 gave him the relic"
        at = close + dt.timedelta(minutes=1)
        clock.move_to(at)
        each = []
        for seat, skill, targets, option in NIGHT_096:
            data: dict[str, Any] = {
                "kind": "use_skill",
                "skill": skill,
                "targets": [ids[t] for t in targets],
            }
            if option is not None:
                data["option"] = option
            each.append(submit(game, ids[seat], data, at))
        assert store.state_load(game).phase == "night", "the steps not taken keep it open"
        # 22:16: every step's deadline (the last at 22:15) has passed; the draft is made.
        passing = close + dt.timedelta(minutes=76)
        clock.move_to(passing)
        started = time.perf_counter()
        services.werewolf_deadlines_run(now=passing)
        drafted = time.perf_counter()
        assert store.state_load(game).phase == "late", "the deadline pass makes the draft"
        clock.move_to(passing + dt.timedelta(minutes=5))
        resolving = time.perf_counter()
        services.werewolf_night_resolve(game=game, director=by)
        resolved = time.perf_counter()
        services.werewolf_night_publish(game=game, director=by, reason="基准测试")
        published = time.perf_counter()
    state = store.state_load(game)
    assert state.phase == "day", "published: day 2"
    out = {seat for seat, pk in ids.items() if not state.players[pk].alive}
    # 龙息 (the 德鲁伊, the 巫师), 九星金光咒 twice on the holder, 穿心箭; 祝福 voids the bite.
    assert out == {DRUID, WIZARD, GOLEM, WOLF_KING}, sorted(out)
    set_aside(game)
    return {
        "day close, night open": [(opened - opening) * 1000],
        f"submit ({len(NIGHT_096)} skills)": [sum(each)],
        "one submission": each,
        "deadline pass (draft)": [(drafted - started) * 1000],
        "resolve (reads draft)": [(resolved - resolving) * 1000],
        "publish": [(published - resolved) * 1000],
    }


def collect(rows: Rows, night: Rows) -> None:
    for name, values in night.items():
        rows.setdefault(name, []).extend(values)


def table(title: str, rows: Rows) -> None:
    print(f"\n{title}")
    print(f"{'ms':<26}{'n':>6}{'p50':>9}{'p99':>9}{'max':>9}")
    for name, values in rows.items():
        print(
            f"{name:<26}{len(values):>6}{percentile(values, 50):>9.1f}"
            f"{percentile(values, 99):>9.1f}{max(values):>9.1f}"
        )


def compare(runs: dict[str, Rows]) -> None:
    """p50/p99 of each ruleset side by side, each as a multiple of [099]'s, and the target."""
    base = "099"
    others = [label for label in runs if label != base]
    print(f"\n{', '.join(f'[{o}]' for o in others)} against [{base}], same run")
    head = f"{'ms':<26}" + "".join(f"{f'{label} p50':>9}{f'{label} p99':>9}" for label in runs)
    head += "".join(f"{f'{o} p50 x':>10}{f'{o} p99 x':>10}" for o in others)
    print(head)
    for name in ("one submission", "deadline pass (draft)", "publish"):
        p50 = {label: percentile(rows[name], 50) for label, rows in runs.items()}
        p99 = {label: percentile(rows[name], 99) for label, rows in runs.items()}
        line = f"{name:<26}" + "".join(f"{p50[label]:>9.1f}{p99[label]:>9.1f}" for label in runs)
        line += "".join(
            f"{ratio(p50[o], p50[base]):>10}{ratio(p99[o], p99[base]):>10}" for o in others
        )
        print(line)
    for label, rows in runs.items():
        p99_ms = percentile(rows["publish"], 99)
        target = f"target ≤ {PUBLISH_TARGET_MS:.0f} ms: {verdict(p99_ms <= PUBLISH_TARGET_MS)}"
        print(f"[{label}] publish p99 {p99_ms:.1f} ms ({target})")


def run(args: argparse.Namespace, db_label: str) -> int:
    django_migrated()
    print(
        f"werewolf live benchmark: {db_label}; Redis {where(os.environ.get('REDIS_URL'))}; "
        f"{args.nights} nights of each ruleset, taking turns (one fresh game each), after a "
        f"warm-up of each: [099] 18 players, [061] {RULESET_061} 19 players, "
        f"[096] {RULESET_096} 22 players"
    )
    close = dt.datetime(2026, 12, 1, 21, 0, tzinfo=dt.UTC)
    night_099("warm", close)
    night_061("warm-061")
    night_096("warm-096")
    rows_099: Rows = {}
    rows_061: Rows = {}
    rows_096: Rows = {}
    for i in range(args.nights):
        collect(rows_099, night_099(f"b{i}", close))
        collect(rows_061, night_061(f"l{i}"))
        collect(rows_096, night_096(f"c{i}"))
    table("[099] 18 players", rows_099)
    table(f"[061] {RULESET_061}, 19 players", rows_061)
    table(f"[096] {RULESET_096}, 22 players (preview ruleset)", rows_096)
    compare({"099": rows_099, "061": rows_061, "096": rows_096})
    return 0


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--nights", type=int, default=20)
    args = parser.parse_args(argv)
    return bench_run(lambda db_label: run(args, db_label))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
