"""Writes of the role games: every engine step runs here, under the game's row lock.

Each step is logged as a DIRECTORS ``engine_step`` event (its op, input and ``rng_seq``),
followed by the engine's own events; ``werewolf.store.replay`` rebuilds the state from them.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games import live
from games.ballots import ballot_day, ballot_tally, day_close_at, tally_publication, tally_published
from games.card_selectors import elevator_rows
from games.card_services import card_propose_missed_duty
from games.engine import timetable as tt
from games.engine.ballots import Tally
from games.engine.errors import Forbidden, InvalidInput, RuleError
from games.engine.events import DIRECTORS, PUBLIC, GameEvent
from games.errors import GameNotLive, GamePaused, NoStartDate, NoVoteThread
from games.forum.errors import ForumError
from games.forum_services import forum_thread_sync
from games.idempotency import answer_record, submit_once
from games.models import (
    Character,
    CharacterStatus,
    ForumPost,
    ForumThread,
    Game,
    GameStatus,
    ThreadKind,
)
from games.services import events_append, game_lock, game_mark_finished, reason_required
from games.services import game_start as core_start
from werewolf import cards, engine, selectors, store
from werewolf.engine.errors import NightNotDone
from werewolf.engine.state import DAY, LATE, NIGHT, OVER, SETUP, GameState
from werewolf.errors import AlreadySetUp, AlreadyStarted, NotSetUp
from werewolf.models import WerewolfAction, WerewolfGame

logger = logging.getLogger(__name__)

# A night death is public without its role (夜晚出局的角色不公示其身份), nor how it happened.
NIGHT_CAUSE = "夜晚出局"


def _sync_characters(game: Game, before: GameState | None, after: GameState) -> None:
    """Mirror the engine's eliminations onto the shared Character rows. The engine settles a
    night's deaths only when its result is published, so every elimination is public at once."""
    known = len(before.outs) if before is not None else 0
    for index, out in enumerate(after.outs[known:], start=known + 1):
        Character.objects.filter(pk=out.id, game=game).update(
            status=CharacterStatus.ELIMINATED,
            cause=NIGHT_CAUSE if out.night else out.cause,
            elimination_order=index,
            eliminated_day=max(out.day, 1),
            death_public=True,
        )


def _run(
    *, game: Game, op: str, payload: Mapping[str, Any], batch: int = 0
) -> tuple[GameState, list[GameEvent]]:
    """One engine step on a locked game; nothing is written if the engine refuses. The events
    are the caller's to append; ``batch`` numbers the steps one call runs before appending, so
    each draws its own dice."""
    rng_seq = game.seq + 1 + batch
    before = None if op in store.DEALS else store.state_load(game)
    after, events = store.run(game, op, payload, rng_seq, before)
    store.state_save(game=game, state=after)
    _sync_characters(game, before, after)
    log = GameEvent("engine_step", DIRECTORS, {"op": op, "rng_seq": rng_seq, **payload})
    if after.phase == OVER and (before is None or before.phase != OVER):
        return after, [log, *events, *game_mark_finished(game=game)]
    return after, [log, *events]


def _resolve_if_done(game: Game, state: GameState, batch: int) -> list[GameEvent]:
    """Draft the night's result for the director as soon as nothing is left to wait for."""
    if state.phase != NIGHT:
        return []
    with contextlib.suppress(NightNotDone):
        return _run(game=game, op="night_resolve", payload={}, batch=batch)[1]
    return []


def _now(moment: datetime) -> float:
    return moment.timestamp()


def _live(game: Game) -> None:
    if not game.is_live:
        raise GameNotLive()


# --- the deal -----------------------------------------------------------------------------


def _cast(game: Game, genders: Mapping[int, str] | None) -> list[list[Any]]:
    genders = genders or {}
    return [[c.pk, c.name, genders.get(c.pk)] for c in game.characters.order_by("id")]


