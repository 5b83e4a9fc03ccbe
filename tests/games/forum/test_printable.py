from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from games.forum.errors import ForumBadPage, ForumPostingOff, ForumThreadNotFound
from games.forum.printable import PrintableAdapter, parse_printable
from tests.games.forum.fake_forum import BJ, FakeForum

# Seed 002 ([061] 林峰 规则帖) as the forum's 打印本页 rendered it, kept beside the tests.
SEED_061 = Path(__file__).parent / "data" / "printable_061.txt"


def utc(year: int, month: int, day: int, hour: int, minute: int) -> dt.datetime:
    """A Beijing display time as the aware UTC moment the parser returns."""
    return dt.datetime(year, month, day, hour, minute, tzinfo=BJ).astimezone(dt.UTC)


def test_seed_061_has_five_posts_by_the_director_at_their_times() -> None:
    page = parse_printable(SEED_061.read_text(encoding="utf-8"))
    assert page.last_floor == 5
    assert [p.floor for p in page.posts] == [1, 2, 3, 4, 5]
    assert {p.author for p in page.posts} == {"[061]导演B"}
    assert [p.posted_at for p in page.posts] == [
        utc(2018, 10, 29, 13, 49),
        utc(2018, 10, 29, 14, 21),
        utc(2018, 11, 2, 14, 21),
        utc(2018, 11, 3, 21, 21),
        utc(2018, 11, 3, 21, 25),
    ]
    assert [p.first for p in page.posts] == [True, False, False, False, False]
    assert all(p.author_uid == "" and not p.anonymous for p in page.posts)


def test_seed_061_first_lines_are_the_posts_own_not_the_headers() -> None:
    posts = parse_printable(SEED_061.read_text(encoding="utf-8")).posts
    assert [p.text.split("\n")[0] for p in posts] == [
        "本场版杀为19人局，身份配置为：",
        "身份与阵营",
        "胜负判定",
        "本场不限制出局遗言数量，以出局时当日发帖量决定遗言字数，每十贴可在遗言中多留一个字，"
        "不足十贴出局的，没有遗言。",
        "游戏流程及其他说明",
    ]
    # The footer is no post's text; the ballot format of the last post is.
    assert posts[-1].text.endswith("禁止已参加四场或以上版杀的玩家申请场外助理。")
    assert "投票对象：饺子\n投票理由：饺子好吃" in posts[-1].text
    assert not any("欢迎光临" in p.text or "标题:" in p.text for p in posts)


def test_ids_are_stable_so_uploading_the_page_again_adds_nothing() -> None:
    first = parse_printable(SEED_061.read_text(encoding="utf-8"))
    again = parse_printable(SEED_061.read_text(encoding="utf-8"))
    assert [p.external_id for p in first.posts] == [f"printable-{n}" for n in range(1, 6)]
    assert first == again


def test_the_saved_html_page_reads_like_the_thread(fake_forum: FakeForum) -> None:
    thread = fake_forum.thread("[256] 第1天 投票帖")
    at = dt.datetime(2026, 11, 2, 20, 15, tzinfo=BJ)
    fake_forum.post(thread.tid, "导演B", "投票帖\r\n请投票", at=at)
    ballot = fake_forum.post(thread.tid, "甲", "投票对象：乙\r\n投票理由：可疑", at=at)
    fake_forum.post(thread.tid, "丙", "我不说", anonymous=True)
    fake_forum.post(thread.tid, "丁", fake_forum.quote(ballot, "投票对象：乙", web=True) + "同意")
    fake_forum.post(thread.tid, "甲", fake_forum.reply_header(ballot) + "改票对象：丁")
    opening, vote, anonymous, quoting, change = parse_printable(
        fake_forum.printable(thread.tid)
    ).posts
    assert (opening.author, opening.text, opening.first) == ("导演B", "投票帖\n请投票", True)
    assert (vote.author, vote.posted_at) == ("甲", utc(2026, 11, 2, 20, 15))
    assert vote.text == "投票对象：乙\n投票理由：可疑"
    assert (anonymous.author, anonymous.anonymous) == ("匿名", True)
    assert (quoting.text, quoting.reply_to) == ("同意", vote.external_id)
    assert (change.text, change.reply_to) == ("改票对象：丁", vote.external_id)


