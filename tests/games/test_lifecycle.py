"""A real game's life as a director lives it in the admin: create, calendar, sign-up, credentials,
start, substitutes — and every bad input a Chinese refusal that changes nothing."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games import services
from games.engine.errors import NotFound
from games.errors import (
    CastLocked,
    DuplicateNumber,
    NotStartable,
    SubstituteExists,
    UnknownRuleset,
)
from games.models import (
    Assistant,
    Character,
    DirectorForumAccount,
    Event,
    ForumSite,
    ForumThread,
    Game,
    GameStatus,
    Substitute,
)
from games.selectors import game_calendar
from royale.services import royale_setup
from tests.conftest import ORIGIN, api_login, make_game, session_cookie, socket_open
from tests.games.forum.fake_forum import PASSWORD, FakeForum

pytestmark = pytest.mark.django_db

ADD = "/admin/games/game/add/"


def prepare(game: Game) -> str:
    return f"/admin/games/game/{game.pk}/prepare/"


def create_form(**fields: Any) -> dict[str, Any]:
    return {
        "kind": "royale",
        "ruleset": "islington_256",
        "number": "256",
        "title": "伊斯灵顿不眠夜",
        "start_date": "2026-12-01",
        **fields,
    }


# --- 1. create ----------------------------------------------------------------------------


def test_the_add_form_offers_the_registries_kinds_and_rulesets_in_chinese(
    director_client: Client,
) -> None:
    page = director_client.get(ADD).content.decode()
    for label in ("大逃杀", "版杀", "[256] 伊斯灵顿不眠夜", "[252] 鬼灭之刃", "[099] 明日方舟"):
        assert label in page
    assert '<select name="ruleset"' in page
    assert '<select name="kind"' in page


def test_a_director_creates_a_game_and_lands_on_its_page(
    director_client: Client, director: Any
) -> None:
    response = director_client.post(ADD, create_form())
    game = Game.objects.get(number="256")
    assert response.status_code == 302
    assert response["Location"] == prepare(game)
    assert (game.kind, game.ruleset, game.status) == ("royale", "islington_256", "draft")
    assert list(game.directors.all()) == [director]
    assert len(game.seed_hash) == 64
    assert game.seed
    page = director_client.get(prepare(game)).content.decode()
    assert game.seed_hash in page
    assert game.seed not in page
    # Public before anything is dealt from the seed; the seed itself is not.
    public = Client().get("/games/256/").content.decode()
    assert game.seed_hash in public
    assert game.seed not in public
    assert "本局正在筹备" in public


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"ruleset": "arknights_099"}, "该类型没有这个规则集"),  # a role game's ruleset
        ({"ruleset": "no_such"}, "选择一个有效的选项"),
        ({"number": "2 56"}, "编号须为"),
        ({"title": ""}, "这个字段是必填项"),
        ({"signup_thread": "123"}, "请先选择论坛"),
    ],
)
def test_bad_values_are_chinese_form_errors_and_create_nothing(
    director_client: Client, fields: dict[str, str], error: str
) -> None:
    response = director_client.post(ADD, create_form(**fields))
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not Game.objects.exists()


def test_a_duplicate_number_is_a_form_error(director_client: Client) -> None:
    make_game("256")
    response = director_client.post(ADD, create_form())
    assert response.status_code == 200
    assert "已有同编号的游戏" in response.content.decode()
    assert Game.objects.count() == 1
    with pytest.raises(DuplicateNumber):
        services.game_create(kind="royale", ruleset="islington_256", number="256", title="x")
    with pytest.raises(UnknownRuleset):
        services.game_create(kind="werewolf", ruleset="kimetsu_252", number="252", title="x")


# --- 2. the timetable from the ruleset -------------------------------------------------------


def test_each_ruleset_gives_its_schedule() -> None:
    royale = services.game_create(kind="royale", ruleset="kimetsu_252", number="252", title="鬼")
    assert (royale.night_open_time, royale.night_end_time) == (dt.time(21, 10), dt.time(21, 25))
    conan = services.game_create(kind="werewolf", ruleset="conan_096", number="096", title="柯南")
    assert [s["at"] for s in conan.night_stages] == [
        "21:00", "21:10", "21:20", "21:30", "22:00", "22:15"
    ]  # fmt: skip
    assert conan.night_stages[-1]["label"] == "【招魂术】"
    lin = services.game_create(kind="werewolf", ruleset="lin_feng_061", number="061", title="林峰")
    assert (lin.day_span, lin.weekend_extra, lin.day_close_time) == (2, True, dt.time(21, 0))


def test_061_days_span_two_dates_and_one_more_over_a_weekend() -> None:
    """一般讨论日持续两天，每逢周末时讨论日延长一天 (RULINGS [061] 14: closing 21:00 of the
    last date)."""
    lin = services.game_create(
        kind="werewolf",
        ruleset="lin_feng_061",
        number="061",
        title="林峰",
        start_date=dt.date(2026, 12, 1),  # a Tuesday
    )
    days = game_calendar(game=lin, days=4)
    assert [d.dates for d in days] == [
        "12月1日（周二） 至 12月2日（周三）",
        "12月3日（周四） 至 12月4日（周五）",
        "12月5日（周六） 至 12月7日（周一）",  # the weekend adds a day
        "12月8日（周二） 至 12月9日（周三）",
    ]
    assert ("关门", "12月7日 21:00") in days[2].steps
    assert days[0].stages[0] == ("21:10", "关门十分钟：猎狼、洞察者、天使")


def test_the_director_sees_the_calendar_before_the_start(director_client: Client) -> None:
    director_client.post(ADD, create_form(kind="werewolf", ruleset="conan_096", number="096"))
    game = Game.objects.get(number="096")
    page = director_client.get(prepare(game)).content.decode()
    assert "第 10 天" in page  # the ruleset's usual length
    assert "12月1日（周二）" in page
    assert "关门 12月1日 21:00" in page
    assert "22:15 前 【招魂术】" in page


def test_a_live_timetable_change_needs_a_reason_and_is_logged(
    director_client: Client, game: Game
) -> None:
    url = f"/admin/games/game/{game.pk}/change/"
    form = director_client.get(url).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and k != "directors"}
    data.update(
        {
            "day_close_time": "20:30",
            "night_stages": "[]",
            "characters-TOTAL_FORMS": "0",
            "characters-INITIAL_FORMS": "0",
            "timetable_overrides-TOTAL_FORMS": "0",
            "timetable_overrides-INITIAL_FORMS": "0",
        }
    )
    data.pop("change_reason", None)
    refused = director_client.post(url, data)
    assert "游戏进行中修改时间表须填写理由" in refused.content.decode()
    game.refresh_from_db()
    assert game.day_close_time == dt.time(21, 0)
    director_client.post(url, {**data, "change_reason": "导演有事，提前关门"})
    game.refresh_from_db()
    assert game.day_close_time == dt.time(20, 30)
    event = Event.objects.get(game=game, kind="timetable_changed")
    assert event.reason == "导演有事，提前关门"
    assert event.payload["day_close_time"] == ["21:00", "20:30"]


# --- 3. sign-up ------------------------------------------------------------------------------


def test_the_cast_comes_from_the_signup_thread_in_floor_order(
    director_client: Client, director: Any, fake_forum: FakeForum
) -> None:
    signup = fake_forum.thread("[252] 鬼灭之刃 报名帖")
    fake_forum.post(signup.tid, "[252]导演A", "报名帖：回帖报名，注明马甲。")
    fake_forum.post(signup.tid, "炭治郎的玩家", "马甲：灶门炭治郎<br>报名！")
    fake_forum.post(signup.tid, "祢豆子的玩家", "报名")
    fake_forum.post(signup.tid, "炭治郎的玩家", "马甲：又一个")  # one sign-up per account
    fake_forum.post(signup.tid, "[252]导演B", "名额还剩 38 个")
    fake_forum.post(signup.tid, "善逸的玩家", "角色：我妻善逸")
    site = ForumSite.objects.create(
        name="雾雨小镇", kind="discuz", base_url=fake_forum.base_url, username="[252]导演A",
        password=PASSWORD,
    )  # fmt: skip
    director_client.post(
        ADD,
        create_form(
            ruleset="kimetsu_252", number="252", forum_site=site.pk, signup_thread=str(signup.tid)
        ),
    )
    game = Game.objects.get(number="252")
    DirectorForumAccount.objects.create(game=game, forum_username="[252]导演B")
    assert ForumThread.objects.get(game=game, kind="signup").external_id == str(signup.tid)
    page = director_client.post(prepare(game), {"op": "import"}, follow=True).content.decode()
    assert "新增 3 名角色" in page
    cast = list(
        game.characters.order_by("id").values_list("name", "forum_username", "signup_floor")
    )
    assert cast == [
        ("灶门炭治郎", "炭治郎的玩家", 2),
        ("祢豆子的玩家", "祢豆子的玩家", 3),
        ("我妻善逸", "善逸的玩家", 6),
    ]
    # Importing again adds nobody: every account is in already.
    again = director_client.post(prepare(game), {"op": "import"}, follow=True).content.decode()
    assert "新增 0 名角色" in again
    assert game.characters.count() == 3


def test_a_pasted_list_adds_characters_and_reports_duplicates(director_client: Client) -> None:
    director_client.post(ADD, create_form())
    game = Game.objects.get(number="256")
    text = "河城荷取\tnitori\t101\n琪露诺　cirno　102\n\n河城荷取 other 103\n"
    page = director_client.post(prepare(game), {"op": "paste", "text": text}, follow=True)
    body = page.content.decode()
    assert "新增 2 名角色" in body
    assert "河城荷取：同名角色已存在" in body
    assert list(game.characters.values_list("name", "forum_username", "forum_uid")) == [
        ("河城荷取", "nitori", "101"),
        ("琪露诺", "cirno", "102"),
    ]


def test_after_the_deal_no_character_is_added_or_removed(director_client: Client) -> None:
    director_client.post(ADD, create_form())
    game = Game.objects.get(number="256")
    director_client.post(prepare(game), {"op": "paste", "text": "甲\n乙\n丙"})
    royale_setup(game=game)
    body = director_client.post(prepare(game), {"op": "paste", "text": "丁"}, follow=True)
    assert "不能再添加或删除角色" in body.content.decode()
    assert game.characters.count() == 3
    with pytest.raises(CastLocked):
        services.character_remove(game=game, director=None, character=game.characters.first())  # type: ignore[arg-type]  # the game has characters
    change = director_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert "添加另一个" not in change  # the inline offers no new row


# --- 4. credentials ---------------------------------------------------------------------------

PASSWORD_CODE = re.compile(r'<code class="wy-secret">([2-9a-z]{6}(?:-[2-9a-z]{6}){3})</code>')


def test_credentials_are_shown_once_as_a_table_and_a_qq_block(director_client: Client) -> None:
    director_client.post(ADD, create_form())
    game = Game.objects.get(number="256")
    director_client.post(prepare(game), {"op": "paste", "text": "河城荷取\n琪露诺"})
    page = director_client.post(prepare(game), {"op": "credentials"}).content.decode()
    passwords = PASSWORD_CODE.findall(page)
    assert len(passwords) == 2
    block = re.search(r'<textarea id="credentials-block"[^>]*>(.*?)</textarea>', page, re.S)
    assert block is not None
    lines = block.group(1).strip().splitlines()
    assert lines[0].startswith(f"河城荷取　{passwords[0]}　http://testserver/play/256/k/")
    assert api_login(Client(), "256", passwords[1]).status_code == 200
    assert not Event.objects.filter(payload__icontains=passwords[0]).exists()


def test_credentials_can_go_by_forum_private_message(
    director_client: Client, fake_forum: FakeForum
) -> None:
    fake_forum.user("[256]导演", PASSWORD)
    fake_forum.user("nitori")
    site = ForumSite.objects.create(
        name="雾雨小镇", kind="discuz", base_url=fake_forum.base_url, username="[256]导演",
        password=PASSWORD,
    )  # fmt: skip
    director_client.post(ADD, create_form(forum_site=site.pk))
    game = Game.objects.get(number="256")
    director_client.post(prepare(game), {"op": "paste", "text": "河城荷取 nitori\n琪露诺"})
    page = director_client.post(prepare(game), {"op": "credentials", "send_pm": "on"})
    body = page.content.decode()
    password = PASSWORD_CODE.findall(body)[0]
    assert [pm.to_username for pm in fake_forum.pms] == ["nitori"]
    assert password in fake_forum.pms[0].message
    assert "河城荷取" in fake_forum.pms[0].message
    assert "已发送给 nitori" in body
    assert "未发送：该角色没有论坛账号" in body


@pytest.mark.django_db(transaction=True)
async def test_a_reset_signs_the_player_out_and_closes_its_socket(game: Game) -> None:
    other = await sync_to_async(make_game)("252", characters=("炭治郎",))
    issued = await sync_to_async(services.character_passwords_generate)(game=game, director=None)
    player = Client()
    assert (await sync_to_async(api_login)(player, "256", issued[0].secret)).status_code == 200
    socket, _ = await socket_open(game, ORIGIN, session_cookie(player))
    # Another game's character cannot be reset through this game.
    stranger = await sync_to_async(other.characters.get)()
    with pytest.raises(NotFound):
        await sync_to_async(services.character_credentials_reset)(
            game=game, director=None, character=stranger
        )
    await sync_to_async(services.character_credentials_reset)(
        game=game, director=None, character=issued[0].character
    )
    closed = await socket.receive_output(timeout=2)
    assert closed == {"type": "websocket.close", "code": 4401}
    home = await sync_to_async(player.get)("/play/256/me/")
    assert home.status_code == 302  # back to the login page
    assert (await sync_to_async(api_login)(Client(), "256", issued[0].secret)).status_code == 401


def test_resetting_another_games_character_from_the_page_changes_nothing(
    director_client: Client, game: Game
) -> None:
    other = make_game("252", characters=("炭治郎",))
    stranger = other.characters.get()
    page = director_client.post(
        prepare(game), {"op": "reset", "character": stranger.pk}, follow=True
    )
    assert "没有这个角色" in page.content.decode()
    stranger.refresh_from_db()
    assert stranger.password_digest is None
    # and another director's game's page is a 404
    assert director_client.get(prepare(other)).status_code == 404


# --- 5. start -------------------------------------------------------------------------------


def test_the_start_says_what_is_missing_then_goes_live(director_client: Client) -> None:
    director_client.post(ADD, create_form(start_date=""))
    game = Game.objects.get(number="256")
    with pytest.raises(NotStartable) as refused:
        services.game_start(game=game, director=None)
    assert refused.value.detail["missing"] == ["第一天日期", "至少两名角色", "发牌"]
    director_client.post(prepare(game), {"op": "paste", "text": "甲\n乙"})
    Game.objects.filter(pk=game.pk).update(start_date=dt.date(2026, 12, 1))
    royale_setup(game=game)
    page = director_client.post(prepare(game), {"op": "start"}, follow=True).content.decode()
    assert "每名角色的登录密码" in page or "登录密码" in page
    assert Game.objects.get(pk=game.pk).status == GameStatus.DRAFT
    director_client.post(prepare(game), {"op": "credentials"})
    director_client.post(prepare(game), {"op": "start"})
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING
    started = Event.objects.get(game=game, kind="game_started")
    assert (started.audience, started.payload["seed_hash"]) == ("public", game.seed_hash)
    with pytest.raises(NotStartable):
        services.game_start(game=game, director=None)


def test_dealing_061_and_096_with_too_few_or_unbuilt_says_why_not(director_client: Client) -> None:
    # [061] needs its 19 characters, [096] its 22.
    for ruleset, number, why in (
        ("lin_feng_061", "061", "需要 19 名角色，本局有 3 名。"),
        ("conan_096", "096", "需要 22 名角色，本局有 3 名。"),
    ):
        director_client.post(ADD, create_form(kind="werewolf", ruleset=ruleset, number=number))
        game = Game.objects.get(number=number)
        director_client.post(prepare(game), {"op": "paste", "text": "甲\n乙\n丙"})
        assert game.characters.count() == 3
        dealt = director_client.post(
            f"/admin/werewolf/werewolfgame/{game.pk}/night/deal/", {}, follow=True
        )
        assert why in dealt.content.decode()
        assert not services.game_dealt(game)


# --- 6. substitutes and assistants --------------------------------------------------------------


def test_a_substitute_once_per_character_with_new_credentials(
    director_client: Client, game: Game, director: Any
) -> None:
    old = services.character_passwords_generate(game=game, director=None)[0]
    character = old.character
    form = {
        "op": "substitute",
        "character": character.pk,
        "forum_username": "新玩家",
        "since": "2026-11-03",
        "reason": "原玩家出差",
    }
    page = director_client.post(prepare(game), form).content.decode()
    new_password = PASSWORD_CODE.findall(page)[0]
    assert api_login(Client(), "256", old.secret).status_code == 401
    assert api_login(Client(), "256", new_password).status_code == 200
    substitute = Substitute.objects.get(character=character)
    assert (substitute.forum_username, substitute.since, substitute.director) == (
        "新玩家", dt.date(2026, 11, 3), director
    )  # fmt: skip
    again = director_client.post(prepare(game), {**form, "forum_username": "第三人"}, follow=True)
    assert "每名角色仅限更换一次替补" in again.content.decode()
    assert Substitute.objects.filter(character=character).count() == 1
    with pytest.raises(SubstituteExists):
        services.substitute_record(
            game=game, director=director, character=character, forum_username="x", reason="y"
        )


def test_a_substitute_for_another_games_character_is_refused(
    director_client: Client, game: Game
) -> None:
    other = make_game("252", characters=("炭治郎",))
    page = director_client.post(
        prepare(game),
        {
            "op": "substitute",
            "character": other.characters.get().pk,
            "forum_username": "x",
            "reason": "y",
        },
        follow=True,
    )
    assert "表单有误" in page.content.decode()
    assert not Substitute.objects.exists()


def test_an_assistant_is_recorded(director_client: Client, game: Game) -> None:
    character = game.characters.first()
    assert character is not None
    director_client.post(
        prepare(game),
        {"op": "assistant", "character": character.pk, "forum_username": "军师"},
    )
    assert Assistant.objects.get().forum_username == "军师"
    assert "场外助理：军师" in director_client.get(prepare(game)).content.decode()


def test_pause_and_resume_need_a_reason(director_client: Client, game: Game) -> None:
    director_client.post(prepare(game), {"op": "pause", "reason": ""})
    assert not Game.objects.get(pk=game.pk).paused
    director_client.post(prepare(game), {"op": "pause", "reason": "论坛维护"})
    assert Game.objects.get(pk=game.pk).paused
    assert Event.objects.get(game=game, kind="game_paused").reason == "论坛维护"
    director_client.post(prepare(game), {"op": "resume", "reason": "维护结束"})
    assert not Game.objects.get(pk=game.pk).paused


def test_characters_rule_fields_are_read_only_in_the_admin(
    director_client: Client, game: Game
) -> None:
    page = director_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert 'name="characters-0-name"' not in page  # a running game's cast is fixed
    assert 'name="characters-0-status"' not in page
    assert 'name="status"' not in page
    assert 'name="kind"' not in page
    assert Character.objects.filter(game=game).count() == 3


def test_substitutes_are_added_only_through_the_games_page(
    director_client: Client, game: Game
) -> None:
    """The admin's own add form would offer every game's characters; the record is read-only."""
    other = make_game("252", characters=("炭治郎",))
    assert director_client.get("/admin/games/substitute/add/").status_code == 403
    posted = director_client.post(
        "/admin/games/substitute/add/",
        {"character": other.characters.get().pk, "forum_username": "x", "since": "2026-11-02"},
    )
    assert posted.status_code == 403
    assert not Substitute.objects.exists()


def test_directors_cannot_edit_what_only_the_engine_changes(
    director_client: Client, game: Game
) -> None:
    """Issue 14, 4: status, seed_revealed, kind, ruleset and the characters' status/cause are
    not fields of the settings form; a forged POST of them changes nothing."""
    url = f"/admin/games/game/{game.pk}/change/"
    form = director_client.get(url).context["adminform"].form
    assert not {"status", "seed_revealed", "kind", "ruleset", "seed"} & set(form.fields)
    character = game.characters.order_by("id").first()
    assert character is not None
    data = {k: v for k, v in form.initial.items() if v is not None and k != "directors"}
    data.update(
        {
            "night_stages": "[]",
            "status": "finished",
            "seed_revealed": "on",
            "kind": "werewolf",
            "ruleset": "arknights_099",
            "characters-TOTAL_FORMS": "1",
            "characters-INITIAL_FORMS": "1",
            "characters-0-id": str(character.pk),
            "characters-0-game": str(game.pk),
            "characters-0-status": "eliminated",
            "characters-0-cause": "导演改的",
            "timetable_overrides-TOTAL_FORMS": "0",
            "timetable_overrides-INITIAL_FORMS": "0",
        }
    )
    director_client.post(url, data)
    game.refresh_from_db()
    character.refresh_from_db()
    assert (game.status, game.seed_revealed, game.kind, game.ruleset) == (
        "running", False, "royale", "islington_256"
    )  # fmt: skip
    assert (character.status, character.cause) == ("alive", "")


def test_the_director_picker_offers_directors_not_forum_staff(
    director_client: Client, staff: Any, director: Any
) -> None:
    field = director_client.get(ADD).context["adminform"].form.fields["directors"]
    offered = set(field.queryset)
    assert director in offered
    assert staff not in offered