def werewolf_setup(
    *,
    game: Game,
    roles: Mapping[int, str] | None = None,
    auction: Mapping[int, dict[str, Any]] | None = None,
    genders: Mapping[int, str] | None = None,
) -> WerewolfGame:
    """Deal the roles from the seed (or as given) and apply the pre-game auction. The site
    keeps no gender per character: ``genders`` (or an auction's 性别卡) gives them."""
    with transaction.atomic():
        locked = game_lock(game)
        if WerewolfGame.objects.filter(pk=locked.pk).exists():
            raise AlreadySetUp()
        payload = {
            "characters": _cast(locked, genders),
            "roles": None if roles is None else {str(c): r for c, r in roles.items()},
            "auction": {str(c): dict(bid) for c, bid in (auction or {}).items()},
        }
        rng_seq = locked.seq + 1
        state, events = store.run(locked, "setup", payload, rng_seq, None)
        row = WerewolfGame.objects.create(game=locked, state=state.to_json())
        log = GameEvent("engine_step", DIRECTORS, {"op": "setup", "rng_seq": rng_seq, **payload})
        events_append(game=locked, events=[log, *events], now=timezone.now())
    return row


def werewolf_roles_set(
    *, game: Game, director: User, roles: Mapping[int, str], reason: str
) -> GameState:
    """The director's adjustment of the dealt roles before the start: a new deal with these
    roles (and the same cast, genders and auction), logged with the reason."""
    reason = reason_required(reason)
    with transaction.atomic():
        locked = game_lock(game)
        if store.state_load(locked).phase != SETUP:
            raise AlreadyStarted()
        deal = store.last_deal(locked)
        payload = {
            "characters": deal["characters"],
            "roles": {str(c): r for c, r in roles.items()},
            "auction": deal["auction"],
        }
        after, events = _run(game=locked, op="deal", payload=payload)
        events_append(
            game=locked, events=events, now=timezone.now(), director=director, reason=reason
        )
    return after


def werewolf_auction_set(
    *,
    game: Game,
    director: User,
    genders: Mapping[int, str | None],
    auction: Mapping[int, Mapping[str, Any]],
    reason: str,
) -> GameState:
    """The director's entry of the characters' genders (马甲: 男/女, absent or None: 未定) and of
    the 竞拍贴's result (``{id: {"act": ±n, "block": ±n, "gender": 性别卡, "gold": n}}``, every
    key optional) before the start: a new deal keeping the dealt roles and the cast, with
    these genders and this auction in place of the last ones, logged with the reason. The
    engine refuses a bad entry or one costing more than its gold, and nothing changes."""
    reason = reason_required(reason)
    with transaction.atomic():
        locked = game_lock(game)
        state = store.state_load(locked)
        if state.phase != SETUP:
            raise AlreadyStarted(
                "游戏已经开始，不能再录入性别与竞拍结果。",
                message_en="The game has started: genders and the auction can no longer be set.",
            )
        deal = store.last_deal(locked)
        cast = {int(c) for c, _name, _gender in deal["characters"]}
        if not set(genders) <= cast or not set(auction) <= cast:
            raise InvalidInput(
                "有不在本局的角色。",
                message_en="A character named is not in this game.",
                reason="unknown character",
            )
        payload = {
            "characters": [[c, name, genders.get(int(c))] for c, name, _ in deal["characters"]],
            "roles": {str(p.id): p.role for p in state.players.values()},
            "auction": {str(c): dict(bid) for c, bid in auction.items()},
        }
        after, events = _run(game=locked, op="deal", payload=payload)
        events_append(
            game=locked, events=events, now=timezone.now(), director=director, reason=reason
        )
    return after


