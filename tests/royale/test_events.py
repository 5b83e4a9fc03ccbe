"""The daily events and NPCs through the site: the control room's pick and riddle, the day page,
whispers to 阿呆 by name, claiming a reward, and 百鬼夜行 on the shared character rows."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from games import services as game_services
from games.models import Character, CharacterStatus, Event, Game
from royale.engine.draft import open_draft
from royale.engine.state import CAUSE_ATTACK, CAUSE_BLEEDING, CAUSE_DROWNED
from tests.conftest import bj
from tests.royale.conftest import (
    Player,
    aim,
    control,
    control_room,
    empty_royale_game,
    night_one,
    players,
    spawn,
    state_edit,
    state_of,
)

pytestmark = [pytest.mark.django_db, pytest.mark.day_events]

ADAI = -1001


@pytest.fixture
def room(director: Any, at_night_one: Any) -> tuple[Game, dict[str, Player], Client]:
    """[256] night 1 open, 甲 乙 丙 spawned at 监狱; the director signed in to the admin."""
    return control_room(director, dict.fromkeys(("甲", "乙", "丙"), "监狱"))


def test_the_director_picks_tomorrows_event_and_the_day_opens_with_it(room: Any) -> None:
    game, cast, client = room
    page = client.get(control(game)).content.decode()
    assert 'id="ctl-events"' in page
    assert 'id="e-event_choose"' in page
    assert "阿呆和阿笨" in page  # today's event, with the NPCs' places for the director
    response = client.post(
        control(game, "events/event_choose/"), {"pick": "erie", "reason": "剧情需要"}
    )
    assert response.status_code == 302
    logged = Event.objects.get(game=game, kind="intervention", payload__op="event_choose")
    assert logged.reason == "剧情需要"
    assert logged.payload["pick"] == "erie"
    game_services.transitions_run_due(now=bj(2, 0, 1))  # night 1 closes, day 2 opens
    (announced,) = cast["甲"].heard("day_event", stream="public")[-1:]
    assert announced["name"] == "伊利湖的入侵"
    day_page = cast["甲"].client.get(f"/play/{game.number}/me/?view=day").content.decode()
    assert "伊利湖的入侵" in day_page
    assert "今日事件" in day_page
    call_command("replay_game", game.number)  # the choice is a logged, replayable step


def test_a_refused_choice_changes_nothing(room: Any) -> None:
    game, _, client = room
    client.post(control(game, "events/event_choose/"), {"pick": "storm", "reason": "x"})
    assert not Event.objects.filter(game=game, kind="intervention").exists()
    assert "event_plan" not in state_of(game).flags


def test_the_riddle_is_announced_and_a_whisper_to_阿呆_by_name_answers_it(room: Any) -> None:
    game, cast, client = room
    client.post(control(game, "events/riddle/"), {"text": "钟声响起的地方", "reason": "每日谜题"})
    assert cast["乙"].heard("riddle", stream="public")[0]["riddle"] == "钟声响起的地方"
    place = state_of(game).characters[ADAI].place
    response = cast["甲"].act("whisper", target="阿呆", text=place)
    assert response.status_code == 200, response.content
    assert state_of(game).flags["riddle_answers"]["right"] == [cast["甲"].id]
    game_services.transitions_run_due(now=bj(2, 0, 1))
    after = state_of(game)
    assert "tool:2$" in [after.items[i].kind for i in after.characters[cast["甲"].id].pack]


def test_a_reward_is_claimed_through_the_actions_endpoint(room: Any) -> None:
    game, cast, _ = room
    me = cast["丙"]

    def offer(state: Any) -> None:
        state.characters[me.id].flags["reward_offers"] = [
            {
                "event": "broadcast",
                "name": "永不停歇的电波",
                "from_day": 1,
                "options": ["supply:[HP60]甘草糖", "supply:[MP50]咖啡"],
            }
        ]

    state_edit(game, offer)
    night_page = me.client.get(f"/play/{game.number}/me/?view=night").content.decode()
    assert 'data-kind="claim_reward"' in night_page
    refused = me.act("claim_reward", target_kind="supply:[HP100]蜂王浆")
    assert refused.status_code == 409
    assert refused.json()["code"] == "not_an_option"
    claimed = me.act("claim_reward", target_kind="supply:[HP60]甘草糖")
    assert claimed.status_code == 200, claimed.content
    assert [i["name"] for i in claimed.json()["me"]["items"]] == ["[HP60]甘草糖"]


def test_百鬼夜行_revives_the_rows_and_sends_back_those_who_kill_nobody(at_night_one: Any) -> None:
    game = empty_royale_game("256", ("甲", "乙", "丙", "丁", "戊"))
    night_one(game)
    cast = players(game)
    spawn(cast, "监狱")
    ids = {name: p.id for name, p in cast.items()}
    out = (("乙", CAUSE_ATTACK, 1), ("丙", CAUSE_BLEEDING, 2), ("丁", CAUSE_DROWNED, 0))

    def three_out(state: Any) -> Any:
        d = open_draft(state, random.Random(0))
        for name, cause, step in out:
            d.kill(ids[name], cause, step)
        return d.finish()

    state_edit(game, three_out)
    for order, (name, cause, _) in enumerate(out, start=1):
        Character.objects.filter(pk=ids[name]).update(
            status=CharacterStatus.ELIMINATED,
            cause=cause,
            elimination_order=order,
            eliminated_day=1,
            death_public=True,
        )
    at_night_one.move_to(bj(2, 0, 1))
    game_services.transitions_run_due(now=bj(2, 0, 1))  # day 2: two of five alive
    assert cast["甲"].heard("night_parade", stream="public")
    rows = {c.name: c for c in Character.objects.filter(game=game)}
    assert rows["乙"].status == rows["丙"].status == CharacterStatus.ALIVE
    assert rows["丁"].status == CharacterStatus.ELIMINATED  # the drowned cannot return
    at_night_one.move_to(bj(2, 21, 12))
    game_services.transitions_run_due(now=bj(2, 21, 12))  # night 2 opens
    now = state_of(game)
    place = next(p for p in now.places_on_map() if p not in now.shrink_tonight and p != "教堂")
    for name in ("乙", "丙"):  # revenants come back unspawned
        assert cast[name].act("spawn", place=place).status_code == 200
    for name in ("甲", "戊"):
        assert cast[name].act("move", place=place).status_code == 200
    handle = aim(game, "甲", "乙")
    state_edit(game, lambda s: setattr(s.characters[ids["乙"]], "hp", 5))
    assert cast["甲"].act("attack", handle=handle).status_code == 200  # 乙 falls before killing
    second = Character.objects.get(pk=ids["乙"])
    assert second.status == CharacterStatus.ELIMINATED
    assert (second.cause, second.elimination_order) == (CAUSE_ATTACK, 1)  # its earlier death
    assert not second.death_public  # tonight's fall waits for the morning report
    at_night_one.move_to(bj(3, 0, 1))
    game_services.transitions_run_due(now=bj(3, 0, 1))  # night 2 closes: 丙 killed nobody
    back = Character.objects.get(pk=ids["丙"])
    assert (back.status, back.cause, back.elimination_order) == (
        CharacterStatus.ELIMINATED,
        CAUSE_BLEEDING,
        2,
    )
    assert back.death_public
