"""The admin as its users see it: the site's name heads it, its JavaScript speaks Chinese (the
two-box selector of a game's 导演), and every list column and filter of the shared, royale and
werewolf admins is labelled in Chinese, with English still available."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.utils import label_for_field
from django.test import Client
from django.utils import translation

from games.admin_ballots import VoteAliasAdmin
from games.admin_cards import CardAdmin, CardReviewAdmin
from games.admin_forum import (
    DirectorForumAccountAdmin,
    ForumPostAdmin,
    ForumSiteAdmin,
    ForumThreadAdmin,
)
from royale.admin import RoyaleGameAdmin
from tests.games.test_cards import add, werewolf_game
from werewolf.admin import WerewolfGameAdmin

pytestmark = pytest.mark.django_db

CJK = re.compile(r"[\u4e00-\u9fff]")
ZH = {"accept-language": "zh-CN,zh;q=0.9"}
EN = {"accept-language": "en"}


@pytest.fixture
def superuser(django_user_model: Any) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("root", password="x-root-123"))
    return client


def test_the_site_name_heads_the_admin(director_client: Client) -> None:
    page = director_client.get("/admin/", headers=ZH).content.decode()
    assert "雾雨小镇 版杀 · 控制室" in page
    assert "Django 管理" not in page
    assert "<title>导演与论坛管理 | 雾雨小镇 版杀 · 控制室</title>" in page
    english = director_client.get("/admin/", headers=EN).content.decode()
    assert "Wuyu Town forum games · control room" in english


def test_the_admins_javascript_catalog_has_the_selectors_chinese(director_client: Client) -> None:
    """Django 5.2's zh_Hans djangojs catalog lacks SelectFilter2.js's newer strings; the
    project's locale/zh_Hans fills them in."""
    script = director_client.get("/admin/jsi18n/", headers=ZH).content.decode()
    wanted = 'Choose %s by selecting them and then select the \\"Choose\\" arrow button.'
    assert json.dumps("Choose %s by selecting them")[1:-1] in script
    assert f'"{wanted}": {json.dumps("选中要添加的%s，然后点击“选择”箭头按钮。")}' in script
    assert json.dumps("全选%s") in script
    assert json.dumps("可用 %s") in script  # Django's own catalog is still there
    english = director_client.get("/admin/jsi18n/", headers=EN).content.decode()
    assert json.dumps("全选%s") not in english


@pytest.mark.parametrize(
    "admin_class",
    [
        CardAdmin,
        CardReviewAdmin,
        VoteAliasAdmin,
        ForumSiteAdmin,
        ForumThreadAdmin,
        ForumPostAdmin,
        DirectorForumAccountAdmin,
        RoyaleGameAdmin,
        WerewolfGameAdmin,
    ],
)
def test_every_list_column_is_labelled_in_chinese(admin_class: type[admin.ModelAdmin]) -> None:
    model_admin = next(a for a in admin.site._registry.values() if type(a) is admin_class)
    with translation.override("zh-hans"):
        for name in model_admin.list_display:
            label = str(label_for_field(name, model_admin.model, model_admin))
            assert CJK.search(label), f"{admin_class.__name__}.{name}: {label!r}"


def test_game_filters_and_columns_in_chinese_and_english(director: Any, superuser: Client) -> None:
    for game in (werewolf_game(), werewolf_game(number="100")):  # a filter needs two
        add(game, director, "陈", "blue", "12.1")
    for url in ("/admin/games/card/", "/admin/games/cardreview/?status__exact=proposed"):
        page = superuser.get(url, headers=ZH).content.decode()
        assert "以 游戏" in page
        assert ">game<" not in page
        assert "[099] 明日方舟" in page
        english = superuser.get(url, headers=EN).content.decode()
        assert "By Game" in english
    queue = superuser.get("/admin/games/cardreview/?status__exact=proposed", headers=EN)
    for words in ("Counts and posts", "Confirm", "Reject", "[099] 明日方舟 · day 1"):
        assert words in queue.content.decode()
