"""Reads of the penalty cards and of the day's forum activity, with the viewer's permissions:
a player sees only its own cards; the day's page (activity, elevator floor, [061]'s extras) is
the directors'."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from games import ballots
from games.card_services import close_of, reason_text, rules_of
from games.engine import activity as act
from games.engine import dice
from games.engine import floors as fl
from games.engine.cards import COLOR_NAMES, PenaltyRules
from games.errors import NoStartDate
from games.models import (
    Card,
    CardSource,
    CardStatus,
    Character,
    CharacterStatus,
    DayPace,
    ForumPost,
    ForumThread,
    Game,
    Pace,
    SpeedRequest,
    ThreadKind,
)


def day_close_at(*, game: Game, day: int) -> datetime | None:
    """The day's 关门 as the ballots read it (a director's move or forced close included);
    None for a game run by hand (no start date)."""
    try:
        return ballots.day_close_at(game=game, day=day)
    except NoStartDate:
        return None


def day_pace(*, game: Game, day: int) -> DayPace | None:
    return DayPace.objects.filter(game=game, day=day).first()


@dataclass(frozen=True)
class CardRow:
    card: Card
    color_name: str
    reason_text: str
    pending: bool


def cards_of_character(*, character: Character) -> list[CardRow]:
    """A player's own cards: the ledger and its own cards awaiting review (never rejected ones,
    never anyone else's)."""
    rules = rules_of(character.game)
    rows = (
        Card.objects.filter(character=character)
        .exclude(status=CardStatus.REJECTED)
        .select_related("character")
        .order_by("day", "id")
    )
    return [
        CardRow(c, COLOR_NAMES[c.color], reason_text(c, rules), c.status == CardStatus.PROPOSED)
        for c in rows
    ]


def ledger_counts(*, game: Game) -> dict[int, Counter[str]]:
    """Confirmed cards still counting (not merged into a bigger one), by character and colour."""
    counts: dict[int, Counter[str]] = {}
    rows = Card.objects.filter(
        game=game, status=CardStatus.CONFIRMED, merged_into__isnull=True
    ).values_list("character_id", "color")
    for character, color in rows:
        counts.setdefault(character, Counter())[color] += 1
    return counts


@dataclass(frozen=True)
class PlayerPace:
    day: int
    pace: str
    kinds: tuple[str, ...]  # what the ruleset lets players ask for (099: speed_up only)
    mine: frozenset[str]
    counts: dict[str, int]
    needed: int
    cutoff: datetime
    open: bool


def pace_for_player(*, game: Game, character: Character, now: datetime) -> PlayerPace | None:
    """Today's pace as a player sees it: counts only, and its own requests."""
    rules = rules_of(game)
    if rules is None or game.phase != "day" or game.start_date is None:
        return None
    requests = SpeedRequest.objects.filter(game=game, day=game.day, kind__in=rules.pace.kinds)
    pace = day_pace(game=game, day=game.day)
    living = game.characters.filter(status=CharacterStatus.ALIVE, idle=False).count()
    deadline = act.cutoff(close_of(game, game.day), rules.pace)
    return PlayerPace(
        day=game.day,
        pace=pace.pace if pace is not None else Pace.NORMAL,
        kinds=rules.pace.kinds,
        mine=frozenset(requests.filter(character=character).values_list("kind", flat=True)),
        counts=dict(Counter(requests.values_list("kind", flat=True))),
        needed=act.needed(living, rules.pace),
        cutoff=deadline,
        open=now < deadline and character.is_alive and not character.idle,
    )


# --- the director's day page ---------------------------------------------------------------------


@dataclass
class DayTools:
    game: Game
    day: int
    rules: PenaltyRules | None
    threads: dict[str, ForumThread]
    activity: list[dict[str, Any]] = field(default_factory=list)
    elevator: str = ""
    elevator_missing: list[str] = field(default_factory=list)
    prize_floor: int | None = None
    prize_post: ForumPost | None = None
    last_words: list[dict[str, Any]] = field(default_factory=list)
    flood: list[dict[str, Any]] = field(default_factory=list)
    pace: DayPace | None = None
    requests: list[SpeedRequest] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)


