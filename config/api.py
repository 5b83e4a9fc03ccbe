"""The one NinjaAPI: every app's router, and the mapping of typed errors to 4xx."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError

from games.api import router as games_router
from games.api_input import input_refused
from games.api_rooms import router as rooms_router
from games.engine.errors import CsrfFailed, InvalidInput, NotAuthenticated, NotFound, RuleError
from royale.api import router as royale_router
from werewolf.api import router as werewolf_router

api = NinjaAPI(
    title="雾雨小镇 版杀 API",
    version="1",
    description="玩家行动、实时事件补发与公开信息。错误一律返回 {code, message}。",
    docs_url="/docs",
)


def _english(request: HttpRequest) -> bool:
    return getattr(request, "LANGUAGE_CODE", "zh-hans").startswith("en")


def _error(request: HttpRequest, error: RuleError) -> HttpResponse:
    response = api.create_response(
        request, error.as_dict(english=_english(request)), status=error.status
    )
    retry_after = error.detail.get("retry_after")
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


@api.exception_handler(RuleError)
def on_rule_error(request: HttpRequest, exc: RuleError) -> HttpResponse:
    return _error(request, exc)


@api.exception_handler(NinjaValidationError)
def on_validation_error(request: HttpRequest, exc: NinjaValidationError) -> HttpResponse:
    return _error(request, input_refused(exc.errors))


@api.exception_handler(AuthenticationError)
def on_auth_error(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return _error(request, NotAuthenticated())


@api.exception_handler(Http404)
def on_not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return _error(request, NotFound())


@api.exception_handler(HttpError)
def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    # ninja raises HttpError for a malformed body (e.g. broken JSON)
    if exc.status_code >= 500:
        raise exc
    errors = {404: NotFound, 403: CsrfFailed}  # ninja's CSRF check raises a bare 403
    error = errors.get(exc.status_code, InvalidInput)()
    response = _error(request, error)
    response.status_code = exc.status_code
    return response


api.add_router("/", games_router)
api.add_router("/", rooms_router)
api.add_router("/royale/", royale_router)
api.add_router("/werewolf/", werewolf_router)
