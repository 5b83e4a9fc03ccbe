"""The battle royale's endpoints: a character's actions and views."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone
from ninja import Header, Router, Schema

from games.api import ErrorOut
from games.engine.errors import Forbidden, NotFound
from games.models import Character, Game
from games.selectors import game_by_id, session_character, session_character_id
from royale import selectors as royale_selectors
from royale import services

router = Router(tags=["royale"])


class ActionIn(Schema):
    """One action. ``kind`` is one of: spawn, rest, move, search, pick_up, attack, equip,
    unequip, use, upgrade, gps, telescope, drop, whisper, megaphone, phone, answer_phone;
    the other fields are those of the kind (place, handle, item, swap_out, target, targets,
    target_kind, text, call, accept). Characters are named by their names."""

    kind: str
    place: str | None = None
    handle: str | None = None
    item: int | None = None
    swap_out: int | None = None
    target: int | str | None = None
    targets: list[str] | None = None
    target_kind: str | None = None
    text: str | None = None
    call: int | None = None
    accept: bool | None = None


class ActionOut(Schema):
    events: list[dict[str, Any]]
    me: dict[str, Any]


class MeOut(Schema):
    me: dict[str, Any]
    map: list[dict[str, Any]]
    rules: dict[str, Any]


def _player(request: HttpRequest, game_id: int) -> tuple[Game, Character]:
    game = game_by_id(game_id=game_id)
    if game is None:
        raise NotFound()
    character = session_character(game=game, session=request.session)
    if character is None:
        raise Forbidden()
    return game, character


@router.post(
    "/games/{game_id}/actions",
    response={200: ActionOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut},
    summary="提交一个夜间/白天行动（立即结算）",
)
def act(
    request: HttpRequest,
    game_id: int,
    body: ActionIn,
    idempotency_key: str | None = Header(None, alias="Idempotency-Key"),
) -> dict[str, Any]:
    # The session says who acts; the service checks it against the locked game's state, so the
    # hot path makes no query of its own here.
    character_id = session_character_id(game_id=game_id, session=request.session)
    if character_id is None:
        raise Forbidden()
    data = body.dict(exclude_none=True)
    return services.action_submit(
        game_id=game_id,
        character_id=character_id,
        data=data,
        key=idempotency_key,
        now=timezone.now(),
    )


@router.get(
    "/games/{game_id}/me",
    response={200: MeOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut},
    summary="我的角色：生命、体力、位置、道具、搜索冷却；地图",
)
def me(request: HttpRequest, game_id: int) -> dict[str, Any]:
    game, character = _player(request, game_id)
    return royale_selectors.player_page(game=game, character=character, now=timezone.now())
