"""Issue 14's holes, one test (or a few) each: a logout closes the session's sockets; the
character login refuses other sites' requests (text/plain, a foreign Origin) and a link logs
in only by its button's POST; the websocket Origin is compared whole (scheme, host, port);
`check --deploy` sees the renamed middleware and is clean with the production settings; every
page carries a Content-Security-Policy; the events endpoint answers a game the viewer may
not see as a missing one."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client

from config.asgi import application
from games import services
from games.consumers import REVOKED
from games.engine.events import GameEvent, to_character
from games.models import Character, CharacterSession, Game
from tests.conftest import HOST, ORIGIN, api_login, make_game, session_cookie, socket_open
from tests.royale.conftest import royale_game

ROOT = Path(__file__).resolve().parents[2]
record = sync_to_async(services.event_record)


def logged_in(number: str, password: str) -> Client:
    client = Client()
    assert api_login(client, number, password).status_code == 200
    return client


def signed_in_as(client: Client, number: str) -> bool:
    """Whether the client's session has a character in this game (its page, not the form)."""
    return client.get(f"/play/{number}/me/").status_code == 200


async def _handshake(game: Game, *headers: tuple[bytes, bytes]) -> bool:
    communicator = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    await communicator.disconnect()
    return connected


# --- 6. a logout closes the session's sockets --------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_a_directors_logout_closes_the_control_rooms_socket(
    game: Game, director: Any
) -> None:
    browser = Client()
    await sync_to_async(browser.force_login)(director)
    socket, _ = await socket_open(game, ORIGIN, session_cookie(browser))
    await sync_to_async(browser.post)("/admin/logout/")
    assert await socket.receive_output(timeout=3) == {"type": "websocket.close", "code": REVOKED}


@pytest.mark.django_db(transaction=True)
async def test_logout_closes_the_sessions_socket_and_no_other(
    game: Game, passwords: dict[str, str]
) -> None:
    jia = await sync_to_async(Character.objects.get)(game=game, name="甲")
    browser = await sync_to_async(logged_in)("256", passwords["甲"])
    phone = await sync_to_async(logged_in)("256", passwords["甲"])  # 甲 on a second device
    socket, _ = await socket_open(game, ORIGIN, session_cookie(browser))
    other, _ = await socket_open(game, ORIGIN, session_cookie(phone))

    response = await sync_to_async(browser.post)("/play/256/logout/")
    assert response.status_code == 302
    assert await socket.receive_output(timeout=3) == {"type": "websocket.close", "code": REVOKED}
    # Signed out there: no session row left for a reset to sign out, and no way back in.
    key = browser.cookies["sessionid"].value
    assert not await CharacterSession.objects.filter(session_key=key).aexists()
    assert not await sync_to_async(signed_in_as)(browser, "256")
    assert not await _handshake(game, HOST, ORIGIN, session_cookie(browser))

    # The other device's session is untouched: it still hears 甲's private frames.
    await record(game=game, events=[GameEvent("note", to_character(jia.pk), {"text": "私"})])
    frame = await other.receive_json_from(timeout=3)
    assert frame["payload"] == {"text": "私"}
    await other.disconnect()


# --- 8. login CSRF -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_login_with_text_plain_is_refused_and_sets_no_session(
    client: Client, game: Game, passwords: dict[str, str]
) -> None:
    # What an HTML form or a "simple" fetch from another site can send.
    body = json.dumps({"password": passwords["甲"]})
    response = client.post("/api/play/256/login", body, content_type="text/plain")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_input")
    assert "sessionid" not in response.cookies
    assert not signed_in_as(client, "256")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "http://testserver:8000"},  # the right host on another port
        {"Origin": "https://testserver"},  # and another scheme
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
    ids=["foreign", "port", "scheme", "null", "cross-site", "same-site"],
)
def test_login_from_another_sites_page_is_refused_and_sets_no_session(
    client: Client, game: Game, passwords: dict[str, str], headers: dict[str, str]
) -> None:
    response = api_login(client, "256", passwords["甲"], headers=headers)
    assert (response.status_code, response.json()["code"]) == (403, "csrf_failed")
    assert "sessionid" not in response.cookies
    assert not signed_in_as(client, "256")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "headers",
    [{}, {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}],
    ids=["no-browser", "own-page"],
)
def test_login_from_the_sites_own_page_or_no_browser_works(
    client: Client, game: Game, passwords: dict[str, str], headers: dict[str, str]
) -> None:
    assert api_login(client, "256", passwords["甲"], headers=headers).status_code == 200
    assert signed_in_as(client, "256")


