"""Forum HTML as the plain text that ballots and counts are read from.

Quotes go first: a quoted ballot is someone else's vote, so nothing inside a quote (Discuz's
``<div class="quote"><blockquote>``, the mobile API's ``<div class="reply_wrap">``, Discourse's
``<aside class="quote">``, any ``<blockquote>``, a literal ``[quote]…[/quote]``) nor Discuz's
"回复 3# 某人" header reaches the text. What they point at is kept as the reply target. Images and
smilies are dropped, ``<br>`` and block ends become line breaks, entities are decoded.

The text keeps the poster's own punctuation (it is shown to directors as posted); parsers call
:func:`games.engine.text.normalize_punctuation` so that full-width and half-width forms read alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

# Elements whose end (or start, mid-line) is a line break.
_BLOCKS = frozenset(
    {
        *("p", "div", "li", "ul", "ol", "dl", "dd", "dt", "pre", "hr", "center"),
        *("table", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6"),
        *("section", "article", "header", "footer"),
    }
)
# Elements whose whole content is dropped.
_DROPPED = frozenset({"script", "style", "head", "title", "blockquote", "aside", "select"})
# Classes of elements that hold a quote (Discuz web, Discuz mobile v4, Discuz 7 "引用:"),
# or Discuz's "本帖最后由 … 于 … 编辑" stamp on an edited post.
_DROPPED_CLASSES = frozenset({"quote", "reply_wrap", "msgbody", "pstatus", "quote-controls"})
_VOID = frozenset(
    {"br", "img", "hr", "input", "meta", "link", "area", "base", "col", "embed", "source", "wbr"}
)

_FINDPOST = re.compile(r"goto=findpost\b.*?\bpid=(\d+)|\bpid=(\d+).*?goto=findpost\b")
_REPLY_HEADER = re.compile(r"^\s*回复\s*\d+\s*#")
_BBCODE_QUOTE = re.compile(r"\[quote\].*?\[/quote\]", re.S | re.I)
_SMILEY_CODE = re.compile(r"\{:\d+_\d+:\}")
_SPACES = re.compile(r"[ \t\f\v\xa0]+")


@dataclass(frozen=True)
class PostText:
    text: str
    reply_to: str | None  # the Discuz pid of the first quoted or replied-to post
    quoted_numbers: tuple[int, ...]  # Discourse ``data-post`` numbers of quoted posts


def html_to_text(html: str) -> str:
    return read_html(html).text


def read_html(html: str) -> PostText:
    """The text of a post, and which posts it quotes or replies to."""
    if "<" not in html and "&" not in html and "[" not in html and "{:" not in html:
        return PostText(text=tidy(html.replace("\r\n", "\n")), reply_to=None, quoted_numbers=())
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return PostText(
        text=tidy(_SMILEY_CODE.sub("", _BBCODE_QUOTE.sub("", "".join(reader.out)))),
        reply_to=reader.reply_to,
        quoted_numbers=tuple(reader.quoted_numbers),
    )


def tidy(text: str) -> str:
    """Spaces collapsed, lines trimmed, at most one blank line in a row."""
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    kept: list[str] = []
    for line in lines:
        if line or (kept and kept[-1]):  # at most one blank line in a row
            kept.append(line)
    return "\n".join(kept).strip("\n")


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.reply_to: str | None = None
        self.quoted_numbers: list[int] = []
        self._stack: list[tuple[str, bool]] = []  # (tag, drops its content)
        self._dropping = 0
        self._broke = True  # the output ends a line: a newline right after it is markup's
        self._header_starts: list[tuple[str, int, str | None]] = []  # strong/b: where it began

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        if tag == "a":
            self._link(attributes.get("href") or "")
        if tag == "aside" and attributes.get("data-post"):
            self._quoted_number(attributes["data-post"] or "")
        if tag in _VOID:
            if tag in ("br", "hr") and not self._dropping:
                self._newline(force=True)
            return
        drops = tag in _DROPPED or bool(classes & _DROPPED_CLASSES)
        self._stack.append((tag, drops))
        if drops:
            self._dropping += 1
        elif not self._dropping:
            if tag in _BLOCKS:
                self._newline()
            if tag in ("strong", "b"):
                self._header_starts.append((tag, len(self.out), self.reply_to))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not any(t == tag for t, _ in self._stack):
            return
        while self._stack:
            open_tag, drops = self._stack.pop()
            if drops:
                self._dropping -= 1
            elif not self._dropping:
                self._closed(open_tag)
            if open_tag == tag:
                break

    def _closed(self, tag: str) -> None:
        if tag in _BLOCKS:
            self._newline()
        if tag in ("strong", "b") and self._header_starts:
            _, start, reply_before = self._header_starts.pop()
            if self.reply_to == reply_before:
                return
            if _REPLY_HEADER.match("".join(self.out[start:])):
                del self.out[start:]  # "回复 3# 某人" says whom it answers, not what
                self._broke = not self.out or self.out[-1].endswith("\n")
            else:
                self.reply_to = reply_before  # a findpost link in bold prose is no reply

    def handle_data(self, data: str) -> None:
        if self._dropping:
            return
        data = data.replace("\r\n", "\n").replace("\r", "\n")
        if self._broke:
            data = re.sub(r"^[ \t]*\n", "", data, count=1)
        if not data:
            return
        self.out.append(data)
        self._broke = data.endswith("\n") or (self._broke and not data.strip())

    def _newline(self, *, force: bool = False) -> None:
        if force or (self.out and not self.out[-1].endswith("\n")):
            self.out.append("\n")
        self._broke = True

    def _link(self, href: str) -> None:
        found = _FINDPOST.search(href.replace("&amp;", "&"))
        if found and self.reply_to is None and self._in_reference():
            self.reply_to = found.group(1) or found.group(2)

    def _in_reference(self) -> bool:
        # A findpost link counts only inside a quote or a "回复 N#" header, not in prose.
        return bool(self._dropping) or bool(self._header_starts)

    def _quoted_number(self, value: str) -> None:
        if value.isdigit():
            self.quoted_numbers.append(int(value))