def werewolf_start(*, game: Game, director: User | None, now: datetime | None = None) -> None:
    """进入夜晚 for night 1 (总体流程: the game starts with a night): its deadlines count from
    now. Later nights open at each day's close (关门). A prepared game not yet live goes live
    through the core's start (its checks: date, cast, credentials, the deal)."""
    now = now or timezone.now()
    if game.status == GameStatus.DRAFT:
        core_start(game=game, director=director, now=now)
        return
    with transaction.atomic():
        locked = game_lock(game)
        _live(locked)
        events_append(
            game=locked, events=werewolf_begin(game=locked, now=now), now=now, director=director
        )


def werewolf_begin(*, game: Game, now: datetime) -> list[GameEvent]:
    """The role game's part of the start, on a locked live game: night 1 opens — or, for a
    post that starts with a day, the 开局夜; one with nothing to do in it ([096]: 开始第一天讨论日)
    is drafted at once, for day 1's open to publish."""
    payload = _night_open_payload(game, 0, _now(now))
    after, events = _run(game=game, op="night_open", payload=payload)
    return [*events, *_resolve_if_done(game, after, 1)]


def _night_open_payload(game: Game, day: int, now: float) -> dict[str, Any]:
    """入夜's payload: the close, and for a ruleset that reads it (096's 七轮感应法, 尸爆) the day's
    电梯楼 order — logged with the step, so a replay reads the same."""
    payload: dict[str, Any] = {"now": now}
    if engine.get_ruleset(game.ruleset).params.get("elevator"):
        payload["elevator"] = [r.character for r in elevator_rows(game=game, day=max(day, 1))]
    return payload


# --- players' actions ---------------------------------------------------------------------


def werewolf_action_submit(
    *, game_id: int, character_id: int, data: Mapping[str, Any], key: str | None, now: datetime
) -> dict[str, Any]:
    """Apply one player action now. The actor is always the logged-in character; a retry with
    an applied idempotency key gets the first answer again and changes nothing."""
    return submit_once(
        records=WerewolfAction,
        game_id=game_id,
        character_id=character_id,
        key=key,
        apply=lambda: _action_apply(
            game_id=game_id, character_id=character_id, data=data, key=key, now=now
        ),
    )


def _action_apply(
    *, game_id: int, character_id: int, data: Mapping[str, Any], key: str | None, now: datetime
) -> dict[str, Any]:
    with transaction.atomic():
        locked = game_lock(game_id)
        _live(locked)
        if locked.paused:
            raise GamePaused()
        state = store.state_load(locked)
        clock = _clock(locked, state.day, data)
        action = engine.action_from_json({**data, "actor": character_id, **clock})
        if character_id not in state.players:
            raise Forbidden()
        payload = {"action": action.to_json(), "now": _now(now)}
        after, events = _run(game=locked, op="action", payload=payload)
        events += _resolve_if_done(locked, after, 1)
        rows = events_append(game=locked, events=events, now=now)
        response = {
            "events": [
                live.frame_for_player(row)
                for row in rows
                if row.audience_character_id == character_id
            ],
            # the state after the action, or after the night's resolve when that followed
            "me": selectors.player_view(state=store.state_load(locked), character_id=character_id),
        }
        answer_record(
            records=WerewolfAction,
            game=locked,
            character_id=character_id,
            key=key,
            request=data,
            response=response,
        )
    return response


def _clock(game: Game, day: int, data: Mapping[str, Any]) -> dict[str, int | None]:
    """A portal ballot's close and speed-up, from the schedule and never from the player: the
    engine refuses changes in the last hour and during a speed-up with them."""
    if data.get("kind") != engine.Vote.kind:
        return {}
    try:
        when = ballot_day(game=game, day=day)
    except NoStartDate:
        return {"closes_at": None, "sped_up_at": None}
    # A speed-up a 延时 has ended (061) no longer refuses changes: the ending is in the past.
    sped = when.sped_up_at if when.sped_up_until is None else None
    return {
        "closes_at": int(when.closes_at.timestamp()),
        "sped_up_at": None if sped is None else int(sped.timestamp()),
    }


