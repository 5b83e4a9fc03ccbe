"""Writes of the penalty cards (判罚) and of the day's pace (加速/延时).

Cards: the day's close proposes them from the stored forum posts (``cards_propose``, run by
the core for every kind); a director adds one by hand (``card_add``); forum staff confirm or
reject proposed cards, in bulk (``cards_review``). A confirmed card enters the ledger, where
three blue make a yellow and three yellow a red (new cards, ``source=escalation``); a red card
sends the character off through its kind's ``red_card`` handler, and the director records
whether its faction loses (``card_faction_decide``).

Pace: 申请加速/申请延时 from the progress thread's stored posts or the portal button, granted
when enough of the living ask before the cut-off (``pace_update``); a director may set it,
or execute a 加速 (``pace_speed_up``, [061]'s 导演将自动执行加速). [061]'s paces change the
calendar (``games.engine.timetable``); a pace that would move a day under way or closed is
refused.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from games import ballots, selectors
from games.engine import activity as act
from games.engine import timetable as tt
from games.engine.cards import (
    COLOR_NAMES,
    RED,
    Entry,
    PenaltyRules,
    escalate,
    penalty_rules,
    penalty_rulesets,
)
from games.engine.errors import InvalidInput, NotFound, RuleError, WrongPhase
from games.engine.events import DIRECTORS, PUBLIC, GameEvent, to_character
from games.errors import GameNotLive, NoStartDate
from games.models import (
    Card,
    CardSource,
    CardStatus,
    Character,
    CharacterStatus,
    DayPace,
    ForumPost,
    ForumThread,
    Game,
    GameStatus,
    Pace,
    SpeedRequest,
    ThreadKind,
    TimetableOverride,
)
from games.registry import before_transition, kind_get, on_transition
from games.services import events_append, game_lock, reason_required

logger = logging.getLogger(__name__)


class PaceClosed(RuleError):
    code = "pace_closed"
    status = 409
    message = "已过加速/延时申请的截止时间。"
    message_en = "The time for speed-up and delay requests is over."


class PaceMovesHeldDay(RuleError):
    code = "pace_moves_held_day"
    status = 409
    message = "这样改节奏会移动已经开始或已经关门的讨论日的日期，不能这样改。"
    message_en = "That pace would move the dates of a day already under way or closed."


class AlreadySpedUp(RuleError):
    code = "already_sped_up"
    status = 409
    message = "已在执行加速。"
    message_en = "The game is already sped up."


class FactionAlreadyLost(RuleError):
    code = "faction_already_lost"
    status = 409
    message = "已决定该阵营判负，不能撤回（已经被判负的阵营无法再次达到胜利条件）。"
    message_en = "The faction was already judged lost; that cannot be taken back."


class NoFactionDecision(RuleError):
    code = "no_faction_decision"
    status = 409
    message = "只有已确认的红牌才需要决定阵营是否判负。"
    message_en = "Only a confirmed red card calls for a decision on the faction."


def rules_of(game: Game) -> PenaltyRules | None:
    """The ruleset's penalty rules, or None for a ruleset that has none."""
    return penalty_rules(game.ruleset) if game.ruleset in penalty_rulesets() else None


def close_of(game: Game, day: int) -> datetime:
    return game.timetable().due_at(day, "day_close")


def reason_text(card: Card, rules: PenaltyRules | None) -> str:
    """What the card was given for, in the catalogue's words."""
    if card.source == CardSource.ESCALATION:
        return f"累计三张{COLOR_NAMES['blue' if card.color == 'yellow' else 'yellow']}合并"
    if rules is None:
        return card.reason
    try:
        return rules.violation(card.reason).label
    except RuleError:
        return card.reason


def card_facts(card: Card, rules: PenaltyRules | None) -> dict[str, object]:
    """What every audience of a card may see: no note (a director's words may tell secrets)."""
    return {
        "card": card.pk,
        "character": card.character_id,
        "name": card.character.name,
        "color": card.color,
        "reason": card.reason,
        "reason_text": reason_text(card, rules),
        "day": card.day,
        "source": card.source,
    }


