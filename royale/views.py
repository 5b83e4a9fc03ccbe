"""The royale's portal pages: the night page, the day page and the map, for one character.

Views only parse, call selectors and render. Everything shown comes from what the character may
know: its own view (``royale.selectors.character_view``), the public map, the published
announcements and the deaths already announced. Nobody else's place, HP or items ever reaches
the page, and a search's find is "an unknown character".

The page refreshes its state region with ``?part=state`` (same view, without the chrome) after
every result; the log itself is drawn by ``static/js/royale.js`` from the live events.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games import selectors as game_selectors
from games.models import PHASE_LABELS, TRANSITION_LABELS, Character, Game
from royale import day_events, market, selectors
from royale.engine.ruleset import Ruleset, get_ruleset
from royale.errors import NotSetUp

VIEWS = ("night", "day")
NIGHT_PHASES = ("night", "late")
# Marked for translation here, translated when shown (in the viewer's language).
CATEGORY_LABELS = {
    "weapon": gettext_noop("武器"),
    "armor": gettext_noop("防具"),
    "upgrader": gettext_noop("升级器"),
    "recon": gettext_noop("侦查"),
    "tool": gettext_noop("特殊工具"),
    "trap": gettext_noop("陷阱"),
    "supply": gettext_noop("补给"),
}
# Effects used from the hand only (the megaphone and the phone work from the backpack too).
HAND_EFFECTS = ("supply", "bomb", "upgrade", "gps", "telescope")
TIER_LABELS = {
    "green": gettext_noop("绿"),
    "blue": gettext_noop("蓝"),
    "purple": gettext_noop("紫"),
    "orange": gettext_noop("橙"),
}


# --- small reads the page needs ------------------------------------------------------------


def _countdown(game: Game) -> dict[str, Any] | None:
    if not game.is_live or game.paused:
        return None
    upcoming = game_selectors.transitions_upcoming(game=game, count=1)
    if not upcoming:
        return None
    step = upcoming[0]
    return {
        "kind": step.kind,
        "label": TRANSITION_LABELS.get(step.kind, step.kind),
        "at": step.due_at,
        "window_end": step.kind == "night_end",
    }


# --- shaping for the templates --------------------------------------------------------------


def _stats(item: dict[str, Any]) -> list[str]:
    parts: list[str] = []
    if item["damage"]:
        parts.append(_("伤害 %(n)s") % {"n": item["damage"]})
    if item["splash"]:
        parts.append(_("溅射 %(n)s") % {"n": item["splash"]})
    if item["reduction"]:
        parts.append(_("减伤 %(n)s") % {"n": item["reduction"]})
    if item["hp"]:
        parts.append(_("生命 +%(n)s") % {"n": item["hp"]})
    if item["mp"]:
        parts.append(_("体力 +%(n)s") % {"n": item["mp"]})
    if item["vote"]:
        parts.append(_("票数 +%(n)s") % {"n": item["vote"]})
    return parts


def _item_row(
    item: dict[str, Any],
    *,
    night_ok: bool,
    day_ok: bool,
    hand_full: bool,
    hand_categories: set[str],
) -> dict[str, Any]:
    effect = item["effect"]
    in_hand = item["in_hand"]
    row = dict(item)
    row["category_label"] = _(CATEGORY_LABELS.get(item["category"], item["category"]))
    row["tier_label"] = _(TIER_LABELS[item["tier"]]) if item["tier"] else ""
    row["stats"] = _stats(item)
    if item["uses"] is None:
        row["uses_label"] = _("不限次数") if item["category"] in ("weapon", "armor") else ""
    else:
        row["uses_label"] = _("剩余 %(n)s 次") % {"n": item["uses"]}
    # Which buttons the item offers, and whether each may be pressed now.
    row["can_equip"] = not in_hand
    row["can_unequip"] = in_hand
    # A weapon or armor replaces the one of its kind in hand by itself; anything else taken into
    # full hands must name the item to put away.
    row["auto_swap"] = item["category"] in ("weapon", "armor") and item["category"] in (
        hand_categories
    )
    row["needs_swap"] = (not in_hand) and hand_full
    row["usable"] = in_hand and effect in ("supply", "bomb")
    # Night items work from the hand only (RULINGS 10): one in the backpack says so.
    row["needs_hand"] = not in_hand and effect in HAND_EFFECTS
    row["upgrades"] = in_hand and effect == "upgrade"
    row["gps"] = in_hand and effect == "gps"
    row["telescope"] = in_hand and effect == "telescope"
    row["megaphone"] = effect == "megaphone"
    row["phone"] = effect == "phone"
    row["night_ok"] = night_ok
    row["day_ok"] = day_ok
    return row


def _blocker(me: dict[str, Any], phase: str, game: Game) -> str:
    """Why this character can do nothing at all now ("" when it can act in some phase)."""
    if phase == "over" or not game.is_live:
        return _("游戏已结束")
    if game.paused:
        return _("游戏已暂停")
    if not me["alive"]:
        return _("你已出局")
    return ""


def _night_blocker(me: dict[str, Any], phase: str, game: Game) -> str:
    """Why no night action can be taken now ("" when the window is open to this character)."""
    if blocked := _blocker(me, phase, game):
        return blocked
    if phase != "night":
        return _("不在夜间行动时间")
    if me["place"] is None:
        return _("请先出生（选择初始位置）")
    return ""


def _action(kind: str, label: str, cost: int | None, reason: str) -> dict[str, Any]:
    return {"kind": kind, "label": label, "cost": cost, "enabled": not reason, "reason": reason}


def _night_actions(
    me: dict[str, Any], rules: dict[str, Any], rs: Ruleset, phase: str, game: Game
) -> dict[str, Any]:
    costs = rules["costs"]
    base = _night_blocker(me, phase, game)
    resting = me["mode"] == "rest"
    acted = me["mode"] == "act"
    found = me["found"]

    def mp_short(cost: int) -> str:
        if me["mp"] >= cost:
            return ""
        return _("体力不足（需 %(need)s，现有 %(have)s）") % {"need": cost, "have": me["mp"]}

    def spawn_reason() -> str:  # only before the first place is chosen
        if blocked := _blocker(me, phase, game):
            return blocked
        if phase != "night":
            return _("不在夜间行动时间")
        return _("已出生") if me["place"] is not None else ""

    def rest_reason() -> str:
        if resting:
            return _("已选择静养")
        return _("今晚已行动，不能再静养") if acted else ""

    def attack_reason() -> str:
        if not found or found["kind"] != "character":
            return _("需先搜索到角色")
        if found["attacked"]:
            return _("每次搜索后只可攻击一次")
        return _("安全区内攻击无效") if me["place"] == rs.safe_zone else ""

    def pick_reason() -> str:
        if not found or found["kind"] != "item":
            return _("需先搜索到道具")
        if len(me["items"]) >= rules["item_cap"]:
            return _("已持有 %(n)s 件道具，无法再捡拾") % {"n": rules["item_cap"]}
        return ""

    def active(reason: Callable[[], str]) -> str:
        """Not resting, and then the action's own reason."""
        return base or (_("静养中") if resting else reason())

    # move: free (up to the ruleset's number of moves) while resting
    if resting:
        move_cost = 0
        used_up = me["rest_moves"] >= rs.rest_free_moves
        move_reason = base or (
            _("静养时最多移动 %(n)s 次") % {"n": rs.rest_free_moves} if used_up else ""
        )
    else:
        move_cost = costs.get("move", 0)
        move_reason = base or mp_short(move_cost)
    search_cost = costs.get("search", 0)
    whisper_cost = costs.get("whisper", 0)
    return {
        "spawn": _action("spawn", _("出生"), costs.get("spawn", 0), spawn_reason()),
        "rest": _action("rest", _("静养"), 0, base or rest_reason()),
        "move": _action("move", _("移动"), move_cost, move_reason),
        "search": _action("search", _("搜索"), search_cost, active(lambda: mp_short(search_cost))),
        "attack": _action("attack", _("攻击"), costs.get("attack", 0), active(attack_reason)),
        "pick_up": _action("pick_up", _("捡拾"), costs.get("pick_up", 0), active(pick_reason)),
        "whisper": _action(
            "whisper", _("传音"), whisper_cost, active(lambda: mp_short(whisper_cost))
        ),
        "items": _action("items", _("道具"), 0, active(lambda: "")),
        "hand_full": sum(1 for i in me["items"] if i["in_hand"]) >= rules["hand_slots"],
    }


