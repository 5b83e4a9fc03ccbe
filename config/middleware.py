"""Django's stock middleware, run on the event loop under ASGI instead of through threads.

Under ASGI, ``MiddlewareMixin`` runs every ``process_request`` and ``process_response`` through
``sync_to_async``: some fifteen thread hand-offs per request with the stock list, which the
royale benchmark measured as a large share of a night action's cost. The hooks of these classes
only look at headers, cookies and lazy objects, so they run inline; the two that can touch the
session store (saving a modified session, storing pending messages) still go to a thread when,
and only when, they would.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from csp.middleware import CSPMiddleware
from django.conf import settings
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponseBase
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.common import CommonMiddleware
from django.middleware.csrf import CsrfViewMiddleware
from django.middleware.locale import LocaleMiddleware
from django.middleware.security import SecurityMiddleware


class _Inline:
    """``__acall__`` without thread hops (mixed in before a ``MiddlewareMixin`` subclass)."""

    get_response: Any

    def _response_needs_thread(self, request: HttpRequest, response: HttpResponseBase) -> bool:
        return False

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        response = None
        process_request = getattr(self, "process_request", None)
        if process_request is not None:
            response = process_request(request)
        response = response or await self.get_response(request)
        process_response = getattr(self, "process_response", None)
        if process_response is not None:
            if self._response_needs_thread(request, response):
                process_response = sync_to_async(process_response, thread_sensitive=True)
                response = await process_response(request, response)
            else:
                response = process_response(request, response)
        return response


class Security(_Inline, SecurityMiddleware):
    pass


class Csp(_Inline, CSPMiddleware):
    """django-csp's hooks (the request's nonce, made lazily; the header) do no I/O. The policy
    governs documents, so only HTML responses carry it: building it costs some 0.1 ms, which
    the JSON API's hot path (a night action) would pay for nothing."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if not str(response.get("Content-Type", "")).startswith("text/html"):
            return response
        return super().process_response(request, response)


class Session(_Inline, SessionMiddleware):
    def _response_needs_thread(self, request: HttpRequest, response: HttpResponseBase) -> bool:
        # Saving goes to the cache and the database; reading flags and cookies does not.
        session = getattr(request, "session", None)
        return session is not None and (session.modified or settings.SESSION_SAVE_EVERY_REQUEST)


class Locale(_Inline, LocaleMiddleware):
    pass


class Common(_Inline, CommonMiddleware):
    pass


class Csrf(_Inline, CsrfViewMiddleware):
    pass


class Authentication(_Inline, AuthenticationMiddleware):
    pass


class Messages(_Inline, MessageMiddleware):
    def _response_needs_thread(self, request: HttpRequest, response: HttpResponseBase) -> bool:
        # Storing messages may read the session first (its fallback storage).
        storage = getattr(request, "_messages", None)
        return storage is not None and (storage.used or storage.added_new)


class XFrameOptions(_Inline, XFrameOptionsMiddleware):
    pass
