"""The event log as a director (and the archive) reads it: one Chinese sentence per event.

Engines log data (kinds, payloads with ids); a human never sees those. Each game kind registers
a text table ``{event_kind: EventText}`` for its own events (``royale/eventtext.py``,
``werewolf/eventtext.py``, imported by the kind's ``kind.py``); the core's events have the table
at the end of this module. A kind of event nobody registered still reads as a Chinese
sentence, never as JSON.

Sentences are written from the directors' side, in the third person, with every name spelt as
the rule posts and ruleset data spell it; who may see the event is a separate column
(``audience_label``), not part of the sentence.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any, cast

from django.contrib.auth import get_user_model
from django.core.exceptions import FieldDoesNotExist
from django.db.models.signals import post_delete, post_save
from django.utils import translation
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_noop

from games.engine.timetable import BEIJING
from games.models import (
    PHASE_LABELS,
    TRANSITION_LABELS,
    Audience,
    CardColor,
    Character,
    Event,
    Game,
    Pace,
    PaceKind,
    ThreadKind,
)

Payload = Mapping[str, Any]

# Translations during a render: looked up once per language and message, not once per line
# (Django's gettext reads the active language through a context-aware local on every call,
# which made it most of a pushed frame's cost).
_RENDER = threading.local()
_TRANSLATED: dict[tuple[str, Any], str] = {}


def gettext(message: str) -> str:
    lang = getattr(_RENDER, "lang", None)
    if lang is None:
        return translation.gettext(message)
    key = (lang, message)
    found = _TRANSLATED.get(key)
    if found is None:
        found = _TRANSLATED[key] = translation.gettext(message)
    return found


def lazy_text(value: Any) -> str:
    """A lazily translated label of the models (PHASE_LABELS…), as text, cached like gettext."""
    lang = getattr(_RENDER, "lang", None)
    if lang is None:
        return str(value)
    key = (lang, id(value))  # module-level constants: the same object for the process's life
    found = _TRANSLATED.get(key)
    if found is None:
        found = _TRANSLATED[key] = str(value)
    return found


_ = gettext


def ngettext(singular: str, plural: str, n: int) -> str:
    """A counted message (English "1 vote", "2 votes"), cached like gettext."""
    lang = getattr(_RENDER, "lang", None)
    if lang is None:
        return translation.ngettext(singular, plural, n)
    key = (lang, (singular, plural, n == 1))  # nplurals=2 in every catalogue here
    found = _TRANSLATED.get(key)
    if found is None:
        found = _TRANSLATED[key] = translation.ngettext(singular, plural, n)
    return found


def listing(items: Iterable[Any]) -> str:
    """Items joined by the language's separator of a list: 、 in Chinese, ", " in English."""
    return _("、").join(str(item) for item in items)


def aside(text: Any) -> str:
    """A remark after a word: （…） in Chinese, " (…)" in English."""
    return _("（%(text)s）") % {"text": text}


def sentences(first: Any, second: Any) -> str:
    """Two sentences one after the other: 。 between them in Chinese, ". " in English."""
    return _("%(first)s。%(second)s") % {"first": first, "second": second}


def votes_number(votes: Any) -> str:
    """A weighted total as players write it: ``4.5``, not the stored fraction ``9/2`` (神眷者
    1.5, 警长 1.5); anything else unchanged."""
    try:
        value = Fraction(str(votes))
    except (TypeError, ValueError, ZeroDivisionError):
        return str(votes)
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def votes_text(name: Any, votes: Any) -> str:
    """A name with its votes: ``P1 2 票`` ("P1 2 votes", "P1 1 vote"), ``P2 4.5 票``."""
    try:
        n = int(Fraction(str(votes)))
    except (TypeError, ValueError, ZeroDivisionError):
        n = 0
    return ngettext("%(name)s %(votes)s 票", "%(name)s %(votes)s 票", n) % {
        "name": name,
        "votes": votes_number(votes),
    }


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
    """What sentences need beyond the event: names, and what the game's kind looks up once.

    ``memo`` lives for one render (one page of lines, one pushed batch): a sentence may use
    what an earlier event of the same engine step said (the HP a hit left)."""

    game: Game
    names: dict[int, str] = field(default_factory=dict)
    # The kind's own lookups (a royale game's items, a role game's ruleset), built once.
    extra: Any = None
    memo: dict[str, Any] = field(default_factory=dict)
    # Called with a character id the names lack (a character added since): reloads them.
    reload: Callable[[LogContext], None] | None = None
    directors: dict[int, str] = field(default_factory=dict)
    # The event being rendered (its actor and audience are part of some sentences).
    event: Event | None = None
    _missed: set[int] = field(default_factory=set)

    def name(self, character_id: Any) -> str:
        if character_id is None:
            return _("（无人）")
        try:
            cid = int(character_id)
        except (TypeError, ValueError):
            return _("（未知角色）")
        found = self.names.get(cid)
        if found is None and self.reload is not None and cid not in self._missed:
            self._missed.add(cid)
            self.reload(self)
            found = self.names.get(cid)
        return found if found is not None else _("（未知角色）")

    def names_of(self, ids: Iterable[Any]) -> str:
        shown = [self.name(i) for i in ids]
        return listing(shown) if shown else _("无")

    def subject(self) -> str:
        """Who a private event is about: its actor, else the character it went to."""
        event = self.event
        if event is None:
            return _("（未知角色）")
        return self.name(event.actor_id or event.audience_character_id)

    def subject_id(self) -> int | None:
        event = self.event
        return None if event is None else event.actor_id or event.audience_character_id

    def director_name(self, user_id: int | None) -> str:
        if user_id is None:
            return ""
        if user_id not in self.directors:
            user = get_user_model().objects.filter(pk=user_id).first()
            self.directors[user_id] = user.get_username() if user is not None else ""
        return self.directors[user_id]