# --- the scheduler ------------------------------------------------------------------------


def werewolf_transition(*, game: Game, kind: str, day: int) -> list[GameEvent]:
    """The role game's part of a scheduled transition (the core calls it with the game locked).

    ``day_open``: publish the night's draft when the game publishes without its director.
    ``day_close`` (关门): publish a draft still waiting; unless the day's vote was settled
    already (the director's count), pull the day's vote thread once more (best effort), count
    it, settle the vote with that count and publish that very tally as the day's result; a day
    with no thread is settled from the portal's ballots. Then open the night."""
    row = WerewolfGame.objects.filter(pk=game.pk).values_list("auto_publish", flat=True).first()
    if row is None:
        return []
    now = _now(timezone.now())
    state = store.state_load(game)
    ops: list[str] = []
    if state.phase == LATE and (kind == "day_close" or (kind == "day_open" and row)):
        ops.append("night_publish")
    events: list[GameEvent] = []
    if kind == "day_close" and state.phase in (LATE, DAY):
        if state.flags.get("voted") != state.day:
            events += _vote_thread_pull(game, day)
            ops.append("day_vote")
        ops.append("night_open")
    batch = 0
    for op in ops:
        tally: Tally | None = None
        payload: dict[str, Any] = {"now": now}
        if op == "night_open":
            payload = _night_open_payload(game, day, now)
        if op == "night_publish":
            payload["overrides"] = None
        elif op == "day_vote":
            # Counted now, after a draft published at the close has put its night's dead out,
            # with the statuses and weights the engine settles with.
            tally = _thread_tally(game, day)
            totals = None if tally is None else _totals_json(tally)
            final: list[list[int]] | None = None if tally is None else _ballots_json(tally)
            if totals is None and engine.ballots(state):
                totals = {str(t): str(v) for t, v in engine.portal_totals(state).items()}
                final = [[v, t] for v, t in engine.portal_ballots(state)]
            if totals is None:
                continue  # neither a thread nor a portal ballot: no vote
            payload["totals"] = totals
            if final is not None and engine.get_ruleset(state.ruleset).day_ballots:
                payload["ballots"] = final  # who voted (061's 公敌, 怨恨, 共死)
        try:
            after, done = _run(game=game, op=op, payload=payload, batch=batch)
        except RuleError as e:  # e.g. the game ended with the vote: no night follows
            events.append(GameEvent("werewolf_step_skipped", DIRECTORS, {"op": op, "code": e.code}))
            break
        batch += 1
        events += done
        if tally is not None and tally_published(game=game, day=day) is None:
            events += tally_publication(game=game, tally=tally, now=timezone.now())[1]
        if after.phase == OVER:
            break
    return events


def _vote_thread_pull(game: Game, day: int) -> list[GameEvent]:
    """Pull the day's vote thread once more before it is counted at the close, so that ballots
    posted since the last scheduled sync count. Best effort: the close goes on with the posts
    stored so far if the forum fails (the failure is recorded on the thread, as any sync's,
    and for the directors).

    It runs under the game's lock, as the core calls the close with it: a slow forum holds the
    game (players' actions, other writes) for at most the adapter's timeouts (10 s a request),
    once a day. Pulling before the lock would need a hook in the core's scheduler, and the
    count would still miss what arrived in between."""
    thread = ForumThread.objects.filter(game=game, day=day, kind=ThreadKind.VOTE).first()
    if thread is None or game.forum_site_id is None:
        return []
    try:
        # Its writes are savepoints of their own: a failed store undoes itself alone, and the
        # failure's record on the thread stays.
        forum_thread_sync(thread=thread)
    except Exception as exc:
        logger.warning(
            "pulling the vote thread of game %s day %s at the close failed: %r", game.pk, day, exc
        )
        error = exc if isinstance(exc, RuleError) else ForumError()
        payload = {"day": day, "code": error.code, "text": error.text}
        return [GameEvent("vote_thread_pull_failed", DIRECTORS, payload)]
    finally:
        # A recheck's edit events were appended on a row of its own: take up its numbering.
        game.refresh_from_db(fields=["seq", "stream_seqs"])
    return []


