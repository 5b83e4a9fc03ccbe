"""Where a role game's state lives: a snapshot after the latest step, and the log's steps.

Every engine step is logged as a DIRECTORS ``engine_step`` event naming its operation, its
input and the sequence number its dice derive from (``rng_seq``); re-running them from the seed
rebuilds the state (``replay``). A night of 18 players is a few dozen small steps, so each step
simply rewrites the snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.db import transaction

from games.engine import dice
from games.models import Event, Game
from werewolf import engine
from werewolf.engine.conan_status import speech_penalty
from werewolf.engine.state import GameState
from werewolf.errors import NotSetUp
from werewolf.models import WerewolfGame

Payload = Mapping[str, Any]
# An engine step from its logged payload: (state, payload, rng) -> (state, events).
Logged = Callable[[GameState, Payload, Any], tuple[GameState, list[Any]]]


def deal(game: Game, payload: Payload, rng: Any) -> tuple[GameState, list[Any]]:
    """The deal (``setup``, and a director's re-deal before the start): a new game."""
    cast = [(int(c), str(n), g) for c, n, g in payload["characters"]]
    roles = payload.get("roles")
    auction = payload.get("auction") or {}
    return engine.new_game(
        game.ruleset,
        cast,
        rng,
        roles=None if roles is None else {int(c): str(r) for c, r in roles.items()},
        auction={int(c): dict(bid) for c, bid in auction.items()},
        unbuilt=settings.WEREWOLF_PREVIEW_RULESETS,
    )


def day_ballots(payload: Payload) -> list[tuple[int, int]] | None:
    """A logged day vote's final ballots for the engine, ``(voter, target)`` earliest first;
    each logged as ``[voter, target, floor, at]`` (the forum's naming post: its floor and epoch
    seconds) or ``[voter, target]`` (the portal's, a director's). None: settled without them."""
    kept = payload.get("ballots")
    if kept is None:
        return None
    return [(int(b[0]), int(b[1])) for b in kept]


# How each logged ``engine_step`` op after the deal is re-run.
STEPS: Mapping[str, Logged] = {
    "night_open": lambda s, p, rng: engine.night_open(s, rng, float(p["now"]), p.get("elevator")),
    "action": lambda s, p, rng: engine.apply_action(
        s, engine.action_from_json(p["action"]), rng, float(p["now"])
    ),
    "deadline_pass": lambda s, p, rng: engine.deadline_pass(s, rng, float(p["now"])),
    "night_resolve": lambda s, p, rng: engine.night_resolve(s, rng),
    "night_publish": lambda s, p, rng: engine.night_publish(
        s, rng, float(p["now"]), p.get("overrides")
    ),
    "day_vote": lambda s, p, rng: engine.day_vote(
        s,
        {int(c): Fraction(v) for c, v in p["totals"].items()},
        rng,
        float(p["now"]),
        ballots=day_ballots(p),
    ),
    "red_card": lambda s, p, rng: engine.red_card(s, int(p["character"]), rng, float(p["now"])),
    "speech_penalty": lambda s, p, rng: speech_penalty(
        s, int(p["character"]), rng, float(p["now"]), day=int(p["day"]), post=str(p["post"])
    ),
    "faction_forfeit": lambda s, p, rng: engine.faction_forfeit(
        s, int(p["character"]), rng, float(p["now"])
    ),
}
DEALS = frozenset({"setup", "deal"})


def last_deal(game: Game) -> dict[str, Any]:
    """The input of the latest deal (``setup`` or a re-deal): its cast (id, name, 马甲 gender),
    its roles (None: from the seed) and its auction."""
    deals = game.events.filter(kind="engine_step", payload__op__in=sorted(DEALS))
    payload = deals.order_by("-seq").values_list("payload", flat=True).first()
    if payload is None:
        raise NotSetUp()
    return dict(payload)


# The state of a locked step, kept on that step's Game instance (``games.services.game_lock``
# reads a new one for each step and marks it ``row_locked``): nobody else writes the row while
# the lock is held, so the step's readers (the action, its run, the night's resolve, the rooms
# the core syncs, the answer's page) take what the step last read or saved rather than reading
# and decoding the row again. The engine never changes a state it is given (drafts copy what
# they write), so sharing it is safe; the commit drops it.
_KEPT = "_werewolf_state_kept"
# Each game's saves in this process, counted. What an instance keeps is good only while no
# save has come since: a service nested in the step may lock the game again (a second
# instance, the same transaction) and save through that one; the first then reads the row.
_SAVES: dict[int, int] = {}


def state_load(game: Game) -> GameState:
    saves = _SAVES.get(game.pk, 0)
    kept: tuple[int, GameState] | None = game.__dict__.get(_KEPT)
    if kept is not None and kept[0] == saves:
        return kept[1]
    data = WerewolfGame.objects.filter(pk=game.pk).values_list("state", flat=True).first()
    if data is None:
        raise NotSetUp()
    state = GameState.from_json(data)
    _keep(game, saves, state)
    return state


def state_save(*, game: Game, state: GameState) -> None:
    deadline = engine.next_deadline(state)
    WerewolfGame.objects.filter(pk=game.pk).update(
        state=state.to_json(),
        deadline=None if deadline is None else datetime.fromtimestamp(deadline, UTC),
    )
    saves = _SAVES[game.pk] = _SAVES.get(game.pk, 0) + 1
    _keep(game, saves, state)


def _keep(game: Game, saves: int, state: GameState) -> None:
    if not game.row_locked:
        return  # e.g. a test arranging a state: its instance reads the row afresh
    if _KEPT not in game.__dict__:
        transaction.on_commit(lambda: game.__dict__.pop(_KEPT, None))
    game.__dict__[_KEPT] = (saves, state)


def run(
    game: Game, op: str, payload: Payload, rng_seq: int, state: GameState | None
) -> tuple[GameState, list[Any]]:
    """One logged step on ``state``, the stored state the caller has just loaded (a deal needs
    none); pure: the caller saves the result."""
    rng = dice.rng(game.seed, rng_seq, op)
    if op in DEALS:
        return deal(game, payload, rng)
    assert state is not None  # noqa: S101  (a step after the deal has its state)
    return STEPS[op](state, payload, rng)


def replay(*, game: Game) -> GameState | None:
    """The state rebuilt from the seed and the log's engine steps alone."""
    state: GameState | None = None
    steps = Event.objects.filter(game=game, kind="engine_step").order_by("seq")
    for p in steps.values_list("payload", flat=True):
        op = str(p["op"])
        rng = dice.rng(game.seed, int(p["rng_seq"]), op)
        if op in DEALS:
            state = deal(game, p, rng)[0]
        else:
            assert state is not None  # noqa: S101  (a log starts with its deal)
            state = STEPS[op](state, p, rng)[0]
    return state
