"""A role game's actions over the socket the player has open (``act`` frames) on a [099] game:
a skill and a day ballot mean what they mean over the API, with the same keys and refusals;
the answer reaches the actor's socket before the pushes and nobody else's."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
import time_machine
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Event, Game
from tests.conftest import bj, player_socket, socket_act
from tests.werewolf.players import Player, players, werewolf_game
from tests.werewolf.test_portal_vote import day_1
from werewolf import services, store
from werewolf.models import WerewolfAction

pytestmark = pytest.mark.django_db(transaction=True)

NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)
AT_NIGHT = NIGHT_1 + dt.timedelta(minutes=1)


def http(player: Player, action: Any, key: str | None = None) -> tuple[int, Any]:
    response = player.client.post(
        f"/api/werewolf/games/{player.game.pk}/actions",
        json.dumps(action),
        content_type="application/json",
        headers={"Idempotency-Key": key} if key else None,
    )
    return response.status_code, response.json()


def unchanged(game: Game) -> Any:
    return (
        Event.objects.filter(game=game).count(),
        WerewolfAction.objects.filter(game=game).count(),
        store.state_load(game).to_json(),
    )


def night_1(director: Any) -> tuple[Game, dict[int, int], dict[int, Player]]:
    game, ids = werewolf_game()
    cast = players(game)
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    return game, ids, cast


async def test_a_ballot_over_the_socket_is_the_ballot_of_the_api(director: Any) -> None:
    game, ids, cast = await database_sync_to_async(day_1)(director)
    with time_machine.travel(bj(1, 10), tick=False):
        voter, other = await player_socket(game, cast[15]), await player_socket(game, cast[1])
        # P15 and P17, two 村民 alike, vote for P1: one over its socket, one over HTTP.
        answer = await socket_act(voter, "vote-1", {"kind": "vote", "target": ids[1]})
        status, body = await database_sync_to_async(http)(
            cast[17], {"kind": "vote", "target": ids[1]}
        )
        assert (answer["status"], status) == (200, 200)
        assert answer["answer"]["me"]["id"] == ids[15]
        mine = {**answer["answer"], "me": {**answer["answer"]["me"], "id": ids[17]}}
        assert mine == body
        ballots = (await database_sync_to_async(store.state_load)(game)).flags["ballots"]
        assert ballots["votes"][str(ids[15])] == ballots["votes"][str(ids[17])] == ids[1]
        # The ballot's push follows its answer; a ballot is secret: P1 hears nothing of it.
        pushed = await voter.receive_json_from(timeout=5)
        assert (pushed["kind"], pushed["stream_seq"]) == (
            "ballot",
            answer["answer"]["events"][0]["stream_seq"],
        )
        assert await other.receive_nothing(timeout=0.3)
        await voter.disconnect()
        await other.disconnect()


async def test_a_skill_keyed_over_http_then_the_socket_is_one_request(director: Any) -> None:
    game, ids, cast = await database_sync_to_async(night_1)(director)
    protect = {"kind": "use_skill", "skill": "protect", "targets": [ids[17]]}
    with time_machine.travel(AT_NIGHT, tick=False):
        status, body = await database_sync_to_async(http)(cast[8], protect, "guard-1")
        assert status == 200
        assert body["me"]["card"]["name"] == "守护"
        seq = await database_sync_to_async(game.events.count)()
        guard = await player_socket(game, cast[8])
        again = await socket_act(guard, "guard-1", protect)
        assert again == {"type": "answer", "key": "guard-1", "status": 200, "answer": body}
        await guard.disconnect()
        # ... and after a reconnect, the same frame once more.
        guard = await player_socket(game, cast[8])
        assert await socket_act(guard, "guard-1", protect) == again
        assert await database_sync_to_async(game.events.count)() == seq
        await guard.disconnect()


async def test_a_skill_over_the_socket_comes_before_its_pushes(director: Any) -> None:
    game, ids, cast = await database_sync_to_async(night_1)(director)
    with time_machine.travel(AT_NIGHT, tick=False):
        guard, wolf = await player_socket(game, cast[8]), await player_socket(game, cast[1])
        protect = {"kind": "use_skill", "skill": "protect", "targets": [ids[17]]}
        answer = await socket_act(guard, "guard-2", protect)
        assert answer["status"] == 200
        assert [e["kind"] for e in answer["answer"]["events"]] == ["submitted"]
        pushed = await guard.receive_json_from(timeout=5)
        assert (pushed["type"], pushed["kind"]) == ("event", "submitted")
        assert await wolf.receive_nothing(timeout=0.3)  # nobody learns of the 守护's night
        await guard.disconnect()
        await wolf.disconnect()


async def test_a_skill_one_does_not_have_is_refused_as_the_api_refuses_it(
    director: Any,
) -> None:
    game, ids, cast = await database_sync_to_async(night_1)(director)
    with time_machine.travel(AT_NIGHT, tick=False):
        villager = await player_socket(game, cast[15])
        before = await database_sync_to_async(unchanged)(game)
        protect = {"kind": "use_skill", "skill": "protect", "targets": [ids[17]]}
        refused = await socket_act(villager, "borrowed-1", protect)
        status, body = await database_sync_to_async(http)(cast[15], protect)
        assert (refused["status"], refused["error"]) == (status, body) == (409, body)
        assert body["code"] == "not_your_skill"
        # The schema's refusal: targets are ids, not names.
        named = {"kind": "use_skill", "skill": "protect", "targets": ["P17"]}
        bad = await socket_act(villager, "borrowed-2", named)
        assert (bad["status"], bad["error"]["detail"]) == (400, {"fields": ["action.targets.0"]})
        assert await database_sync_to_async(unchanged)(game) == before
        await villager.disconnect()


def test_one_skill_is_thirteen_statements(director: Any, django_assert_num_queries: Any) -> None:
    game, ids, _ = night_1(director)
    # A wolf's 选举 on night 1 (an engine step, which the rooms follow):
    #    1 BEGIN                     the action's transaction
    #    2 SELECT games_game         the game row, locked (FOR UPDATE on PostgreSQL)
    #    3 SELECT werewolfgame.state the state, read once: the action and its step take what
    #                                was read, the night's resolve (not due yet: its steps are
    #                                open), the kind's rooms reader and the answer's page what
    #                                the step saved (werewolf.store: kept on the locked game)
    #    4 UPDATE werewolfgame       the new state and its deadline (store.state_save)
    #    5 INSERT games_event        the step's events, in one statement
    #    6 UPDATE games_game         the sequence numbers
    #    7 SELECT games_character    the cast's ids, for the rooms (room_services.room_specs);
    #                                the rules' rooms are those the last sync applied
    #                                (Game.rooms_digest), so the rooms and members are not read
    #    8 SELECT games_room         the team rooms, to tell the vote in the 狼群 (a team's
    #                                decision as it is made: room_services._decisions_tell)
    #    9 SELECT games_roommember   their members
    #   10 INSERT games_event        the room's line
    #   11 UPDATE games_game         the room's sequence number
    #   12 INSERT werewolfaction     the answer kept under the idempotency key
    #   13 COMMIT
    with time_machine.travel(AT_NIGHT, tick=False), django_assert_num_queries(13):
        services.werewolf_action_submit(
            game_id=game.pk,
            character_id=ids[1],
            data={"kind": "use_skill", "skill": "elect", "targets": (ids[1],)},
            key="count-1",
            now=timezone.now(),
        )


async def test_the_socket_adds_no_statement_to_a_skill(director: Any) -> None:
    game, ids, cast = await database_sync_to_async(night_1)(director)
    with time_machine.travel(AT_NIGHT, tick=False):
        wolf = await player_socket(game, cast[1])
        counted = CaptureQueriesContext(connection)
        # The statements are counted in the one thread of thread-sensitive work, where the
        # action runs (the test settings turn the shared pool off), and read there.
        in_the_thread = sync_to_async(thread_sensitive=True)
        await in_the_thread(counted.__enter__)()
        elect = {"kind": "use_skill", "skill": "elect", "targets": [ids[1]]}
        answer = await socket_act(wolf, "count-2", elect)
        await in_the_thread(counted.__exit__)(None, None, None)
        assert answer["status"] == 200
        assert len(await in_the_thread(lambda: counted.captured_queries)()) == 13
        await wolf.disconnect()