def card_event(
    card: Card, rules: PenaltyRules | None, *, live: bool, extra: Mapping[str, object] = {}
) -> GameEvent:
    """A confirmed card's event: public (the forum announces 判罚), except that while the game is
    ``live`` a card whose very reason would tell a role (a ``secret`` entry: 099 5(3), which
    only a role with a forced skill can earn) goes to its player alone — announcing it at all,
    even without the reason, would out that role."""
    facts = {**card_facts(card, rules), **extra}
    try:
        secret = rules is not None and rules.violation(card.reason).secret
    except RuleError:
        secret = False
    audience = to_character(card.character_id) if secret and live else PUBLIC
    return GameEvent("card", audience, facts)


# --- activity at the day's close --------------------------------------------------------------


def _post_counts(closes: Mapping[int, datetime]) -> dict[int, dict[int, int]]:
    """Posts by character in each thread (``closes``: thread id → the day's close), counted
    before the close, in one query for every day."""
    counts: dict[int, dict[int, int]] = {pk: {} for pk in closes}
    before_close = Q()
    for pk, close in closes.items():
        before_close |= Q(thread_id=pk, posted_at__lt=close)
    rows = (
        ForumPost.objects.filter(before_close, character__isnull=False, by_director=False)
        .values("thread", "character")
        .annotate(n=Count("id"))
    )
    for r in rows:
        counts[int(r["thread"])][int(r["character"])] = int(r["n"])
    return counts


def voted_of(game: Game, day: int) -> frozenset[int] | None:
    """Who voted that day, as the ballots count it (a counted ballot, a proxy vote or an
    abstention; a malformed ballot is no vote). A day with no vote thread is the kind's to
    answer (``GameKind.day_voters``: werewolf's portal ballots); None when nobody can tell."""
    if not ForumThread.objects.filter(game=game, day=day, kind=ThreadKind.VOTE).exists():
        reader = kind_get(game.kind).day_voters
        return None if reader is None else reader(game, day)
    tally = ballots.ballot_tally(game=game, day=day)
    return frozenset(game.characters.values_list("pk", flat=True)) - set(tally.not_voted)


def _required(characters: Sequence[Character], day: int, today: int) -> frozenset[int]:
    """Alive and not idle through that day: today, alive now; an earlier day, not out before
    it ended (a death that night counts as after the day)."""
    return frozenset(
        c.pk
        for c in characters
        if not c.idle
        and (
            c.status == CharacterStatus.ALIVE
            or (day < today and c.eliminated_day is not None and c.eliminated_day >= day)
        )
    )


def _sped_up_at_close(game: Game, day: int, close: datetime, timetable: tt.Timetable) -> bool:
    """A day under 加速 when it closed (its own, or [061]'s carried over and not ended by a
    延时): 发言不足或未投票者将不被判罚. A 加速 the director set after the close is not."""
    speed_up = selectors.day_speed_up(game=game, day=day, timetable=timetable)
    return speed_up is not None and speed_up.until is None and speed_up.since < close


def activity_history(game: Game, upto: int) -> list[act.DayActivity]:
    """Every discussion day up to ``upto`` that has a discussion thread, in order. Earlier days
    are read only for runs of quiet days, so only ``upto`` asks the ballots who voted."""
    threads = list(
        ForumThread.objects.filter(game=game, kind=ThreadKind.DISCUSSION, day__lte=upto).order_by(
            "day"
        )
    )
    characters = list(game.characters.all())
    rules = rules_of(game)
    checks_votes = rules is not None and rules.activity.vote_reason is not None
    if not threads:
        return []
    timetable = game.timetable()  # one read of the director's moved closes for every day
    closes = {t.day: timetable.due_at(t.day, "day_close") for t in threads}
    sped = {day for day, close in closes.items() if _sped_up_at_close(game, day, close, timetable)}
    posts = _post_counts({t.pk: closes[t.day] for t in threads})
    return [
        act.DayActivity(
            day=thread.day,
            sped_up=thread.day in sped,
            required=_required(characters, thread.day, upto),
            posts=posts[thread.pk],
            voted=voted_of(game, thread.day) if checks_votes and thread.day == upto else None,
        )
        for thread in threads
    ]


@on_transition("day_close")
def cards_at_close(game: Game, day: int, now: datetime) -> list[GameEvent]:
    """The core's day-close work for every kind: settle the day's pace, propose the cards.

    A failure here is logged and reported to the directors, never allowed to hold up the
    game's close (the savepoint undoes only this part)."""
    if rules_of(game) is None:
        return []
    try:
        with transaction.atomic():
            events = pace_settle(game=game, day=day, now=now)
            return events + cards_propose(game=game, day=day, now=now)
    except Exception:
        logger.exception("cards of game %s day %s were not proposed", game.pk, day)
        return [GameEvent("cards_failed", DIRECTORS, {"day": day})]


