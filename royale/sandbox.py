"""Writes of the test match (测试赛): a sandbox copy of a real game, and its end.

The copy has the real game's characters (by name, forum account and bot flag), new passwords,
the same ruleset with more items (``test_match.item_factor``), no timetable (the directors move
it along by hand: 第一天晚上不关门) and the director's live supplies as in any game. Concluding it
gives the prize the ruleset names to the winners' characters in the real game (matched by name),
then archives the copy: read-only, its log kept for the record.

While it runs, 若测试赛中死亡或者体力不够可实时要求导演直接往背包中提供补给 (RULINGS 28): the
director restores a dead character (``testmatch_restore``) or puts a supply item into a
character's backpack (``testmatch_supply``); both are logged interventions, refused outside a
test match.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.engine.events import DIRECTORS, GameEvent
from games.models import Character, Game, GameStatus
from games.services import (
    IssuedCredential,
    character_passwords_generate,
    events_append,
    game_create,
    game_lock,
    reason_required,
)
from royale import store
from royale.engine import get_ruleset, testmatch
from royale.engine.errors import NotTestMatch
from royale.errors import NotSetUp, TestMatchRefused
from royale.models import RoyaleGame
from royale.services import _run, royale_intervene, royale_setup

ENDED = (GameStatus.FINISHED, GameStatus.ARCHIVED)


def testmatch_create(
    *, game: Game, director: User, reason: str
) -> tuple[Game, list[IssuedCredential]]:
    """A new test match of ``game``; returns it and its characters' passwords (shown once)."""
    reason = reason_required(reason)
    with transaction.atomic():
        real = game_lock(game)
        if RoyaleGame.objects.filter(pk=real.pk, test_of__isnull=False).exists():
            raise TestMatchRefused(
                "测试赛不能再开测试赛。",
                message_en="A test match cannot have a test match of its own.",
            )
        if real.status in ENDED:
            raise TestMatchRefused("正式赛已结束。", message_en="The real game is over.")
        copies = RoyaleGame.objects.filter(test_of=real)
        if copies.exclude(game__status=GameStatus.ARCHIVED).exists():
            raise TestMatchRefused(
                "已有一场未结束的测试赛。", message_en="A test match is already running."
            )
        copy = game_create(
            kind=real.kind,
            ruleset=real.ruleset,
            number=f"{real.number}测{copies.count() + 1}",
            title=f"{real.title} 测试赛",
            status=GameStatus.TEST,
        )
        copy.directors.set(real.directors.all())
        Character.objects.bulk_create(
            Character(
                game=copy,
                name=c.name,
                forum_uid=c.forum_uid,
                forum_username=c.forum_username,
                bot=c.bot,
            )
            for c in real.characters.order_by("id")
        )
        royale_setup(
            game=copy, placement=testmatch.placement(get_ruleset(real.ruleset)), test_of=real
        )
        note = GameEvent("test_match_created", DIRECTORS, {"game": copy.pk, "number": copy.number})
        events_append(
            game=real, events=[note], now=timezone.now(), director=director, reason=reason
        )
        passwords = character_passwords_generate(game=copy, director=director)
    return copy, passwords


def testmatch_conclude(*, test_game: Game, director: User, reason: str) -> list[str]:
    """Carry the prize into the real game and archive the copy; returns the winners' names."""
    reason = reason_required(reason)
    with transaction.atomic():
        locked = game_lock(test_game)
        royale = RoyaleGame.objects.filter(pk=locked.pk).first()
        if royale is None or royale.test_of_id is None:
            raise TestMatchRefused("这不是测试赛。", message_en="This is not a test match.")
        if locked.status == GameStatus.ARCHIVED:
            raise TestMatchRefused("测试赛已归档。", message_en="The test match is archived.")
        state = store.state_load(locked).state
        winners = [
            state.characters[cid].name
            for cid in testmatch.prize_winners(state, get_ruleset(state.ruleset))
        ]
        real = game_lock(royale.test_of_id)
        if not RoyaleGame.objects.filter(pk=real.pk).exists():
            raise NotSetUp()
        if real.status in ENDED:
            raise TestMatchRefused("正式赛已结束。", message_en="The real game is over.")
        by_name = dict(real.characters.values_list("name", "pk"))
        characters = [by_name[name] for name in winners if name in by_name]
        _after, events = _run(
            game=real,
            op="test_prize",
            step=lambda s, rng: testmatch.award(s, characters, rng),
            payload={"characters": characters, "test_game": locked.pk},
            rng_seq=real.seq + 1,
        )
        now = timezone.now()
        events_append(game=real, events=events, now=now, director=director, reason=reason)
        locked.status = GameStatus.ARCHIVED
        locked.save(update_fields=["status"])
        archived = GameEvent("test_match_archived", DIRECTORS, {"winners": winners})
        events_append(game=locked, events=[archived], now=now, director=director, reason=reason)
    return winners


def _test_copy(game: Game) -> None:
    """The shell's own check, before the engine's (``test_match`` flag): a test match's row."""
    if not RoyaleGame.objects.filter(pk=game.pk, test_of__isnull=False).exists():
        raise NotTestMatch()


def testmatch_restore(*, game: Game, director: User, character: int, reason: str) -> None:
    """测试赛中死亡: bring a dead character of the test match back (the ruleset's HP and MP)."""
    _test_copy(game)
    royale_intervene(
        game=game,
        director=director,
        op="test_restore",
        args={"character": character},
        reason=reason,
    )


def testmatch_supply(*, game: Game, director: User, character: int, kind: str, reason: str) -> None:
    """测试赛中体力不够: a supply item of the ruleset (``supply:…``) into the backpack."""
    _test_copy(game)
    royale_intervene(
        game=game,
        director=director,
        op="test_supply",
        args={"character": character, "kind": kind.strip()},
        reason=reason,
    )
