"""Writes. Each public function is one atomic unit of work; entry points call exactly one."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import partial

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import credentials, live, throttle
from games.engine import dice
from games.engine import timetable as tt
from games.engine.errors import InvalidInput, NotFound
from games.engine.events import DIRECTORS, PUBLIC, GameEvent
from games.errors import CloseMoveRefused, GameNotLive, LoginFailed, NoStartDate
from games.models import (
    Announcement,
    AnnouncementStatus,
    Character,
    Event,
    Game,
    GameStatus,
    TimetableOverride,
    TransitionRecord,
)
from games.registry import core_transitions, kind_get

logger = logging.getLogger(__name__)


def game_lock(game: Game | int) -> Game:
    """Re-read the game row under a row lock (SQLite: the IMMEDIATE transaction's lock)."""
    pk = game if isinstance(game, int) else game.pk
    locked = Game.objects.select_for_update().filter(pk=pk).first()
    if locked is None:
        raise NotFound()
    return locked


def reason_required(reason: str) -> str:
    """A director's intervention states why (it is logged with it)."""
    reason = (reason or "").strip()
    if not reason:
        raise InvalidInput("请填写理由。", message_en="A reason is required.")
    return reason


def game_create(
    *,
    kind: str,
    ruleset: str,
    number: str,
    title: str,
    start_date: date | None = None,
    status: str = GameStatus.DRAFT,
) -> Game:
    kind_get(kind)  # refuses unknown kinds
    seed = dice.seed_new()
    return Game.objects.create(
        kind=kind,
        ruleset=ruleset,
        number=number,
        title=title,
        start_date=start_date,
        status=status,
        seed=seed,
        seed_hash=dice.seed_hash(seed),
    )


def events_append(
    *,
    game: Game,
    events: Sequence[GameEvent],
    now: datetime,
    director: User | None = None,
    reason: str = "",
) -> list[Event]:
    """Append to the log of a game the caller has locked, and push after commit.

    Numbers come from counters on the locked game row, so concurrent writers queue on the lock
    and the log has neither gaps nor duplicates.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("events_append must run inside the caller's transaction")
    rows = []
    for event in events:
        game.seq += 1
        stream = event.audience.stream
        game.stream_seqs[stream] = game.stream_seqs.get(stream, 0) + 1
        rows.append(
            Event(
                game=game,
                seq=game.seq,
                stream=stream,
                stream_seq=game.stream_seqs[stream],
                kind=event.kind,
                audience=event.audience.kind,
                audience_character_id=event.audience.character,
                actor_id=event.actor,
                payload=dict(event.payload),
                director=director,
                reason=reason,
                created_at=now,
            )
        )
    Event.objects.bulk_create(rows)
    # A plain UPDATE: Model.save's machinery was a measured part of a night action's time.
    Game.objects.filter(pk=game.pk).update(seq=game.seq, stream_seqs=game.stream_seqs)
    transaction.on_commit(partial(live.push, live.messages_for(rows)))
    return rows


def event_record(
    *,
    game: Game | int,
    events: Sequence[GameEvent],
    director: User | None = None,
    reason: str = "",
) -> list[Event]:
    """Lock the game and append events in a transaction of their own."""
    with transaction.atomic():
        locked = game_lock(game)
        return events_append(
            game=locked, events=events, now=timezone.now(), director=director, reason=reason
        )


# --- character credentials -------------------------------------------------------------


def _digest(purpose: str, secret: str) -> str:
    return credentials.digest(key=settings.PASSWORD_DIGEST_KEY, purpose=purpose, secret=secret)


@dataclass(frozen=True)
class IssuedCredential:
    character: Character
    secret: str


def _credentials_set(
    *,
    game: Game,
    director: User | None,
    characters: Sequence[Character],
    field: str,
    make: Callable[[], tuple[str | None, str | None]],
    event_kind: str,
) -> list[IssuedCredential]:
    """Give each character (all of the game's if none are named) a new secret from ``make``
    (secret shown once, digest stored), and log which characters got one, never the secret."""
    with transaction.atomic():
        locked = game_lock(game)
        targets = list(characters) or list(locked.characters.order_by("id"))
        issued = []
        for character in targets:
            secret, digest = make()
            setattr(character, field, digest)
            character.save(update_fields=[field])
            if secret is not None:
                issued.append(IssuedCredential(character, secret))
        event = GameEvent(event_kind, DIRECTORS, {"characters": [c.name for c in targets]})
        events_append(game=locked, events=[event], now=timezone.now(), director=director)
    return issued


def _password() -> tuple[str, str]:
    password = credentials.password_generate()
    return password, _digest("pw", credentials.password_normalize(password))


def _link() -> tuple[str, str]:
    token = credentials.link_token_generate()
    return token, _digest("link", token)


def character_passwords_generate(
    *, game: Game, director: User | None, characters: Sequence[Character] = ()
) -> list[IssuedCredential]:
    """New passwords for the given characters (all of the game's if none): shown once, here."""
    return _credentials_set(
        game=game, director=director, characters=characters, field="password_digest",
        make=_password, event_kind="passwords_generated",
    )  # fmt: skip


def character_links_issue(
    *, game: Game, director: User | None, characters: Sequence[Character] = ()
) -> list[IssuedCredential]:
    """New bookmark login tokens; any earlier link of these characters stops working."""
    return _credentials_set(
        game=game, director=director, characters=characters, field="link_digest",
        make=_link, event_kind="links_issued",
    )  # fmt: skip


def character_links_revoke(
    *, game: Game, director: User | None, characters: Sequence[Character] = ()
) -> None:
    _credentials_set(
        game=game, director=director, characters=characters, field="link_digest",
        make=lambda: (None, None), event_kind="links_revoked",
    )  # fmt: skip


def _login(*, game_number: str, secret: str, purpose: str, address: str) -> Character:
    throttle.login_check(address=address)
    normalized = credentials.password_normalize(secret) if purpose == "pw" else secret.strip()
    too_long = len(secret) > credentials.MAX_INPUT
    # The same work (one digest, one indexed lookup) whatever the input, so neither the
    # message nor the time tells whether the game or the character exists.
    field = "password_digest" if purpose == "pw" else "link_digest"
    value = _digest(purpose, "" if too_long else normalized)
    character = (
        Character.objects.select_related("game").filter(**{field: value}).first()
        if normalized and not too_long
        else Character.objects.filter(pk=-1).first()
    )
    if character is None or character.game.number != game_number:
        throttle.login_failed(address=address)
        raise LoginFailed()
    return character


def character_login(*, game_number: str, password: str, address: str) -> Character:
    return _login(game_number=game_number, secret=password, purpose="pw", address=address)


def character_login_link(*, game_number: str, token: str, address: str) -> Character:
    return _login(game_number=game_number, secret=token, purpose="link", address=address)


# --- announcements and dice -------------------------------------------------------------


def announcement_publish(*, announcement: Announcement, director: User | None) -> None:
    with transaction.atomic():
        game = game_lock(announcement.game_id)
        fresh = Announcement.objects.select_for_update().get(pk=announcement.pk)
        if fresh.status == AnnouncementStatus.PUBLISHED:
            return
        now = timezone.now()
        fresh.status = AnnouncementStatus.PUBLISHED
        fresh.published_at = now
        fresh.save(update_fields=["status", "published_at"])
        payload = {"id": fresh.pk, "day": fresh.day, "title": fresh.title, "body": fresh.body}
        events_append(
            game=game,
            events=[GameEvent("announcement", PUBLIC, payload)],
            now=now,
            director=director,
        )


def dice_roll(
    *, game: Game, director: User | None, purpose: str, sides: int, reason: str = ""
) -> int:
    """The director's public die: 1..sides, derived from the seed and logged for checking."""
    if not 2 <= sides <= 1_000_000:
        raise InvalidInput("骰子面数须在 2 到 1000000 之间。", sides=sides)
    purpose = purpose.strip()[:100] or "d"
    with transaction.atomic():
        locked = game_lock(game)
        roller = dice.Dice(locked.seed, locked.seq + 1)
        value = roller.below(purpose, sides) + 1
        payload = {
            "purpose": purpose,
            "sides": sides,
            "value": value,
            "rolls": [r.to_json() for r in roller.rolls],
        }
        events_append(
            game=locked,
            events=[GameEvent("dice_rolled", PUBLIC, payload)],
            now=timezone.now(),
            director=director,
            reason=reason,
        )
    return value


def game_pause(*, game: Game, director: User, paused: bool, reason: str) -> None:
    """Pause (or resume) a game: no action is accepted and no transition runs meanwhile."""
    reason = reason_required(reason)
    with transaction.atomic():
        locked = game_lock(game)
        if locked.paused == paused:
            return
        locked.paused = paused
        locked.save(update_fields=["paused"])
        event = GameEvent("game_paused" if paused else "game_resumed", PUBLIC, {})
        events_append(
            game=locked, events=[event], now=timezone.now(), director=director, reason=reason
        )


def game_mark_finished(*, game: Game) -> list[GameEvent]:
    """For a locked game whose rules just ended it: finish it and reveal the seed, once. The
    caller appends the returned event with its own; nothing is returned (and nothing changes)
    for a game already finished with its seed out (the director's 结束游戏 came first, and a
    late red card then ended the engine too)."""
    ended = {GameStatus.FINISHED, GameStatus.ARCHIVED}
    if game.status in ended and game.seed_revealed:
        return []
    if game.status not in ended:
        game.status = GameStatus.FINISHED
    game.seed_revealed = True
    game.save(update_fields=["status", "seed_revealed"])
    return [GameEvent("game_finished", PUBLIC, {"seed": game.seed, "seed_hash": game.seed_hash})]


def game_finish(*, game: Game, director: User | None, reason: str = "") -> None:
    """End the game and reveal its seed, so anyone can re-derive every roll."""
    with transaction.atomic():
        locked = game_lock(game)
        if locked.status not in {GameStatus.TEST, GameStatus.RUNNING}:
            raise GameNotLive()
        events = game_mark_finished(game=locked)
        events_append(
            game=locked, events=events, now=timezone.now(), director=director, reason=reason
        )


# --- phases and the scheduler ------------------------------------------------------------


def _transition_apply(
    *,
    game: Game,
    step: tt.Transition,
    now: datetime,
    director: User | None = None,
    reason: str = "",
) -> bool:
    """Apply one transition to a locked game; False when it had already happened."""
    try:
        with transaction.atomic():  # savepoint: a duplicate key undoes only this transition
            TransitionRecord.objects.create(
                game=game,
                day=step.day,
                kind=step.kind,
                due_at=step.due_at,
                done_at=now,
                director=director,
                reason=reason,
            )
            game.day, game.phase = step.day, step.phase_after
            game.save(update_fields=["day", "phase"])
            core = GameEvent(
                "phase_changed",
                PUBLIC,
                {"day": step.day, "phase": step.phase_after, "transition": step.kind},
            )
            shared = [e for h in core_transitions(step.kind) for e in h(game, step.day, now)]
            handler = kind_get(game.kind).transitions.get(step.kind)
            extra = list(handler(game, step.day, now)) if handler else []
            events_append(
                game=game,
                events=[core, *extra, *shared],
                now=now,
                director=director,
                reason=reason,
            )
    except IntegrityError:
        game.refresh_from_db()
        return False
    return True


# Transitions one tick may run per game after an outage; the rest follow on the next tick.
_CATCH_UP_LIMIT = 50


def transitions_run_due(*, now: datetime) -> list[tuple[int, int, str]]:
    """Run every due transition of every live game, each exactly once.

    Each game is claimed with SKIP LOCKED, so two ticks at once split the games between them
    instead of queueing; the unique (game, day, kind) record makes a repeat a no-op.
    """
    done: list[tuple[int, int, str]] = []
    game_ids = Game.objects.filter(
        status__in=[GameStatus.TEST, GameStatus.RUNNING], start_date__isnull=False
    ).values_list("pk", flat=True)
    for game_id in game_ids:
        try:
            done.extend(_game_transitions_run(game_id=game_id, now=now))
        except Exception:
            # One game's failure (rolled back whole) must not hold up every other game.
            logger.exception("transition of game %s failed; it stays as it was", game_id)
    return done


def _game_transitions_run(*, game_id: int, now: datetime) -> list[tuple[int, int, str]]:
    """Catch one game up, one transition per transaction: a transition that fails leaves the
    game exactly as the previous one left it."""
    done: list[tuple[int, int, str]] = []
    for _ in range(_CATCH_UP_LIMIT):
        with transaction.atomic():
            game = (
                Game.objects.select_for_update(skip_locked=True)
                .filter(pk=game_id, status__in=[GameStatus.TEST, GameStatus.RUNNING], paused=False)
                .first()
            )
            if game is None:
                return done
            steps = tt.due_transitions(
                game.timetable(), day=game.day, phase=game.phase, now=now, limit=1
            )
            if not steps or not _transition_apply(game=game, step=steps[0], now=now):
                return done
            done.append((game.pk, steps[0].day, steps[0].kind))
    return done


def _scheduled_game_lock(game: Game) -> Game:
    """The game locked, if it is live and runs by its timetable."""
    locked = game_lock(game)
    if not locked.is_live:
        raise GameNotLive()
    if locked.start_date is None:
        raise NoStartDate()
    return locked


def phase_advance(*, game: Game, director: User, reason: str) -> tt.Transition:
    """Open or close the next phase by hand, now (a director override, logged with reason)."""
    reason = reason_required(reason)
    with transaction.atomic():
        locked = _scheduled_game_lock(game)
        now = timezone.now()
        step = tt.next_transition(locked.timetable(), day=locked.day, phase=locked.phase)
        forced = tt.Transition(step.day, step.kind, now)
        _transition_apply(game=locked, step=forced, now=now, director=director, reason=reason)
    return forced


def day_close_move(*, game: Game, day: int, at: datetime, director: User, reason: str) -> None:
    """Move one day's 关门 (执行加速 — the posts do not say by how much — or the director's own
    call): a per-day timetable override, announced publicly and logged with the reason. The
    new close must still be ahead, after the day's open and before the day's next transition
    (the timetable keeps each transition on or after the one before)."""
    reason = reason_required(reason)
    with transaction.atomic():
        locked = _scheduled_game_lock(game)
        if TransitionRecord.objects.filter(game=locked, day=day, kind="day_close").exists():
            raise CloseMoveRefused("这一天已经关门。", message_en="That day has closed already.")
        schedule = dict(locked.timetable().day_schedule(day))
        now = timezone.now()
        if not max(now, schedule["day_open"]) < at < schedule["night_open"]:
            raise CloseMoveRefused(
                "新的关门时间须晚于现在与当天开门，早于当天入夜。",
                message_en="The new close must be after now and the day's open, before its night.",
            )
        TimetableOverride.objects.update_or_create(
            game=locked, day=day, kind="day_close", defaults={"at": at}
        )
        shown = timezone.localtime(at, tt.BEIJING).strftime("%m-%d %H:%M")
        text = f"第{day}天的关门时间调整为{shown}（北京时间）。"
        payload = {"day": day, "at": at.isoformat(), "text": text}
        events_append(
            game=locked,
            events=[GameEvent("close_moved", PUBLIC, payload)],
            now=now,
            director=director,
            reason=reason,
        )


# --- groups and the demo ------------------------------------------------------------------

DIRECTORS_GROUP = "导演"
FORUM_STAFF_GROUP = "论坛管理"
_DIRECTOR_MODELS = (
    "game", "character", "substitute", "timetableoverride", "announcement", "event",
    "card", "speedrequest", "daypace",
    "forumthread", "forumpost", "directorforumaccount",
    "votealias",
)  # fmt: skip
# Forum staff review every game's proposed cards (the queue is a proxy of Card).
_STAFF_MODELS = ("cardreview",)


def groups_ensure() -> None:
    """The directors' and forum staff's groups, with the permissions the control room needs."""
    from django.contrib.auth.models import Group, Permission

    directors, _ = Group.objects.get_or_create(name=DIRECTORS_GROUP)
    perms = Permission.objects.filter(
        content_type__app_label="games", content_type__model__in=_DIRECTOR_MODELS
    ).exclude(codename__in=["add_event", "change_event", "delete_event"])
    directors.permissions.set(perms)
    staff, _ = Group.objects.get_or_create(name=FORUM_STAFF_GROUP)
    staff.permissions.set(
        Permission.objects.filter(
            content_type__app_label="games", content_type__model__in=_STAFF_MODELS
        ).exclude(codename__startswith="delete_")
    )
