"""No hidden fact of [096] 名侦探柯南 reaches a player: the whole scripted game of game_096.py,
every socket frame each of the 22 players received and every page and API answer each fetched
at every phase (the portal whole and its state part, the public page, the API's page and log,
refusals), searched for what that player may not know before the end (game_over's 揭秘).

Public by the post: the vote totals, the 神眷者 (公示), the outs (身份不公示), 石化 (仅石化状态会
公示). Secret: roles and factions, a flip (转化身份的角色收到通知: the flipped one alone), HP,
cooldowns (each its own), every relic move but what RULINGS 096-15 names (戈尔贡之血's
receiver, 灾厄's and 认主's holder, 追踪 to the pack, 七轮感应法's 正向/逆向; the 藏匿 recipient is
not told), the 森林先知's answers, 许愿's choice, the directors' reasons and the engine's trace.
No page shows an event code, JSON or a character id as text."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from tests.werewolf.engine.support_096 import DRUID, DRYAD, EXORCIST, GOLEM, MEDUSA, SEATS
from tests.werewolf.game_096 import (
    DIRECTORS_WORDS,
    HOLDER,
    NAMES,
    PACK,
    STONED,
    Played,
    play_096,
)
from tests.werewolf.players import DIRECTORS_ONLY, dicts
from werewolf.engine import get_ruleset
from werewolf.selectors import werewolf_state

pytestmark = pytest.mark.django_db(transaction=True)

RULES = get_ruleset("conan_096")
ROLE = {s: RULES.roles[role].name for s, role in SEATS.items()}
# Event codes and keys that must never be a page's text.
CODE_WORDS = re.compile(
    r"\b(?:"
    + "|".join(
        sorted([*RULES.roles, *RULES.skills, *RULES.factions, "bound", "sheep", "stone"], key=len)[
            ::-1
        ]
    )
    + r"|payload|kind|stream_seq|window_open|team_pick|vote_result|day_open)\b"
)


def _visible(page: str) -> str:
    """A page's text as a reader sees it: no scripts, styles or tags."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _relic_lines(p: Played) -> dict[int, set[str]]:
    """Who may read which relic line (RULINGS 096-15)."""
    n = NAMES
    living = "、".join(n[s] for s in SEATS)
    lines: dict[int, set[str]] = {s: set() for s in SEATS}
    lines[HOLDER] = {
        f"【灾厄】你持有亡灵圣物。存活角色：{living}。你可以将亡灵圣物转交给任意一名角色。"
    }
    lines[MEDUSA] = {
        f"【戈尔贡之血】你的投票对象{n[HOLDER]}被投票出局，其持有的亡灵圣物转移给你。",
        "你以生灵身份持有亡灵圣物连续度过了2个完整的夜晚，亡灵圣物认你为主。",
    }
    for w in PACK:
        lines[w] = {f"【追踪】亡灵圣物的持有者是{n[s]}。" for s in (HOLDER, MEDUSA)}
    lines[EXORCIST] = {f"【七轮感应法】亡灵圣物持有者的位置在【{w}】。" for w in ("正向", "逆向")}
    return lines


def _secrets() -> dict[str, set[int]]:
    """Words only these seats may read."""
    n = NAMES
    return {
        f"【森林先知】：{n[HOLDER]}——【亡灵阵营】": {DRUID},
        f"【森林先知】：{n[MEDUSA]}——【其他阵营】": {DRUID},
        "你翻转了身份": {HOLDER},
        "转移给你": {MEDUSA},
        "【灾厄】": {HOLDER},
        "【追踪】": set(PACK),
        "【七轮感应法】": {EXORCIST},
        f"为狼群提交【藏匿】：{n[HOLDER]}": set(PACK),
        "为游侠群提交【毒素箭】": {11, 12},
        "【九星金光咒】进入冷却": {EXORCIST},
        "【撕咬】进入冷却": set(PACK),
        "【撕咬】解除冷却": set(PACK),
        "你被【许愿】选中": {2, 3, 7},
    }


def _absent(text: str, word: str, who: int) -> None:
    at = text.find(word)
    assert at < 0, (who, word, text[max(0, at - 300) : at + 80])


def _trace(p: Played) -> list[str]:
    state = werewolf_state(game=p.game)
    return [
        entry["text"]
        for night in state.flags.get("history", [])
        for entry in night.get("trace", [])
        if entry.get("text") and re.search(r"侦探\d", entry["text"])
    ]


