"""The battle royale's endpoints: a character's actions and views."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone
from ninja import Header, Router, Schema
from pydantic import Field

from games.actions import action_run
from games.api import (
    ACTION_RESPONSES,
    ErrorOut,
    PlayerSession,
    session_actor,
    session_player,
)
from games.api_input import LIST_MAX, Int, StrictIn, Text, Word
from games.registry import kind_get
from royale import selectors as royale_selectors

router = Router(tags=["royale"])


class ActionIn(StrictIn):
    """One action. ``kind`` is one of: spawn, rest, move, search, pick_up, attack, equip,
    unequip, use, upgrade, gps, telescope, drop, whisper, megaphone, phone, answer_phone,
    vote, vote_change (by day: ``target``, the voted character); the economy by day: shop_buy
    (ware), shop_sell (items), bid (lot, amount), exchange_request (notes), stall_offer (item,
    asks), stall_buy (choices), gift and trade_offer (target, items; asks), trade_accept and
    trade_cancel (target); claim_reward (target_kind: the chosen item of an event's reward);
    the other fields are those of the kind (place, handle, item,
    swap_out, target, targets, target_kind, text, call, accept). Characters are named by their
    names."""

    kind: Word
    place: Word | None = None
    handle: Word | None = None
    item: Int | None = None
    swap_out: Int | None = None
    target: Int | Word | None = None
    targets: list[Word] | None = Field(None, max_length=LIST_MAX)
    target_kind: Word | None = None
    text: Text | None = None
    call: Int | None = None
    accept: bool | None = None
    ware: Word | None = None
    items: list[Int] | None = Field(None, max_length=LIST_MAX)
    lot: Int | None = None
    amount: Int | None = None
    notes: list[Int] | None = Field(None, max_length=LIST_MAX)
    asks: list[Word] | None = Field(None, max_length=LIST_MAX)
    choices: list[Word] | None = Field(None, max_length=LIST_MAX)


class MeOut(Schema):
    me: dict[str, Any]
    map: list[dict[str, Any]]
    rules: dict[str, Any]


@router.post(
    "/games/{game_id}/actions",
    auth=PlayerSession(),
    response=ACTION_RESPONSES,
    summary="提交一个夜间/白天行动（立即结算）",
)
async def act(
    request: HttpRequest,
    game_id: int,
    body: ActionIn,
    idempotency_key: str | None = Header(None, alias="Idempotency-Key"),
) -> dict[str, Any]:
    # The same path as the socket's act frame (games.actions): the service on the shared pool.
    return await action_run(
        kind=kind_get("royale"),
        game_id=game_id,
        character_id=session_actor(request, game_id),
        body=body,
        key=idempotency_key,
    )


@router.get(
    "/games/{game_id}/me",
    response={200: MeOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut},
    summary="我的角色：生命、体力、位置、道具、搜索冷却；地图",
)
def me(request: HttpRequest, game_id: int) -> dict[str, Any]:
    game, character = session_player(request, game_id)
    return royale_selectors.player_page(game=game, character=character, now=timezone.now())
