"""The HTTP side every adapter shares: one client, closed with the adapter, and transport
failures as ``ForumError``s."""

from __future__ import annotations

import functools
import json
import ssl
from typing import Any, Self

import httpx

from games.forum.errors import ForumError, ForumUnreachable

# Long enough for a slow forum page, short enough that a hung forum does not hold a worker.
TIMEOUT = 10.0
USER_AGENT = "wuyu-banssha/1 (+forum sync)"


@functools.cache
def _tls() -> ssl.SSLContext:
    # Building a context reads the CA bundle (a quarter of a second); one serves every client.
    return httpx.create_ssl_context()


def client(base_url: str, *, timeout: float, headers: dict[str, str] | None = None) -> httpx.Client:
    base = base_url if base_url.endswith("/") else base_url + "/"
    return httpx.Client(
        base_url=base,
        timeout=timeout,
        headers={"User-Agent": USER_AGENT, **(headers or {})},
        follow_redirects=True,
        verify=_tls(),
    )


class HttpAdapter:
    """An adapter's own client; ``close()`` it, or use the adapter as a context manager
    (``with adapter_for(site) as forum:``), so a sync does not leave its connections open."""

    def __init__(
        self, base_url: str, *, timeout: float, headers: dict[str, str] | None = None
    ) -> None:
        self._http = client(base_url, timeout=timeout, headers=headers)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def send(http: httpx.Client, method: str, url: str, **kwargs: Any) -> httpx.Response:
    """The response, or ``ForumUnreachable`` for timeouts, connection errors and 5xx."""
    try:
        response = http.request(method, url, **kwargs)
    except httpx.TimeoutException as error:
        raise ForumUnreachable(
            f"论坛在 {http.timeout.read} 秒内没有响应，稍后会自动重试。",
            message_en=f"The forum did not answer within {http.timeout.read} s.",
            reason="timeout",
        ) from error
    except httpx.HTTPError as error:
        raise ForumUnreachable(reason=type(error).__name__) from error
    if response.status_code >= 500:
        raise ForumUnreachable(
            f"论坛服务器出错（HTTP {response.status_code}），稍后会自动重试。",
            message_en=f"The forum answered with HTTP {response.status_code}.",
            http_status=response.status_code,
        )
    return response


def json_body(response: httpx.Response) -> Any:
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ForumError(
            "论坛返回的内容无法识别（不是接口数据），请检查论坛地址。",
            message_en="The forum's answer is not API data; check the forum address.",
            http_status=response.status_code,
        ) from error
