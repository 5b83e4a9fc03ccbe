"""The one interface every forum adapter offers, and the post it returns."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class ForumPost:
    """One floor of a thread, as the forum showed it."""

    external_id: str  # Discuz pid, Discourse post id; printable pages have none, so the floor
    floor: int  # Discuz ``position``, Discourse ``post_number``; deleted posts leave gaps
    author: str
    author_uid: str  # "" when anonymous or unknown
    posted_at: dt.datetime  # aware, UTC
    text: str  # the HTML as text, quotes removed
    html: str  # as received
    reply_to: str | None  # external id of the post it replies to or quotes
    anonymous: bool
    first: bool  # the thread's opening post


@dataclass(frozen=True)
class ThreadPage:
    """What one fetch returned: the new posts in floor order, and the thread's highest floor."""

    posts: list[ForumPost] = field(default_factory=list)
    last_floor: int = 0


class ForumAdapter(Protocol):
    # False where the forum has no private messages (printable pages): callers offer PMs only
    # where this is true, and ``send_pm`` raises ``ForumPmUnsupported`` otherwise.
    supports_pm: bool

    def fetch(self, thread: str, *, after_floor: int) -> ThreadPage:
        """Posts with floor > ``after_floor``, in floor order (paging happens inside)."""
        ...

    def reply(self, thread: str, text: str) -> str:
        """Post ``text`` as a reply in ``thread``; returns the new post's external id."""
        ...

    def send_pm(self, *, to_uid: str, to_username: str, subject: str, text: str) -> None:
        """Send a private message to a forum account (uid preferred, username if no uid).

        Returns once the forum said it was sent; a refusal is a ``ForumError``
        (``ForumPmUnknownUser`` for a recipient the forum does not have, ``ForumPmRefused``,
        ``ForumFlood``, ``ForumAuthFailed``). Like ``reply``, not idempotent: a send whose
        answer timed out may have been delivered.
        """
        ...

    def close(self) -> None:
        """Close the adapter's connections (leaving a ``with`` block over it does this)."""
        ...

    def __enter__(self) -> ForumAdapter: ...

    def __exit__(self, *exc_info: object) -> None: ...


class ForumSiteConfig(Protocol):
    """What an adapter needs to know about a site (``games.models.ForumSite`` has these)."""

    kind: str
    base_url: str
    username: str
    password: str
    api_key: str
    api_username: str
    posting_enabled: bool
