from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

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
        out(f"导演 director: {loaded.director_username} / {loaded.director_password}")
        out(f"{game.forum_title}: 第 {game.day} 天，夜间行动窗口已开放 (night window open)")
        out(f"  登录 login: http://{host}/play/{game.number}/   ({len(demo.BOTS)} 个机器人角色)")
        for issued, link in zip(loaded.passwords, loaded.links, strict=True):
            out(
                f"  {issued.character.name}: {issued.secret}   "
                f"http://{host}/play/{game.number}/k/{link.secret}/"
            )
        out("")
