"""投票 in the shell: a game day's vote thread (投票帖) read from the stored posts and tallied by
the pure `games.engine.ballots`; the tally posted back to the thread and published once the
day has closed and the thread has been synced past the close.

The game kind's weights come from the `VoteWeights` provider it registered; the ruleset's
parameters from `games/rulesets/ballots.json`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Exists, IntegerField, OuterRef
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.utils import timezone

from games import selectors
from games.engine.ballots import (
    BallotDay,
    BallotPost,
    Tally,
    Voter,
    ballot_rules,
    count_ballots,
    public_text,
    vote_weights_for,
)
from games.engine.events import DIRECTORS, PUBLIC, GameEvent
from games.errors import NoForumSite, NoStartDate, NoVoteThread, TallyPublished
from games.forum.registry import adapter_for
from games.models import (
    Announcement,
    AnnouncementStatus,
    CharacterStatus,
    Event,
    ForumThread,
    Game,
    GameStatus,
    ThreadKind,
    TransitionRecord,
    VoteAlias,
)
from games.services import event_record, events_append, game_lock

logger = logging.getLogger(__name__)

TALLY_EVENT = "ballot_tally"

# Kinds whose day close settles the vote from the thread and publishes that very tally itself
# (werewolf: the engine's count at 关门), for the games the predicate names: the beat task
# leaves their days alone, as a recount later would read the statuses after the vote.
_PUBLISHED_AT_CLOSE: dict[str, Callable[[Game], bool]] = {}


def register_published_at_close(kind: str, publishes: Callable[[Game], bool]) -> None:
    if _PUBLISHED_AT_CLOSE.get(kind, publishes) is not publishes:
        raise ValueError(f"close publisher of kind {kind!r} registered twice")
    _PUBLISHED_AT_CLOSE[kind] = publishes


def published_at_close(game: Game) -> bool:
    publishes = _PUBLISHED_AT_CLOSE.get(game.kind)
    return publishes is not None and publishes(game)


# --- reads -------------------------------------------------------------------------------------


def vote_thread(*, game: Game, day: int) -> ForumThread:
    thread = ForumThread.objects.filter(game=game, day=day, kind=ThreadKind.VOTE).first()
    if thread is None:
        raise NoVoteThread(day=day)
    return thread


def vote_days(*, game: Game) -> list[int]:
    """The days that have a vote thread, latest first."""
    threads = ForumThread.objects.filter(game=game, kind=ThreadKind.VOTE)
    return list(threads.order_by("-day").values_list("day", flat=True))


def day_close_at(*, game: Game, day: int) -> datetime:
    """When the day closed, or is due to: the ballots' deadline. A close run late by the
    scheduler still counts from its due time; one forced by a director from when it ran."""
    record = TransitionRecord.objects.filter(game=game, day=day, kind="day_close").first()
    if record is not None:
        return record.due_at or record.done_at
    if game.start_date is None:
        raise NoStartDate()
    return game.timetable().due_at(day, "day_close")


def ballot_day(*, game: Game, day: int) -> BallotDay:
    """The day's close and its 加速 (执行加速时不允许改票): its own, or [061]'s carried over
    from an earlier day until a 延时 ends it (``selectors.day_speed_up``)."""
    speed_up = selectors.day_speed_up(game=game, day=day)
    return BallotDay(
        day=day,
        closes_at=day_close_at(game=game, day=day),
        sped_up_at=None if speed_up is None else speed_up.since,
        sped_up_until=None if speed_up is None else speed_up.until,
    )


def ballot_voters(*, game: Game) -> list[Voter]:
    aliases: dict[int, list[str]] = {}
    for character_id, alias in VoteAlias.objects.filter(game=game).values_list(
        "character_id", "alias"
    ):
        aliases.setdefault(character_id, []).append(alias)
    return [
        Voter(
            id=c.pk,
            name=c.name,
            alive=c.status == CharacterStatus.ALIVE,
            idle=c.idle,
            aliases=tuple(aliases.get(c.pk, ())),
        )
        for c in game.characters.order_by("pk")
    ]


def ballot_posts(*, thread: ForumThread) -> list[BallotPost]:
    rows = thread.posts.order_by("floor", "pk").values_list(
        "floor",
        "external_id",
        "character_id",
        "by_director",
        "posted_at",
        "text",
        "reply_to",
        "edited_at",
    )
    return [
        BallotPost(
            floor=floor,
            external_id=external_id,
            author=character,
            by_director=by_director,
            posted_at=posted_at,
            text=text,
            reply_to=reply_to or None,
            edited_at=edited_at,
        )
        for floor, external_id, character, by_director, posted_at, text, reply_to, edited_at in rows
    ]


def ballot_tally(*, game: Game, day: int) -> Tally:
    """The day's tally from the posts stored so far."""
    thread = vote_thread(game=game, day=day)
    return count_ballots(
        ballot_posts(thread=thread),
        ballot_voters(game=game),
        ballot_day(game=game, day=day),
        ballot_rules(game.ruleset),
        vote_weights_for(game.kind).modifiers(game.pk, day),
    )


