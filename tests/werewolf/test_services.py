"""The shell's engine steps: the deal, the scheduler's deadlines, the night room, the day's
vote, the log that rebuilds the state, the ballots' weights."""

from __future__ import annotations

import datetime as dt
import json
from fractions import Fraction
from typing import Any

import pytest
import time_machine
from django.db import transaction

from games import card_services
from games import services as game_services
from games.engine.ballots import vote_weights_for
from games.engine.errors import InvalidInput
from games.models import Card, Character, CharacterStatus, ForumPost, ForumThread
from games.services import events_append, game_lock
from tests.conftest import bj
from tests.werewolf.players import mark_unbuilt, players, werewolf_game
from werewolf import services, store
from werewolf.engine import tally
from werewolf.engine.errors import RulesetNotBuilt
from werewolf.errors import AlreadySetUp, AlreadyStarted
from werewolf.models import WerewolfGame

pytestmark = pytest.mark.django_db

# Night 1 opens two hours before day 1's 00:00 open.
NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)


def test_a_game_of_a_post_whose_ruleset_is_not_written_yet_cannot_be_dealt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A post registered for the forum's cards and ballots whose rules are still being written
    (``"built": false``, as [096] was): the deal is refused with its code, never a crash, and
    nothing is stored."""
    mark_unbuilt(monkeypatch, "conan_096")
    game = game_services.game_create(
        kind="werewolf", ruleset="conan_096", number="096", title="名侦探柯南", status="running"
    )
    Character.objects.bulk_create(Character(game=game, name=f"角色{n}") for n in range(15))
    with pytest.raises(RulesetNotBuilt) as err:
        services.werewolf_setup(game=game)
    assert err.value.code == "ruleset_not_built"
    assert "尚未" in err.value.text
    assert not WerewolfGame.objects.filter(pk=game.pk).exists()
    assert not game.events.exists()


def test_the_start_sends_each_player_only_its_last_deals_card(director: Any) -> None:
    """The seed's deal, then 调整身份 (先知 ↔ 村民, 狼人 ↔ 村民): nobody hears a card of the
    seed's deal, and at the start each player gets the adjusted deal's card and team only."""
    game, ids = werewolf_game()
    cast = players(game)
    assert all(p.heard("role_card") == [] and p.heard("team") == [] for p in cast.values())
    swapped = {ids[s]: r for s, r in {**_seats(), 6: "villager", 15: "seer"}.items()}
    services.werewolf_roles_set(game=game, director=director, roles=swapped, reason="换位")
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    assert [c["name"] for c in cast[6].heard("role_card")] == ["村民"]
    assert [c["name"] for c in cast[15].heard("role_card")] == ["先知"]
    assert "先知" not in json.dumps(cast[6].me(), ensure_ascii=False)


def test_the_start_sends_each_player_its_own_card_and_a_second_deal_is_refused(
    director: Any,
) -> None:
    game, ids = werewolf_game()
    cast = players(game)
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    assert [c["name"] for c in cast[6].heard("role_card")] == ["先知"]
    assert [c["name"] for c in cast[1].heard("role_card")] == ["狼人"]
    team = cast[1].heard("team")[0]["members"]
    assert sorted(m["id"] for m in team) == [ids[s] for s in (1, 2, 3, 4)]
    assert cast[15].heard("team") == []
    with pytest.raises(AlreadySetUp):
        services.werewolf_setup(game=game)


def test_the_director_adjusts_the_roles_before_the_start_only(director: Any) -> None:
    game, ids = werewolf_game()
    swapped = {ids[s]: r for s, r in {**_seats(), 6: "villager", 15: "seer"}.items()}
    state = services.werewolf_roles_set(game=game, director=director, roles=swapped, reason="换位")
    assert state.players[ids[15]].role == "seer"
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    with pytest.raises(AlreadyStarted):
        services.werewolf_roles_set(game=game, director=director, roles=swapped, reason="再换")


def _seats() -> dict[int, str]:
    from tests.werewolf.engine.support import SEATS

    return dict(SEATS)


def test_the_scheduler_forfeits_late_skills_and_drafts_the_night(director: Any) -> None:
    game, _ = werewolf_game()
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    # 关门三十分钟后 … 视为放弃技能: nothing is due a minute early.
    assert services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=29)) == 0
    assert services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=31)) == 1
    state = store.state_load(game)
    assert state.night["steps"]["seer"]["state"] == "closed"
    assert state.night["steps"]["witch"]["state"] == "open"  # 通灵 now, half an hour from it
    assert services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62)) == 1
    state = store.state_load(game)
    assert state.phase == "late"
    assert state.result is not None
    assert services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=90)) == 0


def test_an_override_needs_a_reason_and_publishes_the_directors_hits(director: Any) -> None:
    game, ids = werewolf_game()
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62))
    draft = services.werewolf_night_resolve(game=game, director=director)
    assert draft["hits"] == []  # everyone forfeited: 平安夜
    hits = {"hits": [[ids[16], "杀人"]]}
    with pytest.raises(InvalidInput):
        services.werewolf_night_publish(game=game, director=director, reason=" ", overrides=hits)
    services.werewolf_night_publish(game=game, director=director, reason="补录狼刀", overrides=hits)
    row = Character.objects.get(pk=ids[16])
    assert row.status == CharacterStatus.ELIMINATED
    assert row.cause == services.NIGHT_CAUSE  # no hint of how it died
    override = game.events.get(kind="night_override")
    assert override.payload["applied"] == [[ids[16], "杀人"]]
    assert override.payload["engine"] == []
    assert override.reason == "补录狼刀"
    assert override.director == director


def _day_1(director: Any) -> tuple[Any, dict[int, int]]:
    """Night 1 played out by the scheduler and published at day 1's open (关门 at 21:00)."""
    game, ids = werewolf_game()
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62))
    with time_machine.travel(bj(1, 8), tick=False):
        game_services.transitions_run_due(now=bj(1, 8))
        services.werewolf_night_publish(game=game, director=director, reason="")
    return game, ids


