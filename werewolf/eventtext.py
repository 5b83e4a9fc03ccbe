"""The role games' log sentences (版杀): one per event kind the werewolf engine and shell log.

Roles, factions, skills and night steps are named from the ruleset data; a director reads each
player with the role it holds (``先知 P6``), which the players' own events never say. Public
announcements already carry the post-style line everyone read (``text``), shown as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_noop

from games.engine.errors import RuleError
from games.eventlog import (
    CharactersFn,
    EventText,
    LogContext,
    MissingPlayerText,
    Payload,
    _,
    action_actor,
    day_text,
    epoch_text,
    ids_in,
    keys,
    lazy_text,
    listing,
    phase_changed,
    phase_moved,
    register_portal_kinds,
    register_texts,
    short,
    text_or,
    votes_number,
    votes_text,
)
from games.models import TRANSITION_LABELS
from werewolf.engine import Ruleset, get_ruleset


@dataclass
class Lookup:
    rs: Ruleset | None
    roles: dict[int, str] = field(default_factory=dict)  # character id -> role key

    def role(self, key: Any) -> str:
        role = self.rs.roles.get(str(key)) if self.rs is not None else None
        return role.name if role is not None else ""

    def faction(self, key: Any) -> str:
        faction = self.rs.factions.get(str(key)) if self.rs is not None else None
        return faction.name if faction is not None else _("某阵营")

    def skill(self, key: Any) -> str:
        skill = self.rs.skills.get(str(key)) if self.rs is not None else None
        return skill.name if skill is not None else _("技能")

    @property
    def auction(self) -> bool:
        """The ruleset has a 竞拍贴 (表演/挡刀 mean something: [099], not [061])."""
        return self.rs is None or self.rs.has_auction

    def status(self, key: Any) -> str:
        names = self.rs.status_names if self.rs is not None else {}
        return str(names.get(str(key), _("异常")))

    def group(self, key: Any) -> str:
        group = self.rs.groups.get(str(key)) if self.rs is not None else None
        return str(group["name"]) if group is not None else _("群")

    def step(self, key: Any) -> str:
        if self.rs is not None:
            for step in self.rs.night_steps:
                if step.key == key:
                    return step.name
        return _("夜间行动")


def _context(ctx: LogContext) -> Lookup:
    from werewolf import store
    from werewolf.errors import NotSetUp

    try:
        rs: Ruleset | None = get_ruleset(ctx.game.ruleset)
    except (KeyError, LookupError, ValueError, RuleError):
        rs = None  # a post whose ruleset is not written yet: payload texts only
    look = Lookup(rs=rs)
    try:
        state = store.state_load(ctx.game)
    except NotSetUp:
        return look
    look.roles = {pid: p.role for pid, p in state.players.items()}
    return look


def _look(ctx: LogContext) -> Lookup:
    return ctx.extra if isinstance(ctx.extra, Lookup) else Lookup(rs=None)


def who(cid: Any, ctx: LogContext) -> str:
    """A player as the directors read it: its role, then its name (``先知 P6``)."""
    look = _look(ctx)
    try:
        role = look.role(look.roles.get(int(cid), ""))
    except (TypeError, ValueError):
        role = ""
    name = ctx.name(cid)
    return f"{role} {name}" if role else name


def _subject(ctx: LogContext) -> str:
    return who(ctx.subject_id(), ctx)


def _named(rows: Any, ctx: LogContext) -> str:
    shown = []
    for row in rows or []:
        if isinstance(row, Mapping):
            shown.append(str(row.get("name") or ctx.name(row.get("id"))))
        else:
            shown.append(ctx.name(row))
    return listing(shown) if shown else _("无")


def _target(p: Payload, ctx: LogContext) -> str:
    """The target(s) of a submission, with its option in words ([061]: 狡黠's guess, 公示…)."""
    if p.get("targets") is not None:
        names = listing(ctx.name(t) for t in p["targets"])
        return f"{names or _('（无目标）')}{p.get('option_text', '')}"
    if p.get("target") is None:
        return _("（无目标）")
    return str(p.get("target_name") or ctx.name(p["target"]))


# --- the deal --------------------------------------------------------------------------------


def _deal(p: Payload, ctx: LogContext) -> str:
    look = _look(ctx)
    roles = {int(k): str(v) for k, v in (p.get("roles") or {}).items()}
    look.roles.update(roles)  # a re-deal: what later lines of this render say
    by_role: dict[str, list[str]] = {}
    for cid, role in roles.items():
        by_role.setdefault(look.role(role) or _("未知身份"), []).append(ctx.name(cid))
    shown = _("；").join(f"{role} {listing(names)}" for role, names in by_role.items())
    return _("发身份：%(roles)s") % {"roles": shown or _("无")}


def _role_card(p: Payload, ctx: LogContext) -> str:
    skills = _("技能 %(list)s") % {
        "list": listing(f"[{s.get('name')}]" for s in p.get("skills") or []) or _("无")
    }
    words = {
        "name": ctx.subject(),
        "role": p.get("name", ""),
        "faction": p.get("faction_name", ""),
        "act": p.get("act", 0),
        "block": p.get("block", 0),
        "skills": skills,
    }
    if not _look(ctx).auction:
        return _("%(name)s 收到身份牌：%(role)s（%(faction)s），%(skills)s") % words
    return (
        _("%(name)s 收到身份牌：%(role)s（%(faction)s），表演 %(act)s，挡刀 %(block)s，%(skills)s")
        % words
    )


def _team(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 得知%(faction)s成员：%(members)s") % {
        "name": ctx.subject(),
        "faction": _look(ctx).faction(p.get("faction")),
        "members": _named(p.get("members"), ctx),
    }


def _roster(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 得知%(faction)s名单（不含身份）：%(members)s") % {
        "name": ctx.subject(),
        "faction": _look(ctx).faction(p.get("faction")),
        "members": _named(p.get("members"), ctx),
    }


def _converted(p: Payload, ctx: LogContext) -> str:
    faction = p.get("faction_name") or _look(ctx).faction(p.get("faction") or p.get("to"))
    if p.get("id") is not None:  # the directors' line
        return _("%(name)s 因%(why)s转入%(faction)s") % {
            "name": who(p.get("id"), ctx),
            "why": p.get("why", ""),
            "faction": faction,
        }
    return _("%(name)s 被告知已转入%(faction)s") % {"name": ctx.subject(), "faction": faction}


# --- the night -------------------------------------------------------------------------------


def night_name(day: Any) -> str:
    """第 N 夜; the night before day 1 ([061]'s 附身/遇难/票台, which the post leaves unnamed) is
    the 开局夜."""
    if not day:
        return str(_("开局夜"))
    return str(_("第 %(day)s 夜") % {"day": day})


def _night_open(p: Payload, ctx: LogContext) -> str:
    return _("%(night)s开始，夜间技能可以提交") % {"night": night_name(p.get("day"))}


def _step_open(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 的「%(step)s」开始，截止 %(deadline)s") % {
        "name": _subject(ctx),
        "step": p.get("name") or _look(ctx).step(p.get("step")),
        "deadline": epoch_text(p.get("deadline")) or _("（未定）"),
    }


def _submitted(p: Payload, ctx: LogContext) -> str:
    skill = p.get("name") or _look(ctx).skill(p.get("skill"))
    actor = who(p["actor"], ctx) if "actor" in p else _subject(ctx)
    return _("%(actor)s 提交[%(skill)s]：%(target)s") % {
        "actor": actor,
        "skill": skill,
        "target": _target(p, ctx),
    }


def _team_pick(p: Payload, ctx: LogContext) -> str:
    return _("%(by)s 为团队提交[%(skill)s]：%(target)s") % {
        "by": who(p.get("by"), ctx),
        "skill": p.get("name") or _look(ctx).skill(p.get("skill")),
        "target": _target(p, ctx),
    }


def _toggled(p: Payload, ctx: LogContext) -> str:
    on = _("开启") if p.get("on") else _("关闭")
    return _("%(name)s %(on)s了[%(skill)s]") % {
        "name": who(p.get("actor"), ctx) if p.get("actor") is not None else _subject(ctx),
        "on": on,
        "skill": p.get("name") or _look(ctx).skill(p.get("skill")),
    }


def _cooldown(p: Payload, ctx: LogContext) -> str:
    skill = p.get("name") or _look(ctx).skill(p.get("skill"))
    if p.get("on"):
        return _("%(name)s 的[%(skill)s]进入冷却（%(days)s 天）") % {
            "name": _subject(ctx),
            "skill": skill,
            "days": p.get("days"),
        }
    return _("%(name)s 的[%(skill)s]解除冷却") % {"name": _subject(ctx), "skill": skill}


def _flipped(p: Payload, ctx: LogContext) -> str:
    look = _look(ctx)
    if p.get("from"):
        return _("%(name)s 翻转身份：%(old)s → %(new)s") % {
            "name": who(p.get("id"), ctx),
            "old": look.role(p.get("from")),
            "new": look.role(p.get("to")),
        }
    return _("%(name)s 翻转身份，成为 %(new)s") % {"name": _subject(ctx), "new": p.get("name")}


def _speech_penalty(p: Payload, ctx: LogContext) -> str:
    status = _look(ctx).status(p.get("status"))
    return _("%(name)s 的发言违反%(status)s状态的限制：所有非被动技能冷却+1") % {
        "name": who(p.get("id"), ctx) if p.get("id") is not None else _subject(ctx),
        "status": status,
    }


def _idle(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 被红牌罚下，进入挂机状态") % {"name": who(p.get("id"), ctx)}


def _left_group(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 因挂机离开了%(group)s") % {
        "name": who(p.get("id"), ctx),
        "group": _look(ctx).group(p.get("group")),
    }


def _team_vote(p: Payload, ctx: LogContext) -> str:
    return _("%(by)s 在[选举]中投给 %(target)s") % {
        "by": who(p.get("by"), ctx),
        "target": _target(p, ctx),
    }


def _leader(p: Payload, ctx: LogContext) -> str:
    if "votes" not in p:
        return _("%(name)s 得知主刀狼：%(leader)s") % {
            "name": ctx.subject(),
            "leader": p.get("name") or ctx.name(p.get("leader")),
        }
    if p.get("alone"):
        return _("%(leader)s 是唯一能行动的狼人，无需选举，直接成为主刀狼") % {
            "leader": who(p.get("leader"), ctx)
        }
    votes: dict[str, int] = {}
    for target in (p.get("votes") or {}).values():
        if target is not None:
            votes[ctx.name(target)] = votes.get(ctx.name(target), 0) + 1
    text = _("选举结果：%(leader)s 成为主刀狼（得票：%(votes)s）") % {
        "leader": who(p.get("leader"), ctx),
        "votes": listing(f"{n} {v}" for n, v in votes.items()) or _("无人投票"),
    }
    pool = p.get("drawn_from") or []
    if len(pool) > 1:
        text += _("，由种子从 %(pool)s 中抽出") % {"pool": ctx.names_of(pool)}
    return text


def _relic_curses(p: Payload, ctx: LogContext) -> str:
    return _("圣物诅咒次数+1（%(why)s），现为 %(curses)s") % {
        "why": p.get("why", ""),
        "curses": p.get("curses"),
    }


def _relic_moved(p: Payload, ctx: LogContext) -> str:
    return _("%(to)s 以[%(why)s]从 %(source)s 处获得亡灵圣物") % {
        "to": who(p.get("to"), ctx),
        "why": p.get("why", ""),
        "source": who(p.get("from"), ctx),
    }


def _forgone(p: Payload, ctx: LogContext) -> str:
    actor = who(p["actor"], ctx) if "actor" in p else _subject(ctx)
    return _("%(actor)s 放弃[%(skill)s]") % {
        "actor": actor,
        "skill": p.get("name") or _look(ctx).skill(p.get("skill")),
    }


def _forfeited(p: Payload, ctx: LogContext) -> str:
    look = _look(ctx)
    actor = who(p["actor"], ctx) if "actor" in p else _subject(ctx)
    what = (
        _("「%(step)s」") % {"step": p.get("name") or look.step(p["step"])}
        if "step" in p
        else f"[{p.get('name') or look.skill(p.get('skill'))}]"
    )
    text = _("%(actor)s 未在时限内行动，视为放弃%(what)s") % {"actor": actor, "what": what}
    forced = p.get("forced") or []
    if forced:
        text += _("（其中<强制>技能：%(skills)s）") % {
            "skills": listing(f"[{look.skill(s)}]" for s in forced)
        }
    return text


def _sense(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s [%(skill)s]得知今晚的有效指杀目标：%(targets)s") % {
        "name": _subject(ctx),
        "skill": p.get("skill", ""),
        "targets": _named(p.get("targets"), ctx),
    }


def _hits(hits: Any, ctx: LogContext) -> str:
    shown = [
        _("%(name)s（%(cause)s）") % {"name": ctx.name(h[0]), "cause": h[1]}
        for h in hits or []
        if isinstance(h, list) and len(h) >= 2
    ]
    return listing(shown) if shown else _("无人")


def _night_draft(p: Payload, ctx: LogContext) -> str:
    trace = "".join(str(t.get("text", "")) for t in p.get("trace") or [])
    return _("%(day)s夜晚结算草稿：出局 %(outs)s。过程：%(trace)s") % {
        "day": day_text(p.get("day")),
        "outs": _hits(p.get("outs"), ctx),
        "trace": trace or _("无"),
    }


def _night_override(p: Payload, ctx: LogContext) -> str:
    text = _("导演修改夜晚结算：出局 %(applied)s（草稿为 %(engine)s）") % {
        "applied": _hits(p.get("applied"), ctx),
        "engine": _hits(p.get("engine"), ctx),
    }
    if "feedback_applied" in p:
        changed = [ctx.name(pid) for pid in (p.get("feedback_applied") or {})]
        text += _("；修改私信反馈：%(names)s") % {"names": listing(changed) or _("无")}
    if "effects_applied" in p:
        text += _("；调整了夜间效果")
    return text


def _out(p: Payload, ctx: LogContext) -> str:
    if "role" in p:
        return _("%(name)s（%(role)s）出局：%(cause)s") % {
            "name": p.get("name") or ctx.name(p.get("id")),
            "role": p.get("role", ""),
            "cause": p.get("cause", ""),
        }
    when = _("夜间") if p.get("night") else _("白天")
    return _("%(name)s 出局（%(cause)s，%(day)s%(when)s）") % {
        "name": who(p.get("id"), ctx),
        "cause": p.get("cause", ""),
        "day": day_text(p.get("day")),
        "when": when,
    }


def _you_are_out(p: Payload, ctx: LogContext) -> str:
    if p.get("cause"):
        return _("%(name)s 被告知自己已出局（%(cause)s）") % {
            "name": ctx.subject(),
            "cause": p["cause"],
        }
    return _("%(name)s 被告知自己昨夜出局") % {"name": ctx.subject()}


def _window_open(p: Payload, ctx: LogContext) -> str:
    if p.get("closes") == "night_open":
        return _("%(name)s 可在下一个夜晚开始（关门）前发动[%(skill)s]") % {
            "name": _subject(ctx),
            "skill": p.get("name") or _look(ctx).skill(p.get("skill")),
        }
    return _("%(name)s 可在 %(until)s 前发动[%(skill)s]") % {
        "name": _subject(ctx),
        "until": epoch_text(p.get("until")) or _("时限内"),
        "skill": p.get("name") or _look(ctx).skill(p.get("skill")),
    }


def _feedback(p: Payload, ctx: LogContext) -> str:
    kind = p.get("kind")
    name = _subject(ctx)
    if kind == "divine":
        target = p.get("target_name") or ctx.name(p.get("target"))
        if p.get("failed"):
            return _("%(name)s 的查验结果：%(target)s 查验无效") % {"name": name, "target": target}
        return _("%(name)s 的查验结果：%(target)s 是%(role)s") % {
            "name": name,
            "target": target,
            "role": p.get("role", ""),
        }
    if kind == "longevity":
        return _("%(name)s 被告知[长生]已发动，没有出局") % {"name": name}
    if kind == "note":
        return _("导演私信 %(name)s：「%(text)s」") % {
            "name": ctx.subject(),
            "text": p.get("text", ""),
        }
    return _("%(name)s 收到夜晚反馈") % {"name": name}


# --- the day ---------------------------------------------------------------------------------


def _day_open(p: Payload, ctx: LogContext) -> str:
    return _("%(day)s开门：昨夜出局 %(outs)s") % {
        "day": day_text(p.get("day")),
        "outs": _named(p.get("night_out"), ctx),
    }


def _vote_result(p: Payload, ctx: LogContext) -> str:
    totals = [
        votes_text(t[1], t[2]) for t in p.get("totals") or [] if isinstance(t, list) and len(t) >= 3
    ]
    text = _("%(day)s投票结果：%(totals)s") % {
        "day": day_text(p.get("day")),
        "totals": listing(totals) or _("无有效票"),
    }
    return text + (_("（平票）") if p.get("tie") else "")


def _ballot(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 在网页投票：%(target)s") % {"name": ctx.subject(), "target": _target(p, ctx)}


def _skills_lost(p: Payload, ctx: LogContext) -> str:
    if "faction" in p:
        return _("%(faction)s失去全部技能") % {"faction": _look(ctx).faction(p["faction"])}
    return _("%(name)s 被告知失去了全部技能") % {"name": _subject(ctx)}


def _faction_lost(p: Payload, ctx: LogContext) -> str:
    return _("%(faction)s判负（%(why)s），仅导演可见，游戏结束时公布") % {
        "faction": _look(ctx).faction(p.get("faction")),
        "why": p.get("why") or _("未写原因"),
    }


def _surrender_asked(p: Payload, ctx: LogContext) -> str:
    if "faction" in p:
        return _("%(by)s 提议%(faction)s投降") % {
            "by": who(p.get("by"), ctx),
            "faction": _look(ctx).faction(p["faction"]),
        }
    return _("%(name)s 得知 %(by)s 提议投降") % {
        "name": ctx.subject(),
        "by": p.get("by_name") or ctx.name(p.get("by")),
    }


def _surrender_refused(p: Payload, ctx: LogContext) -> str:
    if "by_name" in p:
        return _("%(name)s 得知 %(by)s 拒绝投降，投降取消") % {
            "name": ctx.subject(),
            "by": p["by_name"],
        }
    return _("%(by)s 拒绝投降，投降取消") % {"by": who(p.get("by"), ctx)}


def _co_winners(p: Payload) -> str:
    """096's 中立 winning beside the winner (共同胜利), as an aside; "" when none."""
    names = [str(n) for n in p.get("co_winner_names") or []]
    return _("（%(factions)s共同胜利）") % {"factions": listing(names)} if names else ""


def _game_over(p: Payload, ctx: LogContext) -> str:
    roles = [
        f"{r.get('name') or ctx.name(r.get('id'))} {r.get('role', '')}"
        for r in p.get("roles") or []
    ]
    winner = p.get("winner_name") or (_look(ctx).faction(p["winner"]) if p.get("winner") else "")
    head = _("游戏结束：%(winner)s获胜") % {"winner": winner} if winner else _("游戏结束：无人获胜")
    head += _co_winners(p)
    return head + _("；身份揭晓：%(roles)s") % {"roles": listing(roles) or _("无")}


RED_CARD_EFFECTS = {"eliminate": gettext_noop("出局"), "idle": gettext_noop("进入挂机状态")}


def _red_card(p: Payload, ctx: LogContext) -> str:
    effect = RED_CARD_EFFECTS.get(str(p.get("effect")))
    name = p.get("name") or ctx.name(p.get("character"))
    if effect is None:
        return _("%(name)s 被红牌罚下") % {"name": name}
    return _("%(name)s 被红牌罚下：%(effect)s") % {"name": name, "effect": _(effect)}


def _pull_failed(p: Payload, ctx: LogContext) -> str:
    return _("%(day)s关门前最后一次拉取投票帖失败（按已存的帖子计票）：%(text)s") % {
        "day": day_text(p.get("day")),
        "text": short(p.get("text"), 100) or _("原因不明"),
    }


OPS = {
    "setup": gettext_noop("发身份"),
    "deal": gettext_noop("重新发身份"),
    "night_open": gettext_noop("夜晚开始"),
    "deadline_pass": gettext_noop("时限检查"),
    "night_resolve": gettext_noop("夜晚结算草稿"),
    "night_publish": gettext_noop("公布夜晚结算"),
    "day_vote": gettext_noop("白天投票结算"),
    "red_card": gettext_noop("红牌罚下"),
    "faction_forfeit": gettext_noop("阵营判负"),
}
ACTIONS = {
    "use_skill": gettext_noop("发动技能"),
    "forgo": gettext_noop("放弃技能"),
    "surrender": gettext_noop("投降"),
    "surrender_answer": gettext_noop("回应投降"),
    "vote": gettext_noop("网页投票"),
}


def _op(op: Any) -> str:
    if str(op) in OPS:
        return _(OPS[str(op)])
    label = TRANSITION_LABELS.get(str(op))
    return lazy_text(label) if label is not None else _("其他")


def _engine_step(p: Payload, ctx: LogContext) -> str:
    if p.get("op") == "action":
        action = p.get("action") or {}
        label = ACTIONS.get(str(action.get("kind")))
        what = _(label) if label is not None else _("行动")
        if action.get("skill"):
            what += f"[{_look(ctx).skill(action['skill'])}]"
        return _("引擎步骤：%(name)s 的行动（%(what)s）") % {
            "name": ctx.name(action.get("actor")),
            "what": what,
        }
    return _("引擎步骤：%(op)s") % {"op": _op(p.get("op"))}


def _step_skipped(p: Payload, ctx: LogContext) -> str:
    return _("定时步骤「%(op)s」未执行（引擎拒绝），游戏状态不变") % {"op": _op(p.get("op"))}


def _firsts(name: str) -> CharactersFn:
    """The characters first in each row of a list (``[[id, cause], ...]``)."""
    return lambda p: ids_in([row[0] for row in p.get(name) or [] if row])


def _day_moves(p: Payload) -> tuple[int, str] | None:
    return phase_moved(p) if p.get("transition") in ("day_open", "day_close") else None


TEXTS: dict[str, EventText] = {
    "deal": EventText(gettext_noop("发身份"), _deal),
    "role_card": EventText(gettext_noop("发身份"), _role_card),
    "team": EventText(gettext_noop("发身份"), _team, characters=keys("members")),
    # A role game's night n comes before its day n (the engine's numbering): the night's own
    # event moves the log to it, and the core's night transitions (no-ops here) do not.
    "night_open": EventText(
        gettext_noop("阶段切换"), _night_open, phase=lambda p: (int(p.get("day") or 0), "night")
    ),
    "phase_changed": EventText(gettext_noop("阶段切换"), phase_changed, phase=_day_moves),
    "step_open": EventText(gettext_noop("夜间行动"), _step_open),
    "submitted": EventText(gettext_noop("技能"), _submitted, characters=keys("actor", "target")),
    "team_pick": EventText(gettext_noop("技能"), _team_pick, characters=keys("by", "target")),
    "team_vote": EventText(gettext_noop("选举"), _team_vote, characters=keys("by", "target")),
    "toggled": EventText(gettext_noop("技能"), _toggled, characters=keys("actor")),
    "cooldown": EventText(gettext_noop("技能"), _cooldown),
    "flipped": EventText(gettext_noop("翻转身份"), _flipped, characters=keys("id")),
    "idle": EventText(gettext_noop("判罚"), _idle, characters=keys("id")),
    "awakened": EventText(gettext_noop("觉醒"), text_or(gettext_noop("高塔阵营最后一人觉醒"))),
    "speech_penalty": EventText(gettext_noop("异常状态"), _speech_penalty, characters=keys("id")),
    "left_group": EventText(gettext_noop("判罚"), _left_group, characters=keys("id")),
    "relic_curses": EventText(gettext_noop("亡灵圣物"), _relic_curses),
    "relic_moved": EventText(gettext_noop("亡灵圣物"), _relic_moved, characters=keys("from", "to")),
    "ethereal": EventText(
        gettext_noop("技能"),
        text_or(gettext_noop("恶灵发动[虚体]，明示身份")),
        characters=keys("id"),
    ),
    # [096]'s 亡灵圣物 (a move, a notice the post names, 追踪/七轮感应法/全知's feedback)
    "relic": EventText(
        gettext_noop("亡灵圣物"),
        text_or(gettext_noop("亡灵圣物的消息")),
        characters=keys("holder", "target"),
    ),
    "leader_elected": EventText(
        gettext_noop("选举"),
        _leader,
        characters=lambda p: ids_in(p.get("leader"), p.get("drawn_from")),
    ),
    "forgone": EventText(gettext_noop("技能"), _forgone, characters=keys("actor")),
    "forfeited": EventText(gettext_noop("技能"), _forfeited, characters=keys("actor")),
    "sense": EventText(gettext_noop("技能"), _sense, characters=keys("targets")),
    "night_draft": EventText(
        gettext_noop("夜晚结算"),
        _night_draft,
        characters=_firsts("outs"),
    ),
    "night_override": EventText(
        gettext_noop("导演干预"),
        _night_override,
        characters=_firsts("applied"),
    ),
    "out": EventText(gettext_noop("出局"), _out, characters=keys("id")),
    "you_are_out": EventText(gettext_noop("出局"), _you_are_out),
    "window_open": EventText(gettext_noop("技能"), _window_open),
    "feedback": EventText(gettext_noop("夜晚反馈"), _feedback, characters=keys("target")),
    "day_open": EventText(gettext_noop("阶段切换"), _day_open, characters=keys("night_out")),
    "vote_result": EventText(
        gettext_noop("投票结果"),
        _vote_result,
        characters=_firsts("totals"),
    ),
    "ballot": EventText(gettext_noop("投票"), _ballot, characters=keys("target")),
    "no_one_out": EventText(
        gettext_noop("投票结果"), text_or(gettext_noop("投票出现平票，无人出局。"))
    ),
    "feign": EventText(
        gettext_noop("技能"), text_or(gettext_noop("白痴发动[装傻]")), characters=keys("id")
    ),
    "lost_feign": EventText(gettext_noop("技能"), text_or(gettext_noop("白痴失去[装傻]"))),
    "sacrifice": EventText(
        gettext_noop("技能"), text_or(gettext_noop("高僧发动[献身]")), characters=keys("id")
    ),
    "substitute": EventText(
        gettext_noop("技能"),
        text_or(gettext_noop("情痴代替出局")),
        characters=keys("target", "lover"),
    ),
    "charm": EventText(gettext_noop("技能"), text_or(gettext_noop("梦中人发动[魅惑]"))),
    "shot": EventText(
        gettext_noop("技能"),
        text_or(gettext_noop("猎人发动[最后一枪]")),
        characters=keys("hunter", "target"),
    ),
    "sheriff": EventText(
        gettext_noop("警长"), text_or(gettext_noop("警长变更")), characters=keys("sheriff")
    ),
    "badge_withdrawn": EventText(gettext_noop("警长"), text_or(gettext_noop("警长由导演组收回"))),
    "skills_lost": EventText(gettext_noop("技能"), _skills_lost),
    "faction_lost": EventText(gettext_noop("胜负"), _faction_lost),
    "faction_forfeit": EventText(gettext_noop("胜负"), text_or(gettext_noop("阵营判负"))),
    "surrender_asked": EventText(gettext_noop("投降"), _surrender_asked, characters=keys("by")),
    "surrender_refused": EventText(gettext_noop("投降"), _surrender_refused, characters=keys("by")),
    "surrender": EventText(gettext_noop("投降"), text_or(gettext_noop("投降，判负"))),
    "game_over": EventText(gettext_noop("游戏结束"), _game_over, characters=keys("roles")),
    "red_card": EventText(gettext_noop("判罚"), _red_card, characters=keys("character")),
    "vote_reminder": EventText(gettext_noop("投票提醒"), text_or(gettext_noop("投票即将截止"))),
    # [061] 林峰
    "roster": EventText(gettext_noop("发身份"), _roster, characters=keys("members")),
    "converted": EventText(gettext_noop("阵营转换"), _converted, characters=keys("id")),
    "stage": EventText(gettext_noop("技能"), text_or(gettext_noop("铁柱公示票台名单"))),
    "pipe": EventText(gettext_noop("技能"), text_or(gettext_noop("有角色进入吹笛状态"))),
    "unpipe": EventText(gettext_noop("胜负"), text_or(gettext_noop("吹笛状态解除"))),
    "verify": EventText(gettext_noop("技能"), text_or(gettext_noop("游侠公示查证结果"))),
    "hunt": EventText(gettext_noop("技能"), text_or(gettext_noop("猎狼技能发动成功"))),
    "favor": EventText(
        gettext_noop("技能"),
        text_or(gettext_noop("天使发动[偏爱]")),
        characters=keys("angel", "target"),
    ),
    "possessed": EventText(
        gettext_noop("技能"), text_or(gettext_noop("幽灵发动[附身]")), characters=keys("id")
    ),
    "barrier": EventText(
        gettext_noop("技能"), text_or(gettext_noop("结界失效")), characters=keys("id")
    ),
    "legacy": EventText(
        gettext_noop("技能"), text_or(gettext_noop("人质发动[遗志]")), characters=keys("target")
    ),
    "role_shown": EventText(
        gettext_noop("出局"), text_or(gettext_noop("公示身份")), characters=keys("id")
    ),
    # [096] 名侦探柯南
    "status": EventText(
        gettext_noop("异常状态"), text_or(gettext_noop("异常状态变化")), characters=keys("id")
    ),
    "stone": EventText(
        gettext_noop("异常状态"), text_or(gettext_noop("角色进入石化状态")), characters=keys("id")
    ),
    "scales": EventText(
        gettext_noop("技能"), text_or(gettext_noop("黑龙发动[龙鳞]")), characters=keys("id")
    ),
    "vote_thread_pull_failed": EventText(gettext_noop("论坛"), _pull_failed),
    "werewolf_step_skipped": EventText(gettext_noop("引擎步骤"), _step_skipped),
    "engine_step": EventText(
        gettext_noop("引擎步骤"),
        _engine_step,
        step=True,
        characters=action_actor,
    ),
}

register_texts("werewolf", TEXTS, context=_context)


# --- what players read ---------------------------------------------------------------------

# The player's portal (werewolf/views.py) reads its log through ``player_line``: a line of the
# post (``text``) when the event carries one, else these.
PLAYER_LABELS = {
    "role_card": gettext_noop("身份卡：%(name)s（%(faction_name)s）"),
    "team": gettext_noop("你的队友已公布"),
    "step_open": gettext_noop("可以行动：%(name)s"),
    "submitted": gettext_noop("已提交 %(name)s → %(target_name)s"),
    "forgone": gettext_noop("已放弃 %(name)s"),
    "team_pick": gettext_noop("队友提交了 %(name)s → %(target_name)s"),
    "team_vote": gettext_noop("队友投票选举主刀狼 → %(target_name)s"),
    "flipped": gettext_noop("你翻转了身份，现在是 %(name)s"),
    "leader_elected": gettext_noop("主刀狼：%(name)s"),
    "forfeited": gettext_noop("超时未行动，视为放弃：%(name)s"),
    "you_are_out": gettext_noop("你已出局"),
    "window_open": gettext_noop("可以发动 %(name)s"),
    "skills_lost": gettext_noop("你失去了全部技能"),
    "surrender_asked": gettext_noop("%(by_name)s 提议投降"),
    "surrender_refused": gettext_noop("%(by_name)s 拒绝投降，投降取消"),
    "day_open": gettext_noop("第 %(day)s 天开始"),
    "out": gettext_noop("%(name)s（%(role)s）出局：%(cause)s"),
    "vote_result": gettext_noop("第 %(day)s 天投票结果"),
    "ballot": gettext_noop("第 %(day)s 天你投票给 %(target_name)s"),
    "roster": gettext_noop("你得知了本阵营的角色名单（不含身份）"),
    "converted": gettext_noop("你已转入%(faction_name)s"),
}


def player_line(frame: Mapping[str, Any]) -> str:
    """A player's log line for one of its frames (``games.live.frame_for_player``)."""
    payload = frame["payload"]
    kind = frame["kind"]
    if payload.get("text"):
        return str(payload["text"])
    if frame.get("text"):  # a core event's sentence
        return str(frame["text"])
    if kind == "sense":
        names = listing(t["name"] for t in payload["targets"]) or _("无人")
        return _("%(skill)s：今晚被指杀的是 %(names)s") % {
            "skill": payload["skill"],
            "names": names,
        }
    if kind == "feedback" and payload.get("kind") == "divine":
        seen = payload.get("role") or _("查验无效")
        return _("预言：%(name)s 是 %(role)s") % {"name": payload["target_name"], "role": seen}
    if kind == "day_open":
        dead = listing(p["name"] for p in payload["night_out"]) or _("无人")
        return _("第 %(day)s 天开始，昨夜出局：%(dead)s") % {"day": payload["day"], "dead": dead}
    if kind == "vote_result":
        rows = _("，").join(
            f"{name} {votes_number(total)}" for _id, name, total in payload["totals"]
        )
        return _("第 %(day)s 天投票：%(rows)s") % {"day": payload["day"], "rows": rows or "—"}
    if kind == "game_over":
        roles = listing(
            _("%(name)s（%(role)s）") % {"name": r["name"], "role": r["role"]}
            for r in payload.get("roles") or []
        )
        return _("游戏结束：%(winner)s获胜%(co)s。身份揭晓：%(roles)s") % {
            "winner": payload.get("winner_name") or _("无人"),
            "co": _co_winners(payload),
            "roles": roles or _("无"),
        }
    if kind == "night_open":
        return _("%(night)s开始") % {"night": night_name(payload.get("day"))}
    if kind == "submitted" and "target_names" in payload:  # several targets or an option (061)
        return _("已提交 %(name)s → %(targets)s%(option)s") % {
            "name": payload.get("name", ""),
            "targets": listing(payload["target_names"]) or _("无目标"),
            "option": payload.get("option_text", ""),
        }
    if kind == "out" and "role" not in payload:  # [061]: a day out without its role
        return _("%(name)s 出局：%(cause)s") % {"name": payload["name"], "cause": payload["cause"]}
    if kind == "team_pick" and "target_names" in payload:
        # a team's wide pick: several targets (or none)
        targets = listing(payload["target_names"]) or "—"
        return _(PLAYER_LABELS[kind]) % {"name": payload["name"], "target_name": targets}
    label = PLAYER_LABELS.get(kind)
    if label is None:
        return _unwritten(kind, payload)
    try:
        return _(label) % payload
    except (KeyError, TypeError):
        return _unwritten(kind, payload)


def _unwritten(kind: str, payload: Mapping[str, Any]) -> str:
    """A frame with no sentence of its shape: the suite fails on it (``EVENT_TEXT_STRICT``), a
    player reads a neutral line rather than a code word."""
    if settings.EVENT_TEXT_STRICT:
        raise MissingPlayerText(f"no player sentence for {kind!r} with keys {sorted(payload)}")
    return str(_("（其他事件）"))


# Kinds with a sentence of their own in ``player_line`` besides PLAYER_LABELS; the portal
# shows neither the engine's steps nor the core's phases (its own night_open/day_open say where
# the game is).
PORTAL_KINDS = frozenset(
    {
        *PLAYER_LABELS,
        *("sense", "feedback", "night_open", "day_open", "vote_result", "game_over"),
        # [061]'s announcements carry the post's line (``text``)
        *("stage", "pipe", "unpipe", "verify", "hunt", "favor", "possessed", "barrier"),
        *("legacy", "role_shown"),
        *("engine_step", "phase_changed"),
    }
)
register_portal_kinds("werewolf", PORTAL_KINDS)
