"""A director at the admin over HTTP (Django's test client, logged in): the add form, the game's
page (开局与管理: the pasted cast, the one-time credentials page, 开始), the night room (发身份,
调整身份, 结算, 批准并发布) and the game list's 手动推进 — the same forms a director submits."""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any

from django.test import Client

from games.models import Game
from werewolf.selectors import werewolf_state

CREDENTIAL_ROW = re.compile(r"<tr><td>([^<]*)</td><td><code class=\"wy-secret\">([^<]*)</code>")
ERROR = re.compile(r'<li class="error">(.*?)</li>', re.S)


class AdminDirector:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.game: Game | None = None
        self.rooms: dict[int, str] = {}  # the night room as read before each day's publication

    def _ok(self, response: Any, where: str) -> str:
        assert response.status_code in (200, 302), (where, response.status_code)
        text = response.content.decode()
        assert not ERROR.findall(text), (where, ERROR.findall(text))
        assert 'class="errorlist' not in text, (where, text[:3000])
        return text

    @property
    def pk(self) -> int:
        assert self.game is not None
        return self.game.pk

    def create(self, *, ruleset: str, number: str, title: str, start: dt.date) -> Game:
        """The add form (kind, ruleset, number, title, day 1's date); lands on its page."""
        response = self.client.post(
            "/admin/games/game/add/",
            {
                "kind": "werewolf",
                "ruleset": ruleset,
                "number": number,
                "title": title,
                "start_date": start.isoformat(),
                "_save": "1",
            },
        )
        assert response.status_code == 302, response.content.decode()[:2000]
        self.game = Game.objects.get(number=number)
        assert response["Location"].endswith(f"/admin/games/game/{self.pk}/prepare/")
        return self.game

    def prepare(self, op: str, **data: Any) -> str:
        response = self.client.post(
            f"/admin/games/game/{self.pk}/prepare/", {"op": op, **data}, follow=op != "credentials"
        )
        return self._ok(response, op)

    def cast(self, names: list[str]) -> None:
        self.prepare("paste", text="\n".join(names))

    def credentials(self) -> dict[str, str]:
        """生成全部密码与链接: every name's password, read off the one-time page."""
        page = self.prepare("credentials")
        rows = {
            html.unescape(n).strip(): html.unescape(s).strip()
            for n, s in CREDENTIAL_ROW.findall(page)
        }
        assert rows, page[:2000]
        return rows

    def room(self, op: str, **data: Any) -> str:
        """One form of the night room (发身份, 调整身份, 结算, 批准并发布 …)."""
        response = self.client.post(
            f"/admin/werewolf/werewolfgame/{self.pk}/night/{op}/", data, follow=True
        )
        return self._ok(response, op)

    def room_page(self) -> str:
        response = self.client.get(f"/admin/werewolf/werewolfgame/{self.pk}/night/")
        return self._ok(response, "night room")

    def roles(self, by_name: dict[str, str], reason: str) -> None:
        """调整身份: the dealt roles set by hand (each character's role key)."""
        assert self.game is not None
        state = werewolf_state(game=self.game)
        fields = {f"c{p.id}": by_name[p.name] for p in state.players.values()}
        self.room("roles", reason=reason, **fields)

    def advance(self, reason: str) -> str:
        """The game list's 手动推进到下一阶段, with its reason page."""
        response = self.client.post(
            "/admin/games/game/",
            {
                "action": "advance_phase",
                "_selected_action": [self.pk],
                "confirm": "1",
                "reason": reason,
            },
            follow=True,
        )
        return self._ok(response, "advance")
