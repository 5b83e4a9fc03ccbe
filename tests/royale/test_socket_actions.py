"""A royale night's actions over the socket the player has open (``act`` frames): the same
actions as the API's, the same keys, the same refusals; the answer on the actor's socket
before the action's pushes, and on nobody else's. Real database, real Redis, real sockets."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator
from importlib import import_module
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import live
from games import selectors as game_selectors
from games import services as game_services
from games.models import Character, Event, Game
from royale import services
from royale.models import ActionRecord
from royale.selectors import royale_state
from tests.conftest import (
    ORIGIN,
    bj,
    player_socket,
    session_cookie,
    socket_act,
)
from tests.royale.conftest import Player, empty_royale_game, night_one, players, spawn

pytestmark = pytest.mark.django_db(transaction=True)

MOVE = {"kind": "move", "place": "监狱"}


@pytest.fixture
def night(at_night_one: Any) -> tuple[Game, dict[str, Player]]:
    """[256] night 1, nothing lying anywhere: 甲 and 乙 spawned at 医院, 丙 at 教堂."""
    game = empty_royale_game("256", ("甲", "乙", "丙"))
    night_one(game)
    cast = players(game)
    spawn(cast, {"甲": "医院", "乙": "医院", "丙": "教堂"})
    return game, cast


def unchanged(game: Game) -> Any:
    """What a refused action leaves as it was: the log, the answers kept, the state."""
    return (
        Event.objects.filter(game=game).count(),
        ActionRecord.objects.filter(game=game).count(),
        royale_state(game=Game.objects.get(pk=game.pk)).to_json(),
    )


def http(player: Player, action: Any, key: str | None = None, **headers: str) -> Any:
    """The same action through the API: (status, body)."""
    if key:
        headers["Idempotency-Key"] = key
    response = player.client.post(
        f"/api/royale/games/{player.game.pk}/actions",
        json.dumps(action),
        content_type="application/json",
        headers=headers,
    )
    return response.status_code, response.json()


def moves_of(game: Game, name: str) -> int:
    cid = Character.objects.get(game=game, name=name).pk
    return Event.objects.filter(game=game, kind="moved", audience_character_id=cid).count()


def mine(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer with the actor's own id and name left out (two characters' answers compared)."""
    me = {k: v for k, v in answer["me"].items() if k not in ("id", "name")}
    return {**answer, "me": me}


async def test_an_action_over_the_socket_is_the_action_of_the_api(night: Any) -> None:
    game, cast = night
    socket = await player_socket(game, cast["甲"])
    # 甲 and 乙 stand alike: 甲 moves over its socket, 乙 over HTTP. A field the schema does not
    # know is ignored on both ways in, as the API always did.
    over_socket = await socket_act(socket, "move-1", {**MOVE, "unknown": 1})
    status, over_http = await database_sync_to_async(http)(cast["乙"], {**MOVE, "unknown": 1})
    assert (over_socket["status"], status) == (200, 200)
    assert over_socket["key"] == "move-1"
    assert mine(over_socket["answer"]) == mine(over_http)
    assert over_socket["answer"]["me"]["place"] == "监狱"
    assert [e["kind"] for e in over_socket["answer"]["events"]] == ["moved"]
    state = await database_sync_to_async(royale_state)(game=game)
    assert {state.characters[cast[n].id].place for n in ("甲", "乙")} == {"监狱"}
    # The key is the API's: asked again over HTTP, it is the same request, answered alike.
    status, again = await database_sync_to_async(http)(cast["甲"], MOVE, "move-1")
    assert (status, again) == (200, over_socket["answer"])
    assert await database_sync_to_async(moves_of)(game, "甲") == 1
    await socket.disconnect()


