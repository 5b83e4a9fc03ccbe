"""Reads, with the viewer's permissions applied."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet

from games import live
from games.engine import timetable as tt
from games.engine.errors import Forbidden
from games.models import (
    Announcement,
    AnnouncementStatus,
    Audience,
    Character,
    CharacterStatus,
    DayPace,
    Event,
    Game,
    Pace,
)

SESSION_KEY = "characters"  # session[SESSION_KEY][str(game_id)] = character id


@dataclass(frozen=True)
class Viewer:
    """Who is looking at a game: one of its characters, or one of its directors."""

    game: Game
    character: Character | None = None
    director: User | None = None


def game_is_directed_by(*, game: Game, user: User | AnonymousUser | None) -> bool:
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    if getattr(user, "is_superuser", False):
        return True
    return game.directors.filter(pk=user.pk).exists()


def games_for_director(*, user: User) -> QuerySet[Game]:
    if getattr(user, "is_superuser", False):
        return Game.objects.all()
    return Game.objects.filter(directors=user)


def session_character(*, game: Game, session: Any) -> Character | None:
    character_id = (session.get(SESSION_KEY) or {}).get(str(game.pk))
    if character_id is None:
        return None
    return Character.objects.filter(pk=character_id, game=game).first()


def viewer_get(*, game: Game, session: Any, user: User | AnonymousUser | None) -> Viewer | None:
    character = session_character(game=game, session=session)
    if character is not None:
        return Viewer(game=game, character=character)
    if game_is_directed_by(game=game, user=user):
        return Viewer(game=game, director=user)  # type: ignore[arg-type]  # authenticated here
    return None


def live_groups(*, viewer: Viewer) -> list[str]:
    if viewer.character is not None:
        return [
            live.group_public(viewer.game.pk),
            live.group_character(viewer.game.pk, viewer.character.pk),
        ]
    return [live.group_directors(viewer.game.pk)]


def events_for_viewer(
    *,
    viewer: Viewer | None,
    after: int = 0,
    after_public: int = 0,
    after_private: int = 0,
    limit: int = 500,
) -> list[dict[str, Any]]:
    """The frames a viewer missed: directors by global sequence, a character per stream."""
    if viewer is None:
        raise Forbidden()
    events = Event.objects.filter(game=viewer.game)
    if viewer.character is not None:
        own = f"c{viewer.character.pk}"
        rows = events.filter(
            Q(stream=Audience.PUBLIC, stream_seq__gt=after_public)
            | Q(stream=own, stream_seq__gt=after_private)
        ).order_by("seq")[:limit]
        return [live.frame_for_player(e) for e in rows]
    rows = events.filter(seq__gt=after).order_by("seq")[:limit]
    return [live.frame_for_director(e) for e in rows]


def stream_heads(*, viewer: Viewer) -> dict[str, int]:
    """Where each of the viewer's streams stands, for a client that starts listening."""
    seqs = viewer.game.stream_seqs
    if viewer.character is not None:
        return {
            "public": seqs.get("public", 0),
            "private": seqs.get(f"c{viewer.character.pk}", 0),
        }
    return {"all": viewer.game.seq}


def deaths_public(*, game: Game) -> QuerySet[Character]:
    """Eliminations as the public knows them: announced ones only, in order."""
    return game.characters.filter(status=CharacterStatus.ELIMINATED, death_public=True).order_by(
        "eliminated_day", "elimination_order", "id"
    )


def announcements_published(*, game: Game) -> QuerySet[Announcement]:
    return game.announcements.filter(status=AnnouncementStatus.PUBLISHED).order_by("-day", "-id")


def announcements_headed(*, game: Game) -> list[dict[str, Any]]:
    """The published 公示 as pages head them (第 N 天 · title), newest first: a title that names
    its day itself (the site's older 「第 2 天 晨报」) loses that prefix, so no heading reads
    第 2 天 · 第 2 天 晨报."""
    rows = []
    for a in announcements_published(game=game):
        title = a.title.strip()
        for prefix in (f"第 {a.day} 天", f"第{a.day}天"):
            if title.startswith(prefix):
                title = title[len(prefix) :].lstrip(" ·、：:")
        rows.append({"day": a.day, "title": title, "body": a.body})
    return rows


def games_public() -> QuerySet[Game]:
    return Game.objects.exclude(status="draft").order_by("-created_at")


def game_by_id(*, game_id: int) -> Game | None:
    return Game.objects.filter(pk=game_id).first()


def game_by_number(*, number: str) -> Game | None:
    return Game.objects.filter(number=number).exclude(status="draft").first()


