"""The event log as a director (and the archive) reads it: one Chinese sentence per event.

Engines log data (kinds, payloads with ids); a human never sees those. Each game kind registers
a text table ``{event_kind: EventText}`` for its own events (``royale/eventtext.py``,
``werewolf/eventtext.py``, imported by the kind's ``kind.py``); the core's events have the table
below. A kind of event nobody registered still reads as a Chinese sentence, never as JSON.

Sentences are written from the directors' side, in the third person, with every name spelt as
the rule posts and ruleset data spell it; who may see the event is a separate column
(``audience_label``), not part of the sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine.timetable import BEIJING
from games.models import PHASE_LABELS, Audience, Character, Event, Game

Payload = Mapping[str, Any]


@dataclass(frozen=True)
class LogLine:
    seq: int
    at: datetime  # aware
    at_text: str  # 北京时间, e.g. "12月1日 21:10:05"
    day: int | None  # the game day the event happened in; None before day 1
    phase_label: str  # e.g. "第 2 天 · 夜间行动"
    kind: str  # the raw kind, for filtering only (never displayed)
    kind_label: str  # e.g. "搜索", "攻击", "阶段切换"
    text: str  # the Chinese sentence
    audience_label: str  # "公开" / "导演" / "仅 河城荷取"
    character_ids: tuple[int, ...]  # actor, audience character, targets: the character filter
    step: bool  # an engine step (shown behind a toggle)
    director: str  # the director's username for an intervention, else ""
    reason: str  # the director's reason, else ""


@dataclass
class LogContext:
    """What sentences need beyond the event: names, and whatever the kind looks up once."""

    game: Game
    names: dict[int, str] = field(default_factory=dict)
    # The kind's own lookups (e.g. a royale game's item and place names), built once per render.
    extra: Any = None

    def name(self, character_id: Any) -> str:
        if character_id is None:
            return _("（无人）")
        try:
            return self.names[int(character_id)]
        except (KeyError, TypeError, ValueError):
            return _("（未知角色）")


# An event's sentence from its payload; an event row's other fields are in ``LogContext``.
TextFn = Callable[[Payload, LogContext], str]
# The characters a payload names (targets, killers…), besides the actor and the audience.
CharactersFn = Callable[[Payload], Iterable[Any]]


@dataclass(frozen=True)
class EventText:
    label: str | Promise  # gettext_lazy: the reader's language at render time
    text: TextFn
    step: bool = False
    characters: CharactersFn | None = None


ContextFn = Callable[[Game], Any]

_CORE: dict[str, EventText] = {}
_TABLES: dict[str, dict[str, EventText]] = {}
_CONTEXTS: dict[str, ContextFn] = {}


def register_texts(
    kind: str, table: Mapping[str, EventText], *, context: ContextFn | None = None
) -> None:
    """A game kind's sentences for its own events (and what they look up once per game)."""
    _TABLES.setdefault(kind, {}).update(table)
    if context is not None:
        _CONTEXTS[kind] = context


def texts_for(kind: str) -> Mapping[str, EventText]:
    """Every sentence an event of a game of this kind may get: the core's, then the kind's."""
    return {**_CORE, **_TABLES.get(kind, {})}


def _unknown(payload: Payload, ctx: LogContext) -> str:
    return _("（未归类事件）")


UNKNOWN = EventText(label=gettext_lazy("其他"), text=_unknown)


def text_for(game_kind: str, event_kind: str) -> EventText:
    return _TABLES.get(game_kind, {}).get(event_kind) or _CORE.get(event_kind) or UNKNOWN


# --- rendering ---------------------------------------------------------------------------


def at_text(at: datetime) -> str:
    """北京时间 whatever the server's or the reader's time zone."""
    local = at.astimezone(BEIJING)
    return _("%(month)d月%(day)d日 %(time)s") % {
        "month": local.month,
        "day": local.day,
        "time": local.strftime("%H:%M:%S"),
    }


def phase_label(day: int | None, phase: str) -> str:
    label = str(PHASE_LABELS.get(phase, PHASE_LABELS["before"]))
    if not day:
        return label
    return _("第 %(day)d 天 · %(phase)s") % {"day": day, "phase": label}


