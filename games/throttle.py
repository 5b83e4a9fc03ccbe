"""Limits on failed character logins, per client address and in all, in fixed windows.

Counters live in Redis (the cache) so every daphne process shares them.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache

from games.engine.errors import TooManyAttempts


def _bucket(now: float) -> tuple[int, int]:
    window = settings.LOGIN_LIMIT_WINDOW
    index = int(now // window)
    retry_after = int(window - now % window) + 1
    return index, retry_after


def _keys(address: str, index: int) -> tuple[str, str]:
    return f"login-fail:{index}:addr:{address}", f"login-fail:{index}:all"


def login_check(*, address: str) -> None:
    index, retry_after = _bucket(time.time())
    per_address, total = _keys(address, index)
    counts = cache.get_many([per_address, total])
    if counts.get(per_address, 0) >= settings.LOGIN_LIMIT_PER_ADDRESS or (
        counts.get(total, 0) >= settings.LOGIN_LIMIT_TOTAL
    ):
        minutes = max(1, round(retry_after / 60))
        raise TooManyAttempts(
            f"登录失败次数过多，请约 {minutes} 分钟后再试。",
            message_en=f"Too many failed logins; try again in about {minutes} min.",
            retry_after=retry_after,
        )


def login_failed(*, address: str) -> None:
    index, _ = _bucket(time.time())
    timeout = settings.LOGIN_LIMIT_WINDOW * 2
    for key in _keys(address, index):
        cache.add(key, 0, timeout=timeout)
        cache.incr(key)
