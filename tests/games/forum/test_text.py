from __future__ import annotations

import pytest

from games.forum.text import html_to_text, read_html

# A quote as the mobile API (version 4) serves it, and as the web page does.
MOBILE_QUOTE = (
    '<div class="reply_wrap"><a href="http://bbs.example/forum.php?mod=redirect&amp;goto=findpost'
    '&amp;pid=8841&amp;ptid=77"><font color="#999999">甲 发表于 2018-10-29 13:51</font></a>\r\n'
    "投票对象：乙\r\n投票理由：他很可疑</div>\r\n"
)
WEB_QUOTE = (
    '<div class="quote"><blockquote><font size="2"><a href="forum.php?mod=redirect&amp;goto='
    'findpost&amp;pid=8841&amp;ptid=77" target="_blank"><font color="#999999">甲 发表于 '
    "2018-10-29 13:51</font></a></font><br />\r\n投票对象：乙</blockquote></div><br />\r\n"
)


def test_line_breaks_come_from_br_and_raw_newlines_without_doubling() -> None:
    assert html_to_text("投票对象：乙<br />\r\n投票理由：嗯") == "投票对象：乙\n投票理由：嗯"
    assert html_to_text("投票对象：乙\r\n投票理由：嗯") == "投票对象：乙\n投票理由：嗯"
    assert html_to_text("<p>第一段<br>\n第二行</p>\n<p>第二段</p>") == "第一段\n第二行\n第二段"


def test_blank_lines_collapse_to_one_and_spaces_are_trimmed() -> None:
    text = html_to_text("  投票对象：乙 <br />\r\n<br />\r\n<br />\r\n<br />\r\n 投票理由：嗯  ")
    assert text == "投票对象：乙\n\n投票理由：嗯"


def test_entities_are_decoded_and_nbsp_is_a_space() -> None:
    assert html_to_text("A&amp;B&nbsp;&lt;丙&gt; &#25237;&#31080;") == "A&B <丙> 投票"


def test_images_and_smilies_are_dropped() -> None:
    html = (
        '投票对象：乙<img src="static/image/smiley/default/smile.gif" smilieid="1" border="0" '
        'alt="" /><div class="img"><img src="http://bbs.example/data/attachment/a.jpg" /></div>'
        "{:3_51:}"
    )
    assert html_to_text(html) == "投票对象：乙"


@pytest.mark.parametrize("quote", [MOBILE_QUOTE, WEB_QUOTE], ids=["mobile", "web"])
def test_a_quoted_ballot_is_removed_and_is_the_reply_target(quote: str) -> None:
    read = read_html(quote + "改票对象：丙<br />\r\n改票理由：换人")
    assert read.text == "改票对象：丙\n改票理由：换人"
    assert read.reply_to == "8841"


def test_discuz_reply_header_is_removed_and_is_the_reply_target() -> None:
    html = (
        '<strong>回复 <a href="forum.php?mod=redirect&amp;goto=findpost&amp;pid=8841&amp;ptid=77" '
        'target="_blank">3#</a> <i>甲</i> </strong><br />\r\n改票对象：丙'
    )
    read = read_html(html)
    assert read.text == "改票对象：丙"
    assert read.reply_to == "8841"


def test_a_findpost_link_in_bold_prose_is_no_reply() -> None:
    html = (
        '<strong>规则见 <a href="forum.php?mod=redirect&amp;goto=findpost&amp;pid=5&amp;ptid=7">'
        "此楼</a></strong>"
    )
    read = read_html(html)
    assert read.text == "规则见 此楼"
    assert read.reply_to is None


def test_old_discuz_quote_and_literal_bbcode_quote_are_removed() -> None:
    discuz7 = (
        '<div class="quote"><h5>引用:</h5><blockquote>原帖由 <i>甲</i> 于 2010-1-1 12:00 发表 '
        '<a href="redirect.php?goto=findpost&amp;pid=12&amp;ptid=3">›</a><br />投票对象：乙'
        "</blockquote></div>弃权"
    )
    assert read_html(discuz7).text == "弃权"
    assert read_html(discuz7).reply_to == "12"
    assert html_to_text("[quote]投票对象：乙[/quote]\n投票对象：丙") == "投票对象：丙"


def test_the_edit_stamp_of_an_edited_post_is_not_text() -> None:
    html = '<i class="pstatus"> 本帖最后由 甲 于 2018-10-29 14:00 编辑 </i><br />\r\n投票对象：乙'
    assert html_to_text(html) == "投票对象：乙"


def test_discourse_quote_is_removed_and_names_the_quoted_post_number() -> None:
    cooked = (
        '<aside class="quote no-group" data-username="jia" data-post="3" data-topic="77">\n'
        '<div class="title">\n<div class="quote-controls"></div>\njia:</div>\n'
        "<blockquote>\n<p>投票对象：乙</p>\n</blockquote>\n</aside>\n<p>改票对象：丙</p>"
    )
    read = read_html(cooked)
    assert read.text == "改票对象：丙"
    assert read.quoted_numbers == (3,)
    assert read.reply_to is None


def test_scripts_and_styles_are_not_text() -> None:
    assert html_to_text("<style>p{}</style><script>var a=1;</script>正文") == "正文"
