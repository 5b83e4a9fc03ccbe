"""What every request body of the API is built from: strict types and bounded sizes.

pydantic's lax mode guessed: ``"target": true`` became character 1, ``"accept": "true"`` and
``"accept": 1`` a yes. A body says what it means or is refused (400 ``invalid_input``, the
fields named): no bool for a number, no string or number for a bool, no number for a string.
Path and query parameters are not these schemas: they arrive as text and are parsed as usual.

The bounds keep a 100 kB string or a 64-bit overflow from reaching the engines or the database;
the rules' own limits (a whisper's 200 characters) stay the engines', with their own messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any

from ninja import Schema
from pydantic import ConfigDict, Field

from games.engine.errors import InvalidInput

# Every id and count is a 64-bit integer in the database; a larger number names nothing.
Int = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
# A name, a place, a handle, a ware, a kind: short words of the rules.
Word = Annotated[str, Field(max_length=200)]
# Free text (a whisper): the ruleset's limit is the engine's to tell; this only stops the absurd.
Text = Annotated[str, Field(max_length=10_000)]
# The longest list an action takes (targets, items, asks): far more than anyone holds.
LIST_MAX = 100


class StrictIn(Schema):
    """A request body: strict types (see the module's docstring); unknown fields are ignored,
    as before."""

    model_config = ConfigDict(strict=True)


def input_refused(errors: Iterable[Mapping[str, Any]], *, under: str | None = None) -> InvalidInput:
    """A body its schema refused, as the API answers it: 400 ``invalid_input`` naming each
    refused field by its path (``under``: where the body sits in what was sent)."""
    fields = [
        ".".join(str(p) for p in ((under,) if under else ()) + tuple(e.get("loc", ())))
        for e in errors
    ]
    return InvalidInput(fields=fields)
