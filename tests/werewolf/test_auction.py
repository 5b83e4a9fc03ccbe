"""The characters' genders (性别由马甲决定) and the 竞拍贴's result (表演/挡刀 ±, 性别卡, gold),
entered by the director before the start: in the night room and through the service, kept by
a re-deal of roles, rebuilt by the replay, and what 梦中人's 魅惑 then does."""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any

import pytest
import time_machine
from django.test import Client

from games import services as game_services
from games.engine.errors import InvalidInput
from games.models import Character, Game
from tests.conftest import START, bj
from tests.werewolf.engine.support import SEATS
from tests.werewolf.test_admin import directed, room
from tests.werewolf.test_views import character, dealt_game, login, text
from werewolf import selectors, services, store
from werewolf.engine.errors import Charmed, GendersMissing
from werewolf.engine.state import SETUP
from werewolf.errors import AlreadyStarted
from werewolf.selectors import werewolf_state

pytestmark = pytest.mark.django_db

# Night 1 opens two hours before day 1's 00:00 open.
NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)
TITLE = "性别与竞拍结果"


def _post(client: Client, game: Game, **data: Any) -> str:
    """The auction form posted; the room it returns to, as read (with its message)."""
    url = f"/admin/werewolf/werewolfgame/{game.pk}/night/auction/"
    response = client.post(url, data, follow=True)
    assert response.status_code == 200, response.content[:500]
    return html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))


def _form(game: Game, **rows: dict[str, Any]) -> dict[str, Any]:
    """Every character's row blank (未定, 0/0, no card, no gold) but the named ones."""
    data: dict[str, Any] = {}
    for c in game.characters.all():
        row = {"gender": "", "act": "0", "block": "0", "card": "", "gold": ""}
        row.update(rows.get(c.name, {}))
        data.update({f"{key}{c.pk}": value for key, value in row.items()})
    return data


def _deals(game: Game) -> int:
    return game.events.filter(kind="engine_step", payload__op__in=["setup", "deal"]).count()


def test_the_room_enters_genders_and_the_auction_and_the_cards_show_them(
    director: Any, director_client: Client
) -> None:
    game = directed(dealt_game(genders=False), director)
    first, second = character(game, "玩家1"), character(game, "玩家2")
    roles = {p.id: p.role for p in werewolf_state(game=game).players.values()}
    assert TITLE in room(director_client, game)
    rows = {
        "玩家1": {"gender": "女", "act": "3", "block": "-1", "gold": "10"},
        "玩家2": {"gender": "男", "card": "女", "block": "2", "gold": "12"},
    }
    entry = _form(game, **rows)
    # No reason: nothing changes.
    _post(director_client, game, **entry)
    assert werewolf_state(game=game).players[first.pk].gender is None
    page = _post(director_client, game, reason="竞拍贴结果", **entry)
    assert "已录入" in page
    state = werewolf_state(game=game)
    one, two = state.players[first.pk], state.players[second.pk]
    assert (one.gender, one.act, one.block) == ("女", 3, -1)
    assert (two.gender, two.act, two.block) == ("女", 0, 2)  # the 性别卡 over the 马甲's 男
    assert state.players[character(game, "玩家3").pk].gender is None  # 未定
    assert {p.id: p.role for p in state.players.values()} == roles  # the dealt roles kept
    logged = game.events.filter(kind="engine_step", payload__op="deal").last()
    assert logged is not None
    assert logged.reason == "竞拍贴结果"
    assert logged.director == director
    # The form comes back with what was entered; the panel shows 性别/表演/挡刀.
    assert selectors.werewolf_auction(game=game)[second.pk] == {
        "name": "玩家2", "gender": "男", "act": 0, "block": 2, "card": "女", "gold": 12,
    }  # fmt: skip
    raw = director_client.get(f"/admin/werewolf/werewolfgame/{game.pk}/night/").content.decode()
    assert re.search(rf'name="act{first.pk}" value="3"', raw)
    assert re.search(rf'name="gold{second.pk}" value="12"', raw)
    assert re.search('<option value="女" selected>女</option>', raw)
    # The players' own role cards, once the game starts (every 马甲's gender entered first).
    rest = {f"玩家{n}": {"gender": "男"} for n in range(3, 19)}
    _post(director_client, game, reason="补录性别", **_form(game, **rows, **rest))
    services.werewolf_start(game=game, director=director)
    card = re.sub(r"\s+", " ", text(login(game, "玩家1"), game))
    assert "性别 女 · 表演 3 · 挡刀 -1" in card
    card = re.sub(r"\s+", " ", text(login(game, "玩家2"), game))
    assert "性别 女 · 表演 0 · 挡刀 2" in card
    replayed = store.replay(game=game)
    assert replayed is not None
    assert replayed.to_json() == werewolf_state(game=game).to_json()


