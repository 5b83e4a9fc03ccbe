"""Shell helpers for the role games: a dealt [099] game on fixed seats, and players acting
through the API with their own browser sessions."""

from __future__ import annotations

import datetime as dt
import html
import json
from collections.abc import Iterator
from typing import Any

import time_machine
from django.test import Client

from games import services as game_services
from games.models import Character, Game
from tests.conftest import START, ApiPlayer, SocketReader, bj
from tests.werewolf.engine.support import SEATS
from werewolf import services, store

# The kinds of event only the directors (or the staff) ever see.
DIRECTORS_ONLY = {
    "engine_step",
    "deal",
    "night_draft",
    "night_override",
    "faction_lost",
    "cards_proposed",
    "card_added",
    "cards_reviewed",
    "red_card_applied",
    "faction_decision",
    "ballot_tally",
    "werewolf_step_skipped",
}


def werewolf_game(number: str = "099") -> tuple[Game, dict[int, int]]:
    """A running [099] game of 18 characters P1…P18, dealt on the engine tests' seats (1-4 狼人,
    5 白眼狼, 6 先知, 7 女巫, 8 守护, 9 情痴, 10 村长, 11 猎人, 12 高僧, 13 白痴, 14 梦中人,
    15-18 村民; odd seats 男); returns the game and its character ids by seat."""
    game = game_services.game_create(
        kind="werewolf",
        ruleset="arknights_099",
        number=number,
        title="明日方舟",
        start_date=START,
        status="running",
    )
    Character.objects.bulk_create(Character(game=game, name=f"P{seat}") for seat in SEATS)
    ids = {seat: Character.objects.get(game=game, name=f"P{seat}").pk for seat in SEATS}
    services.werewolf_setup(
        game=game,
        roles={ids[seat]: role for seat, role in SEATS.items()},
        genders={ids[seat]: "男" if seat % 2 else "女" for seat in SEATS},
    )
    return game, ids


def lin_feng_draft(director: Any) -> tuple[Game, dict[str, str]]:
    """A [061] 林峰 game as a director prepares it: 19 characters 演员1…演员19 with their login
    passwords (returned by name), roles dealt from the seed, not yet started."""
    game = game_services.game_create(
        kind="werewolf", ruleset="lin_feng_061", number="061", title="林峰", start_date=START
    )
    game.directors.add(director)
    Character.objects.bulk_create(Character(game=game, name=f"演员{n}") for n in range(1, 20))
    issued = game_services.character_passwords_generate(game=game, director=director)
    return game, {i.character.name: i.secret for i in issued}


def lin_feng_day_1(game: Game, director: Any, night_0: dt.datetime) -> None:
    """The 开局夜 begun at ``night_0`` runs out (附身/遇难/票台 drawn from the seed) and the
    director publishes it at 8:00 of day 1."""
    services.werewolf_deadlines_run(now=night_0 + dt.timedelta(minutes=62))
    with time_machine.travel(bj(1, 8), tick=False):
        game_services.transitions_run_due(now=bj(1, 8))
        if store.state_load(game).phase != "day":
            services.werewolf_night_publish(game=game, director=director, reason="")


class Player(ApiPlayer):
    kind = "werewolf"

    def use(self, skill: str, *targets: int) -> dict[str, Any]:
        response = self.act("use_skill", skill=skill, targets=list(targets))
        assert response.status_code == 200, response.content
        return dict(response.json())


def players(game: Game) -> dict[int, Player]:
    """Every character logged in, by seat (P<seat>)."""
    issued = game_services.character_passwords_generate(game=game, director=None)
    return {int(i.character.name[1:]): Player(game, i.character.name, i.secret) for i in issued}


class Reader(SocketReader):
    """One character's every surface: socket frames, API answers (errors included), pages."""

    def __init__(self, game: Game, seat: int, player: Player) -> None:
        super().__init__(game, player)
        self.seat = seat
        self.player: Player = player

    def read_everything(self) -> None:
        """The API's page and log, the portal (whole and its state part), the public page."""
        client: Client = self.player.client
        me = client.get(f"/api/werewolf/games/{self.game.pk}/me")
        assert me.status_code == 200, me.content
        self.json.append(me.json())
        self.json.append(self.player.events())
        self.json.append(client.get(f"/api/games/by-number/{self.game.number}").json())
        for url in (
            f"/play/{self.game.number}/me/",
            f"/play/{self.game.number}/me/?part=state",
            f"/games/{self.game.number}/",
        ):
            page = client.get(url)
            assert page.status_code == 200, url
            self.html.append(page.content.decode())

    def refused(self, kind: str, **fields: Any) -> dict[str, Any]:
        """An action the engine refuses: its error answer is read too."""
        response = self.player.act(kind, **fields)
        assert response.status_code >= 400, (self.seat, kind, fields)
        body: dict[str, Any] = response.json()
        self.json.append(body)
        return body

    def text(self) -> str:
        return "\n".join(
            [json.dumps(j, ensure_ascii=False) for j in self.json]
            + [html.unescape(h) for h in self.html]
        )


def dicts(data: Any) -> Iterator[dict[str, Any]]:
    """Every mapping inside ``data`` (itself included), depth first."""
    if isinstance(data, dict):
        yield data
        for value in data.values():
            yield from dicts(value)
    elif isinstance(data, list):
        for value in data:
            yield from dicts(value)


def mark_unbuilt(monkeypatch: Any, key: str) -> None:
    """The ruleset ``key`` as one still being written (``"built": false``): the way a new post's
    rules sit in the registry until they are all in."""
    import dataclasses

    from werewolf.engine import get_ruleset
    from werewolf.engine import ruleset as registry

    unbuilt = dataclasses.replace(get_ruleset(key), built=False)
    monkeypatch.setitem(registry._REGISTRY, key, unbuilt)
