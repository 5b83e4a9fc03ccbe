"""[096] 名侦探柯南: the deal, the 共群 groups, <团队> picks, cooldowns, HP and the flip — each
test a line of the rule post (seats as in ``support_096``)."""

from __future__ import annotations

import pytest

from werewolf.engine import get_ruleset, new_game
from werewolf.engine.conan import flip
from werewolf.engine.draft import open_draft
from werewolf.engine.errors import RulesetNotBuilt

from .support import rng
from .support_096 import (
    C96,
    DRYAD,
    ELVES,
    EXORCIST,
    GOLEM,
    RANGER_A,
    RANGER_B,
    SEATS,
    WOLF_KING,
    WOLVES,
    alive,
    cooldown,
    game,
    play,
)

RULES = get_ruleset(C96)


def test_the_posts_22_characters_and_their_undead_identities() -> None:
    """精灵×7 树妖 独角兽 德鲁伊 游侠×2 · 魔像 巫师 灯神 · 狼人×4 美杜莎 黑龙 · 驱魔人."""
    counts = {r.name: r.count for r in RULES.roles.values() if r.count}
    assert counts == {
        "精灵": 7, "树妖": 1, "独角兽": 1, "德鲁伊": 1, "游侠": 2, "魔像": 1, "巫师": 1,
        "灯神": 1, "狼人": 3, "狼王": 1, "美杜莎": 1, "黑龙": 1, "驱魔人": 1,
    }  # fmt: skip
    undead = {r.name: RULES.roles[r.undead].name if r.undead else "-" for r in RULES.roles.values()
              if r.count}  # fmt: skip
    assert undead == {
        "精灵": "腐尸", "树妖": "腐尸", "独角兽": "-", "德鲁伊": "恶灵", "游侠": "活尸",
        "魔像": "腐尸", "巫师": "死灵法师", "灯神": "恶灵", "狼人": "活尸", "狼王": "活尸",
        "美杜莎": "腐尸", "黑龙": "鬼龙", "驱魔人": "瘟疫尸",
    }  # fmt: skip


def test_every_skill_text_is_the_posts_own() -> None:
    import re
    from pathlib import Path

    post = Path(__file__).resolve().parents[4] / "shared" / "seeds" / "004_19e7f8c196403762.txt"
    if not post.exists():
        pytest.skip("the rule posts are not beside this checkout")
    flat = re.sub(r"\s+", "", post.read_text(encoding="utf-8"))
    missing = [s.name for s in RULES.skills.values() if re.sub(r"\s+", "", s.text) not in flat]
    assert missing == []


def test_it_deals_now_that_it_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """[096] is built: a site game deals it; while a ruleset is being written, only the
    engine's own tests may (``unbuilt``)."""
    from tests.werewolf.players import mark_unbuilt

    chars = [(i, f"P{i}", None) for i in SEATS]
    state, _ = new_game(C96, chars, rng(), roles=SEATS)
    assert len(state.players) == 22
    mark_unbuilt(monkeypatch, C96)
    with pytest.raises(RulesetNotBuilt):
        new_game(C96, chars, rng(), roles=SEATS)
    new_game(C96, chars, rng(), roles=SEATS, unbuilt=True)


def test_groups_from_the_deal_and_hp() -> None:
    """游侠：2人共群; 狼人：4人共群; 树妖初始生命为1."""
    state = game()
    groups = {pid: p.flags["groups"] for pid, p in state.players.items() if p.flags["groups"]}
    assert groups == {RANGER_A: ["rangers"], RANGER_B: ["rangers"],
                      **{w: ["pack"] for w in (*WOLVES, WOLF_KING)}}  # fmt: skip
    assert state.players[DRYAD].counters["hp"] == 1
    assert state.phase == "day"
    assert state.day == 1


def test_a_team_pick_by_one_member_stands_for_all_and_the_latest_counts() -> None:
    """<团队>: 需要在入夜前共同决定一个代表 — any member submits; the latest stands (RULINGS 3)."""
    state = game()
    state, _ = play(state, [(WOLVES[0], "bite", 1), (WOLVES[1], "bite", 2)])
    assert alive(state, 1, 2) == [True, False]


def test_bite_cools_down_a_day_then_recovers() -> None:
    """撕咬：<团队><冷却：1>: used on night 1, not on night 2, again on night 3."""
    from werewolf.engine.errors import StepClosed

    # (藏匿 on an elf: a missed one is drawn, and a drawn 魔像 would 认主 and end the game)
    hide = [(WOLVES[0], "hide", ELVES[3])]
    state, _ = play(game(), [(WOLVES[0], "bite", 1)], day_picks=hide)
    assert cooldown(state, WOLVES[0], "bite") == 1
    with pytest.raises(StepClosed):
        play(state, [(WOLVES[0], "bite", 2)])
    state, _ = play(state)
    assert cooldown(state, WOLVES[0], "bite") == 0
    state, _ = play(state, [(WOLVES[0], "bite", 2)])
    assert alive(state, 2) == [False]


