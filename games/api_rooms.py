"""The rooms' endpoints: a viewer's rooms, a room's messages after a number, posting, and the
directors' 公示 of an answer. Pushes go over the game's socket (``type: "room"`` frames)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import is_ratelimited
from ninja import Router, Schema
from ninja.security import APIKeyCookie
from pydantic import Field

from games import room_selectors, room_services, selectors
from games.api import ErrorOut
from games.api_input import Int, StrictIn, Word
from games.engine.errors import Forbidden, NotFound
from games.selectors import Viewer

router = Router(tags=["rooms"])


class AnySession(APIKeyCookie):
    """A player's or a director's session, with Django's CSRF check on writes."""

    param_name = settings.SESSION_COOKIE_NAME

    def authenticate(self, request: HttpRequest, key: str | None) -> str | None:
        return key or None


def _viewer(request: HttpRequest, game_id: int) -> Viewer:
    game = selectors.game_by_id(game_id=game_id)
    viewer = (
        selectors.viewer_get(game=game, session=request.session, user=request.user)
        if game is not None
        else None
    )
    if viewer is None:
        raise NotFound()  # as /events: a game one may not see does not exist
    return viewer


class RoomsOut(Schema):
    rooms: list[dict[str, Any]]


class MessagesOut(Schema):
    messages: list[dict[str, Any]]


class MessageIn(StrictIn):
    # The site's own limit (ROOM_MESSAGE_MAX) is the service's to tell, in its words.
    body: str = Field(max_length=10_000)
    topic: Word | None = None


class MessageOut(Schema):
    message: dict[str, Any]


class AnnounceIn(StrictIn):
    seq: Int  # the answer's number in the game's log (the directors' frames carry it)
    title: Word = ""


class AnnounceOut(Schema):
    announcement: int


_ERRORS = {400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut}


@router.get(
    "/games/{game_id}/rooms",
    response={200: RoomsOut, 404: ErrorOut},
    summary="我所在的群聊（导演：本局全部群聊）",
)
def rooms(request: HttpRequest, game_id: int) -> RoomsOut:
    return RoomsOut(rooms=room_selectors.rooms_for_viewer(viewer=_viewer(request, game_id)))


@router.get(
    "/games/{game_id}/rooms/{token}/messages",
    response={200: MessagesOut, 404: ErrorOut},
    summary="群聊中某条之后的消息（按本人在群内的序号）",
)
def messages(request: HttpRequest, game_id: int, token: str, after: Int = 0) -> MessagesOut:
    frames = room_selectors.room_messages(
        viewer=_viewer(request, game_id), token=token, after=after
    )
    return MessagesOut(messages=frames)


def _limited(request: HttpRequest, viewer: Viewer) -> bool:
    if viewer.character is None:
        return False  # the directors answer as fast as they type
    member = f"{viewer.game.pk}:{viewer.character.pk}"
    return is_ratelimited(
        request,
        group="rooms",
        key=lambda _group, _request: member,
        rate=settings.ROOM_MESSAGE_RATE,
        method=is_ratelimited.ALL,
        increment=True,
    )


@router.post(
    "/games/{game_id}/rooms/{token}/messages",
    auth=AnySession(),
    response={200: MessageOut, **_ERRORS},
    summary="在群聊中发言（私聊导演可注明类型：rule/complaint/item/proxy_vote/other）",
)
def post(request: HttpRequest, game_id: int, token: str, body: MessageIn) -> MessageOut:
    viewer = _viewer(request, game_id)
    if _limited(request, viewer):
        raise room_services.TooManyMessages(retry_after=10)
    sent = room_services.room_message_send(
        game=viewer.game,
        token=token,
        body=body.body,
        character=viewer.character,
        director=viewer.director,
        topic=body.topic,
    )
    return MessageOut(message=room_selectors.sent_frame(viewer=viewer, sent=sent))


@router.post(
    "/games/{game_id}/rooms/announce",
    auth=AnySession(),
    response={200: AnnounceOut, **_ERRORS},
    summary="导演：把私聊导演中的回答公示（请导演在场上公示）",
)
def announce(request: HttpRequest, game_id: int, body: AnnounceIn) -> AnnounceOut:
    viewer = _viewer(request, game_id)
    if viewer.director is None:
        raise Forbidden()
    announcement = room_services.room_answer_announce(
        game=viewer.game, director=viewer.director, seq=body.seq, title=body.title
    )
    return AnnounceOut(announcement=announcement.pk)
