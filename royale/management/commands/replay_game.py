from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import selectors
from royale.models import RoyaleGame
from royale.selectors import royale_state
from royale.services import royale_replay


def _differences(path: str, stored: Any, rebuilt: Any, out: list[str]) -> None:
    if isinstance(stored, dict) and isinstance(rebuilt, dict):
        for key in sorted(set(stored) | set(rebuilt), key=str):
            _differences(f"{path}.{key}", stored.get(key), rebuilt.get(key), out)
    elif isinstance(stored, list) and isinstance(rebuilt, list) and len(stored) == len(rebuilt):
        for i, (a, b) in enumerate(zip(stored, rebuilt, strict=True)):
            _differences(f"{path}[{i}]", a, b, out)
    elif stored != rebuilt:
        out.append(f"{path}: stored {stored!r}, replay gives {rebuilt!r}")


class Command(BaseCommand):
    help = (
        "Rebuild a battle royale's state from its seed and log, and compare it with the stored "
        "snapshot (at the snapshot's step) and with the current state."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("number", help="the game's number, e.g. 256")

    def handle(self, *args: Any, number: str, **options: Any) -> None:
        game = selectors.game_by_number(number=number)
        royale = RoyaleGame.objects.filter(pk=game.pk).first() if game else None
        if game is None or royale is None:
            raise CommandError(f"no battle royale numbered {number}")
        differences: list[str] = []
        at_snapshot = royale_replay(game=game, upto=royale.state_rng_seq)
        _differences(
            "snapshot",
            royale.state,
            at_snapshot.to_json() if at_snapshot else None,
            differences,
        )
        rebuilt = royale_replay(game=game)
        current = royale_state(game=game)
        _differences(
            "state", current.to_json(), rebuilt.to_json() if rebuilt else None, differences
        )
        for line in differences[:50]:
            self.stderr.write(line)
        if differences:
            raise CommandError(f"{len(differences)} difference(s) between the log and the state")
        self.stdout.write(f"{game.forum_title}: the replay equals the stored state")
