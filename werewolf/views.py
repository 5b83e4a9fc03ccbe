"""The role game's portal: one page per character, phone first, Chinese first.

The page shows only what the character may know: its private role card, its team (the wolves
see each other and tonight's picks), the skills it may use now with their deadlines and
targets, the witch's 通灵 once the kills are final, its own feedback, and the public log with
its own private messages. Everything comes from ``werewolf.selectors.player_page`` (the engine's
``player_view``) and the character's own event streams, never from the full state.

Skills are submitted by a plain form posted back to this page (it works without JavaScript);
``static/js/werewolf.js`` redraws the state region whenever a live event arrives.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from games import selectors as game_selectors
from games.ballots import vote_days
from games.engine.errors import RuleError
from games.models import Character, Game
from werewolf import selectors, services
from werewolf.engine import get_ruleset
from werewolf.engine.ruleset import Skill
from werewolf.errors import NotSetUp
from werewolf.eventtext import player_line

# Not lines of a player's log: the engine's step record, and the core timetable's phases (a
# role game's own night_open/day_open say where the game is; dusk/late/dawn mean nothing here).
UNLOGGED = frozenset({"engine_step", "phase_changed"})


def _log(game: Game, character: Character) -> dict[str, Any]:
    """The character's log (newest first), the 通灵 it received tonight, a pending 投降."""
    viewer = game_selectors.Viewer(game=game, character=character)
    frames = game_selectors.events_for_viewer(viewer=viewer, limit=2000)
    lines = [
        {"private": f["stream"] == "private", "text": player_line(f), "at": _at(f.get("at"))}
        for f in frames
        if f["kind"] not in UNLOGGED
    ]
    sense: list[dict[str, Any]] | None = None
    asked = ""
    result = ""
    for f in frames:
        if f["kind"] == "vote_result":
            result = player_line(f)
        elif f["kind"] in ("night_open", "day_open"):
            sense = None  # 通灵 tells of tonight's kills: by day, or a new night, it is gone
        elif f["kind"] == "sense":
            sense = list(f["payload"]["targets"])
        elif f["kind"] == "surrender_asked":
            asked = f["payload"]["by_name"]
        elif f["kind"] in ("surrender_refused", "surrender"):
            asked = ""
    return {"lines": lines[::-1], "sense": sense, "surrender_asked": asked, "result": result}


def _at(moment: str | None) -> datetime | None:
    """When a log entry happened (the frame's ISO time; the template shows it in the site's
    time zone, 北京时间)."""
    if not moment:
        return None
    try:
        return datetime.fromisoformat(moment)
    except ValueError:
        return None


def _confirm_text(skill: Skill, target: str) -> str:
    """The question an irreversible use asks first, naming the target."""
    text = _("确定对 %(target)s 使用 %(skill)s？") % {"target": target, "skill": skill.name}
    return text + (_("此技能只能使用一次。") if skill.limited else _("发动后不能撤回。"))


def _count(view: dict[str, Any], skill: Skill) -> tuple[int, int]:
    """How many targets a submission names (``Skill.targets``): ``(low, high)``; the engine
    judges again (e.g. 票台's third, less those on yesterday's stage)."""
    spec = skill.targets
    if spec == "third":
        n = sum(1 for p in view["players"] if p["alive"]) // 3
        return (n, n)
    if "-" in spec:  # "0-1", "1-2" (096's 龙息: two players, or one twice)
        low, high = spec.split("-")
        return (int(low), int(high))
    if spec == "any":
        return (1, len(view["players"]))
    return (int(spec), int(spec))