# An event's sentence from its payload; the rest an event needs is in the ``LogContext``.
TextFn = Callable[[Payload, LogContext], str]
# The characters a payload names (targets, killers…), besides the actor and the audience.
CharactersFn = Callable[[Payload], Iterable[Any]]
# Where the game is after an event that moves it: (day, phase of PHASE_LABELS), or None.
PhaseFn = Callable[[Payload], "tuple[int, str] | None"]


@dataclass(frozen=True)
class EventText:
    label: str  # the message (gettext_noop), translated at render time
    text: TextFn
    step: bool = False  # an engine step or a stage marker: behind the toggle
    characters: CharactersFn | None = None
    # The (day, phase) the log is in from this event on, for an event that moves it.
    phase: PhaseFn | None = None


# Builds a kind's lookups for a context (it may add names, e.g. a royale game's NPCs).
ContextFn = Callable[[LogContext], Any]

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


UNKNOWN = EventText(label=gettext_noop("其他"), text=_unknown)


def text_for(game_kind: str, event_kind: str) -> EventText:
    return _TABLES.get(game_kind, {}).get(event_kind) or _CORE.get(event_kind) or UNKNOWN


# --- small pieces the tables share -----------------------------------------------------------


def at_text(at: datetime, *, seconds: bool = True) -> str:
    """北京时间 ("12月1日 21:10:05") whatever the server's or the reader's time zone."""
    key = (getattr(_RENDER, "lang", None), at, seconds)
    last = getattr(_RENDER, "last_at", None)
    if last is not None and last[0] == key:
        return str(last[1])  # a batch's events share their moment
    local = at.astimezone(BEIJING)
    text = _("%(month)d月%(day)d日 %(time)s") % {
        "month": local.month,
        "day": local.day,
        "time": local.strftime("%H:%M:%S" if seconds else "%H:%M"),
    }
    _RENDER.last_at = (key, text)
    return text


def iso_text(value: Any) -> str:
    """A logged ISO time as 北京时间 ("12月1日 21:40"); "" for what is not one."""
    at = parse_datetime(value) if isinstance(value, str) else None
    if at is None or at.tzinfo is None:
        return ""
    return at_text(at, seconds=False)


