"""[096] 名侦探柯南 on the portal (``WEREWOLF_PREVIEW_RULESETS``), through real HTTP on a game a
director prepared: the player's own facts the post says it knows — the 亡灵圣物 once a notice
tells it (never the curse count), its own 束缚/变羊/石化 with what each asks of it — and the day
windows with their controls and deadlines: 许愿's effect (a select 1/2/3 and an optional
target), 灾厄 (until the night's open), 馈赠 (drawn at the next day's open), 腐化. Other
players' pages show none of it."""

from __future__ import annotations

import re
from typing import Any

import pytest
import time_machine

from games import services as game_services
from tests.conftest import bj
from tests.werewolf.engine.support_096 import (
    DRYAD,
    ELVES,
    GENIE,
    GOLEM,
    MEDUSA,
    SEATS,
    WIZARD,
    WOLVES,
)
from tests.werewolf.test_pages_096 import _client, _day_1, _text
from werewolf import services, store

pytestmark = pytest.mark.django_db

E1, E2, E3, E4, E5 = ELVES[:5]


def _night_1(game: Any, director: Any, passwords: dict[str, str], ids: dict[int, int]) -> None:
    """关门 of day 1: night 1 opens (藏匿 applied, the curse at its open)."""
    with time_machine.travel(bj(1, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 21, 1))
    assert store.state_load(game).phase == "night"


def _publish(game: Any, director: Any) -> None:
    """Every step past (22:16), the draft published: day 2 opens."""
    services.werewolf_deadlines_run(now=bj(1, 22, 16))
    with time_machine.travel(bj(1, 22, 20), tick=False):
        services.werewolf_night_publish(game=game, director=director, reason="核对无误")
    assert store.state_load(game).phase == "day"


def _hide(game: Any, passwords: dict[str, str], ids: dict[int, int], seat: int) -> None:
    with time_machine.travel(bj(1, 12), tick=False):
        wolf = _client(game, passwords, WOLVES[0])
        page = _text(wolf, game, op="use_skill", skill="hide", target=str(ids[seat]), key="hide")
        assert "已提交。" in page


def _others(
    game: Any, passwords: dict[str, str], but: set[int], *words: str, when: Any = None
) -> None:
    """No page but ``but``'s shows any of ``words`` (in its text or its HTML)."""
    with time_machine.travel(when or bj(2, 12), tick=False):
        for seat in SEATS:
            if seat in but:
                continue
            c = _client(game, passwords, seat)
            raw = c.get(f"/play/{game.number}/me/").content.decode()
            page = _text(c, game)
            for word in words:
                assert word not in page, (seat, word)
                assert word not in raw, (seat, word)


def test_a_wished_player_chooses_its_effect_on_the_portal(director: Any, settings: Any) -> None:
    """许愿：令该角色从如下效果中选择一项执行 — the wished one's page offers the three effects
    (a select) with an optional target and the window's deadline; effect 2's answer is its
    own. 缠绕's 束缚 shows at once to the bound one with what it asks; 魔眼's 石化 from day 2's
    open. The 魔像 holding the relic (藏匿, immune to the curse by 共鸣) reads it from the 高塔
    notice of day 2's open."""
    settings.WEREWOLF_PREVIEW_RULESETS = True
    game, passwords, ids = _day_1(director)
    _hide(game, passwords, ids, GOLEM)
    _night_1(game, director, passwords, ids)
    with time_machine.travel(bj(1, 21, 5), tick=False):
        golem = _text(_client(game, passwords, GOLEM), game)
        assert "你持有亡灵圣物" not in golem  # 藏匿's recipient is not told (RULINGS 096-15)
        dryad = _client(game, passwords, DRYAD)
        assert "已提交。" in _text(
            dryad, game, op="use_skill", skill="entangle", target=str(ids[E4]), key="en"
        )
        bound = _text(_client(game, passwords, E4), game)
        assert re.search(r"束缚状态\s+主动技能目标必须包含“树妖”", bound)
        medusa = _client(game, passwords, MEDUSA)
        assert "已提交。" in _text(
            medusa, game, op="use_skill", skill="evil_eye", target=str(ids[E5]), key="ee"
        )
        stoned = _client(game, passwords, E5).get(f"/play/{game.number}/me/").content.decode()
        assert "ww-statuses" not in stoned  # announced at the day's open
        genie = _client(game, passwords, GENIE)
        page = _text(genie, game, op="use_skill", skill="wish", target=str(ids[E2]), key="w1")
        assert "已提交。" in page
        wished = _client(game, passwords, E2)
        page = _text(wished, game)
        assert "许愿效果" in page
        for label in (
            "1：当晚免疫一次伤害",
            "2：选择获知一名角色的当前所属阵营",
            "3：选择一名角色，若其持有亡灵圣物，获得之",
        ):
            assert label in page
        assert "效果2、3须同时选择一名角色" in page
        assert re.search(r"截止\s+22:01", page)  # 关门 (the close ran at 21:01) + 60 minutes
        raw = wished.get(f"/play/{game.number}/me/").content.decode()
        assert 'name="option" required' in raw
        assert "data-optional" in raw  # the target may stay empty (effect 1)
        page = _text(
            wished, game, op="use_skill", skill="wish_effect", option="2",
            target=str(ids[WOLVES[1]]), key="w2",
        )  # fmt: skip
        assert "已提交。" in page
        assert "【许愿】：侦探17当前属于【地下城阵营】。" in page
        raw = wished.get(f"/play/{game.number}/me/").content.decode()
        assert 'value="wish_effect"' not in raw  # the window is used
    _others(
        game, passwords, {E2}, 'value="wish_effect"', "侦探17当前属于", when=bj(1, 21, 10)
    )  # the genie itself learns nothing without 全知
    _others(game, passwords, {E4}, 'id="ww-statuses"', when=bj(1, 21, 10))
    _publish(game, director)
    with time_machine.travel(bj(2, 9), tick=False):
        golem = _text(_client(game, passwords, GOLEM), game)
        assert "你持有亡灵圣物" in golem
        assert "圣物诅咒次数" not in golem
        assert "诅咒次数" not in golem
        stone = _text(_client(game, passwords, E5), game)
        assert re.search(r"石化状态\s+投票无效，且发言只能使用表情。", stone)
    _others(game, passwords, {GOLEM}, 'id="ww-relic"', when=bj(2, 9))
    _others(game, passwords, {E5}, 'id="ww-statuses"', when=bj(2, 9))


