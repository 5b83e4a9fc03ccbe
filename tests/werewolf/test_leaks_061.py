"""No hidden fact of [061] 林峰 reaches a player: the whole scripted game of game_061.py, every
socket frame each of the 19 players received and every page and API answer each fetched at
every phase (the portal whole and its state part, the public page, the API's page and log,
refusals), searched for what that player may not know before the end (揭秘).

Public by the post: the 票台 names (并公示), the 吹笛 names (第二天进行公示), 查证 when its
游侠 chose 公示, a 宝藏阵营 out's role (公示其具体身份), the 幽灵's 附身 line (its name), the
vote totals. Secret: roles and factions (the 狼王's list and the 互知 rosters give names only),
诅咒 (暗记, 不公示) and 独尊, every night result (审判, 查证, 预言, 感知, 明察, 狡黠 and the skill
it borrowed, 献策, 传音, ‹炼›, 鸩毒's count), a conversion (told to the converted alone; the
不定 following its host not even to it), the directors' reasons and the engine's trace."""

from __future__ import annotations

import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from tests.werewolf.engine import support_061 as seat
from tests.werewolf.engine.support_061 import SEATS
from tests.werewolf.game_061 import NAMES, PACK_AFTER, PACK_BEFORE, WHISPER, Played, play_061
from tests.werewolf.players import DIRECTORS_ONLY, dicts
from werewolf.engine import get_ruleset
from werewolf.selectors import werewolf_state

pytestmark = pytest.mark.django_db(transaction=True)

RULES = get_ruleset("lin_feng_061")
ROLE = {s: RULES.roles[role].name for s, role in SEATS.items()}
FACTION = {s: RULES.factions[RULES.roles[role].faction].name for s, role in SEATS.items()}
# Roles a rule made public: the 宝藏 (宝藏阵营's out), the 幽灵 (附身's line names it).
SHOWN = {seat.TREASURE, seat.GHOST}
VOTERS_FOR_THE_TREASURE = {seat.QUEEN, seat.KING, seat.HUNTER}
# The directors' own words in the admin (reasons): never on a player's surface.
ROLE_TAG = re.compile(r'class="ww-role-name">[^<]*<span class="tag">([^<]*)</span>')
DIRECTORS_WORDS = ("按座位表调整身份", "核对无误", "导演关门")


def _own_card(text: str, who: int, cards: set[str]) -> str:
    """``text`` without the rule post's words that the reader's own role cards quote (the
    狼后's 传位 names the 幽灵, the 毒士's 炼狱 the ‹炼›, …; ``cards``: the roles of the card it
    was sent) and without the post's
    step names of the night flow (（11）宝藏：选择<预言>的目标 …), which name roles, not
    players."""
    skills = {s for role in cards | {SEATS[who]} for s in RULES.roles[role].skills}
    if who == seat.GHOST:  # 附身: the 宝藏's skills, with their words
        skills |= set(RULES.roles["treasure"].skills)
    for key in skills:
        if RULES.skills[key].text:
            text = text.replace(RULES.skills[key].text, "")
    for step in RULES.night_steps:
        text = text.replace(step.name, "")
    return text


def _secrets(p: Played) -> dict[str, set[int]]:
    """Words each of which only these seats may read (their own result, or their own act)."""
    n = NAMES
    return {
        WHISPER: {seat.KEEPER, seat.GHOST},  # 传音: to the 守宝人; the sender's own submission
        "猜测成功": {seat.FOX},
        f"{n[seat.RANGER]}的技能为": {seat.FOX},
        "狡黠（借用）": {seat.FOX},
        f"{n[seat.SHADOW]}属于其他阵营": {seat.FOX},
        "其中不存在宝藏": {seat.JUDGE},
        f"狼判官献策：{n[seat.FOX]}": {seat.QUEEN},
        f"{n[seat.PIPER]}属于吹笛者阵营": VOTERS_FOR_THE_TREASURE,
        f"{n[seat.PILLAR]}属于毒士阵营": {seat.GHOST},
        f"{n[seat.TREASURE]}的身份为宝藏，属于宝藏阵营": {seat.PSYCHIC},
        f"你获得了{n[seat.TREASURE]}的全部技能": {seat.GHOST},
        "你获得一个<炼>标记": {seat.POISONER},
        "场上存活：": {seat.POISONER},
        "你已转入": {seat.ANGEL},
        "公敌（转移阵营）": {p.notes["drawn"]},
        # The 狼群's talk: before the 天使 joined, to the pack of then; after, to it too.
        PACK_BEFORE: {seat.KING, seat.QUEEN, seat.HUNTER},
        PACK_AFTER: {seat.KING, seat.QUEEN, seat.HUNTER, seat.ANGEL},
    }


def _allowed_roles(who: int) -> dict[int, str]:
    """(character seat → role) ``who`` may know before the end."""
    allowed = {who: ROLE[who], **{s: ROLE[s] for s in SHOWN}}
    if who == seat.FOX:
        allowed[seat.RANGER] = ROLE[seat.RANGER]  # 狡黠 guessed right
    return allowed


def _allowed_factions(who: int, ids: dict[int, int]) -> set[tuple[int, str]]:
    """(character id, faction name) pairs ``who`` may read beside an id."""
    pairs = {(ids[seat.QUEEN], "狼人阵营"), (ids[seat.TREASURE], "宝藏阵营")}  # 公示查证, 公示身份
    pairs.add((ids[who], FACTION[who]))
    if who in VOTERS_FOR_THE_TREASURE:
        pairs.add((ids[seat.PIPER], "吹笛者阵营"))
    if who == seat.GHOST:
        pairs.add((ids[seat.PILLAR], "毒士阵营"))
    if who == seat.FOX:
        pairs.add((ids[seat.SHADOW], "其他阵营"))
    return pairs