def cards_propose(*, game: Game, day: int, now: datetime) -> list[GameEvent]:
    """Propose the day's cards (the game locked by the caller); a proposal already made is not
    made again, so a director may re-run it after a late sync."""
    rules = rules_of(game)
    if rules is None:
        return []
    history = activity_history(game, day)
    if not history or history[-1].day != day:
        return []
    return _proposals_store(game, rules, day, act.proposals(rules, history), now)


def card_propose_missed_duty(
    *, game: Game, character_id: int, day: int, skill: str, now: datetime
) -> list[GameEvent]:
    """必须行使特权的角色未在规定时间内行使: a proposed card for a forced skill its character
    let pass (the game locked by the caller; the kind's engine knows what was forced). Once
    per character and day, like every proposal; nothing for a ruleset without the rule."""
    rules = rules_of(game)
    if rules is None or rules.activity.missed_duty_reason is None:
        return []
    code = rules.activity.missed_duty_reason
    color = rules.violation(code).color or "yellow"
    proposal = act.Proposal(character_id, day, code, color, {"skill": skill})
    return _proposals_store(game, rules, day, [proposal], now)


def _proposals_store(
    game: Game, rules: PenaltyRules, day: int, proposals: Iterable[act.Proposal], now: datetime
) -> list[GameEvent]:
    """Store the proposals not made before (one per character, day and reason) and tell the
    directors of the new ones."""
    made = []
    for p in proposals:
        card, created = Card.objects.get_or_create(
            game=game,
            character_id=p.character,
            day=p.day,
            reason=p.reason,
            source=CardSource.PROPOSED,
            defaults={
                "color": p.color,
                "status": CardStatus.PROPOSED,
                "facts": dict(p.facts),
                "proposed_at": now,
            },
        )
        if created:
            made.append(card)
    if not made:
        return []
    payload = [{**card_facts(c, rules), "facts": c.facts} for c in made]
    return [GameEvent("cards_proposed", DIRECTORS, {"day": day, "cards": payload})]


def cards_propose_again(*, game: Game, day: int, director: User) -> int:
    """The director re-runs a day's proposals (after a late sync); returns how many are new."""
    with transaction.atomic():
        locked = game_lock(game)
        events = cards_propose(game=locked, day=day, now=timezone.now())
        events_append(game=locked, events=events, now=timezone.now(), director=director)
    return len(events[0].payload["cards"]) if events else 0


# --- cards by hand, review, the ledger ----------------------------------------------------------


def card_add(
    *,
    game: Game,
    director: User,
    character: Character,
    color: str,
    reason: str,
    note: str = "",
    day: int | None = None,
) -> Card:
    """A director's card, with a reason from the ruleset's catalogue and a free note; it goes
    to the staff's review queue like a proposed one. Characters already out may be carded."""
    rules = rules_of(game)
    if rules is None:
        raise NotFound(
            f"规则集 {game.ruleset} 没有判罚规则。",
            message_en=f"The ruleset {game.ruleset} has no penalty rules.",
        )
    rules.check(reason, color)
    if character.game_id != game.pk:
        raise InvalidInput(character=character.pk)
    with transaction.atomic():
        locked = game_lock(game)
        card = Card.objects.create(
            game=locked,
            character=character,
            color=color,
            reason=reason,
            note=note.strip(),
            day=day if day is not None else max(locked.day, 1),
            source=CardSource.MANUAL,
            status=CardStatus.PROPOSED,
            proposed_at=timezone.now(),
            director=director,
        )
        event = GameEvent("card_added", DIRECTORS, {**card_facts(card, rules), "note": card.note})
        events_append(game=locked, events=[event], now=timezone.now(), director=director)
    return card


@dataclass(frozen=True)
class ReviewResult:
    reviewed: list[Card]
    skipped: list[Card]  # already reviewed by someone else
    made: list[Card]  # cards the ledger made by escalation
    reds: list[Card]  # red cards that took effect


