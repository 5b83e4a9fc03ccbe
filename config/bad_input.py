"""Bad bytes stop at the edge: NUL and unpaired surrogates never reach a view or the database.

PostgreSQL refuses a NUL in text and in ``jsonb``, and an unpaired surrogate (``"\\ud800"`` in
a JSON body) in ``jsonb``: both came back as HTML 500s from wherever they landed (a path lookup,
a whisper, a session key). SQLite stored the surrogate, and then the push of that batch failed
to encode it. This middleware, first in the stack, refuses such a request before anything reads
it: 400 ``invalid_input`` (``{code, message}`` under ``/api/``, a plain Chinese page elsewhere),
the same on both databases. A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is answered here too
(413 ``too_large``), so the API answers it in its own shape.

Looked at: the decoded path, the raw query string, every header (and the parsed cookies, whose
quoted values may spell a NUL as ``\\000``), and the body — raw bytes for JSON (a NUL byte, the
escape ``\\u0000``, an escaped surrogate not in a pair, a surrogate spelled in UTF-8 bytes, which
``json.loads`` lets through), ``%00`` in a form, the parsed fields of a multipart form.

Cheap on purpose, since the royale action POST passes here: a request is a few substring
searches and one regex scan of the body, in C; Python looks only at the escapes of a NUL or a
surrogate (none in an ordinary action; two per emoji from a client that escapes non-ASCII).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import get_language_from_request

from games.engine.errors import InvalidInput, RuleError

API_PREFIX = "/api/"


class BadCharacters(InvalidInput):
    message = "请求中含有无法处理的字符（空字符或不成对的代理字符），请删除后重试。"
    message_en = (
        "The request contains characters that cannot be handled (NUL or unpaired surrogates)."
    )


class TooLarge(RuleError):
    code = "too_large"
    status = 413
    message = "请求内容过大。"
    message_en = "The request is too large."


# An unpaired surrogate in a str: only a client that builds META itself (a test, a WSGI server
# decoding with surrogateescape) can put one in a header or the path; ASGI decodes latin-1.
_SURROGATE = re.compile("[\ud800-\udfff]")
# A JSON escape of NUL or of a surrogate, with the run of backslashes before it (an even run is
# escaped backslashes followed by a plain "u"); the look-behind starts a match at a run's start.
_ESCAPE = re.compile(rb"(?<!\\)(\\+)u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
# The low half of a pair, right after its high half.
_LOW_ESCAPE = re.compile(rb"\\u[dD][c-fC-F][0-9a-fA-F]{2}")
# A surrogate in UTF-8 bytes (ED A0..BF ..): invalid UTF-8, which json.loads decodes anyway.
_RAW_SURROGATE = re.compile(rb"\xed[\xa0-\xbf]")


def _escapes_bad(body: bytes) -> bool:
    """A JSON text escapes NUL, or a surrogate that is not a high one directly followed by a
    low one. Only such escapes are looked at in Python (an emoji from a client that escapes
    non-ASCII is two); the scan for them is the regex engine's."""
    low_half_at = -1  # where the low half of the last pair starts
    for m in _ESCAPE.finditer(body):
        if len(m[1]) % 2 == 0 or m.start() == low_half_at:
            continue
        if 0xD800 <= int(m[2], 16) <= 0xDBFF and _LOW_ESCAPE.match(body, m.end()):
            low_half_at = m.end()
            continue
        return True
    return False


def _text_bad(value: str) -> bool:
    return "\x00" in value or (not value.isascii() and _SURROGATE.search(value) is not None)


def _body_bad(request: HttpRequest) -> bool:
    if request.content_type == "multipart/form-data":
        # Only the fields: reading the raw body would hold an upload in memory, and Django
        # decodes the fields itself (invalid UTF-8 becomes U+FFFD), so a NUL is all to look for.
        return any(
            _text_bad(key) or any(_text_bad(v) for v in values)
            for key, values in request.POST.lists()
        )
    body = request.body
    if not body:
        return False
    if request.content_type == "application/x-www-form-urlencoded" and b"%00" in body:
        return True
    # Any other body may be read as JSON (ninja parses a body whatever its content type).
    return json_bad(body)


def json_bad(body: bytes) -> bool:
    """A JSON text (an API body, a socket's frame) holds or escapes NUL or an unpaired
    surrogate."""
    if b"\x00" in body:
        return True
    # (Substring tests first: CJK escapes are \u4e00-\u9fff, so an ordinary text skips the scan.)
    if (b"\\u0000" in body or b"\\ud" in body or b"\\uD" in body) and _escapes_bad(body):
        return True
    return b"\xed" in body and _RAW_SURROGATE.search(body) is not None


def problem(request: HttpRequest) -> RuleError | None:
    """Why this request is refused at the edge, if it is."""
    if _text_bad(request.path):
        return BadCharacters(where="path")
    query = request.META.get("QUERY_STRING", "")
    if query and ("%00" in query or _text_bad(query)):
        return BadCharacters(where="query")
    # Every header (and the server's own entries, which a NUL never legitimately reaches).
    for value in request.META.values():
        if type(value) is str and _text_bad(value):
            return BadCharacters(where="header")
    if any(_text_bad(v) for v in request.COOKIES.values()):
        return BadCharacters(where="header")
    try:
        if _body_bad(request):
            return BadCharacters(where="body")
    except RequestDataTooBig:
        return TooLarge()
    except (SuspiciousOperation, MultiPartParserError):
        # Too many fields or files, a broken multipart body: what Django would answer 400 for.
        return InvalidInput()
    return None


_PAGE = (
    '<!doctype html>\n<html lang="zh-hans">\n<head><meta charset="utf-8"><title>{title}</title>'
    "</head>\n<body>\n<h1>{title}</h1>\n<p>{message}</p>\n</body>\n</html>\n"
)


def refusal(request: HttpRequest, error: RuleError) -> HttpResponse:
    """The answer: the API's ``{code, message}``, or a plain page for a browser."""
    english = get_language_from_request(request).startswith("en")
    if request.path_info.startswith(API_PREFIX):
        return JsonResponse(error.as_dict(english=english), status=error.status)
    too_large = error.status == 413
    if english:
        title = "Request too large" if too_large else "Bad request"
    else:
        title = "请求过大" if too_large else "请求无效"
    page = _PAGE.format(title=title, message=error.text_en if english else error.text)
    return HttpResponse(page, status=error.status, content_type="text/html; charset=utf-8")


class BadInput:
    """The middleware (sync and async, with no thread hop of its own)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponseBase | Awaitable[HttpResponseBase]:
        if self.is_async:
            return self.__acall__(request)
        error = problem(request)
        if error is not None:
            return refusal(request, error)
        response: HttpResponseBase = self.get_response(request)
        return response

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        error = problem(request)
        if error is not None:
            return refusal(request, error)
        response: HttpResponseBase = await self.get_response(request)
        return response