def _absent(text: str, word: str, who: int) -> None:
    at = text.find(word)
    assert at < 0, (who, word, text[max(0, at - 300) : at + 80])


def _check_reader(p: Played, who: int, trace: list[str]) -> None:
    ids, name = p.ids, NAMES
    text = p.text_before_end(who)
    n_json, _n_html = p.before_end[who]
    frames = list(dicts(p.readers[who].json[:n_json]))
    cards = {f["payload"]["role"] for f in frames if f.get("kind") == "role_card"}
    # 分发身份 at the start: the seed's deal, replaced by the director's 调整身份, sent nothing.
    assert cards == {SEATS[who]}, who
    mine = _own_card(text, who, cards)
    # Another's role: never beside its name, nor as a ``role`` beside its id.
    known = _allowed_roles(who)
    for other in SEATS:
        if other in known:
            continue
        for pattern in (
            f"{name[other]}（{ROLE[other]}）",
            f"{name[other]}的身份为",
            f"{name[other]}出局，其身份为",
            f"{name[other]}：{ROLE[other]}",
        ):
            assert pattern not in mine, (who, pattern)
    by_id = {ids[s]: s for s in SEATS}
    for d in frames:
        subject = d.get("id", d.get("target"))
        if isinstance(d.get("role"), str) and isinstance(subject, int) and subject in by_id:
            assert by_id[subject] in known, (who, d)
        faction = d.get("faction_name") or d.get("group") or d.get("faction")
        if isinstance(faction, str) and isinstance(subject, int) and subject != ids[who]:
            faction = RULES.factions[faction].name if faction in RULES.factions else faction
            assert (subject, faction) in _allowed_factions(who, ids), (who, d)
    # Night results and conversions: their own readers only.
    for word, readers in _secrets(p).items():
        if who not in readers:
            _absent(mine, word, who)
    # 诅咒 and 独尊 (secret: 暗记, never named in a tally), 明察 and 感知: only the readers
    # whose cards hold them read of them.
    held = {RULES.skills[k].name for role in cards | {SEATS[who]} for k in RULES.roles[role].skills}
    for word in ("诅咒", "独尊", "明察", "感知"):
        if word not in held:
            _absent(mine, word, who)
    # The 幽灵 and the 人质 follow their hosts untold (附身: 宝藏阵营; 遇难: 妖狐阵营, then with
    # the 天使 狼人阵营): their own cards say 不定阵营 on every surface.
    if who in (seat.GHOST, seat.HOSTAGE):
        for d in frames:
            if d.get("role") == SEATS[who] and "faction_name" in d:
                assert d["faction_name"] == "不定阵营", (who, d)
        n_html = p.before_end[who][1]
        tags = [t for page in p.readers[who].html[:n_html] for t in ROLE_TAG.findall(page)]
        assert tags, who
        assert set(tags) == {"不定阵营"}, (who, tags)
    # No directors' event, reason or word; no trace line; the seed stays secret.
    for d in frames:
        if isinstance(d.get("kind"), str) and "payload" in d:
            assert d["kind"] not in DIRECTORS_ONLY, (who, d["kind"])
            assert not {"reason", "director", "actor"} & set(d["payload"]), (who, d)
    for words in (*DIRECTORS_WORDS, *trace, p.game.seed):
        assert words not in text, (who, words)


def _trace(p: Played) -> list[str]:
    state = werewolf_state(game=p.game)
    lines = []
    for night in state.flags.get("history", []):
        for entry in night.get("trace", []):
            # A trace line naming one character ("林5猜测…") is the directors'; the bare post
            # words a public line shares (a 票台 list) are not secrets by themselves.
            if entry.get("text") and re.search(r"林\d", entry["text"]):
                lines.append(entry["text"])
    return lines


async def test_no_hidden_fact_of_a_061_game_reaches_a_player(
    director: Any, director_client: Client
) -> None:
    played = await play_061(director_client, read_pages=True)
    trace = await database_sync_to_async(_trace)(played)
    assert trace  # the directors' draft had its lines
    for who in SEATS:
        _check_reader(played, who, trace)

    # The search looked where the facts are: each reader's own results are in its text,
    # and the public announcements in everyone's.
    n = NAMES
    for word, readers in _secrets(played).items():
        for who in readers:
            assert word in played.text_before_end(who), (who, word)
    for who in SEATS:
        text = played.text_before_end(who)
        assert len(played.readers[who].html) >= 3 * 10, who
        for public in (
            f"{n[seat.TREASURE]}出局，其身份为宝藏。",
            f"幽灵（{n[seat.GHOST]}）已经发动附身技能",
            f"{n[seat.HUNTER]}进入吹笛状态。",
            f"游侠公示查证结果：{n[seat.QUEEN]}属于狼人阵营。",
            "铁柱<票台>：第1天不可被投票出局的玩家：",
        ):
            assert public in text, (who, public)
    assert "诅咒" in played.text_before_end(seat.PILLAR)
    # After the end (揭秘) every role is public.
    for who in SEATS:
        over = [f for f in played.readers[who].json if isinstance(f, dict)]
        assert any(f.get("kind") == "game_over" for f in over), who
