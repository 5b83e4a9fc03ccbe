"""Where a battle royale's state lives: a snapshot plus the log's engine steps after it.

The log's ``engine_step`` events are the record: each names its operation, its input and the
sequence number its dice derive from (``rng_seq``), so re-running them from the seed rebuilds
the state. ``RoyaleGame.state`` is a snapshot of the state after the step numbered
``RoyaleGame.state_rng_seq``; the current state is that snapshot with the later steps re-run
on top. Setup, transitions and interventions always write the snapshot; actions only every
``ROYALE_SNAPSHOT_EVERY`` steps (a setting), so a night's hot path does not rewrite 20-odd KB
per action.

Each process also keeps the state it last committed per game, with the game's ``seq`` after
that commit. Every step bumps the sequence, so a matching number means nothing happened since:
readers and writers then skip the database entirely; a lower one means only the steps logged
since need re-running.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from games.engine import dice
from games.models import Event, Game
from royale import engine
from royale.engine import director as director_engine
from royale.engine import economy, events, npcs, testmatch
from royale.engine.state import GameState
from royale.errors import NotSetUp
from royale.models import RoyaleGame

Step = Callable[[GameState, Any], tuple[GameState, list[Any]]]
Payload = Mapping[str, Any]
# An engine step from its logged payload: (state, payload, rng) -> (state, events).
Logged = Callable[[GameState, Payload, Any], tuple[GameState, list[Any]]]

# The engine functions the scheduler's transitions call, by transition kind.
TRANSITIONS: Mapping[str, Step] = {
    "day_open": engine.day_open,
    "day_close": engine.day_close,
    "night_open": engine.night_open,
    "night_end": engine.night_end,
    "night_close": engine.night_close,
}

# The directors' interventions: the engine call of each op, from its logged payload, so the same
# call runs live and on replay.
INTERVENTIONS: Mapping[str, Logged] = {
    "adjust": lambda s, p, rng: director_engine.adjust(
        s, int(p["character"]), rng, hp=int(p["hp"]), mp=int(p["mp"]), bleeding=p["bleeding"]
    ),
    "relocate": lambda s, p, rng: director_engine.relocate(
        s, int(p["character"]), str(p["place"]), rng
    ),
    "give": lambda s, p, rng: director_engine.give(s, int(p["character"]), str(p["kind"]), rng),
    "take": lambda s, p, rng: director_engine.take(s, int(p["item"]), rng),
    "airdrop": lambda s, p, rng: director_engine.drop_supplies(
        s, [str(x) for x in p["selectors"]], rng
    ),
    "exchange": lambda s, p, rng: economy.exchange(
        s, int(p["character"]), [int(x) for x in p["notes"]], rng
    ),
    "exchange_answer": lambda s, p, rng: economy.exchange_answer(
        s, int(p["character"]), bool(p["approve"]), rng
    ),
    "list_lot": lambda s, p, rng: economy.list_lot(s, str(p["selector"]), rng),
    "use_for": lambda s, p, rng: economy.use_for(s, int(p["character"]), int(p["item"]), rng),
    "event_choose": lambda s, p, rng: events.event_choose(
        s, p["pick"], [str(x) for x in p["veto"]], rng
    ),
    "riddle": lambda s, p, rng: npcs.riddle_set(s, str(p["text"]), rng),
    "red_card": lambda s, p, rng: engine.red_card(s, int(p["character"]), rng),
    # the test match's live supplies (RULINGS 28)
    "test_restore": lambda s, p, rng: testmatch.restore(s, int(p["character"]), rng),
    "test_supply": lambda s, p, rng: testmatch.supply(s, int(p["character"]), str(p["kind"]), rng),
}


def _transition(kind: str) -> Logged:
    return lambda state, p, rng: TRANSITIONS[kind](state, rng)


# How each logged ``engine_step`` op after the setup is re-run.
REPLAYERS: Mapping[str, Logged] = {
    "action": lambda state, p, rng: engine.apply_action(
        state, engine.action_from_json(p["action"]), rng, p["now"]
    ),
    **{kind: _transition(kind) for kind in TRANSITIONS},
    **INTERVENTIONS,
    "test_prize": lambda s, p, rng: testmatch.award(s, [int(x) for x in p["characters"]], rng),
}


def steps_after(game: Game, rng_seq: int | None) -> list[Payload]:
    """The logged steps after the one numbered ``rng_seq`` (all of them for None), in order;
    equally, given a game's ``seq`` after some commit, the steps logged after that commit."""
    steps = Event.objects.filter(game=game, kind="engine_step")
    if rng_seq is not None:
        # A step's own engine_step event is numbered at or after its rng_seq (a transition's
        # phase event takes that number), and before the next step's rng_seq.
        steps = steps.filter(seq__gt=rng_seq)
    payloads = steps.order_by("seq").values_list("payload", flat=True)
    return [p for p in payloads if rng_seq is None or int(p["rng_seq"]) > rng_seq]


