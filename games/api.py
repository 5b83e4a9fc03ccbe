from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from ninja import Router, Schema
from ninja.security import APIKeyCookie
from pydantic import Field

from games import origins, selectors, services
from games.api_input import Int, StrictIn
from games.engine.errors import CsrfFailed, Forbidden, InvalidInput, NotFound
from games.models import Character, Game
from games.views import client_address, session_login

router = Router(tags=["games"])


class PlayerSession(APIKeyCookie):
    """A player's session cookie, with Django's CSRF check (the portal sends X-CSRFToken).

    Async, so an async endpoint reads the session without a thread hop; it yields the
    session's characters by game (``{"<game id>": <character id>}``).
    """

    param_name = settings.SESSION_COOKIE_NAME
    is_async = True

    async def authenticate(  # ninja awaits it (is_async)
        self, request: HttpRequest, key: str | None
    ) -> dict[str, int] | None:
        if not key:
            return None
        characters = await request.session.aget(selectors.SESSION_KEY)
        return dict(characters) if characters else None


def session_actor(request: HttpRequest, game_id: int) -> int:
    """The character an action endpoint (``auth=PlayerSession()``) acts for in this game: the
    session says who acts; the service checks it against the locked game's state."""
    character_id = request.auth.get(str(game_id))  # type: ignore[attr-defined]
    if character_id is None:
        raise Forbidden()
    return int(character_id)


def session_player(request: HttpRequest, game_id: int) -> tuple[Game, Character]:
    """The game and the session's character in it (404 for no game, 403 for no character)."""
    game = selectors.game_by_id(game_id=game_id)
    if game is None:
        raise NotFound()
    character = selectors.session_character(game=game, session=request.session)
    if character is None:
        raise Forbidden()
    return game, character


class ErrorOut(Schema):
    code: str
    message: str
    detail: dict[str, Any] | None = None


class ActionOut(Schema):
    """What a kind's action endpoint answers: the action's events and the actor's new page."""

    events: list[dict[str, Any]]
    me: dict[str, Any]


# Every kind's action endpoint (``POST /api/<kind>/games/{id}/actions``) answers these.
ACTION_RESPONSES = {
    200: ActionOut,
    400: ErrorOut,
    401: ErrorOut,
    403: ErrorOut,
    404: ErrorOut,
    409: ErrorOut,
    429: ErrorOut,  # busy: the process sheds load (games.actions), with Retry-After
}


class LoginIn(StrictIn):
    password: str = Field(max_length=4096)


class LoginOut(Schema):
    game_id: int
    game: str
    character: str


class EventsOut(Schema):
    events: list[dict[str, Any]]


class PublicGameOut(Schema):
    id: int
    number: str
    title: str
    kind: str
    status: str
    day: int
    phase: str
    seed_hash: str
    seed: str | None
    announcements: list[dict[str, Any]]


@router.get("/ping", summary="空操作（基准测试用）")
def ping(request: HttpRequest) -> dict[str, bool]:
    return {"ok": True}


@router.post(
    "/play/{number}/login",
    response={200: LoginOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 429: ErrorOut},
    summary="角色以密码登录",
    description=(
        "只接受 Content-Type: application/json；浏览器发来的请求须来自本站页面"
        "（Origin 或 Sec-Fetch-Site），否则 403 csrf_failed。"
    ),
)
def login(request: HttpRequest, number: str, body: LoginIn) -> LoginOut:
    # Login CSRF: another site's page must not sign its visitor in as a character of its own.
    # A form or a "simple" fetch can send text/plain cross-site, never application/json (that
    # needs a CORS preflight, which this site never grants); a browser names the page's origin.
    # Checked before the password, so a forged request neither logs in nor counts as a failure.
    if request.content_type != "application/json":
        raise InvalidInput(
            "登录请求须为 JSON（Content-Type: application/json）。",
            message_en="A login request must be JSON (Content-Type: application/json).",
            reason="content_type",
        )
    if not origins.request_from_site(request):
        raise CsrfFailed()
    character = services.character_login(
        game_number=number, password=body.password, address=client_address(request)
    )
    session_login(request, character)
    return LoginOut(
        game_id=character.game_id, game=character.game.forum_title, character=character.name
    )


@router.get(
    "/games/{game_id}/events",
    response={200: EventsOut, 404: ErrorOut},
    summary="补发错过的事件",
    description=(
        "角色：按 after_public / after_private 返回公开流与私有流中之后的事件；"
        "导演：按 after 返回全部事件。"
    ),
)
def events(
    request: HttpRequest,
    game_id: int,
    after: Int = 0,
    after_public: Int = 0,
    after_private: Int = 0,
) -> EventsOut:
    game = selectors.game_by_id(game_id=game_id)
    viewer = (
        selectors.viewer_get(game=game, session=request.session, user=request.user)
        if game is not None
        else None
    )
    if viewer is None:
        # A game the viewer may not see answers as one that does not exist (404, the same
        # body), as the admin's games do: the answer must not tell which game ids exist (a
        # game in preparation is unknown to the API).
        raise NotFound()
    frames = selectors.events_for_viewer(
        viewer=viewer, after=after, after_public=after_public, after_private=after_private
    )
    return EventsOut(events=frames)


@router.get("/games/by-number/{number}", response={200: PublicGameOut, 404: ErrorOut})
def public_game(request: HttpRequest, number: str) -> PublicGameOut:
    game = selectors.game_by_number(number=number)
    if game is None:
        raise NotFound()
    return PublicGameOut(
        id=game.pk,
        number=game.number,
        title=game.title,
        kind=game.kind,
        status=game.status,
        day=game.day,
        phase=game.phase,
        seed_hash=game.seed_hash,
        seed=game.seed if game.seed_revealed else None,
        announcements=[
            {"day": a.day, "title": a.title, "body": a.body}
            for a in selectors.announcements_published(game=game)
        ],
    )
