"""What the game kinds' demos (``make run``) share: the director's account, a fresh game each
run, the characters with their logins, and printing them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User
from django.db import models, transaction
from django.db.models import QuerySet

from games import credentials
from games import services as game_services
from games.models import (
    Announcement,
    Character,
    Event,
    Game,
    GameStatus,
    TimetableOverride,
    TransitionRecord,
)

DIRECTOR = "director"  # one account directs every demo game


@dataclass(frozen=True)
class Demo:
    game: Game
    director_username: str
    director_password: str | None  # None: the director existed already (password unchanged)
    passwords: list[game_services.IssuedCredential]
    links: list[game_services.IssuedCredential]


def demo_director(*, password_reset: bool) -> tuple[User, str | None]:
    """The demos' director. A new one always gets a password; an existing one a new password
    only with ``password_reset`` (the first demo loaded prints it, the others say "same")."""
    game_services.groups_ensure()
    director, created = get_user_model().objects.get_or_create(
        username=DIRECTOR, defaults={"is_staff": True}
    )
    password = None
    if created or password_reset:
        password = credentials.password_generate()
        director.set_password(password)
        director.is_staff = True
        director.save()
    director.groups.add(Group.objects.get(name=game_services.DIRECTORS_GROUP))
    return director, password


def demo_wipe(number: str, kind_models: Iterable[type[models.Model]]) -> None:
    """Remove an earlier demo game whole (with its kind's rows, ``kind_models``): a fresh demo
    each run, never a second one."""
    game = Game.objects.filter(number=number).first()
    if game is None:
        return
    with transaction.atomic():
        Event.objects.filter(game=game).delete()
        shared: tuple[type[models.Model], ...] = (
            Announcement,
            TransitionRecord,
            TimetableOverride,
            Character,
        )
        for model in (*kind_models, *shared):
            model._default_manager.filter(game=game).delete()
        game.delete()


def demo_characters(
    game: Game, humans: Sequence[str], bots: Sequence[str], *, uid_from: int, username: str
) -> None:
    """The humans (forum uids from ``uid_from`` + 1, forum names ``<username><n>``), then the
    bots."""
    Character.objects.bulk_create(
        [
            Character(
                game=game,
                name=name,
                forum_uid=str(uid_from + i),
                forum_username=f"{username}{i}",
            )
            for i, name in enumerate(humans, start=1)
        ]
        + [Character(game=game, name=name, bot=True) for name in bots]
    )


def demo_logins(game: Game, director: User, password: str | None) -> Demo:
    """Passwords and login links for the game's human characters: the demo as loaded."""
    humans = list(game.characters.filter(bot=False).order_by("id"))
    passwords = game_services.character_passwords_generate(
        game=game, director=director, characters=humans
    )
    links = game_services.character_links_issue(game=game, director=director, characters=humans)
    game.refresh_from_db()
    return Demo(game, director.get_username(), password, passwords, links)


def bot_games(kind: str, state_model: type[models.Model]) -> QuerySet[Game]:
    """The games of ``kind`` whose bots may play now: live, not paused, with bots, and with the
    kind's state (a row of ``state_model``, keyed by the game)."""
    return Game.objects.filter(
        kind=kind,
        status__in=[GameStatus.TEST, GameStatus.RUNNING],
        paused=False,
        characters__bot=True,
        pk__in=state_model._default_manager.values("pk"),
    ).distinct()


def director_line(loaded: Demo) -> str:
    password = loaded.director_password or "（同上 same as above）"
    return f"导演 director: {loaded.director_username} / {password}"


def logins_print(out: Callable[[str], object], host: str, loaded: Demo, bots: int) -> None:
    """The game's login page and each human's password and link, then a blank line."""
    game = loaded.game
    out(f"  登录 login: http://{host}/play/{game.number}/   ({bots} 个机器人角色)")
    for issued, link in zip(loaded.passwords, loaded.links, strict=True):
        out(
            f"  {issued.character.name}: {issued.secret}   "
            f"http://{host}/play/{game.number}/k/{link.secret}/"
        )
    out("")