def _thread_tally(game: Game, day: int) -> Tally | None:
    """The day's vote thread counted from the posts stored, with the statuses and weights of
    now; None when the day has no thread."""
    try:
        return ballot_tally(game=game, day=day)
    except NoVoteThread:
        return None


def _totals_json(tally: Tally) -> dict[str, str]:
    return {str(t.character): str(t.votes) for t in tally.totals}


def _ballots_json(tally: Tally) -> list[list[int]]:
    """The thread's final ballots for ``day_vote`` (061's 公敌, 怨恨, 共死), earliest naming post
    first (RULINGS 061-12): ``[voter, target, floor, epoch seconds]`` of the post — the vote,
    its change or the director's proxy — that named the target."""
    return [
        [v.voter, v.target, v.floor, int(v.at.timestamp())]
        for v in tally.final_ballots()
        if v.voter is not None and v.target is not None
    ]


def _missed_duties(
    game: Game, day: int, events: Sequence[GameEvent], now: datetime
) -> list[GameEvent]:
    """必须行使特权的角色未在规定时间内行使: a proposed card for each forced skill forfeited."""
    proposed: list[GameEvent] = []
    for e in events:
        if e.kind == "forfeited" and e.audience == DIRECTORS:
            for skill in e.payload.get("forced", []):
                proposed += card_propose_missed_duty(
                    game=game, character_id=e.payload["actor"], day=day, skill=skill, now=now
                )
    return proposed


def werewolf_deadlines_run(*, now: datetime) -> int:
    """Forfeit what is late in every live game (RULINGS 5) and draft each night that has
    nothing left to wait for; returns how many games moved."""
    due = WerewolfGame.objects.filter(
        deadline__lte=now,
        game__status__in=[GameStatus.TEST, GameStatus.RUNNING],
        game__paused=False,
    ).values_list("pk", flat=True)
    moved = 0
    for game_id in due:
        try:
            with transaction.atomic():
                locked = game_lock(game_id)
                payload = {"now": _now(now)}
                after, events = _run(game=locked, op="deadline_pass", payload=payload)
                events += _missed_duties(locked, after.day, events, now)
                events += _resolve_if_done(locked, after, 1)
                events_append(game=locked, events=events, now=now)
        except Exception:
            # One game's failure (rolled back whole) must not hold up every other game.
            logger.exception("deadline pass of game %s failed; it stays as it was", game_id)
            continue
        moved += 1
    return moved


def werewolf_vote_reminders_run(*, now: datetime) -> int:
    """在投票结束前一个半至两个小时之间提醒玩家投票: once a day, within the ruleset's span before
    the close (关门) and while the day's vote is not settled, a public reminder with the
    close's time; a span missed (the scheduler down) sends none. Returns how many games were
    reminded."""
    rows = WerewolfGame.objects.filter(
        game__status__in=[GameStatus.TEST, GameStatus.RUNNING], game__paused=False
    ).select_related("game")
    sent = 0
    for row in rows:
        game = row.game
        state = GameState.from_json(row.state)
        rs = engine.get_ruleset(state.ruleset)
        span = rs.vote_reminder
        if span is None or state.phase != DAY or state.flags.get("voted") == state.day:
            continue
        try:
            close = day_close_at(game=game, day=state.day)
        except NoStartDate:  # the game runs by hand: nothing is due
            continue
        earliest, latest = (close - timedelta(minutes=m) for m in span)
        if not earliest <= now <= latest:
            continue
        with transaction.atomic():
            locked = game_lock(game)
            if locked.events.filter(kind="vote_reminder", payload__day=state.day).exists():
                continue
            at = timezone.localtime(close, tt.BEIJING).strftime("%H:%M")
            text = rs.text("vote_reminder", day=state.day, time=at)
            payload = {"day": state.day, "closes_at": close.isoformat(), "text": text}
            events_append(
                game=locked, events=[GameEvent("vote_reminder", PUBLIC, payload)], now=now
            )
        sent += 1
    return sent


