"""投票/改票/代投/弃权 as [061] writes them, with [099]/[096]'s parameters and the tie rules."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from fractions import Fraction

import pytest

from games.engine.ballots import (
    Adjust,
    BallotDay,
    BallotPost,
    BallotRules,
    OneVoteEach,
    Reason,
    Tally,
    Verdict,
    VoteModifiers,
    Voter,
    ballot_rules,
    count_ballots,
    parse_ballot_rules,
    public_text,
    register_vote_weights,
    vote_weights_for,
)

BJ = timezone(timedelta(hours=8))
CLOSE = datetime(2026, 11, 3, 21, 0, tzinfo=BJ)
R061 = ballot_rules("lin_feng_061")

# 饺子 begins 饺子皮: each must match only itself.
CAST = (
    Voter(1, "饺子", aliases=("水饺",)),
    Voter(2, "包子"),
    Voter(3, "饺子皮"),
    Voter(4, "馄饨"),
    Voter(5, "汤圆", alive=False),
    Voter(6, "烧卖", idle=True),
    Voter(7, "春卷"),
)


def post(
    floor: int,
    author: int | None,
    text: str,
    *,
    before: float = 300,
    reply: int | None = None,
    director: bool = False,
    edited_before: float | None = None,
) -> BallotPost:
    """Floor ``floor`` by character ``author``, posted ``before`` minutes before the close."""
    return BallotPost(
        floor=floor,
        external_id=f"p{floor}",
        author=author,
        by_director=director,
        posted_at=CLOSE - timedelta(minutes=before),
        text=text,
        reply_to=None if reply is None else f"p{reply}",
        edited_at=None if edited_before is None else CLOSE - timedelta(minutes=edited_before),
    )


def count(
    *posts: BallotPost,
    rules: BallotRules = R061,
    mods: VoteModifiers | None = None,
    sped_up_at: datetime | None = None,
    cast: tuple[Voter, ...] = CAST,
) -> Tally:
    return count_ballots(list(posts), cast, BallotDay(3, CLOSE, sped_up_at), rules, mods)


def at(tally: Tally, floor: int) -> Verdict:
    return next(v for v in tally.verdicts if v.floor == floor)


def why(tally: Tally, floor: int) -> str | None:
    reason = at(tally, floor).reason
    return None if reason is None else reason.code


def totals(tally: Tally) -> dict[str, int | float]:
    return {tally.names[t.character]: float(t.votes) for t in tally.totals}


# --- the formats ---------------------------------------------------------------------------------


def test_both_punctuation_widths_extra_spaces_and_line_breaks_read_alike() -> None:
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：饺子好吃"),
        post(3, 3, "投票对象:饺子\r\n投票理由:半角也行"),
        post(4, 4, "  投票对象 ：  饺子   投票理由 ： 投票对象与投票理由之间可以不换行"),
        post(5, 7, "投票对象：\n\n　饺子　\n\n投票理由：\n\n全角空格和空行"),
    )
    assert [at(tally, f).counted for f in (2, 3, 4, 5)] == [True] * 4
    assert {at(tally, f).target for f in (2, 3, 4, 5)} == {1}
    assert totals(tally) == {"饺子": 4}


def test_a_name_that_begins_another_matches_only_itself_and_aliases_count() -> None:
    tally = count(
        post(2, 2, "投票对象：饺子皮\n投票理由：皮薄"),
        post(3, 4, "投票对象：饺子\n投票理由：馅大"),
        post(4, 7, "投票对象：水饺\n投票理由：导演加的别名"),
    )
    assert at(tally, 2).target == 3
    assert at(tally, 3).target == 1
    assert at(tally, 4).target == 1
    assert totals(tally) == {"饺子": 2, "饺子皮": 1}


def test_an_unknown_name_a_name_with_more_after_it_and_an_ambiguous_alias_are_invalid() -> None:
    ambiguous = (*CAST[:3], Voter(4, "馄饨", aliases=("饺子",)), *CAST[4:])
    tally = count(
        post(2, 2, "投票对象：小笼包\n投票理由：不存在"),
        post(3, 3, "投票对象：饺子 他是狼\n投票理由：理由写进了对象行"),
        post(4, 7, "投票对象：饺子\n投票理由：别名和名字撞了"),
        cast=ambiguous,
    )
    assert [why(tally, f) for f in (2, 3, 4)] == [
        "unknown_target",
        "unknown_target",
        "ambiguous_target",
    ]
    assert tally.totals == ()
    assert tally.outcome.rule == "no_votes"


def test_wrong_formats_are_invalid_and_chatter_is_not_a_ballot() -> None:
    tally = count(
        post(1, None, "投票格式：\n投票对象：饺子\n投票理由：饺子好吃", director=True),
        post(2, 2, "今天投谁好呢"),
        post(3, 3, "投票对象 饺子\n投票理由 没有冒号"),
        post(4, 4, "投票对象：饺子"),
        post(5, 7, "投票对象：\n投票理由：对象空着"),
        post(6, 1, "投票对象：包子\n投票对象：馄饨\n投票理由：两个"),
        post(7, None, "投票对象：饺子\n投票理由：观众"),
    )
    assert [why(tally, f) for f in range(1, 8)] == [
        "director_post",
        "not_ballot",
        "bad_format",
        "no_reason",
        "bad_format",
        "several_ballots",
        "not_a_player",
    ]
    assert [at(tally, f).kind for f in (1, 2)] == ["none", "none"]
    assert tally.totals == ()


def test_an_invalid_ballot_is_corrected_by_a_new_post() -> None:
    """无效票须通过重新发帖来更正."""
    tally = count(
        post(2, 2, "投票对象：小笼包\n投票理由：写错了"),
        post(3, 2, "投票对象：饺子\n投票理由：重新发帖"),
    )
    assert why(tally, 2) == "unknown_target"
    assert at(tally, 3).counted
    assert totals(tally) == {"饺子": 1}


def test_a_second_vote_post_is_not_a_change() -> None:
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：一"),
        post(3, 2, "投票对象：馄饨\n投票理由：二", reply=2),
    )
    assert why(tally, 3) == "already_voted"
    assert totals(tally) == {"饺子": 1}


def test_quoting_someone_elses_ballot_is_not_a_ballot() -> None:
    from games.forum.text import html_to_text

    quoted = html_to_text(
        '<div class="quote"><blockquote><font size="2">'
        '<font color="#999999">包子 发表于 2026-11-3 12:00</font></font><br />'
        "投票对象：馄饨<br />投票理由：他很可疑</blockquote></div><br />我也觉得有道理"
    )
    tally = count(
        post(2, 2, "投票对象：馄饨\n投票理由：他很可疑"),
        post(3, 7, quoted, reply=2),
    )
    assert why(tally, 3) == "not_ballot"
    assert totals(tally) == {"馄饨": 1}
    assert 7 in tally.not_voted


# --- changes -----------------------------------------------------------------------------------


def test_one_change_replying_to_the_original_floor_moves_the_vote() -> None:
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：饺子好吃", before=300),
        post(9, 2, "改票对象：包子\n改票理由：包子也好吃", before=200, reply=2),
    )
    assert at(tally, 9).counted
    assert at(tally, 9).kind == "change"
    assert not at(tally, 2).counted
    assert why(tally, 2) == "changed"
    assert totals(tally) == {"包子": 1}


def test_a_change_without_reply_or_replying_elsewhere_is_invalid_and_the_vote_stays() -> None:
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：一"),
        post(3, 4, "投票对象：饺子\n投票理由：二"),
        post(5, 2, "改票对象：馄饨\n改票理由：没回复"),
        post(6, 2, "改票对象：馄饨\n改票理由：回复了别人的楼", reply=3),
    )
    assert why(tally, 5) == "change_not_reply"
    assert why(tally, 6) == "change_not_reply"
    assert at(tally, 2).counted
    assert totals(tally) == {"饺子": 2}


def test_a_change_without_a_vote_is_invalid() -> None:
    tally = count(
        post(2, 2, "投票对象：小笼包\n投票理由：无效票"),
        post(3, 2, "改票对象：饺子\n改票理由：改一张无效票", reply=2),
    )
    assert why(tally, 3) == "change_without_vote"
    assert tally.totals == ()


def test_only_one_change_is_allowed() -> None:
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：一"),
        post(3, 2, "改票对象：包子\n改票理由：二", reply=2),
        post(4, 2, "改票对象：馄饨\n改票理由：三", reply=2),
        post(5, 2, "改票对象：馄饨\n改票理由：四", reply=3),
    )
    assert at(tally, 3).counted
    assert why(tally, 4) == "second_change"
    assert why(tally, 5) == "change_not_reply"
    assert totals(tally) == {"包子": 1}


def test_no_change_in_the_last_hour_before_the_close() -> None:
    """关门前一小时不允许改票: 61 minutes before is fine, 59 minutes is not."""
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：一", before=300),
        post(3, 4, "投票对象：饺子\n投票理由：一", before=300),
        post(4, 2, "改票对象：包子\n改票理由：赶上了", before=61, reply=2),
        post(5, 4, "改票对象：包子\n改票理由：晚了", before=59, reply=3),
        post(6, 7, "投票对象：馄饨\n投票理由：第一次投票不受限制", before=1),
    )
    assert at(tally, 4).counted
    assert why(tally, 5) == "change_late"
    assert at(tally, 5).reason == Reason("change_late", "关门前60分钟内不允许改票")
    assert at(tally, 6).counted
    assert totals(tally) == {"包子": 1, "饺子": 1, "馄饨": 1}


def test_no_change_once_the_day_is_sped_up() -> None:
    """执行加速时不允许改票; a change made before the speed-up stands."""
    sped = CLOSE - timedelta(minutes=180)
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：一", before=400),
        post(3, 4, "投票对象：饺子\n投票理由：一", before=400),
        post(4, 2, "改票对象：包子\n改票理由：加速前", before=200, reply=2),
        post(5, 4, "改票对象：包子\n改票理由：加速后", before=170, reply=3),
        sped_up_at=sped,
    )
    assert at(tally, 4).counted
    assert why(tally, 5) == "change_sped_up"


def test_061_under_a_speed_up_nobody_changes_a_vote_not_even_by_proxy() -> None:
    """执行加速时，所有人不可改票: a director's 代投 change too."""
    tally = count(
        post(2, 4, "投票对象：饺子\n投票理由：一", before=400),
        post(3, None, "代投：馄饨\n改票对象：包子", director=True, before=100, reply=2),
        sped_up_at=CLOSE - timedelta(minutes=300),
    )
    assert why(tally, 3) == "change_sped_up"
    assert totals(tally) == {"饺子": 1}