def tally_text(*, game: Game, tally: Tally, now: datetime) -> str:
    """The public text; before the close it is headed as a count so far."""
    close = day_close_at(game=game, day=tally.day)
    return public_text(tally, ballot_rules(game.ruleset), as_of=None if now >= close else now)


def tally_published(*, game: Game, day: int) -> Event | None:
    return Event.objects.filter(game=game, kind=TALLY_EVENT, payload__day=day).first()


# --- writes ------------------------------------------------------------------------------------


def ballot_tally_publish(
    *, game: Game, day: int, director: User | None = None, now: datetime | None = None
) -> Announcement:
    """公示 the day's result once: a published announcement (the public text) and the full
    tally in the directors' log."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = game_lock(game)
        if tally_published(game=locked, day=day) is not None:
            raise TallyPublished(day=day)
        tally = ballot_tally(game=locked, day=day)
        announcement, events = tally_publication(game=locked, tally=tally, now=now, by=director)
        events_append(game=locked, events=events, now=now, director=director)
    return announcement


def tally_publication(
    *, game: Game, tally: Tally, now: datetime, by: User | None = None
) -> tuple[Announcement, list[GameEvent]]:
    """The published announcement of ``tally`` (written now) and the events recording it: the
    public announcement and the whole tally for the directors (the day's published record). The
    caller holds the game's lock, has checked the day is not published yet, and appends the
    events (a kind's day close appends them with its own)."""
    announcement = Announcement.objects.create(
        game=game,
        day=tally.day,
        title=f"第{tally.day}天投票结果",
        body=tally_text(game=game, tally=tally, now=now),
        by_site=True,
        author=by,
        status=AnnouncementStatus.PUBLISHED,
        published_at=now,
    )
    shown = {
        "id": announcement.pk,
        "day": tally.day,
        "title": announcement.title,
        "body": announcement.body,
    }
    return announcement, [
        GameEvent("announcement", PUBLIC, shown),
        GameEvent(TALLY_EVENT, DIRECTORS, tally.to_json()),
    ]


def ballot_tally_post(*, game: Game, day: int, director: User | None) -> str:
    """Reply to the vote thread with the tally as it stands; returns the new post's id. The
    forum is called outside any transaction; what was posted is logged for the directors."""
    thread = vote_thread(game=game, day=day)
    if game.forum_site is None:
        raise NoForumSite()
    text = tally_text(game=game, tally=ballot_tally(game=game, day=day), now=timezone.now())
    with adapter_for(game.forum_site) as forum:
        post = forum.reply(thread.external_id, text)
    event = GameEvent("ballot_tally_posted", DIRECTORS, {"day": day, "post": post, "text": text})
    event_record(game=game, events=[event], director=director)
    return post


def ballots_publish_due(*, now: datetime) -> list[tuple[int, int]]:
    """Publish every closed day's tally whose vote thread was synced after the close (so no
    ballot posted before the close is missing); each once. Days of games whose close publishes
    its own tally (`register_published_at_close`) are left alone."""
    closed = TransitionRecord.objects.filter(
        game=OuterRef("game"), day=OuterRef("day"), kind="day_close"
    )
    # The day inside the JSON payload, as an integer: PostgreSQL compares no jsonb with an int.
    published = Event.objects.annotate(tally_day=Cast(KT("payload__day"), IntegerField())).filter(
        game=OuterRef("game"), kind=TALLY_EVENT, tally_day=OuterRef("day")
    )
    threads = (
        ForumThread.objects.filter(
            kind=ThreadKind.VOTE,
            game__status__in=[GameStatus.TEST, GameStatus.RUNNING],
            last_synced_at__isnull=False,
        )
        .filter(Exists(closed), ~Exists(published))
        .select_related("game")
    )
    done = []
    for thread in threads:
        game = thread.game
        synced = thread.last_synced_at
        if synced is None or synced < day_close_at(game=game, day=thread.day):
            continue
        if published_at_close(game):
            continue
        try:
            ballot_tally_publish(game=game, day=thread.day, now=now)
        except TallyPublished:
            continue  # published by a director meanwhile
        except Exception:
            # One game's failure must not hold up the others; it is retried next time.
            logger.exception("publishing the tally of game %s day %s failed", game.pk, thread.day)
            continue
        done.append((game.pk, thread.day))
    return done