def test_the_day_close_opens_the_next_night_after_the_vote_and_the_log_replays(
    director: Any,
) -> None:
    game, ids = _day_1(director)
    state = store.state_load(game)
    totals = tally(state, {ids[s]: ids[2] for s in (5, 6, 7, 8, 9)})
    assert totals == {ids[2]: Fraction(5)}
    services.werewolf_day_vote(game=game, director=director, totals=totals)
    assert Character.objects.get(pk=ids[2]).cause == "投票"
    with time_machine.travel(bj(1, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 21, 1))
    state = store.state_load(game)
    assert (state.day, state.phase) == (2, "night")
    assert state.to_json() == store.replay(game=game).to_json()  # type: ignore[union-attr]


def test_the_ballots_weigh_the_sheriff_from_the_games_state(director: Any) -> None:
    game, ids = werewolf_game()
    row = store.state_load(game)
    row.sheriff = ids[8]
    store.state_save(game=game, state=row)
    mods = vote_weights_for("werewolf").modifiers(game.pk, 1)
    assert mods.weights[ids[8]].value == Fraction(3, 2)
    assert mods.role_holders == {"高僧": ids[12]}


def test_the_day_close_settles_the_vote_threads_weighted_ballots(director: Any) -> None:
    """警长 P8 weighs 1.5 (带队): P3 with the 警长 and one more beats P2's two votes."""
    game, ids = werewolf_game()
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62))
    with time_machine.travel(bj(1, 8), tick=False):
        services.werewolf_night_publish(game=game, director=director, reason="")
    state = store.state_load(game)
    state.sheriff = ids[8]
    store.state_save(game=game, state=state)
    thread = ForumThread.objects.create(game=game, day=1, kind="vote", external_id="99")
    for floor, (voter, target) in enumerate([(6, 2), (7, 2), (8, 3), (9, 3)], start=2):
        ForumPost.objects.create(
            thread=thread,
            external_id=str(9000 + floor),
            floor=floor,
            author=f"P{voter}",
            character_id=ids[voter],
            posted_at=bj(1, 10, floor),
            text=f"投票对象：P{target}\n投票理由：测试",
            content_hash=str(floor),
        )
    with time_machine.travel(bj(1, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 21, 1))
    result = game.events.get(kind="vote_result").payload
    assert result["totals"][0] == [ids[3], "P3", "5/2"]
    assert Character.objects.get(pk=ids[3]).cause == "投票"
    assert store.state_load(game).phase == "night"


def test_auto_publish_publishes_the_draft_at_the_days_open(director: Any) -> None:
    game, _ = werewolf_game()
    WerewolfGame.objects.filter(pk=game.pk).update(auto_publish=True)
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62))
    with time_machine.travel(bj(1, 0, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 0, 1))
    assert (store.state_load(game).phase, game.events.filter(kind="day_open").count()) == (
        "day",
        1,
    )


def test_a_red_card_after_the_deal_is_the_engines(director: Any) -> None:
    game, ids = werewolf_game()
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    with transaction.atomic():
        locked = game_lock(game)
        _, events = services.werewolf_red_card(locked, Character.objects.get(pk=ids[11]), NIGHT_1)
        events_append(game=locked, events=events, now=NIGHT_1)
    assert not store.state_load(game).players[ids[11]].alive
    out = game.events.get(kind="out", audience="public").payload
    assert (out["role"], out["cause"]) == ("猎人", "红牌罚下")
    assert not store.state_load(game).windows  # no 最后一枪 after a red card


def test_a_draft_left_unpublished_is_published_at_the_close_so_the_next_night_opens(
    director: Any,
) -> None:
    game, _ = werewolf_game()
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62))
    with time_machine.travel(bj(1, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 21, 1))
    opened = game.events.filter(kind__in=["day_open", "night_open"]).order_by("seq")
    assert [e.kind for e in opened] == ["night_open", "day_open", "night_open"]
    assert (store.state_load(game).day, store.state_load(game).phase) == (2, "night")