def cards_review(
    *, cards: Iterable[Card | int], reviewer: User, confirm: bool, reason: str
) -> ReviewResult:
    """Confirm or reject proposed cards (of any games), each game in one transaction. A reason
    is required either way; a card someone else reviewed meanwhile is skipped, not changed."""
    reason = reason_required(reason)
    ids = [c if isinstance(c, int) else c.pk for c in cards]
    by_game: dict[int, list[int]] = {}
    for game_id, pk in Card.objects.filter(pk__in=ids).values_list("game_id", "pk"):
        by_game.setdefault(game_id, []).append(pk)
    result = ReviewResult([], [], [], [])
    for game_id, pks in sorted(by_game.items()):
        _review_game(game_id, pks, reviewer, confirm, reason, result)
    return result


def _review_game(
    game_id: int,
    pks: list[int],
    reviewer: User,
    confirm: bool,
    reason: str,
    result: ReviewResult,
) -> None:
    with transaction.atomic():
        game = game_lock(game_id)
        rules = rules_of(game)
        now = timezone.now()
        rows = list(
            Card.objects.select_for_update()
            .select_related("character")
            .filter(pk__in=pks)
            .order_by("day", "id")
        )
        events: list[GameEvent] = []
        done: list[Card] = []
        for card in rows:
            if card.status != CardStatus.PROPOSED:
                result.skipped.append(card)
                continue
            card.status = CardStatus.CONFIRMED if confirm else CardStatus.REJECTED
            card.reviewer, card.reviewed_at, card.review_reason = reviewer, now, reason
            card.save(update_fields=["status", "reviewer", "reviewed_at", "review_reason"])
            done.append(card)
            if confirm:
                events.append(card_event(card, rules, live=game.is_live))
        if not done:
            return
        result.reviewed.extend(done)
        summary = {"confirmed": confirm, "cards": [c.pk for c in done]}
        events.insert(0, GameEvent("cards_reviewed", DIRECTORS, summary))
        events_append(game=game, events=events, now=now, director=reviewer, reason=reason)
        if confirm:
            for character in {c.character_id: c.character for c in done}.values():
                _ledger_settle(game, character, rules, reviewer, reason, now, result)


def _ledger_settle(
    game: Game,
    character: Character,
    rules: PenaltyRules | None,
    reviewer: User,
    reason: str,
    now: datetime,
    result: ReviewResult,
) -> None:
    """Merge the character's confirmed cards as the ledger requires, then apply every red card
    not applied yet (confirmed directly or just made)."""
    unmerged = Card.objects.filter(
        game=game, character=character, status=CardStatus.CONFIRMED, merged_into__isnull=True
    ).order_by("day", "id")
    entries = [Entry(str(c.pk), c.color) for c in unmerged]
    made: dict[str, Card] = {}
    events: list[GameEvent] = []
    for merge in escalate(entries):
        sources = [made[k].pk if k in made else int(k) for k in merge.sources]
        card = Card.objects.create(
            game=game,
            character=character,
            color=merge.color,
            reason="",
            note="",
            day=max(game.day, 1),
            source=CardSource.ESCALATION,
            status=CardStatus.CONFIRMED,
            facts={"from": sources},
            proposed_at=now,
            reviewer=reviewer,
            reviewed_at=now,
            review_reason=reason,
        )
        made[merge.key] = card
        Card.objects.filter(pk__in=sources).update(merged_into=card)
        result.made.append(card)
        events.append(card_event(card, rules, live=game.is_live, extra={"from": sources}))
    if events:
        events_append(game=game, events=events, now=now, director=reviewer, reason=reason)
    reds = Card.objects.filter(
        game=game, character=character, status=CardStatus.CONFIRMED, color=RED, effect=""
    ).order_by("id")
    for red in reds:
        _red_card_apply(game, red, reviewer, reason, now)
        result.reds.append(red)


def _red_card_apply(game: Game, card: Card, reviewer: User, reason: str, now: datetime) -> None:
    """红牌罚下 through the kind's handler, once per red card; a character already out (or
    idle) is left as it is, and a refusal by the kind is recorded, not raised: the card stands."""
    character = Character.objects.get(pk=card.character_id)
    handler = kind_get(game.kind).red_card
    events: list[GameEvent] = []
    if character.status != CharacterStatus.ALIVE or character.idle:
        effect = "角色已出局或挂机，无需执行。"
    elif handler is None:
        effect = "该游戏类型没有红牌处理，请导演手动执行。"
    else:
        try:
            with transaction.atomic():
                effect, kind_events = handler(game, character, now)
                events = list(kind_events)
        except RuleError as exc:
            effect = f"未执行：{exc.text}"
    card.effect = effect[:200]
    card.save(update_fields=["effect"])
    events.append(
        GameEvent("red_card_applied", DIRECTORS, {"card": card.pk, "effect": card.effect})
    )
    events_append(game=game, events=events, now=now, director=reviewer, reason=reason)


