"""[096] 名侦探柯南: what a player's own view says of the 亡灵圣物 and of its statuses — only what
the post tells it (RULINGS 096-15/16), never the curse count, never before it is told."""

from __future__ import annotations

from werewolf.engine import night_open
from werewolf.engine.views import player_view

from .support import MIN, rng
from .support_061 import submit as act
from .support_096 import DRYAD, ELVES, GOLEM, WIZARD, WOLVES, close_at, game, play, vote
from .test_096_relic import holding, opened
from .test_096_status import awake
from .test_096_status import game as no_relic

E1, E2, E3 = ELVES[:3]


def _relic(state: object, pid: int) -> object:
    return player_view(state, pid)["conan_relic"]  # type: ignore[arg-type]


def _statuses(state: object, pid: int) -> dict[str, str]:
    return dict(player_view(state, pid)["conan_status"]["statuses"])  # type: ignore[arg-type]


def test_a_hide_recipient_is_not_shown_the_relic_until_a_notice_tells_it() -> None:
    """藏匿's recipient is not told (RULINGS 15); cursed to a 腐尸 at the open, 灾厄 tells it at
    the night's end: from then its view says it holds the relic, and nobody else's does."""
    state = game()
    state, _ = act(state, (WOLVES[0], "hide", E1), close_at(state) - 10 * MIN)
    state, _ = night_open(state, rng(), close_at(state))
    assert state.flags["relic"]["holder"] == E1
    assert _relic(state, E1) is None
    state, _ = play(holding(game(), E1))  # cursed at the open, 灾厄 at the end
    mine = player_view(state, E1)["conan_relic"]
    assert mine["held"] is True
    assert mine["why"] == "灾厄"
    assert "curses" not in mine  # the count is told to no one
    assert all(_relic(state, p) is None for p in state.players if p != E1)


def test_a_holder_that_passes_the_relic_no_longer_reads_it_and_the_recipient_is_not_told() -> None:
    state, _ = play(holding(game(), E1))
    state, _ = act(state, (E1, "calamity", E2), opened(state) + MIN)
    assert _relic(state, E1) is None
    assert _relic(state, E2) is None  # 灾厄's recipient is not told


def test_the_tower_holders_notice_shows_the_relic() -> None:
    state, _ = play(holding(game(), GOLEM))  # the golem is immune by 共鸣: it stays a 生灵
    assert player_view(state, GOLEM)["conan_relic"]["held"] is True


def test_a_voted_out_holder_reads_the_relic_with_its_gift_window_and_the_days_open_deadline() -> (
    None
):
    state, _ = play(holding(game(), E1))
    state, _ = vote(state, [(E2, E1)])
    view = player_view(state, E1)
    assert view["conan_relic"]["held"] is True
    gift = next(u for u in view["usable"] if u["skill"] == "gift")
    assert gift["closes"] == "day_open"
    assert gift["draw_day"] == state.day + 1


def test_bound_shows_at_once_a_sheep_only_from_the_days_open() -> None:
    """束缚 binds the night's later submissions: told and shown at once; 变羊 is told at the
    day's open (a pick may still change before), and then shown until the game ends."""
    state = awake(no_relic())
    state, _ = night_open(state, rng(), close_at(state))
    state, _ = act(state, (DRYAD, "entangle", E1), close_at(state) + MIN)
    assert _statuses(state, E1) == {"bound": "束缚"}
    state, _ = act(state, (WIZARD, "sheep", E2), close_at(state) + 2 * MIN)
    assert state.players[E2].statuses.get("sheep")
    assert _statuses(state, E2) == {}
    state, _ = play(awake(no_relic()), [(WIZARD, "sheep", E2)])
    assert _statuses(state, E2) == {"sheep": "变羊"}
    assert _statuses(state, E3) == {}