def epoch_text(seconds: Any) -> str:
    """Engine seconds (a deadline) as 北京时间 ("11月1日 22:30"); "" for what is not one."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return ""
    return at_text(datetime.fromtimestamp(seconds, UTC), seconds=False)


def place(name: Any) -> str:
    return f"【{name}】"


def day_text(day: Any) -> str:
    return _("第 %(day)s 天") % {"day": day} if day else ""


def short(text: Any, limit: int = 120) -> str:
    value = " ".join(str(text or "").split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def ids_in(*values: Any) -> list[Any]:
    """Character ids from payload values: ids, lists of ids, or rows with a ``character``."""
    found: list[Any] = []
    for value in values:
        if isinstance(value, list | tuple):
            found += ids_in(*value)
        elif isinstance(value, Mapping):
            found += ids_in(value.get("character"), value.get("id"))
        elif isinstance(value, int) and not isinstance(value, bool):
            found.append(value)
    return found


def pair(value: Any) -> tuple[Any, Any]:
    """The two values of a logged ``[a, b]`` (None for what is missing)."""
    values = list(value) if isinstance(value, list | tuple) else []
    values += [None, None]
    return values[0], values[1]


def keys(*names: str) -> CharactersFn:
    """The characters named by these payload keys."""

    def read(p: Payload) -> list[Any]:
        return ids_in(*(p.get(n) for n in names))

    return read


def phase_label(day: int | None, phase: str) -> str:
    label = lazy_text(PHASE_LABELS.get(phase, PHASE_LABELS["before"]))
    if not day:
        return label
    return _("第 %(day)d 天 · %(phase)s") % {"day": day, "phase": label}


# --- rendering -------------------------------------------------------------------------------


def _names_load(ctx: LogContext) -> None:
    ctx.names.update(Character.objects.filter(game_id=ctx.game.pk).values_list("id", "name"))


def log_context(game: Game, *, reload: bool = False) -> LogContext:
    ctx = LogContext(game=game, reload=_names_load if reload else None)
    _names_load(ctx)
    factory = _CONTEXTS.get(game.kind)
    ctx.extra = factory(ctx) if factory else None
    return ctx


def _audience_label(event: Event, ctx: LogContext) -> str:
    if event.audience == Audience.PUBLIC:
        return _("公开")
    if event.audience == Audience.DIRECTORS:
        return _("导演")
    if event.audience == Audience.ROOM:
        return _("群聊：%(room)s") % {"room": _room_label(event.payload, ctx)}
    return _("仅 %(name)s") % {"name": ctx.name(event.audience_character_id)}


def _ids(values: Iterable[Any]) -> tuple[int, ...]:
    seen: dict[int, None] = {}
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool):
            seen[value] = None
        elif isinstance(value, str) and value.isdigit():
            seen[int(value)] = None
    return tuple(seen)


def _director(event: Event, ctx: LogContext) -> str:
    if event.director_id is None:
        return ""
    if Event.director.is_cached(event):
        return event.director.get_username() if event.director is not None else ""
    return ctx.director_name(event.director_id)


@contextmanager
def rendering() -> Iterator[None]:
    """Render a batch of lines in the active language, looked up once for all of them."""
    if getattr(_RENDER, "lang", None) is not None:
        yield
        return
    _RENDER.lang = translation.get_language()
    try:
        yield
    finally:
        _RENDER.lang = None


def _line(event: Event, ctx: LogContext, day: int | None, phase: str) -> LogLine:
    with rendering():
        return _render(event, ctx, day, phase)


def _render(event: Event, ctx: LogContext, day: int | None, phase: str) -> LogLine:
    entry = text_for(ctx.game.kind, event.kind)
    payload = event.payload if isinstance(event.payload, Mapping) else {}
    ctx.event = event
    if event.kind == "engine_step":
        ctx.memo.clear()  # what a sentence may reuse lives for one engine step
    try:
        text = entry.text(payload, ctx)
        extra = list(entry.characters(payload)) if entry.characters else []
    except (KeyError, TypeError, ValueError, AttributeError, LookupError):
        # An older payload shape must not take the whole log down; the label still says what.
        text = _("%(label)s（内容无法解读）") % {"label": _(entry.label)}
        extra = []
    return LogLine(
        seq=event.seq,
        at=event.created_at,
        at_text=at_text(event.created_at),
        day=day or None,
        phase_label=phase_label(day, phase) if phase else "",
        kind=event.kind,
        kind_label=_(entry.label),
        text=text,
        audience_label=_audience_label(event, ctx),
        character_ids=tuple(
            i
            for i in _ids([event.actor_id, event.audience_character_id, *extra])
            if i in ctx.names and i > 0
        ),
        step=entry.step,
        director=_director(event, ctx),
        reason=event.reason,
    )


def _phase_before(game: Game, seq: int) -> tuple[int, str]:
    """Where the log stood before ``seq``: the last event before it that moved the phase."""
    movers = [k for k, t in texts_for(game.kind).items() if t.phase is not None]
    earlier = (
        Event.objects.filter(game=game, kind__in=movers, seq__lt=seq)
        .order_by("-seq")
        .values_list("kind", "payload")
    )
    for kind, payload in earlier.iterator(chunk_size=50):
        moved = _moved(game.kind, kind, payload)
        if moved is not None:
            return moved
    return 0, "before"


def _moved(game_kind: str, kind: str, payload: Any) -> tuple[int, str] | None:
    mover = text_for(game_kind, kind).phase
    if mover is None or not isinstance(payload, Mapping):
        return None
    try:
        return mover(payload)
    except (KeyError, TypeError, ValueError):
        return None


def event_lines(*, game: Game, events: Iterable[Event]) -> list[LogLine]:
    """The events (of this game) as lines, in seq order; the day is walked from the log
    (with one look back when the events start after the log's beginning)."""
    rows = sorted(events, key=lambda e: e.seq)
    if not rows:
        return []
    ctx = log_context(game)
    day, phase = _phase_before(game, rows[0].seq) if rows[0].seq > 1 else (0, "before")
    lines = []
    with rendering():
        for event in rows:
            moved = _moved(game.kind, event.kind, event.payload)
            if moved is not None:
                day, phase = moved
            lines.append(_line(event, ctx, day, phase))
    return lines


# Per process: the directors' frames of a game are rendered with one context, built on the
# first frame (names, the kind's lookups) and kept for a minute; a character added since is
# looked up when first named. A saved character or a new game drops it at once here; another
# process sees a rename (or a re-deal's roles) within the minute.
_FRAME_CONTEXTS: dict[int, tuple[float, LogContext]] = {}
FRAME_CONTEXT_SECONDS = 60.0
_MEMOS = threading.local()  # per thread and game: frames rendered one at a time still share it


def frame_context(game: Game | int) -> LogContext:
    """The shared context of a game's live frames, with this thread's memo of the game."""
    game_id = game if isinstance(game, int) else game.pk
    now = time.monotonic()
    cached = _FRAME_CONTEXTS.get(game_id)
    if cached is None or now - cached[0] > FRAME_CONTEXT_SECONDS:
        row = game if isinstance(game, Game) else Game.objects.get(pk=game_id)
        cached = _FRAME_CONTEXTS[game_id] = (now, log_context(row, reload=True))
    memos: dict[int, dict[str, Any]] = getattr(_MEMOS, "by_game", None) or {}
    _MEMOS.by_game = memos
    return dataclasses.replace(cached[1], memo=memos.setdefault(game_id, {}))


def frame_context_forget(game_id: int | None = None) -> None:
    if game_id is None:
        _FRAME_CONTEXTS.clear()
    else:
        _FRAME_CONTEXTS.pop(game_id, None)


def _character_changed(sender: type[Character], instance: Character, **kwargs: Any) -> None:
    frame_context_forget(instance.game_id)


def _game_created(sender: type[Game], instance: Game, created: bool, **kwargs: Any) -> None:
    if created:  # a reused id (a restored or test database) is another game
        frame_context_forget(instance.pk)


post_save.connect(_character_changed, sender=Character, dispatch_uid="eventlog-names")
post_delete.connect(_character_changed, sender=Character, dispatch_uid="eventlog-names-gone")
post_save.connect(_game_created, sender=Game, dispatch_uid="eventlog-new-game")


def event_line_for_frame(event: Event, ctx: LogContext) -> LogLine:
    """One line for the directors' live push or catch-up. A just-appended event carries the
    locked game row, in the phase the event happened in; a fetched one says no phase (the
    live log shows none)."""
    if Event.game.is_cached(event):
        return _line(event, ctx, event.game.day, event.game.phase)
    return _line(event, ctx, None, "")


def line_frame(line: LogLine) -> dict[str, Any]:
    """The rendered fields a directors' frame carries."""
    return {
        "text": line.text,
        "kind_label": line.kind_label,
        "at_text": line.at_text,
        "step": line.step,
        "audience_label": line.audience_label,
        "character_ids": list(line.character_ids),
        "director_name": line.director,
    }


def event_sentence(event: Event) -> str:
    """One event's sentence (the admin's changelist); the game's names are looked up once per
    process and game."""
    return event_line_for_frame(event, frame_context(event.game_id)).text


def kind_labels(game_kind: str) -> list[str]:
    """The Chinese labels of every event a game of this kind may log (the kind filter)."""
    return sorted({translation.gettext(t.label) for t in texts_for(game_kind).values()})


# --- the core's events -----------------------------------------------------------------------


def phase_moved(p: Payload) -> tuple[int, str]:
    return int(p.get("day") or 0), str(p.get("phase") or "before")


def phase_changed(p: Payload, ctx: LogContext) -> str:
    transition = TRANSITION_LABELS.get(str(p.get("transition")))
    phase = lazy_text(PHASE_LABELS.get(str(p.get("phase")), ""))
    if transition is None:
        return _("进入%(phase)s") % {"phase": phase_label(p.get("day"), str(p.get("phase")))}
    return _("%(day)s%(transition)s，进入「%(phase)s」阶段") % {
        "day": day_text(p.get("day")),
        "transition": lazy_text(transition),
        "phase": phase,
    }


def _announcement(p: Payload, ctx: LogContext) -> str:
    return _("发布公示《%(title)s》：%(body)s") % {
        "title": p.get("title", ""),
        "body": short(p.get("body"), 160),
    }


def _dice(p: Payload, ctx: LogContext) -> str:
    purpose = str(p.get("purpose") or "")
    words = {"sides": p["sides"], "value": p["value"], "purpose": purpose}
    if purpose in ("", "d"):
        return _("导演掷骰：%(sides)s 面骰掷出 %(value)s") % words
    return _("导演掷骰「%(purpose)s」：%(sides)s 面骰掷出 %(value)s") % words


def _names_list(p: Payload, key: str = "characters") -> str:
    names = [str(n) for n in p.get(key) or []]
    if len(names) > 6:
        return _("%(first)s 等 %(n)d 名角色") % {"first": listing(names[:3]), "n": len(names)}
    return listing(names) if names else _("无")


def _cast_source(source: Any) -> str:
    labels = {"signup": ThreadKind.SIGNUP.label, "admin": _("导演录入")}
    label = labels.get(str(source))
    return _("（来源：%(source)s）") % {"source": label} if label else ""


def _timetable(p: Payload, ctx: LogContext) -> str:
    parts = []
    for name, change in p.items():
        try:
            label = str(getattr(Game._meta.get_field(name), "verbose_name", name))
        except FieldDoesNotExist:
            continue
        old, new = pair(change)
        parts.append(f"{label} {_plain(old)}→{_plain(new)}")
    return _("修改时间表：%(changes)s") % {"changes": _("；").join(parts) or _("无变化")}


def _plain(value: Any) -> str:
    if value is None or value == "":
        return _("（空）")
    if value is True:
        return _("是")
    if value is False:
        return _("否")
    if isinstance(value, list):
        return listing(_plain(v) for v in value) or _("（空）")
    if isinstance(value, Mapping):
        return listing(_plain(v) for v in value.values())
    text = str(value)
    return text[:5] if len(text) == 8 and text[2] == ":" else text  # "21:00:00" → "21:00"


def _color(value: Any) -> str:
    try:
        return str(CardColor(value).label)
    except ValueError:
        return _("判罚")


def _card(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 被判%(color)s（%(day)s）：%(reason)s") % {
        "name": p.get("name") or ctx.name(p.get("character")),
        "color": _color(p.get("color")),
        "day": day_text(p.get("day")) or _("赛前"),
        "reason": p.get("reason_text") or _("（未写理由）"),
    }


def _cards_proposed(p: Payload, ctx: LogContext) -> str:
    cards = p.get("cards") or []
    shown = [
        f"{c.get('name') or ctx.name(c.get('character'))} {_color(c.get('color'))}"
        + (aside(c["reason_text"]) if c.get("reason_text") else "")
        for c in cards
    ]
    return _("%(day)s的判罚提议 %(n)d 张，待论坛管理审核：%(cards)s") % {
        "day": day_text(p.get("day")),
        "n": len(cards),
        "cards": _("；").join(shown) or _("无"),
    }


def _cards_reviewed(p: Payload, ctx: LogContext) -> str:
    n = len(p.get("cards") or [])
    if p.get("confirmed"):
        return _("审核确认 %(n)d 张判罚") % {"n": n}
    return _("审核驳回 %(n)d 张判罚") % {"n": n}


def _faction_decision(p: Payload, ctx: LogContext) -> str:
    name = ctx.name(p.get("character"))
    if not p.get("loses"):
        return _("导演判定：%(name)s 所在阵营不判负") % {"name": name}
    effect = p.get("effect")
    return _("导演判定：%(name)s 所在阵营判负") % {"name": name} + (aside(effect) if effect else "")


def _pace_label(value: Any) -> str:
    try:
        return str(Pace(value).label)
    except ValueError:
        return _("（未知）")


def _pace(p: Payload, ctx: LogContext) -> str:
    words = {"day": day_text(p.get("day")), "pace": _pace_label(p.get("pace"))}
    since = iso_text(p.get("since"))
    text = _("%(day)s节奏改为：%(pace)s") % words
    if since:
        text += _("（自 %(since)s 起）") % {"since": since}
    if "speed_up" in p and "needed" in p:
        text += _("；申请加速 %(up)s 人、延时 %(down)s 人，需 %(needed)s 人") % {
            "up": p["speed_up"],
            "down": p.get("delay", 0),
            "needed": p["needed"],
        }
    if p.get("text"):  # [061]: what it does to the calendar
        text = sentences(text, p["text"])
    return text


def _pace_requested(p: Payload, ctx: LogContext) -> str:
    try:
        what = str(PaceKind(str(p.get("kind"))).label)
    except ValueError:
        what = _("改变节奏")
    who = ctx.name(p["character"]) if "character" in p else _("该角色")
    return _("%(name)s 申请%(day)s%(what)s") % {
        "name": who,
        "day": day_text(p.get("day")),
        "what": what,
    }


def _thread_kind(value: Any) -> str:
    try:
        return str(ThreadKind(value).label)
    except ValueError:
        return _("帖子")


def _post_edited(p: Payload, ctx: LogContext) -> str:
    return _("论坛帖子被编辑：%(day)s%(thread)s %(floor)s 楼（%(author)s），改为：%(after)s") % {
        "day": day_text(p.get("day")),
        "thread": _thread_kind(p.get("thread_kind")),
        "floor": p.get("floor", "?"),
        "author": p.get("author") or ctx.name(p.get("character")),
        "after": short(p.get("after"), 100),
    }


def _tally(p: Payload, ctx: LogContext) -> str:
    totals = p.get("totals") or []
    shown = _("；").join(
        votes_text(t.get("name") or ctx.name(t.get("character")), t.get("votes"))
        for t in totals[:6]
    )
    outcome = p.get("outcome") or {}
    out = outcome.get("name")
    text = _("%(day)s投票统计：%(totals)s") % {
        "day": day_text(p.get("day")),
        "totals": shown or _("无有效票"),
    }
    if out:
        text += _("；票数最高：%(name)s") % {"name": out}
    not_voted = p.get("not_voted") or []
    if not_voted:
        text += _("；未投票 %(n)d 人") % {"n": len(not_voted)}
    return text


def _red_card(p: Payload, ctx: LogContext) -> str:
    name = p.get("name") or ctx.name(p.get("character"))
    return _("%(name)s 被红牌罚下") % {"name": name}


def _window_extended(p: Payload, ctx: LogContext) -> str:
    text = _("%(day)s夜间行动延长 %(minutes)s 分钟，截止改为 %(end)s") % {
        "day": day_text(p.get("day")),
        "minutes": p.get("minutes"),
        "end": iso_text(p.get("night_end")),
    }
    if p.get("night_close") and p.get("night_close") != p.get("night_close_before"):
        text += _("，夜晚结算改为 %(close)s") % {"close": iso_text(p.get("night_close"))}
    return text


def _engine_step(p: Payload, ctx: LogContext) -> str:
    return _("引擎步骤")


def action_actor(p: Payload) -> list[Any]:
    """The actor of a logged ``engine_step`` action (the character filter's)."""
    return ids_in((p.get("action") or {}).get("actor"))


def text_or(default: str) -> TextFn:
    """The payload's own Chinese ``text`` (the line the portal shows), else ``default``."""

    def render(p: Payload, ctx: LogContext) -> str:
        return str(p.get("text") or _(default))

    return render


def _fixed(text: str) -> TextFn:
    def render(p: Payload, ctx: LogContext) -> str:
        return _(text)

    return render


def _names_text(template: str, key: str = "characters") -> TextFn:
    def render(p: Payload, ctx: LogContext) -> str:
        return _(template) % {"names": _names_list(p, key)}

    return render


_CORE.update(
    {
        "phase_changed": EventText(gettext_noop("阶段切换"), phase_changed, phase=phase_moved),
        "announcement": EventText(gettext_noop("公示"), _announcement),
        "dice_rolled": EventText(gettext_noop("掷骰"), _dice),
        "game_paused": EventText(
            gettext_noop("暂停"), _fixed(gettext_noop("导演暂停了游戏：不接受行动，不执行定时步骤"))
        ),
        "game_resumed": EventText(gettext_noop("暂停"), _fixed(gettext_noop("导演恢复了游戏"))),
        "game_finished": EventText(
            gettext_noop("游戏结束"),
            _fixed(gettext_noop("游戏结束，随机种子已公开（可据此复核每一次掷骰）")),
        ),
        "game_created": EventText(
            gettext_noop("开局"),
            lambda p, ctx: _("创建游戏：%(title)s") % {"title": p.get("title", "")},
        ),
        "game_started": EventText(
            gettext_noop("开局"),
            lambda p, ctx: (
                _("游戏开始：%(title)s，共 %(n)s 名角色；随机种子的 SHA-256 已公开")
                % {"title": p.get("title", ""), "n": p.get("characters", "?")}
            ),
        ),
        "cast_added": EventText(
            gettext_noop("角色名单"),
            lambda p, ctx: (
                _("加入角色：%(names)s") % {"names": _names_list(p, "names")}
                + _cast_source(p.get("source"))
            ),
        ),
        "cast_removed": EventText(
            gettext_noop("角色名单"), _names_text(gettext_noop("移除角色：%(names)s"), "names")
        ),
        "passwords_generated": EventText(
            gettext_noop("登录"), _names_text(gettext_noop("为 %(names)s 生成登录密码"))
        ),
        "links_issued": EventText(
            gettext_noop("登录"), _names_text(gettext_noop("为 %(names)s 生成登录链接"))
        ),
        "links_revoked": EventText(
            gettext_noop("登录"), _names_text(gettext_noop("作废 %(names)s 的登录链接"))
        ),
        "credentials_sent": EventText(
            gettext_noop("登录"),
            _names_text(gettext_noop("通过论坛站内信把登录密码和链接发给 %(names)s 的玩家")),
        ),
        "substitute_recorded": EventText(
            gettext_noop("替补"),
            lambda p, ctx: (
                _("登记替补：%(user)s 自 %(since)s 起接手 %(name)s")
                % {
                    "user": p.get("forum_username", ""),
                    "since": p.get("since", ""),
                    "name": p.get("name") or ctx.name(p.get("character")),
                }
            ),
            characters=keys("character"),
        ),
        "assistant_recorded": EventText(
            gettext_noop("场外助理"),
            lambda p, ctx: (
                _("登记场外助理：%(user)s 协助 %(name)s")
                % {
                    "user": p.get("forum_username", ""),
                    "name": p.get("name") or ctx.name(p.get("character")),
                }
            ),
            characters=keys("character"),
        ),
        "timetable_changed": EventText(gettext_noop("时间表"), _timetable),
        "close_moved": EventText(gettext_noop("时间表"), text_or(gettext_noop("关门时间已调整"))),
        "card": EventText(gettext_noop("判罚"), _card, characters=keys("character")),
        "card_added": EventText(
            gettext_noop("判罚"),
            lambda p, ctx: _("导演录入判罚：") + _card(p, ctx),
            characters=keys("character"),
        ),
        "cards_proposed": EventText(
            gettext_noop("判罚"),
            _cards_proposed,
            characters=lambda p: ids_in(*(c.get("character") for c in p.get("cards") or [])),
        ),
        "cards_reviewed": EventText(gettext_noop("判罚"), _cards_reviewed),
        "cards_failed": EventText(
            gettext_noop("判罚"),
            lambda p, ctx: (
                _("%(day)s的判罚提议未能生成（已记入服务器日志），可稍后重新生成")
                % {"day": day_text(p.get("day"))}
            ),
        ),
        "red_card_applied": EventText(
            gettext_noop("判罚"),
            lambda p, ctx: _("红牌执行：%(effect)s") % {"effect": p.get("effect") or _("（无）")},
        ),
        "red_card": EventText(gettext_noop("判罚"), _red_card, characters=keys("character")),
        "faction_decision": EventText(
            gettext_noop("判罚"), _faction_decision, characters=keys("character")
        ),
        "pace": EventText(gettext_noop("加速/延时"), _pace),
        "pace_requested": EventText(
            gettext_noop("加速/延时"), _pace_requested, characters=keys("character")
        ),
        "forum_post_edited": EventText(
            gettext_noop("论坛"), _post_edited, characters=keys("character")
        ),
        "ballot_tally": EventText(gettext_noop("投票统计"), _tally),
        "ballot_tally_posted": EventText(
            gettext_noop("投票统计"),
            lambda p, ctx: _("已在投票帖回复%(day)s的票数统计") % {"day": day_text(p.get("day"))},
        ),
        "window_extended": EventText(gettext_noop("时间表"), _window_extended),
        "engine_step": EventText(gettext_noop("引擎步骤"), _engine_step, step=True),
    }
)


def core_kinds() -> Sequence[str]:
    return sorted(_CORE)


# --- what players read -----------------------------------------------------------------------
#
# A player reads its events on its kind's portal, which writes the sentences of the kind's own
# events (``static/js/royale.js``, ``werewolf.eventtext.player_line``), each kind declaring
# which kinds those are (``register_portal_kinds``). The core's events reach every kind's
# portal, so their player sentences are written here and travel in the player's frame as
# ``text``. An event that reaches a player with no sentence anywhere is a bug: under
# ``settings.EVENT_TEXT_STRICT`` (the test suite) ``player_texts_check`` raises, so any test that
# makes one fails; in production the portal shows a neutral line, never the kind or its data.

PlayerTextFn = Callable[[Payload, bool], str]  # (payload, private: it went to this player alone)


class MissingPlayerText(LookupError):
    """An event kind reached players without a sentence they can read."""


_PORTAL_KINDS: dict[str, frozenset[str]] = {}
# A names-less context: the core's sentences a player reads name people from the payload.
_PLAYER_CTX = LogContext(game=cast("Game", None))


def register_portal_kinds(kind: str, kinds: Iterable[str]) -> None:
    """The event kinds whose player sentences ``kind``'s portal writes itself."""
    _PORTAL_KINDS[kind] = _PORTAL_KINDS.get(kind, frozenset()) | frozenset(kinds)


def portal_kinds(kind: str) -> frozenset[str]:
    return _PORTAL_KINDS.get(kind, frozenset())


def _as_player(fn: TextFn) -> PlayerTextFn:
    return lambda p, private: fn(p, _PLAYER_CTX)


def _card_for_player(p: Payload, private: bool) -> str:
    if not private:
        return _card(p, _PLAYER_CTX)
    return _("你被判%(color)s（%(day)s）：%(reason)s") % {
        "color": _color(p.get("color")),
        "day": day_text(p.get("day")) or _("赛前"),
        "reason": p.get("reason_text") or _("（未写理由）"),
    }


def _pace_requested_for_player(p: Payload, private: bool) -> str:
    try:
        what = str(PaceKind(str(p.get("kind"))).label)
    except ValueError:
        what = _("改变节奏")
    return _("你已申请%(day)s%(what)s") % {"day": day_text(p.get("day")), "what": what}


def _pace_for_player(p: Payload, private: bool) -> str:
    text = _("%(day)s节奏改为：%(pace)s") % {
        "day": day_text(p.get("day")),
        "pace": _pace_label(p.get("pace")),
    }
    since = iso_text(p.get("since"))
    text += _("（自 %(since)s 起）") % {"since": since} if since else ""
    return sentences(text, p["text"]) if p.get("text") else text


def _announcement_for_player(p: Payload, private: bool) -> str:
    return _("【公示】%(title)s\n%(body)s") % {
        "title": p.get("title", ""),
        "body": p.get("body", ""),
    }


# --- rooms (games/room_services.py) -------------------------------------------------------------

# 私聊导演's topics by key (games.room_services.TOPICS), translated here.
_TOPICS = {
    "rule": gettext_noop("规则提问"),
    "complaint": gettext_noop("投诉"),
    "item": gettext_noop("使用道具"),
    "proxy_vote": gettext_noop("代投"),
    "other": gettext_noop("其他"),
}


def room_topic(key: Any) -> str:
    return _(_TOPICS[key]) if key in _TOPICS else ""


def _room_body(p: Payload) -> str:
    topic = room_topic(p.get("topic"))
    body = str(p.get("body", ""))
    return _("【%(topic)s】%(body)s") % {"topic": topic, "body": body} if topic else body


def _room_names(p: Payload) -> str:
    return listing(p.get("names") or [])


def _room_joined(p: Payload) -> str:
    return _("%(names)s 加入了%(room)s") % {"names": _room_names(p), "room": p.get("room_name", "")}


def _room_left(p: Payload) -> str:
    return _("%(names)s 已被移出%(room)s") % {
        "names": _room_names(p),
        "room": p.get("room_name", ""),
    }


def _room_closed(p: Payload) -> str:
    if p.get("room_kind") == "phone":
        return _("通话结束（当日投票已结束）")
    return _("%(room)s已解散") % {"room": p.get("room_name", "")}


def _room_substitute(p: Payload) -> str:
    return _("替补玩家已接替 %(names)s，此后由替补在群内发言") % {"names": _room_names(p)}


def _room_decision(p: Payload) -> str:
    # a <团队> pick names its skill; the wolves' 选举 carries none
    values = {"by": p.get("by_name", ""), "skill": p.get("skill_name") or _("选举")}
    targets = p.get("target_names") or []
    if not targets:
        return _("%(by)s 提交了【%(skill)s】") % values
    return _("%(by)s 提交了【%(skill)s】：%(targets)s") % {**values, "targets": listing(targets)}


def _room_announced(p: Payload) -> str:
    return _("导演已将这条回答在场上公示：%(title)s") % {"title": p.get("title", "")}


def room_author(p: Payload) -> str:
    """Who wrote a room's message: a character by name, a director as 导演 and its name."""
    name = str(p.get("author_name", ""))
    if not p.get("by_director"):
        return name
    return _("导演 %(name)s") % {"name": name} if name else _("导演")


_ROOM_TEXTS: dict[str, Callable[[Payload], str]] = {
    "room_message": lambda p: (
        _("%(author)s：%(body)s") % {"author": room_author(p), "body": _room_body(p)}
    ),
    "room_joined": _room_joined,
    "room_left": _room_left,
    "room_closed": _room_closed,
    "room_substitute": _room_substitute,
    "room_announced": _room_announced,
    "room_decision": _room_decision,
}


def room_text(kind: str, p: Payload) -> str:
    """The sentence a room's member reads for one of the room's events."""
    fn = _ROOM_TEXTS.get(kind)
    return fn(p) if fn is not None else ""


def _in_room(fn: Callable[[Payload], str]) -> TextFn:
    def render(p: Payload, ctx: LogContext) -> str:
        return _("【%(room)s】%(text)s") % {"room": _room_label(p, ctx), "text": fn(p)}

    return render


def _room_label(p: Payload, ctx: LogContext) -> str:
    name = str(p.get("room_name", ""))
    if p.get("room_kind") == "inbox":
        # every inbox is called 私聊导演: the directors read whose it is
        return _("%(room)s · %(name)s") % {"room": _(name), "name": p.get("owner_name", "")}
    return name


_CORE.update(
    {
        "room_message": EventText(gettext_noop("群聊"), _in_room(_ROOM_TEXTS["room_message"])),
        "room_joined": EventText(gettext_noop("群聊"), _in_room(_room_joined)),
        "room_left": EventText(gettext_noop("群聊"), _in_room(_room_left)),
        "room_closed": EventText(gettext_noop("群聊"), _in_room(_room_closed)),
        "room_substitute": EventText(gettext_noop("群聊"), _in_room(_room_substitute)),
        "room_announced": EventText(gettext_noop("群聊"), _in_room(_room_announced)),
        "room_decision": EventText(gettext_noop("群聊"), _in_room(_room_decision)),
        "room_removed": EventText(
            gettext_noop("群聊"),
            lambda p, ctx: (
                _("通知 %(name)s：已不在%(room)s中")
                % {"name": ctx.name(p.get("character")), "room": p.get("name", "")}
            ),
        ),
    }
)


def _room_removed_for_player(p: Payload, private: bool) -> str:
    return _("你已不在%(room)s中，此后不会再收到其中的消息") % {"room": p.get("name", "")}


_PLAYER_CORE: dict[str, PlayerTextFn] = {
    "phase_changed": _as_player(phase_changed),
    "announcement": _announcement_for_player,
    "dice_rolled": _as_player(_dice),
    "game_paused": lambda p, private: _("导演暂停了游戏，暂不接受行动。"),
    "game_resumed": _as_player(_CORE["game_resumed"].text),
    "game_finished": _as_player(_CORE["game_finished"].text),
    "game_started": _as_player(_CORE["game_started"].text),
    "timetable_changed": _as_player(_timetable),
    "close_moved": _as_player(_CORE["close_moved"].text),
    "card": _card_for_player,
    "red_card": _as_player(_red_card),
    "pace": _pace_for_player,
    "pace_requested": _pace_requested_for_player,
    "window_extended": _as_player(_window_extended),
    "room_removed": _room_removed_for_player,
}


def player_text(event_kind: str, payload: Payload, *, private: bool) -> str | None:
    """The sentence a player's frame carries for one of the core's events, else None."""
    fn = _PLAYER_CORE.get(event_kind)
    return None if fn is None else fn(payload, private)


def player_text_missing(game_kind: str, event_kind: str, payload: Payload) -> bool:
    """Whether a player reached by this event would find no sentence for it."""
    return not (
        event_kind in _PLAYER_CORE
        or event_kind in _ROOM_TEXTS
        or event_kind in portal_kinds(game_kind)
        or payload.get("text")  # the post-style line the engine wrote (shown as it is)
    )


def player_texts_check(*, game_kind: str, events: Iterable[Any]) -> None:
    """Raise :class:`MissingPlayerText` for the first event reaching players without a sentence
    (``events`` are ``GameEvent`` s: what is about to be logged)."""
    for event in events:
        if event.audience.kind == "directors":
            continue
        if player_text_missing(game_kind, event.kind, event.payload):
            raise MissingPlayerText(
                f"event kind {event.kind!r} reaches players of a {game_kind} game without a "
                "sentence: add it to its portal (register_portal_kinds) or to _PLAYER_CORE"
            )
