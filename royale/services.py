"""Writes of the battle royale: every engine step runs here, under the game's row lock.

Each step is logged as a DIRECTORS ``engine_step`` event naming the operation, its input and
the sequence its dice derive from, followed by the engine's own events. Replaying those steps
from the seed rebuilds the stored state (``manage.py replay_game``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from random import Random
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games import live
from games.engine import dice
from games.engine.errors import Forbidden, InvalidInput, WrongPhase
from games.engine.events import DIRECTORS, PUBLIC, GameEvent
from games.errors import GameNotLive, GamePaused, NoStartDate
from games.idempotency import answer_record, submit_once
from games.models import (
    Announcement,
    AnnouncementStatus,
    Character,
    CharacterStatus,
    Game,
    TimetableOverride,
)
from games.services import events_append, game_lock, game_mark_finished, reason_required
from royale import engine, store
from royale.engine.night import counted_deaths
from royale.engine.state import CAUSE_RED_CARD, OVER, GameState, known_alive
from royale.errors import AlreadySetUp, NotSetUp
from royale.models import ActionRecord, RoyaleGame
from royale.selectors import character_view

# Deaths the posts announce the moment they happen; every other death waits for the morning.
ANNOUNCED_AT_ONCE = frozenset({CAUSE_RED_CARD})


def _sync_characters(game: Game, op: str, before: GameState, after: GameState) -> None:
    """Mirror the engine's deaths and revivals (百鬼夜行) onto the shared Character rows (status,
    cause, order), and make deaths public when the rules announce them: the morning report, or
    the game's end."""
    changed = [
        c
        for c in after.characters.values()
        if not c.npc and c.id in before.characters and before.characters[c.id].alive != c.alive
    ]
    if changed:
        # The engine only appends to its deaths: the new ones are those past the old length.
        dying = {x.character for x in after.deaths[len(before.deaths) :]}
        # A row shows the death that ranks the player: a revenant killed before it killed, or
        # sent back at the night's close, is out by its earlier death again.
        counted = counted_deaths(after.characters, after.deaths)
        for c in changed:
            rows = Character.objects.filter(pk=c.id, game=game)
            if c.alive:
                rows.update(
                    status=CharacterStatus.ALIVE,
                    cause="",
                    elimination_order=None,
                    eliminated_day=None,
                )
                continue
            index, death = counted[c.id]
            rows.update(
                status=CharacterStatus.ELIMINATED,
                cause=death.cause,
                elimination_order=index + 1,
                eliminated_day=death.day,
                # a death tonight waits for the morning; going back to an old one does not
                death_public=c.id not in dying or death.cause in ANNOUNCED_AT_ONCE,
            )
    if op == "day_open" or after.phase == OVER:
        Character.objects.filter(
            game=game, status=CharacterStatus.ELIMINATED, death_public=False
        ).update(death_public=True)


def _run(
    *,
    game: Game,
    op: str,
    step: store.Step,
    payload: dict[str, Any],
    rng_seq: int,
) -> tuple[GameState, list[GameEvent]]:
    """Apply one engine step to a locked game; nothing is written if the engine refuses.

    Setup, transitions and interventions always store a snapshot of the state; an action is kept
    by its logged step alone, and a snapshot follows every ``ROYALE_SNAPSHOT_EVERY`` actions."""
    loaded = store.state_load(game)
    before = loaded.state
    after, events = step(before, dice.rng(game.seed, rng_seq, op))
    store.state_save(
        game=game, state=after, rng_seq=rng_seq, tail=loaded.tail + 1, force=op != "action"
    )
    _sync_characters(game, op, before, after)
    log = GameEvent("engine_step", DIRECTORS, {"op": op, "rng_seq": rng_seq, **payload})
    if after.phase == OVER and before.phase != OVER:
        return after, [log, *events, *game_mark_finished(game=game)]
    return after, [log, *events]


def royale_setup(
    *,
    game: Game,
    placement: Mapping[str, int] | None = None,
    test_of: Game | None = None,
) -> RoyaleGame:
    """Deal the starting state from the seed: items scattered over the places. ``test_of``
    makes it the test match (测试赛) of that real game."""
    with transaction.atomic():
        locked = game_lock(game)
        if RoyaleGame.objects.filter(pk=locked.pk).exists():
            raise AlreadySetUp()
        cast = [(c.pk, c.name) for c in locked.characters.order_by("id")]
        rng_seq = locked.seq + 1
        state, events = engine.new_game(
            locked.ruleset,
            cast,
            dice.rng(locked.seed, rng_seq, "setup"),
            placement=placement,
            test_match=test_of is not None,
        )
        royale = RoyaleGame.objects.create(
            game=locked, state=state.to_json(), state_rng_seq=rng_seq, test_of=test_of
        )
        log = GameEvent(
            "engine_step",
            DIRECTORS,
            {
                "op": "setup",
                "rng_seq": rng_seq,
                "characters": [list(c) for c in cast],
                "placement": dict(placement or {}),
                "test_match": test_of is not None,
            },
        )
        events_append(game=locked, events=[log, *events], now=timezone.now())
    return royale


