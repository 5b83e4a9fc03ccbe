"""Reads of the penalty cards and of the day's forum activity, with the viewer's permissions:
a player sees only its own cards; the day's page (activity, elevator floor, [061]'s extras) is
the directors'."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber

from games import ballots, selectors
from games.card_services import close_of, reason_text, rules_of
from games.engine import activity as act
from games.engine import dice
from games.engine import floors as fl
from games.engine.cards import COLOR_NAMES, PenaltyRules, penalty_rules, penalty_rulesets
from games.engine.errors import RuleError
from games.errors import NoStartDate
from games.models import (
    Card,
    CardSource,
    CardStatus,
    Character,
    CharacterStatus,
    DayPace,
    ForumPost,
    ForumSite,
    ForumThread,
    Game,
    GameStatus,
    Pace,
    SpeedRequest,
    ThreadKind,
)


def day_close_at(*, game: Game, day: int) -> datetime | None:
    """The day's 关门 as the ballots read it (a director's move or forced close included);
    None for a game run by hand (no start date)."""
    try:
        return ballots.day_close_at(game=game, day=day)
    except NoStartDate:
        return None


def day_pace(*, game: Game, day: int) -> DayPace | None:
    return DayPace.objects.filter(game=game, day=day).first()


@dataclass(frozen=True)
class CardRow:
    card: Card
    color_name: str
    reason_text: str
    pending: bool


def cards_of_character(*, character: Character) -> list[CardRow]:
    """A player's own cards: the ledger and its own cards awaiting review (never rejected ones,
    never anyone else's)."""
    rules = rules_of(character.game)
    rows = (
        Card.objects.filter(character=character)
        .exclude(status=CardStatus.REJECTED)
        .select_related("character")
        .order_by("day", "id")
    )
    return [
        CardRow(c, COLOR_NAMES[c.color], reason_text(c, rules), c.status == CardStatus.PROPOSED)
        for c in rows
    ]


def ledger_counts(*, game: Game) -> dict[int, Counter[str]]:
    """Confirmed cards still counting (not merged into a bigger one), by character and colour."""
    counts: dict[int, Counter[str]] = {}
    rows = Card.objects.filter(
        game=game, status=CardStatus.CONFIRMED, merged_into__isnull=True
    ).values_list("character_id", "color")
    for character, color in rows:
        counts.setdefault(character, Counter())[color] += 1
    return counts


@dataclass(frozen=True)
class PlayerPace:
    day: int
    pace: str
    kinds: tuple[str, ...]  # what the ruleset lets players ask for (099: speed_up only)
    mine: frozenset[str]
    counts: dict[str, int]
    needed: int
    cutoff: datetime
    open: bool


def pace_for_player(*, game: Game, character: Character, now: datetime) -> PlayerPace | None:
    """Today's pace as a player sees it: counts only, and its own requests."""
    rules = rules_of(game)
    if rules is None or not rules.pace.enabled or game.phase != "day" or game.start_date is None:
        return None  # nothing to show where the rules have no 加速/延时 (the royale)
    requests = SpeedRequest.objects.filter(game=game, day=game.day, kind__in=rules.pace.kinds)
    pace = day_pace(game=game, day=game.day)
    living = game.characters.filter(status=CharacterStatus.ALIVE, idle=False).count()
    deadline = act.cutoff(close_of(game, game.day), rules.pace)
    shown = pace.pace if pace is not None else Pace.NORMAL
    if shown == Pace.NORMAL and selectors.day_speed_up(game=game, day=game.day) is not None:
        shown = Pace.SPED_UP  # [061]: an earlier day's 加速 carried over to today
    return PlayerPace(
        day=game.day,
        pace=shown,
        kinds=rules.pace.kinds,
        mine=frozenset(requests.filter(character=character).values_list("kind", flat=True)),
        counts=dict(Counter(requests.values_list("kind", flat=True))),
        needed=act.needed(living, rules.pace),
        cutoff=deadline,
        open=now < deadline and character.is_alive and not character.idle,
    )


# --- the director's day page ---------------------------------------------------------------------


