"""[061] 林峰's data and deal: 19 roles in 7 factions, each skill with its tags and the post's
words, the night's steps in the post's order; 分发身份 → 附身, 遇难 → rosters (RULINGS 061-1, 5)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from werewolf.engine import new_game, player_view
from werewolf.engine.ruleset import get_ruleset
from werewolf.engine.state import DAY as PHASE_DAY

from .support import rng
from .support_061 import (
    AMBITIOUS,
    FOX,
    GHOST,
    HOSTAGE,
    KING,
    L61,
    PILLAR,
    POISONER,
    PSYCHIC,
    QUEEN,
    SEATS,
    TREASURE,
    faction,
    game,
    play,
)


def test_19_roles_in_7_factions_as_the_post_lists_them() -> None:
    rs = get_ruleset(L61)
    assert rs.players == 19
    by_faction = Counter(rs.factions[r.faction].name for r in rs.roles.values())
    assert by_faction == {
        "狼人阵营": 4, "妖狐阵营": 3, "野心家阵营": 3, "毒士阵营": 2, "宝藏阵营": 3,
        "吹笛者阵营": 2, "不定阵营": 2,
    }  # fmt: skip
    assert [rs.roles[r].name for r in SEATS.values()] == [
        "狼后", "狼王", "猎狼", "狼判官", "妖狐", "灵能", "天使", "野心家", "野心家的影子", "游侠",
        "毒士", "铁柱", "宝藏", "守宝人", "地雷", "吹笛者", "洞察者", "幽灵", "人质",
    ]  # fmt: skip
    # 妖狐 and 毒士 互知但不共群: a roster without roles; the others neither.
    assert {k for k, f in rs.factions.items() if f.roster} == {"fox", "poison"}
    assert not any(f.team for f in rs.factions.values())
    # 如果有多个阵营同时获得胜利，则判定优先顺序为：吹笛者、野心家、毒士、宝藏、妖狐、狼人.
    assert list(rs.victory)[:6] == ["piper", "ambition", "poison", "treasure", "fox", "wolves"]


@pytest.mark.parametrize(
    ("tag", "skills"),
    [
        ("强制", {"传位", "统领", "警惕", "早夭", "结界", "继承", "天罡护体", "炼狱", "票台",
                  "公敌", "反噬", "牺牲", "共死"}),
        ("限定", {"偏爱", "守护", "传音", "怨恨"}),
        ("锁定", {"附身", "遇难"}),
    ],
)  # fmt: skip
def test_each_skill_carries_the_posts_tags(tag: str, skills: set[str]) -> None:
    rs = get_ruleset(L61)
    assert {s.name for s in rs.skills.values() if tag in s.tags} == skills


@pytest.mark.parametrize(
    ("skill", "text"),
    [
        ("vigilant", "当你受到第一次有效指杀时，不会出局。"),
        ("early_death", "当妖狐出局时，灵能也立即出局。"),
        ("prophecy", "游戏日夜晚，可选择一名玩家，获知其具体阵营。"),
        ("sacrifice", "当勾魂成功的人数达到两人时，守宝人立刻出局。"),
    ],
)
def test_skills_keep_the_posts_words(skill: str, text: str) -> None:
    assert get_ruleset(L61).skills[skill].text == text


def test_the_nights_steps_in_the_posts_order() -> None:
    rs = get_ruleset(L61)
    assert [s.key for s in rs.night_steps if s.nights != "prelude"] == [
        "ambitious", "pillar", "fox", "seer", "poisoner", "piper", "king", "judge", "queen",
        "ranger", "treasure", "psychic",
    ]  # fmt: skip
    assert rs.step("queen").name == "（9）狼后：选择<杀人>的目标"
    assert [s.key for s in rs.night_steps if s.nights == "prelude"] == ["possess", "hostage"]
    # 铁柱 decides the first day's 票台 before day 1, and every night.
    assert rs.step("pillar").nights == "all"
    # 关门四十分钟后 … 视为放弃; 狼后、铁柱 关门一小时.
    assert rs.step("queen").minutes_after_close == 60
    assert rs.step("pillar").minutes_after_close == 60
    assert rs.step("fox").minutes_after_close == 40
    # 每次指杀依次结算：救治 → 警惕 → 天罡护体 (→ 守护) → 出局.
    assert rs.params["kill_checks"] == ["cure", "vigilant", "tiangang", "guard"]


def test_the_game_starts_with_a_day_after_possession_and_the_hostage() -> None:
    """0 分发身份 → 1 幽灵<附身>、人质<遇难>依次执行 → 2 阵营确定 → 3 票台 → 第一天讨论日."""
    state = game(possess=QUEEN, hostage=GHOST)
    assert (state.day, state.phase) == (1, PHASE_DAY)
    # 转入相同阵营: the 幽灵 joins the 狼后's; the 人质, choosing the 幽灵 after it, too.
    assert faction(state, GHOST) == "wolves"
    assert faction(state, HOSTAGE) == "wolves"
    assert state.players[GHOST].links == {"possess": QUEEN}
    # The 不定 faction has no one left: it is out of the running from the start.
    assert state.lost == ("drifter",)
    # The 铁柱's first 票台: 19 // 3 players for day 1.
    assert sum(1 for p in state.players.values() if p.statuses.get("stage") == 1) == 6


def test_the_drifters_are_not_told_their_faction() -> None:
    chars = [(i, f"P{i}", None) for i in SEATS]
    state, _ = new_game(L61, chars, rng(), roles=SEATS)
    state, events = play(state, [(GHOST, "possess", TREASURE), (HOSTAGE, "hostage", FOX)])
    told = {e.audience.character for e in events if e.kind in ("converted", "roster")}
    assert GHOST not in told
    assert HOSTAGE not in told
    assert faction(state, GHOST) == "treasure"
    assert faction(state, HOSTAGE) == "fox"


def test_the_drifters_cards_keep_their_own_faction_while_they_follow_a_host() -> None:
    """不定阵营…会随之转变，但不会收到阵营转变的通知; 有且仅有一次机会询问导演: a 幽灵/人质's own
    page says 不定阵营, never the faction it follows (the 狼王 and a 妖狐 see theirs)."""
    chars = [(i, f"P{i}", None) for i in SEATS]
    state, _ = new_game(L61, chars, rng(), roles=SEATS)
    state, _ = play(state, [(GHOST, "possess", TREASURE), (HOSTAGE, "hostage", FOX)])
    assert (faction(state, GHOST), faction(state, HOSTAGE)) == ("treasure", "fox")
    for drifter in (GHOST, HOSTAGE):
        card = player_view(state, drifter)["card"]
        assert (card["faction"], card["faction_name"]) == ("drifter", "不定阵营")
    assert player_view(state, FOX)["card"]["faction_name"] == "妖狐阵营"


def test_rosters_wolf_king_learns_the_wolves_and_the_foxes_each_other_without_roles() -> None:
    chars = [(i, f"P{i}", None) for i in SEATS]
    state, _ = new_game(L61, chars, rng(), roles=SEATS)
    state, events = play(state, [(GHOST, "possess", QUEEN), (HOSTAGE, "hostage", FOX)])
    rosters = {
        (e.audience.character, e.payload["faction"]): e.payload
        for e in events
        if e.kind == "roster"
    }
    wolves = sorted(m["id"] for m in rosters[(KING, "wolves")]["members"])
    assert wolves == [1, 2, 3, 4, GHOST]  # 狼王获知狼人阵营角色名单 (the 幽灵 joined)
    assert (QUEEN, "wolves") not in rosters  # 狼人 不互知
    foxes = rosters[(FOX, "fox")]["members"]
    assert sorted(m["id"] for m in foxes) == [FOX, PSYCHIC, 7, HOSTAGE]
    assert all(set(m) == {"id", "name"} for m in foxes)  # a roster without roles
    assert (PSYCHIC, "fox") in rosters
    assert (POISONER, "poison") in rosters
    assert (PILLAR, "poison") in rosters
    assert (AMBITIOUS, "ambition") not in rosters  # 野心家阵营不互知


def test_a_host_not_chosen_in_time_is_drawn_from_the_seed() -> None:
    chars = [(i, f"P{i}", None) for i in SEATS]
    state, _ = new_game(L61, chars, rng(), roles=SEATS)
    state, _ = play(state)
    for pid, link in ((GHOST, "possess"), (HOSTAGE, "hostage")):
        host = state.players[pid].links[link]
        assert host != pid
        assert faction(state, pid) == faction(state, host) or host in (GHOST, HOSTAGE)


def _data() -> dict:
    import json

    from werewolf.engine.ruleset import RULESET_DIR

    return json.loads((RULESET_DIR / f"{L61}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["hooks"].update(out=["no_such_hook"]), "hooks.out"),
        (lambda d: d["hooks"].update(sometime=["lf_out"]), "hooks"),
        (lambda d: d["skills"]["stage"].update(targets="half"), "skills.stage.targets"),
        (lambda d: d["night_steps"][0].update(nights="sometimes"), "night_steps"),
        (lambda d: d.update(first="noon"), "first"),
        (lambda d: d["skills"]["enemy"]["triggers"][0].update(handler="nope"), "skills.enemy"),
        (lambda d: d["victory"]["poison"]["win"][0].update(kind="nope"), "victory.poison"),
        (lambda d: d.update(settlement=["lf_night", "nope"]), "settlement"),
    ],
)
def test_load_ruleset_refuses_unknown_names(change: Any, field: str) -> None:
    from werewolf.engine.ruleset import RulesetError, load_ruleset

    data = _data()
    change(data)
    with pytest.raises(RulesetError) as err:
        load_ruleset(data)
    assert err.value.field.startswith(field)


def test_a_triggers_causes_are_data() -> None:
    """共死 answers every cause but a red card; with its causes set to 投票 alone in the data,
    a 地雷 killed at night takes nobody."""
    from werewolf.engine.ruleset import _REGISTRY, load_ruleset

    from .support_061 import MINE

    data = _data()
    data["skills"]["together"]["triggers"][0]["causes"] = ["投票"]
    changed = load_ruleset(data)
    original = _REGISTRY[L61]
    _REGISTRY[L61] = changed
    try:
        state, _ = play(game(possess=17, hostage=16), [(QUEEN, "kill", MINE)])
        assert [(o.id, o.cause) for o in state.outs] == [(MINE, "杀人")]
    finally:
        _REGISTRY[L61] = original
    state, _ = play(game(possess=17, hostage=16), [(QUEEN, "kill", MINE)])
    assert [(o.id, o.cause) for o in state.outs] == [(MINE, "杀人"), (QUEEN, "共死")]


def test_a_drifter_may_ask_its_faction_once() -> None:
    """不定阵营的角色有且仅有一次机会询问导演，得知当前所属的阵营。"""
    from werewolf.engine import UseSkill, apply_action
    from werewolf.engine.errors import SkillUsedUp

    state = game(possess=QUEEN, hostage=FOX)
    ask = UseSkill(actor=GHOST, skill="ask", targets=())
    state, events = apply_action(state, ask, rng(), 0)
    assert [e.payload["text"] for e in events if e.kind == "feedback"] == ["你当前属于狼人阵营。"]
    with pytest.raises(SkillUsedUp):
        apply_action(state, ask, rng(), 0)


def test_a_drifter_is_not_told_its_faction_on_its_role_card() -> None:
    """当不定阵营附身/遇难的对象所处阵营在游戏中发生转变，不定阵营也会随之转变，但不会收到阵营
    转变的通知。不定阵营的角色有且仅有一次机会询问导演，得知当前所属的阵营。"""
    from werewolf.engine import UseSkill, apply_action, player_view
    from werewolf.engine.draft import open_draft
    from werewolf.engine.lin_feng import convert

    state = game(possess=QUEEN, hostage=FOX)
    assert (faction(state, GHOST), faction(state, HOSTAGE)) == ("wolves", "fox")
    for drifter in (GHOST, HOSTAGE):
        card = player_view(state, drifter)["card"]
        assert (card["faction"], card["faction_name"]) == ("drifter", "不定阵营")
    # the host changes faction: the 幽灵 follows, silently, and its card still says 不定阵营
    d = open_draft(state, rng())
    convert(d, QUEEN, "treasure", "公敌", strip=True)
    state = d.finish()
    assert faction(state, GHOST) == "treasure"
    assert player_view(state, GHOST)["card"]["faction_name"] == "不定阵营"
    # its one question is what tells it
    ask = UseSkill(actor=GHOST, skill="ask", targets=())
    state, events = apply_action(state, ask, rng(), 0)
    assert [e.payload["text"] for e in events if e.kind == "feedback"] == ["你当前属于宝藏阵营。"]
    # everyone else's card names its faction
    assert player_view(state, QUEEN)["card"]["faction_name"] == "宝藏阵营"


def test_the_players_view_shows_its_roster_pack_and_marks() -> None:
    from werewolf.engine import player_view

    state = game(possess=QUEEN, hostage=FOX)
    king = player_view(state, KING)["lin_feng"]
    assert [m["id"] for m in king["roster"]] == [1, 2, 3, 4, GHOST]
    assert [m["id"] for m in king["pack"]] == [KING]
    assert player_view(state, POISONER)["lin_feng"]["marks"] == 0
    assert len(player_view(state, QUEEN)["lin_feng"]["stage"]) == 6  # public: today's 票台
    assert "roster" not in player_view(state, GHOST)["lin_feng"]
