"""Night transitions: open the steps, resolve the submissions into a draft result with a
step-by-step trace (for the director), publish it (possibly overridden) as the day's
announcements and each player's private feedback.

Eliminations are settled only after the night's actions (夜间行动结束后才结算出局), in the
ruleset's order (RULINGS 3: 枪-毒-刀); each settlement stage is a registered handler.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from games.engine.errors import InvalidInput, WrongPhase
from games.engine.events import GameEvent
from games.engine.text import is_blank

from .draft import Draft, open_draft
from .errors import GameOver, GendersMissing, NightNotDone
from .hooks import hooks
from .outcomes import out_by, replaced
from .ruleset import CHECKS, Ruleset, RulesetError
from .setup import cards_send, genders_missing
from .skills import Now, seconds
from .state import CAUSE_KILL, CAUSE_POISON, CAUSE_SHOT, DAY, LATE, NIGHT, OVER, SETUP, GameState
from .steps import kills, pass_deadlines, progress, subs

Hits = list[list[Any]]  # [[target, cause, source], ...] in settlement order
Stage = Callable[[Draft, dict[str, Any], Hits], None]
STAGES: dict[str, Stage] = {}


def register_stage(name: str) -> Callable[[Stage], Stage]:
    def add(fn: Stage) -> Stage:
        STAGES[name] = fn
        return fn

    return add


def _check_names(rs: Ruleset) -> None:
    for s in rs.settlement:
        if s not in STAGES:
            raise RulesetError("settlement", f"unknown stage {s}")


CHECKS.append(_check_names)


def night_open(
    state: GameState, rng: random.Random, now: Now, elevator: list[int] | None = None
) -> tuple[GameState, list[GameEvent]]:
    """入夜 at the day's close ``now``: the steps' deadlines count from it. ``elevator``: the
    day's 电梯楼 order of character ids, for the rules that read it (096's 七轮感应法, 尸爆)."""
    if state.phase == OVER:
        raise GameOver()
    if state.phase not in (SETUP, DAY):
        raise WrongPhase(phase=state.phase, needed=DAY)
    if state.phase == SETUP:
        missing = genders_missing(state)
        if missing:
            raise GendersMissing(missing)
    d = open_draft(state, rng, seconds(now))
    if elevator is not None:
        d.set_flag("elevator", [int(i) for i in elevator])
    if state.phase == SETUP:
        cards_send(d)
    if d.rs.first == "night":
        d.day += 1  # night n comes before day n (099); with ``first: day`` night n follows day n
    d.phase = NIGHT
    d.closed_at = d.now
    prelude = d.rs.first == "day" and state.phase == SETUP
    skip = "game" if prelude else "prelude"
    steps = {
        s.key: {"state": "closed" if s.nights == skip else "waiting", "deadline": None}
        for s in d.rs.night_steps
    }
    d.night = {"steps": steps, "subs": {}, "leader": None, "shots": [], "prelude": prelude}
    d.public("night_open", {"day": d.day})
    # What the open itself settles (096's 藏匿, 诅咒 and its flip, 七轮感应法) leads the night's
    # trace for the director.
    d.trace = []
    for hook in hooks(d.rs, "night_open"):
        hook(d)
    if d.trace:
        d.set_night(open_trace=[{**line, "step": f"入夜 · {line['step']}"} for line in d.trace])
    d.trace = None
    progress(d)
    return d.finish(), d.events


def deadline_pass(
    state: GameState, rng: random.Random, now: Now
) -> tuple[GameState, list[GameEvent]]:
    """For the scheduler: forfeit every step and window whose deadline has passed (RULINGS 5),
    then open what follows (the 女巫 after the kills)."""
    if state.phase == OVER:
        return state, []
    d = open_draft(state, rng, seconds(now))
    pass_deadlines(d, d.now or 0.0)
    return d.finish(), d.events


def next_deadline(state: GameState) -> float | None:
    """When the scheduler should next call ``deadline_pass``."""
    times = [w["until"] for w in state.windows]
    if state.phase == NIGHT:
        times += [s["deadline"] for s in state.night["steps"].values() if s["state"] == "open"]
    return min(times, default=None)


# --- resolution -------------------------------------------------------------------------------


def _chance(d: Draft, actor: int, target: int, field: str, what: str) -> bool:
    """Night 1 (RULINGS 4): min(cap, target's value − actor's value) percent that the skill
    fails, when positive; rolled from the game's seed and logged for the director."""
    if d.day != 1:
        return False
    mine, theirs = getattr(d.p(actor), field), getattr(d.p(target), field)
    chance = min(d.rs.chance_cap, theirs - mine)
    if chance <= 0:
        return False
    roll = d.rng.randrange(100)
    failed = roll < chance
    label = "挡刀" if field == "block" else "表演"
    d.note(
        label,
        f"{label}判定：{d.name(actor)}{label}{mine}，{d.name(target)}{label}{theirs}，"
        f"概率{chance}%，掷出{roll}，{what}{'无效' if failed else '有效'}。",
        actor=actor,
        target=target,
        chance=chance,
        roll=roll,
        failed=failed,
    )
    return failed