def _floors(thread: ForumThread | None) -> list[ForumPost]:
    if thread is None:
        return []
    return list(thread.posts.order_by("floor").select_related("character"))


def day_tools(*, game: Game, day: int) -> DayTools:
    """Everything the director reads off one day's threads."""
    rules = rules_of(game)
    threads = {t.kind: t for t in ForumThread.objects.filter(game=game, day=day)}
    tools = DayTools(game=game, day=day, rules=rules, threads=threads)
    characters = list(game.characters.order_by("id"))
    names = {c.pk: c.name for c in characters}
    discussion = _floors(threads.get(ThreadKind.DISCUSSION))
    close = close_of(game, day) if game.start_date else None

    def in_time(p: ForumPost) -> bool:
        """A character's post before the day's close."""
        return bool(p.character_id) and not p.by_director and (close is None or p.posted_at < close)

    counted = Counter(p.character_id for p in discussion if in_time(p))
    voters = {p.character_id for p in _floors(threads.get(ThreadKind.VOTE)) if in_time(p)}
    ledger = ledger_counts(game=game)
    for c in characters:
        tools.activity.append(
            {
                "character": c,
                "posts": counted.get(c.pk, 0),
                "voted": c.pk in voters if ThreadKind.VOTE in threads else None,
                "ledger": {COLOR_NAMES[k]: ledger.get(c.pk, Counter())[k] for k in COLOR_NAMES},
            }
        )
    site = game.forum_site
    talk = threads.get(ThreadKind.DISCUSSION)
    if rules is not None and site is not None and talk is not None:
        rows = [
            fl.ElevatorRow(c.pk, c.name, c.forum_uid, c.forum_username)
            for c in characters
            if c.status == CharacterStatus.ALIVE
        ]
        # The order is the seed's, one draw per day: anyone can check it once the seed is out.
        rng = dice.rng(game.seed, 0, f"elevator:{day}")
        order = fl.elevator_order(rows, rng, shuffle=rules.elevator_random)
        tools.elevator, tools.elevator_missing = fl.elevator_text(
            order, day=day, site_kind=site.kind, base_url=site.base_url, thread=talk.external_id
        )
    floors = [
        fl.Floor(p.floor, None if p.by_director else p.character_id, p.text) for p in discussion
    ]
    if rules is not None and rules.floor_prize is not None:
        low, high = rules.floor_prize
        tools.prize_floor = fl.prize_floor(dice.rng(game.seed, 0, f"floor_prize:{day}"), low, high)
        hit = fl.prize_post(floors, tools.prize_floor)
        tools.prize_post = (
            next(p for p in discussion if p.floor == hit.floor) if hit is not None else None
        )
    if rules is not None and rules.last_words_per_char is not None:
        per = rules.last_words_per_char
        for c in characters:
            if c.status == CharacterStatus.ELIMINATED and c.eliminated_day == day:
                n = counted.get(c.pk, 0)
                tools.last_words.append(
                    {"character": c, "posts": n, "chars": fl.last_words_length(n, per)}
                )
    if rules is not None and rules.flood is not None:
        for run in fl.flood_runs(floors, rules.flood):
            tools.flood.append(
                {
                    "name": names.get(run.character, "?"),
                    "kind": run.kind,
                    "count": len(run.floors),
                    "first": run.floors[0],
                    "last": run.floors[-1],
                }
            )
    tools.pace = day_pace(game=game, day=day)
    tools.requests = list(
        SpeedRequest.objects.filter(game=game, day=day).select_related("character", "post")
    )
    tools.cards = list(
        Card.objects.filter(game=game, day=day)
        .exclude(source=CardSource.ESCALATION)
        .select_related("character")
        .order_by("id")
    )
    return tools
