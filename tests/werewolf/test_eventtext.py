"""The role game's log sentences: a scripted [099] night and day through the services, read as
the directors read it — each player with its role, the ruleset's names, 北京时间."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
import time_machine
from django.utils import translation

from games import eventlog
from games import services as game_services
from games.models import Event, Game
from tests.conftest import bj
from tests.werewolf.players import lin_feng_day_1, lin_feng_draft, players, werewolf_game
from werewolf import services, store
from werewolf.engine import tally

pytestmark = pytest.mark.django_db

NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)  # 10月31日 22:00 北京时间
RAW = re.compile(r"[a-z]+_[a-z_]+|[{}]|\bNone\b|%\(|\b1[0-9]{9}\b")


def _played(director: Any) -> tuple[Game, dict[int, int]]:
    """Night 1: the wolves elect P1 and kill P11 (猎人), the 白眼狼 kills P15 whom the guard
    protects, the seer checks P1, the lover admires P10, the witch keeps her potions; day 1:
    P11 shoots P2, the vote puts out P14 (梦中人), and night 2 opens at the close."""
    game, ids = werewolf_game()
    cast = players(game)
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    with time_machine.travel(NIGHT_1 + dt.timedelta(minutes=5), tick=False):
        for wolf in (1, 2, 3, 4):
            cast[wolf].use("elect", ids[1])
        cast[1].use("wolf_kill", ids[11])
        cast[5].use("white_kill", ids[15])
        cast[6].use("divine", ids[1])
        cast[8].use("protect", ids[15])
        cast[9].use("admire", ids[10])
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=31))
    with time_machine.travel(NIGHT_1 + dt.timedelta(minutes=35), tick=False):
        assert cast[7].act("forgo", skill="save").status_code == 200
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62))
    with time_machine.travel(bj(1, 8), tick=False):
        game_services.transitions_run_due(now=bj(1, 8))
        services.werewolf_night_publish(game=game, director=director, reason="")
    with time_machine.travel(bj(1, 8, 10), tick=False):
        cast[11].use("last_shot", ids[2])
    totals = tally(store.state_load(game), {ids[s]: ids[14] for s in (5, 6, 7, 8, 9)})
    with time_machine.travel(bj(1, 20), tick=False):
        services.werewolf_day_vote(game=game, director=director, totals=totals)
    with time_machine.travel(bj(1, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 21, 1))
    return Game.objects.get(pk=game.pk), ids


def _lines(game: Game) -> list[eventlog.LogLine]:
    return eventlog.event_lines(game=game, events=Event.objects.filter(game=game))


def test_a_night_reads_with_roles_and_the_rulesets_names(director: Any) -> None:
    game, ids = _played(director)
    lines = _lines(game)
    texts = [line.text for line in lines]
    assert "先知 P6 提交[预言]：P1" in texts
    assert "狼人 P1 为团队提交[杀人]：P11" in texts
    assert "选举结果：狼人 P1 成为主刀狼（得票：P1 4）" in texts
    assert "女巫 P7 [通灵]得知今晚的有效指杀目标：P11、P15" in texts
    assert "先知 P6 的查验结果：P1 是狼人" in texts
    assert "第 1 天开门：昨夜出局 P11" in texts
    assert "猎人P11发动[最后一枪]，P2出局。" in texts  # the post's own line
    assert "P14（梦中人）出局：投票" in texts
    assert "情痴 P9 的「情痴行动」开始，截止 10月31日 22:30" in texts  # 关门 + 30 min, 北京时间
    divine = next(line for line in lines if line.text == "先知 P6 的查验结果：P1 是狼人")
    assert divine.audience_label == "仅 P6"
    assert set(divine.character_ids) == {ids[6], ids[1]}
    assert divine.kind_label == "夜晚反馈"
    draft = next(line for line in lines if line.kind == "night_draft")
    assert draft.text.startswith("第 1 天夜晚结算草稿：出局 P11（杀人）。过程：")
    assert "P15受到守卫，指杀无效。" in draft.text


def test_the_days_follow_the_role_games_night_then_day(director: Any) -> None:
    game, _ = _played(director)
    lines = _lines(game)
    first_kill = next(line for line in lines if line.kind == "team_pick")
    assert first_kill.phase_label == "第 1 天 · 夜间行动"  # night 1 comes before day 1
    vote = next(line for line in lines if line.kind == "vote_result")
    assert vote.phase_label == "第 1 天 · 白天"
    last = lines[-1]
    assert last.day == 2


def test_every_event_of_the_game_has_its_own_sentence(director: Any) -> None:
    game, _ = _played(director)
    lines = _lines(game)
    for line in lines:
        assert line.kind_label != "其他", line
        assert "内容无法解读" not in line.text, line
        assert not RAW.search(line.text), line
    steps = [line for line in lines if line.step]
    assert steps
    assert all(line.kind == "engine_step" for line in steps)
    assert "引擎步骤：P6 的行动（发动技能[预言]）" in [line.text for line in steps]


def test_a_061_log_has_no_auction_words_and_names_the_prelude_the_opening_night(
    director: Any,
) -> None:
    """[061] has no 竞拍贴: a role card's line names no 表演/挡刀; the night before day 1 is the
    开局夜 in every sentence and phase label, never 第 0 天/夜."""
    game, _ = lin_feng_draft(director)
    services.werewolf_setup(game=game)
    game_services.game_start(game=game, director=director, now=NIGHT_1)
    lin_feng_day_1(game, director, NIGHT_1)
    lines = _lines(Game.objects.get(pk=game.pk))
    cards = [line.text for line in lines if line.kind == "role_card"]
    assert len(cards) == 19
    assert not [t for t in cards if "表演" in t or "挡刀" in t]
    for line in lines:
        assert "第 0 " not in line.text, line.text
        assert "第 0 " not in line.phase_label, line.phase_label
    assert any("开局夜" in line.text for line in lines)


CJK_PUNCTUATION = re.compile(r"[\u3000-\u303f\uff00-\uffef]")  # 、。「」 and ，：（）；…


def test_in_english_the_log_reads_with_english_punctuation(director: Any) -> None:
    """Lists, asides and counts are the catalogue's (", ", " (…)", "1 vote"), not glued in
    Chinese around the translated words; a post's own line (``text``) stays as it was posted."""
    game, _ids = _played(director)
    events = Event.objects.filter(game=game)
    own_words = {e.seq for e in events if e.payload.get("text") or e.kind == "night_draft"}
    with translation.override("en"):
        lines = [line for line in _lines(game) if line.seq not in own_words]
    texts = [line.text for line in lines]
    assert [t for t in texts if CJK_PUNCTUATION.search(t)] == []
    assert any(t.startswith("Roles dealt: ") and ", " in t for t in texts), texts
    sense = next(t for t in texts if "P11, P15" in t)
    assert "[通灵]" in sense  # the ruleset's skill names stay as the rule post spells them
    assert any(re.search(r"P14 5 votes\b", t) for t in texts), texts


@pytest.mark.parametrize(
    ("stored", "shown"), [("9/2", "4.5"), ("5/2", "2.5"), ("3", "3"), ("10/3", "3.33")]
)
def test_a_weighted_total_reads_as_a_number(stored: str, shown: str) -> None:
    """神眷者的投票计为1.5票: a total of 4.5 reads 4.5 on the portal and in the log, not the
    stored fraction 9/2."""
    from werewolf.eventtext import player_line

    frame = {
        "kind": "vote_result",
        "payload": {"day": 2, "totals": [[1, "侦探1", stored]], "tie": False},
    }
    assert player_line(frame) == f"第 2 天投票：侦探1 {shown}"
    assert eventlog.votes_text("侦探1", stored) == f"侦探1 {shown} 票"
