"""[061] 林峰's day vote at 关门 from the forum's vote thread: the close hands the engine the
final ballots, earliest naming post first (RULINGS 061-12: the vote, its change or the
director's proxy), so that 共死 takes the 地雷's first voter, 怨恨 chooses among the 洞察者's
voters and 公敌's voters get their 预言 and one of them a convert."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.contrib.messages import get_messages
from django.urls import reverse

from games import forum_services
from games import services as game_services
from games.ballots import day_close_at
from games.models import Character, DirectorForumAccount, ForumThread, Game
from tests.conftest import bj, on_forum
from tests.games.forum.fake_forum import PASSWORD, FakeForum, FakePost
from tests.werewolf.engine.support_061 import (
    GHOST,
    HOSTAGE,
    MINE,
    PILLAR,
    SEATS,
    SEER,
    TREASURE,
)
from tests.werewolf.players import START
from werewolf import services, store
from werewolf.engine.state import GameState

pytestmark = pytest.mark.django_db

NIGHT_0 = bj(1, 0) - dt.timedelta(hours=2)
DIRECTOR = "[061]导演"


class Day1:
    """A [061] game on the engine tests' seats (P1…P19), on the fake forum, through the
    prelude (the 幽灵 possesses P1, the 人质 chooses P2, the 铁柱's 票台 spares the seats in
    ``votable``) to day 1, with day 1's vote thread registered."""

    def __init__(
        self, director: Any, forum: FakeForum, votable: tuple[int, ...], *, thread: bool = True
    ) -> None:
        self.forum = forum
        game = game_services.game_create(
            kind="werewolf",
            ruleset="lin_feng_061",
            number="061",
            title="林峰",
            start_date=START,
            status="running",
        )
        Character.objects.bulk_create(
            Character(game=game, name=f"P{seat}", forum_username=f"P{seat}") for seat in SEATS
        )
        self.ids = {seat: Character.objects.get(game=game, name=f"P{seat}").pk for seat in SEATS}
        self.seat = {pk: seat for seat, pk in self.ids.items()}
        services.werewolf_setup(
            game=game, roles={self.ids[seat]: role for seat, role in SEATS.items()}
        )
        game.refresh_from_db()
        on_forum(game, forum.base_url, username=DIRECTOR, password=PASSWORD)
        DirectorForumAccount.objects.create(game=game, forum_username=DIRECTOR)  # its 代投
        services.werewolf_start(game=game, director=director, now=NIGHT_0)
        stage = [s for s in sorted(SEATS, reverse=True) if s not in votable][:6]  # 19 // 3
        for actor, skill, targets in [
            (GHOST, "possess", [1]),
            (HOSTAGE, "hostage", [2]),
            (PILLAR, "stage", stage),
        ]:
            chosen = [self.ids[t] for t in targets]
            services.werewolf_action_submit(
                game_id=game.pk,
                character_id=self.ids[actor],
                data={"kind": "use_skill", "skill": skill, "targets": chosen},
                key=None,
                now=NIGHT_0 + dt.timedelta(minutes=1),
            )
        services.werewolf_deadlines_run(now=NIGHT_0 + dt.timedelta(minutes=62))
        with time_machine.travel(bj(1, 8), tick=False):
            game_services.transitions_run_due(now=bj(1, 8))
            services.werewolf_night_publish(game=game, director=director, reason="")
        assert (store.state_load(game).day, store.state_load(game).phase) == (1, "day")
        self.tid = forum.thread("[061] 第1天 投票帖").tid
        if thread:
            ForumThread.objects.create(game=game, day=1, kind="vote", external_id=str(self.tid))
        self.game: Game = game
        self.minute = 0

    def post(self, author: str, text: str) -> FakePost:
        self.minute += 1
        return self.forum.post(self.tid, author, text, at=bj(1, 10, self.minute))

    def vote(self, voter: int, target: int) -> FakePost:
        return self.post(f"P{voter}", f"投票对象：P{target}<br />投票理由：测试")

    def change(self, voter: int, target: int, vote: FakePost) -> FakePost:
        quoted = self.forum.quote(vote, web=True)  # a change replies to its vote's floor
        return self.post(f"P{voter}", f"{quoted}改票对象：P{target}<br />改票理由：改主意")

    def proxy(self, voter: int, target: int) -> FakePost:
        return self.post(DIRECTOR, f"代投：P{voter}<br />投票对象：P{target}")

    def portal_vote(self, voter: int, target: int) -> None:
        """A ballot on the portal (a day with no vote thread), a minute after the last."""
        self.minute += 1
        services.werewolf_action_submit(
            game_id=self.game.pk,
            character_id=self.ids[voter],
            data={"kind": "vote", "target": self.ids[target]},
            key=None,
            now=bj(1, 10, self.minute),
        )

    def close(self) -> GameState:
        """关门, and the 天使's 10 minutes for 偏爱 let pass: the one voted out goes out."""
        close = day_close_at(game=self.game, day=1)
        after = close + dt.timedelta(minutes=1)
        with time_machine.travel(after, tick=False):
            game_services.transitions_run_due(now=after)
        services.werewolf_deadlines_run(now=close + dt.timedelta(minutes=11))
        return store.state_load(self.game)

    def outs(self, state: GameState) -> list[tuple[int, str]]:
        return [(self.seat[o.id], o.cause) for o in state.outs]

    def sync(self) -> None:
        thread = ForumThread.objects.get(game=self.game, day=1, kind="vote")
        with time_machine.travel(bj(1, 12), tick=False):
            forum_services.forum_thread_sync(thread=thread)


