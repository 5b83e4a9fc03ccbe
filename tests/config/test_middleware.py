"""The stock middleware, run inline under ASGI: sessions, CSRF, messages and the admin still work.

Django's ``AsyncClient`` goes through the ASGI handler, where the inline ``__acall__`` runs
(the sync test ``Client`` would not exercise it).
"""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import AsyncClient

from games import services
from games.models import Game
from tests.conftest import api_login

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_login_under_asgi_saves_the_session_and_later_requests_read_it(
    game: Game, passwords: dict[str, str]
) -> None:
    client = AsyncClient()
    login = await api_login(client, "256", passwords["甲"])
    assert login.status_code == 200
    assert login.cookies["sessionid"].value  # the modified session was saved (in a thread)

    me = await client.get(f"/play/{game.number}/me/")
    assert me.status_code == 200
    assert "甲" in me.content.decode()

    events = await client.get(f"/api/games/{game.pk}/events")  # the async session read
    assert events.status_code == 200


async def test_an_unsafe_request_without_the_csrf_token_is_refused_under_asgi(
    game: Game, passwords: dict[str, str]
) -> None:
    client = AsyncClient(enforce_csrf_checks=True)
    assert (await api_login(client, "256", passwords["甲"])).status_code == 200
    refused = await client.post(
        f"/api/royale/games/{game.pk}/actions", {"kind": "rest"}, content_type="application/json"
    )
    assert (refused.status_code, refused.json()["code"]) == (403, "csrf_failed")


async def test_admin_messages_show_once_under_asgi(game: Game, director: Any) -> None:
    client = AsyncClient()
    await client.aforce_login(director)
    await database_sync_to_async(services.character_passwords_generate)(game=game, director=None)
    # An action with nothing selected: the admin stores a warning and redirects to the list.
    done = await client.post("/admin/games/game/", {"action": "delete_selected", "index": "0"})
    assert done.status_code == 302
    page = await client.get("/admin/games/game/")
    assert 'class="messagelist"' in page.content.decode()
    # Shown once: the storage recorded it as read (the response hook that touches the session).
    again = await client.get("/admin/games/game/")
    assert again.status_code == 200
    assert 'class="messagelist"' not in again.content.decode()