async def test_the_answer_comes_first_then_the_pushes_and_to_nobody_else(night: Any) -> None:
    game, cast = night
    a, b, c = [await player_socket(game, cast[n]) for n in ("甲", "乙", "丙")]
    answer = await socket_act(a, "move-2", MOVE)
    (event,) = answer["answer"]["events"]
    # Then the push of that very event, which the portal recognises by its number.
    pushed = await a.receive_json_from(timeout=5)
    assert (pushed["type"], pushed["kind"], pushed["stream_seq"]) == (
        "event",
        "moved",
        event["stream_seq"],
    )
    assert await a.receive_nothing(timeout=0.3)
    # Nobody else hears of 甲's move: not 乙 at the place it left, not 丙.
    assert await b.receive_nothing(timeout=0.3)
    assert await c.receive_nothing(timeout=0.3)

    # A whisper reaches its recipient as the whisper alone, never the sender's answer.
    sent = await socket_act(b, "whisper-1", {"kind": "whisper", "target": "丙", "text": "在吗"})
    assert sent["status"] == 200
    assert [f["kind"] for f in sent["answer"]["events"]] == ["whisper_sent"]
    heard = await c.receive_json_from(timeout=5)
    assert (heard["type"], heard["kind"], heard["payload"]["text"]) == ("event", "whisper", "在吗")
    assert await c.receive_nothing(timeout=0.3)
    assert await a.receive_nothing(timeout=0.3)
    for socket in (a, b, c):
        await socket.disconnect()


async def test_a_frame_sent_again_after_a_reconnect_gets_the_first_answer(night: Any) -> None:
    game, cast = night
    first = await player_socket(game, cast["甲"])
    answer = await socket_act(first, "move-3", MOVE)
    await first.disconnect()
    again = await player_socket(game, cast["甲"])
    assert await socket_act(again, "move-3", MOVE) == answer
    # A frame whose answer never came (the socket dropped at once) is sent again on the next
    # socket with its key: applied once, whichever of the two did it.
    back = {"kind": "move", "place": "医院"}
    await again.send_json_to({"type": "act", "key": "move-4", "action": back})
    await again.disconnect()
    third = await player_socket(game, cast["甲"])
    resent = await socket_act(third, "move-4", back)
    assert resent["status"] == 200
    assert resent["answer"]["me"]["place"] == "医院"
    assert await database_sync_to_async(moves_of)(game, "甲") == 2
    records = ActionRecord.objects.filter(game=game, key__in=("move-3", "move-4"))
    assert await database_sync_to_async(records.count)() == 2
    await third.disconnect()


async def test_an_http_request_and_a_frame_with_one_key_are_one_request(night: Any) -> None:
    game, cast = night
    status, body = await database_sync_to_async(http)(cast["甲"], MOVE, "move-5")
    assert status == 200
    socket = await player_socket(game, cast["甲"])
    assert await socket_act(socket, "move-5", MOVE) == {
        "type": "answer",
        "key": "move-5",
        "status": 200,
        "answer": body,
    }
    assert await database_sync_to_async(moves_of)(game, "甲") == 1
    await socket.disconnect()


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"kind": "move", "place": "无名之地"}, "unknown_place"),  # the engine's refusal
        ({"kind": "attack", "handle": "nobody"}, None),  # whatever the engine says, alike
    ],
)
async def test_a_rule_break_is_refused_as_the_api_refuses_it(
    night: Any, action: dict[str, Any], code: str | None
) -> None:
    game, cast = night
    socket = await player_socket(game, cast["甲"])
    before = await database_sync_to_async(unchanged)(game)
    refused = await socket_act(socket, "bad-1", action)
    status, body = await database_sync_to_async(http)(cast["甲"], action)
    assert 400 <= status < 500
    assert (refused["status"], refused["error"]) == (status, body)
    assert "answer" not in refused
    if code:
        assert body["code"] == code
    assert await database_sync_to_async(unchanged)(game) == before
    await socket.disconnect()


async def test_out_of_its_window_an_action_is_refused_alike(at_night_one: Any) -> None:
    game = await database_sync_to_async(empty_royale_game)("256", ("甲", "乙"))
    cast = await database_sync_to_async(players)(game)
    # Day 1, 20:00: the night's window is not open yet.
    await database_sync_to_async(game_services.transitions_run_due)(now=bj(1, 20))
    socket = await player_socket(game, cast["甲"])
    before = await database_sync_to_async(unchanged)(game)
    spawn_at = {"kind": "spawn", "place": "监狱"}
    refused = await socket_act(socket, "early-1", spawn_at)
    status, body = await database_sync_to_async(http)(cast["甲"], spawn_at)
    assert (refused["status"], refused["error"]) == (status, body) == (409, body)
    assert body["code"] == "wrong_phase"
    assert await database_sync_to_async(unchanged)(game) == before
    await socket.disconnect()


