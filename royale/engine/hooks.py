"""Hook points for what a later issue fills: daily events, NPCs, votes, the shop.

A ruleset lists hook names per stage (``hooks.post_night`` etc., see ``ruleset.HOOK_STAGES``);
the code behind a name is registered here with :func:`register_hook`. Stages run in the order of
RULINGS 19:

- ``day_close``  — :func:`day_close` (or a ``night_open`` straight from the day): votes, reward,
  shop, auction;
- ``night_open`` — right after the night opens (e.g. a villain is named for the night);
- ``post_night`` — first thing at night close (villain, nests, 伊利湖/凛冬 ...);
- ``pre_night``  — at day open, after the daily settlement (酷暑 −30 MP, 致幻迷雾, 迷你战争 ...);
- ``shrink_drawn`` — at day open, once tonight's vanishing places are drawn, before the morning
  report (阿笨 appears in one of them);
- ``death``      — whenever a character dies, once its items are looted/dropped/vanished, with
  context ``character``, ``cause`` and ``killer`` (the attacker or bomber, else None): the
  villain passing to its killer, bounties, 百鬼夜行 revivals;
- ``hit``, ``whisper``, ``move``, ``airdrop`` — after an attack struck its target (``attacker``,
  ``target``, ``damage``, ``killed``), a whisper (``actor``, ``target``, ``text``), a move
  (``actor``, ``origin``, ``place``), an airdrop (``items``: (item, place) pairs): see
  :func:`notify`.

A hook gets the draft (copy-on-write state; use ``draft.wc`` etc. to change it and ``draft.to``/
``draft.public``/``draft.directors`` to log), the stage name and the stage's context (empty for
the transition stages). States are shared copy-on-write: replace values in ``draft.wflags()`` or
a character's ``flags`` rather than mutating a nested list or dict in place. Helpers such as
:func:`royale.engine.combat.kill_by_event` and :func:`royale.engine.items.grant` keep item
conservation and death order right (deaths of one event share a rank when the hook passes them
one ``step``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .ruleset import Ruleset, RulesetError

if TYPE_CHECKING:
    from .draft import Draft

Hook = Callable[["Draft", str, Mapping[str, Any]], None]

HOOKS: dict[str, Hook] = {}


def register_hook(name: str) -> Callable[[Hook], Hook]:
    def decorate(fn: Hook) -> Hook:
        HOOKS[name] = fn
        return fn

    return decorate


def resolve(ruleset: Ruleset, stage: str) -> list[Hook]:
    found: list[Hook] = []
    for i, name in enumerate(ruleset.hooks.get(stage, ())):
        hook = HOOKS.get(name)
        if hook is None:
            raise RulesetError(f"hooks.{stage}[{i}]", f"no hook registered as {name!r}")
        found.append(hook)
    return found


def validate_hooks(ruleset: Ruleset) -> None:
    """Call at start-up, once every hook module is imported: fails naming the missing hook."""
    for stage in ruleset.hooks:
        resolve(ruleset, stage)


def run_stage(draft: Draft, stage: str) -> None:
    """A transition stage: its hooks, then a logged marker so the order shows in the log."""
    for hook in resolve(draft.rs, stage):
        hook(draft, stage, {})
    draft.directors("stage", {"stage": stage, "day": draft.day})


def after_death(draft: Draft, character: int, cause: str, killer: int | None) -> None:
    hooks = draft.rs.hooks.get("death")
    if hooks:  # the common case is no hook: skip the context dict on the hot path
        context = {"character": character, "cause": cause, "killer": killer}
        for hook in resolve(draft.rs, "death"):
            hook(draft, "death", context)


def notify(draft: Draft, stage: str, **context: Any) -> None:
    """An in-action stage (``hit``, ``whisper``, ``move``, ``airdrop``): its hooks, if any."""
    if draft.rs.hooks.get(stage):  # most stages of most rulesets have none: skip the lookups
        for hook in resolve(draft.rs, stage):
            hook(draft, stage, context)
