"""The control room: a director's live page per game, and the interventions it offers."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from games import services as game_services
from games.models import Character, Event, Game, TimetableOverride
from royale import services
from royale.engine.state import GONE_VANISHED
from royale.models import RoyaleGame
from tests.conftest import BJ, bj
from tests.royale.conftest import Player, admin_client, control, control_room, state_of

pytestmark = pytest.mark.django_db


def replay_ok(game: Game) -> None:
    call_command("replay_game", game.number)  # raises CommandError on any difference


def private_feed(player: Player) -> list[dict[str, Any]]:
    return [f for f in player.events() if f["stream"] == "private"]


@pytest.fixture
def room(director: Any, at_night_one: Any) -> tuple[Game, dict[str, Player], Client]:
    """Night 1 open: 甲 and 乙 at 监狱, 丙 at 钟楼; the director signed in to the admin."""
    return control_room(director, {"甲": "监狱", "乙": "监狱", "丙": "钟楼"})


def post(client: Client, game: Game, op: str, **data: Any) -> Any:
    return client.post(control(game, f"{op}/"), data)


# --- who may look --------------------------------------------------------------------------------


def test_the_live_page_shows_the_map_every_character_and_the_window(room: Any) -> None:
    game, cast, client = room
    page = client.get(control(game))
    assert page.status_code == 200
    html = page.content.decode()
    for player in cast.values():
        assert f'data-character="{player.id}"' in html
    for place in state_of(game).places:
        assert f'data-place="{place}"' in html  # every place of the map
    assert "夜间行动" in html  # the phase
    assert "夜间行动截止" in html  # the next transition, with its countdown
    assert 'id="control-config"' in html
    assert "js/control.js" in html
    partial = client.get(control(game, "state/"))
    assert partial.status_code == 200
    assert "<html" not in partial.content.decode()
    assert 'data-place="监狱"' in partial.content.decode()


def test_another_directors_game_is_not_found_and_nothing_of_it_shows(
    room: Any, django_user_model: Any
) -> None:
    game, cast, _ = room
    other = django_user_model.objects.create_user(username="other", password="x", is_staff=True)
    theirs = admin_client(other)
    for url in (control(game), control(game, "state/")):
        response = theirs.get(url)
        assert response.status_code == 404
        assert "监狱" not in response.content.decode()
    before = Event.objects.filter(game=game).count()
    attempt = theirs.post(
        control(game, "adjust/"), {"character": cast["甲"].id, "hp": -50, "reason": "x"}
    )
    assert attempt.status_code == 404
    assert state_of(game).characters[cast["甲"].id].hp == 100
    assert Event.objects.filter(game=game).count() == before
    listing = theirs.get("/admin/royale/royalegame/")
    assert game.forum_title not in listing.content.decode()


def test_a_superuser_sees_every_control_room(room: Any, django_user_model: Any) -> None:
    game, _, _ = room
    boss = django_user_model.objects.create_superuser(username="boss", password="x")
    client = admin_client(boss)
    assert client.get(control(game)).status_code == 200
    assert game.forum_title in client.get("/admin/royale/royalegame/").content.decode()


def test_a_player_session_cannot_open_the_control_room(room: Any) -> None:
    game, cast, _ = room
    response = cast["甲"].client.get(control(game))
    assert response.status_code == 302  # to the admin login
    assert "/admin/login/" in response["Location"]


# --- interventions -------------------------------------------------------------------------------


def test_adjust_changes_hp_logs_director_and_reason_and_tells_only_the_character(
    room: Any, director: Any
) -> None:
    game, cast, client = room
    a, b = cast["甲"], cast["乙"]
    seen_by_b = len(private_feed(b))
    response = post(client, game, "adjust", character=a.id, hp=-30, mp=-10, reason="测试赛补偿")
    assert response.status_code == 302
    me = state_of(game).characters[a.id]
    assert (me.hp, me.mp) == (70, 90)
    assert state_of(game).characters[b.id].hp == 100  # exactly what it says, nothing else
    step = Event.objects.filter(game=game, kind="engine_step").latest("seq")
    assert step.payload["op"] == "adjust"
    mine = Event.objects.filter(game=game, seq__gte=step.seq)
    assert {(e.director_id, e.reason) for e in mine} == {(director.pk, "测试赛补偿")}
    told = [f for f in private_feed(a) if f["kind"] == "director_adjusted"]
    assert told[-1]["payload"]["hp"] == 70
    assert "导演调整了你的生命值" in told[-1]["payload"]["text"]
    assert len(private_feed(b)) == seen_by_b  # 乙 learns nothing
    assert a.me()["hp"] == 70
    replay_ok(game)


def test_an_intervention_without_a_reason_is_refused_and_changes_nothing(room: Any) -> None:
    game, cast, client = room
    before = Event.objects.filter(game=game).count()
    for op, data in (
        ("adjust", {"character": cast["甲"].id, "hp": -30}),
        ("relocate", {"character": cast["甲"].id, "place": "医院"}),
        ("give", {"character": cast["甲"].id, "kind": "recon:GPS"}),
        ("airdrop", {"selectors": "recon:GPS"}),
        ("extend", {"minutes": 5}),
        ("advance", {}),
        ("pause", {}),
    ):
        response = post(client, game, op, reason="   ", **data)
        assert response.status_code == 400, op
        assert "这个字段是必填项" in response.content.decode(), op
    assert Event.objects.filter(game=game).count() == before
    assert state_of(game).characters[cast["甲"].id].hp == 100


def test_the_service_itself_refuses_an_empty_reason(room: Any, director: Any) -> None:
    from games.engine.errors import InvalidInput

    game, cast, _ = room
    with pytest.raises(InvalidInput):
        services.royale_adjust(
            game=game, director=director, character=cast["甲"].id, hp=5, reason=" "
        )
    with pytest.raises(InvalidInput):
        services.window_extend(game=game, director=director, minutes=5, reason="")


def test_adjusting_hp_to_zero_kills_by_the_directors_ruling(room: Any) -> None:
    game, cast, client = room
    post(client, game, "adjust", character=cast["丙"].id, hp=-100, reason="违规处罚")
    row = Character.objects.get(pk=cast["丙"].id)
    assert (row.status, row.cause) == ("eliminated", "导演判定")  # not 特殊事件
    assert [f["kind"] for f in private_feed(cast["丙"])][-1] == "died"
    replay_ok(game)


def test_relocate_moves_the_character_and_only_it_learns_where(room: Any) -> None:
    game, cast, client = room
    a, c = cast["甲"], cast["丙"]
    seen_by_c = len(private_feed(c))
    post(client, game, "relocate", character=a.id, place="钟楼", reason="卡住了")
    assert state_of(game).characters[a.id].place == "钟楼"
    told = private_feed(a)[-1]
    assert (told["kind"], told["payload"]["place"]) == ("director_moved", "钟楼")
    assert len(private_feed(c)) == seen_by_c  # 丙 at 钟楼 is not told who arrived
    replay_ok(game)


def test_give_and_take_items_with_conservation_and_replay(room: Any) -> None:
    game, cast, client = room
    a, b = cast["甲"], cast["乙"]
    seen_by_b = len(private_feed(b))
    post(client, game, "give", character=a.id, kind="supply:[HP30]精油", reason="测试赛补给")
    given = state_of(game).characters[a.id].pack[-1]
    assert state_of(game).items[given].kind == "supply:[HP30]精油"
    assert private_feed(a)[-1]["kind"] == "item_granted"
    post(client, game, "take", item=given, reason="发错了")
    state = state_of(game)
    assert given not in state.characters[a.id].held
    assert state.gone[given] == GONE_VANISHED
    assert private_feed(a)[-1]["kind"] == "director_took"
    assert len(private_feed(b)) == seen_by_b
    vanished = Event.objects.filter(game=game, kind="items_vanished").latest("seq")
    assert vanished.payload == {"items": [given], "why": "director"}
    replay_ok(game)


def test_an_unknown_kind_is_refused_with_a_message(room: Any) -> None:
    game, cast, client = room
    before = Event.objects.filter(game=game).count()
    response = client.post(
        control(game, "give/"),
        {"character": cast["甲"].id, "kind": "weapon:green:没有这件", "reason": "x"},
        follow=True,
    )
    assert response.status_code == 200
    assert "输入无效" in response.content.decode()
    assert Event.objects.filter(game=game).count() == before


def test_airdrop_announces_names_to_everyone_but_no_place(room: Any) -> None:
    game, cast, client = room
    seen = len(cast["乙"].events())
    post(client, game, "airdrop", selectors="supply:[HP100]蜂王浆\nweapon:blue", reason="空投")
    feed = cast["乙"].events()[seen:]
    (drop,) = [f for f in feed if f["kind"] == "airdrop"]
    assert drop["payload"]["items"][0] == "[HP100]蜂王浆"
    state = state_of(game)
    log = Event.objects.filter(game=game, kind="intervention").latest("seq").payload
    places = {x["place"] for x in log["items"]}
    assert [f["kind"] for f in feed] == ["airdrop"]  # what 乙 learns: the names, nothing else
    assert not any(p in str(feed) for p in places)
    for x in log["items"]:
        assert x["item"] in state.places[x["place"]].items
    replay_ok(game)


def test_extend_window_moves_night_end_and_keeps_the_close_after_it(room: Any) -> None:
    game, cast, client = room
    post(client, game, "extend", minutes=10, reason="服务器卡顿")
    end = TimetableOverride.objects.get(game=game, day=1, kind="night_end").at
    assert end == dt.datetime(2026, 11, 1, 21, 35, tzinfo=BJ)
    game.refresh_from_db()
    table = game.timetable()
    assert table.due_at(1, "night_close") >= table.due_at(1, "night_end")
    assert [f["kind"] for f in cast["乙"].events()][-1] == "window_extended"
    logged = Event.objects.filter(game=game, kind="window_extended", audience="directors").get()
    assert logged.reason == "服务器卡顿"
    # the scheduler now keeps the window open past the usual 21:25
    game_services.transitions_run_due(now=bj(1, 21, 30))
    game.refresh_from_db()
    assert game.phase == "night"
    game_services.transitions_run_due(now=bj(1, 21, 36))
    game.refresh_from_db()
    assert game.phase == "late"


def test_close_now_pause_and_resume(room: Any) -> None:
    game, cast, client = room
    post(client, game, "pause", reason="排查问题")
    game.refresh_from_db()
    assert game.paused
    assert cast["甲"].act("search").json()["code"] == "game_paused"
    post(client, game, "pause", reason="继续")
    game.refresh_from_db()
    assert not game.paused
    post(client, game, "advance", reason="提前结束行动")
    game.refresh_from_db()
    assert game.phase == "late"
    assert state_of(game).phase == "late"
    replay_ok(game)


def test_interventions_are_allowed_while_paused(room: Any) -> None:
    game, cast, client = room
    post(client, game, "pause", reason="修正")
    post(client, game, "adjust", character=cast["甲"].id, mp=-20, reason="修正")
    assert state_of(game).characters[cast["甲"].id].mp == 80


def test_auto_publish_toggle(room: Any) -> None:
    game, _, client = room
    post(client, game, "auto_publish", enabled="on")
    assert RoyaleGame.objects.get(pk=game.pk).auto_publish
    post(client, game, "auto_publish")
    assert not RoyaleGame.objects.get(pk=game.pk).auto_publish
    assert Event.objects.filter(game=game, kind="setting_changed").count() == 2


def test_the_page_links_the_days_site_drafted_announcement(room: Any) -> None:
    game, _, client = room
    game_services.transitions_run_due(now=bj(2, 0, 1))  # night close and day 2 opens
    page = client.get(control(game)).content.decode()
    draft = game.announcements.get(by_site=True, day=2)
    assert f"/admin/games/announcement/{draft.pk}/change/" in page


def test_the_admin_list_links_each_control_room_and_the_change_page_leads_there(
    room: Any,
) -> None:
    game, _, client = room
    listing = client.get("/admin/royale/royalegame/").content.decode()
    assert control(game) in listing
    change = client.get(f"/admin/royale/royalegame/{game.pk}/change/")
    assert change.status_code == 302
    assert change["Location"] == control(game)
