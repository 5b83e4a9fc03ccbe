from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import selectors
from games.engine import dice


class Command(BaseCommand):
    help = "Re-derive every logged roll of a game from its seed and report mismatches."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("number", help="the game's number, e.g. 256")
        parser.add_argument(
            "--seed", help="check against this published seed instead of the stored one"
        )

    def handle(self, *args: Any, number: str, seed: str | None, **options: Any) -> None:
        game = selectors.game_by_number(number=number)
        if game is None:
            raise CommandError(f"no game numbered {number}")
        seed = seed or game.seed
        problems = []
        if dice.seed_hash(seed) != game.seed_hash:
            problems.append("the seed does not match the published SHA-256")
        checked = 0
        for seq, kind, roll_data in selectors.rolls_logged(game=game):
            checked += 1
            try:
                roll = dice.Roll.from_json(roll_data)
            except (KeyError, TypeError, ValueError):
                problems.append(f"#{seq} {kind}: malformed roll {roll_data!r}")
                continue
            if roll.seq != seq:
                problems.append(f"#{seq} {kind}: roll claims sequence {roll.seq}")
            elif not dice.roll_verify(seed, roll):
                problems.append(
                    f"#{seq} {kind}: {roll.purpose!r} logged {list(roll.result)}, "
                    "the seed gives something else"
                )
        for line in problems:
            self.stderr.write(line)
        if problems:
            raise CommandError(f"{len(problems)} mismatch(es) in {checked} roll(s)")
        self.stdout.write(f"{game.forum_title}: {checked} roll(s) verified, all match")