def test_061_a_delay_ends_the_speed_up_and_changes_are_allowed_again() -> None:
    """延迟成功时，不再视为“执行加速”状态: a change before the 延时 is refused, one after stands."""
    day = BallotDay(3, CLOSE, CLOSE - timedelta(minutes=600), CLOSE - timedelta(minutes=300))
    posts = [
        post(2, 2, "投票对象：饺子\n投票理由：一", before=700),
        post(3, 4, "投票对象：饺子\n投票理由：一", before=700),
        post(4, 2, "改票对象：包子\n改票理由：加速中", before=400, reply=2),
        post(5, 4, "改票对象：包子\n改票理由：延时后", before=200, reply=3),
    ]
    tally = count_ballots(posts, CAST, day, R061, None)
    assert why(tally, 4) == "change_sped_up"
    assert at(tally, 5).counted
    assert totals(tally) == {"饺子": 1, "包子": 1}


def test_late_ballots_are_invalid_and_an_edited_one_keeps_its_time() -> None:
    """The forum does not say when a post was edited; the sync says when it noticed."""
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：关门时发的", before=0),
        post(3, 4, "投票对象：饺子\n投票理由：关门后发的", before=-1),
        post(4, 7, "投票对象：饺子\n投票理由：改过错字", before=30, edited_before=-10),
    )
    assert why(tally, 2) == "after_close"
    assert why(tally, 3) == "after_close"
    assert at(tally, 4).counted
    assert at(tally, 4).at == CLOSE - timedelta(minutes=30)
    assert at(tally, 4).edited_at == CLOSE + timedelta(minutes=10)


