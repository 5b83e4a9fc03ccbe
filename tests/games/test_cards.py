"""判罚 in the shell: cards proposed at the day's close, cards by hand, the staff's review, the
ledger's escalation, red cards through each kind, and 加速/延时."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from games import card_services as cs
from games import services
from games.engine.activity import PaceKindNotAllowed
from games.engine.cards import CardColorNotAllowed, UnknownViolation
from games.engine.errors import InvalidInput, WrongPhase
from games.models import (
    Card,
    CardStatus,
    Character,
    CharacterStatus,
    DayPace,
    Event,
    ForumPost,
    ForumThread,
    Game,
    SpeedRequest,
)
from tests.conftest import START, bj, make_game

pytestmark = pytest.mark.django_db

NAMES = ("阿米娅", "陈", "能天使", "德克萨斯")


def werewolf_game(ruleset: str = "arknights_099", number: str = "099") -> Game:
    game = services.game_create(
        kind="werewolf",
        ruleset=ruleset,
        number=number,
        title="明日方舟",
        start_date=START,
        status="running",
    )
    # The pace tests count in one-date days; [061]'s default two-date days (and their weekend
    # day) are the timetable's tests' subject.
    Game.objects.filter(pk=game.pk).update(day_span=1, weekend_extra=False)
    game.refresh_from_db()
    Character.objects.bulk_create(
        Character(game=game, name=n, forum_uid=str(100 + i)) for i, n in enumerate(NAMES)
    )
    return game


def ids(game: Game) -> dict[str, int]:
    return dict(Character.objects.filter(game=game).values_list("name", "pk"))


def thread(game: Game, day: int, kind: str) -> ForumThread:
    tid = f"{kind}-{game.pk}-{day}"
    return ForumThread.objects.get_or_create(game=game, day=day, kind=kind, external_id=tid)[0]


_floors: dict[int, int] = {}


def post(
    t: ForumThread, name: str | None, at: dt.datetime, text: str = "发言", **extra: Any
) -> ForumPost:
    floor = _floors.get(t.pk, 1) + 1
    _floors[t.pk] = floor
    character = Character.objects.get(game=t.game, name=name) if name else None
    return ForumPost.objects.create(
        thread=t,
        external_id=f"p{t.pk}-{floor}",
        floor=floor,
        author=name or "[099]导演A",
        author_uid=character.forum_uid if character else "1",
        character=character,
        by_director=name is None,
        posted_at=at,
        text=text,
        content_hash="-",
        **extra,
    )


def posts(t: ForumThread, name: str, n: int, at: dt.datetime) -> None:
    for i in range(n):
        post(t, name, at + dt.timedelta(minutes=i))


def close_day(day: int) -> None:
    """Run the scheduler past the day's close (21:00 北京时间)."""
    services.transitions_run_due(now=bj(day, 21, 1))


def cards(game: Game, **filters: Any) -> list[tuple[str, str, str, str]]:
    rows = Card.objects.filter(game=game, **filters).select_related("character").order_by("id")
    return [(c.character.name, c.color, c.reason, c.status) for c in rows]


# --- proposals at the close -------------------------------------------------------------------


def test_099_close_proposes_yellow_for_under_five_posts_and_no_vote() -> None:
    game = werewolf_game()
    talk, vote = thread(game, 1, "discussion"), thread(game, 1, "vote")
    posts(talk, "阿米娅", 4, bj(1, 10))
    posts(talk, "陈", 5, bj(1, 10))
    posts(talk, "能天使", 12, bj(1, 10))
    posts(talk, "德克萨斯", 7, bj(1, 10))
    for name in ("阿米娅", "能天使", "德克萨斯"):
        post(vote, name, bj(1, 12), "投票对象：陈\n投票理由：发言太少")
    post(talk, None, bj(1, 9), "导演开门")  # a director's post counts for nobody
    posts(talk, "陈", 3, bj(1, 21, 0, 30))  # after the close: too late

    close_day(1)

    assert cards(game) == [
        ("阿米娅", "yellow", "5.1", "proposed"),
        ("陈", "yellow", "5.2", "proposed"),
    ]
    first = Card.objects.get(game=game, reason="5.1")
    assert first.facts == {"posts": 4, "sped_up": False, "min_posts": 5}
    assert first.source == "proposed"
    proposed = Event.objects.get(game=game, kind="cards_proposed")
    assert proposed.audience == "directors"
    assert [c["name"] for c in proposed.payload["cards"]] == ["阿米娅", "陈"]
    # nothing public about a proposal
    assert not Event.objects.filter(game=game, audience="public", kind__startswith="card").exists()


