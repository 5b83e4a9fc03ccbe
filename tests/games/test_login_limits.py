"""Issue 14's holes in the login limits, one test (or a few) each, on the real database and cache.

1. A global lock let ~30 addresses make every login of every game answer 429.
2. X-Forwarded-For was read from its left-most, client-written end.
5. The admin login had no limit at all.
"""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import AsyncClient, Client, RequestFactory

from games import services
from games.models import Game
from games.views import client_address
from tests.conftest import api_login, make_game

pytestmark = pytest.mark.django_db


def _fail(address: str, number: str = "256", **extra: Any) -> Any:
    return api_login(Client(), number, "wrong-wrong-wrong-wrong", REMOTE_ADDR=address, **extra)


# --- 1. others' failures never lock a player out ------------------------------------------


def test_300_failures_from_30_addresses_do_not_lock_out_the_right_password(
    game: Game, passwords: dict[str, str], director: Any
) -> None:
    other = make_game("061", characters=("丁",))
    other_passwords = services.character_passwords_generate(game=other, director=None)
    (link, *_) = services.character_links_issue(game=game, director=director)
    for i in range(30):
        for _ in range(10):
            assert _fail(f"10.0.{i}.1").status_code in {401, 429}

    # Another address, the right password: in, on this game and on every other one, by the
    # API, the portal's form and the bookmark link alike.
    fresh: dict[str, Any] = {"REMOTE_ADDR": "192.0.2.50"}
    assert api_login(Client(), "256", passwords["甲"], **fresh).status_code == 200
    assert api_login(Client(), "061", other_passwords[0].secret, **fresh).status_code == 200
    form = Client().post("/play/256/", {"password": passwords["乙"]}, **fresh)
    assert (form.status_code, form["Location"]) == (302, "/play/256/me/")
    assert Client().post(f"/play/256/k/{link.secret}/", **fresh).status_code == 302
    # while each attacking address is held to its own failures
    assert api_login(Client(), "256", passwords["甲"], REMOTE_ADDR="10.0.3.1").status_code == 429


def test_an_addresses_own_failures_give_429_with_retry_after_and_a_chinese_message(
    game: Game, passwords: dict[str, str], settings: Any
) -> None:
    settings.LOGIN_LIMIT_PER_ADDRESS = 3
    for _ in range(3):
        assert _fail("198.51.100.7").status_code == 401
    refused = api_login(Client(), "256", passwords["甲"], REMOTE_ADDR="198.51.100.7")
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_attempts"
    assert 0 < int(refused["Retry-After"]) <= settings.LOGIN_LIMIT_WINDOW + 1
    assert "登录失败次数过多，请约" in refused.json()["message"]
    assert "分钟后再试" in refused.json()["message"]
    english = api_login(
        Client(), "256", passwords["甲"], REMOTE_ADDR="198.51.100.7", HTTP_ACCEPT_LANGUAGE="en"
    )
    assert "Too many failed logins" in english.json()["message"]
    # The portal's form says the same, with the same header.
    form = Client().post("/play/256/", {"password": passwords["甲"]}, REMOTE_ADDR="198.51.100.7")
    assert form.status_code == 429
    assert int(form["Retry-After"]) > 0
    assert "登录失败次数过多" in form.content.decode()
    # The neighbour in the same /24 is someone else.
    assert (
        api_login(Client(), "256", passwords["甲"], REMOTE_ADDR="198.51.100.8").status_code == 200
    )


def test_an_ipv6_client_cannot_dodge_its_limit_by_rotating_through_its_own_64(
    game: Game, passwords: dict[str, str], settings: Any
) -> None:
    settings.LOGIN_LIMIT_PER_ADDRESS = 3
    for i in range(1, 4):
        assert _fail(f"2001:db8:1:2::{i:x}").status_code == 401
    inside = api_login(Client(), "256", passwords["甲"], REMOTE_ADDR="2001:db8:1:2::beef")
    assert inside.status_code == 429
    outside = api_login(Client(), "256", passwords["甲"], REMOTE_ADDR="2001:db8:1:3::1")
    assert outside.status_code == 200


