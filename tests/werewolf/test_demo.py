"""The role-game demos: [099] (18 characters), [061] (19) and [096] (22), dealt from the seed,
the first night (096: day 1) open now, bots acting through the real service with the engine's
bots' choices, three players of each open to log in. A demo of a ruleset still being written
loads only under ``WEREWOLF_PREVIEW_RULESETS``."""

from __future__ import annotations

import datetime as dt
import io
import random
from typing import Any

import pytest
import time_machine
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from games import services as game_services
from games.ballots import day_close_at
from games.models import Character, Event, Game
from tests.conftest import api_login, bj
from werewolf import demo, services, tasks
from werewolf.engine import ballots, get_ruleset
from werewolf.engine.bots import pending
from werewolf.engine.state import DAY, LATE, NIGHT
from werewolf.selectors import werewolf_state

pytestmark = pytest.mark.django_db


def test_loading_twice_keeps_one_demo_with_night_one_open_and_prints_the_logins() -> None:
    call_command("werewolf_demo_load", stdout=io.StringIO())
    out = io.StringIO()
    call_command("werewolf_demo_load", stdout=out)
    built = [spec for spec in demo.DEMOS.values() if demo.available(spec)]
    assert Game.objects.filter(kind="werewolf").count() == len(built) == 3
    printed = out.getvalue()
    assert "WEREWOLF_PREVIEW_RULESETS=1" not in printed  # every ruleset is built
    for spec in built:
        game = Game.objects.get(number=spec.number)
        assert game.ruleset == spec.ruleset
        players = get_ruleset(spec.ruleset).players
        assert Character.objects.filter(game=game).count() == players
        assert Character.objects.filter(game=game, bot=True).count() == players - 3
        state = werewolf_state(game=game)
        # [099] starts with night 1; [061] with its prelude (附身, 遇难, the first 票台); [096]
        # with day 1 (its empty 开局夜 published at load)
        assert (state.day, state.phase) in ((1, NIGHT), (0, NIGHT), (1, DAY))
        for name in spec.humans:
            assert name in printed
        assert f"/admin/werewolf/werewolfgame/{game.pk}/night/" in printed
    # the beat's one task drives the bots of both
    assert tasks.bots_act() > 0
    for spec in built:
        acted = Event.objects.filter(
            game__number=spec.number, kind="engine_step", payload__op="action"
        )
        assert acted.exists(), spec.number


def test_a_human_logs_in_and_sees_a_role_card() -> None:
    loaded = demo.demo_load()
    client = Client()
    assert api_login(client, loaded.game.number, loaded.passwords[0].secret).status_code == 200
    page = client.get(f"/play/{loaded.game.number}/me/").content.decode()
    role = werewolf_state(game=loaded.game).players[loaded.passwords[0].character.pk].role
    assert "身份卡" in page
    assert get_ruleset("arknights_099").roles[role].name in page


def test_bots_act_through_the_service_and_the_wolves_agree() -> None:
    loaded = demo.demo_load()
    applied = demo.bots_act(now=timezone.now(), brain=random.Random(7))
    assert applied > 0
    steps = Event.objects.filter(game=loaded.game, kind="engine_step", payload__op="action")
    assert steps.count() == applied
    bots = set(Character.objects.filter(game=loaded.game, bot=True).values_list("pk", flat=True))
    assert {s.payload["action"]["actor"] for s in steps} <= bots
    state = werewolf_state(game=loaded.game)
    wolves = {p.id for p in state.players.values() if p.role == "wolf"}
    kills = {t for a, t in state.night["subs"].get("wolf_kill", {}).items() if int(a) in wolves}
    assert len(kills) <= 1
    # a second pass finds nothing new to do for the steps already submitted
    again = demo.bots_act(now=timezone.now(), brain=random.Random(7))
    assert again < applied


def _bots_done(game: Game) -> None:
    """No bot has anything left that is open to it now."""
    state = werewolf_state(game=game)
    for bot in Character.objects.filter(game=game, bot=True):
        assert pending(state, bot.pk) == [], bot.name