def card_faction_decide(*, card: Card, director: User, loses: bool, reason: str) -> None:
    """The director's call on a red card (判罚红牌时，导演视情况决定是否判负该玩家所在阵营),
    recorded on the card and in the log; a kind with factions makes the faction lose at once
    (``GameKind.faction_loss``). A loss cannot be taken back; a 'no' may later become a 'yes'."""
    reason = reason_required(reason)
    with transaction.atomic():
        game = game_lock(card.game_id)
        fresh = Card.objects.select_for_update().select_related("character").get(pk=card.pk)
        if fresh.color != RED or fresh.status != CardStatus.CONFIRMED:
            raise NoFactionDecision()
        if fresh.faction_loses:
            raise FactionAlreadyLost()
        now = timezone.now()
        fresh.faction_loses, fresh.faction_reason = loses, reason
        fresh.faction_decided_by, fresh.faction_decided_at = director, now
        fresh.save(
            update_fields=[
                "faction_loses",
                "faction_reason",
                "faction_decided_by",
                "faction_decided_at",
            ]
        )
        payload: dict[str, Any] = {
            "card": fresh.pk,
            "character": fresh.character_id,
            "loses": loses,
        }
        events: list[GameEvent] = []
        handler = kind_get(game.kind).faction_loss
        if loses and handler is not None:
            try:
                with transaction.atomic():
                    payload["effect"], kind_events = handler(game, fresh.character, now)
                    events = list(kind_events)
            except RuleError as exc:
                payload["effect"] = f"未执行：{exc.text}"
        events.insert(0, GameEvent("faction_decision", DIRECTORS, payload))
        events_append(game=game, events=events, now=now, director=director, reason=reason)


# --- 加速 / 延时 ----------------------------------------------------------------------------------


def _living(game: Game) -> frozenset[int]:
    return frozenset(
        game.characters.filter(status=CharacterStatus.ALIVE, idle=False).values_list(
            "pk", flat=True
        )
    )


def requests_collect(*, game: Game, day: int) -> int:
    """Record the requests of the day's stored progress-thread posts (each character's first
    post asking for a kind the ruleset has); returns how many are new."""
    rules = rules_of(game)
    thread = ForumThread.objects.filter(game=game, day=day, kind=ThreadKind.PROGRESS).first()
    if thread is None or rules is None:
        return 0
    have = set(SpeedRequest.objects.filter(game=game, day=day).values_list("character_id", "kind"))
    posts = ForumPost.objects.filter(
        thread=thread, character__isnull=False, by_director=False
    ).order_by("floor")
    new = []
    for post in posts:
        kind = act.request_kind(post.text, rules.pace)
        character = post.character_id
        if kind is None or character is None or (character, kind) in have:
            continue
        have.add((character, kind))
        new.append(
            SpeedRequest(
                game=game,
                day=day,
                character_id=character,
                kind=kind,
                post=post,
                requested_at=post.posted_at,
            )
        )
    SpeedRequest.objects.bulk_create(new, ignore_conflicts=True)
    return len(new)


def pace_settle(*, game: Game, day: int, now: datetime) -> list[GameEvent]:
    """Decide the day's pace from its requests (the game locked by the caller); a pace once
    granted stays (a delay may still replace a speed-up), and a director's setting is final."""
    rules = rules_of(game)
    if rules is None or not rules.pace.enabled:
        return []
    requests_collect(game=game, day=day)
    current = DayPace.objects.filter(game=game, day=day).first()
    if current is not None and current.director_id is not None:
        return []
    requests = [
        act.PaceRequest(r.character_id, r.kind, r.requested_at)  # type: ignore[arg-type]
        for r in SpeedRequest.objects.filter(game=game, day=day)
    ]
    deadline = act.cutoff(close_of(game, day), rules.pace)
    decision = act.decide(requests, _living(game), deadline, rules.pace)
    counts = {
        "day": day,
        "speed_up": len(decision.speed_up),
        "delay": len(decision.delay),
        "needed": decision.needed,
        "living": decision.living,
    }
    before = current.pace if current is not None else Pace.NORMAL
    upgrade = before == Pace.NORMAL or (before == Pace.SPED_UP and decision.pace == Pace.DELAYED)
    if decision.pace == Pace.NORMAL or decision.pace == before or not upgrade:
        return []
    if _pace_moves_held(game, day, decision.pace) is not None:
        # A 延时 first seen at the close (its posts synced late, or a close forced by hand):
        # the day is over, its night follows the close that ran.
        return []
    since = decision.since or now  # a granted pace always has the request that completed it
    _pace_store(game, day, {"pace": decision.pace, "since": since})
    facts: dict[str, Any] = {**counts, "pace": decision.pace, "since": since.isoformat()}
    if (text := _calendar_text(game, day, decision.pace)) is not None:
        facts["text"] = text
    return [
        GameEvent("pace", PUBLIC, facts),
        GameEvent(
            "pace",
            DIRECTORS,
            {**facts, "speed_up_by": list(decision.speed_up), "delay_by": list(decision.delay)},
        ),
    ]