def replay(
    *, game: Game, base: GameState | None, steps: list[Payload], upto: int | None = None
) -> GameState | None:
    """Re-run logged steps on ``base``, stopping after the step numbered ``upto``."""
    state = base
    for step in steps:
        if upto is not None and int(step["rng_seq"]) > upto:
            break
        op = str(step["op"])
        rng = dice.rng(game.seed, int(step["rng_seq"]), op)
        if op == "setup":  # a log always starts with it
            cast = [(int(cid), str(name)) for cid, name in step["characters"]]
            placement = step.get("placement") or None
            test_match = bool(step.get("test_match"))
            state = engine.new_game(
                game.ruleset, cast, rng, placement=placement, test_match=test_match
            )[0]
        else:
            assert state is not None  # noqa: S101  (after the setup, or on a snapshot)
            state = REPLAYERS[op](state, step, rng)[0]
    return state


@dataclass(frozen=True)
class Loaded:
    state: GameState
    tail: int  # logged steps on top of the stored snapshot


# game id -> (seed, game seq after the commit, state, tail). The seed tells games apart should an
# id ever be reused (a restored or test database).
_COMMITTED: dict[int, tuple[str, int, GameState, int]] = {}


def state_load(game: Game) -> Loaded:
    """The current state of a game whose ``seq`` the caller has just read."""
    cached = _COMMITTED.get(game.pk)
    if cached is not None and cached[0] == game.seed and cached[1] <= game.seq:
        _, seq, state, tail = cached
        if seq == game.seq:
            return Loaded(state, tail)
        # Steps committed since (by another process, or by a thread whose commit hook has not
        # run yet): the log is append-only, so re-running them on what was committed is exact.
        steps = steps_after(game, seq)
        caught_up = replay(game=game, base=state, steps=steps)
        assert caught_up is not None  # noqa: S101  (the base is a state)
        return Loaded(caught_up, tail + len(steps))
    row = RoyaleGame.objects.filter(pk=game.pk).values_list("state", "state_rng_seq").first()
    if row is None:
        raise NotSetUp()
    data, rng_seq = row
    steps = steps_after(game, rng_seq)
    current = replay(game=game, base=GameState.from_json(data), steps=steps)
    assert current is not None  # noqa: S101  (a snapshot is never None)
    return Loaded(current, len(steps))


def state_save(
    *, game: Game, state: GameState, rng_seq: int, tail: int, force: bool = False
) -> None:
    """Record the state after the step numbered ``rng_seq``, inside the step's transaction: a new
    snapshot when forced or when the tail has grown long enough; the log holds the rest."""
    if force or tail >= settings.ROYALE_SNAPSHOT_EVERY:
        RoyaleGame.objects.filter(pk=game.pk).update(state=state.to_json(), state_rng_seq=rng_seq)
        tail = 0
    # game.seq is read when the transaction commits: by then it counts this step's events.
    transaction.on_commit(
        lambda: _COMMITTED.__setitem__(game.pk, (game.seed, game.seq, state, tail))
    )


def forget(*, game_id: int | None = None) -> None:
    """Drop what this process remembers of a game's state (of every game for None): the next
    read rebuilds it from the stored snapshot and the log, as another process would."""
    if game_id is None:
        _COMMITTED.clear()
    else:
        _COMMITTED.pop(game_id, None)


@receiver(post_save, sender=RoyaleGame)
def _state_forget(
    sender: type[RoyaleGame],
    instance: RoyaleGame,
    update_fields: frozenset[str] | None = None,
    **kwargs: Any,
) -> None:
    # A direct save of the snapshot (a test arranging a state) may change it under the cache.
    if update_fields is None or "state" in update_fields:
        forget(game_id=instance.pk)