def _picks(d: Draft, effect: str) -> list[tuple[str, int, int]]:
    """Tonight's submissions with ``effect``: (skill, actor, target), of actors still in the
    game (出局后不能行使特权: a red card during the night voids what its player submitted)."""
    return [
        (s.key, int(a), int(t))
        for s in d.rs.skills.values()
        if s.effect == effect
        for a, t in subs(d, s.key).items()
        if t is not None and d.p(int(a)).alive
    ]


def _compute(d: Draft) -> dict[str, Any]:
    """Tonight's effects in the post's night order, and the hits that land (before 替死)."""
    effects: dict[str, Any] = {"used": [], "love": [], "protect": [], "longevity": []}
    feedback: dict[str, list[dict[str, Any]]] = {}
    for skill, actor, target in _picks(d, "admire"):
        effects["used"].append([actor, skill])
        effects["love"].append([actor, target])
        d.note("情痴", f"情痴{d.name(actor)}爱慕{d.name(target)}。", actor=actor, target=target)
    protected = set()
    for skill, actor, target in _picks(d, "protect"):
        effects["protect"].append([actor, skill, target])
        protected.add(target)
        d.note("守护", f"守护{d.name(actor)}守卫{d.name(target)}。", actor=actor, target=target)
    for _, actor, target in _picks(d, "divine"):
        if _chance(d, actor, target, "act", "查验"):
            fb: dict[str, Any] = {"kind": "divine", "target": target, "failed": True}
        else:
            fb = {"kind": "divine", "target": target, "role": d.role_name(target)}
        fb["target_name"] = d.name(target)
        feedback.setdefault(str(actor), []).append(fb)
        d.note("先知", f"先知{d.name(actor)}查验{d.name(target)}。", actor=actor, target=target)
    if d.night.get("leader") is not None:
        d.note("狼人", f"狼人选举{d.name(d.night['leader'])}为主刀狼。", leader=d.night["leader"])
    if "kill" in d.rs.settlement:  # ([061]'s own stages note each kill in its step)
        for _, actor, target in kills(d):
            d.note("指杀", f"{d.name(actor)}指杀{d.name(target)}。", actor=actor, target=target)
    for skill, actor, target in _picks(d, "save") + _picks(d, "poison"):
        effects["used"].append([actor, skill])
        name = d.rs.skills[skill].name
        d.note("女巫", f"女巫{d.name(actor)}对{d.name(target)}使用{name}。", target=target)
    hits: Hits = []
    ctx = {"protected": protected, "effects": effects, "feedback": feedback}
    for stage in d.rs.settlement:
        STAGES[stage](d, ctx, hits)
    return {"hits": hits, "effects": effects, "feedback": feedback}


@register_stage("shot")
def _shots(d: Draft, ctx: dict[str, Any], hits: Hits) -> None:
    for hunter, target in d.night.get("shots", []):
        hits.append([target, CAUSE_SHOT, hunter])


@register_stage("poison")
def _poison(d: Draft, ctx: dict[str, Any], hits: Hits) -> None:
    for _, actor, target in _picks(d, "poison"):
        hits.append([target, CAUSE_POISON, actor])


@register_stage("kill")
def _kill(d: Draft, ctx: dict[str, Any], hits: Hits) -> None:
    """Each effective kill in step order: 长生 (当村长第一次成为指杀的目标时不会出局: being named
    spends it, whatever would have voided the kill — RULINGS 7), 挡刀 (night 1), 守卫 (every
    kill on the target), 救药 (one kill on the target)."""
    saves: dict[int, int] = {}
    for _, _, target in _picks(d, "save"):
        saves[target] = saves.get(target, 0) + 1
    spent: set[int] = set()
    for skill, actor, target in kills(d):
        name = d.name(target)
        t = d.p(target)
        if "longevity" in t.skills and not t.used.get("longevity") and target not in spent:
            spent.add(target)
            ctx["effects"]["longevity"].append(target)
            d.note("长生", f"村长{name}第一次成为指杀的目标，不出局。", target=target)
            continue
        if d.rs.skills[skill].chance == "block" and _chance(d, actor, target, "block", "指杀"):
            continue
        if target in ctx["protected"]:
            d.note("守卫", f"{name}受到守卫，指杀无效。", target=target)
            continue
        if saves.get(target):
            saves[target] -= 1
            d.note("救药", f"{name}被救药救下，不因此次指杀出局。", target=target)
            continue
        hits.append([target, CAUSE_KILL, actor])


