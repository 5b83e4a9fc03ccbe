"""Django's ASGI handler, lending each request a worker thread from a pool.

Django runs a request's synchronous parts (its start and finish signals, sync views) in a thread
of the request's own, started for it and dropped after: the benchmark measured the starts as a
tenth of the event loop's time. Here each request borrows an idle single-thread executor and
gives it back, as a threaded WSGI server reuses its threads. Thread-sensitive semantics stay the
same: all of one request's synchronous work runs in one thread, one call at a time.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext
from django.core.handlers.asgi import ASGIHandler

IDLE_MAX = 64  # executors kept for reuse; more (after a burst) are shut down


class Handler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self._idle: list[ThreadPoolExecutor] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = (
            self._idle.pop()
            if self._idle
            else ThreadPoolExecutor(max_workers=1, thread_name_prefix="request")
        )
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            if len(self._idle) < IDLE_MAX:
                self._idle.append(executor)
            else:
                executor.shutdown(wait=False)
