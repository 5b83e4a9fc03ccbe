"""The royale's log sentences: what a director reads for each event of a [256]/[252] game, with
the names of the rule posts' data; and none of it reaches a player."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async
from django.utils import timezone

from games import eventlog
from games import services as game_services
from games.models import Event, Game
from royale import demo
from royale.engine import get_ruleset
from royale.engine.simulate import play
from royale.eventtext import Lookup
from tests.conftest import SocketReader, bj
from tests.royale.conftest import admin_client, control, control_room, give, state_of

# What a human must never read: a snake_case code, JSON, a Python None, an unfilled template.
RAW = re.compile(r"[a-z]+_[a-z_]+|[{}]|\bNone\b|%\(|\bTrue\b|\bFalse\b")


def humane(line: eventlog.LogLine) -> None:
    assert line.kind_label != "其他", line
    assert "内容无法解读" not in line.text, line
    assert "未知道具" not in line.text, line
    assert not RAW.search(line.text), line


def lines_of(game: Game, **filters: Any) -> list[eventlog.LogLine]:
    rows = Event.objects.filter(game=game, **filters)
    return eventlog.event_lines(game=game, events=rows)


@pytest.mark.django_db
def test_a_search_of_the_church_reads_with_both_names(director: Any, at_night_one: Any) -> None:
    game, cast, _ = control_room(director, {"河城荷取": "教堂", "琪露诺": "教堂"})
    cast["河城荷取"].act("search")
    mine, theirs = lines_of(game, kind="searched")
    assert theirs.text == "河城荷取 在【教堂】搜索：发现 琪露诺"
    assert (theirs.kind_label, theirs.audience_label) == ("搜索", "导演")
    assert set(theirs.character_ids) == {cast["河城荷取"].id, cast["琪露诺"].id}
    # What the searcher itself was told (fog): no name, and its own audience.
    assert mine.text == "河城荷取 在【教堂】搜索：发现一名角色（对其只显示为未知角色）"
    assert mine.audience_label == "仅 河城荷取"
    assert (theirs.day, theirs.phase_label) == (1, "第 1 天 · 夜间行动")
    assert re.fullmatch(r"11月1日 21:12:\d\d", theirs.at_text)


@pytest.mark.django_db
def test_an_attack_reads_with_its_damage_and_the_targets_hp(
    director: Any, at_night_one: Any
) -> None:
    game, cast, _ = control_room(director, {"河城荷取": "钟楼", "琪露诺": "钟楼"})
    found = cast["琪露诺"].act("search").json()
    cast["琪露诺"].act("attack", handle=found["me"]["found"]["handle"])
    [attack] = lines_of(game, kind="attack")
    assert attack.text == "琪露诺 在【钟楼】徒手攻击 河城荷取，造成 5 点伤害（生命 100→95）"
    [hit] = lines_of(game, kind="hit")
    assert (hit.text, hit.audience_label) == ("河城荷取 受到 5 点伤害，生命剩 95", "仅 河城荷取")
    [result] = lines_of(game, kind="attack_result")
    assert result.text == "琪露诺 得知攻击结果：命中目标"


@pytest.mark.django_db
def test_items_are_named_as_the_ruleset_names_them(director: Any, at_night_one: Any) -> None:
    game, cast, _ = control_room(director, {"河城荷取": "钟楼"})
    give(game, "河城荷取", "supply:[HP30]精油")
    [iid] = [i for i in state_of(game).characters[cast["河城荷取"].id].pack]
    cast["河城荷取"].act("drop", item=iid)
    texts = [line.text for line in lines_of(game, kind="dropped")]
    assert texts == ["河城荷取 在【钟楼】丢弃【[HP30]精油】"] * 2
    rs = get_ruleset("islington_256")
    blue = next(k for k in rs.kinds.values() if k.category == "weapon" and k.tier == "blue")
    ctx = eventlog.log_context(game)
    assert eventlog.text_for("royale", "x").label == "其他"
    assert blue.name in eventlog.text_for("royale", "item_created").text(
        {"item": 999_999, "kind": blue.key, "why": "director"}, ctx
    )


@pytest.mark.django_db
def test_engine_steps_are_flagged_and_read_as_a_short_line(
    director: Any, at_night_one: Any
) -> None:
    game, cast, _ = control_room(director, {"河城荷取": "钟楼"})
    cast["河城荷取"].act("search")
    step = lines_of(game, kind="engine_step")[-1]
    assert step.step
    assert step.text == "引擎步骤：河城荷取 的行动（搜索）"
    assert [line.step for line in lines_of(game, kind="searched")] == [False, False]


@pytest.mark.django_db
def test_a_directors_intervention_names_who_and_why(director: Any, at_night_one: Any) -> None:
    game, cast, client = control_room(director, {"河城荷取": "钟楼"})
    response = client.post(
        control(game, "relocate/"),
        {"character": cast["河城荷取"].id, "place": "医院", "reason": "误入"},
    )
    assert response.status_code in (200, 302)
    [line] = lines_of(game, kind="intervention")
    assert line.text == "导演把 河城荷取 从【钟楼】移到【医院】"
    assert (line.director, line.reason) == (director.username, "误入")


@pytest.mark.django_db
def test_a_simulated_game_of_each_ruleset_reads_entirely_in_chinese() -> None:
    """Whole engine games (days, market, events, NPCs): every event has its own sentence."""
    for ruleset, seed in (("islington_256", 10), ("kimetsu_252", 7)):
        result = play(ruleset, 40, seed, keep_log=True)
        game = Game(pk=10_000 + seed, kind="royale", ruleset=ruleset, day=1, phase="night")
        lookup = Lookup(game=game, rs=get_ruleset(ruleset))
        lookup.kinds.update({iid: it.kind for iid, it in result.state.items.items()})
        names = {cid: c.name for cid, c in result.state.characters.items()}
        ctx = eventlog.LogContext(game=game, names=names, extra=lookup)
        kinds = set()
        for seq, e in enumerate(result.event_log, start=1):
            row = Event(
                game=game,
                seq=seq,
                kind=e.kind,
                audience=e.audience.kind,
                audience_character_id=e.audience.character,
                actor_id=e.actor,
                payload=json.loads(json.dumps(e.payload)),
                created_at=timezone.now(),
            )
            humane(eventlog.event_line_for_frame(row, ctx))
            kinds.add(e.kind)
        assert {"attack", "morning_report", "vote_result", "game_over"} <= kinds


@pytest.mark.django_db
@pytest.mark.day_events
def test_the_demo_played_through_the_services_reads_entirely_in_chinese() -> None:
    with time_machine.travel(bj(1, 21, 12), tick=False):
        game = demo.demo_load(now=bj(1, 21, 12)).game
    brain = random.Random(3)
    for day in (1, 2, 3):
        with time_machine.travel(bj(day, 21, 12), tick=False):
            game_services.transitions_run_due(now=bj(day, 21, 12))
            demo.bots_act(now=bj(day, 21, 13), per_bot=3, brain=brain)
        with time_machine.travel(bj(day + 1, 9), tick=False):
            game_services.transitions_run_due(now=bj(day + 1, 9))
    lines = lines_of(Game.objects.get(pk=game.pk))
    for line in lines:
        humane(line)
    kinds = {line.kind for line in lines}
    assert {"phase_changed", "announcement", "engine_step", "searched", "day_event"} <= kinds
    days = [line.day for line in lines]
    assert days == sorted(days, key=lambda d: d or 0)  # walked in order, never back


# --- nothing of it reaches a player ----------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_no_player_receives_a_sentence_nor_anothers_private_line(director: Any) -> None:
    with time_machine.travel(bj(1, 21, 12), tick=False):
        game, cast, _ = await database_sync_to_async(control_room)(
            director, {"甲": "监狱", "乙": "监狱", "丙": "医院"}
        )
        reader = SocketReader(game, cast["乙"])
        await reader.connect()
        whisper = await database_sync_to_async(cast["甲"].act)("whisper", target="丙", text="秘密")
        assert whisper.status_code == 200
        await database_sync_to_async(cast["甲"].act)("search")
        frames = await reader.drain()
        events = await database_sync_to_async(cast["乙"].client.get)(f"/api/games/{game.pk}/events")
    got = json.dumps([*frames, events.json()], ensure_ascii=False)
    for key in ("kind_label", "at_text", "audience_label", "character_ids"):
        assert f'"{key}"' not in got
    sentences = await database_sync_to_async(lambda: [line.text for line in lines_of(game)])()
    private = [s for s in sentences if "传音" in s or "搜索" in s]
    assert private
    assert all(s not in got for s in private)
    assert "秘密" not in got


@pytest.mark.django_db
def test_the_control_room_fetches_its_history_as_sentences(
    director: Any, at_night_one: Any
) -> None:
    game, cast, _ = control_room(director, {"河城荷取": "教堂", "琪露诺": "教堂"})
    cast["河城荷取"].act("search")
    client = admin_client(director)
    frames = client.get(f"/api/games/{game.pk}/events").json()["events"]
    texts = [f["text"] for f in frames]
    assert "河城荷取 在【教堂】搜索：发现 琪露诺" in texts
    assert all(f["at_text"] and f["kind_label"] for f in frames)