# Appliers of a ruleset's own effects (keys beyond EFFECT_KEYS), run in key order before 099's.
Applier = Callable[[Draft, Any], None]
APPLIERS: dict[str, Applier] = {}


def _apply_effects(d: Draft, effects: Mapping[str, Any]) -> None:
    for key in sorted(set(effects) & set(APPLIERS)):
        APPLIERS[key](d, effects[key])
    for actor, skill in effects["used"]:
        w = d.wp(actor)
        w.used[skill] = w.used.get(skill, 0) + 1
    for actor, target in effects["love"]:
        d.wp(actor).links["love"] = target
    for actor, skill, target in effects["protect"]:
        d.wp(actor).flags[f"last_{skill}"] = [target, d.day]
    for target in effects["longevity"]:
        d.wp(target).used["longevity"] = 1


def _settle(d: Draft, result: Mapping[str, Any]) -> None:
    hits = result["hits"]
    # 情痴夜晚受到有效出局技能则发动的[爱慕]无效: a lover hit tonight takes nobody's place.
    void = frozenset(int(h[0]) for h in hits)
    before = len(d.outs)
    for target, cause, *_ in hits:
        if d.winner is not None:
            break
        target = int(target)
        if not d.p(target).alive:
            # 爱慕的对象按规则将出局多次时，则情痴和爱慕对象都将出局: out tonight already (毒, 枪),
            # the loved one's kill takes the lover too; any other second hit is 空.
            tonight = {o.id for o in d.outs[before:]}
            if target in tonight and replaced(d, target, cause, night=True, void=void):
                continue
            d.note("结算", f"{d.name(target)}已出局，{cause}落空。", target=target)
            continue
        out_by(d, target, cause, night=True, void=void)


def night_resolve(state: GameState, rng: random.Random) -> tuple[GameState, list[GameEvent]]:
    """The draft result of the night and its trace, for the director only (not yet public)."""
    if state.phase != NIGHT:
        raise WrongPhase(phase=state.phase, needed=NIGHT)
    open_steps = [k for k, s in state.night["steps"].items() if s["state"] != "closed"]
    # A 最后一枪 window open during the night is settled first: the night waits for it.
    shots = [
        w["actor"]
        for w in state.windows
        if w["skill"] == "last_shot" and w["until"] > (state.closed_at or 0.0)
    ]
    if open_steps or shots:
        raise NightNotDone(steps=open_steps, shots=shots)
    d = open_draft(state, rng)
    d.trace = list(state.night.get("open_trace", []))
    result = _compute(d)
    # The settlement (替死, 长生's stripping, 装傻, the win check) is traced on a scratch copy:
    # nothing of it is real until the director publishes.
    scratch = open_draft(d.finish(), rng)
    scratch.trace = d.trace
    _apply_effects(scratch, result["effects"])
    _settle(scratch, result)
    for hook in hooks(scratch.rs, "night_end"):
        hook(scratch)
    result = {
        **result,
        "trace": d.trace,
        "outs": [o.to_json() for o in scratch.outs[len(state.outs) :]],
    }
    result["winner"] = scratch.winner
    fresh = open_draft(state, rng)
    fresh.result = result
    fresh.phase = LATE
    fresh.directors("night_draft", {"day": state.day, "trace": d.trace, "outs": result["outs"]})
    return fresh.finish(), fresh.events


NOTE_MAX = 500  # a director's private note (feedback kind "note"), in characters
EFFECT_KEYS = ("used", "love", "protect", "longevity")


def _refuse(text: str, text_en: str, reason: str) -> InvalidInput:
    return InvalidInput(f"修改无效：{text}", message_en=f"Change refused: {text_en}", reason=reason)