def test_a_bid_costing_more_than_the_gold_is_refused_and_changes_nothing(
    director: Any, director_client: Client
) -> None:
    game = directed(dealt_game(), director)
    before, deals = werewolf_state(game=game).to_json(), _deals(game)
    # A 性别卡 (10) and 挡刀+1 (1) with 10 gold.
    entry = _form(game, 玩家2={"gender": "男", "card": "女", "block": "1", "gold": "10"})
    page = _post(director_client, game, reason="竞拍贴结果", **entry)
    assert "玩家2的竞拍花费11金币，超过其金币10。" in page
    assert werewolf_state(game=game).to_json() == before
    assert _deals(game) == deals
    # The same through the service: the engine's typed error, and nothing changes.
    pk = character(game, "玩家2").pk
    with pytest.raises(InvalidInput) as err:
        services.werewolf_auction_set(
            game=game,
            director=director,
            genders={pk: "男"},
            auction={pk: {"gender": "女", "block": 1, "gold": 10}},
            reason="竞拍贴结果",
        )
    assert "超过其金币" in err.value.text
    for genders, auction in (
        ({pk: "中"}, {}),  # not a gender
        ({}, {pk: {"act": "3"}}),  # not an integer
        ({}, {pk: {"act": 1, "bribe": 1}}),  # not an auction item
        ({}, {10**6: {"act": 1}}),  # not in the game
    ):
        with pytest.raises(InvalidInput):
            services.werewolf_auction_set(
                game=game, director=director, genders=genders, auction=auction, reason="x"
            )
    assert werewolf_state(game=game).to_json() == before
    assert _deals(game) == deals


def test_after_the_start_the_form_is_gone_and_the_service_refuses(
    director: Any, director_client: Client
) -> None:
    game = directed(dealt_game(), director)
    services.werewolf_start(game=game, director=director)
    assert TITLE not in room(director_client, game)
    before = werewolf_state(game=game).to_json()
    page = _post(director_client, game, reason="补录", **_form(game, 玩家1={"gender": "女"}))
    assert "游戏已经开始" in page
    assert werewolf_state(game=game).to_json() == before
    with pytest.raises(AlreadyStarted):
        services.werewolf_auction_set(
            game=game, director=director, genders={}, auction={}, reason="补录"
        )


def _seated(*, seed_roles: bool = False) -> tuple[Game, dict[int, int]]:
    """A running [099] game of P1…P18 on the engine tests' seats, dealt without any gender or
    auction (as the night room's 发身份 deals); with ``seed_roles``, its roles from the seed."""
    game = game_services.game_create(
        kind="werewolf",
        ruleset="arknights_099",
        number="099",
        title="明日方舟",
        start_date=START,
        status="running",
    )
    Character.objects.bulk_create(Character(game=game, name=f"P{seat}") for seat in SEATS)
    ids = {seat: Character.objects.get(game=game, name=f"P{seat}").pk for seat in SEATS}
    roles = None if seed_roles else {ids[seat]: role for seat, role in SEATS.items()}
    services.werewolf_setup(game=game, roles=roles)
    return game, ids


