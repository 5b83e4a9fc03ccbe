"""The simulator plays whole games, days included, to the end, reproducibly.

A game: 40 bots, the schedule's 11 days ([252]: and on in 无限城 until one is left); by day
they vote, claim rewards, answer 阿呆's riddle (by night), shop, bid, keep [252] stalls, give
and trade, and the director writes riddles, stocks the auction and answers exchange requests.
Each ruleset's seed is one whose game lasts the whole schedule, so the end of the schedule is
what is checked. Then the bar over 20 seeds of each ruleset: games end with a winner, the
final place never vanishes, and every day has its event.
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
from royale.engine.simulate import Ending, SimResult, ending, endings_report, main, play, report
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


def test_252_the_game_goes_on_in_无限城_after_the_schedule_until_one_is_left():
    game = checked(K252)
    s = game.res.state
    assert s.phase == OVER
    assert game.res.days > len(get_ruleset(K252).shrink_schedule) == 11
    # 无限城固定为决赛地点: it never vanishes (RULINGS 23); the schedule took the 35 others.
    assert not s.places["无限城"].gone
    assert s.places_on_map() == ["无限城"]
    alive = players_alive(s)
    assert len(alive) == 1
    assert s.winner == alive[0]


def test_every_day_from_day_2_has_a_vote_result(game):
    days = [log.day for log in game.res.day_logs]
    assert days == list(range(1, game.res.days + 1))
    assert [log.day for log in game.res.day_logs if log.tallied] == days[1:]
    assert all(log.vote_top for log in game.res.day_logs[1:])


def test_every_day_has_its_event(game):
    # 每个白天将发生一随机事件 (RULINGS 25): a day event of its own, recurring ones aside.
    assert all(log.events and log.day_event for log in game.res.day_logs)


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


# --- the bar over many seeds ----------------------------------------------------------------------

BAR_SEEDS = range(1, 21)
BAR_WINNERS = 18  # of 20


@cache
def bar(ruleset: str) -> tuple[list[Ending], list[str]]:
    """20 games of a ruleset: how each ended, and every day lacking a day event of its own."""
    found, missing = [], []
    for seed in BAR_SEEDS:
        res = play(ruleset, 40, seed)
        found.append(ending(res))
        missing += [f"seed {seed} day {log.day}" for log in res.day_logs if not log.day_event]
    return found, missing


@pytest.mark.parametrize("ruleset", [I256, K252])
def test_at_least_18_of_20_games_end_with_a_winner(ruleset: str) -> None:
    found, _ = bar(ruleset)
    out = io.StringIO()
    endings_report(ruleset, found, out)
    winners = sum(1 for e in found if e.verdict == "winner")
    assert winners >= BAR_WINNERS, out.getvalue()


@pytest.mark.parametrize("ruleset", [I256, K252])
def test_the_final_place_never_vanishes_and_every_day_has_an_event(ruleset: str) -> None:
    found, missing = bar(ruleset)
    assert [e.seed for e in found if e.final_place_gone is not None] == []
    assert all(e.places_left >= 1 for e in found)
    assert missing == []


def test_the_endings_tally_is_printed(capsys):
    assert main(["--ruleset", "kimetsu_252", "--bots", "8", "--endings", "2"]) == 0
    out = capsys.readouterr().out
    assert "kimetsu_252 seed   1:" in out
    assert "kimetsu_252: " in out
    assert "with a winner" in out
