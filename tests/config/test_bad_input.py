"""Bad bytes stop at the edge (config/bad_input.py): NUL and unpaired surrogates wherever the app
reads them, and oversized bodies, are a 400 (413) in the API's shape or a plain Chinese page,
never a 500 — on PostgreSQL too, where each of these once reached the database."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import AsyncClient, Client
from hypothesis import given
from hypothesis import strategies as st

from config.bad_input import _RAW_SURROGATE, _escapes_bad
from games.models import Event, Game
from tests.conftest import api_login

pytestmark = pytest.mark.django_db

MESSAGE = "请求中含有无法处理的字符（空字符或不成对的代理字符），请删除后重试。"


def refused_json(response: Any, status: int = 400, code: str = "invalid_input") -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    data: dict[str, Any] = response.json()
    assert data["code"] == code
    return data


def refused_page(response: Any, status: int = 400) -> str:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("text/html")
    return str(response.content.decode())


@pytest.mark.parametrize("path", ["/games/%00/", "/play/%00/me/", "/play/%00/", "/games/a%00b/"])
def test_a_nul_in_a_page_path_is_a_plain_chinese_400(client: Client, game: Game, path: str) -> None:
    page = refused_page(client.get(path))
    assert "请求无效" in page
    assert MESSAGE in page


@pytest.mark.parametrize(
    "path", ["/api/games/by-number/%00", "/api/games/by-number/256%00", "/api/play/%00/login"]
)
def test_a_nul_in_an_api_path_is_invalid_input(client: Client, game: Game, path: str) -> None:
    data = refused_json(client.get(path))
    assert data["message"] == MESSAGE
    assert data["detail"] == {"where": "path"}


def test_the_refusal_speaks_english_when_asked(client: Client, game: Game) -> None:
    data = refused_json(client.get("/api/games/by-number/%00", HTTP_ACCEPT_LANGUAGE="en"))
    assert data["message"].startswith("The request contains characters")
    assert "Bad request" in refused_page(client.get("/games/%00/", HTTP_ACCEPT_LANGUAGE="en"))


def test_a_nul_in_the_query_a_header_or_a_cookie_is_refused(
    client: Client, game: Game, passwords: dict[str, str]
) -> None:
    assert refused_json(client.get("/api/games/by-number/256?x=%00"))["detail"] == {
        "where": "query"
    }
    refused_page(client.get("/games/256/?q=a%00"))
    assert api_login(client, "256", passwords["甲"]).status_code == 200
    key = client.post(
        f"/api/royale/games/{game.pk}/actions",
        {"kind": "rest"},
        content_type="application/json",
        headers={"Idempotency-Key": "k\x00"},
    )
    assert refused_json(key)["detail"] == {"where": "header"}
    # A session key with a NUL, raw or as a quoted cookie's octal escape: it never reaches the
    # session table (PostgreSQL refused the lookup with a 500).
    for cookie in ('sessionid="abcdefgh\\000ijkl"', "sessionid=abcdefgh\x00ijkl"):
        stranger = Client(HTTP_COOKIE=cookie)
        refused_json(stranger.get(f"/api/games/{game.pk}/events"))
        refused_page(stranger.get("/play/256/me/"))
    admin_search = Client(HTTP_COOKIE='csrftoken="\\000"')
    refused_page(admin_search.get("/admin/"))


def test_a_nul_in_a_form_field_is_refused(client: Client, game: Game) -> None:
    refused_page(client.post("/play/256/", "password=a%00b", "application/x-www-form-urlencoded"))
    upload = SimpleUploadedFile("page.html", b"<html></html>", content_type="text/html")
    refused_page(client.post("/play/256/", {"password": "a\x00b", "page": upload}))
    # the same forms with ordinary input are answered as before (a wrong password)
    wrong = client.post("/play/256/", {"password": "AAAAAA-BBBBBB-CCCCCC-DDDDDD"})
    assert wrong.status_code == 401
    assert "密码错误" in wrong.content.decode()


@pytest.mark.parametrize(
    "body",
    [
        b'{"password": "\\u0000"}',
        b'{"password": "a\\ud800"}',
        b'{"password": "\\udfff"}',
        b'{"password": "\\udc00\\ud800"}',
        b'{"password": "\\ud800x\\udc00"}',
        b'{"password": "\\\\\\ud800"}',
        b'{"password\\u0000": "x"}',
        '{"password": "a\ud800"}'.encode("utf-8", "surrogatepass"),
        b'{"password": "a\x00"}',
    ],
)
def test_nul_and_unpaired_surrogates_in_json_are_invalid_input(
    client: Client, game: Game, body: bytes
) -> None:
    response = client.post("/api/play/256/login", body, content_type="application/json")
    assert refused_json(response)["detail"] == {"where": "body"}


@pytest.mark.parametrize(
    "text",
    [
        "😀",  # a pair: as the escapes \ud83d\ude00 from a client that escapes non-ASCII
        "\\u0000",  # the six characters, not a NUL: the backslash is escaped
        "\\\\u0000",
        "雾雨小镇",
        "",
    ],
)
def test_a_pair_and_escaped_backslashes_are_not_bad(text: str) -> None:
    body = json.dumps({"text": text}).encode()
    assert not _escapes_bad(body)
    assert json.loads(body)["text"] == text


# Text around the edge cases: NUL, both halves of pairs, backslashes, a "u" and hex digits.
_tricky = st.text(
    alphabet=st.sampled_from(
        ["\x00", "\ud83d", "\ude00", "\ud800", "\udfff", "\\", "u", "d", "8", "0", "a", "字"]
    )
    | st.characters(),
    max_size=12,
)


def _bad_after_parsing(body: bytes) -> bool:
    """The truth: what json.loads makes of the body has a NUL or a surrogate left unpaired."""
    text = json.loads(body)["text"]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return "\x00" in text


@given(_tricky)
def test_the_escape_scan_agrees_with_what_json_decodes(text: str) -> None:
    body = json.dumps({"text": text}).encode()  # every non-ASCII character escaped
    assert _escapes_bad(body) == _bad_after_parsing(body)


@given(_tricky)
def test_the_raw_scan_agrees_with_what_json_decodes(text: str) -> None:
    # surrogates as UTF-8 bytes (a pair too: CESU-8, which json.loads leaves as two halves)
    body = json.dumps({"text": text}, ensure_ascii=False).encode("utf-8", "surrogatepass")
    raw_bad = _RAW_SURROGATE.search(body) is not None or _escapes_bad(body)
    assert raw_bad == _bad_after_parsing(body)


def test_a_body_over_the_limit_is_413_in_the_apis_shape(client: Client, game: Game) -> None:
    huge = b'{"password": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    data = refused_json(
        client.post("/api/play/256/login", huge, content_type="application/json"), 413, "too_large"
    )
    assert data["message"] == "请求内容过大。"
    page = refused_page(
        client.post("/play/256/", b"password=" + b"x" * (3 * 1024 * 1024), "text/plain"), 413
    )
    assert "请求过大" in page


def test_good_requests_pass_untouched(
    client: Client, game: Game, passwords: dict[str, str]
) -> None:
    assert client.get("/api/games/by-number/256").status_code == 200
    assert client.get("/games/256/?q=%E9%9B%BE").status_code == 200
    login = client.post(
        "/api/play/256/login",
        json.dumps({"password": passwords["甲"]}).encode(),  # escaped non-ASCII would pass too
        content_type="application/json",
    )
    assert login.status_code == 200


@pytest.mark.django_db(transaction=True)
async def test_under_asgi_the_same_refusals(game: Game) -> None:
    client = AsyncClient()
    refused_json(await client.get("/api/games/by-number/%00"))
    refused_page(await client.get("/games/%00/"))
    refused_json(
        await client.post(
            "/api/play/256/login", b'{"password": "\\ud800"}', content_type="application/json"
        )
    )
    assert (await client.get("/api/games/by-number/256")).status_code == 200
    assert (await client.get("/api/ping")).status_code == 200


def test_nothing_is_logged_for_a_refused_request(client: Client, game: Game) -> None:
    seq = Event.objects.filter(game=game).count()
    for path in ("/games/%00/", "/api/games/by-number/%00", "/play/%00/me/"):
        client.get(path)
    assert Event.objects.filter(game=game).count() == seq
