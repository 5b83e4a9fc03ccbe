from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

import pytest
import time_machine
from django.test import Client

from games import services as game_services
from games.models import Character, Game
from royale import services
from royale.engine import get_ruleset, register_ruleset, ruleset_keys
from tests.conftest import ApiPlayer, bj, make_game

DAY_SECTIONS = ("events", "npcs")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "day_events: a shell test that plays the daily events and NPCs"
    )


@pytest.fixture(autouse=True)
def _quiet_days(request: pytest.FixtureRequest) -> Iterator[None]:
    """Shell (database) tests play without the daily events and NPCs unless marked
    ``day_events``: drawn from each game's random seed, they would make a test's days differ
    from run to run (a 阿呆 at the place searched, a 迷你战争 supply in a revealed backpack)."""
    node = request.node
    if node.get_closest_marker("django_db") is None or node.get_closest_marker("day_events"):
        yield
        return
    originals = [get_ruleset(key) for key in ruleset_keys()]
    for rs in originals:
        kept = {k: v for k, v in rs.sections.items() if k not in DAY_SECTIONS}
        register_ruleset(replace(rs, sections=kept))
    yield
    for rs in originals:
        register_ruleset(rs)


def royale_game(
    number: str,
    names: tuple[str, ...],
    *,
    ruleset: str = "islington_256",
    placement: Mapping[str, int] | None = None,
) -> Game:
    """A running game with these characters, set up (items dealt by ``placement``)."""
    game = make_game(number, characters=names, ruleset=ruleset)
    services.royale_setup(game=game, placement=placement)
    return game


def night_one(game: Game) -> None:
    """Run the scheduler up to night 1's open window (21:12 on day 1)."""
    game_services.transitions_run_due(now=bj(1, 21, 12))


class Player(ApiPlayer):
    kind = "royale"


@pytest.fixture
def at_night_one() -> Any:
    with time_machine.travel(bj(1, 21, 12), tick=False) as traveller:
        yield traveller


def players(game: Game) -> dict[str, Player]:
    issued = game_services.character_passwords_generate(game=game, director=None)
    return {i.character.name: Player(game, i.character.name, i.secret) for i in issued}


def spawn(cast: Mapping[str, Player], where: str | Mapping[str, str]) -> None:
    """Night 1: each character spawns at ``where`` (one place for all, or a place by name)."""
    for name, player in cast.items():
        place = where if isinstance(where, str) else where[name]
        response = player.act("spawn", place=place)
        assert response.status_code == 200, response.content


def refused(response: Any, status: int, code: str) -> None:
    """The API refused with this status and rule code."""
    assert response.status_code == status, response.content
    assert response.json()["code"] == code


def control(game: Game, suffix: str = "") -> str:
    """A control-room URL of the game (the page itself without ``suffix``)."""
    return f"/admin/royale/royalegame/{game.pk}/control/{suffix}"


def admin_client(user: Any) -> Client:
    """A browser signed in to the admin as ``user``."""
    client = Client()
    client.force_login(user)
    return client


def control_room(director: Any, where: Mapping[str, str]) -> tuple[Game, dict[str, Player], Client]:
    """[256] night 1 open with nothing lying anywhere; the characters named in ``where`` spawned
    at their places; their director signed in to the admin. Needs ``at_night_one``."""
    game = empty_royale_game("256", tuple(where))
    game.directors.add(director)
    night_one(game)
    cast = players(game)
    spawn(cast, where)
    return game, cast, admin_client(director)


EMPTY = {
    selector: 0
    for selector in (
        "weapon:green", "armor:green", "recon:GPS", "recon:望远镜", "upgrader:卷轴",
        "upgrader:书籍", "trap:炸弹", "tool:电话", "supply:[MP20]雪茄", "supply:[MP50]咖啡",
        "supply:[MP100]兴奋剂", "supply:[HP10]草药", "supply:[HP30]精油",
        "supply:[HP60]甘草糖", "supply:[HP100]蜂王浆",
    )
}  # fmt: skip


def empty_royale_game(number: str, names: tuple[str, ...]) -> Game:
    """A [256] game with nothing lying anywhere, so a search can only find characters."""
    game = royale_game(number, names, placement=EMPTY)
    assert not any(place.items for place in state_of(game).places.values())
    return game


def state_of(game: Game) -> Any:
    """The game's current state (snapshot and logged steps), as the site reads it."""
    from royale.selectors import royale_state

    return royale_state(game=Game.objects.get(pk=game.pk))


def state_edit(game: Game, edit: Callable[[Any], Any]) -> Any:
    """Arrange a test by editing the current state in place of the log: ``edit`` changes the
    state it is given (or returns a new one), stored as a snapshot covering every step logged so
    far. (Replay no longer matches such a game.)"""
    from royale.models import RoyaleGame

    fresh = Game.objects.get(pk=game.pk)
    state = state_of(fresh)
    state = edit(state) or state
    royale = RoyaleGame.objects.get(pk=game.pk)
    royale.state = state.to_json()
    royale.state_rng_seq = fresh.seq
    royale.save()
    return state


def give(game: Game, name: str, selector: str) -> int:
    """Arrange a test: hand a character an item through the engine's own grant."""
    from games.engine import dice
    from royale import engine

    cid = Character.objects.get(game=game, name=name).pk
    rng = dice.rng(game.seed, 0, "test")
    state = state_edit(game, lambda s: engine.grant_item(s, cid, selector, rng, "test")[0])
    return int(state.characters[cid].pack[-1])


def aim(game: Game, attacker: str, target: str) -> str:
    """Arrange a test: the attacker's last search found the target (at the attacker's place).

    Searches draw at random among everyone present; a test that needs forty attackers to have
    found the same target sets that outcome in the state instead of searching for it.
    """
    from royale.engine.state import Found

    ids = dict(Character.objects.filter(game=game).values_list("name", "pk"))
    handle = f"{ids[attacker]:06x}{ids[target]:06x}"

    def found(state: Any) -> None:
        me = state.characters[ids[attacker]]
        assert me.place is not None
        me.found = Found("character", me.place, ids[target], handle)

    state_edit(game, found)
    return handle


def set_character(game: Game, name: str, **fields: Any) -> None:
    """Arrange a test: a character as earlier nights left it (``hp=5``, ``mp=3``, ...)."""
    cid = Character.objects.get(game=game, name=name).pk

    def edit(state: Any) -> None:
        for field, value in fields.items():
            assert hasattr(state.characters[cid], field), field
            setattr(state.characters[cid], field, value)

    state_edit(game, edit)