def _player_id(d: Draft, value: Any) -> int:
    """A character of the game, as the int the payloads use (a JSON key arrives as a string)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise _refuse("角色不存在。", "no such character.", f"not a character id: {value!r}")
    try:
        pid = int(value)
    except ValueError:
        raise _refuse(
            "角色不存在。", "no such character.", f"not a character id: {value!r}"
        ) from None
    if pid not in d.players:
        raise _refuse("角色不存在。", "no such character.", f"unknown character {pid}")
    return pid


def _feedback_entry(d: Draft, roles: frozenset[str], entry: Any) -> dict[str, Any]:
    """One private feedback entry of the director's: a 预言 result (a role name of the
    ruleset, or 查验无效) or a note; the engine fills ``target_name``."""
    if not isinstance(entry, Mapping):
        raise _refuse(
            "反馈格式不对。",
            "the feedback is not in the right form.",
            "a feedback entry is an object",
        )
    keys = set(entry)
    if entry.get("kind") == "note" and keys == {"kind", "text"}:
        text = entry["text"].strip() if isinstance(entry["text"], str) else ""
        if is_blank(text) or len(text) > NOTE_MAX:
            raise _refuse(
                f"私信须为1至{NOTE_MAX}字。",
                f"a note is 1 to {NOTE_MAX} characters.",
                "a note is 1-500 characters",
            )
        return {"kind": "note", "text": text}
    if entry.get("kind") == "divine" and keys == {"kind", "target", "role"}:
        if not isinstance(entry["role"], str) or entry["role"] not in roles:
            raise _refuse(
                "身份不在本规则中。",
                "that role is not in this ruleset.",
                f"unknown role name {entry['role']!r}",
            )
        target = _player_id(d, entry["target"])
        return {
            "kind": "divine",
            "target": target,
            "role": entry["role"],
            "target_name": d.name(target),
        }
    if entry.get("kind") == "divine" and keys == {"kind", "target", "failed"}:
        if entry["failed"] is not True:
            raise _refuse(
                "反馈格式不对。", "the feedback is not in the right form.", "failed must be true"
            )
        target = _player_id(d, entry["target"])
        return {"kind": "divine", "target": target, "failed": True, "target_name": d.name(target)}
    raise _refuse(
        "反馈格式不对。",
        "the feedback is not in the right form.",
        f"not an allowed feedback entry: {sorted(keys)}",
    )


def _override_feedback(
    d: Draft, drafted: Mapping[str, list[dict[str, Any]]], given: Any
) -> dict[str, list[dict[str, Any]]]:
    """The drafted feedback with each named player's entries replaced (``[]`` removes them)."""
    if not isinstance(given, Mapping):
        raise _refuse(
            "反馈格式不对。",
            "the feedback is not in the right form.",
            "feedback is an object by character",
        )
    roles = frozenset(r.name for r in d.rs.roles.values())
    replaced: dict[str, list[dict[str, Any]]] = {}
    for key, entries in given.items():
        pid = str(_player_id(d, key))
        if pid in replaced:
            raise _refuse(
                "同一角色的反馈重复。",
                "the same character's feedback is given twice.",
                f"character {pid} named twice",
            )
        if not isinstance(entries, list | tuple):
            raise _refuse(
                "反馈格式不对。",
                "the feedback is not in the right form.",
                "a character's feedback is a list",
            )
        replaced[pid] = [_feedback_entry(d, roles, e) for e in entries]
    merged = {pid: replaced.pop(pid, list(items)) for pid, items in drafted.items()}
    merged.update(replaced)
    return {pid: items for pid, items in merged.items() if items}


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values, without 1 == True (an effect names ids and skills exactly)."""
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _override_effects(drafted: Mapping[str, Any], given: Any) -> dict[str, Any]:
    """The drafted effects with only the entries the director kept: each list a subset of the
    draft's (an effect may be voided, not invented); a key not given keeps the draft's list."""
    if not isinstance(given, Mapping) or not set(given) <= set(EFFECT_KEYS):
        raise _refuse(
            "效果格式不对。",
            "the effects are not in the right form.",
            f"effects keys are {', '.join(EFFECT_KEYS)}",
        )
    effects = {k: list(drafted.get(k, [])) for k in EFFECT_KEYS}
    effects |= {k: v for k, v in drafted.items() if k not in EFFECT_KEYS}  # a ruleset's own
    for key, entries in given.items():
        if not isinstance(entries, list | tuple):
            raise _refuse(
                "效果格式不对。",
                "the effects are not in the right form.",
                f"effects {key} is a list",
            )
        kept: set[int] = set()
        for entry in entries:
            match = next(
                (i for i, e in enumerate(effects[key]) if i not in kept and _same(e, entry)), None
            )
            if match is None:
                raise _refuse(
                    "只能取消草稿中的效果，不能新增。",
                    "effects of the draft can only be removed, not added.",
                    f"{key} {entry!r} is not drafted",
                )
            kept.add(match)
        # The draft's order, less what the director voided.
        effects[key] = [e for i, e in enumerate(effects[key]) if i in kept]
    return effects


def night_publish(
    state: GameState,
    rng: random.Random,
    now: Now,
    overrides: Mapping[str, Any] | None = None,
) -> tuple[GameState, list[GameEvent]]:
    """Apply the night's result at the day's open ``now``. ``overrides`` (RULINGS 6):
    ``{"by": director, "reason": text, "hits": [[target, cause], ...], "feedback": {"<id>":
    [entry, ...]}, "effects": {"used"|"love"|"protect"|"longevity": [...]}}`` replaces the
    hits that land, the named players' private feedback (a 预言 result — a role name or
    ``failed`` —, or a ``note``) and voids drafted effects (each list a subset of the
    draft's); the engine's own result stays in the log beside each part that was given."""
    if state.phase != LATE or state.result is None:
        raise WrongPhase(phase=state.phase, needed=LATE)
    d = open_draft(state, rng, seconds(now))
    result = dict(state.result)
    if overrides is not None:
        if not overrides.get("by") or not overrides.get("reason"):
            raise InvalidInput(reason="an override needs the director and a reason")
        try:
            hits = [[int(h[0]), str(h[1])] for h in overrides.get("hits", result["hits"])]
        except (TypeError, ValueError, IndexError):
            raise _refuse(
                "出局格式不对。",
                "the outs are not in the right form.",
                "hits are [[target, cause], ...]",
            ) from None
        if any(h[0] not in d.players for h in hits):
            raise InvalidInput(reason="unknown character")
        log: dict[str, Any] = {
            "by": overrides["by"],
            "reason": overrides["reason"],
            "engine": result["hits"],
            "applied": hits,
        }
        result["hits"] = hits
        if overrides.get("feedback") is not None:
            feedback = _override_feedback(d, result["feedback"], overrides["feedback"])
            log["feedback_engine"] = result["feedback"]
            log["feedback_applied"] = feedback
            result["feedback"] = feedback
        if overrides.get("effects") is not None:
            effects = _override_effects(result["effects"], overrides["effects"])
            log["effects_engine"] = result["effects"]
            log["effects_applied"] = effects
            result["effects"] = effects
        d.directors("night_override", log)
    d.phase = DAY
    before = len(d.outs)
    _apply_effects(d, result["effects"])
    _settle(d, result)
    for hook in hooks(d.rs, "night_end"):
        hook(d)
    night = d.day  # feedback is of this night: [061]'s night n follows day n (游戏日夜晚)
    if d.rs.first == "day":
        d.day += 1
    # This night's outs in order: those settled now, and any at its open (096: a cursed
    # 独角兽's 光明之魂), all announced at the day's open.
    earlier = [o for o in d.outs[:before] if o.night and o.day == night]
    night_outs = [*earlier, *(o for o in d.outs[before:] if o.night)]
    for o in night_outs:
        d.to(o.id, "you_are_out", {"day": d.day})
    for pid, items in result["feedback"].items():
        for fb in items:
            d.to(int(pid), "feedback", fb)
            w = d.wp(int(pid))
            w.flags["feedback"] = [*w.flags.get("feedback", []), {**fb, "day": night}]
    for target in result["effects"]["longevity"]:
        d.to(target, "feedback", {"kind": "longevity", "text": "[长生]已发动：你没有出局。"})
    yesterday = [
        {"id": o.id, "name": d.name(o.id), "cause": o.cause}
        | ({"role": d.role_name(o.id)} if d.rs.reveal_day_outs else {})
        for o in d.outs
        if o.day == d.day - 1 and not o.night
    ]
    d.public(
        "day_open",
        {
            "day": d.day,
            # 夜晚出局的角色不公示其身份; the list is in the order of the eliminations.
            "night_out": [{"id": o.id, "name": d.name(o.id)} for o in night_outs],
            "yesterday_out": yesterday,
        },
    )
    history = [*d.flags.get("history", []), {"day": d.day, "trace": result["trace"]}]
    d.set_flag("history", history)
    d.result = None
    d.night = {}
    for hook in hooks(d.rs, "day_open"):
        hook(d)
    if d.winner is not None:
        d.phase = OVER
    return d.finish(), d.events
