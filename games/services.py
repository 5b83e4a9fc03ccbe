"""Writes. Each public function is one atomic unit of work; entry points call exactly one."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, models, transaction
from django.utils import timezone

from games import credentials, eventlog, live, throttle
from games.engine import dice
from games.engine import timetable as tt
from games.engine.errors import InvalidInput, NotFound, RuleError
from games.engine.events import DIRECTORS, PUBLIC, GameEvent
from games.engine.text import is_blank, names_short
from games.errors import (
    CastLocked,
    CloseMoveRefused,
    DuplicateNumber,
    GameNotLive,
    LoginFailed,
    NoSignupThread,
    NoStartDate,
    NotStartable,
    SubstituteExists,
    UnknownRuleset,
)
from games.models import (
    Announcement,
    AnnouncementStatus,
    Assistant,
    Character,
    CharacterSession,
    Event,
    ForumSite,
    ForumThread,
    Game,
    GameStatus,
    Substitute,
    ThreadKind,
    TimetableOverride,
    TransitionRecord,
)
from games.registry import core_before, core_transitions, kind_get
from games.selectors import SESSION_KEY

logger = logging.getLogger(__name__)


def game_lock(game: Game | int) -> Game:
    """Re-read the game row under a row lock (SQLite: the IMMEDIATE transaction's lock)."""
    pk = game if isinstance(game, int) else game.pk
    locked = Game.objects.select_for_update().filter(pk=pk).first()
    if locked is None:
        raise NotFound()
    locked.row_locked = True
    return locked


def reason_required(reason: str) -> str:
    """A director's intervention states why (it is logged with it)."""
    reason = (reason or "").strip()
    if is_blank(reason):
        raise InvalidInput("请填写理由。", message_en="A reason is required.")
    return reason


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
    if settings.EVENT_TEXT_STRICT:
        eventlog.player_texts_check(game_kind=game.kind, events=events)
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
                room_id=event.audience.room,
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
    if not any(row.room_id is not None for row in rows):
        from games import room_services  # rooms log through here: imported when first used

        room_services.rooms_follow(game=game, rows=rows, now=now)
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
        # Whoever was signed in with the old secret is signed out, sockets included.
        ids = [c.pk for c in targets]
        transaction.on_commit(partial(_sessions_end, locked.pk, ids))
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


def _login(*, game_number: str, secret: str, purpose: str, address: str | None) -> Character:
    # Only this client's own failures can refuse it here (games/throttle.py).
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
        # A game number under attack answers its failures with 429; never its right passwords.
        raise throttle.login_failed(address=address, game_number=game_number) or LoginFailed()
    return character


def character_login(*, game_number: str, password: str, address: str | None) -> Character:
    return _login(game_number=game_number, secret=password, purpose="pw", address=address)


def character_login_link(*, game_number: str, token: str, address: str | None) -> Character:
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
        raise InvalidInput(
            "骰子面数须在 2 到 1000000 之间。",
            message_en="A die has 2 to 1000000 sides.",
            sides=sides,
        )
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
            if steps and (before := core_before(steps[0].kind)):
                # e.g. a [061] 延时 not yet settled moves the close it is about to run: the
                # transition then runs when the changed calendar says, once (its record).
                events = [e for h in before for e in h(game, steps[0].day, now)]
                if events:
                    events_append(game=game, events=events, now=now)
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


# --- a real game's life: creation, cast, credentials, start, substitutes ------------------------

NUMBER_PATTERN = re.compile(r"^[\w-]{1,16}$")


def game_create(
    *,
    kind: str,
    ruleset: str,
    number: str,
    title: str,
    start_date: date | None = None,
    status: str = GameStatus.DRAFT,
    directors: Sequence[User] = (),
    forum_site: ForumSite | None = None,
    signup_thread: str = "",
    rules_thread: str = "",
) -> Game:
    """A new game of a registered kind and ruleset, with the ruleset's default schedule (data,
    editable afterwards), its sign-up and rules threads, and a fresh secret seed whose SHA-256
    is public from now on. Bad input raises and creates nothing."""
    game_create_check(
        kind=kind,
        ruleset=ruleset,
        number=number,
        title=title,
        forum_site=forum_site,
        threads=(signup_thread, rules_thread),
    )
    number, title = number.strip(), title.strip()
    schedule = tt.schedule_for(ruleset)
    seed = dice.seed_new()
    try:
        with transaction.atomic():
            game = Game.objects.create(
                kind=kind,
                ruleset=ruleset,
                number=number,
                title=title,
                start_date=start_date,
                status=status,
                seed=seed,
                seed_hash=dice.seed_hash(seed),
                forum_site=forum_site,
                day_open_time=schedule.times["day_open"],
                day_close_time=schedule.times["day_close"],
                night_open_time=schedule.times["night_open"],
                night_end_time=schedule.times["night_end"],
                night_close_time=schedule.times["night_close"],
                day_span=schedule.day_span,
                weekend_extra=schedule.weekend_extra,
                night_stages=[
                    {"at": s.at.strftime("%H:%M"), "label": s.label} for s in schedule.night_stages
                ],
            )
            if directors:
                game.directors.add(*directors)
            for thread_kind, external in (
                (ThreadKind.SIGNUP, signup_thread),
                (ThreadKind.RULES, rules_thread),
            ):
                if external.strip():
                    ForumThread.objects.create(
                        game=game, day=0, kind=thread_kind, external_id=external.strip()
                    )
    except IntegrityError:
        raise DuplicateNumber() from None
    game.refresh_from_db()
    return game


def game_create_check(
    *,
    kind: str,
    ruleset: str,
    number: str,
    title: str,
    forum_site: ForumSite | None,
    threads: Sequence[str] = (),
) -> None:
    """What ``game_create`` refuses, checked apart so that a form can say it field by field."""
    try:
        game_kind = kind_get(kind)
    except LookupError:
        raise InvalidInput(
            "没有这种游戏类型。",
            message_en="There is no such game kind.",
            reason="unknown kind",
            field="kind",
        ) from None
    if ruleset not in game_kind.rulesets:
        raise UnknownRuleset(field="ruleset")
    number = (number or "").strip()
    if not NUMBER_PATTERN.match(number):
        raise InvalidInput(
            "编号须为 1 到 16 个字（数字、字母、汉字或 -，不含空格和其他符号），如 256、061。",
            message_en=(
                "A number is 1 to 16 characters (digits, letters, Chinese characters or -, "
                "no spaces or other signs), e.g. 256 or 061."
            ),
            reason="bad number",
            field="number",
        )
    if Game.objects.filter(number=number).exists():
        raise DuplicateNumber(field="number")
    if not (title or "").strip():
        raise InvalidInput(
            "请填写标题。", message_en="A title is required.", reason="no title", field="title"
        )
    if any(t.strip() for t in threads) and forum_site is None:
        raise InvalidInput(
            "登记报名帖或规则帖前，请先选择论坛。",
            message_en="Choose a forum before registering a sign-up or rule thread.",
            reason="threads without forum",
            field="forum_site",
        )


def game_dealt(game: Game) -> bool:
    reader = kind_get(game.kind).dealt
    return reader is not None and reader(game)


def _cast_open(game: Game) -> None:
    """The cast may change only before the start and before the deal."""
    if game.status != GameStatus.DRAFT or game_dealt(game):
        raise CastLocked()


@dataclass(frozen=True)
class CastEntry:
    name: str
    forum_username: str = ""
    forum_uid: str = ""
    floor: int | None = None


@dataclass(frozen=True)
class CastResult:
    added: list[Character]
    skipped: list[str]  # why each entry was not added, in Chinese


def _cast_add(
    *, game: Game, director: User | None, entries: Sequence[CastEntry], source: str
) -> CastResult:
    with transaction.atomic():
        locked = game_lock(game)
        _cast_open(locked)
        existing = list(locked.characters.all())
        names = {c.name for c in existing}
        accounts = {c.forum_username for c in existing if c.forum_username}
        uids = {c.forum_uid for c in existing if c.forum_uid}
        added: list[Character] = []
        skipped: list[str] = []
        for entry in entries:
            name = entry.name.strip()[:64]
            if not name:
                continue
            if name in names:
                skipped.append(f"{name}：同名角色已存在")
                continue
            if (entry.forum_username and entry.forum_username in accounts) or (
                entry.forum_uid and entry.forum_uid in uids
            ):
                skipped.append(f"{name}：论坛账号 {entry.forum_username or entry.forum_uid} 已报名")
                continue
            added.append(
                Character.objects.create(
                    game=locked,
                    name=name,
                    forum_username=entry.forum_username[:64],
                    forum_uid=entry.forum_uid[:32],
                    signup_floor=entry.floor,
                )
            )
            names.add(name)
            if entry.forum_username:
                accounts.add(entry.forum_username)
            if entry.forum_uid:
                uids.add(entry.forum_uid)
        if added:
            event = GameEvent(
                "cast_added", DIRECTORS, {"names": [c.name for c in added], "source": source}
            )
            events_append(game=locked, events=[event], now=timezone.now(), director=director)
    return CastResult(added=added, skipped=skipped)


# A sign-up floor names its 马甲 on a line such as ``马甲：琪露诺`` (or 角色/昵称/ID); without one
# the forum account's name is the character's, which the director may then edit.
SIGNUP_NAME = re.compile(r"(?:马甲|角色|角色名|昵称)\s*[:：]\s*(\S{1,64})")


def cast_paste_parse(text: str) -> list[CastEntry]:
    """One character a line: ``马甲 [论坛用户名 [论坛UID]]``, separated by tabs, spaces or
    full-width spaces (the form a director copies from a sheet or QQ)."""
    entries = []
    for line in (text or "").splitlines():
        parts = [p for p in re.split(r"[\t 　,，]+", line.strip()) if p]
        if not parts:
            continue
        uid = parts[2] if len(parts) > 2 and parts[2].isdigit() else ""
        entries.append(CastEntry(parts[0], parts[1] if len(parts) > 1 else "", uid))
    return entries


def cast_paste(*, game: Game, director: User | None, text: str) -> CastResult:
    entries = cast_paste_parse(text)
    if not entries:
        raise InvalidInput(
            "没有读到任何角色：每行一个，格式为 马甲 论坛用户名 论坛UID。",
            message_en="No character read: one a line, as name, forum username, forum UID.",
        )
    return _cast_add(game=game, director=director, entries=entries, source="paste")


def cast_import_signup(*, game: Game, director: User | None) -> CastResult:
    """The cast from the 报名帖: the thread is synced through the forum adapter, and each
    sign-up floor by a new account, in floor order (the 电梯楼 order), becomes a character
    with that forum account. The opening post and the directors' posts are no sign-ups."""
    from games.forum_services import forum_thread_sync  # the forum services import this module

    _cast_open(game)
    thread = ForumThread.objects.filter(game=game, day=0, kind=ThreadKind.SIGNUP).first()
    if thread is None:
        raise NoSignupThread()
    forum_thread_sync(thread=thread, full=True)
    director_names = set(game.director_accounts.values_list("forum_username", flat=True)) | set(
        game.director_accounts.values_list("forum_uid", flat=True)
    )
    entries: list[CastEntry] = []
    seen: set[str] = set()
    posts = thread.posts.order_by("floor", "id")
    first_floor = posts.values_list("floor", flat=True).first()
    for post in posts:
        account = post.author_uid or post.author
        if (
            post.floor == first_floor
            or post.by_director
            or post.anonymous
            or account in seen
            or post.author in director_names
            or (post.author_uid and post.author_uid in director_names)
        ):
            continue
        seen.add(account)
        named = SIGNUP_NAME.search(post.text)
        entries.append(
            CastEntry(
                named.group(1) if named else post.author,
                post.author,
                post.author_uid,
                post.floor,
            )
        )
    return _cast_add(game=game, director=director, entries=entries, source="signup")


def character_remove(*, game: Game, director: User | None, character: Character) -> None:
    with transaction.atomic():
        locked = game_lock(game)
        _cast_open(locked)
        found = Character.objects.filter(pk=character.pk, game=locked).first()
        if found is None:
            raise NotFound()
        # A character that has been in the log stays: the log never loses a name.
        if (
            Event.objects.filter(game=locked)
            .filter(models.Q(actor=found) | models.Q(audience_character=found))
            .exists()
        ):
            raise CastLocked(
                "该角色已出现在日志中，不能删除。",
                message_en="This character is in the log already and cannot be removed.",
            )
        name = found.name
        found.delete()
        event = GameEvent("cast_removed", DIRECTORS, {"names": [name]})
        events_append(game=locked, events=[event], now=timezone.now(), director=director)


def character_credentials_reset(
    *, game: Game, director: User | None, character: Character
) -> tuple[IssuedCredential, IssuedCredential]:
    """A new password and a new login link for one character of ``game``; its old ones, its
    signed-in sessions and its open sockets stop at once."""
    if character.game_id != game.pk:
        raise NotFound()
    with transaction.atomic():
        password = character_passwords_generate(
            game=game, director=director, characters=[character]
        )[0]
        link = character_links_issue(game=game, director=director, characters=[character])[0]
    return password, link


def _sessions_end(game_id: int, character_ids: Sequence[int]) -> None:
    """Sign the characters out of every session they were signed in to and close their open
    sockets (after the commit that changed their credentials)."""
    from importlib import import_module

    from django.contrib.sessions.backends.base import SessionBase

    engine = import_module(settings.SESSION_ENGINE)
    rows = list(CharacterSession.objects.filter(character_id__in=character_ids))
    for row in rows:
        store: SessionBase = engine.SessionStore(session_key=row.session_key)
        characters = dict(store.get(SESSION_KEY) or {})
        game_key = next((g for g, c in characters.items() if c == row.character_id), None)
        if game_key is not None:
            characters.pop(game_key)
            store[SESSION_KEY] = characters
            store.save()
    CharacterSession.objects.filter(pk__in=[r.pk for r in rows]).delete()
    live.sockets_close(game_id, character_ids)


def character_session_record(*, character: Character, session_key: str) -> None:
    CharacterSession.objects.get_or_create(character=character, session_key=session_key)


def character_signed_out(*, game_id: int, character_id: int, session_key: str) -> None:
    """The character signed out of this session (the portal's 退出): nothing is left there for
    a credential reset to sign out, and the session's open sockets on the game close after
    the commit, so they stop carrying the character's private frames."""
    CharacterSession.objects.filter(character_id=character_id, session_key=session_key).delete()
    transaction.on_commit(partial(live.session_sockets_close, game_id, session_key))


def game_start_missing(*, game: Game, characters: Sequence[Character]) -> list[str]:
    """What 开始 still needs: day 1's date, two characters, each with a password or a link, the
    kind's deal, and what the kind's dealt state lacks. The 开局 page lists it before the
    click, ``game_start`` refuses with it."""
    missing: list[str] = []
    if game.start_date is None:
        missing.append("第一天日期")
    if len(characters) < 2:
        missing.append("至少两名角色")
    without = [c.name for c in characters if not (c.password_digest or c.link_digest)]
    if without:
        missing.append("登录密码（" + names_short(without) + "）")
    if not game_dealt(game):
        missing.append("发牌")
    else:
        reader = kind_get(game.kind).start_missing
        missing.extend(reader(game) if reader is not None else ())
    return missing


def game_start(*, game: Game, director: User | None, now: datetime | None = None) -> Game:
    """开始: a prepared game goes live. It needs day 1's date, at least two characters, each
    with a password or a link, and the kind's deal done; the kind then does its part (a night
    that opens the game). The seed's hash has been public since the game was created."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = game_lock(game)
        if locked.status != GameStatus.DRAFT:
            raise NotStartable(
                "游戏已经开始或已经结束。", message_en="The game has started or is over."
            )
        characters = list(locked.characters.all())
        missing = game_start_missing(game=locked, characters=characters)
        if missing:
            raise NotStartable(
                "还缺：" + "；".join(missing) + "。",
                message_en="The game cannot start yet; the start page lists what is missing.",
                missing=missing,
            )
        locked.status = GameStatus.RUNNING
        locked.save(update_fields=["status"])
        started = GameEvent(
            "game_started",
            PUBLIC,
            {
                "title": locked.forum_title,
                "characters": len(characters),
                "seed_hash": locked.seed_hash,
            },
        )
        events_append(game=locked, events=[started], now=now, director=director)
        # The kind's steps draw their dice from the log's next numbers, so they come after.
        handler = kind_get(locked.kind).start
        if handler is not None:
            events_append(game=locked, events=handler(locked, now), now=now, director=director)
    return locked


def substitute_record(
    *,
    game: Game,
    director: User,
    character: Character,
    forum_username: str,
    forum_uid: str = "",
    since: date | None = None,
    reason: str,
) -> tuple[Substitute, IssuedCredential, IssuedCredential]:
    """替补: from ``since`` the new player's forum account is the character's; new credentials
    are issued (shown once), the old ones and the old player's sessions stop. 每名角色仅限更换
    一次替补."""
    reason = reason_required(reason)
    forum_username = (forum_username or "").strip()
    if not forum_username:
        raise InvalidInput(
            "请填写替补玩家的论坛用户名。",
            message_en="The substitute's forum username is required.",
        )
    if character.game_id != game.pk:
        raise NotFound()
    with transaction.atomic():
        locked = game_lock(game)
        if not locked.is_live:
            raise GameNotLive(
                "游戏进行中才能登记替补；开始前请直接修改角色的论坛账号。",
                message_en=(
                    "A substitute is recorded while the game runs; before the start, change "
                    "the character's forum account instead."
                ),
            )
        if Substitute.objects.filter(character=character).exists():
            raise SubstituteExists()
        substitute = Substitute.objects.create(
            character=character,
            forum_username=forum_username[:64],
            forum_uid=(forum_uid or "").strip()[:32],
            since=since or timezone.localdate(),
            reason=reason,
            director=director,
        )
        password, link = character_credentials_reset(
            game=locked, director=director, character=character
        )
        locked = game_lock(game)  # the reset appended to the log: its numbers moved on
        event = GameEvent(
            "substitute_recorded",
            DIRECTORS,
            {
                "character": character.pk,
                "name": character.name,
                "forum_username": substitute.forum_username,
                "since": substitute.since.isoformat(),
            },
        )
        events_append(
            game=locked, events=[event], now=timezone.now(), director=director, reason=reason
        )
    return substitute, password, link


def assistant_record(
    *,
    game: Game,
    director: User,
    character: Character,
    forum_username: str,
    forum_uid: str = "",
    note: str = "",
) -> Assistant:
    """场外助理: recorded for the character; an assistant never posts or votes for it."""
    forum_username = (forum_username or "").strip()
    if not forum_username:
        raise InvalidInput(
            "请填写场外助理的论坛用户名。",
            message_en="The assistant's forum username is required.",
        )
    if character.game_id != game.pk:
        raise NotFound()
    with transaction.atomic():
        locked = game_lock(game)
        assistant, created = Assistant.objects.get_or_create(
            character=character,
            forum_username=forum_username[:64],
            defaults={"forum_uid": forum_uid[:32], "note": note[:200], "director": director},
        )
        if not created:
            raise InvalidInput(
                "该场外助理已经登记过。", message_en="This assistant is recorded already."
            )
        event = GameEvent(
            "assistant_recorded",
            DIRECTORS,
            {"character": character.pk, "name": character.name, "forum_username": forum_username},
        )
        events_append(game=locked, events=[event], now=timezone.now(), director=director)
    return assistant


TIMETABLE_FIELDS = (
    "start_date",
    "day_open_time",
    "day_close_time",
    "night_open_time",
    "night_end_time",
    "night_close_time",
    "day_span",
    "weekend_extra",
    "night_stages",
)


def game_timetable_set(
    *, game: Game, director: User, values: dict[str, Any], reason: str = ""
) -> list[str]:
    """Change the game's timetable; once the game is live the change needs a reason, and it
    is logged (with the old and new values) either way. Returns the changed fields."""
    with transaction.atomic():
        locked = game_lock(game)
        changed = {
            f: (getattr(locked, f), values[f])
            for f in TIMETABLE_FIELDS
            if f in values and getattr(locked, f) != values[f]
        }
        if not changed:
            return []
        if locked.is_live:
            reason = reason_required(reason)
        for name, (_old, new) in changed.items():
            setattr(locked, name, new)
        locked.save(update_fields=list(changed))
        event = GameEvent(
            "timetable_changed",
            DIRECTORS if locked.status == GameStatus.DRAFT else PUBLIC,
            {name: [_plain(old), _plain(new)] for name, (old, new) in changed.items()},
        )
        events_append(
            game=locked, events=[event], now=timezone.now(), director=director, reason=reason
        )
    return list(changed)


def _plain(value: Any) -> Any:
    if isinstance(value, date | time):
        return value.isoformat(timespec="minutes") if isinstance(value, time) else value.isoformat()
    return value


def game_credentials_issue(
    *, game: Game, director: User | None
) -> list[tuple[IssuedCredential, IssuedCredential]]:
    """A new password and a new login link for every character (shown once); every earlier
    one stops, and whoever was signed in with one is signed out."""
    with transaction.atomic():
        passwords = character_passwords_generate(game=game, director=director)
        links = {i.character.pk: i for i in character_links_issue(game=game, director=director)}
    return [(p, links[p.character.pk]) for p in passwords]


PM_SUBJECT = "{title} 登录凭据"
PM_TEXT = "你的马甲：{name}\n密码：{password}\n登录链接：{link}\n（请勿转发；导演只保存摘要。）"


def _recipient(character: Character) -> tuple[str, str]:
    """The forum account that plays the character now: its substitute's once there is one."""
    substitute = character.substitutes.order_by("-since", "-pk").first()
    if substitute is not None:
        return substitute.forum_uid, substitute.forum_username
    return character.forum_uid, character.forum_username


def credentials_send_pm(
    *, game: Game, director: User | None, rows: Sequence[tuple[Character, str, str]]
) -> list[tuple[str, str]]:
    """Send each character's new password and link to its player by forum private message,
    where the game's forum supports it. Returns (character, what happened) in Chinese; only
    the names of those reached are logged, never a secret."""
    from games.forum.registry import adapter_for

    site = game.forum_site
    if site is None:
        return [(c.name, "未发送：本局尚未设置论坛") for c, _p, _l in rows]
    results: list[tuple[str, str]] = []
    reached: list[str] = []
    with adapter_for(site) as adapter:
        if not getattr(adapter, "supports_pm", False):
            return [(c.name, "未发送：该论坛类型不支持站内信") for c, _p, _l in rows]
        for character, password, link in rows:
            uid, username = _recipient(character)
            if not (uid or username):
                results.append((character.name, "未发送：该角色没有论坛账号"))
                continue
            try:
                adapter.send_pm(
                    to_uid=uid,
                    to_username=username,
                    subject=PM_SUBJECT.format(title=game.forum_title),
                    text=PM_TEXT.format(name=character.name, password=password, link=link),
                )
            except RuleError as exc:
                results.append((character.name, f"未发送：{exc.text}"))
            else:
                reached.append(character.name)
                results.append((character.name, f"已发送给 {username or uid}"))
    event_record(
        game=game,
        events=[GameEvent("credentials_sent", DIRECTORS, {"characters": reached})],
        director=director,
    )
    return results