# --- the director's night room ------------------------------------------------------------


def werewolf_night_resolve(*, game: Game, director: User | None = None) -> dict[str, Any]:
    """The night's draft result with its trace (drafted now if the night is done)."""
    with transaction.atomic():
        locked = game_lock(game)
        state = store.state_load(locked)
        if state.phase != LATE:
            state, events = _run(game=locked, op="night_resolve", payload={})
            events_append(game=locked, events=events, now=timezone.now(), director=director)
    assert state.result is not None  # noqa: S101  (the engine drafted it)
    return dict(state.result)


def werewolf_night_publish(
    *,
    game: Game,
    director: User,
    reason: str,
    overrides: Mapping[str, Any] | None = None,
) -> None:
    """Publish the night (RULINGS 6): the engine's draft as it is, or with the director's
    ``overrides`` (a reason required): ``hits`` ``[[target, cause], ...]``, ``feedback``
    ``{character: [entry, ...]}`` replacing those players' private feedback, ``effects``
    (the draft's lists, less what is voided); the day's announcements and each player's
    feedback go out at once."""
    applied = None
    if overrides is not None:
        reason = reason_required(reason)
        # As the log keeps it (JSON: string keys), so that the replay runs the very same input.
        applied = json.loads(json.dumps({**overrides, "by": director.get_username()}))
        applied["reason"] = reason
    now = timezone.now()
    with transaction.atomic():
        locked = game_lock(game)
        _live(locked)
        payload = {"now": _now(now), "overrides": applied}
        _, events = _run(game=locked, op="night_publish", payload=payload)
        events_append(game=locked, events=events, now=now, director=director, reason=reason)


def werewolf_day_vote(
    *,
    game: Game,
    director: User | None,
    totals: Mapping[int, Fraction | int],
    reason: str = "",
    ballots: Sequence[tuple[int, int]] | None = None,
) -> GameState:
    """Settle the day's vote from weighted totals counted elsewhere (the portal, a recount).
    ``ballots``: the final ballots ``(voter, target)``, earliest naming post first, for the
    rulesets whose vote asks who voted (061's 公敌, 怨恨, 共死); without them, nobody did."""
    with transaction.atomic():
        locked = game_lock(game)
        _live(locked)
        return _day_vote_settle(locked, director, totals, reason, ballots)


def _day_vote_settle(
    locked: Game,
    director: User | None,
    totals: Mapping[int, Fraction | int],
    reason: str,
    ballots: Sequence[tuple[int, int]] | None,
) -> GameState:
    """The day's vote settled on a locked, live game and logged."""
    now = timezone.now()
    payload: dict[str, Any] = {
        "totals": {str(c): str(v) for c, v in totals.items()},
        "now": _now(now),
    }
    if ballots is not None:
        payload["ballots"] = [[int(v), int(t)] for v, t in ballots]
    after, events = _run(game=locked, op="day_vote", payload=payload)
    events_append(game=locked, events=events, now=now, director=director, reason=reason)
    return after


