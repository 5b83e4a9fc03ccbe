"""Forum sync, ballot parsing and tally: a 1,500-floor vote thread and a 3,000-floor discussion
thread served by the local fake forum (Discuz! X3.2 mobile API on 127.0.0.1).

    python tests/bench/bench_forum.py [--runs 5] [--vote 1500] [--discussion 3000]

Runnable alone or through ``make bench``. It uses a database of its own (a temporary SQLite file,
or a fresh database on the DATABASE_URL server, dropped afterwards). Each run registers the two
threads afresh for a new game day and measures, through the services the site uses:
  sync      the first sync of each thread (every floor fetched, authors mapped, stored);
  tally     the vote thread's ballots parsed and tallied from the stored posts;
  resync    a sync that finds no new floor (what the periodic task costs between posts);
  recheck   every floor fetched again and compared (how edits are noticed).
Figures are printed, never asserted; the target (sync + tally of both ≤ 2 s) is shown beside them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench.support import (  # noqa: E402
    bench_game,
    bench_run,
    close_connections,
    django_migrated,
    where,
)
from tests.games.forum.fake_forum import BJ, FakeForum, FakePost  # noqa: E402

if TYPE_CHECKING:
    from games.models import Game

T = TypeVar("T")
CHARACTERS = 40
TARGET_SECONDS = 2.0
DIRECTOR = "[bench]导演A"
START = dt.date(2026, 11, 1)


def names() -> list[str]:
    return [f"角色{i:02d}" for i in range(1, CHARACTERS + 1)]


def build_threads(forum: FakeForum, day: int, vote: int, discussion: int) -> tuple[int, int]:
    """The day's vote thread (ballots, changes quoting the ballot they change, chatter) and its
    discussion thread (chat, some of it quoting earlier posts, a few deleted floors)."""
    rng = random.Random(day)
    cast = names()
    opens = dt.datetime.combine(START + dt.timedelta(days=day - 1), dt.time(1, 0), tzinfo=BJ)
    vote_topic = forum.thread(f"[bench] 第{day}天 投票帖")
    forum.post(vote_topic.tid, DIRECTOR, "投票帖：请按格式投票。", at=opens)
    ballots: dict[str, FakePost] = {}
    for floor in range(2, vote + 1):
        at = opens + dt.timedelta(seconds=40 * floor)
        author = rng.choice(cast)
        target = rng.choice(cast)
        if author not in ballots:
            message = f"投票对象：{target}<br />投票理由：{target}的发言有问题，先投一票看看反应。"
            ballots[author] = forum.post(vote_topic.tid, author, message, at=at)
        elif rng.random() < 0.1:
            change = f"改票对象：{target}<br />改票理由：重新考虑之后。"
            message = forum.quote(ballots[author]) + change
            forum.post(vote_topic.tid, author, message, at=at)
        else:
            forum.post(vote_topic.tid, author, f"顶一下，{target}你怎么看？", at=at)
    talk_topic = forum.thread(f"[bench] 第{day}天 讨论帖")
    forum.post(talk_topic.tid, DIRECTOR, "第一天讨论开始。", at=opens)
    for floor in range(2, discussion + 1):
        at = opens + dt.timedelta(seconds=20 * floor)
        author = rng.choice(cast)
        line = "我觉得" + "、".join(rng.sample(cast, 3)) + "今天的发言都值得再看一遍。"
        if floor > 10 and rng.random() < 0.15:
            quoted = forum.find(talk_topic.tid, floor - rng.randint(1, 9))
            line = forum.quote(quoted, "……") + line
        forum.post(talk_topic.tid, author, line, at=at)
    for floor in rng.sample(range(2, discussion + 1), discussion // 100):
        forum.delete(talk_topic.tid, floor)
    return vote_topic.tid, talk_topic.tid


def timed(call: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def one_day(game: Game, forum: FakeForum, day: int, args: argparse.Namespace) -> Day:
    """Register the day's two threads and time each step on them."""
    from games.ballots import ballot_tally
    from games.forum_services import forum_thread_sync
    from games.models import ForumPost, ForumThread

    vote_tid, talk_tid = build_threads(forum, day, args.vote, args.discussion)
    vote = ForumThread.objects.create(game=game, day=day, kind="vote", external_id=vote_tid)
    talk = ForumThread.objects.create(game=game, day=day, kind="discussion", external_id=talk_tid)
    both = (vote, talk)
    seconds: dict[str, float] = {}
    seconds["sync vote"], _ = timed(lambda: forum_thread_sync(thread=vote))
    seconds["sync discussion"], _ = timed(lambda: forum_thread_sync(thread=talk))
    seconds["tally vote"], tally = timed(lambda: ballot_tally(game=game, day=day))
    seconds["resync"], _ = timed(lambda: [forum_thread_sync(thread=t) for t in both])
    seconds["recheck"], _ = timed(lambda: [forum_thread_sync(thread=t, full=True) for t in both])
    return Day(
        seconds=seconds,
        stored=ForumPost.objects.filter(thread__in=both).count(),
        counted=sum(1 for v in tally.verdicts if v.counted),
    )