@dataclass
class DayTools:
    game: Game
    day: int
    rules: PenaltyRules | None
    threads: dict[str, ForumThread]
    activity: list[dict[str, Any]] = field(default_factory=list)
    elevator: str = ""
    elevator_missing: list[str] = field(default_factory=list)
    prize_floor: int | None = None
    prize_post: ForumPost | None = None
    last_words: list[dict[str, Any]] = field(default_factory=list)
    flood: list[dict[str, Any]] = field(default_factory=list)
    pace: DayPace | None = None
    # [061]: an earlier day's 加速 carried over to this day (from its open, until a 延时)
    carried: selectors.SpeedUp | None = None
    requests: list[SpeedRequest] = field(default_factory=list)
    cards: list[tuple[Card, str]] = field(default_factory=list)  # with the rule's words


def _floors(thread: ForumThread | None) -> list[ForumPost]:
    if thread is None:
        return []
    return list(thread.posts.order_by("floor").select_related("character"))


def elevator_rows(*, game: Game, day: int) -> list[fl.ElevatorRow]:
    """The day's 电梯楼: the characters in the game, in sign-up order or (096: 电梯楼角色顺序随机)
    the seed's order for that day — one draw per day, so anyone can check it once the seed is
    out; the engine reads the same order (七轮感应法, 尸爆)."""
    rules = rules_of(game)
    rows = [
        fl.ElevatorRow(c.pk, c.name, c.forum_uid, c.forum_username)
        for c in game.characters.order_by("id")
        if c.status == CharacterStatus.ALIVE
    ]
    rng = dice.rng(game.seed, 0, f"elevator:{day}")
    return fl.elevator_order(rows, rng, shuffle=rules is not None and rules.elevator_random)


def day_tools(*, game: Game, day: int) -> DayTools:
    """Everything the director reads off one day's threads."""
    rules = rules_of(game)
    threads = {t.kind: t for t in ForumThread.objects.filter(game=game, day=day)}
    tools = DayTools(game=game, day=day, rules=rules, threads=threads)
    characters = list(game.characters.order_by("id"))
    names = {c.pk: c.name for c in characters}
    discussion = _floors(threads.get(ThreadKind.DISCUSSION))
    close = close_of(game, day) if game.start_date else None

    def in_time(p: ForumPost) -> bool:
        """A character's post before the day's close."""
        return bool(p.character_id) and not p.by_director and (close is None or p.posted_at < close)

    counted = Counter(p.character_id for p in discussion if in_time(p))
    voters = {p.character_id for p in _floors(threads.get(ThreadKind.VOTE)) if in_time(p)}
    ledger = ledger_counts(game=game)
    for c in characters:
        tools.activity.append(
            {
                "character": c,
                "posts": counted.get(c.pk, 0),
                "voted": c.pk in voters if ThreadKind.VOTE in threads else None,
                "ledger": {COLOR_NAMES[k]: ledger.get(c.pk, Counter())[k] for k in COLOR_NAMES},
            }
        )
    site = game.forum_site
    talk = threads.get(ThreadKind.DISCUSSION)
    if rules is not None and site is not None and talk is not None:
        order = elevator_rows(game=game, day=day)
        tools.elevator, tools.elevator_missing = fl.elevator_text(
            order, day=day, site_kind=site.kind, base_url=site.base_url, thread=talk.external_id
        )
    floors = [
        fl.Floor(p.floor, None if p.by_director else p.character_id, p.text) for p in discussion
    ]
    if rules is not None and rules.floor_prize is not None:
        low, high = rules.floor_prize
        tools.prize_floor = fl.prize_floor(dice.rng(game.seed, 0, f"floor_prize:{day}"), low, high)
        hit = fl.prize_post(floors, tools.prize_floor)
        tools.prize_post = (
            next(p for p in discussion if p.floor == hit.floor) if hit is not None else None
        )
    if rules is not None and rules.last_words_per_char is not None:
        per = rules.last_words_per_char
        for c in characters:
            if c.status == CharacterStatus.ELIMINATED and c.eliminated_day == day:
                n = counted.get(c.pk, 0)
                tools.last_words.append(
                    {"character": c, "posts": n, "chars": fl.last_words_length(n, per)}
                )
    if rules is not None and rules.flood is not None:
        for run in fl.flood_runs(floors, rules.flood):
            tools.flood.append(
                {
                    "name": names.get(run.character, "?"),
                    "kind": run.kind,
                    "count": len(run.floors),
                    "first": run.floors[0],
                    "last": run.floors[-1],
                }
            )
    tools.pace = day_pace(game=game, day=day)
    if game.start_date is not None and (tools.pace is None or tools.pace.pace != Pace.SPED_UP):
        tools.carried = selectors.day_speed_up(game=game, day=day)
    tools.requests = list(
        SpeedRequest.objects.filter(game=game, day=day).select_related("character", "post")
    )
    tools.cards = [
        (card, rule_text(card, rules))
        for card in Card.objects.filter(game=game, day=day)
        .exclude(source=CardSource.ESCALATION)
        .select_related("character")
        .order_by("id")
    ]
    return tools


