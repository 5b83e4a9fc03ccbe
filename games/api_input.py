"""What every request body of the API is built from: strict types and bounded sizes.

pydantic's lax mode guessed: ``"target": true`` became character 1, ``"accept": "true"`` and
``"accept": 1`` a yes. A body says what it means or is refused (400 ``invalid_input``, the
fields named): no bool for a number, no string or number for a bool, no number for a string.
Path and query parameters are not these schemas: they arrive as text and are parsed as usual.

The bounds keep a 100 kB string or a 64-bit overflow from reaching the engines or the database;
the rules' own limits (a whisper's 200 characters) stay the engines', with their own messages.
"""

from __future__ import annotations

from typing import Annotated

from ninja import Schema
from pydantic import ConfigDict, Field

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