def werewolf_day_count(
    *,
    game: Game,
    director: User,
    ballots: Sequence[tuple[int, int]],
    reason: str,
) -> GameState:
    """The director's own count of the day (the forum unreachable, a thread counted by hand):
    the final ballots ``(voter, target)``, earliest naming post first, weighed by the engine
    with today's modifiers (诅咒, 票台, 独尊, 偏爱…) exactly as a thread's count would be, then
    settled like any day's vote (the order names 共死's first voter, 061). A voter named twice,
    or anyone not living in the game, is refused and nothing changes."""
    reason = reason_required(reason)
    with transaction.atomic():
        locked = game_lock(game)
        _live(locked)
        state = store.state_load(locked)
        if state.phase != DAY or state.flags.get("voted") == state.day:
            raise InvalidInput(
                "现在不是可以计票的白天（或今天的投票已结算）。",
                message_en="It is not a day whose vote can be counted (or today's is settled).",
                reason="no vote",
            )
        voters = [v for v, _t in ballots]
        if len(set(voters)) != len(voters):
            raise InvalidInput(
                "同一名角色只能有一张最终选票。",
                message_en="A character has only one final ballot.",
                reason="voter twice",
            )
        for pid in (pid for pair in ballots for pid in pair):
            p = state.players.get(pid)
            if p is None or not p.alive:
                raise InvalidInput(
                    "选票中有不在场的角色。",
                    message_en="A ballot names a character not in play.",
                    reason="not alive",
                )
        totals = engine.tally(state, dict(ballots))
        asks = engine.get_ruleset(state.ruleset).day_ballots
        return _day_vote_settle(locked, director, totals, reason, list(ballots) if asks else None)


def werewolf_red_card(
    game: Game, character: Character, now: datetime
) -> tuple[str, Sequence[GameEvent]]:
    """A confirmed red card (the core's card ledger calls it with the game locked): the
    engine's 红牌罚下 once the roles are dealt, the bare Character rule before."""
    if not WerewolfGame.objects.filter(pk=game.pk).exists():
        return cards.werewolf_red_card(game, character, now)
    payload = {"character": character.pk, "now": _now(now)}
    _, events = _run(game=game, op="red_card", payload=payload)
    if engine.get_ruleset(game.ruleset).params.get("red_card") == "idle":
        return "红牌罚下：进入挂机状态（仍属于游戏范畴）。", events
    return "红牌罚下：立即出局并公示身份。", events


def werewolf_faction_forfeit(
    game: Game, character: Character, now: datetime
) -> tuple[str, Sequence[GameEvent]]:
    """The director's decision on a red card that the character's faction loses (the core's
    card ledger calls it with the game locked): the engine's 判负, then the win check."""
    if not WerewolfGame.objects.filter(pk=game.pk).exists():
        raise NotSetUp()
    payload = {"character": character.pk, "now": _now(now)}
    after, events = _run(game=game, op="faction_forfeit", payload=payload)
    if not any(e.kind == "faction_forfeit" for e in events):
        return "该阵营已被判负。", events
    return "阵营判负" + ("，游戏结束。" if after.phase == OVER else "。"), events


def werewolf_speech_penalty(*, game: Game, director: User, post_id: int, reason: str) -> None:
    """[096]: the director confirms that a flagged post broke 变羊/石化's speech rule — every
    non-passive skill of its author gains 1 cooldown (RULINGS 096-16), once per post. A post
    not flagged (already confirmed, within the rule, another game's) is refused."""
    reason = reason_required(reason)
    with transaction.atomic():
        locked = game_lock(game)
        _live(locked)
        post = ForumPost.objects.filter(pk=post_id, thread__game=locked).select_related("thread")
        found = post.first()
        flagged = {
            b["post"]
            for b in selectors.werewolf_speech_breaks(game=locked, days=[found.thread.day])
        } if found is not None else set()  # fmt: skip
        if found is None or found.pk not in flagged or found.character_id is None:
            raise InvalidInput(
                "这一楼没有被标记为违反变羊或石化状态的发言（或已确认过）。",
                message_en="That post is not flagged as breaking a sheep/stone speech rule.",
                reason="not flagged",
            )
        payload = {
            "character": found.character_id,
            "day": found.thread.day,
            "post": found.external_id,
            "now": _now(timezone.now()),
        }
        _, events = _run(game=locked, op="speech_penalty", payload=payload)
        events_append(
            game=locked, events=events, now=timezone.now(), director=director, reason=reason
        )
