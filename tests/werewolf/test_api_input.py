"""The role games' action body takes only its own types: ``"accept": "true"`` and ``1`` were a
yes to a surrender, ``[true]`` was character 1. Each is refused and changes nothing."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine

from tests.conftest import bj
from tests.werewolf.players import Player, players, werewolf_game
from werewolf import services, store

pytestmark = pytest.mark.django_db

NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)


@pytest.fixture
def night(director: Any) -> Any:
    """[099] night 1, every player logged in; returns (game, ids by seat, players by seat)."""
    game, ids = werewolf_game()
    cast = players(game)
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    with time_machine.travel(NIGHT_1 + dt.timedelta(minutes=1), tick=False):
        yield game, ids, cast


def refused_as_input(response: Any, field: str) -> None:
    assert response.status_code == 400, response.content
    data = response.json()
    assert data["code"] == "invalid_input"
    assert any(f.startswith(f"body.body.{field}") for f in data["detail"]["fields"])


@pytest.mark.parametrize("value", ["true", "1", 1, 0, "yes", [True], {}])
def test_a_surrender_answer_is_a_json_bool_only(night: Any, value: Any) -> None:
    game, _, cast = night
    wolves: dict[int, Player] = {s: cast[s] for s in (1, 2, 3, 4)}
    assert wolves[1].act("surrender").status_code == 200  # asked of the other wolves
    before = store.state_load(game).to_json()
    seq = game.events.count()
    refused_as_input(wolves[2].act("surrender_answer", accept=value), "accept")
    assert store.state_load(game).to_json() == before
    assert game.events.count() == seq
    # a real yes counts
    assert wolves[2].act("surrender_answer", accept=True).status_code == 200
    pending = store.state_load(game).surrender
    assert pending is not None
    assert pending["yes"] == sorted([wolves[1].id, wolves[2].id])


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("targets", [True]),
        ("targets", ["17"]),
        ("targets", [17.0]),
        ("targets", "17"),
        ("skill", 1),
        ("skill", True),
    ],
)
def test_a_skills_fields_take_only_their_own_type(night: Any, field: str, value: Any) -> None:
    game, ids, cast = night
    before = store.state_load(game).to_json()
    body = {"skill": "protect", "targets": [ids[17]], field: value}
    refused_as_input(cast[8].act("use_skill", **body), field)
    assert store.state_load(game).to_json() == before
    assert cast[8].act("use_skill", skill="protect", targets=[ids[17]]).status_code == 200
