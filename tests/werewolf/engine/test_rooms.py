"""Who talks with whom, as the posts say: the rooms a role game's state holds.

[099] 导演会为狼人阵营建立一个QQ群 · 已经出局的狼群中的角色仍然留在狼群.
[061] 狼人阵营除了特殊技能外，不互知也不共群 · <统领>: 该角色加入狼群 · 妖狐/毒士 互知但不共群.
[096] 标明<团队>的技能拥有者互知共群 · 活尸 共群 · 有群的角色从自已所在的群中立即移除 (out, 挂机).
"""

from __future__ import annotations

from werewolf.engine import red_card
from werewolf.engine.conan import flip
from werewolf.engine.draft import open_draft
from werewolf.engine.rooms import rooms

from . import support, support_061, support_096
from .support import WOLVES, edit, rng


def by_name(state):
    return {r.name: r.members for r in rooms(state)}


def test_099_wolves_share_the_pack_from_the_start_and_the_dead_stay():
    state = support.open_night(support.game())
    assert by_name(state) == {"狼群": frozenset(WOLVES)}
    dead = edit(state, 1, alive=False)
    assert by_name(dead)["狼群"] == frozenset(WOLVES)


def test_099_no_room_before_the_start():
    # Until the start the deal is the director's (调整身份): no room may tell a role.
    assert rooms(support.game()) == []


def test_099_a_red_carded_wolf_leaves_the_pack():
    state = support.open_night(support.game())
    sent_off, _ = red_card(state, 2, rng(), support.close_at(state) - 3600)
    assert by_name(sent_off)["狼群"] == frozenset({1, 3, 4})


def test_061_only_the_pack_the_king_builds_is_a_room():
    state = support_061.game()
    assert by_name(state) == {"狼群": frozenset({support_061.KING})}
    state, _ = support_061.play(state, [(support_061.KING, "command", (support_061.HUNTER, 13))])
    assert by_name(state) == {"狼群": frozenset({support_061.KING, support_061.HUNTER})}
    # 妖狐阵营的角色互知但不共群: a roster, no room
    assert all(r.name == "狼群" for r in rooms(state))


def test_096_each_team_group_is_a_room():
    assert by_name(support_096.game()) == {
        "游侠群": frozenset({support_096.RANGER_A, support_096.RANGER_B}),
        "狼群": frozenset({*support_096.WOLVES, support_096.WOLF_KING}),
    }


def test_096_a_ranger_turned_ghoul_joins_the_ghouls_and_keeps_its_team():
    """活尸 共群 · 伪装：成为活尸后，不会失去原身份的<团队>技能 (so it stays in 游侠群)."""
    d = open_draft(support_096.game(), rng())
    flip(d, support_096.RANGER_A, "测试")
    groups = by_name(d.finish())
    assert groups["游侠群"] == frozenset({support_096.RANGER_A, support_096.RANGER_B})
    assert groups["活尸群"] == frozenset({support_096.RANGER_A})


def test_096_idle_takes_a_member_out_of_its_group():
    state = support_096.game()
    idle, _ = red_card(state, support_096.WOLVES[0], rng(), support_096.close_at(state) - 3600)
    assert support_096.WOLVES[0] not in by_name(idle)["狼群"]