def test_hp_above_one_takes_a_damage_instead_of_an_out() -> None:
    """伤害结算 (4): 生命值大于1的魔像/树妖，此次伤害无效，对应生命值减少1."""
    state = game()
    d = open_draft(state, rng())
    d.wp(GOLEM).counters["hp"] = 2
    state = d.finish()
    state, _ = play(state, [(WOLVES[0], "bite", GOLEM), (EXORCIST, "nine_stars", GOLEM)])
    assert alive(state, GOLEM) == [False]  # the first takes the HP, the second the golem


def test_a_flip_gives_the_undead_identity_and_takes_every_skill() -> None:
    """翻转身份: 失去当前所有身份技能…并获得对应身份的身份技能。亡灵属于亡灵阵营."""
    d = open_draft(game(), rng())
    assert flip(d, ELVES[0], "测试")
    p = d.p(ELVES[0])
    assert (p.role, p.faction, p.skills) == ("corpse", "undead", ("corrupt",))
    assert flip(d, ELVES[0], "测试")  # and back
    assert (d.p(ELVES[0]).role, d.p(ELVES[0]).faction) == ("elf", "elf")


def test_a_flipped_wolf_keeps_the_packs_team_skills_as_a_ghoul() -> None:
    """活尸 伪装：成为活尸后，不会失去原身份的<团队>技能."""
    d = open_draft(game(), rng())
    flip(d, WOLVES[0], "测试")
    p = d.p(WOLVES[0])
    assert p.role == "ghoul"
    assert {"hide", "track", "bite", "gnaw"} <= set(p.skills)
    assert p.flags["groups"] == ["pack", "ghouls"]


def test_a_red_card_puts_the_player_in_idle_still_in_the_game_and_out_of_its_group() -> None:
    """被红牌罚下的角色自动进入挂机状态…属于游戏范畴，允许被选为技能或投票的目标，但不能继续
    …行使特权，且有群的角色从自已所在的群中立即移除."""
    from werewolf.engine import red_card

    from .support_096 import close_at

    state, events = red_card(game(), WOLVES[0], rng(), close_at(game()) - 3600)
    wolf = state.players[WOLVES[0]]
    assert (wolf.alive, wolf.idle, wolf.flags["groups"]) == (True, True, [])
    assert state.outs == ()
    assert [e.payload["text"] for e in events if e.kind == "idle"] == [
        "P16被红牌罚下，进入挂机状态。"
    ]
    state, _ = play(state, [(WOLVES[1], "bite", WOLVES[0])])  # targetable
    assert alive(state, WOLVES[0]) == [False]


def test_a_limited_skill_is_spent_and_a_role_tagged_one_names_each_target_once() -> None:
    """<限定>的技能整局游戏只能发动一次 (穿心箭); <角色>的技能对每个角色只能发动一次 (缠绕)."""
    from werewolf.engine.errors import InvalidTarget, SkillUsedUp

    state, _ = play(game(), [(RANGER_A, "heart_arrow", 1), (DRYAD, "entangle", 2)])
    assert alive(state, 1) == [False]
    with pytest.raises(SkillUsedUp):
        play(state, [(RANGER_A, "heart_arrow", 3)])
    with pytest.raises(InvalidTarget):
        play(state, [(DRYAD, "entangle", 2)])
    state, _ = play(state, [(DRYAD, "entangle", 3)])
    assert state.players[DRYAD].flags["targeted"] == {"entangle": [2, 3]}


def test_an_out_at_the_nights_open_is_announced_with_the_nights_outs() -> None:
    """夜晚出局的角色将在白天开始时公示: the 独角兽 holding the relic is cursed at night 1's open
    and goes out before the flip (光明之魂); the next day's open names it."""
    from .support_096 import UNICORN

    state, events = play(game(), day_picks=[(WOLVES[0], "hide", UNICORN)])
    assert alive(state, UNICORN) == [False]
    (opened,) = [e.payload for e in events if e.kind == "day_open"]
    assert [o["id"] for o in opened["night_out"]] == [UNICORN]
    assert [e.audience.character for e in events if e.kind == "you_are_out"] == [UNICORN]


def test_an_idle_player_may_be_voted_and_an_ethereal_one_still_votes() -> None:
    """挂机状态的角色…允许被选为技能或投票的目标; 虚体: 其视为出局，但仍保留发言权和投票权."""
    from werewolf.engine import apply_action, portal_totals, red_card
    from werewolf.engine.ballot import Vote
    from werewolf.engine.errors import CannotVote

    from .support_096 import close_at

    state, _ = play(game(relic=False))  # day 2: the vote puts the top out
    at = close_at(state) - 7200
    state, _ = red_card(state, ELVES[5], rng(), at)
    d = open_draft(state, rng())
    d.wp(ELVES[6]).alive = False
    d.wp(ELVES[6]).flags["ethereal"] = True  # (its 虚体, after a vote-out)
    state = d.finish()
    state, _ = apply_action(state, Vote(actor=ELVES[0], target=ELVES[5]), rng(), at)
    state, _ = apply_action(state, Vote(actor=ELVES[6], target=ELVES[5]), rng(), at)
    with pytest.raises(CannotVote):
        apply_action(state, Vote(actor=ELVES[5], target=ELVES[0]), rng(), at)  # 挂机: no vote
    assert portal_totals(state) == {ELVES[5]: 2}
    # The forum's vote thread counts the same ballot (VoteModifiers.still_voting).
    from werewolf.engine import vote_modifiers

    assert vote_modifiers(state, state.day).still_voting == {ELVES[6]}


