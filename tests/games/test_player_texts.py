"""No code words: every event a player can see reads as a Chinese sentence.

The core's events (cards, pace requests, announcements…) carry their player's sentence in the
frame; a kind's own events are written by its portal, which declares the kinds it writes. An
event that would reach a player with no sentence is refused while the suite runs
(``EVENT_TEXT_STRICT``), so any test that makes one fails.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from games import eventlog, services
from games.engine.events import DIRECTORS, PUBLIC, GameEvent, to_character
from games.models import Event, Game
from royale import eventtext as royale_text
from tests.conftest import ORIGIN, api_login, make_game, session_cookie, socket_open
from werewolf.eventtext import player_line

ROOT = Path(__file__).resolve().parents[2]
# ASCII words of two letters or more joined by underscores or alone: what an event kind or a
# payload key looks like on a page (``card``, ``pace_requested``).
CODE_WORD = re.compile(r"[a-z]+(?:_[a-z]+)*")


def test_the_royale_portal_writes_exactly_the_kinds_it_declares() -> None:
    script = (ROOT / "static" / "js" / "royale.js").read_text(encoding="utf-8")
    described = set(re.findall(r'case "([a-z_]+)"', script))
    assert described == set(royale_text.PORTAL_KINDS)


def test_no_portal_shows_a_kind_it_cannot_write(settings: Any) -> None:
    frame = {"kind": "weird_thing", "payload": {"x": 1}}
    # A kind, or a payload shape, without a sentence fails the suite (a [061] submission with
    # several targets once read （其他事件）); outside the suite players read a neutral line.
    with pytest.raises(eventlog.MissingPlayerText, match="weird_thing"):
        player_line(frame)
    with pytest.raises(eventlog.MissingPlayerText, match="submitted"):
        player_line({"kind": "submitted", "payload": {"skill": "x", "targets": [1]}})
    settings.EVENT_TEXT_STRICT = False
    assert player_line(frame) == "（其他事件）"
    assert eventlog.player_text_missing("royale", "weird_thing", {"x": 1})
    assert not eventlog.player_text_missing("royale", "weird_thing", {"text": "导演说明"})
    assert not eventlog.player_text_missing("werewolf", "card", {})


@pytest.mark.django_db
def test_an_event_players_could_not_read_is_refused_and_nothing_is_logged() -> None:
    game = make_game()
    with pytest.raises(eventlog.MissingPlayerText, match="weird_thing"):
        services.event_record(game=game, events=[GameEvent("weird_thing", PUBLIC, {"x": 1})])
    assert not Event.objects.filter(game=game).exists()
    # The directors' log has a sentence for any kind (其他 / 未归类事件): they may get one.
    services.event_record(game=game, events=[GameEvent("weird_thing", DIRECTORS, {"x": 1})])
    assert Event.objects.filter(game=game, kind="weird_thing").count() == 1


def _card_facts(game: Game, name: str) -> dict[str, Any]:
    character = game.characters.get(name=name)
    return {
        "card": 1,
        "character": character.pk,
        "name": name,
        "color": "yellow",
        "reason": "12.1",
        "reason_text": "12.1 讨论日发言不足",
        "day": 1,
        "source": "auto",
    }


def _sentences(frames: list[dict[str, Any]]) -> list[str]:
    return [f["text"] for f in frames]


@pytest.mark.django_db(transaction=True)
async def test_a_card_and_a_pace_request_reach_the_player_as_sentences() -> None:
    game = await database_sync_to_async(make_game)(characters=("凯尔希", "阿米娅"))
    issued = await database_sync_to_async(services.character_passwords_generate)(
        game=game, director=None
    )
    password = {i.character.name: i.secret for i in issued}["凯尔希"]
    client = Client()
    assert (await database_sync_to_async(api_login)(client, game.number, password)).status_code
    socket, _hello = await socket_open(game, ORIGIN, session_cookie(client))
    me = await database_sync_to_async(lambda: game.characters.get(name="凯尔希").pk)()
    facts = await database_sync_to_async(_card_facts)(game, "阿米娅")
    mine = await database_sync_to_async(_card_facts)(game, "凯尔希")
    await database_sync_to_async(services.event_record)(
        game=game,
        events=[
            GameEvent("card", PUBLIC, facts),
            GameEvent("card", to_character(me), mine),
            GameEvent("pace_requested", to_character(me), {"day": 1, "kind": "speed_up"}),
        ],
    )
    frames = [await socket.receive_json_from(timeout=5) for _ in range(3)]
    await socket.disconnect()
    assert _sentences(frames) == [
        "阿米娅 被判黄牌（第 1 天）：12.1 讨论日发言不足",
        "你被判黄牌（第 1 天）：12.1 讨论日发言不足",
        "你已申请第 1 天加速",
    ]
    # The same sentences after a reconnect (the HTTP backfill), and no code word in any.
    backfill = await database_sync_to_async(client.get)(f"/api/games/{game.pk}/events")
    again = backfill.json()["events"]
    assert _sentences(again) == _sentences(frames)
    assert all(not CODE_WORD.search(text) for text in _sentences(again))


def _player_kinds_without_text(app: str) -> dict[str, list[str]]:
    """Kinds the app's code sends to players (``draft.to``/``draft.public``/a ``GameEvent`` not
    for the directors) whose payload is not a literal holding the engine's ``text``."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / app).rglob("*.py")):
        if "migrations" in path.parts:
            continue
        for call in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(call, ast.Call):
                continue
            name = getattr(call.func, "attr", None) or getattr(call.func, "id", None)
            index = {"to": 1, "public": 0, "GameEvent": 0}.get(str(name))
            if index is None or len(call.args) <= index:
                continue
            kind = call.args[index]
            if not (isinstance(kind, ast.Constant) and isinstance(kind.value, str)):
                continue
            if name == "GameEvent" and "DIRECTORS" in ast.unparse(call.args[1]):
                continue
            payload = call.args[index + 1] if len(call.args) > index + 1 else None
            if isinstance(payload, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value == "text" for k in payload.keys
            ):
                continue
            found.setdefault(kind.value, []).append(f"{path.relative_to(ROOT)}:{call.lineno}")
    return found


# Kinds whose payload is built in a variable that always holds ``text`` (read at the line).
TEXT_IN_VARIABLE = {"royale": {"auction_result"}, "werewolf": {"vote_reminder"}}


@pytest.mark.parametrize("app", ["royale", "werewolf"])
def test_every_kind_the_code_sends_players_has_a_sentence(app: str) -> None:
    unwritten = {
        kind: where
        for kind, where in _player_kinds_without_text(app).items()
        if eventlog.player_text_missing(app, kind, {}) and kind not in TEXT_IN_VARIABLE[app]
    }
    assert unwritten == {}