INVALID = {"code": "invalid_input", "message": "输入无效。"}
BAD_KEY = {
    "code": "bad_idempotency_key",
    "message": "Idempotency-Key 须为 1 到 64 个字母、数字、- 或 _。",
}
BAD_CHARACTERS = {
    "code": "invalid_input",
    "message": "请求中含有无法处理的字符（空字符或不成对的代理字符），请删除后重试。",
    "detail": {"where": "frame"},
}


def refusing(*fields: str) -> dict[str, Any]:
    return {**INVALID, "detail": {"fields": list(fields)}}


def act_text(action: Any = ..., key: Any = "k-1") -> str:
    """An act frame as the client writes it (``...``: the field left out)."""
    frame = {"type": "act", "key": key, "action": action}
    return json.dumps({k: v for k, v in frame.items() if v is not ...}, ensure_ascii=False)


WHISPER = {"kind": "whisper", "target": "乙"}


@pytest.mark.parametrize(
    ("frame", "key", "error"),
    [
        # The fields the action's schema refuses, named where they sit in the frame (the API
        # names them in its body: body.body.kind).
        (act_text({"kind": 3}), "k-1", refusing("action.kind")),
        (act_text({"place": "监狱"}), "k-1", refusing("action.kind")),
        (act_text({"kind": "move", "place": True}), "k-1", refusing("action.place")),
        (act_text({"kind": "phone", "accept": "true"}), "k-1", refusing("action.accept")),
        (act_text({**WHISPER, "text": "长" * 10_001}), "k-1", refusing("action.text")),
        (act_text({"kind": "drop", "items": list(range(101))}), "k-1", refusing("action.items")),
        # No action, or one that is not an object.
        (act_text(), "k-1", refusing("action")),
        (act_text(["move", "监狱"]), "k-1", refusing("action")),
        (act_text("move"), "k-1", refusing("action")),
        # The key: required on the socket, of the header's form.
        (act_text({"kind": "rest"}, key=...), None, BAD_KEY),
        (act_text({"kind": "rest"}, key=7), None, BAD_KEY),
        (act_text({"kind": "rest"}, key="no spaces"), "no spaces", BAD_KEY),
        (act_text({"kind": "rest"}, key="k" * 65), None, BAD_KEY),
        # What the HTTP edge refuses in any body: NUL, an unpaired surrogate (as escapes).
        (act_text({**WHISPER, "text": "a\x00b"}), "k-1", BAD_CHARACTERS),
        (act_text({**WHISPER, "text": "?"}).replace("?", "\\ud800"), "k-1", BAD_CHARACTERS),
        # Not JSON, not an object, not text: no key to tell; broken JSON gets no fields from
        # the API either.
        (act_text({"kind": "rest"})[:-3], None, INVALID),
        ("[1, 2]", None, INVALID),
        (b"\x00\x01", None, INVALID),
    ],
)
async def test_a_bad_frame_gets_the_apis_error_and_changes_nothing(
    night: Any, frame: str | bytes, key: str | None, error: dict[str, Any]
) -> None:
    game, cast = night
    socket = await player_socket(game, cast["甲"])
    recipient = await player_socket(game, cast["乙"])
    before = await database_sync_to_async(unchanged)(game)
    if isinstance(frame, bytes):
        await socket.send_to(bytes_data=frame)
    else:
        await socket.send_to(text_data=frame)
    answer = await socket.receive_json_from(timeout=5)
    assert answer == {"type": "answer", "key": key, "status": 400, "error": error}
    assert await database_sync_to_async(unchanged)(game) == before
    assert await recipient.receive_nothing(timeout=0.2)
    # The socket goes on: the next frame is an action like any.
    assert (await socket_act(socket, "after-1", MOVE))["status"] == 200
    for s in (socket, recipient):
        await s.disconnect()