# --- proxies and abstentions ---------------------------------------------------------------------


def test_a_director_proxy_vote_is_recorded_with_its_time() -> None:
    tally = count(
        post(2, None, "代投：馄饨\n投票对象：包子", director=True, before=90),
        post(3, None, "代投人：春卷\n投票对象：弃权\n投票理由：委托弃权", director=True, before=80),
    )
    proxy = at(tally, 2)
    assert (proxy.counted, proxy.proxy, proxy.voter, proxy.target) == (True, True, 4, 2)
    assert proxy.at == CLOSE - timedelta(minutes=90)
    assert tally.abstained == (7,)
    text = public_text(tally, R061)
    assert "2楼 馄饨 → 包子（导演代投，11-03 19:30）" in text
    assert "3楼 春卷 弃权（导演代投，11-03 19:40）" in text


def test_no_proxy_in_the_last_hour_and_only_directors_proxy() -> None:
    tally = count(
        post(2, None, "代投：馄饨\n投票对象：包子", director=True, before=59),
        post(3, 2, "代投：馄饨\n投票对象：饺子\n投票理由：我替他投"),
        post(4, None, "代投：小笼包\n投票对象：饺子", director=True),
    )
    assert why(tally, 2) == "proxy_late"
    assert why(tally, 3) == "proxy_not_director"
    assert why(tally, 4) == "unknown_voter"
    assert tally.totals == ()