# --- the forum staff's review queue -------------------------------------------------------------

# A code the post numbers (099 5（3） is ``5.3``): shown as "5.3 <the words>"; other codes (256's
# ``posts``) are the site's keys, so their section heads the words instead.
_NUMBERED = re.compile(r"\d+(\.\d+)*")
# Posts listed one by one per thread; more are behind the thread's link filtered to the author.
POSTS_LISTED = 10
_EXCERPT = 60


def rule_text(card: Card, rules: PenaltyRules | None) -> str:
    """The rule a card was given for, as the rule post numbers and words it: ``12.1 明显的情绪
    发言`` (``判罚制度：…`` for a catalogue without numbers); a card the ledger made by
    escalation says what it merged."""
    if card.source == CardSource.ESCALATION or rules is None:
        return reason_text(card, rules)
    try:
        entry = rules.violation(card.reason)
    except RuleError:
        return card.reason
    if _NUMBERED.fullmatch(entry.code):
        return f"{entry.code} {entry.text}"
    return f"{entry.section}：{entry.text}"


def _secret(card: Card, rules: PenaltyRules | None) -> bool:
    if rules is None or card.source == CardSource.ESCALATION:
        return False
    try:
        return rules.violation(card.reason).secret
    except RuleError:
        return False


def _over(game: Game) -> bool:
    return game.status in {GameStatus.FINISHED, GameStatus.ARCHIVED}


def card_hidden(card: Card) -> bool:
    """A secret-reason card (099 5（3）: only a role with a forced skill can earn it) of a game not
    over: who got it, why and what was counted would out that role, so the staff's pages show
    none of it (the directors' ledger does; the card is announced to its player alone)."""
    return not _over(card.game) and _secret(card, rules_of(card.game))


def hidden_cards() -> Q:
    """The cards ``card_hidden`` is true of, as a filter (to keep them out of a search by name)."""
    hidden = Q(pk__in=[])
    for ruleset in penalty_rulesets():
        codes = [v.code for v in penalty_rules(ruleset).catalogue if v.secret]
        if codes:
            hidden |= Q(game__ruleset=ruleset, reason__in=codes)
    over = Q(game__status__in=[GameStatus.FINISHED, GameStatus.ARCHIVED])
    return hidden & ~Q(source=CardSource.ESCALATION) & ~over


@dataclass(frozen=True)
class ForumLinks:
    """How one kind of forum addresses a thread and a post (``{base}`` without its last "/")."""

    thread: str  # {base}, {thread}
    post: str  # {base}, {thread}, {pid}, {floor}: a post by the forum's own id
    floor: str  # {base}, {thread}, {floor}: a post by its floor (no forum id on record)


_DISCUZ = ForumLinks(
    "{base}/forum.php?mod=viewthread&tid={thread}",
    "{base}/forum.php?mod=redirect&goto=findpost&ptid={thread}&pid={pid}",
    # the thread's 电梯直达 box: the floor's post, wherever its page is
    "{base}/forum.php?mod=redirect&ptid={thread}&authorid=0&postno={floor}",
)
FORUM_LINKS: dict[str, ForumLinks] = {
    "discuz": _DISCUZ,
    # A printable page is a Discuz thread saved by a director: links go to the live thread.
    "printable": _DISCUZ,
    "discourse": ForumLinks(
        "{base}/t/{thread}", "{base}/t/{thread}/{floor}", "{base}/t/{thread}/{floor}"
    ),
}