def game_page_by_number(*, number: str) -> Game | None:
    """The game whose public page this is, a game in preparation included: its seed's hash is
    public from its creation, before anything is dealt from the seed."""
    return Game.objects.filter(number=number).first()


def transitions_upcoming(*, game: Game, count: int = 6) -> list[tt.Transition]:
    if game.start_date is None:
        return []
    return tt.upcoming(game.timetable(), day=game.day, phase=game.phase, count=count)


def transition_next_due(*, game: Game) -> datetime | None:
    upcoming = transitions_upcoming(game=game, count=1)
    return upcoming[0].due_at if upcoming else None


@dataclass(frozen=True)
class SpeedUp:
    """A day under 执行加速 (所有人不可改票，发言不足或未投票者将不被判罚): from ``since``,
    until ``until`` when a 延时 or a director's 正常 ended it during the day."""

    since: datetime
    until: datetime | None = None


def day_speed_up(*, game: Game, day: int, timetable: tt.Timetable | None = None) -> SpeedUp | None:
    """Whether, and from when, ``day`` is under 加速: from the moment its own 加速 was granted,
    or ([061], RULINGS [061] 14) from its open when an earlier day's 加速 carries over."""
    row = DayPace.objects.filter(game=game, day=day).first()
    carried = (
        game.start_date is not None
        and tt.schedule_for(game.ruleset).pace_days
        and (timetable or game.timetable()).carries_speed_up(day)
    )
    if carried:
        opened = (timetable or game.timetable()).due_at(day, "day_open")
        ended = row.since if row is not None and row.pace != Pace.SPED_UP else None
        return SpeedUp(opened, ended)
    if row is not None and row.pace == Pace.SPED_UP:
        return SpeedUp(row.since)
    return None


def rolls_logged(*, game: Game) -> list[tuple[int, str, Any]]:
    """(sequence, event kind, roll) for every roll record (``dice.Roll``) in the game's log.
    An engine event may list the faces its step drew under the same key (the vote reward's
    ``rolls``: plain numbers from the step's seeded source); those are checked by replaying
    the log from the seed, not one by one, so they are no roll records."""
    rows = (
        Event.objects.filter(game=game, payload__has_key="rolls")
        .order_by("seq")
        .values_list("seq", "kind", "payload")
    )
    return [
        (seq, kind, roll)
        for seq, kind, payload in rows
        for roll in payload["rolls"]
        if isinstance(roll, dict)
    ]


# --- a game's preparation: the calendar, what the start still needs -----------------------------

WEEKDAYS = "一二三四五六日"


@dataclass(frozen=True)
class CalendarDay:
    day: int
    dates: str  # 北京时间, e.g. "12月1日（周二）至 12月2日（周三）"
    steps: list[tuple[str, str]]  # (transition label, "12月2日 21:00")
    stages: list[tuple[str, str]]  # (time, label) of the night's deadlines
    current: bool
    pace: str = ""  # [061]: how a 加速/延时 set the day's length, e.g. "加速：一个自然日"


PACE_NOTES = {
    tt.SPED_UP: "加速：一个自然日",
    tt.DELAYED: "延时：多一个自然日",
}


def _date_text(day: Any) -> str:
    return f"{day.month}月{day.day}日（周{WEEKDAYS[day.weekday()]}）"


def game_calendar(*, game: Game, days: int | None = None) -> list[CalendarDay]:
    """Every game day's dates and transitions in 北京时间, as the timetable (with the
    director's per-day changes and [061]'s 加速/延时, read afresh each time) has them; empty
    without a date for day 1."""
    from games.models import TRANSITION_LABELS

    if game.start_date is None:
        return []
    timetable = game.timetable()
    count = days or max(tt.schedule_for(game.ruleset).days, game.day)
    stages = [(str(s.get("at", "")), str(s.get("label", ""))) for s in game.night_stages or []]
    calendar = []
    for day in range(1, count + 1):
        first, last = timetable.day_dates(day)
        dates = _date_text(first) if first == last else f"{_date_text(first)} 至 {_date_text(last)}"
        steps = [
            (
                str(TRANSITION_LABELS[kind]),
                f"{at.astimezone(tt.BEIJING).month}月{at.astimezone(tt.BEIJING).day}日 "
                f"{at.astimezone(tt.BEIJING):%H:%M}",
            )
            for kind, at in timetable.day_schedule(day)
        ]
        note = PACE_NOTES.get(timetable.calendar_pace(day), "")
        calendar.append(CalendarDay(day, dates, steps, stages, day == game.day, note))
    return calendar
