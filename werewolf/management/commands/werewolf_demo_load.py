from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.demo import director_line, logins_print
from werewolf import demo


class Command(BaseCommand):
    help = (
        "Load the role-game demos ([099] 明日方舟, [061] 林峰, and [096] 名侦探柯南 under "
        "WEREWOLF_PREVIEW_RULESETS; a fresh one each time, never two) and print their logins."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1:8000")
        parser.add_argument(
            "--number", action="append", choices=sorted(demo.DEMOS), help="only this demo"
        )

    def handle(self, *args: Any, host: str, number: list[str] | None, **options: Any) -> None:
        out = self.stdout.write
        for key in number or list(demo.DEMOS):
            try:
                loaded = demo.demo_load(number=key)
            except demo.DemoUnavailable as e:
                out("")
                out(str(e))
                continue
            game = loaded.game
            out("")
            out(f"== {game.forum_title} 版杀 demo ==")
            out(director_line(loaded))
            room = f"http://{host}/admin/werewolf/werewolfgame/{game.pk}/night/"
            out(f"夜晚控制室 night room: {room}")
            logins_print(out, host, loaded, len(demo.DEMOS[key].bots))
