"""判罚 over HTTP: the staff's review queue, the director's day page (activity, elevator floor,
[061]'s extras, cards by hand) and the player's own cards and pace button."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.test import Client

from games import card_selectors, services
from games import card_services as cs
from games.engine import dice
from games.engine import floors as fl
from games.errors import CloseMoveRefused
from games.models import Card, Character, Event, ForumPost, ForumThread, Game, SpeedRequest
from tests.conftest import bj, on_forum
from tests.games.test_cards import add, close_day, posts, thread, werewolf_game

pytestmark = pytest.mark.django_db

QUEUE = "/admin/games/cardreview/"


@pytest.fixture
def staff_client(staff: Any) -> Client:
    client = Client()
    client.force_login(staff)
    return client


def test_queue_shows_proposed_cards_of_every_game(director: Any, staff_client: Client) -> None:
    a, b = werewolf_game(), werewolf_game("conan_096", "096")
    add(a, director, "陈", "blue")
    add(b, director, "能天使", "yellow", "2.1")
    done = add(a, director, "阿米娅", "blue")
    Card.objects.filter(pk=done.pk).update(status="rejected")
    response = staff_client.get(QUEUE)
    assert response.status_code == 302
    assert "status__exact=proposed" in response["Location"]
    page = staff_client.get(response["Location"]).content.decode()
    assert "陈" in page
    assert "能天使" in page
    assert "阿米娅" not in page


def test_directors_do_not_see_the_queue(director: Any, director_client: Client) -> None:
    assert director_client.get(f"{QUEUE}?status__exact=proposed").status_code == 403


def test_bulk_confirm_asks_for_a_reason_first(director: Any, staff_client: Client) -> None:
    game = werewolf_game()
    picked = [add(game, director, "陈", "blue") for _ in range(3)]
    data = {"action": "confirm", "_selected_action": [c.pk for c in picked]}
    form = staff_client.post(f"{QUEUE}?status__exact=proposed", data)
    assert form.status_code == 200
    assert "理由" in form.content.decode()
    assert Card.objects.filter(status="proposed").count() == 3
    done = staff_client.post(
        f"{QUEUE}?status__exact=proposed", {**data, "confirm": "1", "reason": "属实"}
    )
    assert done.status_code == 302
    assert Card.objects.filter(status="confirmed", source="manual").count() == 3
    assert Card.objects.get(source="escalation").color == "yellow"


def test_bulk_reject(director: Any, staff_client: Client) -> None:
    game = werewolf_game()
    card = add(game, director, "陈", "red")
    data = {"action": "reject", "_selected_action": [card.pk], "confirm": "1", "reason": "误判"}
    staff_client.post(f"{QUEUE}?status__exact=proposed", data)
    card.refresh_from_db()
    assert (card.status, card.review_reason) == ("rejected", "误判")
    assert Character.objects.get(pk=card.character_id).is_alive


def day_page(game: Game, day: int = 1) -> str:
    return f"/admin/games/card/game/{game.pk}/day/{day}/"


def test_director_day_page_and_a_card_by_hand(director: Any, director_client: Client) -> None:
    game = werewolf_game()
    game.directors.add(director)
    posts(thread(game, 1, "discussion"), "陈", 3, bj(1, 10))
    page = director_client.get(day_page(game)).content.decode()
    assert "发言统计" in page
    assert "禁止提及过去场次" in page  # the catalogue to choose from
    chen = Character.objects.get(game=game, name="陈")
    response = director_client.post(
        day_page(game),
        {
            "add_card": "1",
            "character": chen.pk,
            "color": "blue",
            "reason": "4.2",
            "note": "提到往届",
            "day": 1,
        },
    )
    assert response.status_code == 302
    card = Card.objects.get(game=game)
    assert (card.character, card.reason, card.note, card.status) == (
        chen,
        "4.2",
        "提到往届",
        "proposed",
    )
    listed = director_client.get(day_page(game)).content.decode()
    assert "陈 · 蓝牌 · 4.2 禁止提及过去场次 · 导演判罚 · 待审核" in listed


def test_card_of_a_colour_the_rules_forbid_is_refused_on_the_page(
    director: Any, director_client: Client
) -> None:
    game = werewolf_game("conan_096", "096")
    game.directors.add(director)
    chen = Character.objects.get(game=game, name="陈")
    page = director_client.post(
        day_page(game),
        {"add_card": "1", "character": chen.pk, "color": "blue", "reason": "5.1", "day": 1},
        follow=True,
    ).content.decode()
    assert "这一条违规的判罚颜色不符合规则" in page
    assert not Card.objects.exists()


def test_another_directors_game_is_not_found(director: Any, director_client: Client) -> None:
    game = werewolf_game()
    assert director_client.get(day_page(game)).status_code == 404


def test_096_elevator_in_the_seeds_order(director: Any, director_client: Client) -> None:
    game = werewolf_game("conan_096", "096")
    game.directors.add(director)
    on_forum(game, "http://www.mistytown.cn/")
    talk = thread(game, 2, "discussion")
    page = director_client.get(day_page(game, 2)).content.decode()
    rows = [fl.ElevatorRow(c.pk, c.name, c.forum_uid, "") for c in game.characters.order_by("id")]
    expected = fl.elevator_order(rows, dice.rng(game.seed, 0, "elevator:2"), shuffle=True)
    first = expected[0]
    link = (
        f"[url=http://www.mistytown.cn/forum.php?mod=viewthread&amp;tid={talk.external_id}"
        f"&amp;authorid={first.uid}]{first.name}[/url]"
    )
    assert f"第2天 电梯楼（点击角色名，只看该角色当天的全部发言）\n{link}" in page


def test_061_prize_floor_winner_last_words_and_flooding(
    director: Any, director_client: Client
) -> None:
    game = werewolf_game("lin_feng_061", "061")
    game.directors.add(director)
    prize = fl.prize_floor(dice.rng(game.seed, 0, "floor_prize:1"), 700, 1200)
    talk = thread(game, 1, "discussion")
    from games.models import ForumPost

    start = bj(1, 8)
    rows = []
    for floor in range(2, prize + 3):
        name = "陈" if floor < 40 else ("阿米娅" if floor % 2 else "能天使")
        rows.append(
            ForumPost(
                thread=talk,
                external_id=str(floor),
                floor=floor,
                author=name,
                character=Character.objects.get(game=game, name=name),
                posted_at=start + dt.timedelta(seconds=floor),
                text="顶" if name == "陈" else "分析一下今天的局势",
                content_hash="-",
            )
        )
    ForumPost.objects.bulk_create(rows)
    Character.objects.filter(game=game, name="阿米娅").update(status="eliminated", eliminated_day=1)
    page = director_client.get(day_page(game)).content.decode()
    winner = "阿米娅" if prize % 2 else "能天使"
    assert f"本日奖励楼层：{prize} 楼" in page
    assert f"{prize} 楼：{winner}" in page
    amiya = sum(1 for r in rows if r.author == "阿米娅")
    assert f"阿米娅：当日 {amiya} 帖，遗言 {amiya // 10} 字" in page
    assert "陈 · 连续楼层 · 38 帖 · 2–39 楼" in page
    assert "陈 · 连续短帖 · 38 帖 · 2–39 楼" in page


# --- the player's page ------------------------------------------------------------------------


def player(game: Game, name: str) -> Client:
    issued = services.character_passwords_generate(
        game=game, director=None, characters=[Character.objects.get(game=game, name=name)]
    )
    client = Client()
    response = client.post(
        f"/api/play/{game.number}/login",
        {"password": issued[0].secret},
        content_type="application/json",
    )
    assert response.status_code == 200
    return client


def test_player_sees_own_cards_never_others_proposed(director: Any, staff: Any) -> None:
    game = werewolf_game()
    mine = add(game, director, "陈", "blue", "4.2")
    add(game, director, "阿米娅", "yellow", "3.1")
    rejected = add(game, director, "陈", "yellow", "3.2")
    cs.cards_review(cards=[mine], reviewer=staff, confirm=True, reason="属实")
    cs.cards_review(cards=[rejected], reviewer=staff, confirm=False, reason="不成立")
    page = player(game, "陈").get(f"/play/{game.number}/me/").content.decode()
    assert "我的判罚" in page
    assert "蓝牌 · 马甲 4.2：禁止提及过去场次" in page
    assert "禁止明显的发誓句式" not in page  # 阿米娅's proposed card
    assert "禁止明显的诅咒句式" not in page  # own rejected card


def test_player_asks_for_a_speed_up_on_the_portal() -> None:
    game = werewolf_game("lin_feng_061", "061")
    services.transitions_run_due(now=bj(1, 0, 1))
    client = player(game, "陈")
    with time_machine.travel(bj(1, 9), tick=False):
        page = client.get(f"/play/{game.number}/me/").content.decode()
        assert "申请加速" in page
        response = client.post(f"/play/{game.number}/pace/", {"kind": "speed_up"})
    assert response.status_code == 302
    assert SpeedRequest.objects.get(game=game).character.name == "陈"
    with time_machine.travel(bj(1, 18, 30), tick=False):
        late = player(game, "阿米娅")
        refused = late.post(f"/play/{game.number}/pace/", {"kind": "speed_up"}, follow=True)
    assert "已过加速/延时申请的截止时间" in refused.content.decode()
    assert SpeedRequest.objects.filter(game=game).count() == 1


def pace_form(page: str) -> str:
    start = page.index("天进程")
    return page[start : page.index("</section>", start)]


def test_099_portal_offers_only_the_speed_up_until_the_close() -> None:
    game = werewolf_game()
    services.transitions_run_due(now=bj(1, 0, 1))
    client = player(game, "陈")
    with time_machine.travel(bj(1, 20, 30), tick=False):
        form = pace_form(client.get(f"/play/{game.number}/me/").content.decode())
        assert 'value="speed_up"' in form
        assert "延时" not in form
        refused = client.post(f"/play/{game.number}/pace/", {"kind": "delay"}, follow=True)
        assert "本场规则没有延时申请，只能申请加速。" in refused.content.decode()
        assert not SpeedRequest.objects.filter(game=game).exists()
        response = client.post(f"/play/{game.number}/pace/", {"kind": "speed_up"})
    assert response.status_code == 302
    assert SpeedRequest.objects.get(game=game).kind == "speed_up"


def test_061_portal_offers_both() -> None:
    game = werewolf_game("lin_feng_061", "061")
    services.transitions_run_due(now=bj(1, 0, 1))
    with time_machine.travel(bj(1, 9), tick=False):
        form = pace_form(player(game, "陈").get(f"/play/{game.number}/me/").content.decode())
    assert 'value="speed_up"' in form
    assert 'value="delay"' in form
    assert "申请延时 0" in form


def test_royale_player_page_shows_the_cards() -> None:
    from tests.royale.conftest import royale_game

    game = royale_game("256", ("甲", "乙"))
    page = player(game, "甲").get(f"/play/{game.number}/me/").content.decode()
    assert "我的判罚" in page


def test_after_a_speed_up_the_director_moves_todays_close(
    director: Any, director_client: Client
) -> None:
    """执行加快进程: the posts do not say by how much, so the director moves 关门 on the day
    page; the move is announced and the scheduler closes the day at the new time."""
    game = werewolf_game()
    game.directors.add(director)
    with time_machine.travel(bj(1, 10), tick=False):
        services.transitions_run_due(now=bj(1, 10))
        assert "本日关门：11-01 21:00" in director_client.get(day_page(game)).content.decode()
        moved = director_client.post(
            day_page(game), {"move_close": "1", "at": "2026-11-01T18:00", "reason": "加速通过"}
        )
        assert moved.status_code == 302
        late = director_client.post(
            day_page(game), {"move_close": "1", "at": "2026-11-01T22:00", "reason": "再改"}
        )
        assert "早于当天入夜" in late.content.decode()  # past night_open (21:10): refused
    assert game.timetable().due_at(1, "day_close") == bj(1, 18)
    notice = game.events.get(kind="close_moved")
    assert notice.audience == "public"
    assert notice.payload["text"] == "第1天的关门时间调整为11-01 18:00（北京时间）。"
    assert notice.reason == "加速通过"
    with time_machine.travel(bj(1, 18, 1), tick=False):
        services.transitions_run_due(now=bj(1, 18, 1))
    assert game.transitions.filter(day=1, kind="day_close").exists()
    with time_machine.travel(bj(1, 18, 30), tick=False), pytest.raises(CloseMoveRefused):
        services.day_close_move(game=game, day=1, at=bj(1, 20), director=director, reason="已关门")


# --- the staff's buttons, the rule's words and the posts -----------------------------------------


def review(client: Client, card: Card, decision: str, reason: str, **extra: Any) -> Any:
    return client.post(
        f"{QUEUE}{card.pk}/review/",
        {"decision": decision, "reason": reason, "next": f"{QUEUE}?status__exact=proposed"},
        **extra,
    )


def discussion_posts(game: Game, name: str, n: int) -> list[str]:
    """``n`` posts by ``name`` in day 1's discussion thread (Discuz tid 4321) before the close;
    their pids."""
    talk = thread(game, 1, "discussion")
    ForumThread.objects.filter(pk=talk.pk).update(external_id="4321")
    character = Character.objects.get(game=game, name=name)
    pids = []
    for i in range(n):
        pid = str(90000 + i)
        ForumPost.objects.create(
            thread=talk,
            external_id=pid,
            floor=10 + i,
            author=name,
            author_uid=character.forum_uid,
            character=character,
            posted_at=bj(1, 10, i),
            text=f"第{i + 1}帖：我觉得今天该出狼",
            content_hash="-",
        )
        pids.append(pid)
    return pids


def test_staff_confirms_one_card_with_its_rows_button(
    director: Any, staff: Any, staff_client: Client
) -> None:
    game = werewolf_game()
    card = add(game, director, "陈", "blue", "12.1")
    page = staff_client.get(f"{QUEUE}?status__exact=proposed").content.decode()
    assert f'form="review-{card.pk}" name="decision" value="confirm"' in page
    assert f'form="review-{card.pk}" name="decision" value="reject"' in page
    assert f'<form id="review-{card.pk}" method="post"' in page
    response = review(staff_client, card, "confirm", "确有情绪发言")
    assert response.status_code == 302
    assert response["Location"] == f"{QUEUE}?status__exact=proposed"
    card.refresh_from_db()
    assert (card.status, card.review_reason, card.reviewer) == ("confirmed", "确有情绪发言", staff)
    assert Event.objects.filter(game=game, kind="card", audience="public").count() == 1
    after = staff_client.get(response["Location"]).content.decode()
    assert "已确认。" in after
    assert f'form="review-{card.pk}"' not in after  # no longer waiting


def test_reject_on_the_cards_page(director: Any, staff_client: Client) -> None:
    game = werewolf_game()
    card = add(game, director, "陈", "yellow", "12.2")
    page = staff_client.get(f"{QUEUE}{card.pk}/change/").content.decode()
    assert 'name="decision" value="reject"' in page
    assert "审核理由（必填" in page
    response = staff_client.post(
        f"{QUEUE}{card.pk}/review/",
        {"decision": "reject", "reason": "不构成违规", "next": f"{QUEUE}{card.pk}/change/"},
        follow=True,
    )
    card.refresh_from_db()
    assert (card.status, card.review_reason) == ("rejected", "不构成违规")
    shown = response.content.decode()
    assert "已驳回。" in shown
    assert "不构成违规" in shown
    assert 'name="decision"' not in shown  # reviewed: no buttons


def test_a_review_without_a_reason_changes_nothing(director: Any, staff_client: Client) -> None:
    game = werewolf_game()
    card = add(game, director, "陈", "red", "12.1")
    page = review(staff_client, card, "confirm", "   ", follow=True).content.decode()
    assert "请填写理由。" in page
    card.refresh_from_db()
    assert (card.status, card.reviewer) == ("proposed", None)
    assert Character.objects.get(pk=card.character_id).is_alive
    assert not Event.objects.filter(game=game, kind="cards_reviewed").exists()
    page = review(staff_client, card, "maybe", "属实", follow=True).content.decode()
    assert "请选择确认或驳回。" in page
    card.refresh_from_db()
    assert card.status == "proposed"


def test_a_card_reviewed_meanwhile_is_left_as_it_is(director: Any, staff_client: Client) -> None:
    game = werewolf_game()
    card = add(game, director, "陈", "blue", "12.1")
    review(staff_client, card, "reject", "不成立")
    page = review(staff_client, card, "confirm", "属实", follow=True).content.decode()
    assert "这张判罚已被审核，未作改动。" in page
    card.refresh_from_db()
    assert (card.status, card.review_reason) == ("rejected", "不成立")


def test_directors_cannot_review_or_open_the_queues_pages(
    director: Any, director_client: Client, staff_client: Client
) -> None:
    own, other = werewolf_game(), werewolf_game(number="100")
    own.directors.add(director)
    mine = add(own, director, "陈", "blue", "12.1")
    theirs = add(other, director, "陈", "yellow", "2.1")
    for card in (mine, theirs):
        assert review(director_client, card, "confirm", "属实").status_code == 403
        assert director_client.get(f"{QUEUE}{card.pk}/change/").status_code == 403
    assert set(Card.objects.values_list("status", flat=True)) == {"proposed"}
    # the director's own ledger shows its game's card (with the rule's words), not the other
    ledger = director_client.get("/admin/games/card/").content.decode()
    assert "12.1 明显的情绪发言" in ledger
    assert "[100]" not in ledger
    assert review(staff_client, theirs, "confirm", "属实").status_code == 302
    assert staff_client.get(f"{QUEUE}999999/change/").status_code == 404
    assert review(staff_client, Card(pk=999999), "confirm", "属实").status_code == 404
    assert staff_client.get(f"{QUEUE}{mine.pk}/review/").status_code == 405


def test_the_queue_shows_the_rules_words_and_the_posts_behind_a_card(
    director: Any, staff_client: Client
) -> None:
    game = werewolf_game()
    on_forum(game, "http://www.mistytown.cn/")
    pids = discussion_posts(game, "陈", 3)
    thread(game, 1, "vote")
    close_day(1)
    card = Card.objects.get(game=game, character__name="陈", reason="5.1")
    queue = staff_client.get(f"{QUEUE}?status__exact=proposed").content.decode()
    page = staff_client.get(f"{QUEUE}{card.pk}/change/").content.decode()
    for shown in (queue, page):
        assert "5.1 在未加快进程的单个讨论日不足五帖、或连续三个讨论日均不足十帖" in shown
        assert "讨论帖关门前发帖 3（少于 5）" in shown
        for pid in pids:
            assert (
                "http://www.mistytown.cn/forum.php?mod=redirect&amp;goto=findpost"
                f"&amp;ptid=4321&amp;pid={pid}"
            ) in shown
        chen = Character.objects.get(game=game, name="陈")
        assert (
            "http://www.mistytown.cn/forum.php?mod=viewthread&amp;tid=4321"
            f"&amp;authorid={chen.forum_uid}"
        ) in shown
    assert "第1帖：我觉得今天该出狼" in page  # the post itself, on the card's page
    assert "5.2 在未加快进程的任一讨论日未投票" in queue  # the vote thread's card
    add(game, director, "阿米娅", "blue", "12.1")
    assert (
        "12.1 明显的情绪发言"
        in staff_client.get(f"{QUEUE}?status__exact=proposed").content.decode()
    )


def test_post_links_on_each_kind_of_forum(director: Any) -> None:
    game = werewolf_game()
    pids = discussion_posts(game, "陈", 1)
    card = add(game, director, "陈", "blue", "12.1")
    talk = ForumThread.objects.get(game=game, kind="discussion")
    ForumPost.objects.filter(thread=talk).update(external_id="print:202611010200:1:陈")
    assert card_selectors.review_cards([card])[0].threads[0].posts[0].url == ""  # no forum yet
    on_forum(game, "http://www.mistytown.cn/", kind="printable")
    card = Card.objects.select_related("game__forum_site", "character").get(pk=card.pk)
    [link] = card_selectors.review_cards([card])[0].threads[0].posts
    # a post known only from a printable page: by its floor (the thread's 电梯直达)
    assert (
        link.url == "http://www.mistytown.cn/forum.php?mod=redirect&ptid=4321&authorid=0&postno=10"
    )
    ForumPost.objects.filter(thread=talk).update(external_id=pids[0])
    site = card.game.forum_site
    assert site is not None
    site.kind, site.base_url = "discourse", "https://forum.example.org/"
    site.save()
    card = Card.objects.select_related("game__forum_site", "character").get(pk=card.pk)
    [row] = card_selectors.review_cards([card])
    assert row.threads[0].posts[0].url == "https://forum.example.org/t/4321/10"
    Character.objects.filter(pk=card.character_id).update(forum_username="chen_99")
    card = Card.objects.select_related("game__forum_site", "character").get(pk=card.pk)
    [row] = card_selectors.review_cards([card])
    assert row.threads[0].url == "https://forum.example.org/t/4321?username_filters=chen_99"


def test_a_secret_reason_card_shows_neither_who_nor_why_to_staff_while_the_game_runs(
    director: Any, staff: Any, staff_client: Client
) -> None:
    game = werewolf_game()
    chen = Character.objects.get(game=game, name="陈")
    cs.card_propose_missed_duty(game=game, character_id=chen.pk, day=1, skill="选举", now=bj(1, 22))
    card = Card.objects.get(game=game, reason="5.3")
    queue = staff_client.get(f"{QUEUE}?status__exact=proposed").content.decode()
    page = staff_client.get(f"{QUEUE}{card.pk}/change/").content.decode()
    data = {"action": "confirm", "_selected_action": [card.pk]}
    bulk = staff_client.post(f"{QUEUE}?status__exact=proposed", data).content.decode()
    for shown in (queue, page, bulk):
        assert "陈" not in shown
        assert "5.3" not in shown
        assert "必须行使特权" not in shown
        assert "选举" not in shown
        assert "（保密）" in shown
    searched = staff_client.get(f"{QUEUE}?status__exact=proposed&q=陈").content.decode()
    assert f'value="{card.pk}"' not in searched
    assert 'name="decision" value="confirm"' in page  # the staff still review it
    review(staff_client, card, "confirm", "系统记录属实")
    card.refresh_from_db()
    assert card.status == "confirmed"
    # once the game is over, the roles are out: the card shows in full
    Game.objects.filter(pk=game.pk).update(status="finished")
    page = staff_client.get(f"{QUEUE}{card.pk}/change/").content.decode()
    assert "陈" in page
    assert "5.3 必须行使特权的角色未在规定时间内行使" in page
    assert "选举" in page
