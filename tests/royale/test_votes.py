"""投票 through the site: the API, the day page, the close, the control room, and no leaks."""

from __future__ import annotations

import re
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async

from games import eventlog
from games import services as game_services
from games.models import Event, Game
from tests.conftest import bj
from tests.royale.conftest import (
    Player,
    admin_client,
    control,
    empty_royale_game,
    give,
    night_one,
    players,
    refused,
    set_character,
    spawn,
    state_of,
)
from tests.royale.test_live import Recorder


def to_day_two(game: Game, clock: Any) -> dict[str, Player]:
    """Night 1: everyone spawns at 监狱 and 甲 holds a 金块 (白天票数+5) at its end; then day 2."""
    night_one(game)
    cast = players(game)
    spawn(cast, "监狱")
    give(game, "甲", "tool:金块")
    clock.move_to(bj(2, 12, 0))
    game_services.transitions_run_due(now=bj(2, 12, 0))  # night 1 closes, day 2 opens
    return cast


def close_the_day(clock: Any) -> None:
    clock.move_to(bj(2, 21, 0))
    game_services.transitions_run_due(now=bj(2, 21, 0))


def ballots(game: Game) -> Any:
    votes = state_of(game).flags.get("votes")
    return votes["log"] if votes else []


def vote_box(player: Player) -> str:
    page = player.client.get(f"/play/{player.game.number}/me/", {"view": "day"})
    assert page.status_code == 200
    found = re.search(r'<section class="r-card r-vote".*?</section>', page.content.decode(), re.S)
    assert found is not None, "no vote box on the day page"
    return found.group(0)


@pytest.fixture
def day_two(at_night_one: Any) -> tuple[Game, dict[str, Player], Any]:
    game = empty_royale_game("256", ("甲", "乙", "丙", "丁", "戊"))
    return game, to_day_two(game, at_night_one), at_night_one


# --- the API ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_vote_change_and_the_close_announcement(day_two: Any) -> None:
    game, cast, clock = day_two
    answer = cast["甲"].act("vote", target="丙")
    assert answer.status_code == 200, answer.content
    [frame] = answer.json()["events"]
    assert frame["kind"] == "vote_cast"
    assert frame["payload"] == {"day": 2, "target": cast["丙"].id, "target_name": "丙", "weight": 6}
    for voter in ("乙", "丙", "丁"):
        assert cast[voter].act("vote", target="丁").status_code == 200  # 丁: 3 against 丙's 6
    changed = cast["乙"].act("vote_change", target="丙")
    assert changed.status_code == 200, changed.content
    assert changed.json()["events"][0]["kind"] == "vote_changed"

    close_the_day(clock)
    public = [f for f in cast["戊"].events() if f["stream"] == "public"]
    [result] = [f["payload"] for f in public if f["kind"] == "vote_result"]
    assert result["revealed"] == [
        {
            "rank": 1,
            "character": cast["丙"].id,
            "name": "丙",
            "hp": 100,
            "mp": 100,
            "items": [],
            "place": "监狱",
        }
    ]
    # 统计投票结果并公布 (RULINGS 30): each candidate's weighted total, no voter.
    assert result["totals"] == [
        {"character": cast["丙"].id, "name": "丙", "total": 7},
        {"character": cast["丁"].id, "name": "丁", "total": 2},
    ]
    [line] = eventlog.event_lines(
        game=game, events=Event.objects.filter(game=game, kind="vote_result")
    )
    assert line.text.endswith("。候选人票数：丙 7 票、丁 2 票")
    # who voted for whom stays secret: 甲 and 乙 only voted
    assert "甲" not in line.text
    assert "乙" not in line.text
    [reward] = [f["payload"] for f in public if f["kind"] == "vote_reward"]
    assert (reward["name"], reward["die"]) == ("丙", 6)
    assert [i["id"] for i in cast["丙"].me()["items"]] == [reward["item"]["id"]]
    assert ballots(game) == []  # cleared after the tally


@pytest.mark.django_db
def test_bad_votes_get_a_clear_code_and_change_nothing(day_two: Any) -> None:
    game, cast, _ = day_two
    assert cast["甲"].act("vote", target="丙").status_code == 200
    before = ballots(game)
    refused(cast["甲"].act("vote", target="丁"), 409, "already_voted")
    refused(cast["乙"].act("vote_change", target="丁"), 409, "not_voted")
    refused(cast["乙"].act("vote", target="无名氏"), 400, "unknown_character")
    set_character(game, "戊", alive=False, hp=0)
    refused(cast["乙"].act("vote", target="戊"), 409, "target_dead")
    set_character(game, "丁", npc=True)
    refused(cast["乙"].act("vote", target=cast["丁"].id), 400, "invalid_target")
    assert cast["丁"].act("vote", target="甲").status_code == 403  # an NPC never acts as a player
    assert ballots(game) == before