def test_099_proxies_stop_30_minutes_before_the_close() -> None:
    """099 玩家须知 9: 导演至少在投票截至的30分钟前发出代投信息."""
    rules = ballot_rules("arknights_099")
    tally = count(
        post(2, None, "代投：馄饨\n投票对象：包子", director=True, before=45),
        post(3, None, "代投：春卷\n投票对象：包子", director=True, before=29),
        rules=rules,
    )
    assert at(tally, 2).counted
    assert why(tally, 3) == "proxy_late"


def test_a_proxy_change_replies_to_the_voters_ballot() -> None:
    tally = count(
        post(2, 4, "投票对象：饺子\n投票理由：本人投票", before=300),
        post(3, None, "代投：馄饨\n改票对象：包子", director=True, before=100, reply=2),
    )
    assert at(tally, 3).counted
    assert totals(tally) == {"包子": 1}


@pytest.mark.parametrize(
    ("ruleset", "proxy", "before", "reason"),
    [
        # 099 玩家须知 9: the player asks an hour before, the director posts 30 minutes before.
        ("arknights_099", True, 61, None),
        ("arknights_099", True, 45, None),
        ("arknights_099", True, 31, None),
        ("arknights_099", True, 30, "proxy_late"),
        ("arknights_099", True, 29, "proxy_late"),
        ("arknights_099", False, 61, None),
        ("arknights_099", False, 45, "change_late"),  # the player's own: the hour stands
        # 061: 关门前一小时不允许改票或代投, a proxy change alike.
        ("lin_feng_061", True, 61, None),
        ("lin_feng_061", True, 60, "proxy_late"),
        ("lin_feng_061", True, 45, "proxy_late"),
        ("lin_feng_061", False, 61, None),
        ("lin_feng_061", False, 45, "change_late"),
    ],
)
def test_a_proxy_change_answers_to_the_proxy_cutoff_and_a_players_to_the_change_cutoff(
    ruleset: str, proxy: bool, before: int, reason: str | None
) -> None:
    rules = ballot_rules(ruleset)
    change = (
        post(3, None, "代投：馄饨\n改票对象：包子", director=True, before=before, reply=2)
        if proxy
        else post(3, 4, "改票对象：包子\n改票理由：想通了", before=before, reply=2)
    )
    tally = count(post(2, 4, "投票对象：饺子\n投票理由：本人投票", before=300), change, rules=rules)
    assert why(tally, 3) == reason
    assert totals(tally) == ({"包子": 1} if reason is None else {"饺子": 1})
    if reason == "proxy_late":
        assert at(tally, 3).reason == Reason(
            "proxy_late", f"关门前{rules.proxy_cutoff}分钟内不允许代投"
        )