def test_a_proxy_vote_is_a_vote_and_a_malformed_ballot_is_not() -> None:
    game = werewolf_game()
    talk, vote = thread(game, 1, "discussion"), thread(game, 1, "vote")
    for name in NAMES:
        posts(talk, name, 5, bj(1, 10))
    post(vote, "阿米娅", bj(1, 12), "投票对象：陈\n投票理由：发言太少")
    post(vote, "能天使", bj(1, 12), "投票对象：弃权\n投票理由：没想好")
    post(vote, None, bj(1, 13), "代投：陈\n投票对象：能天使")
    post(vote, "德克萨斯", bj(1, 14), "我投陈")
    close_day(1)
    assert cards(game) == [("德克萨斯", "yellow", "5.2", "proposed")]


def test_proposing_again_adds_nothing(director: Any) -> None:
    game = werewolf_game()
    thread(game, 1, "discussion")
    close_day(1)
    assert len(cards(game)) == 4
    assert cs.cards_propose_again(game=game, day=1, director=director) == 0
    assert len(cards(game)) == 4


def test_a_day_without_a_discussion_thread_proposes_nothing() -> None:
    game = werewolf_game()
    close_day(1)
    assert cards(game) == []


def test_sped_up_day_proposes_nothing() -> None:
    game = werewolf_game()
    thread(game, 1, "discussion")
    DayPace.objects.create(game=game, day=1, pace="sped_up", since=bj(1, 12))
    close_day(1)
    assert cards(game) == []


def test_256_close_proposes_yellow_below_one_post() -> None:
    game = make_game("256", characters=("甲", "乙"))
    talk = thread(game, 1, "discussion")
    post(talk, "甲", bj(1, 8))
    post(thread(game, 1, "vote"), None, bj(1, 8))  # 256 asks for no vote
    close_day(1)
    assert cards(game) == [("乙", "yellow", "posts", "proposed")]


def test_096_three_quiet_days_in_a_row() -> None:
    game = werewolf_game("conan_096", "096")
    for day in (1, 2, 3):
        talk = thread(game, day, "discussion")
        for name in NAMES:
            posts(talk, name, 9 if name == "陈" else 10, bj(day, 10))
        close_day(day)
        services.transitions_run_due(now=bj(day + 1, 0, 1))  # through the night to day open
    assert cards(game) == [("陈", "yellow", "5.2", "proposed")]
    assert Card.objects.get(game=game).facts["streak"] == [9, 9, 9]


