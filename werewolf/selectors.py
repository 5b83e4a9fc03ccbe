"""Reads of the role games, each shaped for one kind of viewer.

The engine state holds every hidden fact (everyone's role, tonight's submissions, the draft).
Players are served only from the engine's ``player_view`` and the public log; the directors
from ``director_view`` and the directors' log.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _

from games import live
from games.engine.text import names_short
from games.models import Character, Event, ForumPost, Game
from werewolf import engine, store
from werewolf.engine.ballot import day_voters
from werewolf.engine.conan_status import speech_breaks, speech_status
from werewolf.engine.setup import genders_missing
from werewolf.engine.state import SETUP, GameState
from werewolf.errors import NotSetUp

# The directors' events that show what the players did tonight, as they arrived.
SUBMISSIONS = ("submitted", "forgone", "forfeited", "leader_elected")


def werewolf_state(*, game: Game) -> GameState:
    return store.state_load(game)


def werewolf_start_missing(*, game: Game) -> list[str]:
    """What the dealt state lacks before 开始: a gender for every character when a skill in play
    reads genders (RULINGS werewolf 9; night 1 refuses the same)."""
    names = genders_missing(werewolf_state(game=game))
    if not names:
        return []
    return [_("性别（%(names)s）") % {"names": names_short(names)}]


def werewolf_auction(*, game: Game) -> dict[int, dict[str, Any]]:
    """What the director entered before the start, per character of the latest deal: its name,
    马甲 gender (None: 未定), 表演/挡刀 bought, 性别卡 (None: none) and gold (None: not given)."""
    deal = store.last_deal(game)
    auction = deal.get("auction") or {}
    out: dict[int, dict[str, Any]] = {}
    for cid, name, gender in deal["characters"]:
        bid = auction.get(str(cid), {})
        out[int(cid)] = {
            "name": name,
            "gender": gender,
            "act": bid.get("act", 0),
            "block": bid.get("block", 0),
            "card": bid.get("gender"),
            "gold": bid.get("gold"),
        }
    return out


def werewolf_day_voters(game: Game, day: int) -> frozenset[int] | None:
    """``GameKind.day_voters``: who voted on ``day`` on the portal (the state's ballots), for
    the core's 未投票 cards on a day with no forum vote thread; None for a game not dealt."""
    try:
        state = werewolf_state(game=game)
    except NotSetUp:
        return None
    return day_voters(state, day)


def player_view(*, state: GameState, character_id: int) -> dict[str, Any]:
    """A player's view once the game has started: a dealt game not started yet is still the
    director's to adjust, and its cards reach nobody (分发身份 is the start)."""
    if state.phase == SETUP:
        raise NotSetUp()
    return engine.player_view(state, character_id)


def public_log(*, game: Game) -> list[dict[str, Any]]:
    rows = Event.objects.filter(game=game, stream="public").order_by("seq")
    return [live.frame_for_player(e) for e in rows]


def player_page(*, game: Game, character: Character, now: datetime) -> dict[str, Any]:
    """The character's own view (role card, team, skills usable now, feedback) and the public
    log; ``now`` is when the page is drawn, for the deadlines' countdowns."""
    state = werewolf_state(game=game)
    return {
        "me": player_view(state=state, character_id=character.pk),
        "log": public_log(game=game),
        "now": now.timestamp(),
    }


def director_page(*, game: Game) -> dict[str, Any]:
    """Everything the director's night room shows: the engine's view (every role, the draft and
    its trace) and tonight's submissions as they arrived (this night's log only)."""
    state = werewolf_state(game=game)
    night = (
        Event.objects.filter(game=game, kind="engine_step", payload__op="night_open")
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    )
    rows = Event.objects.filter(
        game=game, stream="directors", kind__in=SUBMISSIONS, seq__gt=night or 0
    ).order_by("seq")
    submissions = [{"seq": e.seq, "kind": e.kind, "at": e.created_at, **e.payload} for e in rows]
    return {**engine.director_view(state), "submissions": submissions}


def werewolf_speech_breaks(*, game: Game, days: Sequence[int]) -> list[dict[str, Any]]:
    """[096]'s 异常状态: the posts of ``days`` whose author was a 变羊 without 咩 or a 石化 with
    more than emoji (如果发言违反变羊、石化状态的限制…), not yet confirmed by a director — for
    the night room to confirm one by one (RULINGS 096-16: the site flags, the director confirms)."""
    try:
        state = werewolf_state(game=game)
    except NotSetUp:
        return []
    rs = engine.get_ruleset(state.ruleset)
    if not rs.params.get("speech_rules"):
        return []
    confirmed = set(
        Event.objects.filter(game=game, kind="speech_penalty", stream="directors").values_list(
            "payload__post", flat=True
        )
    )
    posts = (
        ForumPost.objects.filter(
            thread__game=game,
            thread__day__in=list(days),
            character__isnull=False,
            by_director=False,
        )
        .select_related("thread", "character")
        .order_by("thread__day", "thread__kind", "floor")
    )
    found = []
    for post in posts:
        p = state.players.get(int(post.character_id or 0))
        if p is None or post.external_id in confirmed:
            continue
        status = speech_status(p, post.thread.day)
        if status is None or not speech_breaks(status, post.text):
            continue
        found.append(
            {
                "post": post.pk,
                "day": post.thread.day,
                "thread": post.thread.get_kind_display(),
                "floor": post.floor,
                "name": p.name,
                "status": rs.status_names.get(status, status),
                "text": post.text[:60],
            }
        )
    return found