def test_calamity_then_a_vote_out_opens_gift_and_corruption(director: Any, settings: Any) -> None:
    """藏匿 on an 精灵: cursed at night 1's open into a 腐尸, it is told by 灾厄 at the night's end
    (its page: the relic, 灾厄 until the night's open). Voted out on day 2, its page offers
    腐化 (30 minutes) and 馈赠 (drawn at day 3's open when not chosen); 腐化 flips the chosen
    精灵, 馈赠 hands the relic on to one who is not told, and the giver no longer reads it."""
    settings.WEREWOLF_PREVIEW_RULESETS = True
    game, passwords, ids = _day_1(director)
    _hide(game, passwords, ids, E1)
    _night_1(game, director, passwords, ids)
    _publish(game, director)
    with time_machine.travel(bj(2, 9), tick=False):
        holder = _client(game, passwords, E1)
        page = _text(holder, game)
        assert "腐尸" in page  # its card after the curse's flip
        assert "你持有亡灵圣物" in page
        assert "灾厄" in page
        assert "截止：下一个夜晚开始（关门）前" in page
    _others(game, passwords, {E1}, 'id="ww-relic"', "【灾厄】", when=bj(2, 9))
    with time_machine.travel(bj(2, 12), tick=False):
        for seat in (E2, E3, WOLVES[0]):
            voter = _client(game, passwords, seat)
            assert "已提交。" in _text(voter, game, op="vote", target=str(ids[E1]), key=f"v{seat}")
    with time_machine.travel(bj(2, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(2, 21, 1))
    state = store.state_load(game)
    assert not state.players[ids[E1]].alive
    with time_machine.travel(bj(2, 21, 5), tick=False):
        holder = _client(game, passwords, E1)
        page = _text(holder, game)
        assert "馈赠" in page
        assert "腐化" in page
        assert "截止：第 3 天开门前（未选择则由种子抽取）" in page
        assert re.search(r"腐化\s+截止\s+21:31", page)  # 30 minutes after the close (21:01)
        page = _text(holder, game, op="use_skill", skill="corrupt", target=str(ids[E3]), key="c")
        assert "已提交。" in page
        assert store.state_load(game).players[ids[E3]].role == "corpse"
        page = _text(holder, game, op="use_skill", skill="gift", target=str(ids[E2]), key="g")
        assert "已提交。" in page
        raw = holder.get(f"/play/{game.number}/me/").content.decode()
        assert 'id="ww-relic"' not in raw  # the giver knows it holds it no more
        assert store.state_load(game).flags["relic"]["holder"] == ids[E2]
    _others(game, passwords, {E1}, 'id="ww-relic"', "【馈赠】", when=bj(2, 21, 10))


def test_a_sheep_is_told_it_must_say_mie(director: Any, settings: Any) -> None:
    """变羊's 咩 rule means the sheep must know it is one: its page says so from the day's open
    (not while the night's pick may still change). 藏匿 on the 巫师: 无限魔力 holds the relic
    from night 1's open and unlocks 变羊术, used on the portal."""
    settings.WEREWOLF_PREVIEW_RULESETS = True
    game, passwords, ids = _day_1(director)
    _hide(game, passwords, ids, WIZARD)
    _night_1(game, director, passwords, ids)
    with time_machine.travel(bj(1, 21, 5), tick=False):
        wizard = _client(game, passwords, WIZARD)
        page = _text(wizard, game, op="use_skill", skill="sheep", target=str(ids[E3]), key="s")
        assert "已提交。" in page
        assert (
            "ww-statuses"
            not in _client(game, passwords, E3).get(f"/play/{game.number}/me/").content.decode()
        )
    _publish(game, director)
    with time_machine.travel(bj(2, 9), tick=False):
        page = _text(_client(game, passwords, E3), game)
    assert re.search(r"变羊状态\s+投票和技能均对巫师无效，且每次发言必须有“咩”字。", page)
    _others(game, passwords, {E3}, 'id="ww-statuses"', when=bj(2, 9))
