"""Who wrote a forum post: the character whose account it is, a director, or nobody we know.

A character plays through its own forum account (马甲); a substitute (替补) may post with an
account of its own while it stands in, and keeps the character; the game's directors post with
their accounts (such as ``[061]导演B``). A forum uid is authoritative where both sides have one
(usernames can be renamed or reused); otherwise the username decides, compared without case, as
Discuz does. Anonymous posts belong to nobody.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True, slots=True)
class Account:
    uid: str
    username: str
    character: int | None  # None: a director's account
    since: date | None = None  # a substitute's days, both ends included
    until: date | None = None

    def active_on(self, day: date) -> bool:
        return (self.since is None or self.since <= day) and (
            self.until is None or day <= self.until
        )


@dataclass(frozen=True, slots=True)
class Author:
    character: int | None
    by_director: bool


NOBODY = Author(character=None, by_director=False)


def _folded(username: str) -> str:
    return username.strip().casefold()


class AuthorMap:
    """Resolves posts to authors; where several accounts match, the earlier one given wins."""

    def __init__(self, accounts: Iterable[Account]) -> None:
        self._by_uid: dict[str, list[Account]] = {}
        self._by_name: dict[str, list[Account]] = {}
        for account in accounts:
            if account.uid:
                self._by_uid.setdefault(account.uid, []).append(account)
            if account.username.strip():
                self._by_name.setdefault(_folded(account.username), []).append(account)

    def resolve(self, *, uid: str, username: str, on: date, anonymous: bool = False) -> Author:
        if anonymous:
            return NOBODY
        candidates = self._by_uid.get(uid, []) if uid else []
        if not any(a.active_on(on) for a in candidates):
            # A post with a uid can only be an account's that has none recorded.
            candidates = [
                a for a in self._by_name.get(_folded(username), []) if not (uid and a.uid)
            ]
        for account in candidates:
            if account.active_on(on):
                return Author(account.character, by_director=account.character is None)
        return NOBODY