@pytest.mark.django_db
def test_login_behind_the_tls_proxy_wants_the_https_origin(
    client: Client, game: Game, passwords: dict[str, str], settings: Any
) -> None:
    settings.ALLOWED_HOSTS = ["bansha.example"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    proxied = {"Host": "bansha.example", "X-Forwarded-Proto": "https"}
    plain = api_login(
        client, "256", passwords["甲"], headers={**proxied, "Origin": "http://bansha.example"}
    )
    assert plain.status_code == 403
    secure = api_login(
        client, "256", passwords["甲"], headers={**proxied, "Origin": "https://bansha.example"}
    )
    assert secure.status_code == 200


FORM = re.compile(r'<form method="post" class="login link-login">(.*?)</form>', re.S)
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="(\w+)"')


@pytest.mark.django_db
def test_opening_a_link_logs_nobody_in_and_its_button_posts_and_logs_in(
    game: Game, director: Any
) -> None:
    (issued, *_) = services.character_links_issue(game=game, director=director)
    url = f"/play/256/k/{issued.secret}/"
    browser = Client(enforce_csrf_checks=True)  # as a real browser is checked

    page = browser.get(url)
    assert page.status_code == 200
    assert "no-store" in page["Cache-Control"]
    assert not signed_in_as(browser, "256")
    # The same page for a token that logs nobody in: opening it tells nothing.
    wrong = browser.get("/play/256/k/not-a-token/")
    assert wrong.status_code == 200
    assert not signed_in_as(browser, "256")
    form = FORM.search(page.content.decode())
    assert form is not None  # no action: the form posts back to the link
    assert "用此链接登录" in form.group(1)
    token = TOKEN.search(form.group(1))
    assert token is not None

    forged = Client(enforce_csrf_checks=True).post(url)  # another site's form: no token
    assert forged.status_code == 403
    stale = browser.post("/play/256/k/not-a-token/", {"csrfmiddlewaretoken": token.group(1)})
    assert stale.status_code == 401  # the password form, which posts to the password login
    assert '<form method="post" action="/play/256/" class="login">' in stale.content.decode()
    assert not signed_in_as(browser, "256")
    pressed = browser.post(url, {"csrfmiddlewaretoken": token.group(1)})
    assert (pressed.status_code, pressed["Location"]) == (302, "/play/256/me/")
    assert signed_in_as(browser, "256")


# --- 9. the websocket Origin: scheme, host and port ----------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("host", "origin", "accepted"),
    [
        ("localhost:8000", "http://localhost:9999", False),  # the report's: another port
        ("127.0.0.1:8000", "http://127.0.0.1:9999", False),
        ("127.0.0.1:8000", "https://127.0.0.1:8000", False),  # another scheme
        ("127.0.0.1:8000", "http://127.0.0.1", False),  # port 80
        ("127.0.0.1:8000", "http://localhost:8000", False),  # an allowed host, not this one
        ("evil.example", "http://evil.example", False),  # a host not allowed
        ("127.0.0.1:8000", "http://127.0.0.1:8000", True),
        ("localhost:8000", "http://LOCALHOST:8000", True),
        ("localhost", "http://localhost:80", True),  # the default port, written or not
    ],
)
async def test_a_websocket_origin_must_match_scheme_host_and_port(
    game: Game, passwords: dict[str, str], host: str, origin: str, accepted: bool
) -> None:
    cookie = session_cookie(await sync_to_async(logged_in)("256", passwords["甲"]))
    headers = ((b"host", host.encode()), (b"origin", origin.encode()), cookie)
    assert await _handshake(game, *headers) is accepted


@pytest.mark.django_db(transaction=True)
async def test_a_websocket_behind_the_tls_proxy_wants_https_or_a_trusted_origin(
    game: Game, passwords: dict[str, str], settings: Any
) -> None:
    cookie = session_cookie(await sync_to_async(logged_in)("256", passwords["甲"]))
    settings.ALLOWED_HOSTS = ["bansha.example"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.CSRF_TRUSTED_ORIGINS = ["https://*.mirror.example"]
    proxied = ((b"host", b"bansha.example"), (b"x-forwarded-proto", b"https"), cookie)

    assert await _handshake(game, (b"origin", b"https://bansha.example"), *proxied)
    assert not await _handshake(game, (b"origin", b"http://bansha.example"), *proxied)
    assert await _handshake(game, (b"origin", b"https://play.mirror.example"), *proxied)
    assert not await _handshake(game, (b"origin", b"https://play.mirror.example:8443"), *proxied)
    # Two Origin headers are no browser's: refused.
    twice = ((b"origin", b"https://bansha.example"), (b"origin", b"https://bansha.example"))
    assert not await _handshake(game, *twice, *proxied)


# --- 12. deploy checks, CSP, the events endpoint ------------------------------------------------

PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "k7Vq2xR9pL4mZ8wT1yB6nC3eF5gH0aJ2sD8fK4jQ9wE7rT1yU5iO3pZ6xV0bN4m",
    "PASSWORD_DIGEST_KEY": "Hn4pQ8zR2wX6mK0vB9cL3tY7uJ1gF5dS8aE2rW6qZ4xN0mP3kV7bC9jT1yH5uGq",
    "ALLOWED_HOSTS": "bansha.example",
    "CSRF_TRUSTED_ORIGINS": "https://bansha.example",
    "SECURE_COOKIES": "1",
    "TRUST_X_FORWARDED_FOR": "1",
    "SERVE_STATIC": "0",
    "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_PRELOAD": "1",
}
HTTPS_ONLY = {"SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_PRELOAD", "SECURE_COOKIES"}


