"""Cross-game writes in the admin (issue 14, 3): every admin add and change form, walked as a
director of another game and as plain staff, offers none of this game's rows and accepts none
on submit; one mechanism (games.admin_base.DirectorScoped) scopes every game-bound choice."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib import admin
from django.forms import ModelChoiceField
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.admin_base import GAME_PATHS
from games.models import (
    Announcement,
    Assistant,
    Card,
    Character,
    DirectorForumAccount,
    ForumPost,
    ForumThread,
    Game,
    Substitute,
    VoteAlias,
)
from tests.conftest import make_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def theirs(django_user_model: Any) -> Game:
    """Game [256] of another director, with a row of every model the admin edits."""
    game = make_game("256", characters=("甲", "乙"))
    owner = django_user_model.objects.create_user("other", password="x-123456789", is_staff=True)
    game.directors.add(owner)
    character = game.characters.get(name="甲")
    thread = ForumThread.objects.create(game=game, day=1, kind="vote", external_id="1")
    ForumPost.objects.create(
        thread=thread, external_id="p1", floor=2, author="甲", posted_at=timezone.now(), text="x"
    )
    Announcement.objects.create(game=game, day=1, title="公示", body="x")
    Card.objects.create(
        game=game, character=character, color="blue", day=1, source="manual",
        status="proposed", proposed_at=timezone.now(),
    )  # fmt: skip
    VoteAlias.objects.create(game=game, alias="小甲", character=character)
    DirectorForumAccount.objects.create(game=game, forum_username="[256]导演")
    Substitute.objects.create(character=character, forum_username="替", since=dt.date(2026, 11, 2))
    Assistant.objects.create(character=character, forum_username="助")
    services.dice_roll(game=game, director=None, purpose="d6", sides=6)
    return game


def _bound_rows(game: Game) -> dict[Any, set[int]]:
    """The ids of this game's rows of every game-bound model."""
    rows: dict[Any, set[int]] = {}
    for model, path in GAME_PATHS.items():
        lookup: dict[str, Any] = {path: game} if path else {"pk": game.pk}
        rows[model] = set(model._default_manager.filter(**lookup).values_list("pk", flat=True))
    return rows


def _admin_urls() -> list[tuple[Any, str]]:
    return [
        (model, f"admin:{model._meta.app_label}_{model._meta.model_name}")
        for model in admin.site._registry
    ]


def test_a_director_of_another_game_is_offered_none_of_its_rows(
    theirs: Game, director_client: Client
) -> None:
    mine = make_game("061", characters=("丙",))
    mine.directors.add(_user(director_client))
    foreign = _bound_rows(theirs)
    walked = 0
    for model, name in _admin_urls():
        add = director_client.get(reverse(f"{name}_add"))
        if add.status_code == 200 and add.context and "adminform" in add.context:
            walked += 1
            for field_name, field in add.context["adminform"].form.fields.items():
                rows = field.queryset if isinstance(field, ModelChoiceField) else None
                if rows is not None and rows.model in foreign:
                    offered = set(rows.values_list("pk", flat=True))
                    assert not offered & foreign[rows.model], (model, field_name)
        for pk in model._default_manager.filter(pk__in=_own_rows(model, theirs)).values_list(
            "pk", flat=True
        ):
            change = director_client.get(reverse(f"{name}_change", args=[pk]))
            assert change.status_code in (302, 403, 404), (model, pk, change.status_code)
    assert walked >= 4  # announcements, vote aliases, forum threads, directors' accounts…


def _user(client: Client) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(pk=client.session["_auth_user_id"])


def _own_rows(model: Any, game: Game) -> set[int]:
    path = GAME_PATHS.get(model)
    if model is Game:
        return {game.pk}
    if path is not None:
        return set(model._default_manager.filter(**{path: game}).values_list("pk", flat=True))
    for candidate in ("game", "character__game", "thread__game"):
        try:
            return set(
                model._default_manager.filter(**{candidate: game}).values_list("pk", flat=True)
            )
        except Exception:  # noqa: S112  (the model has no such path: try the next)
            continue
    return set()


def test_a_forged_choice_of_another_games_row_is_refused(
    theirs: Game, director_client: Client
) -> None:
    mine = make_game("061", characters=("丙",))
    mine.directors.add(_user(director_client))
    stranger = theirs.characters.get(name="甲")
    thread = ForumThread.objects.get(game=theirs)
    attempts = [
        ("games_votealias", {"game": mine.pk, "alias": "伪", "character": stranger.pk}),
        ("games_votealias", {"game": theirs.pk, "alias": "伪", "character": stranger.pk}),
        ("games_announcement", {"game": theirs.pk, "day": 1, "title": "伪", "body": "x"}),
        ("games_forumthread", {"game": theirs.pk, "day": 2, "kind": "vote", "external_id": "9"}),
        ("games_directorforumaccount", {"game": theirs.pk, "forum_username": "伪导演"}),
    ]
    before = _bound_rows(theirs)
    for name, data in attempts:
        response = director_client.post(reverse(f"admin:{name}_add"), data)
        assert response.status_code in (200, 403), (name, response.status_code)
    assert _bound_rows(theirs) == before
    assert not VoteAlias.objects.filter(alias="伪").exists()
    assert not DirectorForumAccount.objects.filter(forum_username="伪导演").exists()
    assert thread.game_id == theirs.pk


def test_one_directors_two_games_cannot_be_crossed_in_one_form(
    director_client: Client,
) -> None:
    """An alias of game A for a character of game B, both the director's: refused."""
    first, second = make_game("061", characters=("丙",)), make_game("096", characters=("丁",))
    me = _user(director_client)
    first.directors.add(me)
    second.directors.add(me)
    response = director_client.post(
        reverse("admin:games_votealias_add"),
        {"game": first.pk, "alias": "小丁", "character": second.characters.get().pk},
    )
    assert response.status_code == 200
    assert not VoteAlias.objects.exists()


def test_plain_staff_reaches_no_admin_form(theirs: Game, django_user_model: Any) -> None:
    staff = django_user_model.objects.create_user("plain", password="x-123456789", is_staff=True)
    client = Client()
    client.force_login(staff)
    for model, name in _admin_urls():
        assert client.get(reverse(f"{name}_add")).status_code == 403, model
        for pk in _own_rows(model, theirs):
            assert client.get(reverse(f"{name}_change", args=[pk])).status_code in (302, 403), model
    assert Character.objects.filter(game=theirs).count() == 2
