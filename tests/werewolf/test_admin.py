"""The director's night room: the deal and its adjustment, the submissions as they arrive, the
engine's draft with its trace, and approving or overriding it (with a reason) on publishing."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from games import services as game_services
from games.models import Character, Event, Game
from tests.werewolf.test_views import (
    NAMES,
    character,
    dealt_game,
    login,
    night_done,
    submit,
    text,
)
from werewolf import services, store
from werewolf.engine.state import CAUSE_POISON, DAY, LATE, SETUP
from werewolf.selectors import werewolf_state

pytestmark = pytest.mark.django_db


def room(client: Client, game: Game) -> str:
    response = client.get(f"/admin/werewolf/werewolfgame/{game.pk}/night/")
    assert response.status_code == 200, response.content[:500]
    return html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))


def act(client: Client, game: Game, op: str, **data: Any) -> Any:
    return client.post(f"/admin/werewolf/werewolfgame/{game.pk}/night/{op}/", data)


def directed(game: Game, director: Any) -> Game:
    game.directors.add(director)
    return game


def test_the_room_deals_from_the_seed_and_the_director_adjusts_before_the_start(
    director: Any, director_client: Client
) -> None:
    game = game_services.game_create(
        kind="werewolf", ruleset="arknights_099", number="099", title="明日方舟", status="running"
    )
    directed(game, director)
    Character.objects.bulk_create(Character(game=game, name=n) for n in NAMES)
    assert "按种子发身份" in room(director_client, game)
    act(director_client, game, "deal")
    state = werewolf_state(game=game)
    assert state.phase == SETUP
    assert len(state.players) == 18
    page = room(director_client, game)
    assert "调整身份" in page
    assert "先知" in page
    first = character(game, "玩家1")
    roles = {f"c{p.id}": p.role for p in state.players.values()}
    swap = next(pid for pid, p in state.players.items() if p.role != state.players[first.pk].role)
    roles[f"c{first.pk}"], roles[f"c{swap}"] = roles[f"c{swap}"], roles[f"c{first.pk}"]
    # no reason: nothing changes
    act(director_client, game, "roles", **roles)
    assert werewolf_state(game=game).players[first.pk].role == state.players[first.pk].role
    act(director_client, game, "roles", reason="换位", **roles)
    after = werewolf_state(game=game)
    assert after.players[first.pk].role == state.players[swap].role
    assert after.players[swap].role == state.players[first.pk].role
    logged = Event.objects.filter(game=game, kind="engine_step", payload__op="deal").last()
    assert logged is not None
    assert logged.reason == "换位"


def test_submissions_show_as_they_arrive_then_the_draft_and_its_trace(
    director: Any, director_client: Client
) -> None:
    game = directed(dealt_game(), director)
    act(director_client, game, "start")
    assert werewolf_state(game=game).phase == "night"
    target = character(game, "玩家1")
    submit(login(game, "玩家6"), game, op="use_skill", skill="divine", target=str(target.pk))
    page = re.sub(r"\s+", " ", room(director_client, game))
    assert "玩家6 ： 预言 → 玩家1" in page.replace("：", " ： ")
    night_done(game)
    page = room(director_client, game)
    assert "结算草稿" in page
    assert "批准并发布" in page
    assert "修改结果并发布" in page
    for entry in werewolf_state(game=game).result["trace"]:  # type: ignore[index]
        assert entry["text"] in page


def test_approve_publishes_the_engines_draft(director: Any, director_client: Client) -> None:
    game = directed(dealt_game(), director)
    services.werewolf_start(game=game, director=director)
    night_done(game)
    act(director_client, game, "publish", reason="核对无误")
    assert werewolf_state(game=game).phase == DAY


def test_override_replaces_the_nights_eliminations_with_a_reason(
    director: Any, director_client: Client
) -> None:
    game = directed(dealt_game(), director)
    services.werewolf_start(game=game, director=director)
    night_done(game)
    victim = character(game, "玩家16")
    act(director_client, game, "override", hit1=[str(victim.pk)])  # no reason: refused
    assert werewolf_state(game=game).phase == LATE
    act(director_client, game, "override", hit1=[str(victim.pk)], reason="补录毒药")
    state = werewolf_state(game=game)
    assert state.phase == DAY
    assert [(o.id, o.cause) for o in state.outs] == [(victim.pk, CAUSE_POISON)]
    override = Event.objects.get(game=game, kind="night_override")
    assert override.payload["reason"] == "补录毒药"


def test_override_edits_the_feedback_and_voids_an_effect_without_leaking(
    director: Any, director_client: Client
) -> None:
    """The draft card shows who is told what and tonight's effects; the override turns the
    seer's 狼人 into 查验无效, sends a private note and voids the guard's 守卫."""
    game = directed(dealt_game(), director)
    services.werewolf_start(game=game, director=director)
    seer, wolf, guard, villager = (
        character(game, n) for n in ("玩家6", "玩家1", "玩家9", "玩家15")
    )
    submit(login(game, "玩家6"), game, op="use_skill", skill="divine", target=str(wolf.pk))
    submit(login(game, "玩家9"), game, op="use_skill", skill="protect", target=str(villager.pk))
    night_done(game)
    page = re.sub(r"\s+", " ", room(director_client, game))
    assert "玩家6 ← 查验玩家1：狼人" in page
    assert "守护玩家9守卫玩家15" in page
    assert "玩家6查验玩家1（草稿：狼人）" in page
    assert "私信内容" in page
    note = "你在梦中听到了狼嚎。"
    form = {f"fb_{seer.pk}_0": "failed", "note_to": str(villager.pk), "note_text": note}
    # A note without its player is refused; so is an override without a reason.
    act(director_client, game, "override", reason="改判", note_text=note)
    act(director_client, game, "override", **form)
    assert werewolf_state(game=game).phase == LATE
    # The effects' boxes are all left unchecked: the 守卫 is void.
    act(director_client, game, "override", reason="先知被干扰", **form)
    state = werewolf_state(game=game)
    assert state.phase == DAY
    assert state.players[seer.pk].flags["feedback"] == [
        {"kind": "divine", "target": wolf.pk, "failed": True, "target_name": "玩家1", "day": 1}
    ]
    assert state.players[villager.pk].flags["feedback"] == [
        {"kind": "note", "text": note, "day": 1}
    ]
    assert "last_protect" not in state.players[guard.pk].flags
    told = Event.objects.filter(game=game, kind="feedback")
    assert sorted(told.values_list("audience_character_id", flat=True)) == sorted(
        [seer.pk, villager.pk]
    )
    override = Event.objects.get(game=game, kind="night_override")
    assert override.reason == "先知被干扰"
    assert override.payload["feedback_engine"] == {
        str(seer.pk): [
            {"kind": "divine", "target": wolf.pk, "role": "狼人", "target_name": "玩家1"}
        ]
    }
    assert override.payload["effects_engine"]["protect"] == [[guard.pk, "protect", villager.pk]]
    assert override.payload["effects_applied"]["protect"] == []
    assert state.to_json() == store.replay(game=game).to_json()  # type: ignore[union-attr]
    # Each page shows its own feedback only.
    mine = text(login(game, "玩家6"), game)
    assert "查验无效" in mine
    assert "狼人" not in mine  # the engine's own result stays with the directors
    assert f"导演私信：{note}" in text(login(game, "玩家15"), game)
    for name in ("玩家1", "玩家9", "玩家16"):
        other = text(login(game, name), game)
        assert note not in other
        assert "查验无效" not in other


def test_another_directors_game_is_not_found(django_user_model: Any) -> None:
    game = dealt_game()
    other = django_user_model.objects.create_user(username="x", password="x-pass-123456")
    other.is_staff = True
    other.save()
    client = Client()
    client.force_login(other)
    response = client.get(f"/admin/werewolf/werewolfgame/{game.pk}/night/")
    assert response.status_code in (302, 403, 404)
    assert act(client, game, "publish", reason="x").status_code in (302, 403, 404)
    assert werewolf_state(game=game).phase == SETUP


def test_the_change_page_leads_to_the_night_room_of_ones_own_game_only(
    director: Any, director_client: Client, django_user_model: Any
) -> None:
    game = directed(dealt_game(), director)
    listing = director_client.get("/admin/werewolf/werewolfgame/").content.decode()
    assert f"/admin/werewolf/werewolfgame/{game.pk}/night/" in listing
    change = director_client.get(f"/admin/werewolf/werewolfgame/{game.pk}/change/")
    assert change.status_code == 302
    assert change["Location"] == f"/admin/werewolf/werewolfgame/{game.pk}/night/"
    other = django_user_model.objects.create_user(username="x", password="x-pass-123456")
    other.is_staff = True
    other.save()
    client = Client()
    client.force_login(other)
    assert client.get(f"/admin/werewolf/werewolfgame/{game.pk}/change/").status_code == 404
