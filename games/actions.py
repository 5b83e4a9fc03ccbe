"""A player's action as both ways in run it: a kind's HTTP endpoint and the socket's ``act`` frame.

Each parses its input with the kind's ``action_in`` and says who acts; from there the action is
one call, here, of the kind's ``action_submit`` — the same service, the same thread pool, the same
idempotency key — so the two ways in cannot drift apart in meaning.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone, translation
from ninja import Schema
from pydantic import ValidationError

from games.api_input import input_refused
from games.engine.errors import Forbidden, InvalidInput
from games.errors import BadIdempotencyKey, Busy
from games.registry import ActionSubmit, GameKind

BUSY_RETRY_AFTER = 1  # seconds: a night's queue clears in well under that once the load eases


class _InFlight:
    """Actions of this process between their admission and their answer (waiting for a pool
    thread or the game's row lock, or running). Read and written on the event loop only."""

    count = 0


def _admit() -> None:
    """Shed the action when the process already has its share in flight: a queue past that
    only makes every answer, and every push behind it, later (issue 19). A plain counter: the
    answer must be immediate, where a semaphore would make the action wait in line."""
    if _InFlight.count >= settings.ACTIONS_IN_FLIGHT_MAX:
        raise Busy(retry_after=BUSY_RETRY_AFTER)
    _InFlight.count += 1


def _pooled(submit: ActionSubmit, language: str | None) -> Callable[..., dict[str, Any]]:
    def run(**kwargs: Any) -> dict[str, Any]:
        try:
            if language is None:
                return submit(**kwargs)
            # A socket has no request whose language Django activated: the answer's words (the
            # frames' sentences) are in the language its handshake asked for.
            with translation.override(language):
                return submit(**kwargs)
        finally:
            # Pool threads outlive requests: hand the connection back (to the pool) each time.
            if settings.ACTIONS_SHARED_THREADS:
                close_old_connections()

    return run


async def action_run(
    *,
    kind: GameKind,
    game_id: int,
    character_id: int,
    body: Schema,
    key: str | None,
    language: str | None = None,
) -> dict[str, Any]:
    """Apply one action of ``character_id`` (whom the caller authenticated) and return its
    answer; a ``RuleError`` is the refusal, which the caller answers in its own framing —
    ``Busy`` (429) when the process has ``ACTIONS_IN_FLIGHT_MAX`` actions in flight already."""
    if kind.action_submit is None:
        raise Forbidden()
    # Actions of one game queue on its row lock anyway: a small shared pool of threads, rather
    # than a thread per request, keeps a busy night from starving the loop that pushes results.
    # (Tests turn it off: their database transaction lives in the test's own thread.)
    submit: Callable[..., Awaitable[dict[str, Any]]] = sync_to_async(
        _pooled(kind.action_submit, language),
        thread_sensitive=not settings.ACTIONS_SHARED_THREADS,
    )
    _admit()
    try:
        return await submit(
            game_id=game_id, character_id=character_id, body=body, key=key, now=timezone.now()
        )
    finally:
        _InFlight.count -= 1


def act_frame_read(kind: GameKind, frame: Mapping[str, Any]) -> tuple[str, Schema]:
    """The key and the action of a socket's ``act`` frame (``{"type": "act", "key": K,
    "action": {...}}``), the action validated by the kind's own schema, or the refusal the API
    gives the same input: 400 ``invalid_input`` naming the fields (``action.<field>``: where
    they sit in the frame), and ``bad_idempotency_key``. Other fields of the frame are ignored,
    as the API ignores a body's unknown fields."""
    if kind.action_in is None:
        raise Forbidden()
    key = frame.get("key")
    # Required here, unlike the API's header: the key is how the client knows which frame an
    # answer is for, and how a frame resent after a reconnect is known for the same request.
    # Its form is the service's to check, as for the header.
    if not isinstance(key, str):
        raise BadIdempotencyKey()
    action = frame.get("action")
    if not isinstance(action, dict):
        raise InvalidInput(fields=["action"])
    try:
        body = kind.action_in.model_validate(action)
    except ValidationError as error:
        raise input_refused(error.errors(), under="action") from None
    return key, body
