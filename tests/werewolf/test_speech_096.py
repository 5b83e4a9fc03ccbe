"""[096] 异常状态: 如果发言违反变羊、石化状态的限制，则所有非被动技能冷却+1. The site flags a 石化
player's post that is more than emoji (发言只能使用表情) and a 变羊's without 咩 (每次发言必须有“咩”
字); the director confirms each in the night room (RULINGS 096-16), once per post."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
import time_machine
from django.test import Client

from games import services as game_services
from games.models import Character, ForumPost, ForumThread, ThreadKind
from tests.conftest import bj
from tests.werewolf.engine.support_096 import ELVES, MEDUSA, WOLVES
from tests.werewolf.test_pages_096 import _client, _day_1, _text
from werewolf import services, store
from werewolf.engine.conan_status import speech_breaks

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("status", "text", "breaks"),
    [
        ("sheep", "咩，我是好人", False),
        ("sheep", "我是好人", True),
        ("stone", "😀😀 🙂", False),
        ("stone", "{:1_23:}{:2_7:}", False),
        ("stone", "😀 我是好人", True),
        ("stone", "。。。", True),
    ],
)
def test_what_breaks_the_speech_rules(status: str, text: str, breaks: bool) -> None:
    assert speech_breaks(status, text) is breaks


def _post(game: Any, day: int, name: str, text: str, floor: int) -> ForumPost:
    thread = ForumThread.objects.get_or_create(
        game=game, day=day, kind=ThreadKind.DISCUSSION, external_id=f"talk-{day}"
    )[0]
    character = Character.objects.get(game=game, name=name)
    return ForumPost.objects.create(
        thread=thread,
        external_id=f"talk-{day}-{floor}",
        floor=floor,
        author=name,
        character=character,
        posted_at=bj(2, 10, floor),
        text=text,
        content_hash="-",
    )


def _room(client: Client, game: Any) -> str:
    page = client.get(f"/admin/werewolf/werewolfgame/{game.pk}/night/")
    assert page.status_code == 200
    return html.unescape(re.sub(r"<[^>]+>", " ", page.content.decode()))


def test_a_stone_players_words_are_flagged_and_the_confirmed_post_cools_every_active_skill(
    director: Any, director_client: Client, settings: Any
) -> None:
    """魔眼 on a 精灵 in night 1 (石化 until day 2's end); on day 2 its post with words is
    flagged, its emoji-only post and another elf's words are not; the director confirms: 祝福
    (its active skill) gains 1 cooldown, 四叶草 (被动) none; once only."""
    settings.WEREWOLF_PREVIEW_RULESETS = True
    game, passwords, ids = _day_1(director)
    stoned = ELVES[4]
    with time_machine.travel(bj(1, 12), tick=False):  # 藏匿 away from the 精灵 under watch
        _text(_client(game, passwords, WOLVES[0]), game, op="use_skill", skill="hide",
              target=str(ids[ELVES[6]]))  # fmt: skip
    with time_machine.travel(bj(1, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 21, 1))
        medusa = _client(game, passwords, MEDUSA)
        page = _text(medusa, game, op="use_skill", skill="evil_eye", target=str(ids[stoned]))
        assert "已提交。" in page
        _text(_client(game, passwords, WOLVES[0]), game, op="use_skill", skill="bite",
              target=str(ids[ELVES[3]]))  # fmt: skip
    services.werewolf_deadlines_run(now=bj(1, 22, 16))
    services.werewolf_night_publish(game=game, director=director, reason="核对无误")
    state = store.state_load(game)
    assert state.day == 2
    assert state.players[ids[stoned]].statuses["stone"] == 2
    words = _post(game, 2, f"侦探{stoned}", "我是好人，别投我", 2)
    _post(game, 2, f"侦探{stoned}", "😀😀", 3)
    _post(game, 2, f"侦探{ELVES[1]}", "我是好人", 4)
    with time_machine.travel(bj(2, 12), tick=False):
        room = _room(director_client, game)
        assert "确认违反变羊/石化状态的发言" in room
        assert "讨论帖 2 楼 · 侦探5（石化）：我是好人，别投我" in room
        assert "3 楼" not in room
        assert "4 楼" not in room
        url = f"/admin/werewolf/werewolfgame/{game.pk}/night/speech/"
        director_client.post(url, {"post": str(words.pk), "reason": ""})  # no reason: nothing
        assert store.state_load(game).players[ids[stoned]].counters.get("cd:bless") is None
        director_client.post(url, {"post": str(words.pk), "reason": "石化期间文字发言"})
    after = store.state_load(game).players[ids[stoned]]
    assert after.counters.get("cd:bless") == 1
    assert "cd:clover" not in after.counters
    with time_machine.travel(bj(2, 12, 5), tick=False):
        assert "讨论帖 2 楼" not in _room(director_client, game)  # confirmed: no longer listed
        told = _text(_client(game, passwords, stoned), game)
        assert "你的发言违反了石化状态的限制（发言只能使用表情）：所有非被动技能冷却+1。" in told
        assert "违反了石化状态" not in _text(_client(game, passwords, ELVES[1]), game)
    with pytest.raises(Exception, match="没有被标记"):
        services.werewolf_speech_penalty(
            game=game, director=director, post_id=words.pk, reason="再罚一次"
        )