def test_players_are_reminded_to_vote_two_hours_before_the_close_once(director: Any) -> None:
    """在投票结束前一个半至两个小时之间提醒玩家投票: 关门 21:00, the reminder at 19:00."""
    game, _ids = _day_1(director)
    assert services.werewolf_vote_reminders_run(now=bj(1, 18, 59)) == 0
    assert services.werewolf_vote_reminders_run(now=bj(1, 19, 0)) == 1
    assert services.werewolf_vote_reminders_run(now=bj(1, 19, 30)) == 0  # once a day
    reminder = game.events.get(kind="vote_reminder")
    assert reminder.audience == "public"
    assert reminder.payload["day"] == 1
    assert reminder.payload["text"] == (
        "第1天的投票将于21:00（北京时间）截止，请尚未投票的玩家尽快投票。"
    )
    cast = players(game)
    assert [r["day"] for r in cast[15].heard("vote_reminder")] == [1]


def test_no_reminder_outside_the_span_or_once_the_day_is_voted(director: Any) -> None:
    """Not more than two hours before the close, nor less than an hour and a half."""
    game, ids = _day_1(director)
    assert services.werewolf_vote_reminders_run(now=bj(1, 18, 59)) == 0
    assert services.werewolf_vote_reminders_run(now=bj(1, 19, 31)) == 0  # the span missed
    assert services.werewolf_vote_reminders_run(now=bj(1, 21, 0)) == 0  # the close has come
    state = store.state_load(game)
    services.werewolf_day_vote(game=game, director=director, totals=tally(state, {ids[6]: ids[2]}))
    assert services.werewolf_vote_reminders_run(now=bj(1, 19, 30)) == 0
    assert not game.events.filter(kind="vote_reminder").exists()


def test_a_red_cards_faction_decision_makes_the_faction_lose_in_the_engine(
    director: Any, staff: Any
) -> None:
    """判下红牌的同时，导演有权视情况决定是否直接使该玩家所在的阵营判负: the decision in the card
    ledger acts in the game at once, replays, and cannot be taken back."""
    game, ids = _day_1(director)

    def red(seat: int) -> Any:
        card = card_services.card_add(
            game=game,
            director=director,
            character=Character.objects.get(pk=ids[seat]),
            color="red",
            reason="11.1",
        )
        card_services.cards_review(cards=[card], reviewer=staff, confirm=True, reason="属实")
        return card

    wolf = red(2)
    assert store.state_load(game).players[ids[2]].alive is False
    card_services.card_faction_decide(card=wolf, director=director, loses=True, reason="恶意")
    state = store.state_load(game)
    assert state.lost == ("wolves",)
    assert state.winner is None
    forfeit = game.events.get(kind="faction_forfeit")
    assert (forfeit.audience, forfeit.payload["faction_name"]) == ("public", "狼人阵营")
    decision = game.events.get(kind="faction_decision")
    assert decision.payload["effect"] == "阵营判负。"
    with pytest.raises(card_services.FactionAlreadyLost):
        card_services.card_faction_decide(card=wolf, director=director, loses=False, reason="改")
    assert state.to_json() == store.replay(game=game).to_json()  # type: ignore[union-attr]

    white = red(5)
    card_services.card_faction_decide(card=white, director=director, loses=True, reason="恶意")
    state = store.state_load(game)
    assert (state.winner, state.phase) == ("village", "over")
    game.refresh_from_db()
    assert game.status == "finished"


def test_a_wolf_missing_the_forced_election_gets_a_proposed_yellow_card(director: Any) -> None:
    """必须行使特权的角色未在规定时间内行使 → 黄牌 (099 5(3)), proposed for the staff's review
    when the scheduler forfeits the forced 选举; a skill that is not forced (预言) costs none."""
    game, ids = werewolf_game()
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    cast = players(game)
    with time_machine.travel(NIGHT_1 + dt.timedelta(minutes=5), tick=False):
        for seat in (1, 2, 3):
            cast[seat].use("elect", ids[1])
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=31))
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62))
    cards = list(Card.objects.filter(game=game))
    assert [(c.character_id, c.reason, c.color, c.status, c.day) for c in cards] == [
        (ids[4], "5.3", "yellow", "proposed", 1)
    ]
    assert cards[0].facts == {"skill": "elect"}
    proposed = game.events.get(kind="cards_proposed")
    assert proposed.audience == "directors"


def test_a_confirmed_missed_duty_card_is_not_announced_while_the_game_runs(
    director: Any, staff: Any
) -> None:
    """Only a wolf can miss 选举: announcing a 5(3) card at all — even without its reason —
    would out it. While the game runs the card goes to its player alone; the directors see it."""
    game, ids = werewolf_game()
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62))
    missed = list(Card.objects.filter(game=game, reason="5.3"))
    assert {c.character_id for c in missed} == {ids[s] for s in (1, 2, 3, 4)}
    card_services.cards_review(cards=missed, reviewer=staff, confirm=True, reason="属实")
    assert not game.events.filter(kind="card", audience="public").exists()
    cast = players(game)
    wolf = cast[1].heard("card")
    assert [(c["character"], c["reason"]) for c in wolf] == [(ids[1], "5.3")]
    assert "必须行使特权" in wolf[0]["reason_text"]
    assert cast[15].heard("card") == []
    assert all("5.3" not in json.dumps(f) for f in cast[15].events())