def test_history_counts_each_days_posts_before_its_close_and_tallies_only_today(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = werewolf_game()
    for day in (1, 2, 3):
        talk, vote = thread(game, day, "discussion"), thread(game, day, "vote")
        posts(talk, "陈", day, bj(day, 10))
        posts(talk, "陈", 2, bj(day, 21, 0, 30))  # after that day's close: not counted
        post(vote, "陈", bj(day, 12), "投票对象：阿米娅\n投票理由：太安静")
    tallied: list[int] = []
    real = cs.ballots.ballot_tally

    def counting(*, game: Game, day: int) -> Any:
        tallied.append(day)
        return real(game=game, day=day)

    monkeypatch.setattr(cs.ballots, "ballot_tally", counting)
    history = cs.activity_history(game, 3)
    chen = ids(game)["陈"]
    assert [(a.day, a.count(chen)) for a in history] == [(1, 1), (2, 2), (3, 3)]
    assert tallied == [3]  # earlier days are read only for runs of quiet days
    assert [a.voted is None for a in history] == [True, True, False]
    assert history[-1].voted is not None
    assert chen in history[-1].voted


def test_the_dead_are_not_asked_to_post() -> None:
    game = werewolf_game()
    thread(game, 1, "discussion")
    Character.objects.filter(game=game, name="陈").update(status="eliminated", eliminated_day=0)
    Character.objects.filter(game=game, name="能天使").update(idle=True)
    close_day(1)
    assert {name for name, *_ in cards(game)} == {"阿米娅", "德克萨斯"}


# --- cards by hand ----------------------------------------------------------------------------


def test_director_adds_a_card_from_the_catalogue(director: Any) -> None:
    game = werewolf_game()
    chen = Character.objects.get(game=game, name="陈")
    card = cs.card_add(
        game=game, director=director, character=chen, color="blue", reason="4.2", note="提到了 088"
    )
    assert (card.status, card.source, card.day, card.director) == (
        "proposed",
        "manual",
        1,
        director,
    )
    event = Event.objects.get(game=game, kind="card_added")
    assert event.audience == "directors"
    assert event.payload["note"] == "提到了 088"
    assert event.payload["reason_text"] == "马甲 4.2：禁止提及过去场次"


def test_a_card_for_a_character_already_out(director: Any) -> None:
    game = werewolf_game()
    chen = Character.objects.get(game=game, name="陈")
    chen.status = CharacterStatus.ELIMINATED
    chen.save()
    assert cs.card_add(game=game, director=director, character=chen, color="red", reason="6.1")


def test_card_by_hand_refusals_change_nothing(director: Any) -> None:
    game = werewolf_game("conan_096", "096")
    chen = Character.objects.get(game=game, name="陈")
    with pytest.raises(CardColorNotAllowed):
        cs.card_add(game=game, director=director, character=chen, color="blue", reason="5.1")
    with pytest.raises(CardColorNotAllowed):  # 黄牌起步
        cs.card_add(game=game, director=director, character=chen, color="blue", reason="2.7")
    with pytest.raises(UnknownViolation):
        cs.card_add(game=game, director=director, character=chen, color="blue", reason="99.1")
    other = werewolf_game("arknights_099", "099")
    with pytest.raises(InvalidInput):
        cs.card_add(
            game=other,
            director=director,
            character=chen,
            color="blue",
            reason="3.1",
        )
    assert Card.objects.count() == 0
    assert not Event.objects.filter(kind="card_added").exists()


# --- review and the ledger --------------------------------------------------------------------


def add(game: Game, director: Any, name: str, color: str, reason: str = "12.3") -> Card:
    character = Character.objects.get(game=game, name=name)
    return cs.card_add(
        game=game, director=director, character=character, color=color, reason=reason
    )


def test_confirmed_card_is_public_without_its_note(director: Any, staff: Any) -> None:
    game = werewolf_game()
    card = add(game, director, "陈", "blue")
    Card.objects.filter(pk=card.pk).update(note="私聊里骂了人")
    result = cs.cards_review(cards=[card], reviewer=staff, confirm=True, reason="属实")
    assert [c.pk for c in result.reviewed] == [card.pk]
    card.refresh_from_db()
    assert (card.status, card.reviewer, card.review_reason) == ("confirmed", staff, "属实")
    public = Event.objects.get(game=game, kind="card", audience="public")
    assert public.payload["name"] == "陈"
    assert public.payload["color"] == "blue"
    assert "私聊" not in str(public.payload)


def test_rejected_card_stays_out_of_the_ledger(director: Any, staff: Any) -> None:
    game = werewolf_game()
    card = add(game, director, "陈", "yellow")
    cs.cards_review(cards=[card.pk], reviewer=staff, confirm=False, reason="不构成违规（绿牌）")
    card.refresh_from_db()
    assert card.status == CardStatus.REJECTED
    assert not Event.objects.filter(game=game, audience="public", kind="card").exists()
    reviewed = Event.objects.get(game=game, kind="cards_reviewed")
    assert (reviewed.reason, reviewed.payload["confirmed"]) == ("不构成违规（绿牌）", False)


def test_review_needs_a_reason(director: Any, staff: Any) -> None:
    game = werewolf_game()
    card = add(game, director, "陈", "yellow")
    with pytest.raises(InvalidInput):
        cs.cards_review(cards=[card], reviewer=staff, confirm=True, reason="  ")
    card.refresh_from_db()
    assert card.status == "proposed"


def test_reviewed_twice_is_skipped(director: Any, staff: Any) -> None:
    game = werewolf_game()
    card = add(game, director, "陈", "yellow")
    cs.cards_review(cards=[card], reviewer=staff, confirm=False, reason="a")
    again = cs.cards_review(cards=[card], reviewer=staff, confirm=True, reason="b")
    assert (again.reviewed, [c.pk for c in again.skipped]) == ([], [card.pk])
    card.refresh_from_db()
    assert (card.status, card.review_reason) == ("rejected", "a")


def test_three_blue_make_a_yellow(director: Any, staff: Any) -> None:
    game = werewolf_game()
    blues = [add(game, director, "陈", "blue") for _ in range(3)]
    result = cs.cards_review(cards=blues[:2], reviewer=staff, confirm=True, reason="属实")
    assert result.made == []
    result = cs.cards_review(cards=blues[2:], reviewer=staff, confirm=True, reason="属实")
    [yellow] = result.made
    assert (yellow.color, yellow.source, yellow.status) == ("yellow", "escalation", "confirmed")
    assert yellow.facts == {"from": [b.pk for b in blues]}
    assert set(Card.objects.filter(merged_into=yellow)) == set(blues)
    made = Event.objects.filter(game=game, kind="card", audience="public").last()
    assert made is not None
    assert made.payload["reason_text"] == "累计三张蓝牌合并"
    assert made.payload["from"] == [b.pk for b in blues]


def test_099_three_yellow_make_a_red_and_send_off(director: Any, staff: Any) -> None:
    game = werewolf_game()
    yellows = [add(game, director, "陈", "yellow") for _ in range(3)]
    result = cs.cards_review(cards=yellows, reviewer=staff, confirm=True, reason="属实")
    [red] = result.made
    assert red.color == "red"
    red.refresh_from_db()
    assert red.effect == "红牌罚下：出局。"
    chen = Character.objects.get(game=game, name="陈")
    assert (chen.status, chen.cause, chen.death_public) == ("eliminated", "红牌罚下", True)
    announced = Event.objects.get(game=game, kind="red_card")
    assert announced.audience == "public"
    assert announced.payload == {"character": chen.pk, "name": "陈", "effect": "eliminate"}


def test_096_red_card_makes_the_character_idle(director: Any, staff: Any) -> None:
    game = werewolf_game("conan_096", "096")
    card = add(game, director, "陈", "red", "8.1")
    cs.cards_review(cards=[card], reviewer=staff, confirm=True, reason="属实")
    chen = Character.objects.get(game=game, name="陈")
    assert (chen.status, chen.idle) == ("alive", True)
    card.refresh_from_db()
    assert card.effect == "红牌罚下：进入挂机状态（仍属于游戏范畴）。"


def test_red_card_for_a_character_already_out_changes_nothing(director: Any, staff: Any) -> None:
    game = werewolf_game()
    Character.objects.filter(game=game, name="陈").update(status="eliminated", cause="投票")
    card = add(game, director, "陈", "red", "12.3")
    cs.cards_review(cards=[card], reviewer=staff, confirm=True, reason="已出局角色仍可被判罚")
    chen = Character.objects.get(game=game, name="陈")
    assert chen.cause == "投票"
    card.refresh_from_db()
    assert card.effect == "角色已出局或挂机，无需执行。"
    assert not Event.objects.filter(game=game, kind="red_card").exists()


def test_bulk_review_across_games(director: Any, staff: Any) -> None:
    a, b = werewolf_game(), werewolf_game("conan_096", "096")
    picked = [add(a, director, "陈", "blue"), add(b, director, "能天使", "yellow", "2.1")]
    result = cs.cards_review(cards=picked, reviewer=staff, confirm=True, reason="批量确认")
    assert len(result.reviewed) == 2
    assert Event.objects.filter(kind="cards_reviewed").count() == 2


def test_director_decides_whether_the_faction_loses(director: Any, staff: Any) -> None:
    game = werewolf_game()
    card = add(game, director, "陈", "red")
    with pytest.raises(cs.NoFactionDecision):
        cs.card_faction_decide(card=card, director=director, loses=True, reason="恶意")
    cs.cards_review(cards=[card], reviewer=staff, confirm=True, reason="属实")
    cs.card_faction_decide(card=card, director=director, loses=False, reason="非恶意")
    card.refresh_from_db()
    assert (card.faction_loses, card.faction_decided_by, card.faction_reason) == (
        False,
        director,
        "非恶意",
    )
    decided = Event.objects.get(game=game, kind="faction_decision")
    assert (decided.audience, decided.payload["loses"]) == ("directors", False)


def test_royale_red_card_goes_through_the_engine_and_replays(director: Any, staff: Any) -> None:
    from royale import services as royale_services
    from tests.royale.conftest import royale_game, state_of

    game = royale_game("256", ("甲", "乙", "丙"))
    card = add(game, director, "乙", "red", "malicious")
    cs.cards_review(cards=[card], reviewer=staff, confirm=True, reason="恶意破坏")
    yi = Character.objects.get(game=game, name="乙")
    assert (yi.status, yi.cause, yi.death_public) == ("eliminated", "红牌", True)
    assert not state_of(game).characters[yi.pk].alive
    assert Event.objects.filter(game=game, kind="red_card", audience="public").exists()
    replayed = royale_services.royale_replay(game=Game.objects.get(pk=game.pk))
    assert replayed is not None
    assert replayed.to_json() == state_of(game).to_json()


# --- 加速 / 延时 ------------------------------------------------------------------------------


def open_day(game: Game, day: int = 1) -> None:
    services.transitions_run_due(now=bj(day, 0, 1))
    game.refresh_from_db()
    assert (game.day, game.phase) == (day, "day")


def test_061_speed_up_from_the_progress_thread() -> None:
    game = werewolf_game("lin_feng_061", "061")
    open_day(game)
    progress = thread(game, 1, "progress")
    post(progress, "阿米娅", bj(1, 9), "申请加速")
    post(progress, "阿米娅", bj(1, 9, 5), "申请加速！")  # once per character
    assert cs.paces_update(now=bj(1, 10)) == 0
    post(progress, "陈", bj(1, 11), "同意加速")
    assert cs.paces_update(now=bj(1, 12)) == 1  # 2 of 4 living: at least half
    pace = DayPace.objects.get(game=game, day=1)
    assert (pace.pace, pace.since) == ("sped_up", bj(1, 11))
    public = Event.objects.get(game=game, kind="pace", audience="public")
    assert public.payload["speed_up"] == 2
    assert "speed_up_by" not in public.payload
    assert SpeedRequest.objects.filter(game=game).count() == 2


def test_099_needs_more_than_half_and_counts_until_the_close() -> None:
    game = werewolf_game()
    open_day(game)
    progress = thread(game, 1, "progress")
    post(progress, "阿米娅", bj(1, 9), "申请加速")
    post(progress, "陈", bj(1, 10), "申请加速")
    post(progress, "能天使", bj(1, 21, 0), "申请加速")  # at the close: too late
    cs.paces_update(now=bj(1, 20, 59))
    assert not DayPace.objects.filter(game=game).exists()
    post(progress, "德克萨斯", bj(1, 20, 59), "申请加速")  # 099 sets no earlier cut-off
    cs.paces_update(now=bj(1, 20, 59, 30))
    pace = DayPace.objects.get(game=game)
    assert (pace.pace, pace.since) == ("sped_up", bj(1, 20, 59))


def test_099_has_no_delay_on_the_forum() -> None:
    game = werewolf_game()
    open_day(game)
    progress = thread(game, 1, "progress")
    for name in ("阿米娅", "陈", "能天使"):
        post(progress, name, bj(1, 9), "申请加速")
    for name in NAMES:
        post(progress, name, bj(1, 10), "申请延时")  # not a request in 099
    post(progress, "德克萨斯", bj(1, 11), "申请延迟")
    assert cs.paces_update(now=bj(1, 12)) == 1
    assert DayPace.objects.get(game=game).pace == "sped_up"
    assert set(SpeedRequest.objects.filter(game=game).values_list("kind", flat=True)) == {
        "speed_up"
    }
    public = Event.objects.get(game=game, kind="pace", audience="public")
    assert (public.payload["speed_up"], public.payload["delay"]) == (3, 0)


def test_099_refuses_a_delay_on_the_portal_and_ignores_stored_ones() -> None:
    game = werewolf_game()
    open_day(game)
    me = Character.objects.get(game=game, name="陈")
    with pytest.raises(PaceKindNotAllowed) as refused:
        cs.pace_request(game=game, character=me, kind="delay", now=bj(1, 9))
    assert refused.value.code == "pace_kind_not_allowed"
    assert "没有延时" in refused.value.text
    assert not SpeedRequest.objects.filter(game=game).exists()
    assert not Event.objects.filter(game=game, kind="pace_requested").exists()
    # rows of a kind the rules lack (stored before) never make a pace
    SpeedRequest.objects.bulk_create(
        SpeedRequest(game=game, day=1, character=c, kind="delay", requested_at=bj(1, 9))
        for c in Character.objects.filter(game=game)
    )
    for name in ("阿米娅", "陈", "能天使"):
        character = Character.objects.get(game=game, name=name)
        cs.pace_request(game=game, character=character, kind="speed_up", now=bj(1, 20, 30))
    assert DayPace.objects.get(game=game).pace == "sped_up"
    assert cs.paces_update(now=bj(1, 20, 40)) == 0


def test_portal_request_and_its_refusals() -> None:
    game = werewolf_game("lin_feng_061", "061")
    me = Character.objects.get(game=game, name="陈")
    with pytest.raises(WrongPhase):
        cs.pace_request(game=game, character=me, kind="delay", now=bj(1, 0, 0))
    open_day(game)
    cs.pace_request(game=game, character=me, kind="delay", now=bj(1, 9))
    cs.pace_request(game=game, character=me, kind="delay", now=bj(1, 9, 1))  # again: no-op
    assert SpeedRequest.objects.filter(game=game).count() == 1
    mine = Event.objects.get(game=game, kind="pace_requested", audience="character")
    assert mine.audience_character_id == me.pk
    with pytest.raises(cs.PaceClosed):
        cs.pace_request(
            game=game,
            character=Character.objects.get(game=game, name="能天使"),
            kind="delay",
            now=bj(1, 18),
        )
    cs.pace_request(
        game=game,
        character=Character.objects.get(game=game, name="阿米娅"),
        kind="delay",
        now=bj(1, 10),
    )
    assert DayPace.objects.get(game=game).pace == "delayed"


@pytest.mark.parametrize(("ruleset", "number"), [("islington_256", "256"), ("kimetsu_252", "252")])
def test_the_royale_posts_have_no_pace_requests(ruleset: str, number: str) -> None:
    # Neither [256] nor [252] has 加速/延时: the portal shows no pace card, a request is
    # refused in Chinese, and progress-thread posts asking for one are no request.
    from games.card_selectors import pace_for_player
    from tests.royale.conftest import royale_game

    game = royale_game(number, ("甲", "乙", "丙"), ruleset=ruleset)
    open_day(game)
    me = Character.objects.get(game=game, name="甲")
    assert pace_for_player(game=game, character=me, now=bj(1, 9)) is None
    for kind in ("speed_up", "delay"):
        with pytest.raises(PaceKindNotAllowed) as refused:
            cs.pace_request(game=game, character=me, kind=kind, now=bj(1, 9))
        assert refused.value.text == "本场规则没有加速/延时申请。"
    post(thread(game, 1, "progress"), "甲", bj(1, 9), "申请加速")
    assert cs.paces_update(now=bj(1, 10)) == 0
    assert not SpeedRequest.objects.filter(game=game).exists()
    assert not DayPace.objects.filter(game=game).exists()


def test_a_director_sets_the_pace_and_requests_no_longer_change_it(director: Any) -> None:
    game = werewolf_game("lin_feng_061", "061")
    open_day(game)
    cs.pace_set(game=game, day=1, pace="sped_up", director=director, reason="存活人数少")
    progress = thread(game, 1, "progress")
    for name in NAMES:
        post(progress, name, bj(1, 9), "申请延时")
    cs.paces_update(now=bj(1, 12))
    assert DayPace.objects.get(game=game).pace == "sped_up"


def test_speed_up_settled_at_the_close_spares_the_quiet() -> None:
    game = werewolf_game()
    open_day(game)
    thread(game, 1, "discussion")
    progress = thread(game, 1, "progress")
    for name in ("阿米娅", "陈", "能天使"):
        post(progress, name, bj(1, 9), "申请加速")
    close_day(1)  # no periodic task ran: the close settles the pace first
    assert DayPace.objects.get(game=game).pace == "sped_up"
    assert cards(game) == []
