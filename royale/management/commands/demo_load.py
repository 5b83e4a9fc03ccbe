from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.demo import director_line, logins_print
from royale import demo


class Command(BaseCommand):
    help = "Load the demo (a fresh one each time, never two) and print its credentials."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1:8000")

    def handle(self, *args: Any, host: str, **options: Any) -> None:
        loaded = demo.demo_load()
        game = loaded.game
        out = self.stdout.write
        out("")
        out("== 雾雨小镇 版杀 demo ==")
        out(f"门户 portal:   http://{host}/")
        out(f"API 文档 docs: http://{host}/api/docs")
        out(f"后台 admin:    http://{host}/admin/")
        out(director_line(loaded))
        out(f"{game.forum_title}: 第 {game.day} 天，夜间行动窗口已开放 (night window open)")
        logins_print(out, host, loaded, len(demo.BOTS))
