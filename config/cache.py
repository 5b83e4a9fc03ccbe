"""Django's Redis cache, with one connection pool per process and reads that need no thread.

Django keeps a cache object per async context, and each one opens its own connection pool: under
ASGI every request connected to Redis anew. Here all of a process's cache objects share one
client. ``aget`` (how async code reads sessions) talks to Redis on the running event loop
instead of hopping to a thread; other async calls keep Django's thread-based defaults.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from typing import Any

import redis.asyncio
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property

_CLIENTS: dict[tuple[str, ...], RedisCacheClient] = {}
_CLIENTS_LOCK = threading.Lock()
# One asyncio client per event loop: its connections belong to the loop that opened them.
_ASYNC: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, redis.asyncio.Redis] = (
    weakref.WeakKeyDictionary()
)


class Cache(RedisCache):
    # set by RedisCache.__init__ (django-stubs leave its private attributes out)
    _servers: list[str]
    _options: dict[str, Any]
    _class: type[RedisCacheClient]

    @cached_property
    def _cache(self) -> RedisCacheClient:
        key = (*self._servers, repr(sorted(self._options.items())))
        with _CLIENTS_LOCK:
            client = _CLIENTS.get(key)
            if client is None:
                client = _CLIENTS[key] = self._class(self._servers, **self._options)
        return client

    def _async_client(self) -> redis.asyncio.Redis:
        loop = asyncio.get_running_loop()
        client = _ASYNC.get(loop)
        if client is None:
            # the write server (the first), as Django's own client reads from when it is alone
            client = _ASYNC[loop] = redis.asyncio.Redis.from_url(self._servers[0])
        return client

    async def aget(self, key: str, default: Any = None, version: int | None = None) -> Any:
        value = await self._async_client().get(self.make_and_validate_key(key, version=version))
        # the client's private serializer: the stubs leave it out
        serializer: Any = self._cache._serializer  # type: ignore[attr-defined]
        return default if value is None else serializer.loads(value)
