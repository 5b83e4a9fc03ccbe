"""The role games' endpoints: a character's actions and its own page."""

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
from werewolf import selectors

router = Router(tags=["werewolf"])


# Named apart from royale's ``ActionIn``: the API docs key every schema by its class name, so a
# second ``ActionIn`` would stand for both kinds' bodies.
class WerewolfActionIn(StrictIn):
    """One action. ``kind``: use_skill (``skill``, the ruleset's key, and ``targets``, the
    targets' character ids, and ``option``, the skill's other input where it has one: [061]'s
    查证 ``publish``, 鸩毒's marks, 狡黠's role, 传音's words, the borrowed skill), forgo
    (``skill``), surrender, surrender_answer (``accept``), vote (``target``: the day's ballot
    when the day has no forum vote thread)."""

    kind: Word
    skill: Word | None = None
    targets: list[Int] | None = Field(None, max_length=LIST_MAX)
    target: Int | None = None
    option: Text | None = None
    accept: bool | None = None


class PageOut(Schema):
    me: dict[str, Any]
    log: list[dict[str, Any]]
    now: float


@router.post(
    "/games/{game_id}/actions",
    auth=PlayerSession(),
    response=ACTION_RESPONSES,
    summary="发动/放弃技能，投降，投票（立即生效）",
)
async def act(
    request: HttpRequest,
    game_id: int,
    body: WerewolfActionIn,
    idempotency_key: str | None = Header(None, alias="Idempotency-Key"),
) -> dict[str, Any]:
    # The same path as the socket's act frame (games.actions): the service on the shared pool.
    return await action_run(
        kind=kind_get("werewolf"),
        game_id=game_id,
        character_id=session_actor(request, game_id),
        body=body,
        key=idempotency_key,
    )


@router.get(
    "/games/{game_id}/me",
    response={200: PageOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut},
    summary="我的身份卡、可用技能与时限、反馈；公示记录",
)
def me(request: HttpRequest, game_id: int) -> dict[str, Any]:
    game, character = session_player(request, game_id)
    return selectors.player_page(game=game, character=character, now=timezone.now())