def royale_transition(*, game: Game, kind: str, day: int) -> list[GameEvent]:
    """The royale's part of a scheduled transition (called by the core with the game locked)."""
    auto_publish = (
        RoyaleGame.objects.filter(pk=game.pk).values_list("auto_publish", flat=True).first()
    )
    if auto_publish is None:  # not set up: the core's phase change is all there is
        return []
    _, events = _run(
        game=game,
        op=kind,
        step=store.TRANSITIONS[kind],
        payload={"day": day},
        # the core's phase event takes the next number; the engine's dice derive from it
        rng_seq=game.seq + 1,
    )
    reports = [e for e in events if e.kind == "morning_report"]
    if reports:
        events.extend(_morning_announcement(game, auto_publish, reports[0]))
    return events


def royale_red_card(
    game: Game, character: Character, now: datetime
) -> tuple[str, Sequence[GameEvent]]:
    """The royale's part of a confirmed red card (红牌罚下; the core's card ledger calls it with the
    game locked): the engine's ``red_card`` step (out at once, its items dropped where it stood,
    the public told), logged like the director's interventions so replaying the log sends the
    character off again."""
    payload = {"character": character.pk}
    try:
        _, events = _run(
            game=game,
            op="red_card",
            step=lambda state, rng: store.INTERVENTIONS["red_card"](state, payload, rng),
            payload=payload,
            rng_seq=game.seq + 1,
        )
    except NotSetUp:  # raised by the state's load, before anything is written
        return "游戏尚未发牌，没有可执行的状态。", []
    return "红牌罚下：立即出局，道具掉落在所在场所。", events


def _morning_announcement(game: Game, auto_publish: bool, report: GameEvent) -> list[GameEvent]:
    """Draft the day's 公示 from the morning report; publish it at once if the game says so.

    Runs inside the transition's transaction (the game is locked by the caller), so it returns
    the announcement's event instead of appending it through another service.
    """
    data = report.payload
    deaths = "、".join(f"{d['name']}（{d['cause']}）" for d in data["deaths"])
    vanishing = "、".join(data["vanishing"])
    body = "\n".join(
        [
            f"昨夜出局：{deaths}。" if deaths else "昨夜无人出局。",
            f"今晚消失的场所：{vanishing}。" if vanishing else "今晚没有场所消失。",
            f"天气：{data['weather']}",
        ]
    )
    now = timezone.now()
    announcement = Announcement.objects.create(
        game=game,
        day=data["day"],
        title="晨报",  # the day is the announcement's own field: pages head it 第 N 天 · 晨报
        body=body,
        by_site=True,
        status=AnnouncementStatus.PUBLISHED if auto_publish else AnnouncementStatus.DRAFT,
        published_at=now if auto_publish else None,
    )
    if not auto_publish:
        return []
    payload = {
        "id": announcement.pk,
        "day": announcement.day,
        "title": announcement.title,
        "body": body,
        # the morning report's own 公示: the player's log shows the report once, not twice
        "report": True,
    }
    return [GameEvent("announcement", PUBLIC, payload)]


def action_submit(
    *,
    game_id: int,
    character_id: int,
    data: Mapping[str, Any],
    key: str | None,
    now: datetime,
) -> dict[str, Any]:
    """Apply one player action now, in the order the database serialises submissions.

    The actor is always the logged-in character, whatever the request says. A request with an
    idempotency key that was already applied gets the first answer again and changes nothing.
    This is the hot path of a night: under the lock it reads the game row and (unless this
    process holds it already) the state, and nothing else.
    """
    return submit_once(
        records=ActionRecord,
        game_id=game_id,
        character_id=character_id,
        key=key,
        apply=lambda: _action_apply(
            game_id=game_id, character_id=character_id, data=data, key=key, now=now
        ),
    )