def test_together_the_mines_first_voter_by_its_naming_post_is_out_with_it(
    director: Any, fake_forum: FakeForum
) -> None:
    """如果地雷在白天被投票出局，则第一个投票给地雷的玩家出局: P6 voted first, but for P1,
    and changed to the 地雷 after P3 had named it; P3's is the first ballot for the 地雷."""
    day = Day1(director, fake_forum, votable=(MINE,))
    first = day.vote(6, 1)
    day.vote(3, MINE)
    day.change(6, MINE, first)
    day.vote(4, MINE)

    state = day.close()

    assert day.outs(state) == [(MINE, "投票"), (3, "共死")]
    step = day.game.events.get(kind="engine_step", payload__op="day_vote").payload
    assert [b[:3] for b in step["ballots"]] == [
        [day.ids[3], day.ids[MINE], 2],
        [day.ids[6], day.ids[MINE], 3],
        [day.ids[4], day.ids[MINE], 4],
    ]
    assert state.to_json() == store.replay(game=day.game).to_json()  # type: ignore[union-attr]


def test_together_a_directors_proxy_names_the_first_voter_when_it_is_posted(
    director: Any, fake_forum: FakeForum
) -> None:
    """代投 counts from the director's post: P4's proxy, posted first, makes P4 the 地雷's
    first voter, not P3 whose own vote came after."""
    day = Day1(director, fake_forum, votable=(MINE,))
    day.proxy(4, MINE)
    day.vote(3, MINE)
    day.sync()

    state = day.close()

    assert day.outs(state) == [(MINE, "投票"), (4, "共死")]


def test_grudge_the_seer_chooses_among_its_voters_from_the_thread(
    director: Any, fake_forum: FakeForum
) -> None:
    """若洞察者在白天被投票出局，可从投票给洞察者的角色中选择一人: the window lists the thread's
    voters for the 洞察者, not the one who voted elsewhere."""
    day = Day1(director, fake_forum, votable=(SEER,))
    day.vote(3, SEER)
    day.vote(4, SEER)
    day.vote(5, 1)

    state = day.close()

    assert (SEER, "投票") in day.outs(state)
    grudge = [w for w in state.windows if w["skill"] == "grudge"]
    assert [sorted(day.seat[v] for v in w["voters"]) for w in grudge] == [[3, 4]]


