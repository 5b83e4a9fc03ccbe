"""Whether a request comes from the site's own pages: the checks that a browser's cross-site
request must fail where Django's CSRF middleware does not run (the character login's API
endpoint, the websocket handshake).

An origin is a scheme, a host and a port, compared whole: ``http://localhost:9999`` is another
site than ``http://localhost:8000``, and ``http://`` another than ``https://``. The site's own
origin is the one the request itself reached — its scheme (TLS, or the proxy's
``SECURE_PROXY_SSL_HEADER``) and its Host header, which must be one of ``ALLOWED_HOSTS`` — and
``CSRF_TRUSTED_ORIGINS`` adds others, as Django's CSRF check does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

DEFAULT_PORTS = {"http": 80, "https": 443}

Origin = tuple[str, str, int]  # scheme, host (lower case), port


def origin_parse(text: str) -> Origin | None:
    """``scheme://host[:port]`` as a browser sends it in ``Origin``; None for anything else
    (``null``, a path, an unknown scheme)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or parts.path not in ("", "/") or parts.query:
        return None
    domain, _ = split_domain_port(parts.netloc)
    if not domain:
        return None
    return scheme, domain, port or DEFAULT_PORTS[scheme]


def _allowed_hosts() -> list[str]:
    # What Django's HttpRequest.get_host accepts.
    if settings.DEBUG and not settings.ALLOWED_HOSTS:
        return [".localhost", "127.0.0.1", "[::1]"]
    return list(settings.ALLOWED_HOSTS)


def own_origin(*, secure: bool, host: str | None) -> Origin | None:
    """The site's origin as this request reached it: its scheme and its Host header (with its
    port), when that is an allowed host."""
    if not host:
        return None
    scheme = "https" if secure else "http"
    domain, port = split_domain_port(host)
    if not domain or not validate_host(domain, _allowed_hosts()):
        return None
    return scheme, domain, int(port) if port else DEFAULT_PORTS[scheme]


def _trusted(origin: Origin) -> bool:
    scheme, domain, port = origin
    for pattern in settings.CSRF_TRUSTED_ORIGINS:
        if "://*." in pattern:
            # Django's subdomain form (https://*.example.com): any subdomain, same port.
            base = origin_parse(pattern.replace("://*.", "://", 1))
            if (
                base is not None
                and (scheme, port) == (base[0], base[2])
                and is_same_domain(domain, "." + base[1])
            ):
                return True
        elif origin_parse(pattern) == origin:
            return True
    return False


def origin_allowed(text: str, *, secure: bool, host: str | None) -> bool:
    """Whether ``Origin: text`` is the site's: the request's own origin or a trusted one."""
    origin = origin_parse(text)
    if origin is None:
        return False
    return origin == own_origin(secure=secure, host=host) or _trusted(origin)


def request_from_site(request: HttpRequest) -> bool:
    """False for a browser's request from another site's page: its ``Origin`` is not the
    site's, or, without one, its ``Sec-Fetch-Site`` names another site. A request with neither
    header was sent by no browser page (a script, curl), so nobody's browser was abused."""
    origin = request.headers.get("Origin")
    if origin is not None:
        try:
            host: str | None = request.get_host()
        except DisallowedHost:
            host = None
        return origin_allowed(origin, secure=request.is_secure(), host=host)
    return request.headers.get("Sec-Fetch-Site") in (None, "same-origin", "none")


# --- the websocket handshake -----------------------------------------------------------------


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> list[str]:
    return [value.decode("latin1") for key, value in headers if key.lower() == name]


def socket_secure(scope: dict[str, Any]) -> bool:
    """Whether the browser reached the socket over TLS: directly (wss), or through the proxy
    that says so in ``SECURE_PROXY_SSL_HEADER`` (as ``request.is_secure()`` decides)."""
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy:
        meta_name, secure_value = proxy
        name = meta_name.removeprefix("HTTP_").replace("_", "-").lower().encode()
        values = _header(scope.get("headers", ()), name)
        if values:
            return values[0].split(",", 1)[0].strip() == secure_value
    return scope.get("scheme") in ("wss", "https")


def socket_host(scope: dict[str, Any]) -> str | None:
    """The host (and port) the browser asked for, as ``request.get_host()`` reads it."""
    headers = scope.get("headers", ())
    if settings.USE_X_FORWARDED_HOST:
        forwarded = _header(headers, b"x-forwarded-host")
        if forwarded:
            return forwarded[0].split(",", 1)[0].strip()
    host = _header(headers, b"host")
    if host:
        return host[0].strip()
    server = scope.get("server")
    if server and isinstance(server[1], int):  # a TCP listener; a unix socket has no port
        name = f"[{server[0]}]" if ":" in server[0] else server[0]
        return f"{name}:{server[1]}"
    return None


class WebsocketOriginValidator:
    """ASGI middleware: a websocket handshake goes on only with one ``Origin`` header that is
    the site's own origin (scheme, host and port) or a trusted one; any other is refused
    before the consumer runs (a page on another site must not open a player's socket with the
    player's cookie)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        origins = _header(scope.get("headers", ()), b"origin")
        if len(origins) == 1 and origin_allowed(
            origins[0], secure=socket_secure(scope), host=socket_host(scope)
        ):
            await self.application(scope, receive, send)
            return
        await WebsocketDenier()(scope, receive, send)
