"""The simulator plays whole games to the end, reproducibly."""

from __future__ import annotations

import io
import json

import pytest

from games.engine.events import GameEvent
from royale.engine.simulate import main, play, report
from royale.engine.state import OVER


@pytest.mark.parametrize("ruleset", ["islington_256", "kimetsu_252"])
def test_a_40_bot_game_ends(ruleset):
    res = play(ruleset, 40, 7)
    assert res.state.phase == OVER
    assert res.applied > 1000
    players = [c for c in res.state.characters.values() if not c.npc]
    assert len(res.state.deaths) >= len(players) - 1
    out = io.StringIO()
    report(res, out)
    text = out.getvalue()
    assert "deaths by day and cause" in text
    assert "final ranking" in text
    assert "actions/s" in text


def test_same_seed_same_game():
    a = play("kimetsu_252", 12, 3, keep_log=True)
    b = play("kimetsu_252", 12, 3, keep_log=True)
    assert a.state.to_json() == b.state.to_json()
    assert a.log == b.log


def test_cli(capsys):
    assert main(["--ruleset", "islington_256", "--bots", "8", "--seed", "1"]) == 0
    assert "final ranking" in capsys.readouterr().out


@pytest.mark.parametrize("ruleset", ["islington_256", "kimetsu_252"])
def test_every_event_of_a_whole_game_is_plain_json(ruleset):
    res = play(ruleset, 40, 11, keep_log=True)
    assert res.event_log
    for e in res.event_log:
        data = json.loads(json.dumps(e.to_json(), ensure_ascii=False))
        assert GameEvent.from_json(data) == e
    kinds = {e.kind for e in res.event_log if e.audience.kind == "public"}
    assert {"morning_report", "night_opened", "night_closed", "game_over"} <= kinds
