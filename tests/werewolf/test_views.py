"""The role game's portal: the private role card, the team, tonight's skills, 通灵, and what a
page must never show."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from games import services as game_services
from games.models import Character, Game
from tests.conftest import START, api_login, bj
from werewolf import services
from werewolf.engine.state import LATE
from werewolf.selectors import werewolf_state

pytestmark = pytest.mark.django_db

# [099]'s 18 roles, one per character, in this order.
ROLES = (
    ["wolf"] * 4
    + ["white_wolf", "seer", "witch", "hunter", "guard", "lover", "chief", "idiot", "monk"]
    + ["dreamer"]
    + ["villager"] * 4
)
NAMES = tuple(f"玩家{n}" for n in range(1, 19))


def dealt_game(number: str = "099", *, genders: bool = True) -> Game:
    """A running [099] game of 玩家1…18, dealt; with ``genders`` every 马甲 女 (the 梦中人 needs
    them to start: 性别由马甲决定)."""
    game = game_services.game_create(
        kind="werewolf",
        ruleset="arknights_099",
        number=number,
        title="明日方舟",
        start_date=START,
        status="running",
    )
    Character.objects.bulk_create(Character(game=game, name=n) for n in NAMES)
    ids = list(game.characters.order_by("id").values_list("id", flat=True))
    services.werewolf_setup(
        game=game,
        roles=dict(zip(ids, ROLES, strict=True)),
        genders=dict.fromkeys(ids, "女") if genders else None,
    )
    return game


def character(game: Game, name: str) -> Character:
    return game.characters.get(name=name)


def login(game: Game, name: str) -> Client:
    issued = game_services.character_passwords_generate(
        game=game, director=None, characters=[character(game, name)]
    )
    client = Client()
    assert api_login(client, game.number, issued[0].secret).status_code == 200
    return client


def text(client: Client, game: Game) -> str:
    """The page as the player reads it (without tags)."""
    response = client.get(f"/play/{game.number}/me/")
    assert response.status_code == 200, response.content[:500]
    return html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))


def submit(client: Client, game: Game, **data: Any) -> str:
    response = client.post(f"/play/{game.number}/me/", data, follow=True)
    assert response.status_code == 200
    return html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))


def night_done(game: Game) -> None:
    """Every step forfeited by the scheduler until the night has nothing left to wait for."""
    moment = timezone.now()
    while werewolf_state(game=game).phase != LATE:
        moment += timedelta(hours=1)
        services.werewolf_deadlines_run(now=moment)


def test_before_the_deal_the_page_says_wait() -> None:
    game = game_services.game_create(
        kind="werewolf", ruleset="arknights_099", number="099", title="明日方舟", status="running"
    )
    Character.objects.create(game=game, name="玩家1")
    assert "身份尚未发放" in text(login(game, "玩家1"), game)


def test_a_dealt_game_shows_no_card_until_it_starts() -> None:
    """分发身份 is the start: until then the deal is the director's to adjust (调整身份)."""
    game = dealt_game()
    page = text(login(game, "玩家1"), game)
    assert "身份尚未发放" in page
    assert "狼人" not in page


def test_the_role_card_is_private_and_the_wolves_see_their_team() -> None:
    game = dealt_game()
    services.werewolf_start(game=game, director=None)
    wolf = text(login(game, "玩家1"), game)
    assert "身份卡" in wolf
    assert "狼人" in wolf
    assert "狼人阵营" in wolf
    assert "队友" in wolf
    for mate in ("玩家2", "玩家3", "玩家4"):
        assert mate in wolf
    villager = text(login(game, "玩家15"), game)
    assert "村民" in villager
    assert "队友" not in villager
    # nobody else's role reaches a villager's page
    for role in ("狼人", "先知", "女巫", "白眼狼", "猎人", "守护"):
        assert role not in villager


def test_the_seer_sees_its_skill_tonight_with_targets_and_submits_it() -> None:
    game = dealt_game()
    services.werewolf_start(game=game, director=None)
    seer = login(game, "玩家6")
    page = text(seer, game)
    assert "预言" in page
    assert "截止" in page
    target = character(game, "玩家1")
    after = submit(seer, game, op="use_skill", skill="divine", target=str(target.pk), key="k1")
    assert "已提交" in after
    subs = werewolf_state(game=game).night["subs"]["divine"]
    assert subs[str(character(game, "玩家6").pk)] == target.pk


