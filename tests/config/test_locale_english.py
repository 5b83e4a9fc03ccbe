"""The committed English catalogue (locale/en/LC_MESSAGES/django.po) is complete: every entry has
a translation, none is left fuzzy, each keeps its msgid's placeholders, and django.mo was compiled
from this very .po. (Running makemessages here would be too slow; after it, translate and
compilemessages, and this test says whether anything was left behind.)"""

from __future__ import annotations

import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale" / "en" / "LC_MESSAGES"
PLACEHOLDER = re.compile(r"%\([A-Za-z_]+\)[-+ #0-9.]*[sdfr]|%[sd]")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}


@dataclass
class Entry:
    line: int
    flags: list[str] = field(default_factory=list)
    msgctxt: str | None = None
    msgid: str = ""
    plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)


def _unquote(text: str) -> str:
    text = text.strip()
    assert text.startswith('"'), text
    assert text.endswith('"'), text
    return re.sub(r"\\(.)", lambda m: _ESCAPES[m.group(1)], text[1:-1])


def _entries() -> list[Entry]:
    """The .po's entries, header included (its msgid is empty); obsolete ones (#~) skipped."""
    entries: list[Entry] = []
    current: Entry | None = None
    target: tuple[str, int] = ("msgid", 0)
    for number, raw in enumerate((LOCALE / "django.po").read_text("utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#~"):
            if not line and current is not None:
                entries.append(current)
                current = None
            continue
        if current is None:
            current = Entry(line=number)
        if line.startswith("#,"):
            current.flags += [f.strip() for f in line[2:].split(",")]
        elif line.startswith("#"):
            continue
        elif line.startswith("msgctxt "):
            current.msgctxt, target = _unquote(line[8:]), ("msgctxt", 0)
        elif line.startswith("msgid_plural "):
            current.plural, target = _unquote(line[13:]), ("plural", 0)
        elif line.startswith("msgid "):
            current.msgid, target = _unquote(line[6:]), ("msgid", 0)
        elif line.startswith("msgstr["):
            number_text, _, rest = line[7:].partition("] ")
            current.msgstr[int(number_text)] = _unquote(rest)
            target = ("msgstr", int(number_text))
        elif line.startswith("msgstr "):
            current.msgstr[0], target = _unquote(line[7:]), ("msgstr", 0)
        else:  # a continued string
            text, (kind, index) = _unquote(line), target
            if kind == "msgstr":
                current.msgstr[index] += text
            elif kind == "plural":
                current.plural = (current.plural or "") + text
            elif kind == "msgctxt":
                current.msgctxt = (current.msgctxt or "") + text
            else:
                current.msgid += text
    if current is not None:
        entries.append(current)
    return entries


def test_the_english_catalogue_has_no_untranslated_or_fuzzy_entry() -> None:
    entries = [e for e in _entries() if e.msgid]
    assert len(entries) > 1000
    untranslated = [e.msgid for e in entries if not all(e.msgstr.values()) or not e.msgstr]
    fuzzy = [e.msgid for e in entries if "fuzzy" in e.flags]
    assert untranslated == []
    assert fuzzy == []
    for e in entries:
        if e.plural is not None:
            assert sorted(e.msgstr) == [0, 1], e.msgid  # nplurals=2


def test_the_english_translations_keep_their_placeholders() -> None:
    for e in _entries():
        if not e.msgid:
            continue
        wanted = sorted(PLACEHOLDER.findall(e.plural or e.msgid))
        for text in e.msgstr.values():
            assert sorted(PLACEHOLDER.findall(text)) == wanted, (e.line, e.msgid, text)


def test_the_english_mo_is_compiled_from_the_committed_po() -> None:
    with (LOCALE / "django.mo").open("rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    for e in _entries():
        if not e.msgid:
            continue
        key = e.msgid if e.msgctxt is None else f"{e.msgctxt}\x04{e.msgid}"
        if e.plural is None:
            assert compiled.gettext(key) == e.msgstr[0], (e.line, e.msgid)
        else:
            assert compiled.ngettext(key, e.plural, 1) == e.msgstr[0], (e.line, e.msgid)
            assert compiled.ngettext(key, e.plural, 2) == e.msgstr[1], (e.line, e.msgid)