def _options(view: dict[str, Any], skill: Skill, rs: Any) -> dict[str, Any] | None:
    """A skill's other input (``UseSkill.option``): the form control the portal draws for it."""
    effect = skill.effect
    if effect == "verify":
        return {"kind": "check", "value": "publish", "label": _("在白天公示查证结果")}
    if effect == "zhen":
        marks = int(view.get("lin_feng", {}).get("marks", 0))
        choices = [
            {"value": "1", "label": _("失去1个‹炼›：获知场上存活的各阵营人数")},
            {"value": "2", "label": _("失去2个‹炼›：下一夜获得永久技能<救治>")},
            {"value": "3", "label": _("失去3个‹炼›：下一夜获得永久技能<杀人>")},
        ]
        return {"kind": "select", "label": _("失去标记"), "choices": choices[: max(marks, 1)]}
    if effect == "cunning":
        choices = [{"value": k, "label": r.name} for k, r in rs.roles.items()]
        return {"kind": "select", "label": _("猜测身份"), "choices": choices}
    if effect == "whisper":
        limit = int(rs.params.get("whisper_max", 10))
        return {
            "kind": "text",
            "label": _("传音内容（不多于%(n)s个字）") % {"n": limit},
            "max": limit * 4,
        }
    if skill.key == "wish_effect":  # [096] 许愿: the wished one chooses one of three effects
        choices = [
            {"value": "1", "label": _("1：当晚免疫一次伤害")},
            {"value": "2", "label": _("2：选择获知一名角色的当前所属阵营")},
            {"value": "3", "label": _("3：选择一名角色，若其持有亡灵圣物，获得之")},
        ]
        return {
            "kind": "select",
            "label": _("许愿效果"),
            "choices": choices,
            "hint": _("效果2、3须同时选择一名角色；效果1不选择角色。"),
        }
    if effect == "borrowed":
        choices = []
        for key in view.get("lin_feng", {}).get("borrow", {}).get("skills", []):
            inner = rs.skills.get(key)
            if inner is None:
                continue
            if inner.effect == "zhen":
                choices += [
                    {
                        "value": f"{key}:{n}",
                        "label": _("%(name)s（%(n)s）") % {"name": inner.name, "n": n},
                    }
                    for n in "123"
                ]
            else:
                choices.append({"value": key, "label": inner.name})
        return {"kind": "select", "label": _("借用的技能"), "choices": choices}
    return None


# A window's button when 发动 would not say what it does ([096] 虚体: 明示身份).
VERBS = {"ethereal": gettext_lazy("明示身份")}


def _optional_one(skill: Skill) -> bool:
    return skill.window is not None and skill.targets == "0-1"