def test_the_seed_roles_are_kept_a_re_deal_keeps_the_auction_and_the_log_replays(
    director: Any,
) -> None:
    game, ids = _seated(seed_roles=True)
    dealt = {p.id: p.role for p in store.state_load(game).players.values()}
    genders = {pk: "男" if seat % 2 else "女" for seat, pk in ids.items()}
    auction: dict[int, dict[str, Any]] = {
        ids[6]: {"act": 5, "gold": 5},
        ids[1]: {"block": -2, "gender": "女"},
    }
    state = services.werewolf_auction_set(
        game=game, director=director, genders=genders, auction=auction, reason="竞拍贴结果"
    )
    assert {p.id: p.role for p in state.players.values()} == dealt
    assert (state.players[ids[6]].act, state.players[ids[1]].block) == (5, -2)
    assert state.players[ids[1]].gender == "女"  # P1's 马甲 is 男: a 性别卡
    assert store.replay(game=game).to_json() == state.to_json()  # type: ignore[union-attr]
    # A re-deal of roles keeps the genders and the auction.
    swapped = {**dealt, ids[6]: dealt[ids[7]], ids[7]: dealt[ids[6]]}
    after = services.werewolf_roles_set(game=game, director=director, roles=swapped, reason="换位")
    assert after.players[ids[6]].role == dealt[ids[7]]
    assert {p.id: (p.gender, p.act, p.block) for p in after.players.values()} == {
        p.id: (p.gender, p.act, p.block) for p in state.players.values()
    }
    assert selectors.werewolf_auction(game=game)[ids[1]]["card"] == "女"
    assert store.replay(game=game).to_json() == after.to_json()  # type: ignore[union-attr]
    # And a new entry keeps the adjusted roles.
    again = services.werewolf_auction_set(
        game=game, director=director, genders={}, auction={}, reason="重新录入"
    )
    assert {p.id: p.role for p in again.players.values()} == swapped
    assert {p.gender for p in again.players.values()} == {None}
    assert again.phase == SETUP


def _use(game: Game, actor: int, skill: str, target: int, now: dt.datetime) -> dict[str, Any]:
    return services.werewolf_action_submit(
        game_id=game.pk,
        character_id=actor,
        data={"kind": "use_skill", "skill": skill, "targets": [target]},
        key=None,
        now=now,
    )


def test_a_gender_entered_here_makes_the_dreamers_charm_bite(director: Any) -> None:
    """梦中人 P14 (马甲 女) voted out on day 1: night 2, the 男 cannot use skills. The seer P6
    (马甲 女) bought a 性别卡 男 and is charmed; the guard P8 (女) is not."""
    game, ids = _seated()
    genders = {pk: "男" if seat % 2 else "女" for seat, pk in ids.items()}
    services.werewolf_auction_set(
        game=game,
        director=director,
        genders=genders,
        auction={ids[6]: {"gender": "男", "gold": 10}},
        reason="竞拍贴结果",
    )
    _dreamer_voted_out(game, ids, director)
    state = store.state_load(game)
    assert (state.day, state.phase) == (2, "night")
    assert state.flags["charm"] == {"night": 2, "gender": "女"}
    moment = bj(1, 21, 5)
    with pytest.raises(Charmed):
        _use(game, ids[6], "divine", ids[15], moment)
    _use(game, ids[8], "protect", ids[15], moment)
    state = store.state_load(game)
    assert str(ids[8]) in state.night["subs"]["protect"]
    assert str(ids[6]) not in state.night["subs"].get("divine", {})
    assert store.replay(game=game).to_json() == state.to_json()  # type: ignore[union-attr]


def _dreamer_voted_out(game: Any, ids: dict[int, int], director: Any) -> None:
    """Night 1 forfeited and published, the 梦中人 (seat 14) voted out on day 1, night 2 open."""
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62))
    with time_machine.travel(bj(1, 8), tick=False):
        services.werewolf_night_publish(game=game, director=director, reason="")
    services.werewolf_day_vote(game=game, director=director, totals={ids[14]: 5})
    with time_machine.travel(bj(1, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 21, 1))


def test_without_genders_a_game_with_a_dreamer_does_not_start(director: Any) -> None:
    """RULINGS werewolf 9: the deal alone (no gender entered) cannot open night 1, since 魅惑
    is <强制> and reads the genders; the directors are told who lacks one."""
    game, _ids = _seated()
    with pytest.raises(GendersMissing) as refused:
        services.werewolf_start(game=game, director=director, now=NIGHT_1)
    assert refused.value.text.startswith("以下角色没有性别：P1、P2、P3")
    assert werewolf_state(game=game).phase == SETUP
