"""The forum in the admin: sites kept by staff with their secrets never shown back, threads
registered and synced by their directors, errors shown where the director looks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from games import forum_services
from games.models import ForumPost, ForumSite, ForumThread, Game
from tests.conftest import make_game, on_forum
from tests.games.forum.fake_forum import FakeForum
from tests.royale.conftest import royale_game

pytestmark = pytest.mark.django_db

SEED_061 = Path("/work/shared/seeds/002_423c9e1c77293a4f.txt")


@pytest.fixture
def root_client(django_user_model: Any) -> Client:
    root = django_user_model.objects.create_superuser("root", "r@example.com", "pw-123456789")
    client = Client()
    client.force_login(root)
    return client


def site_form(**fields: str) -> dict[str, str]:
    return {
        "name": "雾雨小镇",
        "kind": "discuz",
        "base_url": "http://forum.example/",
        "username": "导演B",
        "password": "",
        "api_key": "",
        "api_username": "",
        **fields,
    }


def test_a_forum_sites_secrets_are_never_shown_and_a_blank_keeps_them(
    root_client: Client,
) -> None:
    created = root_client.post(
        "/admin/games/forumsite/add/", site_form(password="tai-chang-de-mima", api_key="k-123")
    )
    assert created.status_code == 302
    site = ForumSite.objects.get()
    assert (site.password, site.api_key) == ("tai-chang-de-mima", "k-123")

    page = root_client.get(f"/admin/games/forumsite/{site.pk}/change/").content.decode()
    listing = root_client.get("/admin/games/forumsite/").content.decode()
    for html in (page, listing):
        assert "tai-chang-de-mima" not in html
        assert "k-123" not in html

    saved = root_client.post(
        f"/admin/games/forumsite/{site.pk}/change/", site_form(username="导演C")
    )
    assert saved.status_code == 302
    site.refresh_from_db()
    assert (site.username, site.password, site.api_key) == ("导演C", "tai-chang-de-mima", "k-123")


def test_directors_do_not_manage_forum_sites(director_client: Client) -> None:
    assert director_client.get("/admin/games/forumsite/").status_code == 403


def test_a_director_registers_threads_of_their_own_games_only(
    director_client: Client, game: Game
) -> None:
    other = make_game("061", characters=("丁",))
    ForumThread.objects.create(game=other, day=1, kind="discussion", external_id="77")
    added = director_client.post(
        "/admin/games/forumthread/add/",
        {"game": game.pk, "day": 2, "kind": "vote", "external_id": "12345"},
    )
    assert added.status_code == 302
    assert ForumThread.objects.filter(game=game, day=2, kind="vote", external_id="12345").exists()

    refused = director_client.post(
        "/admin/games/forumthread/add/",
        {"game": other.pk, "day": 2, "kind": "vote", "external_id": "1"},
    )
    assert refused.status_code == 200  # the form's error: not a choice
    assert not ForumThread.objects.filter(game=other, day=2).exists()
    listing = director_client.get("/admin/games/forumthread/").content.decode()
    assert "12345" in listing
    assert "[061]" not in listing


def test_syncing_from_the_admin_shows_the_result_or_the_forums_error(
    director_client: Client, game: Game, fake_forum: FakeForum
) -> None:
    on_forum(game, fake_forum.base_url)
    topic = fake_forum.thread()
    fake_forum.post(topic.tid, "甲", "一楼")
    good = ForumThread.objects.create(game=game, day=1, kind="discussion", external_id=topic.tid)
    wrong = ForumThread.objects.create(game=game, day=1, kind="vote", external_id="999999")

    done = director_client.post(f"/admin/games/forumthread/{good.pk}/sync/", follow=True)
    assert "新增 1 楼" in done.content.decode()
    failed = director_client.post(f"/admin/games/forumthread/{wrong.pk}/sync/", follow=True)
    assert "论坛上找不到该帖子" in failed.content.decode()
    fake_forum.fail_next(502)
    down = director_client.post(
        f"/admin/games/forumthread/{good.pk}/sync/", {"full": "1"}, follow=True
    )
    assert "论坛服务器出错（HTTP 502）" in down.content.decode()
    assert ForumPost.objects.filter(thread=good).count() == 1

    listing = director_client.get("/admin/games/forumthread/").content.decode()
    assert "论坛上找不到该帖子" in listing
    # The game's page shows each thread's state, the error included.
    page = director_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert "论坛上找不到该帖子" in page
    assert "连续失败 1 次" in page
    assert str(topic.tid) in page


def test_another_directors_thread_cannot_be_synced(
    director_client: Client, fake_forum: FakeForum
) -> None:
    other = on_forum(make_game("061", characters=("丁",)), fake_forum.base_url)
    thread = ForumThread.objects.create(game=other, day=1, kind="discussion", external_id="1")
    assert director_client.post(f"/admin/games/forumthread/{thread.pk}/sync/").status_code == 404
    assert (
        director_client.get(f"/admin/games/forumthread/{thread.pk}/printable/").status_code == 404
    )
    thread.refresh_from_db()
    assert thread.last_synced_at is None


def test_a_director_imports_a_printable_page_by_paste_or_upload(
    director_client: Client, game: Game
) -> None:
    thread = ForumThread.objects.create(game=game, day=1, kind="progress", external_id="423")
    url = f"/admin/games/forumthread/{thread.pk}/printable/"
    assert "打印本页" in director_client.get(url).content.decode()

    bad = director_client.post(url, {"text": "这不是打印页"})
    assert bad.status_code == 200
    assert "没有找到任何楼层" in bad.content.decode()
    assert not ForumPost.objects.filter(thread=thread).exists()

    upload = SimpleUploadedFile("061.html", SEED_061.read_text().encode("gb18030"))
    done = director_client.post(url, {"text": "", "page": upload}, follow=True)
    assert "新增 5 楼" in done.content.decode()
    assert ForumPost.objects.filter(thread=thread).count() == 5
    assert ForumPost.objects.filter(thread=thread, author="[061]导演B").count() == 5


def test_the_stored_posts_are_listed_for_the_director_but_never_changed(
    director_client: Client, game: Game
) -> None:
    thread = ForumThread.objects.create(game=game, day=1, kind="progress", external_id="423")
    forum_services.forum_printable_import(thread=thread, text=SEED_061.read_text())
    post = ForumPost.objects.filter(thread=thread).first()
    assert post is not None
    listing = director_client.get("/admin/games/forumpost/").content.decode()
    assert "[061]导演B" in listing
    response = director_client.post(f"/admin/games/forumpost/{post.pk}/change/", {"text": "改写"})
    assert response.status_code == 403


def test_the_control_room_shows_the_forum_sync(
    director: Any, director_client: Client, fake_forum: FakeForum
) -> None:
    game = royale_game("256", ("甲", "乙"))
    game.directors.add(director)
    on_forum(game, fake_forum.base_url)
    ForumThread.objects.create(game=game, day=1, kind="discussion", external_id="4321")
    ForumThread.objects.filter(game=game).update(last_error="无法连接论坛", failures=2)

    control = f"/admin/royale/royalegame/{game.pk}/control/"
    page = director_client.get(control).content.decode()

    assert 'id="forum-sync"' in page
    assert "4321" in page
    assert "无法连接论坛" in page
    thread = ForumThread.objects.get(game=game)
    button = f'action="/admin/games/forumthread/{thread.pk}/sync/"'
    assert button in page
    back = director_client.post(f"/admin/games/forumthread/{thread.pk}/sync/", {"next": control})
    assert (back.status_code, back["Location"]) == (302, control)
    elsewhere = director_client.post(
        f"/admin/games/forumthread/{thread.pk}/sync/", {"next": "https://evil.example/"}
    )
    assert elsewhere["Location"] == f"/admin/games/forumthread/{thread.pk}/change/"


def test_a_synced_threads_forum_id_can_no_longer_be_changed(
    director_client: Client, game: Game, fake_forum: FakeForum
) -> None:
    on_forum(game, fake_forum.base_url)
    topic = fake_forum.thread()
    fake_forum.post(topic.tid, "甲", "一楼")
    thread = ForumThread.objects.create(game=game, day=1, kind="discussion", external_id=topic.tid)
    forum_services.forum_thread_sync(thread=thread)

    director_client.post(
        f"/admin/games/forumthread/{thread.pk}/change/",
        {"game": game.pk, "day": 1, "kind": "discussion", "external_id": "1"},
    )

    thread.refresh_from_db()
    assert thread.external_id == str(topic.tid)
