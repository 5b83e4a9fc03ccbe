"""Forum sync: each game day's threads pulled through the game's forum adapter, every post stored
once, its author mapped to a character (or a director), edits noticed, failures backed off.

Posts are keyed by (thread, external id) under a unique constraint, and a thread's posts are
stored with its row locked, so re-running a sync, or two at once, stores each post once. A
normal sync asks only for the floors after the last one stored; now and then (and on the
director's request) a recheck fetches every floor again, which is how edits are seen. A
printable page (打印本页) pasted by a director is stored the same way; its posts carry no ids, so
they are matched to stored posts by author and minute, whichever source came first.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter, defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from games.engine.authors import Account, Author, AuthorMap
from games.engine.errors import NotFound, RuleError
from games.engine.events import DIRECTORS, GameEvent
from games.errors import NoForumSite
from games.forum import base as forum
from games.forum import printable
from games.forum.errors import ForumError
from games.forum.registry import adapter_for
from games.models import (
    Character,
    DirectorForumAccount,
    ForumKind,
    ForumPost,
    ForumThread,
    GameStatus,
    Substitute,
)
from games.services import events_append, game_lock

logger = logging.getLogger(__name__)

# After the n-th failure in a row a thread waits BACKOFF_FIRST * 2**(n-1), at most BACKOFF_MOST.
BACKOFF_FIRST = timedelta(minutes=1)
BACKOFF_MOST = timedelta(hours=1)
# A claimed thread is not claimed again for this long, so a sync that is queued or running is
# not started twice, and one whose worker died is retried.
CLAIM_LEASE = timedelta(minutes=10)
# Threads of the current game day and of this many days before are synced (late posts and edits
# of the day that just closed still arrive).
DAYS_BACK = 1
# A printable page shows no post ids: its posts are named by their place on the page, which a
# deletion shifts. Such posts are matched by author and minute, and stored under ids of our own.
PRINTED = "print:"
# Sites read through their printable page, which comes whole each time: always read whole.
WHOLE_PAGE_KINDS = frozenset({ForumKind.PRINTABLE})


@dataclass(frozen=True)
class SyncResult:
    added: int
    edited: int
    last_floor: int


def content_hash(text: str, reply_to: str | None) -> str:
    return hashlib.sha256(f"{reply_to or ''}\0{text}".encode()).hexdigest()


def _minute_key(author: str, posted_at: datetime) -> tuple[str, datetime]:
    """What a post is recognised by when one of the sources gives no id: a printable page shows
    the author and the minute only."""
    return author.strip().casefold(), posted_at.replace(second=0, microsecond=0)


def _thread_get(thread: ForumThread | int) -> ForumThread:
    pk = thread if isinstance(thread, int) else thread.pk
    found = ForumThread.objects.select_related("game__forum_site").filter(pk=pk).first()
    if found is None:
        raise NotFound()
    return found


def forum_thread_sync(
    *, thread: ForumThread | int, full: bool = False, now: datetime | None = None
) -> SyncResult:
    """Pull the thread's new floors (every floor when a recheck is due or ``full``) and store
    them. A failure is recorded on the thread (error, failures in a row, when to retry) and
    raised; nothing stored before it is touched."""
    found = _thread_get(thread)
    site = found.game.forum_site
    if site is None:
        raise NoForumSite()
    started = now or timezone.now()
    whole = site.kind in WHOLE_PAGE_KINDS
    recheck_every = timedelta(seconds=settings.FORUM_RECHECK_SECONDS)
    full = (
        full or whole or found.rechecked_at is None or found.rechecked_at <= started - recheck_every
    )
    try:
        with adapter_for(site) as adapter:
            page = adapter.fetch(found.external_id, after_floor=0 if full else found.last_floor)
    except Exception as exc:
        # A bug in an adapter must back off too, not hammer the forum every minute.
        _failure_record(found, exc if isinstance(exc, RuleError) else ForumError(), started)
        raise
    return _store(found, page, started=started, full=full, printed=whole)


def forum_printable_import(*, thread: ForumThread | int, text: str) -> SyncResult:
    """Store the posts of a printable page (打印本页) a director pasted or uploaded, whatever
    the game's forum. A page that cannot be read changes nothing but the thread's last error."""
    found = _thread_get(thread)
    now = timezone.now()
    try:
        page = printable.parse_printable(text)
    except ForumError as exc:
        ForumThread.objects.filter(pk=found.pk).update(last_error=exc.text)
        raise
    return _store(found, page, started=now, full=False, printed=True)


def _failure_record(thread: ForumThread, error: RuleError, now: datetime) -> None:
    with transaction.atomic():
        locked = ForumThread.objects.select_for_update().get(pk=thread.pk)
        locked.failures += 1
        wait = min(BACKOFF_FIRST * 2 ** min(locked.failures - 1, 12), BACKOFF_MOST)
        locked.retry_at = now + wait
        locked.last_error = error.text
        locked.save(update_fields=["failures", "retry_at", "last_error"])
    logger.warning("forum sync of thread %s failed (%s): %s", thread.pk, error.code, error.text)


def _author_map(game_id: int) -> AuthorMap:
    """The game's accounts: characters' own first, then substitutes', then the directors'."""
    characters = Character.objects.filter(game_id=game_id).order_by("pk")
    substitutes = Substitute.objects.filter(character__game_id=game_id).order_by("pk")
    directors = DirectorForumAccount.objects.filter(game_id=game_id).order_by("pk")
    return AuthorMap(
        [
            *(Account(c.forum_uid, c.forum_username, c.pk) for c in characters),
            *(
                Account(s.forum_uid, s.forum_username, s.character_id, s.since, s.until)
                for s in substitutes
            ),
            *(Account(d.forum_uid, d.forum_username, None) for d in directors),
        ]
    )


def _author(authors: AuthorMap, post: forum.ForumPost) -> Author:
    return authors.resolve(
        uid=post.author_uid,
        username=post.author,
        on=timezone.localdate(post.posted_at),
        anonymous=post.anonymous,
    )


def _new_row(thread_id: int, post: forum.ForumPost, authors: AuthorMap) -> ForumPost:
    author = _author(authors, post)
    return ForumPost(
        thread_id=thread_id,
        external_id=post.external_id,
        floor=post.floor,
        author=post.author,
        author_uid=post.author_uid,
        character_id=author.character,
        by_director=author.by_director,
        anonymous=post.anonymous,
        posted_at=post.posted_at,
        text=post.text,
        reply_to=post.reply_to or "",
        content_hash=content_hash(post.text, post.reply_to),
    )


class _Matcher:
    """Finds the stored post an incoming one is: by id, or (ids missing on one side) by author
    and minute, the earliest unmatched floor first."""

    def __init__(self, rows: Sequence[ForumPost], *, by_minute: bool) -> None:
        self.by_id = {row.external_id: row for row in rows}
        self.queues: dict[tuple[str, datetime], deque[ForumPost]] = defaultdict(deque)
        self.counts: Counter[tuple[str, datetime]] = Counter()
        for row in sorted(rows, key=lambda r: r.floor):
            key = _minute_key(row.author, row.posted_at)
            self.counts[key] += 1
            if by_minute or row.external_id.startswith(PRINTED):
                self.queues[key].append(row)

    def match(self, post: forum.ForumPost, external_id: str | None) -> ForumPost | None:
        row = self.by_id.get(external_id) if external_id else None
        if row is None:
            queue = self.queues.get(_minute_key(post.author, post.posted_at))
            row = queue.popleft() if queue else None
        return row

    def printed_id(self, post: forum.ForumPost) -> str:
        """A new id for a post seen only on a printable page, never given out before: the
        number of stored posts by this author in this minute only grows."""
        key = _minute_key(post.author, post.posted_at)
        number = self.counts[key]
        self.counts[key] += 1
        return f"{PRINTED}{key[1]:%Y%m%d%H%M}:{number}:{post.author}"


def _store(
    thread: ForumThread,
    page: forum.ThreadPage,
    *,
    started: datetime,
    full: bool,
    printed: bool,
) -> SyncResult:
    """Store what one read of the thread returned. ``full``: every floor was read; ``printed``:
    the posts come from a printable page, named by their place on it."""
    posts = page.posts
    authors = _author_map(thread.game_id)
    # Only a read of old floors can show edits; edits are logged, and the log is numbered under
    # the game's lock, always taken before the thread's.
    recheck = full or printed
    with transaction.atomic():
        game = game_lock(thread.game_id) if recheck else None
        locked = ForumThread.objects.select_for_update().get(pk=thread.pk)
        # A read that began before the one already stored saw older texts.
        outdated = locked.last_synced_at is not None and locked.last_synced_at > started
        stored = locked.posts.all()
        if not recheck:
            stored = stored.filter(
                Q(external_id__in=[p.external_id for p in posts])
                | Q(external_id__startswith=PRINTED)
            )
        matcher = _Matcher(list(stored), by_minute=printed)
        pairs = [
            (post, matcher.match(post, None if printed else post.external_id)) for post in posts
        ]
        if printed:
            # Ids of our own for the page's new posts, and replies pointed at the stored ids.
            ids = {
                post.external_id: row.external_id if row else matcher.printed_id(post)
                for post, row in pairs
            }
            pairs = [
                (
                    replace(
                        post,
                        external_id=ids[post.external_id],
                        reply_to=ids.get(post.reply_to or ""),
                    ),
                    row,
                )
                for post, row in pairs
            ]
        added: list[ForumPost] = []
        changed: dict[int, ForumPost] = {}
        edits: list[GameEvent] = []
        for post, row in pairs:
            if row is None:
                added.append(_new_row(locked.pk, post, authors))
                continue
            differs, edit = _reconcile(
                locked,
                row,
                post,
                authors=authors,
                printed=printed,
                recheck=recheck,
                may_edit=game is not None and not outdated,
                now=started,
            )
            if differs:
                changed[row.pk] = row
            if edit is not None:
                edits.append(edit)
        ForumPost.objects.bulk_create(added, ignore_conflicts=True)
        ForumPost.objects.bulk_update(list(changed.values()), _RECONCILED)
        if game is not None and edits:
            events_append(game=game, events=edits, now=started)
        # A read returns every floor it was asked for, so later reads may start after this.
        locked.last_floor = max(locked.last_floor, page.last_floor)
        fields = ["last_floor", "failures", "retry_at", "last_error"]
        if not outdated:
            locked.last_synced_at = started
            fields.append("last_synced_at")
            if full:
                locked.rechecked_at = started
                fields.append("rechecked_at")
        locked.failures, locked.retry_at, locked.last_error = 0, None, ""
        locked.save(update_fields=fields)
    return SyncResult(added=len(added), edited=len(edits), last_floor=locked.last_floor)


_RECONCILED = [
    "external_id",
    "floor",
    "text",
    "reply_to",
    "content_hash",
    "edited_at",
    "character",
    "by_director",
]


def _reconcile(
    thread: ForumThread,
    row: ForumPost,
    post: forum.ForumPost,
    *,
    authors: AuthorMap,
    printed: bool,
    recheck: bool,
    may_edit: bool,
    now: datetime,
) -> tuple[bool, GameEvent | None]:
    """Bring a stored post up to date with the same post read again: (whether the row changed,
    the event of an edit)."""
    was_printed = row.external_id.startswith(PRINTED)
    if printed and not was_printed:
        # The forum's own reading of a post stands; a printable page renders text its own way.
        return False, None
    changed, edit = False, None
    if was_printed and not printed:
        # The forum's own id, floor and text replace the printable page's guesses.
        row.external_id = post.external_id
        _text_set(row, post)
        changed = True
    elif may_edit and row.content_hash != content_hash(post.text, post.reply_to):
        edit = _edit_event(thread, row, post)
        _text_set(row, post)
        row.edited_at = now
        changed = True
    if row.floor != post.floor:  # on a printable page, a deleted post moves the later ones up
        row.floor = post.floor
        changed = True
    # Accounts registered or corrected since the post was stored take effect here.
    if recheck or was_printed != printed:
        author = _author(authors, post)
        if (row.character_id, row.by_director) != (author.character, author.by_director):
            row.character_id, row.by_director = author.character, author.by_director
            changed = True
    return changed, edit


def _text_set(row: ForumPost, post: forum.ForumPost) -> None:
    row.text, row.reply_to = post.text, post.reply_to or ""
    row.content_hash = content_hash(post.text, post.reply_to)


def _edit_event(thread: ForumThread, row: ForumPost, post: forum.ForumPost) -> GameEvent:
    logger.info("forum post %s (floor %s) of thread %s was edited", row.pk, row.floor, thread.pk)
    return GameEvent(
        "forum_post_edited",
        DIRECTORS,
        {
            "thread": thread.pk,
            "day": thread.day,
            "thread_kind": thread.kind,
            "floor": row.floor,
            "external_id": row.external_id,
            "author": row.author,
            "character": row.character_id,
            "before": row.text,
            "after": post.text,
        },
        actor=row.character_id,
    )


def forum_threads_claim_due(*, now: datetime) -> list[int]:
    """Claim the threads of live games that are due for a sync: each is leased, so it is
    handed to one worker at a time, and retried when that worker dies."""
    due = ForumThread.objects.filter(
        Q(retry_at__isnull=True) | Q(retry_at__lte=now),
        game__status__in=[GameStatus.TEST, GameStatus.RUNNING],
        game__forum_site__isnull=False,
        day__gte=F("game__day") - DAYS_BACK,
    )
    with transaction.atomic():
        ids = list(
            due.select_for_update(skip_locked=True, of=("self",))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        ForumThread.objects.filter(pk__in=ids).update(retry_at=now + CLAIM_LEASE)
    return ids