def test_the_061_bots_play_the_prelude_the_day_and_night_one() -> None:
    start = bj(10, 9)
    with time_machine.travel(start, tick=False):
        loaded = demo.demo_load(number="061", now=start)
    game = loaded.game
    state = werewolf_state(game=game)
    assert (state.day, state.phase, len(state.players)) == (0, NIGHT, 19)
    applied = demo.bots_act(now=start, brain=random.Random(3))
    steps = Event.objects.filter(game=game, kind="engine_step", payload__op="action")
    assert steps.count() == applied > 0
    bots = set(Character.objects.filter(game=game, bot=True).values_list("pk", flat=True))
    assert {s.payload["action"]["actor"] for s in steps} <= bots
    _bots_done(game)
    # the humans' prelude skills expire (60 minutes), the draft is published: day 1
    services.werewolf_deadlines_run(now=start + dt.timedelta(minutes=61))
    assert werewolf_state(game=game).phase == LATE
    services.werewolf_night_publish(game=game, director=game.directors.get(), reason="")
    state = werewolf_state(game=game)
    assert (state.day, state.phase) == (1, DAY)
    day = start + dt.timedelta(hours=2)
    demo.bots_act(now=day, brain=random.Random(3))
    state = werewolf_state(game=game)
    assert (
        len(ballots(state)) >= 10
    )  # the bots' portal ballots (a few abstain; 独尊 voids none here)
    # 关门: the portal's ballots settle the vote and night 1 opens; the bots act in it
    close = day_close_at(game=game, day=1) + dt.timedelta(minutes=1)
    with time_machine.travel(close, tick=False):
        game_services.transitions_run_due(now=close)
        state = werewolf_state(game=game)
        assert (state.day, state.phase) == (1, NIGHT)
        assert state.flags.get("voted") == 1
        before = Event.objects.filter(game=game, kind="engine_step", payload__op="action").count()
        assert demo.bots_act(now=close, brain=random.Random(4)) > 0
        after = Event.objects.filter(game=game, kind="engine_step", payload__op="action").count()
        assert after > before
        _bots_done(game)
        skills = {
            s.payload["action"]["skill"]
            for s in Event.objects.filter(game=game, kind="engine_step", payload__op="action")
            if s.payload["action"]["kind"] == "use_skill"
        }
    assert {"stage", "possess", "hostage"} & skills  # the prelude's
    assert len(skills) >= 5  # night 1's: 独尊, 狡黠, 明察, 吹笛, 统领, 审判, 杀人 … (bots' roles)


def test_a_demo_of_a_ruleset_being_written_is_refused_without_the_preview(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.werewolf.players import mark_unbuilt

    mark_unbuilt(monkeypatch, "conan_096")
    with pytest.raises(demo.DemoUnavailable, match="WEREWOLF_PREVIEW_RULESETS"):
        demo.demo_load(number="096")
    assert not Game.objects.filter(number="096").exists()


def test_the_096_demo_loads_beside_the_others_under_the_preview(settings: Any) -> None:
    settings.WEREWOLF_PREVIEW_RULESETS = True
    out = io.StringIO()
    call_command("werewolf_demo_load", stdout=out)
    assert Game.objects.filter(kind="werewolf").count() == len(demo.DEMOS) == 3
    printed = out.getvalue()
    for name in demo.DEMOS["096"].humans:
        assert name in printed


def test_the_096_bots_play_day_1_and_night_1(settings: Any) -> None:
    """[096] starts with a day: its empty 开局夜 is published at load; the bots hide the relic
    (藏匿), switch their <开关> on and cast portal ballots for the 神眷者; at 关门 night 1 opens and
    each bot plays every step open to it — every role of the 22 is dealt, 19 of them bots."""
    settings.WEREWOLF_PREVIEW_RULESETS = True
    start = bj(10, 9)
    with time_machine.travel(start, tick=False):
        loaded = demo.demo_load(number="096", now=start)
    game = loaded.game
    state = werewolf_state(game=game)
    assert (state.day, state.phase, len(state.players)) == (1, DAY, 22)
    living_roles = {r for r, role in get_ruleset("conan_096").roles.items() if role.count}
    assert {p.role for p in state.players.values()} == living_roles  # every role is dealt
    day = start + dt.timedelta(hours=2)
    applied = demo.bots_act(now=day, brain=random.Random(5))
    assert applied > 0
    state = werewolf_state(game=game)
    assert len(ballots(state)) >= 10
    bot_ids = set(Character.objects.filter(game=game, bot=True).values_list("pk", flat=True))
    switches = [
        p
        for p in state.players.values()
        if p.id in bot_ids
        and any("开关" in get_ruleset("conan_096").skills[s].tags for s in p.skills)
    ]
    assert all(any(p.flags.get("on", {}).values()) for p in switches)  # 龙威, 咆哮, 戈尔贡之血
    close = day_close_at(game=game, day=1) + dt.timedelta(minutes=1)
    with time_machine.travel(close, tick=False):
        game_services.transitions_run_due(now=close)
        state = werewolf_state(game=game)
        assert (state.day, state.phase) == (1, NIGHT)
        assert state.sheriff is not None  # day 1's top is the 神眷者
        assert state.flags["relic"]["holder"] is not None  # 藏匿 at night 1's open
        assert demo.bots_act(now=close, brain=random.Random(6)) > 0
        _bots_done(game)
    skills = {
        s.payload["action"]["skill"]
        for s in Event.objects.filter(game=game, kind="engine_step", payload__op="action")
        if s.payload["action"]["kind"] == "use_skill"
    }
    assert len(skills) >= 6, skills
