"""The [099] portal's faces (issue 15): no target chosen for the player, an irreversible use
asked first naming its target, each skill's text from the post on the role card, the deadlines
as times (counted down by werewolf.js), the waiting state once the player's night is done, one
confirmation per submission and the log's times in 北京时间."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.test import Client

from games.models import Game
from tests.conftest import bj
from tests.werewolf.test_views import character, dealt_game, login, night_done, submit, text
from werewolf import services
from werewolf.engine import get_ruleset
from werewolf.selectors import werewolf_state

pytestmark = pytest.mark.django_db

RULES = get_ruleset("arknights_099")
WAITING = "夜晚已结束，等待导演公布"
NIGHT_1 = bj(1, 0) - timedelta(hours=2)  # 22:00 the evening before day 1


def page(client: Client) -> str:
    return client.get("/play/099/me/").content.decode()


def form_of(body: str, skill: str) -> str:
    one = r'<form[^>]*class="ww-skill"[^>]*>(?:(?!</form>).)*?'
    found = re.search(rf'{one}name="skill" value="{skill}".*?</form>', body, re.S)
    assert found, f"no form for {skill}"
    return found.group(0)


def phase(client: Client) -> str:
    found = re.search(r'<span class="ww-phase-name">(.*?)</span>', page(client), re.S)
    assert found
    return found.group(1).strip()


def test_no_target_is_chosen_for_the_player_and_an_empty_choice_is_refused() -> None:
    game = dealt_game()
    services.werewolf_start(game=game, director=None)
    seer = login(game, "玩家6")
    divine = form_of(page(seer), "divine")
    options = re.findall(r"<option[^>]*>[^<]*</option>", divine)
    assert options[0] == '<option value="" selected>请选择</option>'
    assert all("selected" not in o for o in options[1:])
    before = werewolf_state(game=game).to_json()
    after = submit(seer, game, op="use_skill", skill="divine", target="", key="k-empty")
    assert "请先选择目标。" in after
    assert "已提交" not in after
    assert werewolf_state(game=game).to_json() == before


def _witch_turn(game: Game) -> None:
    """The wolves elect 玩家1 and kill 玩家15, the 白眼狼 forgoes: the witch's step opens."""
    leader, victim = character(game, "玩家1"), character(game, "玩家15")
    for n in (1, 2, 3, 4):
        submit(login(game, f"玩家{n}"), game, op="use_skill", skill="elect", target=str(leader.pk))
    submit(login(game, "玩家1"), game, op="use_skill", skill="wolf_kill", target=str(victim.pk))
    submit(login(game, "玩家5"), game, op="forgo", skill="white_kill")


def test_the_poison_asks_first_naming_the_target_and_the_divination_does_not() -> None:
    game = dealt_game()
    services.werewolf_start(game=game, director=None)
    _witch_turn(game)
    witch = login(game, "玩家7")
    body = page(witch)
    assert 'data-confirm="确定对 {target} 使用 毒药？此技能只能使用一次。"' in form_of(
        body, "poison"
    )
    assert 'data-confirm="确定对 {target} 使用 救药？此技能只能使用一次。"' in form_of(body, "save")
    assert "data-confirm" not in form_of(page(login(game, "玩家6")), "divine")
    # Without JavaScript the page asks; nothing is used until the player confirms.
    target = character(game, "玩家16")
    poison = {"op": "use_skill", "skill": "poison", "target": str(target.pk), "key": "k-p"}
    asked = submit(witch, game, **poison)
    assert "确定对 玩家16 使用 毒药？此技能只能使用一次。" in asked
    assert "poison" not in werewolf_state(game=game).night["subs"]
    done = submit(witch, game, **poison, confirmed="1")
    assert done.count("已提交。") == 1
    assert werewolf_state(game=game).night["subs"]["poison"] == {
        str(character(game, "玩家7").pk): target.pk
    }


def test_the_irreversible_skills_are_the_posts_once_only_and_final_ones() -> None:
    irreversible = {k for k, s in RULES.skills.items() if s.irreversible}
    assert irreversible == {"save", "poison", "admire", "last_shot", "will", "succession"}
    assert {k for k, s in RULES.skills.items() if s.limited} <= irreversible


def test_the_role_card_shows_each_skills_text_from_the_post() -> None:
    game = dealt_game()
    services.werewolf_start(game=game, director=None)
    witch = text(login(game, "玩家7"), game)
    for skill in ("sense", "save", "poison"):
        assert RULES.skills[skill].text in witch
    assert "对其使用毒药。该角色在夜晚结束前出局。" in witch
    assert "同一个游戏日夜晚，女巫只能选择[救药]和[毒药]之一使用。" in witch
    assert "天亮睁眼，天黑闭眼，无技能。" in text(login(game, "玩家15"), game)
    # Every skill has its text (copied verbatim from the rule post's 身份与阵营).
    assert [k for k, s in RULES.skills.items() if not s.text] == []


def test_once_the_players_night_is_done_the_page_waits_for_the_director(director: Any) -> None:
    game = dealt_game()
    services.werewolf_start(game=game, director=None)
    seer, villager, witch = (login(game, n) for n in ("玩家6", "玩家15", "玩家7"))
    assert phase(seer) == "夜晚"
    assert phase(witch) == "夜晚"  # her step opens after the kills
    assert phase(villager) == WAITING  # no skill tonight
    assert "你今晚的行动已结束。" in text(villager, game)
    submit(seer, game, op="use_skill", skill="divine", target=str(character(game, "玩家1").pk))
    assert phase(seer) == WAITING
    assert phase(witch) == "夜晚"
    night_done(game)  # drafted, not published
    for client in (seer, villager, witch):
        assert phase(client) == WAITING
        assert text(client, game).count(WAITING) == 1
    services.werewolf_night_publish(game=game, director=director, reason="")
    assert phase(seer) == "白天"


def test_the_log_shows_each_entrys_time_in_beijing_time() -> None:
    game = dealt_game()
    with time_machine.travel(NIGHT_1, tick=False):
        services.werewolf_start(game=game, director=None)
    with time_machine.travel(NIGHT_1 + timedelta(minutes=5), tick=False):
        seer = login(game, "玩家6")
        target = character(game, "玩家1")
        after = submit(seer, game, op="use_skill", skill="divine", target=str(target.pk))
    assert after.count("已提交。") == 1
    log = re.search(r'<section[^>]*id="ww-log">(.*?)</section>', page(seer), re.S)
    assert log
    private = '<span class="tag">私</span> '
    assert re.search(
        rf'<time class="ww-at"[^>]*>22:05</time> {private}已提交 预言 → 玩家1', log.group(1)
    )
    assert re.search(r'<time class="ww-at"[^>]*>22:00</time> 第 1 夜开始', log.group(1))
