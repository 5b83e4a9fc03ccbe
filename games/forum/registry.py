"""Adapters by the site's ``kind``; the rest of the site never branches on the forum software."""

from __future__ import annotations

from collections.abc import Callable

from games.forum import discourse, discuz, printable
from games.forum.base import ForumAdapter, ForumSiteConfig
from games.forum.errors import ForumError

ADAPTERS: dict[str, Callable[[ForumSiteConfig], ForumAdapter]] = {
    "discuz": discuz.from_site,
    "discourse": discourse.from_site,
    "printable": printable.from_site,
}


def adapter_for(site: ForumSiteConfig) -> ForumAdapter:
    """A new adapter for the site, holding its own connections: use it in a ``with`` block."""
    try:
        make = ADAPTERS[site.kind]
    except KeyError:
        raise ForumError(
            f"未知的论坛类型：{site.kind}", message_en=f"Unknown forum kind: {site.kind}"
        ) from None
    return make(site)