def test_the_forced_election_has_no_forgo_button_and_a_forged_forgo_is_refused() -> None:
    """标明<强制>的技能不允许放弃发动: the wolves' 选举 offers no 放弃; a hand-made post is
    refused with the rule's words and changes nothing."""
    game = dealt_game()
    services.werewolf_start(game=game, director=None)
    wolf = login(game, "玩家1")
    assert "强制技能，不能放弃" in text(wolf, game)
    before = werewolf_state(game=game).to_json()
    after = submit(wolf, game, op="forgo", skill="elect", key="k-forgo")
    assert "标明<强制>的技能不允许放弃发动。" in after
    assert werewolf_state(game=game).to_json() == before


def test_a_refused_submission_says_why_and_changes_nothing() -> None:
    game = dealt_game()
    services.werewolf_start(game=game, director=None)
    villager = login(game, "玩家15")
    before = werewolf_state(game=game).to_json()
    target = character(game, "玩家1")
    after = submit(villager, game, op="use_skill", skill="divine", target=str(target.pk))
    assert "已提交" not in after
    assert werewolf_state(game=game).to_json() == before


def section(client: Client, game: Game, anchor: str) -> str | None:
    """The text of one card of the page (``None`` when the page does not show it)."""
    body = client.get(f"/play/{game.number}/me/").content.decode()
    found = re.search(rf'<section[^>]*id="{anchor}">(.*?)</section>', body, re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", found.group(1))) if found else None


def test_the_witch_gets_sense_once_the_wolves_kill_is_final() -> None:
    game = dealt_game()
    services.werewolf_start(game=game, director=None)
    witch = login(game, "玩家7")
    assert section(witch, game, "ww-sense") is None
    victim = character(game, "玩家15")
    leader = character(game, "玩家1")
    wolves = [login(game, f"玩家{n}") for n in (1, 2, 3, 4)]
    for wolf in wolves:
        submit(wolf, game, op="use_skill", skill="elect", target=str(leader.pk))
    assert "主刀狼" in (section(wolves[1], game, "ww-team") or "")
    submit(wolves[0], game, op="use_skill", skill="wolf_kill", target=str(victim.pk))
    submit(login(game, "玩家5"), game, op="forgo", skill="white_kill")
    sense = section(witch, game, "ww-sense")
    assert sense is not None
    assert "玩家15" in sense
    usable = section(witch, game, "ww-act") or ""
    assert "救药" in usable
    assert "毒药" in usable
    # the wolves' pick is theirs and the witch's alone: a villager is told nothing of it
    assert section(login(game, "玩家16"), game, "ww-sense") is None


def test_a_malformed_form_is_refused_without_a_crash() -> None:
    game = dealt_game()
    services.werewolf_start(game=game, director=None)
    seer = login(game, "玩家6")
    before = werewolf_state(game=game).to_json()
    for data in ({"op": "bogus"}, {"op": "use_skill", "skill": "divine", "target": "x"}):
        assert "已提交" not in submit(seer, game, **data)
    assert werewolf_state(game=game).to_json() == before


def test_the_hunter_voted_out_by_day_gets_its_shot_window_with_a_deadline(director: Any) -> None:
    game = dealt_game()
    services.werewolf_start(game=game, director=director)
    night_done(game)
    services.werewolf_night_publish(game=game, director=director, reason="核对无误")
    hunter = character(game, "玩家8")
    hunter_page = login(game, "玩家8")
    assert "最后一枪" not in (section(hunter_page, game, "ww-act") or "")
    services.werewolf_day_vote(game=game, director=director, totals={hunter.pk: 5})
    window = section(hunter_page, game, "ww-act") or ""
    assert "最后一枪" in window
    assert "截止" in window
    target = character(game, "玩家1")
    shot = {"op": "use_skill", "skill": "last_shot", "target": str(target.pk)}
    # A shot cannot be taken back: without JavaScript the page asks first, naming the target.
    asked = submit(hunter_page, game, **shot)
    assert "确定对 玩家1 使用 最后一枪？发动后不能撤回。" in asked
    assert "已提交" not in asked
    assert werewolf_state(game=game).players[target.pk].alive
    after = submit(hunter_page, game, **shot, confirmed="1")
    assert "已提交" in after
    assert not werewolf_state(game=game).players[target.pk].alive


def test_the_log_reads_as_the_role_game_not_the_core_timetable() -> None:
    """The core's phase_changed (dusk/late/dawn) means nothing in a role game: the page shows
    the game's own 第 n 夜开始 / 第 n 天开始 and never a raw kind."""
    game = dealt_game()
    services.werewolf_start(game=game, director=None, now=bj(1, 0) - timedelta(hours=2))
    with time_machine.travel(bj(1, 0, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 0, 1))
    assert game.events.filter(kind="phase_changed").exists()
    page = text(login(game, "玩家15"), game)
    assert "第 1 夜开始" in page
    assert "phase_changed" not in page