def pace_request(*, game: Game, character: Character, kind: str, now: datetime) -> SpeedRequest:
    """The portal button: the character asks for a speed-up or a delay of today (only a kind
    the ruleset has: 099 has no 延时)."""
    if kind not in (act.SPEED_UP, act.DELAY):
        raise InvalidInput(kind=kind)
    rules = rules_of(game)
    if rules is None:
        raise NotFound(
            f"规则集 {game.ruleset} 没有加速/延时规则。",
            message_en=f"The ruleset {game.ruleset} has no speed-up or delay rules.",
        )
    kind = act.pace_check(kind, rules.pace)
    with transaction.atomic():
        locked = game_lock(game)
        if not locked.is_live:
            raise GameNotLive()
        if locked.phase != "day":
            raise WrongPhase(phase=locked.phase, needed="day")
        me = Character.objects.get(pk=character.pk, game=locked)
        if me.status != CharacterStatus.ALIVE or me.idle:
            raise InvalidInput(
                "出局或挂机的角色不能申请加速/延时。",
                message_en="A character that is out or idle cannot ask for a speed-up or delay.",
                character=me.pk,
            )
        if now >= act.cutoff(close_of(locked, locked.day), rules.pace):
            raise PaceClosed()
        request, created = SpeedRequest.objects.get_or_create(
            game=locked,
            day=locked.day,
            character=me,
            kind=kind,
            defaults={"requested_at": now},
        )
        if created:
            mine = {"day": locked.day, "kind": kind}
            events = [
                GameEvent("pace_requested", to_character(me.pk), mine),
                GameEvent("pace_requested", DIRECTORS, {**mine, "character": me.pk}),
                *pace_settle(game=locked, day=locked.day, now=now),
            ]
            events_append(game=locked, events=events, now=now)
    return request


def _pace_store(game: Game, day: int, defaults: dict[str, Any]) -> None:
    """Record the day's pace. [061]: a close the director moved (``day_close_move``) on a day
    whose last date the pace moves keeps its hour on the day's new last date."""
    follows = game.start_date is not None and tt.schedule_for(game.ruleset).pace_days
    before = game.timetable() if follows else None
    DayPace.objects.update_or_create(game=game, day=day, defaults=defaults)
    if before is None:
        return
    after = game.timetable()
    moved = TimetableOverride.objects.filter(game=game, kind="day_close", day__gte=game.day)
    for override in moved:
        shift = after.day_dates(override.day)[1] - before.day_dates(override.day)[1]
        if shift:
            override.at += shift
            override.save(update_fields=["at"])


def _pace_moves_held(game: Game, day: int, pace: str) -> int | None:
    """[061]: the day already under way or closed whose dates giving ``day`` this pace would
    move (``tt.pace_moves_held_day``); None when it moves none, or the calendar ignores paces."""
    if game.start_date is None or not tt.schedule_for(game.ruleset).pace_days:
        return None
    before = game.timetable()
    after = replace(before, paces={**before.paces, day: pace})
    closed = game.phase not in ("before", "day")
    return tt.pace_moves_held_day(before, after, day=game.day, closed=closed)


