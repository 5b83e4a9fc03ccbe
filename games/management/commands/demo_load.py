from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games import services


class Command(BaseCommand):
    help = "Load the demo (idempotent) and print fresh credentials for it."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default="127.0.0.1:8000")

    def handle(self, *args: Any, host: str, **options: Any) -> None:
        demo = services.demo_load()
        out = self.stdout.write
        out("")
        out("== 雾雨小镇 版杀 demo ==")
        out(f"门户 portal:   http://{host}/")
        out(f"API 文档 docs: http://{host}/api/docs")
        out(f"后台 admin:    http://{host}/admin/")
        out(f"导演 director: {demo.director_username} / {demo.director_password}")
        out(f"{demo.game.forum_title}: http://{host}/play/{demo.game.number}/")
        for issued, link in zip(demo.passwords, demo.links, strict=True):
            out(
                f"  {issued.character.name}: {issued.secret}   "
                f"http://{host}/play/{demo.game.number}/k/{link.secret}/"
            )
        out("")
