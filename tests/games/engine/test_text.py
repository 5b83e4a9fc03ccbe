"""Text that shows nothing is empty, whatever invisible characters it is made of; full-width and
half-width punctuation read alike."""

from __future__ import annotations

import pytest

from games.engine.text import is_blank, names_short, normalize_punctuation


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "\n\t",
        "\u3000",  # the ideographic space
        "\u200b",
        "\u200c\u200d",
        "\u2060",
        "\ufeff",
        "\u00ad",  # soft hyphen
        "\u202e\u2066",  # bidi controls
        "\u3164\u115f",  # Hangul fillers
        "\u2800",  # the blank Braille pattern
        " \u200b \u3000\u200d\n",
    ],
)
def test_only_invisible_characters_is_blank(text: str) -> None:
    assert is_blank(text)


@pytest.mark.parametrize("text", ["a", " a ", "\u200b你好", "。", "😀", "\u200d😀", "0"])
def test_one_visible_character_is_enough(text: str) -> None:
    assert not is_blank(text)


def test_normalize_punctuation_reads_full_and_half_width_alike() -> None:
    assert normalize_punctuation("投票对象：（乙）") == normalize_punctuation("投票对象:(乙)")
    assert normalize_punctuation("投票对象：乙") == "投票对象:乙"
    assert normalize_punctuation("弃权　！，；") == "弃权 !,;"
    assert normalize_punctuation("ＡＢ１２") == "AB12"
    assert normalize_punctuation("投票对象﹕乙∶") == "投票对象:乙:"


def test_normalize_punctuation_leaves_chinese_punctuation_without_ascii_twin() -> None:
    assert normalize_punctuation("【乙】、。") == "【乙】、。"


def test_a_checklist_names_five_then_says_等() -> None:
    assert names_short(["甲", "乙"]) == "甲、乙"
    assert names_short([f"P{n}" for n in range(1, 8)]) == "P1、P2、P3、P4、P5等"