def test_deleted_posts_are_absent_and_later_floors_move_up(fake_forum: FakeForum) -> None:
    thread = fake_forum.thread()
    fake_forum.posts(thread.tid, 4)
    fake_forum.delete(thread.tid, 2)
    posts = parse_printable(fake_forum.printable(thread.tid)).posts
    assert [(p.floor, p.text) for p in posts] == [(1, "楼1"), (2, "楼3"), (3, "楼4")]


def test_a_relative_time_uses_the_exact_time_in_its_title() -> None:
    page = (
        '<h1>雾雨小镇</h1><hr noshade size="2" width="100%" color="#808080">'
        '<b>作者: </b>甲&nbsp; &nbsp; <b>时间: </b><span title="2026-11-2 20:15">3 小时前</span>'
        "<br />投票对象：乙"
    )
    (post,) = parse_printable(page).posts
    assert post.posted_at == utc(2026, 11, 2, 20, 15)


def test_pasted_text_quotes_run_to_the_blank_line() -> None:
    page = "\n".join(
        [
            "雾雨小镇",
            "标题: [256] 第1天 投票帖 [打印本页]",
            "---",
            "作者: 甲    时间: 2026-11-2 20:15",
            "投票对象：乙",
            "---",
            "作者: 丙    时间: 2026-11-2 20:20",
            "甲 发表于 2026-11-2 20:15",
            "投票对象：乙",
            "",
            "改票对象：丁",
            "---",
            "作者: 丁    时间: 2026-11-2 20:30",
            "回复 1# 甲",
            "我不同意",
            "---",
            "欢迎光临 雾雨小镇 (http://www.mistytown.cn/)",
            "Powered by Discuz! X3.2",
        ]
    )
    first, quoting, replying = parse_printable(page).posts
    assert (quoting.text, quoting.reply_to) == ("改票对象：丁", first.external_id)
    assert (replying.text, replying.reply_to) == ("我不同意", first.external_id)


def test_a_rule_inside_a_post_does_not_split_it() -> None:
    page = (
        "标题: 帖\n---\n作者: 甲    时间: 2026-11-2 20:15\n上面\n---\n下面\n---\n欢迎光临 雾雨小镇"
    )
    (post,) = parse_printable(page).posts
    assert post.text == "上面\n---\n下面"


@pytest.mark.parametrize(
    "page",
    [
        "",
        "这不是打印页",
        '<html><body><div id="messagetext"><p>抱歉，指定的主题不存在</p></div></body></html>',
        "标题: 帖\n---\n作者 甲 时间 今天\n内容",
    ],
    ids=["empty", "plain-text", "another-page", "no-header"],
)
def test_anything_but_a_printable_page_is_a_bad_page(page: str) -> None:
    with pytest.raises(ForumBadPage) as caught:
        parse_printable(page)
    assert "作者" in caught.value.text


def test_a_relative_time_in_pasted_text_asks_for_the_saved_page() -> None:
    with pytest.raises(ForumBadPage) as caught:
        parse_printable("标题: 帖\n---\n作者: 甲    时间: 3 小时前\n投票对象：乙")
    assert "第 1 楼" in caught.value.text
    assert "HTML" in caught.value.text


def test_an_impossible_date_is_a_bad_page() -> None:
    with pytest.raises(ForumBadPage) as caught:
        parse_printable("标题: 帖\n---\n作者: 甲    时间: 2026-13-45 20:15\n投票对象：乙")
    assert "不是有效日期" in caught.value.text


def test_the_printable_adapter_downloads_the_page_and_reads_new_floors(
    fake_forum: FakeForum,
) -> None:
    thread = fake_forum.thread()
    fake_forum.posts(thread.tid, 5)
    reader = PrintableAdapter(fake_forum.base_url)
    page = reader.fetch(str(thread.tid), after_floor=3)
    assert ([p.text for p in page.posts], page.last_floor) == (["楼4", "楼5"], 5)
    with pytest.raises(ForumThreadNotFound):
        reader.fetch("999", after_floor=0)
    with pytest.raises(ForumPostingOff):
        reader.reply(str(thread.tid), "计票")
