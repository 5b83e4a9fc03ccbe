"""Players' actions with an idempotency key, as every game kind takes them: a retry of an
applied request gets the first answer again and changes nothing.

Each kind keeps its answers in a table of its own (a ``games.models.ActionAnswer``, unique per
game, character and key).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from django.db import IntegrityError

from games.engine.errors import RuleError
from games.errors import BadIdempotencyKey
from games.models import ActionAnswer, Game

KEY_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def submit_once(
    *,
    records: type[ActionAnswer],
    game_id: int,
    character_id: int,
    key: str | None,
    apply: Callable[[], dict[str, Any]],
) -> dict[str, Any]:
    """Run ``apply`` (which records its answer under ``key`` with :func:`answer_record`)."""
    if key is not None and not KEY_PATTERN.match(key):
        raise BadIdempotencyKey()
    try:
        return apply()
    except (IntegrityError, RuleError):
        # A retry of an applied request fails one way or the other: the rules refuse it now
        # (the first one changed the state), or its key is taken (it raced the first one in
        # and was rolled back). Either way, the first answer stands. Looking the key up only
        # here keeps a query off every first request.
        done = (
            records._default_manager.filter(game_id=game_id, character_id=character_id, key=key)
            .values_list("response", flat=True)
            .first()
            if key is not None
            else None
        )
        if done is None:
            raise
        return dict(done)


def answer_record(
    *,
    records: type[ActionAnswer],
    game: Game,
    character_id: int,
    key: str | None,
    request: Mapping[str, Any],
    response: dict[str, Any],
) -> None:
    """Keep an applied request's answer for its retries (none without a key)."""
    if key is not None:
        records._default_manager.create(
            game=game, character_id=character_id, key=key, request=dict(request), response=response
        )
