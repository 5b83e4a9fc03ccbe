"""The action endpoint's input holes, each closed: a lone surrogate or a NUL in a whisper (a 500
on PostgreSQL, a broken push on SQLite), ``"target": true`` (it whispered to character 1), and
a whisper of zero-width spaces (it passed the empty check). Each is refused and stores nothing;
the other pushes go on."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from games.models import Event, Game
from royale.models import ActionRecord
from royale.selectors import royale_state
from royale.services import royale_replay
from tests.conftest import SocketReader
from tests.royale.conftest import Player, night_one, players, refused, royale_game, spawn

pytestmark = pytest.mark.django_db


@pytest.fixture
def night(at_night_one: Any) -> tuple[Game, dict[str, Player]]:
    """[256] night 1: 甲 (character 1), 乙 and 丙 spawned together at 医院."""
    game = royale_game("256", ("甲", "乙", "丙"))
    night_one(game)
    cast = players(game)
    spawn(cast, "医院")
    return game, cast


def unchanged(game: Game) -> Any:
    """What a refused action must leave as it was: the log, the answers kept, the state."""
    fresh = Game.objects.get(pk=game.pk)
    return (
        Event.objects.filter(game=game).count(),
        ActionRecord.objects.filter(game=game).count(),
        royale_state(game=fresh).to_json(),
    )


def post(player: Player, body: bytes) -> Any:
    return player.client.post(
        f"/api/royale/games/{player.game.pk}/actions", body, content_type="application/json"
    )


@pytest.mark.parametrize(
    "body",
    [
        b'{"kind": "whisper", "target": "\\u4e59", "text": "\\ud800"}',
        b'{"kind": "whisper", "target": "\\u4e59", "text": "hi\\udfff"}',
        '{"kind": "whisper", "target": "乙", "text": "a\ud800"}'.encode("utf-8", "surrogatepass"),
        b'{"kind": "whisper", "target": "\\u4e59", "text": "a\\u0000b"}',
        b'{"kind": "whisper", "target": "\\u4e59\\u0000", "text": "hi"}',
    ],
)
def test_a_bad_character_in_a_whisper_is_refused_and_nothing_is_stored(
    night: tuple[Game, dict[str, Player]], body: bytes
) -> None:
    game, cast = night
    before = unchanged(game)
    refused(post(cast["甲"], body), 400, "invalid_input")
    assert unchanged(game) == before
    assert cast["乙"].heard("whisper") == []


@pytest.mark.django_db(transaction=True)
async def test_a_refused_surrogate_leaves_the_other_pushes_as_they_were(
    night: tuple[Game, dict[str, Player]],
) -> None:
    game, cast = night
    recipient = SocketReader(game, cast["乙"])
    await recipient.connect()
    await recipient.drain()
    bad = b'{"kind": "whisper", "target": "\\u4e59", "text": "\\ud800"}'
    response = await database_sync_to_async(post)(cast["甲"], bad)
    refused(response, 400, "invalid_input")
    # the next whisper, and another character's action, reach their sockets as usual
    ok = await database_sync_to_async(cast["甲"].act)("whisper", target="乙", text="还在吗？")
    assert ok.status_code == 200, ok.content
    assert (await database_sync_to_async(cast["丙"].act)("rest")).status_code == 200
    frames = await recipient.drain()
    assert [(f["kind"], f["payload"].get("text")) for f in frames] == [("whisper", "还在吗？")]
    # no gap where the refusal was: the pushed whisper is the next of 乙's private stream
    logged = await database_sync_to_async(cast["乙"].events)()
    numbers = [f["stream_seq"] for f in logged if f["stream"] == "private"]
    assert numbers == list(range(1, len(numbers) + 1))
    assert frames[0]["stream_seq"] == numbers[-1]
    assert recipient.socket is not None
    await recipient.socket.disconnect()
    fresh = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    rebuilt = await database_sync_to_async(royale_replay)(game=fresh)
    state = await database_sync_to_async(royale_state)(game=fresh)
    assert rebuilt is not None
    assert rebuilt.to_json() == state.to_json()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("target", True),
        ("target", False),
        ("target", 1.0),
        ("target", [1]),
        ("text", 1),
        ("text", True),
        ("text", ["hi"]),
    ],
)
def test_a_wrong_type_is_refused_not_guessed(
    night: tuple[Game, dict[str, Player]], field: str, value: Any
) -> None:
    """``true`` was character 1: 乙's whisper with ``"target": true`` went to 甲."""
    game, cast = night
    before = unchanged(game)
    fields = {"target": "甲", "text": "你好", field: value}
    response = cast["乙"].act("whisper", **fields)
    refused(response, 400, "invalid_input")
    assert any(f.startswith(f"body.body.{field}") for f in response.json()["detail"]["fields"])
    assert unchanged(game) == before
    assert cast["甲"].heard("whisper") == []
    # the right types go through: a name, or the character's id
    assert cast["乙"].act("whisper", target=cast["甲"].id, text="你好").status_code == 200


@pytest.mark.parametrize(
    ("field", "value"),
    [("item", True), ("item", "1"), ("accept", "true"), ("accept", 1), ("items", [True])],
)
def test_other_fields_take_only_their_own_type(
    night: tuple[Game, dict[str, Player]], field: str, value: Any
) -> None:
    game, cast = night
    before = unchanged(game)
    response = cast["甲"].act("use", **{field: value})
    refused(response, 400, "invalid_input")
    assert unchanged(game) == before


@pytest.mark.parametrize(
    "text", ["\u200b", "\u200b\u200c\u200d", "\u2060\ufeff", " \u200b\n\u3000 ", "\u3164"]
)
def test_a_whisper_of_invisible_characters_is_empty(
    night: tuple[Game, dict[str, Player]], text: str
) -> None:
    game, cast = night
    before = unchanged(game)
    refused(cast["甲"].act("whisper", target="乙", text=text), 400, "empty_message")
    assert unchanged(game) == before
    # a visible character among them is a message
    sent = cast["甲"].act("whisper", target="乙", text=f"{text}在{text}")
    assert sent.status_code == 200, sent.content
