"""A [061] game a director deals and runs: every player's portal and the director's rooms answer
with a page at each moment of the first day and nights (never a 500), and a player's page names
no one else's role."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from games import services as game_services
from games.models import Game
from tests.conftest import api_login, bj
from tests.werewolf.players import lin_feng_day_1, lin_feng_draft
from werewolf import services, store
from werewolf.engine import get_ruleset

pytestmark = pytest.mark.django_db

NIGHT_0 = bj(1, 0) - dt.timedelta(hours=2)
RULES = get_ruleset("lin_feng_061")


def _pages_answer(game: Game, director_client: Client, passwords: dict[str, str]) -> None:
    state = store.state_load(game)
    for path in (
        reverse("admin:werewolf_night", args=[game.pk]),
        f"/admin/games/game/{game.pk}/prepare/",
        f"/admin/games/game/{game.pk}/change/",
    ):
        response = director_client.get(path)
        assert response.status_code == 200, (path, response.content[:300])
        # The night before day 1 is the 开局夜, never "第 0 天/夜".
        assert "第 0 " not in response.content.decode(), path
    for player in state.players.values():
        client = Client()
        assert api_login(client, game.number, passwords[player.name]).status_code == 200
        response = client.get(f"/play/{game.number}/me/", follow=True)
        assert response.status_code == 200, (player.name, response.content[:300])
        text = response.content.decode()
        # [061] has no auction: no 表演/挡刀 on the role card.
        assert "挡刀" not in text, player.name
        assert "第 0 " not in text, player.name
        if state.day == 0:
            assert "开局夜" in text, player.name
        # Another character's role is never shown beside that character's name.
        for other in state.players.values():
            if other.id == player.id:
                continue
            role = RULES.roles[other.role].name
            assert f"{other.name}（{role}）" not in text, (player.name, other.name)


def _section(page: str, sid: str) -> str:
    start = page.index(f'id="{sid}"')
    return page[start : page.index("</section>", start)]


def test_a_061_game_dealt_by_a_director_has_every_page(
    director: Any, director_client: Client
) -> None:
    game, passwords = lin_feng_draft(director)
    services.werewolf_setup(game=game)
    game_services.game_start(game=game, director=director, now=NIGHT_0)
    _pages_answer(game, director_client, passwords)  # the prelude (附身, 遇难, 票台)

    lin_feng_day_1(game, director, NIGHT_0)
    assert store.state_load(game).phase == "day"
    _pages_answer(game, director_client, passwords)  # day 1

    with time_machine.travel(bj(3, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(3, 21, 1))
        assert store.state_load(game).phase == "night"
        _pages_answer(game, director_client, passwords)  # night 1


def test_the_061_night_room_asks_only_the_genders_and_shows_each_kill_settled(
    director: Any, director_client: Client
) -> None:
    """[061] has no 竞拍贴: before the start the night room asks only each 马甲's gender (no
    表演/挡刀/性别卡/金币), and the night's draft settles each kill line by line
    (每次指杀依次结算)."""
    game, _ = lin_feng_draft(director)
    services.werewolf_setup(game=game)
    room = reverse("admin:werewolf_night", args=[game.pk])
    page = director_client.get(room).content.decode()
    assert "马甲性别（开局前）" in page
    for word in ("挡刀", "表演", "性别卡", "金币"):
        assert word not in page, word

    state = store.state_load(game)
    first = min(state.players)
    form = {f"gender{pid}": "" for pid in state.players}
    form |= {f"gender{first}": "女", "reason": "马甲"}
    act = reverse("admin:werewolf_night_act", args=[game.pk, "auction"])
    response = director_client.post(act, form)
    assert response.status_code == 302
    state = store.state_load(game)
    assert state.players[first].gender == "女"
    assert all(p.act == 0 and p.block == 0 for p in state.players.values())

    game_services.game_start(game=game, director=director, now=NIGHT_0)
    page = director_client.get(room).content.decode()
    # The 开局夜 runs 附身, 遇难 and the 铁柱's step; the game nights' steps are not part of it.
    steps = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td>", _section(page, "night-steps"), re.S)
    assert [name for name, st in steps if st == "进行中"] == [
        "幽灵&lt;附身&gt;",
        "人质&lt;遇难&gt;",
        "（2）铁柱：决定因&lt;票台&gt;不能被投票的角色名单；选择&lt;诅咒&gt;的目标",
    ]
    assert {st for name, st in steps if st != "进行中"} == {"今晚无此步骤"}
    lin_feng_day_1(game, director, NIGHT_0)
    with time_machine.travel(bj(3, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(3, 21, 1))
        state = store.state_load(game)
        queen = next(p for p in state.players.values() if p.role == "wolf_queen")
        target = next(p for p in state.players.values() if p.role == "treasure")
        services.werewolf_action_submit(
            game_id=game.pk,
            character_id=queen.id,
            data={"kind": "use_skill", "skill": "kill", "targets": [target.id]},
            key=None,
            now=bj(3, 21, 2),
        )
        ranger = next(p for p in state.players.values() if p.role == "ranger")
        services.werewolf_action_submit(
            game_id=game.pk,
            character_id=ranger.id,
            data={
                "kind": "use_skill",
                "skill": "verify",
                "targets": [queen.id],
                "option": "publish",
            },
            key=None,
            now=bj(3, 21, 2),
        )
        # A submission with an option (stored with its targets) reads as a sentence.
        answer = director_client.get(room)
        assert answer.status_code == 200
        assert f"{ranger.name}：查证 → {queen.name}（公示结果）" in answer.content.decode()
        services.werewolf_deadlines_run(now=bj(3, 22, 2))
        services.werewolf_night_resolve(game=game, director=director)
        page = director_client.get(room).content.decode()
        assert f"游侠{ranger.name}发动&lt;查证&gt;：{queen.name}（公示结果）。" in page
    # Feedback reads as its own sentence ([099]'s 查验 is not [061]'s 查证); statuses by name;
    # the override offers [061]'s night causes, not [099]'s 最后一枪/毒药.
    feedback = _section(page, "night-draft")
    assert f"{ranger.name} ← " in feedback
    assert "查验" not in feedback
    roles = _section(page, "night-players")
    assert '<span class="tag">票台</span>' in roles
    assert "stage" not in roles
    override = page[page.index('id="f-override"') :]
    assert "空救" in override
    assert "最后一枪" not in override
    assert "毒药" not in override
    assert f"{queen.name}指杀{target.name}。" in page
    assert f"1. {target.name}不是&lt;救治&gt;的目标。" in page
    assert f"5. 指杀生效，{target.name}出局。" in page
