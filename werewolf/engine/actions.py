"""What a player can ask of the engine, as immutable data with a stable ``kind`` for the log;
:func:`action_from_json` rebuilds one (malformed input is a 400, never a crash)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from games.engine.actions import Action
from games.engine.actions import action_from_json as rebuild


@dataclass(frozen=True, slots=True)
class UseSkill(Action):
    """发动 a skill by its ruleset key: a night submission (守卫, 预言, 选举, 杀人, 救药, 毒药,
    爱慕 ...) or a day window's (最后一枪, 遗志, 殉职). Until its step closes, a night submission
    may be replaced by a new one."""

    kind: ClassVar[str] = "use_skill"
    skill: str
    targets: tuple[int, ...]
    option: str | None = None  # a skill's other input: 061's 鸩毒 marks, 狡黠's guess, 传音's words


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


def action_from_json(data: Any) -> Action:
    """Rebuild an action from the log or a request; malformed input is a 400, never a crash."""
    return rebuild(data, ACTION_TYPES)