def log_context(game: Game) -> LogContext:
    names = dict(Character.objects.filter(game=game).values_list("id", "name"))
    factory = _CONTEXTS.get(game.kind)
    return LogContext(game=game, names=names, extra=factory(game) if factory else None)


def _audience_label(event: Event, ctx: LogContext) -> str:
    if event.audience == Audience.PUBLIC:
        return _("公开")
    if event.audience == Audience.DIRECTORS:
        return _("导演")
    return _("仅 %(name)s") % {"name": ctx.name(event.audience_character_id)}


def _ids(values: Iterable[Any]) -> tuple[int, ...]:
    seen: dict[int, None] = {}
    for value in values:
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            seen[value] = None
        elif isinstance(value, str) and value.isdigit():
            seen[int(value)] = None
    return tuple(seen)


def _line(event: Event, ctx: LogContext, day: int | None, phase: str) -> LogLine:
    entry = text_for(ctx.game.kind, event.kind)
    payload = event.payload if isinstance(event.payload, Mapping) else {}
    try:
        text = entry.text(payload, ctx)
    except (KeyError, TypeError, ValueError, AttributeError, LookupError):
        # An older payload shape must not take the whole log down; the label still says what.
        text = _("%(label)s（内容无法解读）") % {"label": entry.label}
    extra = entry.characters(payload) if entry.characters else ()
    director = event.director
    return LogLine(
        seq=event.seq,
        at=event.created_at,
        at_text=at_text(event.created_at),
        day=day or None,
        phase_label=phase_label(day, phase),
        kind=event.kind,
        kind_label=str(entry.label),
        text=text,
        audience_label=_audience_label(event, ctx),
        character_ids=_ids([event.actor_id, event.audience_character_id, *extra]),
        step=entry.step,
        director=director.get_username() if director is not None else "",
        reason=event.reason,
    )


def _phase_before(game: Game, seq: int) -> tuple[int, str]:
    last = (
        Event.objects.filter(game=game, kind="phase_changed", seq__lt=seq)
        .order_by("-seq")
        .values_list("payload", flat=True)
        .first()
    )
    if not last:
        return 0, "before"
    return int(last.get("day") or 0), str(last.get("phase") or "before")


def event_lines(*, game: Game, events: Iterable[Event]) -> list[LogLine]:
    """The events (of this game) as lines, in seq order; the day is walked from the log."""
    rows = sorted(events, key=lambda e: e.seq)
    if not rows:
        return []
    ctx = log_context(game)
    day, phase = _phase_before(game, rows[0].seq) if rows[0].seq > 1 else (0, "before")
    lines = []
    for event in rows:
        if event.kind == "phase_changed":
            day = int(event.payload.get("day") or 0)
            phase = str(event.payload.get("phase") or phase)
        lines.append(_line(event, ctx, day, phase))
    return lines


def event_line_for_frame(event: Event, ctx: LogContext) -> LogLine:
    """One line for the directors' live push: the event was just appended under the game's lock,
    so the game row the event carries is in the phase the event happened in."""
    game = event.game
    return _line(event, ctx, game.day, game.phase)


def line_frame(line: LogLine) -> dict[str, Any]:
    """The rendered fields a directors' frame carries."""
    return {
        "text": line.text,
        "kind_label": line.kind_label,
        "at_text": line.at_text,
        "step": line.step,
        "audience_label": line.audience_label,
        "character_ids": list(line.character_ids),
        "phase_label": line.phase_label,
        "director_name": line.director,
    }


def event_sentence(event: Event) -> str:
    """One event's sentence (the admin's changelist); looks the game's names up."""
    ctx = log_context(event.game)
    return _line(event, ctx, None, "before").text


def kind_labels(game_kind: str) -> list[tuple[str, str]]:
    """(kind, Chinese label) of every event a game of this kind may log, for the kind filter."""
    return sorted(
        ((k, str(t.label)) for k, t in texts_for(game_kind).items()), key=lambda kv: kv[1]
    )


# --- the core's events -------------------------------------------------------------------


def _phase_changed(p: Payload, ctx: LogContext) -> str:
    return _("进入%(phase)s") % {"phase": phase_label(p.get("day"), str(p.get("phase", "")))}


_CORE.update(
    {
        "phase_changed": EventText(gettext_lazy("阶段切换"), _phase_changed),
    }
)