async def test_a_refusal_is_in_english_when_the_browser_asks_for_it(night: Any) -> None:
    game, cast = night
    socket = await player_socket(game, cast["甲"], (b"accept-language", b"en-US,en;q=0.9"))
    action = {"kind": "move", "place": "无名之地"}
    refused = await socket_act(socket, "en-1", action)
    status, body = await database_sync_to_async(http)(
        cast["甲"], action, **{"Accept-Language": "en-US,en;q=0.9"}
    )
    assert (refused["status"], refused["error"]) == (status, body)
    assert body["message"].isascii()
    bad_key = await socket_act(socket, "no spaces", MOVE)
    assert bad_key["error"]["message"] == "Idempotency-Key must be 1 to 64 letters, digits, - or _."
    await socket.disconnect()


async def test_after_a_password_reset_the_old_socket_cannot_act(night: Any, director: Any) -> None:
    game, cast = night
    socket = await player_socket(game, cast["甲"])
    character = await database_sync_to_async(Character.objects.get)(game=game, name="甲")
    await database_sync_to_async(game_services.character_credentials_reset)(
        game=game, director=director, character=character
    )
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}
    # Its browser reconnects with the old cookie: the session no longer signs 甲 in.
    again = WebsocketCommunicator(
        socket.application,
        f"/ws/games/{game.pk}/",
        headers=[(b"host", b"127.0.0.1:8000"), ORIGIN, session_cookie(cast["甲"].client)],
    )
    connected, _ = await again.connect()
    assert not connected
    assert await database_sync_to_async(moves_of)(game, "甲") == 0


async def test_a_frame_after_the_session_lost_its_character_is_refused(night: Any) -> None:
    """The socket reads its session again for each action: a frame that comes in after the
    session lost the character, before the socket's close reached it, acts for nobody."""
    game, cast = night
    socket = await player_socket(game, cast["甲"])
    before = await database_sync_to_async(unchanged)(game)

    def drop_character() -> None:
        key = cast["甲"].client.cookies["sessionid"].value
        store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
        characters = dict(store[game_selectors.SESSION_KEY])
        characters.pop(str(game.pk))
        store[game_selectors.SESSION_KEY] = characters
        store.save()

    await database_sync_to_async(drop_character)()
    refused = await socket_act(socket, "late-1", MOVE)
    status, body = await database_sync_to_async(http)(cast["甲"], MOVE)
    assert (refused["status"], refused["error"]) == (status, body) == (401, body)
    assert body["code"] == "not_authenticated"
    assert await database_sync_to_async(unchanged)(game) == before
    await socket.disconnect()


def test_one_action_is_six_statements(at_night_one: Any, django_assert_num_queries: Any) -> None:
    game = empty_royale_game("256", ("甲", "乙"))
    night_one(game)
    cast = players(game)
    spawn(cast, "医院")
    # With the state this process committed last (the night's hot path):
    #   1 BEGIN                    the action's transaction
    #   2 SELECT games_game        the game row, locked (SELECT … FOR UPDATE on PostgreSQL)
    #   3 INSERT games_event       the step and its events, in one statement
    #   4 UPDATE games_game        the game's sequence numbers (seq, the streams' stream_seqs)
    #   5 INSERT royale_actionrecord   the answer kept under the idempotency key
    #   6 COMMIT
    with django_assert_num_queries(6):
        services.action_submit(
            game_id=game.pk,
            character_id=cast["甲"].id,
            data=MOVE,
            key="count-1",
            now=timezone.now(),
        )


async def test_the_socket_adds_no_statement_to_an_action(night: Any) -> None:
    """The same six over the socket: the consumer's own checks (the session read again, the
    kind, the schema) cost the database nothing (the session is read from the cache)."""
    game, cast = night
    socket = await player_socket(game, cast["甲"])
    # The action runs in the one thread of thread-sensitive work (the test settings turn the
    # shared pool off); its statements are counted there.
    counted = CaptureQueriesContext(connection)
    in_the_thread = sync_to_async(thread_sensitive=True)
    await in_the_thread(counted.__enter__)()
    answer = await socket_act(socket, "count-2", MOVE)
    await in_the_thread(counted.__exit__)(None, None, None)
    assert answer["status"] == 200
    # (read there too: the connection, and so its log, is that thread's)
    statements = [
        q["sql"].split()[0] for q in await in_the_thread(lambda: counted.captured_queries)()
    ]
    assert statements == ["BEGIN", "SELECT", "INSERT", "UPDATE", "INSERT", "COMMIT"], statements
    await socket.disconnect()


BUSY = {"code": "busy", "message": "服务器繁忙，请稍后再试。", "detail": {"retry_after": 1}}