def _targets(view: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    if rule == "teammate":
        return [t for t in view.get("team", []) if t["alive"]]
    alive = [p for p in view["players"] if p["alive"]]
    if rule == "other":
        return [p for p in alive if p["id"] != view["id"]]
    return alive


def _when(moment: float) -> datetime:
    return datetime.fromtimestamp(moment, tz=timezone.get_current_timezone())


def _context(game: Game, character: Character, now: datetime) -> dict[str, Any]:
    page = selectors.player_page(game=game, character=character, now=now)["me"]
    rs = get_ruleset(game.ruleset)
    names = {p["id"]: p["name"] for p in page["players"]}
    usable = [
        {
            **u,
            "until_at": _when(u["until"]),
            "left": max(0, int(u["until"] - now.timestamp())),
            "targets": _targets(page, rs.skills[u["skill"]].target),
            "count": _count(page, rs.skills[u["skill"]]),
            # One target: a select; none: no control; another count: checkboxes — but a
            # window's optional one (096's 许愿 effect) is a select that may stay empty.
            "multi": _count(page, rs.skills[u["skill"]]) not in ((1, 1), (0, 0))
            and not _optional_one(rs.skills[u["skill"]]),
            "optional": _optional_one(rs.skills[u["skill"]]),
            "verb": VERBS.get(u["skill"], ""),
            "none": _count(page, rs.skills[u["skill"]]) == (0, 0),
            "option": _options(page, rs.skills[u["skill"]], rs),
            # The browser fills in the chosen target's name (werewolf.js).
            "confirm": _confirm_text(rs.skills[u["skill"]], "{target}")
            if u["irreversible"]
            else "",
        }
        for u in page["usable"]
    ]
    log = _log(game, character)
    # The portal's ballot box serves only the days the forum has no vote thread for.
    box = page["vote"] if page["vote"] and page["day"] not in vote_days(game=game) else None
    team_night = page.get("team_night")
    picks: list[dict[str, str]] = []
    if team_night:
        elect = next(s.name for s in rs.skills.values() if s.handler == "elect")
        for skill, chosen in team_night["kills"].items():
            for actor, target in chosen.items():
                picks.append(
                    {
                        "who": names.get(int(actor), "?"),
                        "skill": rs.skills[skill].name,
                        "target": names.get(target, _("放弃")) if target is not None else _("放弃"),
                    }
                )
        for actor, target in team_night["votes"].items():
            picks.append(
                {
                    "who": names.get(int(actor), "?"),
                    "skill": elect,
                    "target": names.get(target, "?"),
                }
            )
    return {
        "game": game,
        "character": character,
        "me": page,
        "lf": _lin_feng(page, rs, names),
        "cn": _conan(page, rs),
        "sheriff_name": rs.sheriff_name,
        "card": page["card"],
        # 表演/挡刀 are bought at [099]'s auction; a ruleset without one has neither.
        "auction": rs.has_auction,
        "usable": usable,
        "sense": log["sense"],
        "leader": names.get(team_night["leader"]) if team_night and team_night["leader"] else "",
        "picks": picks,
        "can_surrender": page["alive"] and page["card"]["faction"] in rs.surrender,
        "surrender_asked": log["surrender_asked"],
        "vote": box,
        "vote_mine": names.get(box["mine"], "") if box and box["mine"] else "",
        "vote_result": log["result"],
        "players": page["players"],
        "log": log["lines"],
        "key": uuid.uuid4().hex,
        "over": page["winner"] is not None,
        # 夜晚已结束，等待导演公布: nothing left for this player tonight, or the night drafted.
        "waiting": page["night_done"] and page["winner"] is None,
        "confirm": None,
        "config": {
            "game": game.pk,
            "text": {
                "left": _("还剩 %(time)s"),
                "over": _("已截止"),
                "hours": _("%(n)s小时"),
                "minutes": _("%(n)s分"),
                "seconds": _("%(n)s秒"),
                # What a form sent over the socket shows, as the posted form's page does.
                "submitted": _("已提交。"),
            },
        },
    }


def _conan(page: dict[str, Any], rs: Any) -> dict[str, Any] | None:
    """[096]'s own facts of this player (``player_view(...)["conan"]``): its HP, the skills in
    cooldown with the days left, its <开关> switches and the groups (共群) it is in."""
    extra = page.get("conan")
    if extra is None:
        return None
    on = extra.get("on", {})
    facts = {
        "hp": extra.get("hp"),
        "cooldowns": [
            {"name": rs.skills[k].name, "days": v} for k, v in extra.get("cooldowns", {}).items()
        ],
        "toggles": [
            {"key": s["key"], "name": s["name"], "on": bool(on.get(s["key"]))}
            for s in page["card"]["skills"]
            if "开关" in s["tags"]
        ],
        "groups": extra.get("groups", []),
        "can_toggle": page["alive"] and page["winner"] is None,
        # 亡灵圣物 as far as it was told (RULINGS 096-15): never the curse count, which the
        # post tells no one once 光明之魂/灵能 change it.
        "relic": page.get("conan_relic"),
        "statuses": [
            {"key": k, "name": name, "rule": STATUS_RULES.get(k, "")}
            for k, name in (page.get("conan_status") or {}).get("statuses", {}).items()
        ],
        "ethereal": bool((page.get("conan_undead") or {}).get("ethereal")),
        "commune": (page.get("conan_undead") or {}).get("commune"),
    }
    # A 精灵 with no HP, cooldown, switch, group, relic or status has no card of its own state.
    shown = ("cooldowns", "toggles", "groups", "relic", "statuses", "ethereal", "commune")
    return facts if facts["hp"] is not None or any(facts[k] for k in shown) else None


# What each [096] status asks of its holder, from the post: a 变羊 must say 咩 in every post,
# so it must know it is a sheep (异常状态: 违反变羊、石化状态的限制… 冷却+1).
STATUS_RULES = {
    "bound": gettext_lazy(
        "主动技能目标必须包含“树妖”，不发动则进入至少为1的冷却（持续至当晚结束）。"
    ),
    "sheep": gettext_lazy("投票和技能均对巫师无效，且每次发言必须有“咩”字。"),
    "stone": gettext_lazy("投票无效，且发言只能使用表情。"),
}


def _lin_feng(page: dict[str, Any], rs: Any, names: dict[int, str]) -> dict[str, Any] | None:
    """[061]'s own facts of this player (the engine's ``player_view(...)["lin_feng"]``): its
    roster (妖狐/毒士 互知, the 狼王's wolf list — names only), the 狼群 it is in, its ‹炼›
    marks, the skills a 狡黠 offers, the public 吹笛/票台, and the 不定's one question."""
    extra = page.get("lin_feng")
    if extra is None:
        return None
    skills = {s["key"] for s in page["card"]["skills"]}
    asked = [f for f in page["feedback"] if f.get("kind") == "ask"]
    borrow = extra.get("borrow") or {}
    return {
        "roster": extra.get("roster"),
        "roster_wolves": page["card"]["role"] == rs.params.get("king_role"),
        "pack": extra.get("pack"),
        "marks": extra.get("marks"),
        "borrow": [rs.skills[k].name for k in borrow.get("skills", []) if k in rs.skills],
        "piped": [names.get(i, "?") for i in extra.get("piped", [])],
        "stage": [names.get(i, "?") for i in extra.get("stage", [])],
        # 不定阵营的角色有且仅有一次机会询问导演: the button until asked, then the answer.
        "ask": "ask" in skills and not asked and page["winner"] is None,
        "answer": asked[-1]["text"] if asked else "",
    }


def _unconfirmed(
    request: HttpRequest, game: Game, skill_key: str, target: int
) -> dict[str, Any] | None:
    """An irreversible use (``irreversible`` in the ruleset: 救药, 毒药, 爱慕, 最后一枪 …) posted
    without ``confirmed``: the question to ask first, naming the target (without JavaScript the
    page asks it; werewolf.js asks before posting and sends ``confirmed``)."""
    skill = get_ruleset(game.ruleset).skills.get(skill_key)
    if skill is None or not skill.irreversible or request.POST.get("confirmed") == "1":
        return None
    name = game.characters.filter(pk=target).values_list("name", flat=True).first()
    if name is None:
        return None  # the engine refuses the target
    return {
        "skill": skill.key,
        "target": target,
        "text": _confirm_text(skill, name),
        "key": request.POST.get("key", ""),
        "option": request.POST.get("option", ""),
    }


def _submit(request: HttpRequest, game: Game, character: Character) -> dict[str, Any] | None:
    """Submit the posted form; an irreversible use not yet confirmed returns its question."""
    op = request.POST.get("op", "")
    data: dict[str, Any] = {"kind": op}
    if op in ("use_skill", "forgo"):
        data["skill"] = request.POST.get("skill", "")
    if op == "ask":  # the 不定's one question to the director (询问阵营)
        data = {"kind": "use_skill", "skill": "ask", "targets": []}
    if op == "use_skill":
        posted = [t for t in request.POST.getlist("target") if t != ""]
        if not all(t.isdigit() for t in posted):
            messages.error(request, _("请先选择目标。"))
            return None
        skill = get_ruleset(game.ruleset).skills.get(data["skill"])
        if not posted and (skill is None or skill.targets == "1"):
            messages.error(request, _("请先选择目标。"))
            return None
        data["targets"] = [int(t) for t in posted]
        option = request.POST.get("option", "").strip()
        if option:
            data["option"] = option
        if len(posted) == 1:
            ask = _unconfirmed(request, game, data["skill"], int(posted[0]))
            if ask is not None:
                return ask
    if op == "vote":
        target = request.POST.get("target", "")
        if not target.isdigit():
            messages.error(request, _("请先选择投票对象。"))
            return None
        data["target"] = int(target)
    if op == "surrender_answer":
        data["accept"] = request.POST.get("accept") == "1"
    try:
        services.werewolf_action_submit(
            game_id=game.pk,
            character_id=character.pk,
            data=data,
            key=request.POST.get("key") or None,
            now=timezone.now(),
        )
    except RuleError as e:
        # In the page's language, as the API (and so the socket, which werewolf.js uses when
        # it is open) words the same refusal.
        messages.error(request, e.as_dict(english=get_language().startswith("en"))["message"])
    else:
        messages.success(request, _("已提交。"))
    return None


def player_page(request: HttpRequest, game: Game, character: Character) -> HttpResponse:
    """The character's portal; a POST submits a skill and comes back here (an irreversible
    one not yet confirmed shows its question instead); ``?part=state``."""
    ask = None
    if request.method == "POST":
        ask = _submit(request, game, character)
        if ask is None:
            return redirect(request.path)
    try:
        context = _context(game, character, timezone.now())
    except NotSetUp:  # roles not dealt yet
        return render(request, "werewolf/not_ready.html", {"game": game, "character": character})
    context["confirm"] = ask
    if request.GET.get("part") == "state":
        return render(request, "werewolf/_state.html", context)
    return render(request, "werewolf/player.html", context)
