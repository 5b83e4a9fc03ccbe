"""Text rules the engines share: when a text counts as empty, and punctuation read alike.

A whisper of zero-width spaces passed ``text.strip()``: Python's whitespace does not include the
format characters that render as nothing. Every text that must not be empty (whispers, 阿呆's
riddle, the director's notes and reasons) asks :func:`is_blank` instead, so they all agree.
Pure Python (engines use it).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

# Letters that render as blank although Unicode files them as letters (the Hangul fillers, a
# favourite "empty" name on Chinese forums too) or as a symbol (the blank Braille pattern).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _invisible(ch: str) -> bool:
    # Category Cf (format) holds the zero-width space, non-joiner and joiner (U+200B–U+200D),
    # the word joiner (U+2060), the BOM (U+FEFF), the soft hyphen and the bidi controls.
    return ch.isspace() or ch in _BLANK_LETTERS or unicodedata.category(ch) == "Cf"


def is_blank(text: str) -> bool:
    """True when nothing would show: only whitespace and invisible characters (or nothing)."""
    if text.isascii():
        return not text.strip()
    # Stops at the first visible character, so a real message costs a character or two.
    return all(_invisible(ch) for ch in text)


# Full-width ASCII (！ to ～) to half-width, the ideographic space, and the colon look-alikes
# players type for ``：``.
_PUNCTUATION = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
_PUNCTUATION.update({0x3000: 0x20, 0xA0: 0x20, 0xFE55: 0x3A, 0x2236: 0x3A})


def normalize_punctuation(text: str) -> str:
    """Full-width forms as half-width (``：`` as ``:``, ``（`` as ``(``, ``　`` as a space...)."""
    return text.translate(_PUNCTUATION)


def names_short(names: Sequence[str], limit: int = 5) -> str:
    """A list of names for a checklist line: the first ``limit``, then 等."""
    return "、".join(names[:limit]) + ("等" if len(names) > limit else "")
