"""The cache: one Redis client per process, and async reads that agree with sync writes."""

from __future__ import annotations

import threading

from asgiref.sync import sync_to_async
from django.core.cache import cache, caches

from config.cache import Cache


async def test_async_reads_return_what_sync_writes_stored() -> None:
    values = {"text": "雾雨小镇", "number": 256, "mapping": {"甲": 1, "items": [1, 2]}}
    for key, value in values.items():
        await sync_to_async(cache.set)(f"t:{key}", value)
    for key, value in values.items():
        assert await cache.aget(f"t:{key}") == value
    assert await cache.aget("t:missing", "默认") == "默认"


def test_every_thread_shares_one_client() -> None:
    seen = []

    def look() -> None:
        own = caches["default"]
        assert isinstance(own, Cache)
        seen.append(own._cache)

    threads = [threading.Thread(target=look) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(c) for c in seen}) == 1
    main = caches["default"]
    assert isinstance(main, Cache)
    assert seen[0] is main._cache
