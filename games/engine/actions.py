"""The shared action base, and rebuilding an engine's actions from JSON (a request, or the log
on replay).

Each engine keeps its own registry of action dataclasses by ``kind``; this module turns a dict into
one of them, type-checking every field against its annotation, so malformed input is a clear 400
(``InvalidInput``), never a crash deep in the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any, ClassVar, TypeVar

from .errors import InvalidInput

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Action:
    """An engine's action: immutable data whose ``kind`` names it in the log."""

    kind: ClassVar[str] = ""
    actor: int

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for k, v in data.items():
            if isinstance(v, tuple):
                data[k] = list(v)
        data["kind"] = self.kind
        return data


def _valid(value: Any, annotation: str) -> bool:
    if annotation == "str":
        return isinstance(value, str)
    if annotation == "bool":
        return isinstance(value, bool)
    if annotation == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation == "int | None":
        return value is None or _valid(value, "int")
    if annotation == "str | None":
        return value is None or isinstance(value, str)
    if annotation == "tuple[int, ...]":
        return isinstance(value, tuple) and all(_valid(v, "int") for v in value)
    if annotation == "tuple[str, ...]":
        return isinstance(value, tuple) and all(isinstance(v, str) for v in value)
    return False  # an annotation not listed here cannot come from JSON


def action_from_json(data: Any, types: Mapping[str, type[T]]) -> T:
    """The action ``data["kind"]`` names in ``types``, its fields checked; JSON lists become
    tuples (actions are frozen)."""
    if not isinstance(data, dict) or data.get("kind") not in types:
        raise InvalidInput(reason="unknown action kind")
    cls = types[data["kind"]]
    kwargs: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]  # every registered action is a dataclass
        if f.name not in data:
            if f.default is MISSING:
                raise InvalidInput(reason=f"missing field {f.name}")
            continue
        value = data[f.name]
        if isinstance(value, list):
            value = tuple(value)
        if not _valid(value, str(f.type)):
            raise InvalidInput(reason=f"bad field {f.name}")
        kwargs[f.name] = value
    return cls(**kwargs)
