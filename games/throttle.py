"""Limits on failed character logins, per client and per game number tried, in fixed windows.

Counters live in Redis (the cache) so every daphne process shares them.

Passwords and link tokens carry over 112 bits, so no limit here is what keeps them from being
guessed; the limits keep one client's noise bounded and never let other people's failures
lock a player out (issue 14: a global lock let 30 addresses shut every login of every game):

- a client (an IPv4 address, or an IPv6 /64, which one subscriber holds whole and can rotate
  through for free) that failed ``LOGIN_LIMIT_PER_ADDRESS`` times is refused before its
  password is even looked at — only its own failures count;
- a game number past ``LOGIN_LIMIT_PER_GAME`` failures answers its further *failures*
  with 429 and ``Retry-After`` instead of 401, and a warning is logged once. A correct password
  is still let in: a password login does not know its character (or game) before the digest
  lookup, and refusing it there would hand anyone the lock the global limit was.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import time

from django.conf import settings
from django.core.cache import cache

from games.engine.errors import TooManyAttempts

log = logging.getLogger(__name__)


def _bucket(now: float) -> tuple[int, int]:
    window = settings.LOGIN_LIMIT_WINDOW
    index = int(now // window)
    retry_after = int(window - now % window) + 1
    return index, retry_after


def client_key(address: str | None) -> str:
    """What the per-client limit counts: the IPv4 address, or the /64 of an IPv6 one."""
    if not address:
        return "unknown"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _address_key(address: str | None, index: int) -> str:
    return f"login-fail:{index}:addr:{client_key(address)}"


def _game_key(game_number: str, index: int) -> str:
    # Whatever was typed in the URL, existing game or not (counting only real games would tell
    # which exist); hashed so any string makes a short, safe cache key.
    digest = hashlib.sha256(game_number.encode()).hexdigest()[:32]
    return f"login-fail:{index}:game:{digest}"


def _minutes(retry_after: int) -> int:
    return max(1, round(retry_after / 60))


def login_check(*, address: str | None) -> None:
    """Refuse a client that failed too often itself (before its password is looked at)."""
    index, retry_after = _bucket(time.time())
    if (cache.get(_address_key(address, index)) or 0) >= settings.LOGIN_LIMIT_PER_ADDRESS:
        minutes = _minutes(retry_after)
        raise TooManyAttempts(
            f"登录失败次数过多，请约 {minutes} 分钟后再试。",
            message_en=f"Too many failed logins; try again in about {minutes} min.",
            retry_after=retry_after,
            scope="address",
        )


def login_failed(*, address: str | None, game_number: str) -> TooManyAttempts | None:
    """Count a failure; the 429 to answer it with when its game number is over its limit."""
    index, retry_after = _bucket(time.time())
    timeout = settings.LOGIN_LIMIT_WINDOW * 2
    counts = []
    for key in (_address_key(address, index), _game_key(game_number, index)):
        cache.add(key, 0, timeout=timeout)
        counts.append(cache.incr(key))
    in_game = counts[1]
    if in_game <= settings.LOGIN_LIMIT_PER_GAME:
        return None
    if in_game == settings.LOGIN_LIMIT_PER_GAME + 1:
        log.warning(
            "login failures for game number %r passed %d in this %d s window",
            game_number[:64], settings.LOGIN_LIMIT_PER_GAME, settings.LOGIN_LIMIT_WINDOW,
        )  # fmt: skip
    # Not "wait N minutes": the right password gets in at once, only guessing is told to slow down.
    return TooManyAttempts(
        "密码错误或登录链接已失效。本局近期登录失败过多，请仔细核对密码后再试。",
        message_en=(
            "Wrong password, or the login link is no longer valid. This game has seen many"
            " failed logins lately; check your password carefully before trying again."
        ),
        retry_after=retry_after,
        scope="game",
    )