def _day_reason(me: dict[str, Any], phase: str, game: Game) -> str:
    if blocked := _blocker(me, phase, game):
        return blocked
    if phase != "day":
        return _("只能在白天使用")
    return ""


def _vote_box(vote: dict[str, Any], day_reason: str, dead: set[str]) -> dict[str, Any]:
    """The day page's vote box: the living players to choose from and one's own vote only."""
    if day_reason:
        reason = day_reason
    elif not vote["open"]:
        reason = _("第 %(n)s 天起每天白天投票（第一日讨论日不投票）") % {"n": vote["from_day"]}
    else:
        reason = ""
    return {
        **vote,
        "choices": [name for name in vote["players"] if name not in dead],
        "kind": "vote_change" if vote["mine"] else "vote",
        "reason": reason,
    }


def _context(
    request: HttpRequest, game: Game, character: Character, now: datetime
) -> dict[str, Any] | None:
    try:
        # one state for the whole page: the panels below read the same one
        state = selectors.royale_state(game=game)
        page = selectors.player_view(state=state, character_id=character.pk, now=now)
    except (NotSetUp, KeyError):
        return None
    me, places, rules = page["me"], page["map"], page["rules"]
    rs = get_ruleset(game.ruleset)  # known: the page above was drawn with it
    phase = me["phase"]
    asked = request.GET.get("view", "")
    view = asked if asked in VIEWS else ("night" if phase in NIGHT_PHASES else "day")
    actions = _night_actions(me, rules, rs, phase, game)
    day_reason = _day_reason(me, phase, game)
    in_hand = {i["category"] for i in me["items"] if i["in_hand"]}
    items = [
        _item_row(
            i,
            night_ok=actions["items"]["enabled"],
            day_ok=not day_reason,
            hand_full=actions["hand_full"],
            hand_categories=in_hand,
        )
        for i in me["items"]
    ]
    hands = [i for i in items if i["in_hand"]]
    upgradable = [i for i in items if i["category"] in ("weapon", "armor") and i["tier"]]
    deaths = list(game_selectors.deaths_public(game=game))
    dead_ids = {c.pk for c in deaths}
    others = [
        c.name
        for c in game.characters.order_by("id").only("id", "name")
        if c.pk != character.pk and c.pk not in dead_ids
    ]
    events = day_events.player_events(state, character.pk)
    open_places = [p for p in places if not p["gone"] and p["open"]]
    kinds: list[dict[str, str]] = []
    if any(i["gps"] for i in items):
        kinds = [
            {
                "key": k.key,
                "label": (f"{_(TIER_LABELS[k.tier])}·" if k.tier else "")
                + f"{_(CATEGORY_LABELS.get(k.category, k.category))}·{k.name}",
            }
            for k in rs.kinds.values()
        ]
    return {
        "game": game,
        "character": character,
        "me": me,
        "map": places,
        "rules": rules,
        "phase": phase,
        "phase_label": _("已结束") if phase == "over" else PHASE_LABELS.get(phase, phase),
        "view": view,
        "actions": actions,
        "day_reason": day_reason,
        "items": items,
        "hands": hands,
        "pack": [i for i in items if not i["in_hand"]],
        "hand_slots": range(max(0, rules["hand_slots"] - len(hands))),
        "upgradable": upgradable,
        "open_places": open_places,
        "move_places": [p for p in open_places if p["name"] != me["place"]],
        "vanishing": [p["name"] for p in places if p["vanishing"]],
        "others": [*others, *events["npcs"]],  # whispers reach 阿呆 and 阿笨 too
        "day_events": events,
        "vote": _vote_box(page["vote"], day_reason, {c.name for c in deaths}),
        "market": market.market_page(state=state, character_id=character.pk, now=now)
        if view == "day"
        else None,
        "gps_kinds": kinds,
        "countdown": _countdown(game),
        "rest": {
            "hp": rs.rest_hp,
            "mp_to": rs.rest_mp_to,
            "free_moves": rs.rest_free_moves,
            "daily_mp": rs.daily_mp,
        },
        "announcements": game_selectors.announcements_headed(game=game),
        "villain_title": selectors.villain_title(rs),
        "deaths": deaths,
        "hp_pct": _pct(me["hp"], me["hp_max"]),
        "mp_pct": _pct(me["mp"], me["mp_max"]),
        "config": {
            "game": game.pk,
            "me": character.pk,
            "view": view,
            "path": request.path,
            "names": {
                str(pk): name
                for pk, name in game.characters.order_by("id").values_list("id", "name")
            },
        },
    }


def _pct(value: int, top: int) -> int:
    if top <= 0:
        return 0
    return max(0, min(100, round(100 * value / top)))


def player_page(request: HttpRequest, game: Game, character: Character) -> HttpResponse:
    """The character's portal: ``?view=night|day`` (default by phase), ``?part=state``."""
    context = _context(request, game, character, timezone.now())
    if context is None:
        return render(request, "royale/not_ready.html", {"game": game, "character": character})
    if request.GET.get("part") == "state":
        return render(request, "royale/_state.html", context)
    return render(request, "royale/player.html", context)