def deploy_check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`manage.py check --deploy` in a process of its own: the settings read the environment
    when they load. Any warning fails it (--fail-level WARNING)."""
    clean = {k: v for k, v in os.environ.items() if k not in PRODUCTION}
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_check_deploy_is_clean_with_the_production_settings() -> None:
    result = deploy_check(PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_sees_through_the_renamed_middleware() -> None:
    # Without the HTTPS settings, the findings the renamed middleware used to hide are there.
    result = deploy_check({k: v for k, v in PRODUCTION.items() if k not in HTTPS_ONLY})
    assert result.returncode != 0
    for finding in ("security.W004", "security.W008", "security.W016", "security.W010"):
        assert finding in result.stderr
    without_keys = {k: v for k, v in PRODUCTION.items() if not k.endswith("KEY")}
    assert "site.W009" in deploy_check(without_keys).stderr


def test_check_deploy_reports_a_middleware_that_is_really_missing(settings: Any) -> None:
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m != "config.middleware.Security"]
    with pytest.raises(SystemCheckError, match=r"site\.W001"):
        call_command("check", deploy=True, fail_level="WARNING")


NONCE = re.compile(r"'nonce-([^']+)'")


def _policy(response: Any) -> str:
    policy = str(response["Content-Security-Policy"])
    assert "default-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy
    script = next(d for d in policy.split(";") if d.strip().startswith("script-src"))
    assert "'unsafe-inline'" not in script
    assert "'unsafe-eval'" not in script
    return policy


@pytest.mark.django_db
def test_the_portal_admin_and_archive_carry_a_content_security_policy(
    director: Any, director_client: Client, passwords: dict[str, str], game: Game
) -> None:
    player = logged_in("256", passwords["甲"])
    pages = [
        (Client(), "/"),
        (Client(), "/play/256/"),
        (Client(), "/play/256/k/some-token/"),
        (player, "/play/256/me/"),
        (Client(), "/admin/login/"),
        (director_client, "/admin/"),
        (director_client, f"/admin/games/game/{game.pk}/prepare/"),
    ]
    for client, url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        _policy(response)
        # Every script is a file of the site's, or inline with this response's nonce.
        for tag in re.findall(r"<script\b[^>]*>", response.content.decode()):
            assert "src=" in tag or 'type="application/json"' in tag, (url, tag)
        assert not re.search(r"\son(click|load|change|submit)=", response.content.decode()), url

    # A policy governs documents: the JSON API is spared building it (config/middleware.py).
    assert "Content-Security-Policy" not in Client().get("/api/ping")

    finished = royale_game("252", ("丁", "戊"))
    finished.directors.add(director)
    services.game_finish(game=finished, director=director, reason="结束")
    for url in ("/games/252/archive/", "/games/252/archive/day/0/"):
        response = Client().get(url)
        assert response.status_code == 200, url
        nonce = NONCE.search(_policy(response))
        for tag in re.findall(r"<script\b[^>]*>", response.content.decode()):
            assert "src=" in tag or (nonce and f'nonce="{nonce.group(1)}"' in tag), (url, tag)


@pytest.mark.django_db
def test_credential_links_are_https_behind_the_tls_proxy(
    director_client: Client, game: Game, settings: Any
) -> None:
    settings.ALLOWED_HOSTS = ["bansha.example"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    page = director_client.post(
        f"/admin/games/game/{game.pk}/prepare/",
        {"op": "credentials"},
        headers={"Host": "bansha.example", "X-Forwarded-Proto": "https"},
    ).content.decode()
    links = re.findall(r"<code>(\w+://[^<]*)</code>", page)
    assert len(links) == 3
    assert all(link.startswith("https://bansha.example/play/256/k/") for link in links)


@pytest.mark.django_db
def test_the_events_endpoint_answers_a_forbidden_game_as_a_missing_one(
    client: Client, game: Game, passwords: dict[str, str]
) -> None:
    other = make_game("061", characters=("丁",))
    draft = make_game("099", characters=("戊",))
    Game.objects.filter(pk=draft.pk).update(status="draft")
    missing = Game.objects.order_by("-pk").values_list("pk", flat=True)[0] + 100
    anonymous = [client.get(f"/api/games/{pk}/events") for pk in (game.pk, missing, draft.pk)]
    player = logged_in("256", passwords["甲"])  # 甲 of game 256 asks about others
    of_another = [player.get(f"/api/games/{pk}/events") for pk in (other.pk, missing)]
    answers = {(r.status_code, r.content) for r in anonymous + of_another}
    assert len(answers) == 1
    ((status, body),) = answers
    assert (status, json.loads(body)["code"]) == (404, "not_found")