def test_the_nights_trace_begins_with_what_its_open_settled() -> None:
    """The director's draft shows the curse at the open (（1）结算诅咒) and its flip before the
    night's damages."""
    state, _ = play(game(), day_picks=[(WOLVES[0], "hide", ELVES[1])])
    trace = state.flags["history"][-1]["trace"]
    opened = [line["text"] for line in trace if line["step"].startswith("入夜")]
    assert any("翻转身份：精灵→腐尸" in text for text in opened), opened
    assert trace[0]["step"].startswith("入夜")


def test_a_cooling_skill_says_so() -> None:
    """处于冷却的技能无法发动: refused as cooling (skill_cooling), not as a closed step."""
    from werewolf.engine.errors import StepClosed

    state, _ = play(game(relic=False), [(EXORCIST, "nine_stars", ELVES[0])])
    with pytest.raises(StepClosed) as refused:
        play(state, [(EXORCIST, "nine_stars", ELVES[1])])
    assert refused.value.code == "skill_cooling"


def test_the_last_of_the_tower_awakens_and_the_golems_hp_rises_to_3() -> None:
    """<觉醒>技能在成为高塔阵营最后一人时解锁…会收到通知; 暴走：<觉醒> 魔像的生命值提高至3."""
    from werewolf.engine.outcomes import eliminate

    from .support_096 import GENIE, WIZARD

    d = open_draft(game(relic=False), rng())
    eliminate(d, WIZARD, "投票", night=False)
    assert not d.p(GOLEM).flags.get("awakened")  # the 灯神 is still in 高塔
    eliminate(d, GENIE, "投票", night=False)
    golem = d.p(GOLEM)
    assert golem.flags["awakened"] is True
    assert golem.counters["hp"] == 3
    told = [e.payload["text"] for e in d.events if e.kind == "awakened"]
    assert told == ["你成为高塔阵营最后一人，<觉醒>技能解锁：【暴走】。"]


def test_a_wolf_out_frees_the_bite_and_leaves_the_pack() -> None:
    """撕咬：每当狼人群内有角色出局时，该技能解除冷却; 已经出局的有群的角色从自已所在的群中
    立即移除."""
    from werewolf.engine.outcomes import eliminate

    state, _ = play(game(relic=False), [(WOLVES[0], "bite", ELVES[0])])
    assert cooldown(state, WOLVES[1], "bite") == 1
    d = open_draft(state, rng())
    eliminate(d, WOLVES[2], "投票", night=False)
    assert [cooldown(d.finish(), w, "bite") for w in (WOLVES[0], WOLVES[1])] == [0, 0]
    assert d.p(WOLVES[2]).flags["groups"] == []
    assert WOLVES[2] not in {m for m in d.players if "pack" in d.p(m).flags.get("groups", [])}


@pytest.mark.parametrize(("ghouls", "ok"), [(3, True), (2, False)])
def test_swarm_lets_the_gnaw_name_one_more(ghouls: int, ok: bool) -> None:
    """集群：当场上存活的活尸人数≥3时，啃咬可额外选择一名角色 (啃咬：选择对一名角色造成一次伤害)."""
    from games.engine.errors import InvalidInput

    state = game(relic=False)
    d = open_draft(state, rng())
    for w in WOLVES[:ghouls]:
        flip(d, w, "测试")  # 狼人[活尸], 伪装 keeps the pack's skills
    state = d.finish()
    picks = [(WOLVES[0], "gnaw", (ELVES[0], ELVES[1]))]
    if not ok:
        with pytest.raises(InvalidInput):
            play(state, picks)
        return
    state, _ = play(state, picks)
    assert alive(state, ELVES[0], ELVES[1]) == [False, False]


def test_a_wolf_out_the_night_of_a_bite_frees_it_for_the_next_night() -> None:
    """撕咬：每当狼人群内有角色出局时，该技能解除冷却 — the 游侠's 穿心箭 puts a wolf out the night
    the pack bites: the out comes after the use, so night 2 may bite again."""
    state, _ = play(game(relic=False), [(WOLVES[0], "bite", ELVES[0]),
                                        (RANGER_A, "heart_arrow", WOLVES[2])])  # fmt: skip
    assert alive(state, ELVES[0], WOLVES[2]) == [False, False]
    assert cooldown(state, WOLVES[0], "bite") == 0
    state, _ = play(state, [(WOLVES[0], "bite", ELVES[1])])
    assert alive(state, ELVES[1]) == [False]
