from __future__ import annotations

from datetime import date

from games.engine.authors import NOBODY, Account, Author, AuthorMap

DAY1, DAY2, DAY3 = date(2018, 10, 29), date(2018, 10, 30), date(2018, 10, 31)

# 饺子 (character 1) and 包子 (character 2) play their own accounts; from day 2 to day 2 the
# player 小明 stands in for 包子 with an account of his own (替补); [061]导演B is the director.
ACCOUNTS = AuthorMap(
    [
        Account("101", "饺子", 1),
        Account("102", "包子", 2),
        Account("201", "小明", 2, since=DAY2, until=DAY2),
        Account("9", "[061]导演B", None),
    ]
)


def test_a_character_is_known_by_its_forum_uid_first() -> None:
    assert ACCOUNTS.resolve(uid="101", username="饺子", on=DAY1) == Author(1, by_director=False)
    # A renamed account is still the same uid.
    assert ACCOUNTS.resolve(uid="102", username="新名字", on=DAY1) == Author(2, by_director=False)


def test_a_post_without_a_uid_is_known_by_its_username_in_any_case() -> None:
    map_ = AuthorMap([Account("", "Jiaozi", 1)])
    assert map_.resolve(uid="", username="jiaozi", on=DAY1).character == 1
    assert ACCOUNTS.resolve(uid="", username=" 饺子 ", on=DAY1).character == 1


def test_a_username_does_not_stand_for_an_account_whose_uid_differs() -> None:
    # Someone else now holds the name 饺子 (uid 555): not the character's account.
    assert ACCOUNTS.resolve(uid="555", username="饺子", on=DAY1) == NOBODY


def test_an_account_without_a_recorded_uid_is_matched_by_its_username() -> None:
    map_ = AuthorMap([Account("", "饺子", 1)])
    assert map_.resolve(uid="555", username="饺子", on=DAY1).character == 1


def test_a_substitute_keeps_the_character_only_on_its_days() -> None:
    assert ACCOUNTS.resolve(uid="201", username="小明", on=DAY2) == Author(2, by_director=False)
    assert ACCOUNTS.resolve(uid="201", username="小明", on=DAY1) == NOBODY
    assert ACCOUNTS.resolve(uid="201", username="小明", on=DAY3) == NOBODY
    open_ended = AuthorMap([Account("201", "小明", 2, since=DAY2)])
    assert open_ended.resolve(uid="201", username="小明", on=DAY3).character == 2


def test_the_directors_account_is_recognised_as_a_director() -> None:
    assert ACCOUNTS.resolve(uid="9", username="[061]导演B", on=DAY1) == Author(
        None, by_director=True
    )


def test_anonymous_and_unknown_posts_belong_to_nobody() -> None:
    assert ACCOUNTS.resolve(uid="101", username="饺子", on=DAY1, anonymous=True) == NOBODY
    assert ACCOUNTS.resolve(uid="0", username="匿名", on=DAY1) == NOBODY
    assert ACCOUNTS.resolve(uid="", username="", on=DAY1) == NOBODY
