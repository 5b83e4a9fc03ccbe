"""The night played through the HTTP API: outcomes in submission order, with the rules' numbers."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connections

from games import services as game_services
from games.models import Announcement, Character, Event, Game, TransitionRecord
from royale.models import RoyaleGame
from tests.conftest import bj
from tests.royale.conftest import (
    aim,
    empty_royale_game,
    give,
    night_one,
    players,
    royale_game,
    set_character,
    state_of,
)

pytestmark = pytest.mark.django_db


def test_moves_and_searches_cost_5_mp_and_searches_are_30_seconds_apart(
    at_night_one: Any,
) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    a = players(game)["甲"]
    assert a.act("spawn", place="监狱").json()["me"]["mp"] == 100  # 出生 is free
    moved = a.act("move", place="教堂")
    assert moved.status_code == 200
    assert (moved.json()["me"]["mp"], moved.json()["me"]["place"]) == (95, "教堂")
    assert a.act("search").json()["me"]["mp"] == 90
    at_night_one.shift(29)
    again = a.act("search")
    assert again.json()["code"] == "search_cooldown"
    assert again.json()["detail"]["seconds_left"] == 1
    assert a.me()["mp"] == 90  # the refused search cost nothing
    at_night_one.shift(1)
    assert a.act("search").json()["me"]["mp"] == 85


def test_fists_deal_5_and_the_victim_learns_the_damage_but_not_the_source(
    at_night_one: Any,
) -> None:
    game = empty_royale_game("256", ("甲", "乙"))
    night_one(game)
    cast = players(game)
    a, b = cast["甲"], cast["乙"]
    a.act("spawn", place="监狱")
    b.act("spawn", place="监狱")
    found = a.act("search").json()
    assert found["me"]["found"]["kind"] == "character"
    handle = found["me"]["found"]["handle"]
    assert "乙" not in str(found)
    assert str(b.id) != handle

    hit = a.act("attack", handle=handle).json()
    assert [e["kind"] for e in hit["events"]] == ["attack_result"]
    assert hit["events"][0]["payload"]["outcome"] == "hit"
    assert "hp" not in hit["events"][0]["payload"]  # the attacker never learns the target's HP
    assert b.me()["hp"] == 95  # 挥拳伤害为 5
    once = a.act("attack", handle=handle)
    assert once.status_code >= 400
    assert once.json()["code"] == "already_attacked"  # 每次搜索后只可攻击一次

    hits = [f for f in b.events() if f["kind"] == "hit"]
    assert [h["payload"]["damage"] for h in hits] == [5]
    assert "甲" not in str(hits)
    assert str(a.id) not in str(hits[0]["payload"])


def test_a_green_weapon_deals_15_less_green_armor_5(at_night_one: Any) -> None:
    game = empty_royale_game("256", ("甲", "乙"))
    knife = give(game, "甲", "weapon:green:小刀")
    hat = give(game, "乙", "armor:green:海盗帽")
    night_one(game)
    cast = players(game)
    a, b = cast["甲"], cast["乙"]
    a.act("spawn", place="监狱")
    b.act("spawn", place="监狱")
    assert a.act("equip", item=knife).status_code == 200
    assert b.act("equip", item=hat).status_code == 200
    handle = a.act("search").json()["me"]["found"]["handle"]
    a.act("attack", handle=handle)
    assert b.me()["hp"] == 90  # 15 − 5


def test_a_retried_request_with_the_same_key_applies_once(at_night_one: Any) -> None:
    game = royale_game("256", ("甲",))
    night_one(game)
    a = players(game)["甲"]
    spawned = a.act("spawn", place="监狱", key="s-1")
    # the rules would refuse a second spawn: the retry still gets the first answer
    assert a.act("spawn", place="监狱", key="s-1").json() == spawned.json()
    first = a.act("move", place="医院", key="k-123")
    second = a.act("move", place="医院", key="k-123")
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert a.me()["mp"] == 95
    assert Event.objects.filter(game=game, kind="engine_step", payload__op="action").count() == 2


@pytest.mark.parametrize(
    ("kind", "fields", "code"),
    [
        ("move", {"place": "月球"}, "unknown_place"),
        ("attack", {"handle": "abc"}, "nothing_found"),
        ("pick_up", {}, "nothing_found"),
        ("whisper", {"target": "乙", "text": "长" * 201}, "message_too_long"),
        ("whisper", {"target": "不存在的人", "text": "你好"}, "unknown_character"),
        ("use", {"item": 999_999}, "not_held"),
        ("fly", {}, "invalid_input"),
        ("move", {}, "invalid_input"),
        ("move", {"place": 12}, "invalid_input"),
    ],
)
def test_bad_input_is_a_clear_4xx_and_changes_nothing(
    at_night_one: Any, kind: str, fields: dict[str, Any], code: str
) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    cast = players(game)
    cast["甲"].act("spawn", place="监狱")
    before = state_of(game).to_json()
    events = Event.objects.filter(game=game).count()
    response = cast["甲"].act(kind, **fields)
    assert 400 <= response.status_code < 500, response.content
    assert response.json()["code"] == code
    assert response.json()["message"]
    assert state_of(game).to_json() == before
    assert Event.objects.filter(game=game).count() == events


def test_malformed_json_and_another_characters_id_change_nothing(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    cast = players(game)
    a, b = cast["甲"], cast["乙"]
    url = f"/api/royale/games/{game.pk}/actions"
    broken = a.client.post(url, "{kind: move", content_type="application/json")
    assert broken.status_code == 400
    assert broken.json()["code"] == "invalid_input"
    # The actor is the logged-in character whatever the body says.
    spoofed = a.client.post(
        url, {"kind": "spawn", "place": "医院", "actor": b.id}, content_type="application/json"
    )
    assert spoofed.status_code == 200
    assert a.me()["place"] == "医院"
    assert b.me()["place"] is None


def test_a_stranger_cannot_act(at_night_one: Any, client: Any) -> None:
    game = royale_game("256", ("甲",))
    night_one(game)
    response = client.post(
        f"/api/royale/games/{game.pk}/actions", {"kind": "search"}, content_type="application/json"
    )
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_an_action_without_the_csrf_token_is_refused(at_night_one: Any) -> None:
    from django.test import Client

    game = royale_game("256", ("甲",))
    night_one(game)
    player = players(game)["甲"]
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = player.client.cookies
    url = f"/api/royale/games/{game.pk}/actions"
    forged = strict.post(url, {"kind": "spawn", "place": "监狱"}, content_type="application/json")
    assert (forged.status_code, forged.json()["code"]) == (403, "csrf_failed")
    assert player.me()["place"] is None
    strict.get("/play/256/")  # the portal's page sets the CSRF cookie
    token = strict.cookies["csrftoken"].value
    honest = strict.post(
        url,
        {"kind": "spawn", "place": "监狱"},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert honest.status_code == 200


def test_outside_the_window_nothing_is_accepted(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    a = players(game)["甲"]
    game_services.transitions_run_due(now=bj(1, 20))  # day 1: the window is not open
    assert a.act("spawn", place="监狱").json()["code"] == "wrong_phase"
    night_one(game)
    a.act("spawn", place="监狱")
    game_services.transitions_run_due(now=bj(1, 21, 26))  # 21:25 closed the window
    late = a.act("move", place="医院")
    assert late.json()["code"] == "wrong_phase"
    assert a.me()["place"] == "监狱"


def test_a_paused_game_refuses_actions(at_night_one: Any, director: Any) -> None:
    game = royale_game("256", ("甲",))
    night_one(game)
    a = players(game)["甲"]
    game_services.game_pause(game=game, director=director, paused=True, reason="服务器维护")
    assert a.act("spawn", place="监狱").json()["code"] == "game_paused"
    game_services.game_pause(game=game, director=director, paused=False, reason="维护结束")
    assert a.act("spawn", place="监狱").status_code == 200


def test_the_morning_report_is_drafted_from_the_log(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙", "丙"))
    night_one(game)
    cast = players(game)
    cast["甲"].act("spawn", place="监狱")
    cast["丙"].act("spawn", place="医院")
    at_night_one.move_to(bj(2, 21, 12))
    game_services.transitions_run_due(now=bj(2, 21, 12))  # night 2 open
    page = cast["甲"].client.get(f"/api/royale/games/{game.pk}/me").json()
    safe = [p["name"] for p in page["map"] if not p["vanishing"] and not p["gone"]]
    for name in ("甲", "丙"):  # out of tonight's vanishing places, announced this morning
        assert cast[name].act("move", place=safe[-1]).status_code == 200
    game_services.transitions_run_due(now=bj(3, 0, 1))  # night 2 closes: 乙 never spawned
    drafts = Announcement.objects.filter(game=game, by_site=True).order_by("day")
    assert [a.day for a in drafts] == [1, 2, 3]
    report = drafts.get(day=3)
    assert report.status == "draft"
    assert "乙（淹死）" in report.body
    assert Character.objects.get(game=game, name="乙").cause == "淹死"
    assert "今晚消失的场所" in report.body
    assert not Event.objects.filter(game=game, kind="announcement").exists()


def test_the_report_is_published_at_day_open_when_the_game_says_so(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    RoyaleGame.objects.filter(pk=game.pk).update(auto_publish=True)
    game_services.transitions_run_due(now=bj(2, 0, 1))
    published = Event.objects.filter(game=game, kind="announcement").order_by("seq")
    assert [e.payload["day"] for e in published] == [1, 2]
    assert published[1].audience == "public"
    # titled once by its day (第 2 天 · 晨报 on the page) and marked as the report's own 公示,
    # so the player's log tells the morning report once
    assert [(e.payload["title"], e.payload["report"]) for e in published] == [("晨报", True)] * 2


def test_replay_equals_the_stored_state_after_a_full_night(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙", "丙", "丁"))
    night_one(game)
    cast = players(game)
    for name in cast:
        cast[name].act("spawn", place="监狱")
    for name in ("甲", "乙", "丙"):
        found = cast[name].act("search").json()["me"]["found"]
        if found and found["kind"] == "character":
            cast[name].act("attack", handle=found["handle"])
        elif found and found["kind"] == "item":
            cast[name].act("pick_up")
    cast["丁"].act("whisper", target="甲", text="<b>小心</b>")
    cast["乙"].act("move", place="医院")
    game_services.transitions_run_due(now=bj(2, 21, 12))  # close night 1, day 2, night 2 open
    call_command("replay_game", "256")

    RoyaleGame.objects.filter(pk=game.pk).update(
        state={**RoyaleGame.objects.get(pk=game.pk).state, "step": 999}
    )
    with pytest.raises(CommandError, match="difference"):
        call_command("replay_game", "256")


def test_a_nights_death_is_public_only_from_the_morning_report(
    at_night_one: Any, client: Any
) -> None:
    game = empty_royale_game("256", ("甲", "乙", "丙"))
    night_one(game)
    cast = players(game)
    for name, place in (("甲", "监狱"), ("乙", "监狱"), ("丙", "医院")):
        cast[name].act("spawn", place=place)
    set_character(game, "乙", hp=5)
    killed = cast["甲"].act("attack", handle=aim(game, "甲", "乙")).json()
    assert killed["events"][0]["payload"]["outcome"] == "killed"  # fists: 5

    dead = Character.objects.get(game=game, name="乙")
    assert (dead.status, dead.cause, dead.death_public) == ("eliminated", "攻击", False)
    refused = cast["乙"].act("move", place="医院")  # the dead never act
    assert (refused.status_code, refused.json()["code"]) == (409, "actor_dead")
    assert "攻击" not in client.get("/games/256/").content.decode()
    game_services.transitions_run_due(now=bj(2, 0, 1))  # day 2 opens: the morning report
    assert "出局 · 攻击" in client.get("/games/256/").content.decode()


def test_the_last_survivor_ends_the_game_and_the_seed_is_revealed(at_night_one: Any) -> None:
    game = royale_game("256", ("甲", "乙"))
    night_one(game)
    a = players(game)["甲"]
    a.act("spawn", place="监狱")
    game_services.transitions_run_due(now=bj(2, 21, 12))  # night 2 open
    at_night_one.move_to(bj(2, 21, 12))
    vanishing = state_of(game).shrink_tonight  # 甲 keeps out of the water
    safe = next(p for p in state_of(game).places_on_map() if p not in vanishing and p != "监狱")
    assert a.act("move", place=safe).status_code == 200
    game_services.transitions_run_due(now=bj(3, 0, 1))  # 乙 (never spawned) drowns after night 2
    game.refresh_from_db()
    assert (game.status, game.seed_revealed) == ("finished", True)
    finished = Event.objects.get(game=game, kind="game_finished")
    assert finished.payload["seed"] == game.seed
    assert state_of(game).winner == Character.objects.get(game=game, name="甲").pk


def test_a_transition_that_fails_leaves_its_game_as_before_and_others_go_on(
    at_night_one: Any,
) -> None:
    broken = royale_game("256", ("甲",))
    healthy = royale_game("252", ("乙",), ruleset="kimetsu_252")
    game_services.transitions_run_due(now=bj(1, 12))  # both opened day 1
    royale = RoyaleGame.objects.get(pk=broken.pk)
    royale.state = {**royale.state, "phase": "over"}  # the engine refuses every transition now
    royale.save()
    seq = Game.objects.get(pk=broken.pk).seq
    game_services.transitions_run_due(now=bj(1, 21, 12))
    broken.refresh_from_db()
    healthy.refresh_from_db()
    assert (broken.day, broken.phase, broken.seq) == (1, "day", seq)
    assert not TransitionRecord.objects.filter(game=broken, kind="day_close").exists()
    assert (healthy.day, healthy.phase) == (1, "night")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_40_concurrent_attackers_one_killer_no_item_lost_or_duplicated(
    at_night_one: Any, settings: Any
) -> None:
    # 40 at once on the row lock: more than one process sheds (ACTIONS_IN_FLIGHT_MAX), which is
    # not what this test is about (tests/games/test_socket_actions.py covers the busy answer).
    settings.ACTIONS_IN_FLIGHT_MAX = 64
    names = (*tuple(f"刺客{i:02d}" for i in range(40)), "目标")
    game = empty_royale_game("256", names)
    weapons = {name: give(game, name, "weapon:green") for name in names[:40]}
    for selector in ("armor:green", "supply:[HP10]草药", "recon:GPS"):
        give(game, "目标", selector)  # in the backpack: the armor reduces nothing (RULINGS 1)
    night_one(game)
    cast = players(game)
    for player in cast.values():
        player.act("spawn", place="监狱")
    for name, weapon in weapons.items():
        assert cast[name].act("equip", item=weapon).status_code == 200
    target = cast["目标"].id
    handles = {name: aim(game, name, "目标") for name in names[:40]}
    items_before = sorted(state_of(game).items)
    barrier = threading.Barrier(len(handles))
    outcomes: dict[str, Any] = {}

    def attack(name: str) -> None:
        try:
            barrier.wait()
            outcomes[name] = cast[name].act("attack", handle=handles[name]).json()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=attack, args=(n,)) for n in handles]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    state = state_of(game)
    hits = [o for o in outcomes.values() if "events" in o]
    killed = [o for o in hits if o["events"][0]["payload"]["outcome"] == "killed"]
    assert len(killed) == 1
    assert len(hits) == 7  # 15 a hit: the 7th of 100 HP kills; later ones find the target gone
    refused = [o for o in outcomes.values() if "code" in o]
    assert {o["code"] for o in refused} <= {"target_gone"}
    assert not state.characters[target].alive
    killer = next(c for c in state.characters.values() if len(c.hands) + len(c.pack) == 4)
    assert killer.alive
    assert sorted(state.items) == items_before  # nothing created, nothing lost
    holders = [i for c in state.characters.values() for i in c.hands + c.pack]
    assert len(holders) == len(set(holders))


@pytest.mark.django_db(transaction=True)
def test_the_cached_state_equals_the_stored_one_and_a_direct_save_is_seen(
    at_night_one: Any,
) -> None:
    # Committed actions let this process reuse the decoded state; it must never drift.
    game = royale_game("256", ("甲", "乙", "丙"))
    night_one(game)
    cast = players(game)
    for name, place in (("甲", "监狱"), ("乙", "监狱"), ("丙", "医院")):
        cast[name].act("spawn", place=place)
    for _ in range(3):
        for player in cast.values():
            player.act("search")
            player.act("move", place="医院" if player.me()["place"] == "监狱" else "监狱")
        at_night_one.shift(31)
    call_command("replay_game", "256")
    herb = give(game, "甲", "supply:[HP10]草药")  # a save outside the services
    assert herb in [i["id"] for i in cast["甲"].me()["items"]]
    assert cast["甲"].act("equip", item=herb).status_code == 200