def _action_apply(
    *,
    game_id: int,
    character_id: int,
    data: Mapping[str, Any],
    key: str | None,
    now: datetime,
) -> dict[str, Any]:
    with transaction.atomic():
        locked = game_lock(game_id)
        if not locked.is_live:
            raise GameNotLive()
        if locked.paused:
            raise GamePaused()
        moment = now.timestamp()  # the engine compares seconds (search cooldown)
        logged: dict[str, Any] = {}  # the step's payload, filled in by ``step``

        def step(state: GameState, rng: Random) -> tuple[GameState, list[GameEvent]]:
            # names resolve against the state ``_run`` loaded: no query, no second load
            request = {**_resolve_names(state, data), "actor": character_id}
            action = engine.action_from_json(request)
            logged.update(action=action.to_json(), now=moment)
            return engine.apply_action(_playable(state, character_id), action, rng, moment)

        after, events = _run(
            game=locked, op="action", step=step, payload=logged, rng_seq=locked.seq + 1
        )
        rows = events_append(game=locked, events=events, now=now)
        response = {
            "events": [
                live.frame_for_player(row)
                for row in rows
                if row.audience_character_id == character_id
            ],
            "me": character_view(state=after, character_id=character_id, now=moment),
        }
        answer_record(
            records=ActionRecord,
            game=locked,
            character_id=character_id,
            key=key,
            request=data,
            response=response,
        )
    return response


def _playable(state: GameState, character_id: int) -> GameState:
    """Only the game's own characters act (never an NPC, never another game's character)."""
    me = state.characters.get(character_id)
    if me is None or me.npc:
        raise Forbidden()
    return state


_NAMED_TARGET = frozenset(
    {
        "whisper",
        "phone",
        "vote",
        "vote_change",
        "gift",
        "trade_offer",
        "trade_accept",
        "trade_cancel",
    }
)


def _resolve_names(state: GameState, data: Mapping[str, Any]) -> dict[str, Any]:
    """Players name other characters by their public names; the engine uses ids. A player's
    name comes before an NPC's (阿呆, 阿笨: no row, only in the state, and only while alive as
    the players know it)."""
    resolved = dict(data)
    names: dict[str, int] | None = None

    def lookup(value: Any) -> Any:
        nonlocal names
        if not isinstance(value, str):
            return value
        if names is None:
            chars = state.characters.values()
            # An NPC killed tonight still answers to its name until the morning report, so
            # a refusal cannot tell anyone it died.
            names = {c.name: c.id for c in chars if c.npc and known_alive(state, c.id)}
            names.update((c.name, c.id) for c in chars if not c.npc)
        return names.get(value, -1)  # -1: the engine refuses an unknown character

    if "target" in resolved and resolved.get("kind") in _NAMED_TARGET:
        resolved["target"] = lookup(resolved["target"])
    if isinstance(resolved.get("targets"), list):
        resolved["targets"] = tuple(lookup(t) for t in resolved["targets"])
    return resolved


# --- replay ---------------------------------------------------------------------------------


def royale_replay(*, game: Game, upto: int | None = None) -> GameState | None:
    """Rebuild the state from the seed and the log's engine steps alone (up to the step
    numbered ``upto``, or all of them)."""
    return store.replay(game=game, base=None, steps=store.steps_after(game, None), upto=upto)


# --- director interventions -----------------------------------------------------------------
# Each intervention is one engine step (royale.engine.director) run through ``_run``: logged as
# an ``engine_step`` whose payload is exactly what the engine function needs, so the same call
# runs live and on replay. Every event it appends carries the director and the reason.


def royale_intervene(
    *, game: Game, director: User, op: str, args: Mapping[str, Any], reason: str
) -> GameState:
    """Run one intervention now, under the game lock; refused (nothing written) without a reason,
    on a game that is not live, or when the engine refuses. Allowed while paused: pausing is how
    a director stops the game to fix it."""
    reason = reason_required(reason)
    if op not in store.INTERVENTIONS:
        raise InvalidInput(op=op)
    payload = dict(args)
    with transaction.atomic():
        locked = game_lock(game)
        if not locked.is_live:
            raise GameNotLive()
        after, events = _run(
            game=locked,
            op=op,
            step=lambda state, rng: store.INTERVENTIONS[op](state, payload, rng),
            payload=payload,
            rng_seq=locked.seq + 1,
        )
        events_append(
            game=locked, events=events, now=timezone.now(), director=director, reason=reason
        )
    return after


def royale_adjust(
    *,
    game: Game,
    director: User,
    character: int,
    reason: str,
    hp: int = 0,
    mp: int = 0,
    bleeding: int | None = None,
) -> GameState:
    """Add to (or take from) a character's HP/MP, or set its bleeding."""
    args = {"character": character, "hp": hp, "mp": mp, "bleeding": bleeding}
    return royale_intervene(game=game, director=director, op="adjust", args=args, reason=reason)


