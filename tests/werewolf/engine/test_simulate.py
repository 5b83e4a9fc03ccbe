"""The simulator plays whole games with the engine's bots and reports figures that add up."""

from __future__ import annotations

import pytest

from werewolf.engine.ruleset import get_ruleset
from werewolf.engine.simulate import main, report, simulate, untaken


@pytest.mark.parametrize("ruleset", ["lin_feng_061", "arknights_099"])
def test_every_simulated_game_ends_and_the_win_shares_sum_to_one(ruleset: str) -> None:
    figures = simulate(ruleset, 4)
    assert figures.capped == 0  # every game ended before the cap
    assert sum(figures.wins.values()) == 4
    factions = set(get_ruleset(ruleset).factions)
    assert set(figures.wins) <= factions | {""}
    assert sum(figures.share(f) for f in [*factions, ""]) == pytest.approx(1.0)
    assert len(figures.days) == 4
    assert all(d >= 1 for d in figures.days)
    assert figures.nights_ms
    assert all(ms > 0 for ms in figures.nights_ms)
    lines = "\n".join(report(figures))
    for faction in get_ruleset(ruleset).factions.values():
        assert faction.name in lines  # the ruleset's Chinese faction names


def test_the_same_seeds_give_the_same_games() -> None:
    a, b = simulate("lin_feng_061", 3), simulate("lin_feng_061", 3)
    assert (a.wins, a.days) == (b.wins, b.days)


def test_the_command_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--ruleset", "lin_feng_061", "--games", "2"]) == 0
    out = capsys.readouterr().out
    for figure in ("宝藏阵营", "days per game", "engine time per night"):
        assert figure in out


def test_the_096_bots_use_every_skill_a_player_submits() -> None:
    """[096]'s bots play every window and choice (许愿 and its effect, 援护, the relic passes,
    腐化, 虚体, 蛇发诅咒 …): over 150 seeded games no submitted skill is left unused (招魂术
    is the rarest: its 死灵法师 exists only once the 巫师 has flipped)."""
    figures = simulate("conan_096", 150)
    assert figures.capped == 0
    assert untaken(figures) == []
    assert figures.paths["skill:wish_effect"] > 0
    assert any(k.startswith("flip:") for k in figures.paths)
    assert "skills never used: none" in "\n".join(report(figures))