def test_the_per_game_limit_does_not_refuse_a_right_password(
    game: Game, passwords: dict[str, str], director: Any, settings: Any
) -> None:
    settings.LOGIN_LIMIT_PER_GAME = 5
    make_game("061", characters=("丁",))
    (link, *_) = services.character_links_issue(game=game, director=director)
    for i in range(5):
        assert _fail(f"10.1.0.{i}").status_code == 401
    # Game 256's count is full: a guess from a fresh address is told to slow down ...
    guess = _fail("10.1.1.1")
    assert guess.status_code == 429
    assert guess.json()["code"] == "too_many_attempts"
    assert guess.json()["detail"]["scope"] == "game"
    assert int(guess["Retry-After"]) > 0
    assert "本局近期登录失败过多" in guess.json()["message"]
    # ... and the right password, from anywhere that has not failed itself, is let in.
    assert api_login(Client(), "256", passwords["甲"], REMOTE_ADDR="10.1.1.2").status_code == 200
    assert api_login(Client(), "256", passwords["乙"], REMOTE_ADDR="10.1.0.0").status_code == 200
    assert Client().post(f"/play/256/k/{link.secret}/", REMOTE_ADDR="10.1.1.3").status_code == 302
    # Another game's number keeps its own count.
    assert _fail("10.1.1.4", "061").status_code == 401


def test_a_game_number_that_does_not_exist_is_counted_like_one_that_does(
    game: Game, settings: Any
) -> None:
    # Otherwise the 429 would tell which game numbers are real.
    settings.LOGIN_LIMIT_PER_GAME = 2
    answers = {n: [_fail(f"10.2.0.{i}", n).status_code for i in range(3)] for n in ("256", "999")}
    assert answers == {"256": [401, 401, 429], "999": [401, 401, 429]}


# --- 2. X-Forwarded-For from the right ----------------------------------------------------


@pytest.mark.parametrize(
    ("proxies", "forwarded", "address"),
    [
        (1, "spoof, 203.0.113.7", "203.0.113.7"),
        (1, "203.0.113.7", "203.0.113.7"),
        (1, " 1.1.1.1 ,2.2.2.2,  203.0.113.7 ", "203.0.113.7"),
        (2, "spoof, 198.51.100.2, 10.0.0.1", "198.51.100.2"),
        # fewer entries than proxies: all were written by the proxies, the first is the client
        (2, "198.51.100.2", "198.51.100.2"),
        (1, "spoof, 2001:db8::1", "2001:db8::1"),
        (1, "spoof, ::ffff:203.0.113.9", "203.0.113.9"),
        (1, "", "192.0.2.1"),  # no header: the peer itself
        (1, "203.0.113.7, not-an-address", None),
    ],
)
def test_x_forwarded_for_is_read_from_the_right_by_the_number_of_proxies(
    settings: Any, proxies: int, forwarded: str, address: str | None
) -> None:
    settings.TRUST_X_FORWARDED_FOR = True
    settings.TRUSTED_PROXY_COUNT = proxies
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.1", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_address(request) == address


def test_x_forwarded_for_is_ignored_unless_trusted(settings: Any) -> None:
    settings.TRUST_X_FORWARDED_FOR = False
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.1", HTTP_X_FORWARDED_FOR="1.2.3.4")
    assert client_address(request) == "192.0.2.1"