def royale_relocate(
    *, game: Game, director: User, character: int, place: str, reason: str
) -> GameState:
    args = {"character": character, "place": place}
    return royale_intervene(game=game, director=director, op="relocate", args=args, reason=reason)


def royale_give(*, game: Game, director: User, character: int, kind: str, reason: str) -> GameState:
    """A new item for a character: a kind key, or ``category:tier`` for an unused name."""
    args = {"character": character, "kind": kind.strip()}
    return royale_intervene(game=game, director=director, op="give", args=args, reason=reason)


def royale_take(*, game: Game, director: User, item: int, reason: str) -> GameState:
    return royale_intervene(
        game=game, director=director, op="take", args={"item": item}, reason=reason
    )


def royale_airdrop(
    *, game: Game, director: User, selectors: Sequence[str], reason: str
) -> GameState:
    args = {"selectors": [s.strip() for s in selectors if s.strip()]}
    return royale_intervene(game=game, director=director, op="airdrop", args=args, reason=reason)


def royale_event_choose(
    *, game: Game, director: User, pick: str | None, veto: Sequence[str], reason: str
) -> GameState:
    """Pick the next day's event, or veto some of the draw's (the next day open consumes it);
    neither cancels an earlier choice."""
    args = {"pick": pick or None, "veto": sorted({v for v in veto if v})}
    return royale_intervene(
        game=game, director=director, op="event_choose", args=args, reason=reason
    )


def royale_riddle_set(*, game: Game, director: User, text: str, reason: str) -> GameState:
    """阿呆's riddle of the day, announced publicly."""
    return royale_intervene(
        game=game, director=director, op="riddle", args={"text": text}, reason=reason
    )


# Longest single extension: a day; anything longer is a timetable change, not an extension.
EXTEND_MAX_MINUTES = 24 * 60


def window_extend(*, game: Game, director: User, minutes: int, reason: str) -> datetime:
    """Move the end of tonight's action window later (a per-day timetable override).

    The window concerned is the one open now, or the next one if it has not opened yet. The
    night close keeps at least its usual distance after the window's end, so the scheduler
    never sees a close before its end. Returns the new end.
    """
    reason = reason_required(reason)
    if not 1 <= minutes <= EXTEND_MAX_MINUTES:
        raise InvalidInput(
            f"延长时间须在 1 到 {EXTEND_MAX_MINUTES} 分钟之间。",
            message_en=f"Extend by 1 to {EXTEND_MAX_MINUTES} minutes.",
        )
    with transaction.atomic():
        locked = game_lock(game)
        if not locked.is_live:
            raise GameNotLive()
        if locked.start_date is None:
            raise NoStartDate()
        if locked.phase == "late":
            # the window has closed: reopening it would accept actions the close already saw
            raise WrongPhase(phase=locked.phase, needed="night")
        day = max(locked.day, 1) + (1 if locked.phase == "dawn" else 0)
        timetable = locked.timetable()
        end = timetable.due_at(day, "night_end")
        close = timetable.due_at(day, "night_close")
        new_end = end + timedelta(minutes=minutes)
        new_close = max(close, new_end + (close - end))
        TimetableOverride.objects.update_or_create(
            game=locked, day=day, kind="night_end", defaults={"at": new_end}
        )
        if new_close != close:
            TimetableOverride.objects.update_or_create(
                game=locked, day=day, kind="night_close", defaults={"at": new_close}
            )
        facts = {"day": day, "minutes": minutes, "night_end": new_end.isoformat()}
        events = [
            GameEvent("window_extended", PUBLIC, facts),
            GameEvent(
                "window_extended",
                DIRECTORS,
                {
                    **facts,
                    "night_end_before": end.isoformat(),
                    "night_close_before": close.isoformat(),
                    "night_close": new_close.isoformat(),
                },
            ),
        ]
        events_append(
            game=locked, events=events, now=timezone.now(), director=director, reason=reason
        )
    return new_end


def royale_auto_publish_set(*, game: Game, director: User, enabled: bool) -> None:
    """Whether day open publishes the site's morning report at once (logged for the directors)."""
    with transaction.atomic():
        locked = game_lock(game)
        royale = RoyaleGame.objects.filter(pk=locked.pk).first()
        if royale is None:
            raise NotSetUp()
        if royale.auto_publish == enabled:
            return
        royale.auto_publish = enabled
        royale.save(update_fields=["auto_publish"])
        event = GameEvent("setting_changed", DIRECTORS, {"auto_publish": enabled})
        events_append(game=locked, events=[event], now=timezone.now(), director=director)
