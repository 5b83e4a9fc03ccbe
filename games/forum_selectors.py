"""Reads of the forum sync for the director's pages."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q

from games.models import ForumThread, Game


@dataclass(frozen=True)
class ThreadSync:
    """Where one thread's sync stands: what the director's page shows."""

    thread: ForumThread
    stored: int  # floors stored
    edited: int  # of which an edit was noticed
    unknown: int  # by an author that is neither a character nor a director

    @property
    def failing(self) -> bool:
        return self.thread.failures > 0 or bool(self.thread.last_error)


def forum_threads_sync(*, game: Game) -> list[ThreadSync]:
    threads = (
        ForumThread.objects.filter(game=game)
        .annotate(
            stored=Count("posts"),
            edited=Count("posts", filter=Q(posts__edited_at__isnull=False)),
            unknown=Count(
                "posts",
                filter=Q(posts__character__isnull=True, posts__by_director=False),
            ),
        )
        .order_by("-day", "kind")
    )
    return [ThreadSync(t, t.stored, t.edited, t.unknown) for t in threads]
