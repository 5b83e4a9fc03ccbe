from __future__ import annotations

import asyncio
import gc
import os
import sys
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does

from config.handlers import Handler  # noqa: E402  (needs Django set up first)

# Django's handler, lending each request a pooled thread (config/handlers.py).
django_asgi_app = Handler()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from games import live  # noqa: E402
from games.origins import WebsocketOriginValidator  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

router = ProtocolTypeRouter(
    {
        # Static files from daphne itself unless a proxy serves them (SERVE_STATIC=0).
        "http": ASGIStaticFilesHandler(django_asgi_app)
        if settings.SERVE_STATIC
        else django_asgi_app,
        # The Origin must be the site's own, scheme and port included, or a trusted one
        # (channels' AllowedHostsOriginValidator compared the host name alone).
        "websocket": WebsocketOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)


async def application(scope: Any, receive: Any, send: Any) -> None:
    # Pushes from request threads go through this loop (games.live).
    live.loop_bind(asyncio.get_running_loop())
    await router(scope, receive, send)


# Everything loaded so far lives as long as the process: move it out of the collector's sight,
# so full collections stop pausing every socket for 50-200 ms (measured by tests/bench).
gc.collect()
gc.freeze()
# The event loop thread (sockets, pushes, Redis) gives up the GIL at every system call and
# then waits a whole switch interval for it while request threads compute: the default 5 ms
# turned every push into a queue (measured by tests/bench/bench_royale_live.py).
sys.setswitchinterval(float(os.environ.get("GIL_SWITCH_INTERVAL", "0.0005")))
