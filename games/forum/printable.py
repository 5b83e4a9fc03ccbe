"""Discuz's printable page (打印本页, ``forum.php?mod=viewthread&action=printable&tid=T``).

A director uploads the saved page (HTML) or pastes its text; the ``printable`` adapter downloads
it. Either way the page is a title, then one block per visible post separated by rules (``<hr>``,
or ``---`` lines in the text form), each opening with ``作者: … 时间: …``, then a footer. The page
shows no post ids or floor numbers: posts are numbered 1, 2, … in order (a deleted post is simply
absent, so later floors move up) and get the id ``printable-<floor>``. Times are Beijing time
(Discuz's display time) and become aware UTC.

The HTML form keeps quotes apart from the post (they are removed like everywhere else). Pasted
text cannot show where a quote ends: a ``某人 发表于 <time>`` line and the lines after it up to the
next blank line are taken as the quote. Both forms resolve what a post replies to (a
``回复 N# 某人`` header, or the quoted author and time) to the id of that floor on the page.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from games.forum import transport
from games.forum.base import ForumPost, ForumSiteConfig, ThreadPage
from games.forum.errors import (
    ForumBadPage,
    ForumPmUnsupported,
    ForumPostingOff,
    ForumThreadNotFound,
)
from games.forum.text import html_to_text, tidy

BEIJING = ZoneInfo("Asia/Shanghai")
ANONYMOUS = "匿名"

_HTML_HEADER = re.compile(
    r"<b>\s*作者[:：]\s*</b>(?P<author>.*?)<b>\s*时间[:：]\s*</b>(?P<time>.*?)(?:<br\s*/?>|$)",
    re.S | re.I,
)
_TEXT_HEADER = re.compile(r"^作者[:：]\s*(?P<author>.*?)\s+时间[:：]\s*(?P<time>.+?)\s*$")
_SUBJECT_HTML = re.compile(r"^\s*<b>\s*标题[:：]\s*</b>.*?<br\s*/?>", re.S | re.I)
_SUBJECT_TEXT = re.compile(r"^标题[:：]")
_TIME = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?")
_RULE = re.compile(r"<hr\b[^>]*>", re.I)
_QUOTE_BY = re.compile(
    r"^(?P<author>.+?)\s+发表于\s+(?P<time>\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2})"
)
_REPLY_TO = re.compile(r"^回复\s*(?P<floor>\d+)\s*#\s*(?P<author>.*?)\s*$")
_FOOTER = ("欢迎光临", "Powered by Discuz")


@dataclass
class _Block:
    author: str
    time: str
    body: str  # HTML (saved page) or text (pasted)
    number: int  # its place on the page, for error messages


def external_id(floor: int) -> str:
    return f"printable-{floor}"


def parse_printable(page: str) -> ThreadPage:
    """The posts of a printable page (HTML or its text); ``ForumBadPage`` if it is not one."""
    is_html = bool(re.search(r"<(?:hr|b|br|html|body)\b", page, re.I))
    blocks = _html_blocks(page) if is_html else _text_blocks(page)
    if not blocks:
        raise ForumBadPage(
            "没有找到任何楼层：打印页的每一楼都以“作者: … 时间: …”开头。"
            "请上传“打印本页”保存的网页，或粘贴其全部文字。",
            message_en="No posts found: each post of a printable page starts with 作者/时间.",
        )
    posts: list[ForumPost] = []
    for floor, block in enumerate(blocks, start=1):
        text, reference = _read(block.body, is_html)
        posts.append(
            ForumPost(
                external_id=external_id(floor),
                floor=floor,
                author=block.author,
                author_uid="",
                posted_at=_when(block),
                text=text,
                html=block.body if is_html else "",
                reply_to=_resolve(reference, posts),
                anonymous=block.author == ANONYMOUS,
                first=floor == 1,
            )
        )
    return ThreadPage(posts=posts, last_floor=len(posts))


def _clean(value: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", value))).strip()


def _html_blocks(page: str) -> list[_Block]:
    blocks: list[_Block] = []
    for segment in _RULE.split(page)[1:]:  # before the first rule: the page's title
        header = _HTML_HEADER.search(segment)
        if header is None or segment[: header.start()].strip():
            if blocks and not any(mark in segment for mark in _FOOTER):
                # A rule inside a post (Discuz's [hr]) split it; it belongs to the post above.
                blocks[-1].body += "<hr />" + segment
            continue
        # Recent posts show a relative time ("3 小时前") with the exact one as the title.
        exact = re.search(r'title="([^"]+)"', header.group("time"))
        blocks.append(
            _Block(
                author=_clean(header.group("author")),
                time=exact.group(1) if exact else _clean(header.group("time")),
                body=_SUBJECT_HTML.sub("", segment[header.end() :], count=1),
                number=len(blocks) + 1,
            )
        )
    return blocks


def _text_blocks(page: str) -> list[_Block]:
    blocks: list[_Block] = []
    chunks: list[list[str]] = [[]]
    for line in page.replace("\r\n", "\n").split("\n"):
        if line.strip() == "---":
            chunks.append([])
        else:
            chunks[-1].append(line)
    for lines in chunks[1:]:
        filled = [line for line in lines if line.strip()]
        header = _TEXT_HEADER.match(filled[0].strip()) if filled else None
        if header is None:
            if blocks and not (filled and filled[0].strip().startswith(_FOOTER)):
                blocks[-1].body += "\n---\n" + "\n".join(lines)
            continue
        body = lines[lines.index(filled[0]) + 1 :]
        while body and not body[0].strip():
            body.pop(0)
        if body and _SUBJECT_TEXT.match(body[0].strip()):
            body.pop(0)
        blocks.append(
            _Block(
                author=header.group("author").replace("\xa0", " ").strip(),
                time=header.group("time").strip(),
                body="\n".join(body),
                number=len(blocks) + 1,
            )
        )
    return blocks


def _when(block: _Block) -> dt.datetime:
    found = _TIME.fullmatch(block.time.strip())
    if found is None:
        raise ForumBadPage(
            f"第 {block.number} 楼（{block.author}）的时间“{block.time}”无法识别；"
            "若是“3 小时前”这样的相对时间，请上传保存的网页文件（HTML）而不是粘贴文字。",
            message_en=f"Post {block.number}: cannot read the time {block.time!r}.",
        )
    moment = _beijing(found)
    if moment is None:
        raise ForumBadPage(
            f"第 {block.number} 楼的时间“{block.time}”不是有效日期。",
            message_en=f"Post {block.number}: {block.time!r} is not a valid date.",
        )
    return moment


# What a post replies to: ("floor", n, author) from a 回复 header, ("by", author, time) from
# a quote.
Reference = tuple[str, str, str]

_HTML_REPLY = re.compile(
    r"^(?:\s|<i class=\"pstatus\">.*?</i>|<br\s*/?>)*<(?:strong|b)>\s*回复\s*<a[^>]*>\s*(\d+)\s*#"
    r"\s*</a>\s*(?:<i>(.*?)</i>)?",
    re.S | re.I,
)
_HTML_QUOTE_BY = re.compile(
    r'class="(?:quote|reply_wrap)".*?<font[^>]*>\s*([^<]*?)\s+发表于\s+([^<]*?)\s*</font>', re.S
)


def _read(body: str, is_html: bool) -> tuple[str, Reference | None]:
    return _read_html(body) if is_html else _read_text(body)


def _read_html(body: str) -> tuple[str, Reference | None]:
    reply = _HTML_REPLY.match(body)
    if reply:
        return html_to_text(body), ("floor", reply.group(1), _clean(reply.group(2) or ""))
    quote = _HTML_QUOTE_BY.search(body)
    if quote:
        return html_to_text(body), ("by", _clean(quote.group(1)), _clean(quote.group(2)))
    return html_to_text(body), None


def _read_text(body: str) -> tuple[str, Reference | None]:
    kept: list[str] = []
    reference: Reference | None = None
    quoting = False
    for line in body.split("\n"):
        stripped = line.strip()
        if quoting:
            quoting = bool(stripped)  # the quote runs to the next blank line
            continue
        by = _QUOTE_BY.match(stripped) if reference is None else None
        reply = _REPLY_TO.match(stripped) if reference is None and not kept else None
        if by:
            reference, quoting = ("by", by.group("author"), by.group("time")), True
        elif reply:
            reference = ("floor", reply.group("floor"), reply.group("author"))
        else:
            kept.append(line)
    return tidy("\n".join(kept)), reference


def _resolve(reference: Reference | None, earlier: list[ForumPost]) -> str | None:
    if reference is None:
        return None
    kind, first, second = reference
    if kind == "floor":
        match = [p for p in earlier if p.floor == int(first) and second in ("", p.author)]
    else:
        when = _TIME.fullmatch(second)
        moment = _beijing(when) if when else None
        match = [p for p in earlier if p.author == first and p.posted_at == moment]
    return match[-1].external_id if match else None


def _beijing(found: re.Match[str]) -> dt.datetime | None:
    year, month, day, hour, minute, second = (int(g or 0) for g in found.groups())
    try:
        return dt.datetime(year, month, day, hour, minute, second, tzinfo=BEIJING).astimezone(
            dt.UTC
        )
    except ValueError:
        return None


class PrintableAdapter(transport.HttpAdapter):
    """Reads a thread through its printable page; cannot post or send private messages."""

    supports_pm = False

    def __init__(self, base_url: str, *, timeout: float = transport.TIMEOUT) -> None:
        super().__init__(base_url, timeout=timeout)

    def fetch(self, thread: str, *, after_floor: int) -> ThreadPage:
        if not thread.strip().isdigit():
            raise ForumThreadNotFound(
                f"帖子编号应是数字（tid），收到：{thread}",
                message_en=f"A thread id (tid) is a number, not {thread!r}.",
            )
        params = {"mod": "viewthread", "action": "printable", "tid": thread.strip()}
        response = transport.send(self._http, "GET", "forum.php", params=params)
        if "主题不存在" in response.text and "作者" not in response.text:
            raise ForumThreadNotFound()
        page = parse_printable(response.text)
        newer = [p for p in page.posts if p.floor > after_floor]
        return ThreadPage(posts=newer, last_floor=page.last_floor)

    def reply(self, thread: str, text: str) -> str:
        raise ForumPostingOff(
            "打印页只能读取，不能回帖。", message_en="A printable page cannot post."
        )

    def send_pm(self, *, to_uid: str, to_username: str, subject: str, text: str) -> None:
        raise ForumPmUnsupported()


def from_site(site: ForumSiteConfig) -> PrintableAdapter:
    return PrintableAdapter(site.base_url)
