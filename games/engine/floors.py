"""What the director reads off a day's floors: the elevator floor (电梯楼), and [061]'s extras
— last words by posts (遗言字数), the floor prize (抢楼), runs of flooding posts (过度水贴)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from games.engine.cards import FloodRules


@dataclass(frozen=True)
class Floor:
    """One stored post of a thread: its floor, its character (None: a director, an unknown
    account, an anonymous post) and its text."""

    floor: int
    character: int | None
    text: str


# --- 电梯楼 ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ElevatorRow:
    character: int
    name: str
    uid: str  # the forum account's uid ("" when the director has not entered it)
    username: str


@dataclass(frozen=True)
class LinkStyle:
    """How one kind of forum filters a thread by author, and how its posts write a link."""

    url: str  # {base}, {thread}, {uid}, {username}
    link: str  # {url}, {name}
    needs_uid: bool


LINK_STYLES: Final[Mapping[str, LinkStyle]] = {
    "discuz": LinkStyle(
        "{base}/forum.php?mod=viewthread&tid={thread}&authorid={uid}",
        "[url={url}]{name}[/url]",
        True,
    ),
    # A printable page is a Discuz thread saved by a director: links go to the live thread.
    "printable": LinkStyle(
        "{base}/forum.php?mod=viewthread&tid={thread}&authorid={uid}",
        "[url={url}]{name}[/url]",
        True,
    ),
    "discourse": LinkStyle(
        "{base}/t/{thread}?username_filters={username}", "[{name}]({url})", False
    ),
}


def elevator_order(
    rows: Sequence[ElevatorRow], rng: random.Random, *, shuffle: bool
) -> list[ElevatorRow]:
    """Sign-up order (character id), or a random order from the game's seed (096: 电梯楼角色顺序
    随机)."""
    ordered = sorted(rows, key=lambda r: r.character)
    if shuffle:
        rng.shuffle(ordered)
    return ordered


def elevator_text(
    rows: Sequence[ElevatorRow], *, day: int, site_kind: str, base_url: str, thread: str
) -> tuple[str, list[str]]:
    """The post text, and the names that got no link (no forum uid / username on record)."""
    style = LINK_STYLES[site_kind]
    base = base_url.rstrip("/")
    lines = [f"第{day}天 电梯楼（点击角色名，只看该角色当天的全部发言）"]
    missing: list[str] = []
    for row in rows:
        if not (row.uid if style.needs_uid else row.username):
            lines.append(row.name)
            missing.append(row.name)
            continue
        url = style.url.format(base=base, thread=thread, uid=row.uid, username=row.username)
        lines.append(style.link.format(url=url, name=row.name))
    return "\n".join(lines), missing


# --- [061] 遗言、抢楼、过度水贴 -----------------------------------------------------------


def last_words_length(posts: int, posts_per_char: int) -> int:
    """每十贴可在遗言中多留一个字，不足十贴出局的，没有遗言."""
    return posts // posts_per_char


def prize_floor(rng: random.Random, low: int, high: int) -> int:
    """The day's prize floor, drawn between ``low`` and ``high`` inclusive (700–1200)."""
    return rng.randint(low, high)


def prize_post(floors: Sequence[Floor], target: int) -> Floor | None:
    """The post at the prize floor; when that floor was deleted, the next floor standing (the
    thread's floors move on past a gap). None until the thread gets there."""
    return next((f for f in sorted(floors, key=lambda f: f.floor) if f.floor >= target), None)


@dataclass(frozen=True)
class FloodRun:
    """A run for the director to judge: ``floors`` in a row by one character (``streak``), or
    that many of its own posts in a row each at most ``short_chars`` long (``short``)."""

    character: int
    kind: Literal["streak", "short"]
    floors: tuple[int, ...]


def _visible_length(text: str) -> int:
    return sum(1 for ch in text if not ch.isspace())


def flood_runs(floors: Sequence[Floor], rules: FloodRules) -> list[FloodRun]:
    """Runs of at least ``rules.run`` posts: consecutive floors by one character (刷屏), or one
    character's consecutive posts that are all near-empty (水贴: at most ``short_chars``
    characters besides spaces). Whether they are off-topic (无关剧情) is the director's call."""
    ordered = sorted(floors, key=lambda f: f.floor)
    runs: list[FloodRun] = []

    def close(character: int | None, kind: Literal["streak", "short"], run: list[int]) -> None:
        if character is not None and len(run) >= rules.run:
            runs.append(FloodRun(character, kind, tuple(run)))

    current: int | None = None
    streak: list[int] = []
    for f in ordered:
        if f.character != current:
            close(current, "streak", streak)
            current, streak = f.character, []
        streak.append(f.floor)
    close(current, "streak", streak)

    short: dict[int, list[int]] = {}
    for f in ordered:
        if f.character is None:
            continue
        if _visible_length(f.text) <= rules.short_chars:
            short.setdefault(f.character, []).append(f.floor)
        else:
            close(f.character, "short", short.pop(f.character, []))
    for character, run in short.items():
        close(character, "short", run)
    return sorted(runs, key=lambda r: (r.floors[0], r.kind))
