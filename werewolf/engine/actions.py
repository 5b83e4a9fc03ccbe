"""What a player can ask of the engine, as immutable data with a stable ``kind`` for the log;
:func:`action_from_json` rebuilds one (malformed input is a 400, never a crash)."""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any, ClassVar

from games.engine.errors import InvalidInput


@dataclass(frozen=True, slots=True)
class Action:
    kind: ClassVar[str] = ""
    actor: int

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for k, v in data.items():
            if isinstance(v, tuple):
                data[k] = list(v)
        data["kind"] = self.kind
        return data


@dataclass(frozen=True, slots=True)
class UseSkill(Action):
    """发动 a skill by its ruleset key: a night submission (守卫, 预言, 选举, 杀人, 救药, 毒药,
    爱慕 ...) or a day window's (最后一枪, 遗志, 殉职). Until its step closes, a night submission
    may be replaced by a new one."""

    kind: ClassVar[str] = "use_skill"
    skill: str
    targets: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Forgo(Action):
    """放弃 a skill tonight (or a window's skill), so the step need not wait for its deadline."""

    kind: ClassVar[str] = "forgo"
    skill: str


@dataclass(frozen=True, slots=True)
class Surrender(Action):
    """投降: a member of a faction that may surrender starts it (and agrees)."""

    kind: ClassVar[str] = "surrender"


@dataclass(frozen=True, slots=True)
class SurrenderAnswer(Action):
    kind: ClassVar[str] = "surrender_answer"
    accept: bool


ACTION_TYPES: dict[str, type[Action]] = {}


def register_action_type(cls: type[Action]) -> type[Action]:
    ACTION_TYPES[cls.kind] = cls
    return cls


for _cls in (UseSkill, Forgo, Surrender, SurrenderAnswer):
    register_action_type(_cls)


def _valid(value: Any, annotation: str) -> bool:
    if annotation == "str":
        return isinstance(value, str)
    if annotation == "bool":
        return isinstance(value, bool)
    if annotation == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation == "tuple[int, ...]":
        return isinstance(value, tuple) and all(_valid(v, "int") for v in value)
    return False


def action_from_json(data: Any) -> Action:
    if not isinstance(data, dict) or data.get("kind") not in ACTION_TYPES:
        raise InvalidInput(reason="unknown action kind")
    cls = ACTION_TYPES[data["kind"]]
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
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