def test_abstaining_is_a_ballot_without_a_target() -> None:
    tally = count(
        post(2, 2, "投票对象：弃权\n投票理由：没想好"),
        post(3, 4, "投票对象：饺子\n投票理由：一"),
        post(4, 4, "改票对象：弃权\n改票理由：算了", reply=3),
    )
    assert at(tally, 2).abstain
    assert at(tally, 2).counted
    assert tally.abstained == (2, 4)
    assert tally.totals == ()
    assert set(tally.not_voted) == {1, 3, 7}


# --- who may vote and be voted for ---------------------------------------------------------------


def test_votes_by_or_for_eliminated_or_idle_characters_are_invalid() -> None:
    tally = count(
        post(2, 5, "投票对象：饺子\n投票理由：出局了还投"),
        post(3, 6, "投票对象：饺子\n投票理由：挂机了还投"),
        post(4, 2, "投票对象：汤圆\n投票理由：投给出局的"),
        post(5, 4, "投票对象：烧卖\n投票理由：投给挂机的"),
    )
    assert [why(tally, f) for f in (2, 3, 4, 5)] == [
        "voter_out",
        "voter_idle",
        "target_out",
        "target_idle",
    ]
    assert 5 not in tally.not_voted
    assert 6 not in tally.not_voted


def test_096_idle_characters_may_be_voted_for() -> None:
    """096: 挂机状态的角色…允许被选为技能或投票的目标，但不能继续参与…投票."""
    tally = count(
        post(2, 2, "投票对象：烧卖\n投票理由：挂机也能投"),
        post(3, 6, "投票对象：饺子\n投票理由：挂机的人投票"),
        rules=ballot_rules("conan_096"),
    )
    assert at(tally, 2).counted
    assert why(tally, 3) == "voter_idle"


# --- the tie rules -------------------------------------------------------------------------------


def tied_day(rules: BallotRules, mods: VoteModifiers | None = None) -> Tally:
    """饺子 reaches 2 at floor 4, 包子 at floor 5, then 春卷's change takes 饺子 down and back."""
    return count(
        post(2, 2, "投票对象：饺子\n投票理由：一"),
        post(3, 3, "投票对象：包子\n投票理由：一"),
        post(4, 7, "投票对象：饺子\n投票理由：一"),
        post(5, 4, "投票对象：包子\n投票理由：一"),
        rules=rules,
        mods=mods,
    )


def test_a_tie_goes_to_the_first_to_reach_the_top() -> None:
    """256/252: 平票则最先到达最高票的玩家记为最高票."""
    tally = tied_day(ballot_rules("islington_256"))
    assert [(t.character, t.since) for t in tally.totals] == [(1, 4), (2, 5)]
    assert tally.outcome.character == 1
    assert tally.outcome.tied == (1, 2)


def test_first_to_reach_the_top_counts_from_the_last_time_it_got_there() -> None:
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：一"),
        post(3, 3, "投票对象：包子\n投票理由：一"),
        post(4, 2, "改票对象：馄饨\n改票理由：二", reply=2),
        post(5, 7, "投票对象：饺子\n投票理由：三"),
        rules=ballot_rules("islington_256"),
    )
    assert [(tally.names[t.character], t.since) for t in tally.totals] == [
        ("包子", 3),
        ("馄饨", 4),
        ("饺子", 5),
    ]
    assert tally.outcome.character == 2