def _base(site: ForumSite | None) -> str:
    return site.base_url.rstrip("/") if site is not None and site.kind in FORUM_LINKS else ""


def post_url(site: ForumSite | None, thread: ForumThread, post: ForumPost) -> str:
    """The post on its forum ("" when the game's forum has no address): by its forum id, or by
    its floor for a post only known from a printable page (``print:…``)."""
    base = _base(site)
    if not base or site is None:
        return ""
    links = FORUM_LINKS[site.kind]
    template = links.post if post.external_id.isdigit() else links.floor
    return template.format(
        base=base, thread=quote(thread.external_id), pid=post.external_id, floor=post.floor
    )


def author_url(site: ForumSite | None, thread: ForumThread, character: Character) -> str:
    """The thread showing only the character's posts (Discuz ``authorid``, Discourse
    ``username_filters``), the whole thread when its forum account is not on record."""
    base = _base(site)
    if not base or site is None:
        return ""
    style = fl.LINK_STYLES[site.kind]
    account = character.forum_uid if style.needs_uid else character.forum_username
    if not account:
        return FORUM_LINKS[site.kind].thread.format(base=base, thread=quote(thread.external_id))
    return style.url.format(
        base=base,
        thread=quote(thread.external_id),
        uid=quote(character.forum_uid),
        username=quote(character.forum_username),
    )


@dataclass(frozen=True)
class PostLink:
    floor: int
    url: str  # "" when the forum has no address
    posted_at: datetime
    excerpt: str
    after_close: bool  # posted at or after the day's close: not counted


@dataclass(frozen=True)
class ThreadEvidence:
    """One thread a card rests on, seen through the carded character's posts."""

    day: int
    kind: str  # ThreadKind
    thread: ForumThread | None  # None: the day has no such thread registered
    url: str  # the thread filtered to the character's posts; "" without one or an address
    count: int  # the character's posts in it (the facts say how many the close counted)
    posts: list[PostLink]  # the first ``POSTS_LISTED`` of them

    @property
    def kind_label(self) -> str:
        return str(ThreadKind(self.kind).label)

    @property
    def more(self) -> int:
        return max(self.count - len(self.posts), 0)


@dataclass(frozen=True)
class ReviewCard:
    """A card as forum staff review it. ``hidden``: a secret reason while its game runs (see
    ``card_hidden``): no name, rule, facts, note or posts."""

    card: Card
    hidden: bool
    who: str
    rule: str
    facts: dict[str, Any]
    note: str
    threads: list[ThreadEvidence]
    merged_from: list[int]


@dataclass(frozen=True)
class _Wanted:
    day: int
    kind: str
    optional: bool  # shown only where the thread exists and the character posted in it


def _wanted(card: Card) -> list[_Wanted]:
    """The threads a card rests on, from its facts: the discussion threads of a post count or a
    run of quiet days, the vote thread of a missed vote, the day's threads the character posted
    in for a director's card; none for a card the ledger made or one for a night's duty."""
    facts = card.facts or {}
    if card.source == CardSource.ESCALATION or "skill" in facts:
        return []
    if card.source == CardSource.MANUAL:
        kinds = (ThreadKind.DISCUSSION, ThreadKind.VOTE, ThreadKind.PROGRESS)
        return [_Wanted(card.day, k, True) for k in kinds]
    wanted = []
    streak = facts.get("streak")
    if isinstance(streak, list) and streak:
        first = max(card.day - len(streak) + 1, 1)
        wanted += [_Wanted(d, ThreadKind.DISCUSSION, False) for d in range(first, card.day + 1)]
    elif "min_posts" in facts:
        wanted.append(_Wanted(card.day, ThreadKind.DISCUSSION, False))
    if facts.get("voted") is False:
        wanted.append(_Wanted(card.day, ThreadKind.VOTE, False))
    return wanted


