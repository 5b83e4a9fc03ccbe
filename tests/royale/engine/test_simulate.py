"""The simulator plays whole games, days included, to the end, reproducibly.

A game: 40 bots, the schedule's 11 days; by day they vote, claim rewards, answer 阿呆's riddle (by
night), shop, bid, keep [252] stalls, give and trade, and the director writes riddles, stocks the
auction and answers exchange requests. Each ruleset's seed is one whose game lasts the whole
schedule, so the end of the schedule is what is checked.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from functools import cache

import pytest

from games.engine.events import GameEvent
from royale.engine import get_ruleset
from royale.engine.invariants import problems
from royale.engine.night import last_alone
from royale.engine.simulate import SimResult, main, play, report
from royale.engine.state import OVER, GameState

from .support import I256, K252

SEEDS = {I256: 0, K252: 75}


class Checked:
    def __init__(self, ruleset: str) -> None:
        self.found: list[str] = []
        self.steps: Counter[str] = Counter()
        self.res: SimResult = play(ruleset, 40, SEEDS[ruleset], keep_log=True, watch=self.watch)

    def watch(self, step: str, state: GameState) -> None:
        self.steps[step] += 1
        # Items bought, won, given or granted by day may take a player past 6 (RULINGS 10).
        self.found += [
            f"after {step} of day {state.day}: {p}" for p in problems(state, cap_items=False)
        ]


@cache
def checked(ruleset: str) -> Checked:
    """Each ruleset's game, played once for every test that reads it."""
    return Checked(ruleset)


@pytest.fixture(params=[I256, K252])
def game(request: pytest.FixtureRequest) -> Checked:
    return checked(request.param)


def totals(res: SimResult) -> Counter[str]:
    out: Counter[str] = Counter()
    for log in res.day_logs:
        out += log.counts
    return out


def players_alive(state: GameState) -> list[int]:
    return [c.id for c in state.characters.values() if c.alive and not c.npc]


def test_256_ends_after_its_11_days_with_one_place_left():
    game = checked(I256)
    s = game.res.state
    assert s.phase == OVER
    assert game.res.days == len(get_ruleset(I256).shrink_schedule) == 11
    # The schedule removes 36 of the 37 places (RULINGS 21), the safe zone 教堂 on night 2.
    left = [p.name for p in s.places.values() if not p.gone]
    assert len(left) == 1
    assert s.places["教堂"].gone_night == 2
    alive = players_alive(s)
    assert len(alive) <= 1
    # the survivor, or the last one out when it died alone (RULINGS 29)
    assert s.winner == (alive[0] if alive else last_alone(s.characters, s.deaths))


def test_252_everyone_left_dies_when_the_infinity_castle_vanishes_after_night_11():
    game = checked(K252)
    s = game.res.state
    assert s.phase == OVER
    assert game.res.days == len(get_ruleset(K252).shrink_schedule) == 11
    # 无限城 vanishes last: with it, every place is gone and whoever was left died together.
    assert s.places["无限城"].gone_night == 11
    assert all(p.gone for p in s.places.values())
    assert players_alive(s) == []
    assert s.winner == last_alone(s.characters, s.deaths)
    assert "缩圈" in {x.cause for x in s.deaths if x.day == 11}


def test_every_day_from_day_2_has_a_vote_result(game):
    days = [log.day for log in game.res.day_logs]
    assert days == list(range(1, game.res.days + 1))
    assert [log.day for log in game.res.day_logs if log.tallied] == days[1:]
    assert all(log.vote_top for log in game.res.day_logs[1:])


def test_every_day_has_its_event(game):
    assert all(log.events for log in game.res.day_logs)


def test_the_bots_take_part_in_the_economy(game):
    n = totals(game.res)
    assert n["shop_buy"] > 0
    assert n["shop_sell"] > 0
    assert n["lot_listed"] > 0
    assert n["bid"] > 0
    assert n["lot_sold"] > 0
    assert n["reward_claimed"] > 0
    assert n["gift"] > 0


def test_256_bots_answer_the_riddle():
    n = totals(checked(I256).res)
    assert n["riddle_answer"] > n["riddle_right"] > 0  # right and wrong guesses


def test_252_bots_keep_stalls():
    n = totals(checked(K252).res)
    assert n["stall_offer"] >= n["stall_sold"] > 0


def test_the_state_is_sound_at_every_step(game):
    assert game.steps["day_open"] == game.steps["night_close"] == game.res.days
    assert game.steps["day_close"] == game.res.days  # the day-close hooks run every day
    assert game.found == []


def test_the_same_seed_plays_the_same_game(game):
    again = play(game.res.ruleset, 40, game.res.seed, keep_log=True)
    assert again.state.to_json() == game.res.state.to_json()
    assert again.log == game.res.log


def test_the_report_tells_each_day(game):
    out = io.StringIO()
    report(game.res, out)
    text = out.getvalue()
    for log in game.res.day_logs:
        assert f"day {log.day:>2}: {'、'.join(log.events)}; vote top {log.vote_top or '-'}" in text
    for heading in ("deaths by day and cause", "final ranking", "actions/s", "per day: median"):
        assert heading in text


def test_cli(capsys):
    assert main(["--ruleset", "islington_256", "--bots", "8", "--seed", "1"]) == 0
    assert "final ranking" in capsys.readouterr().out


@pytest.mark.parametrize("ruleset", [I256, K252])
def test_every_event_of_a_whole_game_is_plain_json(ruleset):
    res = play(ruleset, 40, 11, keep_log=True)
    assert res.event_log
    for e in res.event_log:
        data = json.loads(json.dumps(e.to_json(), ensure_ascii=False))
        assert GameEvent.from_json(data) == e
    kinds = {e.kind for e in res.event_log if e.audience.kind == "public"}
    assert {"morning_report", "night_opened", "night_closed", "game_over"} <= kinds