@pytest.mark.django_db
def test_the_first_day_has_no_vote() -> None:
    game = empty_royale_game("256", ("甲", "乙"))
    cast = players(game)
    with time_machine.travel(bj(1, 12, 0), tick=False):
        game_services.transitions_run_due(now=bj(1, 12, 0))  # day 1 opens
        refused(cast["甲"].act("vote", target="乙"), 409, "no_vote_today")
        assert "第 2 天起每天白天投票" in vote_box(cast["甲"])


# --- the day page and the control room ----------------------------------------------------------


@pytest.mark.django_db
def test_the_vote_box_shows_ones_own_vote_and_offers_a_change(day_two: Any) -> None:
    _, cast, _ = day_two
    box = vote_box(cast["甲"])
    assert "你今天还没有投票" in box
    assert 'data-kind="vote"' in box
    assert "你的票数：6" in box
    assert all(f'<option value="{n}"' in box for n in ("甲", "乙", "丙", "丁", "戊"))
    cast["甲"].act("vote", target="丙")
    box = vote_box(cast["甲"])
    assert "你今天投给了：<b>丙</b>" in box
    assert 'data-kind="vote_change"' in box


@pytest.mark.django_db
def test_the_control_room_shows_the_live_tally_and_the_power_ranking(
    day_two: Any, director: Any
) -> None:
    game, cast, _ = day_two
    game.directors.add(director)
    for voter, target in (("乙", "丁"), ("丙", "丁"), ("丁", "戊"), ("戊", "戊")):
        assert cast[voter].act("vote", target=target).status_code == 200
    page = admin_client(director).get(control(game, "state/"))
    assert page.status_code == 200
    html = page.content.decode()
    votes = re.search(r'<section class="ctl-card ctl-votes".*?</section>', html, re.S)
    assert votes is not None
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", votes.group(0)))
    assert "当前最高票： 丁 （2 票）" in text
    assert "平票 2 人：丁 在今天第 2 次投票/改票时最先达到 2 票" in text
    assert "乙 丁 1" in text  # voter, target, weight
    assert "未投票：甲" in text
    power = re.search(r'<section class="ctl-card ctl-power".*?</section>', html, re.S)
    assert power is not None
    assert power.group(0).count("<tr>") == 1 + 5  # the header and the five living players


# --- no leaks -----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_nobody_learns_another_ballot_or_any_tally_before_the_close(
    at_night_one: Any,
) -> None:
    game = await database_sync_to_async(empty_royale_game)("256", ("甲", "乙", "丙", "丁", "戊"))
    cast = await database_sync_to_async(to_day_two)(game, at_night_one)
    recorders = {n: Recorder(game, cast[n]) for n in cast}
    for r in recorders.values():
        await r.connect()
    mine = {"甲": "丙", "乙": "丁", "丙": "丁", "丁": "丙"}  # 戊 does not vote
    for voter, target in mine.items():
        await recorders[voter].act("vote", target=target)
    await recorders["乙"].act("vote_change", target="丙")
    chosen = {name: {target} for name, target in mine.items()} | {"乙": {"丁", "丙"}, "戊": set()}
    mine["乙"] = "丙"
    for r in recorders.values():
        await r.drain()
        await r.fetch_all()

    for name, r in recorders.items():
        # a ballot is told to its voter only: no ballot, tally or other weight reaches anyone
        assert set(r.values("target_name")) == chosen[name], name
        assert set(r.values("weight")) <= {6 if name == "甲" else 1}
        assert r.values("voter") == r.values("ballots") == r.values("total") == []
        assert not {"vote_result", "vote_reward"} & set(r.values("kind"))  # nothing public yet
        # the page shows the player's own vote only
        [page] = r.html
        box = re.search(r'<p class="r-vote-mine">(.*?)</p>', page, re.S)
        assert box is not None
        assert re.findall(r"<b>(.*?)</b>", box.group(1)) == ([mine[name]] if name in mine else [])

    await database_sync_to_async(close_the_day)(at_night_one)
    for r in recorders.values():
        frames = await r.drain()
        [result] = [f for f in frames if f["kind"] == "vote_result"]
        assert [s["name"] for s in result["payload"]["revealed"]] == ["丙"]
        assert r.values("voter") == r.values("ballots") == []
        assert r.socket is not None
        await r.socket.disconnect()