async def test_a_saturated_process_answers_busy_on_both_ways_and_changes_nothing(
    night: Any, settings: Any
) -> None:
    game, cast = night
    settings.ACTIONS_IN_FLIGHT_MAX = 0
    socket = await player_socket(game, cast["甲"])
    english = await player_socket(game, cast["乙"], (b"accept-language", b"en-US,en;q=0.9"))
    before = await database_sync_to_async(unchanged)(game)
    shed = await socket_act(socket, "busy-1", MOVE)
    assert shed == {"type": "answer", "key": "busy-1", "status": 429, "error": BUSY}

    def post() -> Any:
        response = cast["甲"].client.post(
            f"/api/royale/games/{game.pk}/actions",
            json.dumps(MOVE),
            content_type="application/json",
            headers={"Idempotency-Key": "busy-2"},
        )
        return response.status_code, response.headers.get("Retry-After"), response.json()

    assert await database_sync_to_async(post)() == (429, "1", BUSY)
    in_english = await socket_act(english, "busy-3", MOVE)
    assert in_english["error"] == {
        **BUSY,
        "message": "The server is busy; please try again shortly.",
    }
    assert await database_sync_to_async(unchanged)(game) == before
    # Not an answer kept under the key: once the load eases, the same key is a fresh action.
    settings.ACTIONS_IN_FLIGHT_MAX = 1
    assert (await socket_act(socket, "busy-1", MOVE))["status"] == 200
    for s in (socket, english):
        await s.disconnect()


@contextlib.asynccontextmanager
async def row_held(game: Game) -> AsyncIterator[None]:
    """Another connection holds the game's row (a write: SQLite's lock, PostgreSQL's row lock),
    so an action sent meanwhile stays in flight, waiting for it, until the block ends."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                Game.objects.filter(pk=game.pk).update(title=F("title"))
                locked.set()
                release.wait(10)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert await asyncio.to_thread(locked.wait, 10)
        yield
    finally:
        release.set()
        await asyncio.to_thread(holder.join, 10)


async def test_the_action_past_the_limit_is_shed_while_one_is_in_flight(
    night: Any, settings: Any
) -> None:
    game, cast = night
    settings.ACTIONS_IN_FLIGHT_MAX = 1
    # The pool, as in production: the held action waits in a pool thread, not in the one
    # thread of thread-sensitive work that the test's session reads (locmem cache) also need.
    settings.ACTIONS_SHARED_THREADS = True
    first = await player_socket(game, cast["甲"])
    second = await player_socket(game, cast["乙"])
    async with row_held(game):
        await first.send_json_to({"type": "act", "key": "held-1", "action": MOVE})
        await asyncio.sleep(0.3)  # 甲's action is waiting for the row
        shed = await socket_act(second, "held-2", MOVE)
        assert (shed["status"], shed["error"]) == (429, BUSY)
    answered = await first.receive_json_from(timeout=10)
    assert (answered["type"], answered["key"], answered["status"]) == ("answer", "held-1", 200)
    assert await database_sync_to_async(moves_of)(game, "乙") == 0
    for s in (first, second):
        await s.disconnect()


async def test_a_socket_relays_its_pushes_while_its_own_action_waits(
    night: Any, settings: Any
) -> None:
    game, cast = night
    settings.ACTIONS_SHARED_THREADS = True  # the held action waits in a pool thread
    socket = await player_socket(game, cast["乙"])
    async with row_held(game):
        await socket.send_json_to({"type": "act", "key": "wait-1", "action": MOVE})
        await asyncio.sleep(0.3)  # 乙's move is waiting for the row
        # A push to 乙 meanwhile (another process's, say) is relayed at once, not after it.
        group = live.group_character(game.pk, cast["乙"].id)
        frame = '{"type":"event","kind":"hit"}'
        await get_channel_layer().group_send(
            group, {"type": live.EVENT_MESSAGE_TYPE, "texts": [frame]}
        )
        assert await socket.receive_json_from(timeout=2) == {"type": "event", "kind": "hit"}
    answered = await socket.receive_json_from(timeout=10)
    assert (answered["type"], answered["key"], answered["status"]) == ("answer", "wait-1", 200)
    await socket.disconnect()