def review_cards(cards: Iterable[Card]) -> list[ReviewCard]:
    """The staff's view of these cards (of any games, their game and its forum site selected),
    with the posts each rests on, in a few queries for the whole page."""
    cards = list(cards)
    rules = {c.game_id: rules_of(c.game) for c in cards}
    hidden = {c.pk for c in cards if not _over(c.game) and _secret(c, rules[c.game_id])}
    wanted = {c.pk: ([] if c.pk in hidden else _wanted(c)) for c in cards}
    threads = _threads({(c.game_id, w.day) for c in cards for w in wanted[c.pk]})
    closes = _closes(cards, {(c.game_id, w.day) for c in cards for w in wanted[c.pk]})
    posts = _character_posts(
        {
            (threads[(c.game_id, w.day, w.kind)].pk, c.character_id)
            for c in cards
            for w in wanted[c.pk]
            if (c.game_id, w.day, w.kind) in threads
        }
    )
    out = []
    for c in cards:
        site = c.game.forum_site
        evidence = []
        for w in wanted[c.pk]:
            thread = threads.get((c.game_id, w.day, w.kind))
            listed, total = posts.get((thread.pk, c.character_id), ([], 0)) if thread else ([], 0)
            if w.optional and total == 0:
                continue
            close = closes.get((c.game_id, w.day))
            links = [
                PostLink(
                    p.floor,
                    post_url(site, p.thread, p),
                    p.posted_at,
                    _excerpt(p.text),
                    close is not None and p.posted_at >= close,
                )
                for p in listed
            ]
            url = author_url(site, thread, c.character) if thread is not None else ""
            evidence.append(ThreadEvidence(w.day, w.kind, thread, url, total, links))
        secret = c.pk in hidden
        facts = {} if secret else dict(c.facts or {})
        out.append(
            ReviewCard(
                card=c,
                hidden=secret,
                who="" if secret else c.character.name,
                rule="" if secret else rule_text(c, rules[c.game_id]),
                facts=facts,
                note="" if secret else c.note,
                threads=evidence,
                merged_from=[int(pk) for pk in facts.get("from", [])],
            )
        )
    return out


def _threads(days: set[tuple[int, int]]) -> dict[tuple[int, int, str], ForumThread]:
    """The threads of these (game, day)s, by (game, day, kind), in one query."""
    if not days:
        return {}
    match = Q(pk__in=[])
    for game_id, day in days:
        match |= Q(game_id=game_id, day=day)
    return {(t.game_id, t.day, t.kind): t for t in ForumThread.objects.filter(match)}


def _excerpt(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _EXCERPT else line[: _EXCERPT - 1] + "…"


def _closes(cards: Sequence[Card], days: set[tuple[int, int]]) -> dict[tuple[int, int], datetime]:
    """Each (game, day)'s 关门 (the director's moves included), one timetable per game; none for a
    game run by hand (no start date)."""
    games = {c.game_id: c.game for c in cards}
    out: dict[tuple[int, int], datetime] = {}
    for game_id in {g for g, _ in days}:
        game = games[game_id]
        if game.start_date is None:
            continue
        timetable = game.timetable()
        for g, day in days:
            if g == game_id:
                out[(g, day)] = timetable.due_at(day, "day_close")
    return out


def _character_posts(
    pairs: set[tuple[int, int]],
) -> dict[tuple[int, int], tuple[list[ForumPost], int]]:
    """For each (thread, character): its first ``POSTS_LISTED`` posts (by floor) and how many it
    has in all, in one query."""
    if not pairs:
        return {}
    match = Q(pk__in=[])
    for thread_id, character_id in pairs:
        match |= Q(thread_id=thread_id, character_id=character_id)
    partition = [F("thread_id"), F("character_id")]
    rows = (
        ForumPost.objects.filter(match, by_director=False)
        .select_related("thread")
        .annotate(
            n=Window(RowNumber(), partition_by=partition, order_by=[F("floor"), F("id")]),
            total=Window(Count("id"), partition_by=partition),
        )
        .filter(n__lte=POSTS_LISTED)
        .order_by("thread_id", "character_id", "floor", "id")
    )
    out: dict[tuple[int, int], tuple[list[ForumPost], int]] = {}
    for post in rows:
        key = (post.thread_id, int(post.character_id or 0))
        listed, _ = out.get(key, ([], 0))
        listed.append(post)
        out[key] = (listed, int(post.total))
    return out