def test_099_a_tie_puts_the_monk_out_and_nobody_once_he_is_out() -> None:
    """099: 平票则高僧出局; RULINGS werewolf 2: nobody when the 高僧 is already out."""
    rules = ballot_rules("arknights_099")
    monk = tied_day(rules, VoteModifiers(role_holders={"高僧": 3}))
    assert (monk.outcome.character, monk.outcome.rule) == (3, "role_out")
    assert "高僧饺子皮出局" in monk.outcome.text
    gone = tied_day(rules, VoteModifiers(role_holders={"高僧": 5}))
    assert gone.outcome.character is None
    assert "高僧已出局，无人出局" in gone.outcome.text
    unknown = tied_day(rules)
    assert unknown.outcome.character is None
    assert unknown.outcome.text == "平票（饺子、包子），高僧出局（由导演执行）"


def test_099_a_tie_puts_nobody_out_when_the_kind_says_nobody_holds_the_monks_role() -> None:
    """The kind names the role with None: the 高僧 is out or has lost 献身 (RULINGS werewolf 2),
    as the werewolf engine rules it; the director has nothing to carry out."""
    tally = tied_day(ballot_rules("arknights_099"), VoteModifiers(role_holders={"高僧": None}))
    assert (tally.outcome.character, tally.outcome.rule) == (None, "role_out")
    assert tally.outcome.text == "平票（饺子、包子），高僧已出局或失去[献身]，无人出局"
    assert "由导演执行" not in public_text(tally, ballot_rules("arknights_099"))


def test_061_a_tie_puts_nobody_out_and_revote_asks_the_director() -> None:
    assert tied_day(R061).outcome.character is None
    assert tied_day(R061).outcome.rule == "nobody"
    revote = tied_day(BallotRules(tie="revote"))
    assert (revote.outcome.character, revote.outcome.rule) == (None, "revote")


def test_a_single_top_needs_no_tie_rule() -> None:
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：一"),
        post(3, 3, "投票对象：饺子\n投票理由：一"),
        post(4, 4, "投票对象：包子\n投票理由：一"),
        rules=ballot_rules("arknights_099"),
    )
    assert (tally.outcome.character, tally.outcome.rule) == (1, "top")


# --- weights and modifiers of a game kind --------------------------------------------------------


class Werewolfish:
    """A stand-in for issue 7's werewolf provider: one day's modifiers as plain data."""

    def modifiers(self, game_id: int, day: int) -> VoteModifiers:
        secret = Reason("dominion", "独尊：对野心家的投票无效", public=False)
        return VoteModifiers(
            weights={2: Adjust(Fraction(3, 2), "警长"), 3: Adjust(Fraction(3), "龙威")},
            multipliers={4: Adjust(Fraction(2), "诅咒")},
            void_voters={7: Reason("petrified", "石化：投票无效")},
            void_pairs={(1, 3): secret},
            immune={1: Reason("platform", "票台：不可被投票出局")},
            still_voting=frozenset({5}),
        )


def test_a_kinds_weights_and_modifiers_apply() -> None:
    mods = Werewolfish().modifiers(1, 3)
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：警长1.5票"),
        post(3, 3, "投票对象：饺子\n投票理由：龙威3票"),
        post(4, 4, "投票对象：饺子皮\n投票理由：一票"),
        post(5, 5, "投票对象：馄饨\n投票理由：虚体出局仍可投票"),
        post(6, 7, "投票对象：馄饨\n投票理由：石化了"),
        post(7, 1, "投票对象：饺子皮\n投票理由：独尊"),
        mods=mods,
    )
    assert totals(tally) == {"饺子": 4.5, "馄饨": 2, "饺子皮": 1}
    assert why(tally, 6) == "petrified"
    assert why(tally, 7) == "dominion"
    assert at(tally, 2).weight == Fraction(3, 2)
    # 饺子 is on the 票台: the top is the next one, 馄饨 (its one vote doubled by the curse).
    assert tally.totals[0].immune is not None
    assert tally.outcome.character == 4
    assert 7 not in tally.not_voted