def test_enemy_the_treasures_voters_on_the_thread_get_a_prophecy_and_one_a_convert(
    director: Any, fake_forum: FakeForum
) -> None:
    """宝藏在白天因投票而出局时，所有投票给宝藏的角色，在当晚可以使用一次<预言>，且在所有投票给
    宝藏的角色中，随机选择一名角色，该角色可选择一人……加入此角色当前所在阵营."""
    day = Day1(director, fake_forum, votable=(TREASURE,))
    day.vote(5, TREASURE)
    day.vote(6, TREASURE)
    day.vote(3, 1)

    state = day.close()

    assert (TREASURE, "投票") in day.outs(state)
    prophets = [s for s in (3, 5, 6) if "prophecy_once" in state.players[day.ids[s]].skills]
    assert prophets == [5, 6]
    pickers = [day.seat[w["actor"]] for w in state.windows if w["skill"] == "enemy_convert"]
    assert len(pickers) == 1
    assert pickers[0] in (5, 6)


def test_together_on_the_portal_the_first_voter_is_the_earliest_ballot_in_effect(
    director: Any, fake_forum: FakeForum
) -> None:
    """A day with no vote thread is settled from the portal's ballots, with the time each
    was named: P6 voted first, for P1, and changed to the 地雷 after P3 named it."""
    day = Day1(director, fake_forum, votable=(MINE,), thread=False)
    day.portal_vote(6, 1)
    day.portal_vote(3, MINE)
    day.portal_vote(6, MINE)
    day.portal_vote(4, MINE)

    state = day.close()

    assert day.outs(state) == [(MINE, "投票"), (3, "共死")]
    assert state.to_json() == store.replay(game=day.game).to_json()  # type: ignore[union-attr]


def test_together_a_directors_count_with_its_ballots(director: Any, fake_forum: FakeForum) -> None:
    """The director settles the day (``werewolf_day_vote``) with the final ballots, earliest
    first: the first of them for the 地雷 goes out with it; without them, nobody voted."""
    day = Day1(director, fake_forum, votable=(MINE,), thread=False)
    mine, p3, p4 = day.ids[MINE], day.ids[3], day.ids[4]
    with time_machine.travel(bj(1, 12), tick=False):
        services.werewolf_day_vote(
            game=day.game, director=director, totals={mine: 2}, ballots=[(p4, mine), (p3, mine)]
        )
    services.werewolf_deadlines_run(now=bj(1, 12, 11))  # the 天使 lets 偏爱 pass

    state = store.state_load(day.game)

    assert day.outs(state) == [(MINE, "投票"), (4, "共死")]
    assert state.to_json() == store.replay(game=day.game).to_json()  # type: ignore[union-attr]


def test_together_the_directors_count_typed_in_the_night_room(
    director: Any, director_client: Any, fake_forum: FakeForum
) -> None:
    """The night room's 手动计票: the director types the final ballots (投票者 目标, earliest
    first); the engine weighs them and the first voter for the 地雷 goes out with it. A line
    that is not two names is refused, naming the line, and nothing is settled."""
    day = Day1(director, fake_forum, votable=(MINE,), thread=False)
    game = day.game
    game.directors.add(director)
    room = reverse("admin:werewolf_night", args=[game.pk])
    act = reverse("admin:werewolf_night_act", args=[game.pk, "count"])
    with time_machine.travel(bj(1, 12), tick=False):
        assert "手动计票" in director_client.get(room).content.decode()
        bad = director_client.post(act, {"ballots": "P4 P15\nP3 谁", "reason": "论坛无法访问"})
        assert bad.status_code == 302
        said = [str(m) for m in get_messages(bad.wsgi_request)]
        assert any("第 2 行" in m for m in said), said
        assert store.state_load(game).flags.get("voted") != 1
        good = director_client.post(act, {"ballots": "P4 P15\nP3 → P15", "reason": "手动计票"})
        assert good.status_code == 302
    services.werewolf_deadlines_run(now=bj(1, 12, 11))  # the 天使 lets 偏爱 pass

    state = store.state_load(game)

    assert day.outs(state) == [(MINE, "投票"), (4, "共死")]
    assert state.to_json() == store.replay(game=game).to_json()  # type: ignore[union-attr]
