"""The log as directors read it: every event kind the code can emit has a Chinese sentence, in
北京时间, and the sentences reach the directors' live frames alone."""

from __future__ import annotations

import ast
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.test import Client

from games import eventlog, live
from games import services as game_services
from games.engine.events import DIRECTORS, PUBLIC, GameEvent
from games.models import Event, Game
from tests.conftest import ORIGIN, bj, make_game, session_cookie, socket_open

ROOT = Path(__file__).resolve().parents[2]
APPS = ("games", "royale", "werewolf")
EMITTERS = {"GameEvent": 0, "public": 0, "directors": 0, "to": 1}


# --- every kind the code can emit ------------------------------------------------------------


def _python_files() -> Iterator[Path]:
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def _emitter(call: ast.Call) -> int | None:
    """Where the kind stands among an emitting call's arguments (GameEvent, draft.to/…)."""
    func = call.func
    if isinstance(func, ast.Name) and func.id == "GameEvent":
        return 0
    if isinstance(func, ast.Attribute) and func.attr in EMITTERS and func.attr != "GameEvent":
        return EMITTERS[func.attr]
    return None


def _strings(node: ast.expr, constants: dict[str, str]) -> list[str] | None:
    """The kinds an argument can be: a string, a module constant, either branch of an if."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in constants:
        return [constants[node.id]]
    if isinstance(node, ast.IfExp):
        a, b = _strings(node.body, constants), _strings(node.orelse, constants)
        return a + b if a is not None and b is not None else None
    return None


def emitted_kinds() -> tuple[dict[str, set[str]], list[str]]:
    """Every event kind each app's code can log, by app; and the emitting calls whose kind
    could not be read (a new way of choosing a kind the scan must learn)."""
    trees = {path: ast.parse(path.read_text()) for path in _python_files()}
    found: dict[str, set[str]] = {app: set() for app in APPS}
    unread: list[str] = []
    # Functions that pass one of their parameters on as the kind: (name -> index, parameter).
    relays: dict[str, tuple[int, str]] = {}
    for path, tree in trees.items():
        app = path.relative_to(ROOT).parts[0]
        constants = {
            t.id: n.value.value
            for n in tree.body
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
            for t in n.targets
            if isinstance(t, ast.Name) and isinstance(n.value.value, str)
        }
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef):
                continue
            params = [a.arg for a in (*func.args.args, *func.args.kwonlyargs)]
            for call in ast.walk(func):
                if not isinstance(call, ast.Call) or (index := _emitter(call)) is None:
                    continue
                arg = call.args[index] if len(call.args) > index else None
                if arg is None:
                    continue
                kinds = _strings(arg, constants)
                if kinds is not None:
                    found[app].update(kinds)
                elif isinstance(arg, ast.Name) and arg.id in params:
                    if func.name not in EMITTERS:  # the draft's own to/public/directors
                        relays[func.name] = (params.index(arg.id), arg.id)
                else:
                    unread.append(f"{path.relative_to(ROOT)}:{call.lineno}: {ast.unparse(arg)}")
    for path, tree in trees.items():
        app = path.relative_to(ROOT).parts[0]
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call):
                continue
            name = getattr(call.func, "attr", None) or getattr(call.func, "id", None)
            if name not in relays:
                continue
            index, param = relays[name]
            given = [k.value for k in call.keywords if k.arg == param]
            if len(call.args) > index:
                given.append(call.args[index])
            for node in given:
                kinds = _strings(node, {})
                if kinds is not None:
                    found[app].update(kinds)
    return found, unread


def _werewolf_announcements() -> set[str]:
    """Kinds named by the role games' ruleset data (a skill's forfeit announcement)."""
    kinds = set()
    for path in (ROOT / "werewolf" / "rulesets").glob("*.json"):
        for skill in json.loads(path.read_text())["skills"].values():
            if skill.get("forfeit_announce"):
                kinds.add(skill["forfeit_announce"])
    return kinds


# Calls whose kind comes from ruleset data (read by _werewolf_announcements).
FROM_DATA = ("skill.forfeit_announce", "sk.forfeit_announce")


def test_every_event_kind_the_code_can_emit_has_a_sentence_of_its_own() -> None:
    found, unread = emitted_kinds()
    assert [u for u in unread if not u.endswith(FROM_DATA)] == []
    found["werewolf"] |= _werewolf_announcements()
    assert {"phase_changed", "dice_rolled", "searched", "attack", "submitted"} <= set().union(
        *found.values()
    )
    missing = {
        (game_kind, kind)
        for app, kinds in found.items()
        for game_kind in (("royale", "werewolf") if app == "games" else (app,))
        for kind in kinds
        if eventlog.text_for(game_kind, kind) is eventlog.UNKNOWN
    }
    assert missing == set()


@pytest.mark.django_db
def test_an_unknown_kind_is_still_a_chinese_sentence_never_its_data(director: Any) -> None:
    game = make_game()
    secret = {"code": "weird_thing", "item": 174, "at": 1793457000}
    [row] = game_services.event_record(
        game=game, events=[GameEvent("weird_thing", DIRECTORS, secret)], director=director
    )
    [line] = eventlog.event_lines(game=game, events=[row])
    assert (line.text, line.kind_label, line.kind) == ("（未归类事件）", "其他", "weird_thing")
    assert line.director == director.username
    assert eventlog.event_sentence(row) == "（未归类事件）"


# --- the core's sentences, times and days ----------------------------------------------------


def test_times_are_beijing_time_whatever_the_zone_given() -> None:
    utc = dt.datetime(2026, 12, 1, 13, 10, 5, tzinfo=dt.UTC)
    assert eventlog.at_text(utc) == "12月1日 21:10:05"
    assert eventlog.iso_text(utc.isoformat()) == "12月1日 21:10"
    assert eventlog.epoch_text(utc.timestamp()) == "12月1日 21:10"
    assert eventlog.iso_text("not a time") == ""


@pytest.mark.django_db
def test_the_cores_events_read_as_sentences_with_the_day_walked_from_the_log(
    director: Any,
) -> None:
    game = make_game(characters=("河城荷取", "琪露诺"))
    game_services.transitions_run_due(now=bj(1, 21, 12))  # day 1 open … night 1 open
    value = game_services.dice_roll(
        game=game, director=director, purpose="空投地点", sides=6, reason="抽空投"
    )
    game_services.game_pause(game=game, director=director, paused=True, reason="查看")
    game_services.character_passwords_generate(game=game, director=director)
    rows = list(Event.objects.filter(game=game).order_by("seq"))
    lines = {line.kind: line for line in eventlog.event_lines(game=game, events=rows)}
    dice = lines["dice_rolled"]
    assert dice.text == f"导演掷骰「空投地点」：6 面骰掷出 {value}"
    assert (dice.kind_label, dice.audience_label, dice.reason) == ("掷骰", "公开", "抽空投")
    assert dice.director == director.username
    assert (dice.day, dice.phase_label) == (1, "第 1 天 · 夜间行动")
    assert lines["game_paused"].text.startswith("导演暂停了游戏")
    assert lines["passwords_generated"].text == "为 河城荷取、琪露诺 生成登录密码"
    phases = [line.text for line in eventlog.event_lines(game=game, events=rows)][:3]
    assert "第 1 天开门，进入「白天」阶段" in phases
    # A page of the log that starts later still knows its day (one look back).
    later = eventlog.event_lines(game=game, events=[r for r in rows if r.kind == "game_paused"])
    assert (later[0].day, later[0].phase_label) == (1, "第 1 天 · 夜间行动")
    assert eventlog.event_sentence(rows[-1]) == "为 河城荷取、琪露诺 生成登录密码"


@pytest.mark.django_db
def test_a_character_added_after_the_first_frame_is_named_in_later_frames() -> None:
    game = make_game(characters=("甲",))
    game_services.event_record(game=game, events=[GameEvent("game_resumed", PUBLIC, {})])
    game.characters.create(name="新来的")
    newcomer = game.characters.get(name="新来的")
    event = GameEvent(
        "pace_requested", DIRECTORS, {"day": 1, "kind": "speed_up", "character": newcomer.pk}
    )
    [row] = game_services.event_record(game=game, events=[event])
    frame = live.frame_for_director(Event.objects.get(pk=row.pk))
    assert frame["text"] == "新来的 申请第 1 天加速"
    assert frame["character_ids"] == [newcomer.pk]


# --- the live frames -------------------------------------------------------------------------


@pytest.mark.django_db
def test_only_the_directors_frames_carry_the_log_line() -> None:
    game = make_game(characters=("甲", "乙"))
    a = game.characters.get(name="甲")
    rows = game_services.event_record(
        game=game,
        events=[
            GameEvent("dice_rolled", PUBLIC, {"purpose": "d", "sides": 6, "value": 3}),
            GameEvent(
                "pace_requested", DIRECTORS, {"day": 1, "kind": "speed_up", "character": a.pk}
            ),
        ],
    )
    messages = dict(live.messages_for(rows))
    directors = messages[live.group_directors(game.pk)]
    assert "text" not in directors[0]  # rendered when sent, after the commit
    messages = dict(live.frames_complete(list(messages.items())))
    directors = messages[live.group_directors(game.pk)]
    assert [f["text"] for f in directors] == ["导演掷骰：6 面骰掷出 3", "甲 申请第 1 天加速"]
    assert directors[1]["audience_label"] == "导演"
    assert directors[0]["at_text"] == eventlog.at_text(rows[0].created_at)
    # A player's frame carries the player's sentence of a core event, none of the rest.
    rendered = {"kind_label", "at_text", "step", "audience_label", "character_ids"}
    for group, frames in messages.items():
        if group != live.group_directors(game.pk):
            assert all(not rendered & set(f) for f in frames), group
    [public] = messages[live.group_public(game.pk)]
    assert public["text"] == "导演掷骰：6 面骰掷出 3"


@pytest.mark.django_db(transaction=True)
def test_a_directors_socket_receives_sentences(director: Any) -> None:
    game = make_game()
    game.directors.add(director)
    client = Client()
    client.force_login(director)

    async def run() -> dict[str, Any]:
        communicator, _ = await socket_open(game, ORIGIN, session_cookie(client))
        await _record(game)
        frame = await communicator.receive_json_from(timeout=5)
        await communicator.disconnect()
        return dict(frame)

    frame = async_to_sync(run)()
    assert frame["text"] == "导演掷骰「开局」：20 面骰掷出 7"
    assert frame["kind_label"] == "掷骰"


async def _record(game: Game) -> None:
    from asgiref.sync import sync_to_async

    await sync_to_async(game_services.event_record)(
        game=game,
        events=[GameEvent("dice_rolled", PUBLIC, {"purpose": "开局", "sides": 20, "value": 7})],
    )