def pace_set(*, game: Game, day: int, pace: str, director: User, reason: str) -> None:
    """The director sets a day's pace by hand (normal removes a granted one); final for the
    day: requests no longer change it. [061]: refused when it would move a day already under
    way or closed (a past day's pace, a 延时 of a day that has closed)."""
    reason = reason_required(reason)
    if pace not in Pace.values:
        raise InvalidInput(pace=pace)
    with transaction.atomic():
        locked = game_lock(game)
        if (held := _pace_moves_held(locked, day, pace)) is not None:
            raise PaceMovesHeldDay(
                f"这样改节奏会移动已经开始或已经关门的第{held}天的日期，不能这样改。",
                message_en=f"That pace would move the dates of day {held}, under way or closed.",
                held=held,
            )
        now = timezone.now()
        _pace_store(
            locked, day, {"pace": pace, "since": now, "director": director, "reason": reason}
        )
        payload = {"day": day, "pace": pace, "since": now.isoformat()}
        if (text := _calendar_text(locked, day, pace)) is not None:
            payload["text"] = text
        event = GameEvent("pace", PUBLIC, payload)
        events_append(game=locked, events=[event], now=now, director=director, reason=reason)


def _date_at(at: datetime) -> str:
    local = timezone.localtime(at, tt.BEIJING)
    return f"{local.month}月{local.day}日 {local:%H:%M}"


def _calendar_text(game: Game, day: int, pace: str) -> str | None:
    """[061]: what the pace does to the calendar, in one sentence, from the changed timetable
    (北京时间)."""
    if game.start_date is None or not tt.schedule_for(game.ruleset).pace_days:
        return None
    table = game.timetable()
    if pace == Pace.SPED_UP:
        nxt = day + 1
        return (
            f"执行加速：所有人不可改票，发言不足或未投票者将不被判罚；自第 {nxt} 天起每个讨论日"
            f"只有一个自然日（第 {nxt} 天于 {_date_at(table.due_at(nxt, 'day_close'))} 关门），"
            "直到延时成功。"
        )
    if pace == Pace.DELAYED:
        return (
            f"延时成功：第 {day} 天延长一个自然日，于 {_date_at(table.due_at(day, 'day_close'))} "
            "关门；不再视为“执行加速”状态。"
        )
    return f"第 {day} 天恢复正常进程，于 {_date_at(table.due_at(day, 'day_close'))} 关门。"


def pace_speed_up(*, game: Game, director: User, reason: str) -> int:
    """执行加速 by the director (061: 未出局角色减少到一定程度时，导演将自动执行加速 — the post
    names no number, so the director decides when and gives the reason): today's pace becomes
    加速, from now (no more changes of vote today, no cards for the quiet or the non-voters),
    and every following day is one natural day until a 延时. Returns the day it was set on."""
    reason = reason_required(reason)
    with transaction.atomic():
        locked = game_lock(game)
        if not locked.is_live:
            raise GameNotLive()
        if locked.start_date is None:
            raise NoStartDate()
        day = max(locked.day, 1)
        speed_up = selectors.day_speed_up(game=locked, day=day)
        if speed_up is not None and speed_up.until is None:
            raise AlreadySpedUp(
                f"第{day}天已在执行加速。", message_en=f"Day {day} is sped up already.", day=day
            )
        # still locked: two directors at once make one 加速
        pace_set(game=locked, day=day, pace=Pace.SPED_UP, director=director, reason=reason)
    return day


@before_transition("day_close")
def pace_before_close(game: Game, day: int, now: datetime) -> list[GameEvent]:
    """The scheduler settles the day's pace before it runs the close: a [061] 延时 whose
    requests came before the cut-off moves the close instead of missing it."""
    if rules_of(game) is None:
        return []
    return pace_settle(game=game, day=day, now=now)


def paces_update(*, now: datetime) -> int:
    """The periodic task: today's requests of every live game by day; returns games changed."""
    changed = 0
    ids = Game.objects.filter(
        status__in=[GameStatus.TEST, GameStatus.RUNNING],
        phase="day",
        paused=False,
        start_date__isnull=False,
        forum_threads__kind=ThreadKind.PROGRESS,
    ).values_list("pk", flat=True)
    for game_id in sorted(set(ids)):
        with transaction.atomic():
            game = (
                Game.objects.select_for_update(skip_locked=True)
                .filter(pk=game_id, phase="day")
                .first()
            )
            if (
                game is None
                or not ForumThread.objects.filter(
                    Q(game=game, day=game.day, kind=ThreadKind.PROGRESS)
                ).exists()
            ):
                continue
            events = pace_settle(game=game, day=game.day, now=now)
            if events:
                events_append(game=game, events=events, now=now)
                changed += 1
    return changed