def _check_reader(p: Played, who: int, trace: list[str]) -> None:
    ids = p.ids
    by_id = {ids[s]: s for s in SEATS}
    text = p.text_before_end(who)
    n_json, n_html = p.before_end[who]
    frames = list(dicts(p.readers[who].json[:n_json]))
    # 分发身份: one card, the director's 调整身份 (the seed's deal sent nothing).
    cards = {f["payload"]["role"] for f in frames if f.get("kind") == "role_card"}
    assert cards == {SEATS[who]}, (who, cards)
    # Another's role: never as a ``role`` beside its id, nor beside its name in words.
    for d in frames:
        subject = d.get("id", d.get("target"))
        if isinstance(d.get("role"), str) and isinstance(subject, int) and subject in by_id:
            assert subject == ids[who], (who, d)
    for other in SEATS:
        if other == who:
            continue
        role = "腐尸" if other == HOLDER else ROLE[other]
        for pattern in (
            f"{NAMES[other]}（{role}）",
            f"{NAMES[other]}的身份",
            f"{NAMES[other]}：{role}",
        ):
            assert pattern not in text, (who, pattern)
    # A flip: the flipped player is told, nobody else.
    flips = [f for f in frames if f.get("kind") == "flipped"]
    assert bool(flips) == (who == HOLDER), who
    # HP, cooldowns, toggles: the reader's own only (its ``me`` views). 长生: the 树妖's 生命值
    # is 1, reset to 2 at 第三日开始; the 魔像's 1 (暴走 not awakened).
    hps: list[Any] = []
    for d in frames:
        if isinstance(d.get("conan"), dict):
            assert d["id"] == ids[who], (who, d)
            hps.append(d["conan"]["hp"])
    assert hps, who
    if who == DRYAD:
        assert hps == sorted(hps), hps
        assert (hps[0], hps[-1]) == (1, 2), hps
    else:
        expected: set[int | None] = {1} if who == GOLEM else {None}
        assert set(hps) == expected, (who, hps)
    if who not in (DRYAD, GOLEM):
        for page in p.readers[who].html[:n_html]:
            _absent(_visible(page), "生命值", who)
    # Relic moves: only the lines RULINGS 096-15 gives this reader.
    relic = {str(f["payload"]["text"]) for f in frames if f.get("kind") == "relic"}
    assert relic <= _relic_lines(p)[who], (who, relic - _relic_lines(p)[who])
    # Statuses: only 石化 (公示); nobody reads another's 变羊 or 束缚, nor its own absent ones.
    for d in frames:
        statuses = d.get("statuses")
        if isinstance(statuses, dict) and d.get("id") != ids[who]:
            assert set(statuses) <= {"stone"}, (who, d)
    # Feedback: the reader's own (森林先知's answers are the 德鲁伊's).
    feedback = [f for f in frames if f.get("kind") == "feedback"]
    assert bool(feedback) == (who == DRUID), (who, feedback)
    for word, readers in _secrets().items():
        if who not in readers:
            _absent(text, word, who)
    # No directors' event, reason or word; no trace line; the seed stays secret.
    for d in frames:
        if isinstance(d.get("kind"), str) and "payload" in d:
            assert d["kind"] not in DIRECTORS_ONLY, (who, d["kind"])
            assert not {"reason", "director", "actor"} & set(d["payload"]), (who, d)
    for words in (*DIRECTORS_WORDS, *trace, p.game.seed):
        assert words not in text, (who, words)
    # No event code, JSON or id as a page's text; the 神眷者 is named as the post names it.
    for page in p.readers[who].html:
        seen = _visible(page)
        assert CODE_WORDS.findall(seen) == [], (who, CODE_WORDS.findall(seen))
        assert '{"' not in seen, who
        assert '":' not in seen, who
        _absent(seen, "警长", who)


async def test_no_hidden_fact_of_a_096_game_reaches_a_player(
    director: Any, director_client: Client, settings: Any
) -> None:
    settings.WEREWOLF_PREVIEW_RULESETS = True
    played = await play_096(director_client, read_pages=True)
    trace = await database_sync_to_async(_trace)(played)
    assert trace  # the directors' draft had its lines
    for who in SEATS:
        _check_reader(played, who, trace)

    # The search looked where the facts are: each reader's own in its text, the public
    # announcements in everyone's.
    for word, readers in _secrets().items():
        for who in readers:
            assert word in played.text_before_end(who), (who, word)
    for who in SEATS:
        text = played.text_before_end(who)
        assert len(played.readers[who].html) >= 3 * 10, who
        for public in (
            f"{NAMES[MEDUSA]}当选神眷者。",
            f"{NAMES[STONED]}进入石化状态。",
        ):
            assert public in text, (who, public)
        pages = [_visible(h) for h in played.readers[who].html]
        assert any(re.search(rf"{NAMES[MEDUSA]}\s+神眷者", t) for t in pages), who