@dataclass(frozen=True)
class Day:
    seconds: dict[str, float]
    stored: int
    counted: int


def run(args: argparse.Namespace, db_label: str) -> int:
    django_migrated()
    from games.models import Character, DirectorForumAccount, ForumSite

    forum = FakeForum().start()
    try:
        game = bench_game("bench-forum", names(), start_date=START)
        game.forum_site = ForumSite.objects.create(
            name="fake", kind="discuz", base_url=forum.base_url
        )
        game.save()
        for character in Character.objects.filter(game=game):
            character.forum_uid = str(forum.user(character.name))
            character.save(update_fields=["forum_uid"])
        DirectorForumAccount.objects.create(game=game, forum_uid=str(forum.user(DIRECTOR)))
        one_day(game, forum, 1, args)  # warm-up: imports, connections, caches
        days = [one_day(game, forum, day, args) for day in range(2, args.runs + 2)]
        close_connections()
    finally:
        forum.stop()
    report(args, db_label, days)
    return 0


def report(args: argparse.Namespace, db_label: str, days: Sequence[Day]) -> None:
    print(
        f"forum benchmark: {db_label}; fake Discuz forum on 127.0.0.1; {os.cpu_count()} CPUs; "
        f"Python {platform.python_version()}; Redis {where(os.environ.get('REDIS_URL'))}"
    )
    print(
        f"vote thread {args.vote} floors, discussion thread {args.discussion} floors "
        f"({args.discussion // 100} deleted), {CHARACTERS} characters; {args.runs} runs after a "
        f"warm-up; each run stored {days[-1].stored} posts, {days[-1].counted} ballots counted"
    )
    line = f"{'measure':<34}{'p50 ms':>10}{'min ms':>10}{'max ms':>10}"
    print(line)
    print("-" * len(line))
    totals = [
        d.seconds["sync vote"] + d.seconds["sync discussion"] + d.seconds["tally vote"]
        for d in days
    ]
    rows = [(name, [d.seconds[name] for d in days]) for name in days[0].seconds]
    for name, values in [*rows, ("sync both + tally (the target's)", totals)]:
        print(
            f"{name:<34}{statistics.median(values) * 1000:>10.1f}"
            f"{min(values) * 1000:>10.1f}{max(values) * 1000:>10.1f}"
        )
    p50 = statistics.median(totals)
    verdict = "ok" if p50 <= TARGET_SECONDS else "MISSED"
    print(
        f"both threads synced, parsed, tallied: p50 {p50:.2f} s (≤ {TARGET_SECONDS:g} s: {verdict})"
    )


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--vote", type=int, default=1500, help="floors of the vote thread")
    parser.add_argument("--discussion", type=int, default=3000, help="floors of the discussion")
    args = parser.parse_args(argv)
    return bench_run(lambda db_label: run(args, db_label))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