def test_a_client_written_left_most_entry_cannot_rotate_the_address(
    game: Game, passwords: dict[str, str], settings: Any
) -> None:
    settings.TRUST_X_FORWARDED_FOR = True
    settings.TRUSTED_PROXY_COUNT = 1
    settings.LOGIN_LIMIT_PER_ADDRESS = 5
    proxy: dict[str, Any] = {"REMOTE_ADDR": "127.0.0.1"}
    for i in range(5):
        assert (
            _fail("127.0.0.1", HTTP_X_FORWARDED_FOR=f"10.9.{i}.1, 203.0.113.7").status_code == 401
        )
    rotated = api_login(
        Client(), "256", passwords["甲"], HTTP_X_FORWARDED_FOR="10.9.99.1, 203.0.113.7", **proxy
    )
    assert rotated.status_code == 429
    # Someone else behind the same proxy is not that client.
    other = api_login(
        Client(), "256", passwords["甲"], HTTP_X_FORWARDED_FOR="198.51.100.4", **proxy
    )
    assert other.status_code == 200


# --- 5. the admin login (django-axes) -----------------------------------------------------

ADMIN_LOGIN = "/admin/login/?next=/admin/"


def _admin_login(username: str, password: str, **extra: Any) -> Any:
    return Client().post(
        ADMIN_LOGIN, {"username": username, "password": password, "next": "/admin/"}, **extra
    )


def test_the_admin_login_locks_an_account_after_n_wrong_passwords_until_reset(
    director: Any, settings: Any
) -> None:
    limit = settings.AXES_FAILURE_LIMIT
    assert limit <= 10
    # Wrong passwords from addresses all different: the account itself is counted.
    answers = [
        _admin_login("daoyan", "wrong", REMOTE_ADDR=f"10.3.0.{i}").status_code for i in range(limit)
    ]
    assert answers == [200] * (limit - 1) + [429]

    refused = _admin_login("daoyan", "daoyan-pass-123", REMOTE_ADDR="192.0.2.77")
    assert refused.status_code == 429
    page = refused.content.decode()
    assert "后台登录已暂停" in page
    assert "即使密码正确也无法登录" in page
    assert int(refused["Retry-After"]) == int(settings.AXES_COOLOFF_TIME.total_seconds())
    assert "_auth_user_id" not in refused.wsgi_request.session

    out = StringIO()
    call_command("axes_reset_username", "daoyan", stdout=out)
    assert "removed" in out.getvalue()
    unlocked = _admin_login("daoyan", "daoyan-pass-123", REMOTE_ADDR="192.0.2.77")
    assert (unlocked.status_code, unlocked["Location"]) == (302, "/admin/")


def test_the_admin_login_locks_an_address_that_tries_many_accounts(
    director: Any, staff: Any, settings: Any
) -> None:
    settings.TRUST_X_FORWARDED_FOR = True
    settings.TRUSTED_PROXY_COUNT = 1
    # One client behind the proxy, rotating the account and the left-most X-Forwarded-For.
    for i in range(settings.AXES_FAILURE_LIMIT):
        _admin_login(f"user{i}", "wrong", HTTP_X_FORWARDED_FOR=f"10.4.{i}.1, 203.0.113.8")
    locked = _admin_login("guanli", "guanli-pass-123", HTTP_X_FORWARDED_FOR="10.4.9.9, 203.0.113.8")
    assert locked.status_code == 429
    assert "后台登录已暂停" in locked.content.decode()
    # another client, through the same proxy, logs in
    fine = _admin_login("daoyan", "daoyan-pass-123", HTTP_X_FORWARDED_FOR="198.51.100.9")
    assert fine.status_code == 302


@pytest.mark.django_db(transaction=True)
async def test_the_admin_lockout_answers_the_same_under_asgi(director: Any, settings: Any) -> None:
    # daphne runs axes' middleware on its async path, which calls the lockout callable with
    # other arguments than the sync one (the sync Client above never takes it).
    client = AsyncClient()
    wrong = {"username": "daoyan", "password": "wrong", "next": "/admin/"}
    for _ in range(settings.AXES_FAILURE_LIMIT):
        await client.post(ADMIN_LOGIN, wrong)
    right = {**wrong, "password": "daoyan-pass-123"}
    refused = await client.post(ADMIN_LOGIN, right)
    assert refused.status_code == 429
    assert "后台登录已暂停" in refused.content.decode()
    assert int(refused["Retry-After"]) > 0