def test_the_public_tally_hides_totals_weights_and_secret_reasons() -> None:
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：警长"),
        post(3, 1, "投票对象：饺子皮\n投票理由：独尊"),
        post(4, 7, "投票对象：馄饨\n投票理由：石化"),
        post(5, 4, "投票对象：小笼包\n投票理由：写错"),
        post(6, 3, "投票对象：馄饨\n投票理由：一"),
        mods=Werewolfish().modifiers(1, 3),
    )
    text = public_text(tally, R061)
    assert text.splitlines()[:2] == ["【第3天投票结果】", "最高票：馄饨"]
    assert "3楼 饺子 → 饺子皮" in text  # the 独尊 ballot reads as cast
    assert "独尊" not in text
    assert "4楼 春卷：石化：投票无效" in text
    assert "5楼 馄饨：投票对象不是本局角色" in text
    assert "1.5" not in text
    assert "警长" not in text


def test_royale_publishes_each_candidates_total_at_the_close_and_no_voter() -> None:
    """256: 统计投票结果并公布 (RULINGS 30) — the top and each candidate's weighted total once
    the day has closed, never who voted whom; before the close, the top alone."""
    rules = ballot_rules("islington_256")
    tally = count(post(2, 2, "投票对象：饺子\n投票理由：一"), rules=rules)
    text = public_text(tally, rules)
    assert text == "【第3天投票结果】\n最高票：饺子\n\n候选人票数：\n饺子 1 票"
    assert tally.names[2] not in text
    early = public_text(tally, rules, as_of=CLOSE - timedelta(hours=1))
    assert early.endswith("】\n最高票：饺子")


def test_kinds_register_their_weights_once_and_others_get_one_vote_each() -> None:
    assert isinstance(vote_weights_for("no-such-kind"), OneVoteEach)
    assert vote_weights_for("no-such-kind").modifiers(1, 2) == VoteModifiers()
    provider = Werewolfish()
    register_vote_weights("test-werewolfish", provider)
    register_vote_weights("test-werewolfish", provider)
    assert vote_weights_for("test-werewolfish") is provider
    with pytest.raises(ValueError, match="twice"):
        register_vote_weights("test-werewolfish", Werewolfish())


# --- the rules file and the record ---------------------------------------------------------------


def test_the_rules_file_holds_each_rulesets_parameters() -> None:
    assert ballot_rules("arknights_099") == BallotRules(
        tie="role_out", tie_role="高僧", tie_skill="献身", proxy_cutoff=30
    )
    assert ballot_rules("conan_096").idle_targetable
    assert ballot_rules("kimetsu_252").publish == "totals"
    assert ballot_rules("unknown") == BallotRules()


def test_a_rules_file_with_a_typo_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown ballot rule fields"):
        parse_ballot_rules({"x": {"tie_rule": "nobody"}})
    with pytest.raises(ValueError, match="unknown tie rule"):
        parse_ballot_rules({"x": {"tie": "coin"}})
    with pytest.raises(ValueError, match="publish"):
        parse_ballot_rules({"x": {"publish": "all"}})
    with pytest.raises(ValueError, match="change_cutoff must be"):
        parse_ballot_rules({"x": {"change_cutoff": "60"}})


def test_the_tally_survives_a_json_round_trip() -> None:
    tally = count(
        post(2, 2, "投票对象：饺子\n投票理由：警长"),
        post(3, 4, "投票对象：饺子皮\n投票理由：诅咒"),
        post(4, 2, "改票对象：馄饨\n改票理由：一", reply=2),
        post(5, None, "代投：春卷\n投票对象：弃权", director=True),
        mods=Werewolfish().modifiers(1, 3),
    )
    data = tally.to_json()
    assert json.loads(json.dumps(data, ensure_ascii=False)) == data
    assert data["outcome"]["name"] == "馄饨"
    assert data["weights"]["2"] == {"value": 1.5, "why": "警长"}
    assert [p["floor"] for p in data["posts"]] == [2, 3, 4, 5]
    assert data["posts"][0]["reason"] == {
        "code": "changed",
        "text": "已改票（4楼）",
        "public": True,
    }
