"""The battle royale's log sentences (大逃杀): one per event kind the royale engine and shell log.

Directors' events carry ids (items, characters); the names come from the game's state (every
item ever created stays in ``GameState.items``) and the ruleset. Players' own events carry what
they were told, often as a second-person line; the log says it in the third person instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_noop

from games.eventlog import (
    EventText,
    LogContext,
    Payload,
    TextFn,
    _,
    action_actor,
    day_text,
    ids_in,
    keys,
    lazy_text,
    pair,
    place,
    register_portal_kinds,
    register_texts,
    text_or,
)
from games.models import TRANSITION_LABELS, Event, Game
from royale.engine import economy
from royale.engine import events as day_events
from royale.engine import npcs as npc_rules
from royale.engine.ruleset import ItemKind, Ruleset, get_ruleset
from royale.views import CATEGORY_LABELS, TIER_LABELS

# --- what a game's sentences look up ---------------------------------------------------------


@dataclass
class Lookup:
    """A royale game's item kinds by id and its ruleset, loaded once per context."""

    game: Game
    rs: Ruleset | None
    kinds: dict[int, str] = field(default_factory=dict)
    _missed: set[int] = field(default_factory=set)

    def learn(self, iid: Any, key: Any) -> None:
        if isinstance(iid, int) and isinstance(key, str):
            self.kinds.setdefault(iid, key)

    def load(self, ctx: LogContext, game: Game) -> None:
        from royale import store
        from royale.errors import NotSetUp

        try:
            state = store.state_load(game).state
        except NotSetUp:
            return
        for iid, item in state.items.items():
            self.kinds.setdefault(iid, item.kind)
        for cid, c in state.characters.items():
            if c.npc:
                ctx.names.setdefault(cid, c.name)

    def kind(self, iid: int, ctx: LogContext) -> ItemKind | None:
        if iid not in self.kinds and iid not in self._missed:
            # An item created after the context was built: the state is read again, fresh.
            self._missed.add(iid)
            self.load(ctx, Game.objects.get(pk=self.game.pk))
        key = self.kinds.get(iid)
        if key is None or self.rs is None:
            return None
        return self.rs.kinds.get(key)

    def key_kind(self, key: Any) -> ItemKind | None:
        if self.rs is None or not isinstance(key, str):
            return None
        return self.rs.kinds.get(key)


def _context(ctx: LogContext) -> Lookup:
    try:
        rs: Ruleset | None = get_ruleset(ctx.game.ruleset)
    except (KeyError, LookupError):
        rs = None
    look = Lookup(game=ctx.game, rs=rs)
    npcs = npc_rules.rules_of(rs) if rs is not None else None
    if npcs is not None:
        ctx.names.setdefault(npcs.adai.id, npcs.adai.name)
        ctx.names.setdefault(npcs.aben.id, npcs.aben.name)
    look.load(ctx, ctx.game)
    return look


def _look(ctx: LogContext) -> Lookup:
    extra = ctx.extra
    if isinstance(extra, Lookup):
        return extra
    return Lookup(game=ctx.game, rs=None)


def _label(name: str, category: Any, tier: Any) -> str:
    if tier and category in ("weapon", "armor"):
        return _("【%(name)s】（%(tier)s·%(category)s）") % {
            "name": name,
            "tier": _(TIER_LABELS.get(tier, tier)),
            "category": _(CATEGORY_LABELS.get(category, category)),
        }
    return f"【{name}】"


def item(ref: Any, ctx: LogContext) -> str:
    """An item as the directors read it: its name (with tier and category for equipment)."""
    if isinstance(ref, Mapping):
        if "name" in ref:
            return _label(str(ref["name"]), ref.get("category"), ref.get("tier"))
        ref = ref.get("item", ref.get("id"))
    look = _look(ctx)
    kind: ItemKind | None = None
    if isinstance(ref, int) and not isinstance(ref, bool):
        kind = look.kind(ref, ctx)
    elif isinstance(ref, str):
        kind = look.key_kind(ref)
    if kind is None:
        return _("【未知道具】")
    return _label(kind.name, kind.category, kind.tier)


def items(refs: Iterable[Any] | None, ctx: LogContext) -> str:
    shown = [item(r, ctx) for r in refs or []]
    return "、".join(shown) if shown else _("无")


def _key_name(key: Any, ctx: LogContext) -> str:
    """A kind key (``weapon:blue:复合弓``) or a selector (``weapon:blue``) in words."""
    look = _look(ctx)
    kind = look.key_kind(key)
    if kind is not None:
        return _label(kind.name, kind.category, kind.tier)
    parts = str(key).split(":")
    if len(parts) == 2 and parts[0] in CATEGORY_LABELS and parts[1] in TIER_LABELS:
        return _("任一%(tier)s色%(category)s") % {
            "tier": _(TIER_LABELS[parts[1]]),
            "category": _(CATEGORY_LABELS[parts[0]]),
        }
    return _("【未知道具】")


def _asks(asks: Any, ctx: LogContext) -> str:
    texts = [str(a) for a in asks or []]
    rs = _look(ctx).rs
    if rs is not None and all("*" in t for t in texts):
        try:
            texts = economy.ask_labels(rs, texts)
        except (KeyError, ValueError, LookupError):
            texts = []
    return _(" 或 ").join(texts) if texts else _("（无）")


def _money(amount: Any, ctx: LogContext) -> str:
    rs = _look(ctx).rs
    unit = economy.unit(rs) if rs is not None else "$"
    return f"{amount}{unit}"


def _event_name(key: Any, ctx: LogContext) -> str:
    """A daily event by its key (``villain``), or its name when the payload gives that."""
    rs = _look(ctx).rs
    rules = day_events.rules_of(rs) if rs is not None else None
    spec = rules.get(str(key)) if rules is not None else None
    if spec is not None:
        return spec.name
    text = str(key or "")
    return text if text and not text.isascii() else _("随机事件")


def _villain_title(ctx: LogContext) -> str:
    rs = _look(ctx).rs
    rules = day_events.rules_of(rs) if rs is not None else None
    spec = rules.get("villain") if rules is not None else None
    return str(spec.params.get("title")) if spec is not None else _("恶棍")


def _why(why: Any, ctx: LogContext) -> str:
    """Why an item came or went (the engine writes a short reason, some of it in English)."""
    text = str(why or "")
    fixed = {
        "director": _("导演"),
        "airdrop": _("空投"),
        "auction": _("拍卖行"),
        "npc": _("NPC 携带"),
        "riddle": _("谜题奖励"),
        "vote_reward": _("投票奖励"),
        "test_match_prize": _("测试赛奖励"),
        "test_match_supply": _("测试赛补给"),
        "no place to drop": _("无处掉落"),
        "drowned": _("淹死"),
        "shrink": _("缩圈"),
    }
    if text in fixed:
        return fixed[text]
    if text.startswith("shrink of "):
        return _("%(place)s消失") % {"place": place(text[len("shrink of ") :])}
    if text.endswith("_reward"):
        return _("【%(event)s】奖励") % {"event": _event_name(text[: -len("_reward")], ctx)}
    for tail in (" leaves", " makes way for a new one"):
        if text.endswith(tail):
            return _("%(npc)s离开") % {"npc": text[: -len(tail)]}
    if text.isascii():  # an event's key, or an engine note no director needs
        rs = _look(ctx).rs
        rules = day_events.rules_of(rs) if rs is not None else None
        spec = rules.get(text) if rules is not None else None
        return f"【{spec.name}】" if spec is not None else ""
    return text  # the engine's own Chinese (an event's name)


def _why_note(why: Any, ctx: LogContext) -> str:
    shown = _why(why, ctx)
    return _("（%(why)s）") % {"why": shown} if shown else ""


def _who(p: Payload, ctx: LogContext, key: str = "actor") -> str:
    return ctx.name(p[key]) if p.get(key) is not None else ctx.subject()


def _hp_mp(before: Any, after: Any) -> str:
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return ""
    parts = [
        _("生命 %(a)s→%(b)s") % {"a": before.get("hp"), "b": after.get("hp")},
        _("体力 %(a)s→%(b)s") % {"a": before.get("mp"), "b": after.get("mp")},
    ]
    if before.get("bleeding") and not after.get("bleeding"):
        parts.append(_("止血"))
    return "，".join(parts)


# --- night actions ---------------------------------------------------------------------------


def _spawned(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 出生在%(place)s") % {"name": _who(p, ctx), "place": place(p["place"])}


def _resting(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 选择今晚静养") % {"name": _who(p, ctx)}


def _moved(p: Payload, ctx: LogContext) -> str:
    name = _who(p, ctx)
    if "to" in p:
        cost = p.get("cost") or 0
        spent = _("，消耗体力 %(n)s") % {"n": cost} if cost else _("，免费")
        return _("%(name)s 从%(a)s移动到%(b)s%(spent)s") % {
            "name": name,
            "a": place(p.get("from")) if p.get("from") else _("（未出生）"),
            "b": place(p["to"]),
            "spent": spent,
        }
    return _("%(name)s 移动到%(place)s（体力剩 %(mp)s）") % {
        "name": name,
        "place": place(p["place"]),
        "mp": p.get("mp"),
    }


def _searched(p: Payload, ctx: LogContext) -> str:
    where = {"name": _who(p, ctx), "place": place(p["place"])}
    found = p.get("found")
    if found == "character":
        if "target" in p:
            return _("%(name)s 在%(place)s搜索：发现 %(target)s") % {
                **where,
                "target": ctx.name(p["target"]),
            }
        return _("%(name)s 在%(place)s搜索：发现一名角色（对其只显示为未知角色）") % where
    if found == "item":
        return _("%(name)s 在%(place)s搜索：发现道具%(item)s") % {
            **where,
            "item": item(p.get("item"), ctx),
        }
    return _("%(name)s 在%(place)s搜索：一无所获") % where


def _picked_up(p: Payload, ctx: LogContext) -> str:
    if p.get("place"):
        return _("%(name)s 在%(place)s捡起%(item)s") % {
            "name": _who(p, ctx),
            "place": place(p["place"]),
            "item": item(p["item"], ctx),
        }
    return _("%(name)s 捡起%(item)s") % {"name": _who(p, ctx), "item": item(p["item"], ctx)}


def _hit(p: Payload, ctx: LogContext) -> str:
    cid = ctx.subject_id()
    if cid is not None:
        ctx.memo.setdefault("hp", {})[cid] = int(p.get("hp") or 0)
    text = _("%(name)s 受到 %(damage)s 点伤害，生命剩 %(hp)s") % {
        "name": ctx.subject(),
        "damage": p.get("damage"),
        "hp": p.get("hp"),
    }
    if p.get("bleeding"):
        text += _("，正在流血")
    return text


def _damage_note(target: Any, damage: Any, ctx: LogContext) -> str:
    """ "（生命 70→40）" from the hit that told the target its HP: seen earlier in this render
    (the same engine step logs it just before the attack), else looked up beside the attack."""
    try:
        cid = int(target)
        after = ctx.memo.get("hp", {}).get(cid)
        if after is None:
            after = _hp_told(cid, ctx)
    except (TypeError, ValueError):
        return ""
    if after is None:
        return ""  # an NPC: nobody is told
    if after <= 0:
        return _("（生命 →0）")
    return _("（生命 %(a)s→%(b)s）") % {"a": after + int(damage), "b": after}


def _hp_told(cid: int, ctx: LogContext) -> int | None:
    event = ctx.event
    if event is None or event.pk is None:
        return None
    step = (
        Event.objects.filter(game_id=event.game_id, kind="engine_step", seq__lt=event.seq)
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    )
    told = (
        Event.objects.filter(
            game_id=event.game_id,
            kind="hit",
            audience_character_id=cid,
            seq__lt=event.seq,
            seq__gt=step or 0,
        )
        .values_list("payload", flat=True)
        .first()
    )
    return int(told.get("hp") or 0) if isinstance(told, Mapping) else None


def _attack(p: Payload, ctx: LogContext) -> str:
    target = p.get("target")
    damage = dict(p.get("damage") or {})
    main = damage.pop(str(target), 0)
    weapon = p.get("weapon")
    with_what = _("用%(item)s") % {"item": item(weapon, ctx)} if weapon is not None else _("徒手")
    text = _("%(name)s 在%(place)s%(with)s攻击 %(target)s，造成 %(damage)s 点伤害%(hp)s") % {
        "name": ctx.name(p.get("attacker")),
        "place": place(p.get("place")),
        "with": with_what,
        "target": ctx.name(target),
        "damage": main,
        "hp": _damage_note(target, main, ctx),
    }
    if p.get("armor") is not None:
        text += _("（防具%(item)s减伤）") % {"item": item(p["armor"], ctx)}
    if p.get("bleeding"):
        text += _("，并造成流血 %(n)s") % {"n": p["bleeding"]}
    if damage:
        splash = [f"{ctx.name(int(v))} {dmg}" for v, dmg in damage.items()]
        text += _("；溅射：%(list)s") % {"list": "、".join(splash)}
    for death in p.get("deaths") or []:
        text += _("；%(name)s 出局") % {"name": ctx.name(death.get("character"))}
        if death.get("looted"):
            text += _("，%(killer)s 拾取%(items)s") % {
                "killer": ctx.name(p.get("attacker")),
                "items": items(death["looted"], ctx),
            }
        if death.get("dropped"):
            text += _("，掉落%(items)s") % {"items": items(death["dropped"], ctx)}
    return text


def _attack_result(p: Payload, ctx: LogContext) -> str:
    outcome = _("击杀目标") if p.get("outcome") == "killed" else _("命中目标")
    text = _("%(name)s 得知攻击结果：%(outcome)s") % {"name": ctx.subject(), "outcome": outcome}
    if "others_hit" in p:
        text += _("，另波及 %(hit)s 人、击杀 %(killed)s 人") % {
            "hit": p["others_hit"],
            "killed": p.get("others_killed", 0),
        }
    if p.get("loot"):
        text += _("；拾取%(items)s") % {"items": items(p["loot"], ctx)}
    return text


def _death(p: Payload, ctx: LogContext) -> str:
    text = _("%(name)s 出局（死因：%(cause)s）") % {
        "name": ctx.name(p.get("character")),
        "cause": p.get("cause") or _("未知"),
    }
    if p.get("place"):
        text += _("，于%(place)s") % {"place": place(p["place"])}
    if p.get("dropped"):
        text += _("，掉落%(items)s") % {"items": items(p["dropped"], ctx)}
    return text


def _died(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 被告知自己已出局（死因：%(cause)s）") % {
        "name": ctx.subject(),
        "cause": p.get("cause") or _("未知"),
    }


def _bomb(p: Payload, ctx: LogContext) -> str:
    if "place" not in p:  # the user's own line: it learns nothing of the victims
        return _("%(name)s 使用了%(item)s") % {"name": ctx.subject(), "item": item(p["item"], ctx)}
    text = _("%(name)s 在%(place)s引爆%(item)s，波及：%(hit)s") % {
        "name": _who(p, ctx),
        "place": place(p["place"]),
        "item": item(p.get("item"), ctx),
        "hit": ctx.names_of(p.get("hit") or []),
    }
    if p.get("killed"):
        text += _("；出局：%(names)s") % {"names": ctx.names_of(p["killed"])}
    return text


def _item_broken(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 的%(item)s损坏了") % {
        "name": _who(p, ctx, "character"),
        "item": item(p.get("item"), ctx),
    }


def _equipped(p: Payload, ctx: LogContext) -> str:
    text = _("%(name)s 把%(item)s拿到手中") % {"name": _who(p, ctx), "item": item(p["item"], ctx)}
    if p.get("put_away") is not None:
        text += _("，%(item)s放回背包") % {"item": item(p["put_away"], ctx)}
    return text


def _unequipped(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 把%(item)s放回背包") % {"name": _who(p, ctx), "item": item(p["item"], ctx)}


def _dropped(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 在%(place)s丢弃%(item)s") % {
        "name": _who(p, ctx),
        "place": place(p.get("place")),
        "item": item(p["item"], ctx),
    }


def _used(p: Payload, ctx: LogContext) -> str:
    text = _("%(name)s 使用%(item)s") % {"name": _who(p, ctx), "item": item(p["item"], ctx)}
    change = _hp_mp(p.get("before"), p.get("after"))
    return text + (f"（{change}）" if change else "")


def _upgraded(p: Payload, ctx: LogContext) -> str:
    _look_learn(p, ctx, "created")
    into = p["created"] if "created" in p else p.get("into")
    return _("%(name)s 用%(upgrader)s把%(old)s升级为%(new)s") % {
        "name": _who(p, ctx),
        "upgrader": item(p.get("upgrader"), ctx),
        "old": item(p.get("from"), ctx),
        "new": item(into, ctx),
    }


def _look_learn(p: Payload, ctx: LogContext, key: str = "item") -> Payload:
    """Learn a new item's kind from the event that made it (the context's state predates it)."""
    _look(ctx).learn(p.get(key), p.get("kind"))
    return p


def _gps(p: Payload, ctx: LogContext) -> str:
    if "found" in p:
        places = [place(f.get("place")) if f.get("place") else _("（无位置）") for f in p["found"]]
        return _("%(name)s 使用%(item)s侦查%(kind)s：%(places)s") % {
            "name": _who(p, ctx),
            "item": item(p.get("item"), ctx),
            "kind": _key_name(p.get("kind"), ctx),
            "places": "、".join(places) or _("未发现"),
        }
    kind = p.get("kind") if isinstance(p.get("kind"), Mapping) else {}
    return _("%(name)s 得知%(kind)s所在：%(places)s") % {
        "name": ctx.subject(),
        "kind": item(kind, ctx) if kind else _("【未知道具】"),
        "places": "、".join(place(x) for x in p.get("places") or []) or _("未发现"),
    }


def _seen(rows: Any, ctx: LogContext) -> str:
    parts = []
    for row in rows or []:
        held = row.get("items") or []
        hands = [x for x in held if x.get("in_hand")]
        pack = [x for x in held if not x.get("in_hand")]
        parts.append(
            _("%(name)s（手中 %(hands)s；背包 %(pack)s）")
            % {
                "name": ctx.name(row.get("character")),
                "hands": items(hands, ctx),
                "pack": items(pack, ctx),
            }
        )
    return "；".join(parts) or _("无")


def _telescope(p: Payload, ctx: LogContext) -> str:
    if "item" in p:
        return _("%(name)s 使用%(item)s查看：%(seen)s") % {
            "name": _who(p, ctx),
            "item": item(p["item"], ctx),
            "seen": _seen(p.get("seen"), ctx),
        }
    return _("%(name)s 看到：%(seen)s") % {"name": ctx.subject(), "seen": _seen(p.get("seen"), ctx)}


def _megaphone(p: Payload, ctx: LogContext) -> str:
    if "actor" in p:
        return _("%(name)s 使用%(item)s公开%(place)s") % {
            "name": _who(p, ctx),
            "item": item(p.get("item"), ctx),
            "place": place(p.get("place")),
        }
    chars = [c.get("name") or ctx.name(c.get("character")) for c in p.get("characters") or []]
    return _("大喇叭公开%(place)s：道具 %(items)s；角色 %(chars)s") % {
        "place": place(p.get("place")),
        "items": items(p.get("items"), ctx),
        "chars": "、".join(chars) or _("无"),
    }


def _phone(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 使用%(item)s呼叫 %(target)s") % {
        "name": _who(p, ctx),
        "item": item(p.get("item"), ctx),
        "target": ctx.name(p.get("target")),
    }


def _phone_call(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 收到 %(sender)s 的【%(item)s】，等待接听或拒绝") % {
        "name": ctx.subject(),
        "sender": p.get("sender_name") or ctx.name(p.get("sender")),
        "item": p.get("item", ""),
    }


def _phone_placed(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 向 %(target)s 使用了%(item)s") % {
        "name": ctx.subject(),
        "target": ctx.name(p.get("target")),
        "item": item(p.get("item"), ctx),
    }


def _answer_text(answer: Any, ctx: LogContext) -> str:
    rs = _look(ctx).rs
    if rs is not None and str(answer) in rs.phone_texts:
        return rs.phone_texts[str(answer)]
    return _("已接听") if answer == "accepted" else _("已拒绝")


def _phone_answer(p: Payload, ctx: LogContext) -> str:
    if "caller" in p:
        return _("%(target)s 回应了 %(caller)s 的呼叫：%(answer)s") % {
            "target": ctx.name(p.get("target")),
            "caller": ctx.name(p.get("caller")),
            "answer": _answer_text(p.get("answer"), ctx),
        }
    return _("公开：%(text)s") % {"text": p.get("text", "")}


def _phone_answered(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 得知呼叫的回应：%(answer)s") % {
        "name": ctx.subject(),
        "answer": _answer_text(p.get("answer"), ctx),
    }


def _whisper(p: Payload, ctx: LogContext) -> str:
    if "actor" in p:
        text = _("%(name)s 传音给 %(target)s：「%(text)s」") % {
            "name": _who(p, ctx),
            "target": ctx.name(p.get("target")),
            "text": p.get("text", ""),
        }
        if p.get("target_alive") is False:
            text += _("（对方已出局，无人收到）")
        return text
    return _("%(name)s 收到 %(sender)s 的传音：「%(text)s」") % {
        "name": ctx.subject(),
        "sender": p.get("sender_name") or ctx.name(p.get("sender")),
        "text": p.get("text", ""),
    }


def _whisper_sent(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 向 %(target)s 传音：「%(text)s」（体力剩 %(mp)s）") % {
        "name": ctx.subject(),
        "target": ctx.name(p.get("target")),
        "text": p.get("text", ""),
        "mp": p.get("mp"),
    }


# --- items made and gone ---------------------------------------------------------------------


def _item_created(p: Payload, ctx: LogContext) -> str:
    _look_learn(p, ctx)
    where = ""
    if p.get("character") is not None:
        where = _("，交给 %(name)s") % {"name": ctx.name(p["character"])}
    elif p.get("place"):
        where = _("，落在%(place)s") % {"place": place(p["place"])}
    return _("新道具%(item)s%(where)s%(why)s") % {
        "item": item(p.get("item"), ctx),
        "where": where,
        "why": _why_note(p.get("why"), ctx),
    }


def _item_granted(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 获得%(item)s%(why)s") % {
        "name": ctx.subject(),
        "item": item(p.get("item"), ctx),
        "why": _why_note(p.get("why"), ctx),
    }


def _items_vanished(p: Payload, ctx: LogContext) -> str:
    return _("道具消失：%(items)s%(why)s") % {
        "items": items(p.get("items"), ctx),
        "why": _why_note(p.get("why"), ctx),
    }


def _item_vanished(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 的%(item)s消失了") % {
        "name": ctx.subject(),
        "item": item(p.get("item"), ctx),
    }


# --- the day's steps -------------------------------------------------------------------------


def _game_created(p: Payload, ctx: LogContext) -> str:
    if "scattered" in p:
        scattered = p.get("scattered") or {}
        count = sum(len(v) for v in scattered.values())
        return _("发牌：%(n)s 名角色，%(items)s 件道具散布在 %(places)s 个场所") % {
            "n": len(p.get("characters") or []),
            "items": count,
            "places": len([k for k, v in scattered.items() if v]),
        }
    if "places" in p:
        return _("游戏建立：%(title)s，%(n)s 名角色，%(places)s 个场所") % {
            "title": p.get("title", ""),
            "n": p.get("characters"),
            "places": len(p.get("places") or []),
        }
    return _("创建游戏：%(title)s") % {"title": p.get("title", "")}


def _places(names: Any) -> str:
    shown = [place(x) for x in names or []]
    return "、".join(shown) if shown else _("无")


def _night_opened(p: Payload, ctx: LogContext) -> str:
    text = _("%(day)s夜间行动开始") % {"day": day_text(p.get("day"))}
    if p.get("vanishing"):
        text += _("；今晚消失：%(places)s") % {"places": _places(p["vanishing"])}
    return text


STAGES = {
    "pre_night": gettext_noop("开门后结算"),
    "day_close": gettext_noop("关门结算"),
    "night_open": gettext_noop("入夜"),
    "post_night": gettext_noop("行动后结算"),
    "shrink_drawn": gettext_noop("抽取缩圈"),
    "bleeding": gettext_noop("流血"),
    "shrink": gettext_noop("缩圈"),
    "drowning": gettext_noop("淹死判定"),
    "victory_check": gettext_noop("胜负判定"),
    "settlement": gettext_noop("每日恢复"),
}


def _stage(p: Payload, ctx: LogContext) -> str:
    label = STAGES.get(str(p.get("stage")))
    text = _("%(day)s结算步骤：%(stage)s") % {
        "day": day_text(p.get("day")),
        "stage": _(label) if label is not None else _("其他"),
    }
    if p.get("places"):
        text += _("（%(places)s）") % {"places": _places(p["places"])}
    if "alive" in p:
        text += _("（存活 %(n)s 人）") % {"n": p["alive"]}
    return text


def _bleeding(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 流血 %(damage)s 点，生命剩 %(hp)s") % {
        "name": _who(p, ctx, "character"),
        "damage": p.get("damage"),
        "hp": max(int(p.get("hp") or 0), 0),
    }


def _recovered(p: Payload, ctx: LogContext) -> str:
    how = _("静养恢复") if p.get("how") == "rest" else _("每日恢复")
    return _("%(name)s %(how)s：生命 %(hp)s，体力 %(mp)s") % {
        "name": ctx.subject(),
        "how": how,
        "hp": p.get("hp"),
        "mp": p.get("mp"),
    }


def _morning(p: Payload, ctx: LogContext) -> str:
    deaths = [
        _("%(name)s（%(cause)s）")
        % {"name": d.get("name") or ctx.name(d.get("character")), "cause": d.get("cause")}
        for d in p.get("deaths") or []
    ]
    text = _("%(day)s晨报：昨夜出局 %(deaths)s") % {
        "day": day_text(p.get("day")),
        "deaths": "、".join(deaths) or _("无人"),
    }
    text += _("；今晚消失：%(places)s") % {"places": _places(p.get("vanishing"))}
    if p.get("weather"):
        text += _("；天气：%(weather)s") % {"weather": p["weather"]}
    return text


def _game_over(p: Payload, ctx: LogContext) -> str:
    winner = p.get("winner")
    text = (
        _("游戏结束：%(name)s 获胜") % {"name": ctx.name(winner)}
        if winner is not None
        else _("游戏结束：无人生还，导演获胜")
    )
    top = [
        _("第 %(rank)s 名 %(name)s") % {"rank": r.get("rank"), "name": ctx.name(r.get("character"))}
        for r in (p.get("ranking") or [])[:5]
    ]
    if top:
        text += _("；排名：%(top)s") % {"top": "、".join(top)}
    return text


def _shrink_drawn(p: Payload, ctx: LogContext) -> str:
    return _("%(day)s抽取今晚消失的场所：%(places)s") % {
        "day": day_text(p.get("day")),
        "places": _places(p.get("places")),
    }


def _vote_weights(p: Payload, ctx: LogContext) -> str:
    return _("%(day)s夜晚结算时记下 %(n)s 名角色的投票权重") % {
        "day": day_text(p.get("day")),
        "n": len(p.get("weights") or {}),
    }


# --- votes -----------------------------------------------------------------------------------


def _vote_cast(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 投票给 %(target)s（票数 %(weight)s）") % {
        "name": _who(p, ctx),
        "target": p.get("target_name") or ctx.name(p.get("target")),
        "weight": p.get("weight"),
    }


def _vote_changed(p: Payload, ctx: LogContext) -> str:
    if "to" in p:
        return _("%(name)s 改票：%(old)s → %(new)s（票数 %(weight)s）") % {
            "name": _who(p, ctx),
            "old": ctx.name(p.get("from")),
            "new": ctx.name(p.get("to")),
            "weight": p.get("weight"),
        }
    return _("%(name)s 改投 %(target)s（票数 %(weight)s）") % {
        "name": _who(p, ctx),
        "target": p.get("target_name") or ctx.name(p.get("target")),
        "weight": p.get("weight"),
    }


def _vote_totals(p: Payload, ctx: LogContext) -> str:
    """统计投票结果并公布: each 候选人 with its 票数 (weighted), never a voter."""
    return "、".join(
        _("%(name)s %(total)s 票")
        % {"name": t.get("name") or ctx.name(t.get("character")), "total": t.get("total")}
        for t in p.get("totals") or []
    )


def _vote_result(p: Payload, ctx: LogContext) -> str:
    rows = p.get("revealed") or []
    if not rows:
        return _("%(day)s投票结果：无人投票") % {"day": day_text(p.get("day"))}
    totals = _vote_totals(p, ctx)
    shown = [
        _("第 %(rank)s 名 %(name)s（生命 %(hp)s，体力 %(mp)s，位于%(place)s，持有 %(items)s）")
        % {
            "rank": r.get("rank"),
            "name": r.get("name") or ctx.name(r.get("character")),
            "hp": r.get("hp"),
            "mp": r.get("mp"),
            "place": place(r["place"]) if r.get("place") else _("（未出生）"),
            "items": items(r.get("items"), ctx),
        }
        for r in rows
    ]
    text = _("%(day)s投票结果公开：%(rows)s") % {
        "day": day_text(p.get("day")),
        "rows": "；".join(shown),
    }
    if totals:  # logs from before RULINGS 30 carry no totals
        text += _("。候选人票数：%(totals)s") % {"totals": totals}
    return text


def _vote_reward(p: Payload, ctx: LogContext) -> str:
    name = p.get("name") or ctx.name(p.get("character"))
    if not p.get("item"):
        return _("票数最高的 %(name)s 没有可得的投票奖励") % {"name": name}
    return _("票数最高的 %(name)s 掷 %(die)s 面骰（%(rolls)s），获得投票奖励%(item)s") % {
        "name": name,
        "die": p.get("die"),
        "rolls": "、".join(str(r) for r in p.get("rolls") or []),
        "item": item(p["item"], ctx),
    }


def _vote_tally(p: Payload, ctx: LogContext) -> str:
    totals: dict[str, int] = {}
    for b in p.get("ballots") or []:
        if b.get("counted", True):
            name = b.get("target_name") or ctx.name(b.get("target"))
            totals[name] = totals.get(name, 0) + int(b.get("weight") or 0)
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])[:5]
    return _("%(day)s票数统计（%(n)s 张票）：%(top)s") % {
        "day": day_text(p.get("day")),
        "n": len(p.get("ballots") or []),
        "top": "、".join(f"{n} {v}" for n, v in ranked) or _("无"),
    }


# --- the market ------------------------------------------------------------------------------


def _shop_buy(p: Payload, ctx: LogContext) -> str:
    _look_learn(p, ctx)
    return _("%(name)s 在商店花 %(price)s 购买%(item)s") % {
        "name": _who(p, ctx),
        "price": _money(p.get("price"), ctx),
        "item": item(p.get("item"), ctx),
    }


def _shop_sell(p: Payload, ctx: LogContext) -> str:
    text = _("%(name)s 把%(items)s卖给商店，得 %(price)s") % {
        "name": _who(p, ctx),
        "items": items(p.get("items"), ctx),
        "price": _money(p.get("price"), ctx),
    }
    if p.get("rule"):
        text += _("（%(rule)s）") % {"rule": p["rule"]}
    return text


def _bid(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 对 %(lot)s 号拍品出价 %(amount)s") % {
        "name": _who(p, ctx, "bidder"),
        "lot": p.get("lot"),
        "amount": _money(p.get("amount"), ctx),
    }


LOT_SOURCES = {
    "sold": gettext_noop("卖给商店"),
    "shrink": gettext_noop("缩圈"),
    "director": gettext_noop("导演"),
}


def _lot_listed(p: Payload, ctx: LogContext) -> str:
    source = LOT_SOURCES.get(str(p.get("source")))
    return _("%(item)s作为 %(lot)s 号拍品上架，%(day)s起拍卖%(source)s") % {
        "item": item(p.get("item"), ctx),
        "lot": p.get("lot"),
        "day": day_text(p.get("day")),
        "source": _("（来源：%(s)s）") % {"s": _(source)} if source else "",
    }


def _auction_result(p: Payload, ctx: LogContext) -> str:
    if p.get("won"):
        return _("%(name)s 以 %(amount)s 拍得 %(lot)s 号拍品%(item)s") % {
            "name": ctx.subject(),
            "amount": _money(p.get("amount"), ctx),
            "lot": p.get("lot"),
            "item": item(p["item"], ctx) if p.get("item") else "",
        }
    return _("%(name)s 未拍得 %(lot)s 号拍品，出价 %(amount)s 退还") % {
        "name": ctx.subject(),
        "lot": p.get("lot"),
        "amount": _money(p.get("amount"), ctx),
    }


def _auction_settled(p: Payload, ctx: LogContext) -> str:
    words = {"lot": p.get("lot"), "item": item(p.get("item"), ctx), "n": len(p.get("bids") or [])}
    if p.get("winner") is None:
        return _("%(lot)s 号拍品%(item)s流拍（%(n)s 次出价）") % words
    return _("%(lot)s 号拍品%(item)s由 %(name)s 以 %(price)s 拍得（%(n)s 次出价）") % {
        **words,
        "name": ctx.name(p["winner"]),
        "price": _money(p.get("price"), ctx),
    }


def _change_given(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 付款：交出%(paid)s，找回%(change)s") % {
        "name": _who(p, ctx, "character"),
        "paid": items(p.get("paid"), ctx),
        "change": items(p.get("change"), ctx),
    }


def _exchanged(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 的%(gave)s兑换为%(got)s") % {
        "name": ctx.subject(),
        "gave": items(p.get("gave"), ctx),
        "got": items(p.get("got"), ctx),
    }


def _exchange_requested(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 申请兑换%(notes)s，等待导演处理") % {
        "name": _who(p, ctx, "character"),
        "notes": items(p.get("notes"), ctx),
    }


def _exchange_refused(p: Payload, ctx: LogContext) -> str:
    if "过期" in str(p.get("text", "")):
        return _("%(name)s 的兑换申请未被处理，已过期") % {"name": ctx.subject()}
    return _("导演拒绝了 %(name)s 的兑换申请") % {"name": ctx.subject()}


def _stall_offer(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 摆出 %(stall)s 号摊：%(item)s，求 %(asks)s") % {
        "name": _who(p, ctx, "seller"),
        "stall": p.get("id"),
        "item": item(p.get("item"), ctx),
        "asks": _asks(p.get("asks"), ctx),
    }


def _stall_opened(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 摆出 %(stall)s 号摊：%(item)s，求 %(asks)s") % {
        "name": ctx.subject(),
        "stall": p.get("stall"),
        "item": item(p.get("item"), ctx),
        "asks": _asks(p.get("asks"), ctx),
    }


def _stall_buy(p: Payload, ctx: LogContext) -> str:
    if p.get("stall") is None:
        return _("%(name)s 想在摊位购买，但没有买到") % {"name": _who(p, ctx)}
    return _("%(name)s 在 %(stall)s 号摊用%(paid)s买下 %(seller)s 的%(item)s") % {
        "name": _who(p, ctx),
        "stall": p.get("stall"),
        "paid": items(p.get("paid"), ctx),
        "seller": ctx.name(p.get("seller")),
        "item": item(p.get("item"), ctx),
    }


def _stall_bought(p: Payload, ctx: LogContext) -> str:
    if p.get("stall") is None:
        return _("%(name)s 没有在摊位买到东西") % {"name": ctx.subject()}
    return _("%(name)s 在 %(stall)s 号摊用%(paid)s买到%(item)s") % {
        "name": ctx.subject(),
        "stall": p.get("stall"),
        "paid": items(p.get("paid"), ctx),
        "item": item(p.get("item"), ctx),
    }


def _stall_sold(p: Payload, ctx: LogContext) -> str:
    if "got" in p:
        return _("%(name)s 的 %(stall)s 号摊售出，获得%(got)s") % {
            "name": ctx.subject(),
            "stall": p.get("stall"),
            "got": items(p.get("got"), ctx),
        }
    return str(p.get("text") or _("%(stall)s 号摊已售出") % {"stall": p.get("stall")})


def _stall_returned(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 的 %(stall)s 号摊未售出，道具退回背包") % {
        "name": ctx.subject(),
        "stall": p.get("stall"),
    }


def _gift(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 把%(items)s赠送给 %(target)s") % {
        "name": _who(p, ctx),
        "items": items(p.get("items"), ctx),
        "target": ctx.name(p.get("target")),
    }


def _gift_received(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 收到 %(sender)s 赠送的%(items)s") % {
        "name": ctx.subject(),
        "sender": p.get("sender_name") or ctx.name(p.get("sender")),
        "items": items(p.get("items"), ctx),
    }


def _trade_offer(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 向 %(target)s 提议交易：用%(items)s换 %(asks)s") % {
        "name": ctx.name(p.get("from", p.get("actor"))),
        "target": ctx.name(p.get("to")),
        "items": items(p.get("items"), ctx),
        "asks": _asks(p.get("asks"), ctx),
    }


def _trade_offered(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 收到 %(sender)s 的交易提议：用%(items)s换 %(asks)s") % {
        "name": ctx.subject(),
        "sender": p.get("sender_name") or ctx.name(p.get("sender")),
        "items": items(p.get("items"), ctx),
        "asks": _asks(p.get("asks"), ctx),
    }


def _trade_proposed(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 向 %(target)s 提议交易：用%(items)s换 %(asks)s") % {
        "name": ctx.subject(),
        "target": ctx.name(p.get("target")),
        "items": items(p.get("items"), ctx),
        "asks": _asks(p.get("asks"), ctx),
    }


def _trade(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 接受了 %(offerer)s 的交易：得到%(got)s，付出%(paid)s") % {
        "name": ctx.name(p.get("to")),
        "offerer": ctx.name(p.get("from")),
        "got": items(p.get("items"), ctx),
        "paid": items(p.get("paid"), ctx),
    }


def _trade_done(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 与 %(partner)s 交易完成：得到%(got)s，付出%(gave)s") % {
        "name": ctx.subject(),
        "partner": ctx.name(p.get("partner")),
        "got": items(p.get("got"), ctx),
        "gave": items(p.get("gave"), ctx),
    }


def _trade_cancelled(p: Payload, ctx: LogContext) -> str:
    if "target" in p:
        return _("%(name)s 取消了与 %(target)s 之间的交易提议") % {
            "name": _who(p, ctx),
            "target": ctx.name(p["target"]),
        }
    if "partner" in p:
        return _("%(name)s 与 %(partner)s 之间的交易提议已取消") % {
            "name": ctx.subject(),
            "partner": ctx.name(p["partner"]),
        }
    return _("%(name)s 今日未完成的交易提议已过期") % {"name": ctx.subject()}


def _director_used(p: Payload, ctx: LogContext) -> str:
    change = _hp_mp(p.get("before"), p.get("after"))
    return _("导演为 %(name)s 使用了%(item)s") % {
        "name": ctx.subject(),
        "item": item(p.get("item"), ctx),
    } + (f"（{change}）" if change else "")


# --- daily events and NPCs -------------------------------------------------------------------


def _events_today(p: Payload, ctx: LogContext) -> str:
    names = [f"【{_event_name(k, ctx)}】" for k in p.get("events") or []]
    return _("%(day)s的事件：%(names)s") % {
        "day": day_text(p.get("day")),
        "names": "、".join(names) or _("无"),
    }


def _event_effect(p: Payload, ctx: LogContext) -> str:
    name = _event_name(p.get("event"), ctx)
    if "swap" in p:
        hp, mp = pair(p["swap"])
        return _("【%(event)s】%(name)s 的生命与体力互换（现为生命 %(hp)s，体力 %(mp)s）") % {
            "event": name,
            "name": _who(p, ctx, "character"),
            "hp": hp,
            "mp": mp,
        }
    if "after" in p:
        hp, mp = pair(p["after"])
        return _(
            "【%(event)s】%(name)s 生命 %(dhp)+d、体力 %(dmp)+d（现为生命 %(hp)s，体力 %(mp)s）"
        ) % {
            "event": name,
            "name": _who(p, ctx, "character"),
            "dhp": int(p.get("hp") or 0),
            "dmp": int(p.get("mp") or 0),
            "hp": max(int(hp or 0), 0),
            "mp": mp,
        }
    return _("【%(event)s】%(name)s 现为生命 %(hp)s，体力 %(mp)s") % {
        "event": name,
        "name": ctx.subject(),
        "hp": p.get("hp"),
        "mp": p.get("mp"),
    }


def _villain_gone(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 非被玩家击杀而出局，今日的【%(title)s】称号作废") % {
        "name": ctx.name(p.get("character")),
        "title": _villain_title(ctx),
    }


def _villain_struck(p: Payload, ctx: LogContext) -> str:
    return _("【%(title)s】%(name)s 在%(place)s袭击：%(victims)s") % {
        "title": _villain_title(ctx),
        "name": ctx.name(p.get("villain")),
        "place": place(p.get("place")) if p.get("place") else _("（无处）"),
        "victims": ctx.names_of(p.get("victims") or []),
    }


def _twist(p: Payload, ctx: LogContext) -> str:
    return _("【%(event)s】%(name)s 获得%(items)s（候选：%(bottom)s）") % {
        "event": _event_name("twist", ctx),
        "name": ctx.name(p.get("character")),
        "items": items(p.get("items"), ctx),
        "bottom": ctx.names_of(p.get("bottom") or []),
    }


def _event_item_exhausted(p: Payload, ctx: LogContext) -> str:
    return _("【%(event)s】%(kind)s已全部出现过，没有可发放的道具") % {
        "event": _event_name(p.get("event"), ctx),
        "kind": _key_name(p.get("selector"), ctx),
    }


def _event_item_in_market(p: Payload, ctx: LogContext) -> str:
    return _("【%(event)s】的%(item)s已在市场中，不予销毁") % {
        "event": _event_name(p.get("event"), ctx),
        "item": item(p.get("item"), ctx),
    }


def _reward_offered(p: Payload, ctx: LogContext) -> str:
    when = _("现在") if not p.get("from_day") else day_text(p.get("from_day")) + _("起")
    if "options" in p:
        options = _(" 或 ").join(f"【{o.get('name')}】" for o in p.get("options") or [])
        return _("%(name)s 获得【%(event)s】奖励：%(when)s可领取 %(options)s（二选一）") % {
            "name": ctx.subject(),
            "event": _event_name(p.get("event"), ctx),
            "when": when,
            "options": options,
        }
    return _("%(name)s 获得【%(event)s】奖励，%(when)s可领取") % {
        "name": ctx.name(p.get("character")),
        "event": _event_name(p.get("event"), ctx),
        "when": when,
    }


def _reward_claimed(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 领取【%(event)s】奖励：%(item)s") % {
        "name": _who(p, ctx, "character"),
        "event": _event_name(p.get("event"), ctx),
        "item": item(p.get("item"), ctx),
    }


def _winter(p: Payload, ctx: LogContext) -> str:
    return _("【%(event)s】今晚无人的场所一同消失：%(places)s") % {
        "event": _event_name("winter", ctx),
        "places": _places(p.get("places")),
    }


def _revenant(template: str) -> TextFn:
    def render(p: Payload, ctx: LogContext) -> str:
        return _(template) % {
            "event": _event_name("night_parade", ctx),
            "name": ctx.name(p.get("character")),
        }

    return render


def _revenant_returned(p: Payload, ctx: LogContext) -> str:
    text = _revenant(gettext_noop("【%(event)s】%(name)s 未能击杀玩家，重回出局"))(p, ctx)
    if p.get("dropped"):
        text += _("，掉落%(items)s") % {"items": items(p["dropped"], ctx)}
    return text


def _npc_placed(p: Payload, ctx: LogContext) -> str:
    text = _("%(npc)s 出现在%(place)s") % {
        "npc": ctx.name(p.get("npc")),
        "place": place(p.get("place")),
    }
    if "hp" in p:
        text += _("（生命 %(hp)s，携带%(item)s）") % {
            "hp": p["hp"],
            "item": item(p.get("item"), ctx),
        }
    return text


def _npc_left(p: Payload, ctx: LogContext) -> str:
    return _("%(npc)s 离开了小镇") % {"npc": ctx.name(p.get("npc"))}


def _riddle_answer(p: Payload, ctx: LogContext) -> str:
    verdict = _("答对") if p.get("right") else _("答错")
    return _("%(name)s 回答谜题：「%(text)s」，%(verdict)s（答案：%(place)s）") % {
        "name": ctx.name(p.get("character")),
        "text": p.get("text", ""),
        "verdict": verdict,
        "place": place(p.get("place")) if p.get("place") else _("无"),
    }


def _riddle_paid(p: Payload, ctx: LogContext) -> str:
    return _("%(day)s谜题奖励发给：%(paid)s（答对：%(right)s）") % {
        "day": day_text(p.get("day")),
        "paid": ctx.names_of(p.get("paid") or []),
        "right": ctx.names_of(p.get("right") or []),
    }


FEATS = {"adai": gettext_noop("第一个答对阿呆的谜题"), "aben": gettext_noop("第一个击杀阿笨")}


def _test_prize_earned(p: Payload, ctx: LogContext) -> str:
    feat = FEATS.get(str(p.get("feat")))
    return _("测试赛：%(name)s %(feat)s") % {
        "name": ctx.name(p.get("character")),
        "feat": _(feat) if feat is not None else _("达成奖励条件"),
    }


def _test_match_prizes(p: Payload, ctx: LogContext) -> str:
    return _("测试赛奖励：%(names)s 各获得%(prize)s") % {
        "names": ctx.names_of(p.get("characters") or []),
        "prize": _key_name(p.get("prize"), ctx),
    }


# --- the directors' interventions ------------------------------------------------------------


def _intervention(p: Payload, ctx: LogContext) -> str:
    op = p.get("op")
    name = ctx.name(p.get("character")) if p.get("character") is not None else ""
    if op == "adjust":
        return _("导演调整 %(name)s：%(change)s") % {
            "name": name,
            "change": _hp_mp(p.get("before"), p.get("after"))
            + (
                _("，流血 %(a)s→%(b)s")
                % {"a": p["before"].get("bleeding"), "b": p["after"].get("bleeding")}
                if p.get("bleeding") is not None
                else ""
            ),
        }
    if op == "relocate":
        return _("导演把 %(name)s 从%(a)s移到%(b)s") % {
            "name": name,
            "a": place(p["from"]) if p.get("from") else _("（未出生）"),
            "b": place(p.get("to")),
        }
    if op == "give":
        _look_learn(p, ctx)
        return _("导演发给 %(name)s %(item)s") % {"name": name, "item": item(p.get("item"), ctx)}
    if op == "restore":
        return _("测试赛：导演让 %(name)s 复活（生命 %(hp)s，体力 %(mp)s，%(where)s）") % {
            "name": name,
            "hp": p.get("hp"),
            "mp": p.get("mp"),
            "where": _("位于%(place)s") % {"place": place(p["place"])}
            if p.get("place")
            else _("重新出生"),
        }
    if op == "supply":
        _look_learn(p, ctx)
        return _("测试赛：导演往 %(name)s 的背包中提供补给%(item)s") % {
            "name": name,
            "item": item(p.get("item"), ctx),
        }
    if op == "take":
        _look_learn(p, ctx)
        source = dict(p.get("from") or {})
        whose = (
            _("%(name)s 的") % {"name": ctx.name(source["character"])}
            if "character" in source
            else (place(source["place"]) if "place" in source else "")
        )
        return _("导演收走%(whose)s%(item)s（道具消失）") % {
            "whose": whose,
            "item": item(p.get("item"), ctx),
        }
    if op == "airdrop":
        for row in p.get("items") or []:
            _look(ctx).learn(row.get("item"), row.get("kind"))
        landed = [
            f"{item(r.get('item'), ctx)}→{place(r.get('place'))}" for r in p.get("items") or []
        ]
        return _("导演空投：%(items)s") % {"items": "、".join(landed) or _("无")}
    if op == "exchange":
        return _("导演为 %(name)s 兑换%(notes)s为%(into)s") % {
            "name": name,
            "notes": items(p.get("notes"), ctx),
            "into": items(p.get("into"), ctx),
        }
    if op == "exchange_answer":
        if p.get("approve"):
            return _("导演批准 %(name)s 的兑换申请：%(notes)s兑换为%(into)s") % {
                "name": name,
                "notes": items(p.get("notes"), ctx),
                "into": items(p.get("into"), ctx),
            }
        return _("导演拒绝 %(name)s 的兑换申请") % {"name": name}
    if op == "list_lot":
        _look_learn(p, ctx)
        return _("导演把%(item)s放上拍卖行") % {"item": item(p.get("item"), ctx)}
    if op == "use_for":
        _look_learn(p, ctx)
        return _("导演为 %(name)s 使用%(item)s（%(change)s）") % {
            "name": name,
            "item": item(p.get("item"), ctx),
            "change": _hp_mp(p.get("before"), p.get("after")),
        }
    if op == "event_choose":
        pick = p.get("pick")
        text = _("导演安排%(day)s的事件：%(pick)s") % {
            "day": day_text(p.get("day")),
            "pick": f"【{_event_name(pick, ctx)}】" if pick else _("随机抽取"),
        }
        if p.get("veto"):
            text += _("；否决：%(veto)s") % {
                "veto": "、".join(f"【{_event_name(v, ctx)}】" for v in p["veto"])
            }
        return text
    if op == "riddle":
        return _("导演公布%(day)s的谜题：「%(text)s」") % {
            "day": day_text(p.get("day")),
            "text": p.get("text", ""),
        }
    return _("导演干预")


def _director_adjusted(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 被告知导演调整了其状态：生命 %(hp)s，体力 %(mp)s") % {
        "name": ctx.subject(),
        "hp": p.get("hp"),
        "mp": p.get("mp"),
    }


def _director_moved(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 被告知导演把其移到%(place)s") % {
        "name": ctx.subject(),
        "place": place(p.get("place")),
    }


def _director_restored(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 被告知导演让其在测试赛中复活（生命 %(hp)s，体力 %(mp)s）") % {
        "name": ctx.subject(),
        "hp": p.get("hp"),
        "mp": p.get("mp"),
    }


def _director_took(p: Payload, ctx: LogContext) -> str:
    return _("%(name)s 被告知导演收走了%(item)s") % {
        "name": ctx.subject(),
        "item": item(p.get("item"), ctx),
    }


# --- engine steps (behind the toggle) --------------------------------------------------------

ACTIONS = {
    "spawn": gettext_noop("出生"),
    "rest": gettext_noop("静养"),
    "move": gettext_noop("移动"),
    "search": gettext_noop("搜索"),
    "pick_up": gettext_noop("捡拾"),
    "attack": gettext_noop("攻击"),
    "equip": gettext_noop("更换"),
    "unequip": gettext_noop("收起"),
    "use": gettext_noop("使用"),
    "upgrade": gettext_noop("升级"),
    "gps": gettext_noop("侦查"),
    "telescope": gettext_noop("望远镜"),
    "drop": gettext_noop("丢弃"),
    "whisper": gettext_noop("传音"),
    "megaphone": gettext_noop("大喇叭"),
    "phone": gettext_noop("通话"),
    "answer_phone": gettext_noop("接听"),
    "shop_buy": gettext_noop("商店购买"),
    "shop_sell": gettext_noop("卖给商店"),
    "bid": gettext_noop("拍卖出价"),
    "exchange_request": gettext_noop("申请兑换"),
    "stall_offer": gettext_noop("摆摊"),
    "stall_buy": gettext_noop("摊位购买"),
    "gift": gettext_noop("赠送"),
    "trade_offer": gettext_noop("提议交易"),
    "trade_accept": gettext_noop("接受交易"),
    "trade_cancel": gettext_noop("取消交易"),
    "claim_reward": gettext_noop("领取奖励"),
    "vote": gettext_noop("投票"),
    "vote_change": gettext_noop("改票"),
}
OPS = {
    "setup": gettext_noop("发牌"),
    "adjust": gettext_noop("导演调整状态"),
    "relocate": gettext_noop("导演移动角色"),
    "give": gettext_noop("导演发放道具"),
    "take": gettext_noop("导演收回道具"),
    "airdrop": gettext_noop("导演空投"),
    "exchange": gettext_noop("导演兑换"),
    "exchange_answer": gettext_noop("处理兑换申请"),
    "list_lot": gettext_noop("导演上架拍品"),
    "use_for": gettext_noop("导演代为使用"),
    "event_choose": gettext_noop("安排事件"),
    "riddle": gettext_noop("公布谜题"),
    "red_card": gettext_noop("红牌罚下"),
    "test_prize": gettext_noop("测试赛奖励"),
    "test_restore": gettext_noop("测试赛复活"),
    "test_supply": gettext_noop("测试赛补给"),
}


def _engine_step(p: Payload, ctx: LogContext) -> str:
    op = str(p.get("op"))
    if op == "action":
        action = p.get("action") or {}
        label = ACTIONS.get(str(action.get("kind")))
        words = {
            "name": ctx.name(action.get("actor")),
            "action": _(label) if label is not None else _("行动"),
        }
        return _("引擎步骤：%(name)s 的行动（%(action)s）") % words
    if op in TRANSITION_LABELS:
        return _("引擎步骤：%(day)s%(step)s") % {
            "day": day_text(p.get("day")),
            "step": lazy_text(TRANSITION_LABELS[op]),
        }
    label = OPS.get(op)
    return _("引擎步骤：%(op)s") % {"op": _(label) if label is not None else _("其他")}


def _day(template: str) -> TextFn:
    def render(p: Payload, ctx: LogContext) -> str:
        return _(template) % {"day": day_text(p.get("day"))}

    return render


def _setting(p: Payload, ctx: LogContext) -> str:
    if p.get("auto_publish"):
        return _("设置：开门时自动发布晨报")
    return _("设置：晨报由导演编辑后发布")


def _zone(opened: bool) -> TextFn:
    def render(p: Payload, ctx: LogContext) -> str:
        template = "特殊区%(place)s开放" if opened else "特殊区%(place)s关闭"
        return _(template) % {"place": place(p.get("place"))}

    return render


ACTOR = keys("actor")
TEXTS: dict[str, EventText] = {
    # night actions
    "spawned": EventText(gettext_noop("出生"), _spawned, characters=ACTOR),
    "resting": EventText(gettext_noop("静养"), _resting, characters=ACTOR),
    "moved": EventText(gettext_noop("移动"), _moved, characters=ACTOR),
    "searched": EventText(gettext_noop("搜索"), _searched, characters=keys("actor", "target")),
    "picked_up": EventText(gettext_noop("捡拾"), _picked_up, characters=ACTOR),
    "attack": EventText(
        gettext_noop("攻击"),
        _attack,
        characters=lambda p: ids_in(
            p.get("attacker"),
            p.get("target"),
            [int(k) for k in (p.get("damage") or {}) if str(k).lstrip("-").isdigit()],
            p.get("deaths"),
        ),
    ),
    "attack_result": EventText(gettext_noop("攻击"), _attack_result),
    "hit": EventText(gettext_noop("攻击"), _hit),
    "death": EventText(gettext_noop("出局"), _death, characters=keys("character")),
    "died": EventText(gettext_noop("出局"), _died),
    "bomb": EventText(gettext_noop("炸弹"), _bomb, characters=keys("actor", "hit", "killed")),
    "bomb_used": EventText(gettext_noop("炸弹"), _bomb),
    "item_broken": EventText(gettext_noop("道具损坏"), _item_broken, characters=keys("character")),
    "equipped": EventText(gettext_noop("更换"), _equipped, characters=ACTOR),
    "unequipped": EventText(gettext_noop("更换"), _unequipped, characters=ACTOR),
    "dropped": EventText(gettext_noop("丢弃"), _dropped, characters=ACTOR),
    "used": EventText(gettext_noop("使用"), _used, characters=ACTOR),
    "upgraded": EventText(gettext_noop("升级"), _upgraded, characters=ACTOR),
    "gps": EventText(gettext_noop("侦查"), _gps, characters=ACTOR),
    "gps_result": EventText(gettext_noop("侦查"), _gps),
    "telescope": EventText(
        gettext_noop("侦查"),
        _telescope,
        characters=lambda p: ids_in(p.get("actor"), p.get("seen")),
    ),
    "telescope_result": EventText(gettext_noop("侦查"), _telescope, characters=keys("targets")),
    "megaphone": EventText(
        gettext_noop("大喇叭"),
        _megaphone,
        characters=lambda p: ids_in(p.get("actor"), p.get("characters")),
    ),
    "phone": EventText(gettext_noop("通话"), _phone, characters=keys("actor", "target")),
    "phone_call": EventText(gettext_noop("通话"), _phone_call, characters=keys("sender")),
    "phone_placed": EventText(gettext_noop("通话"), _phone_placed, characters=keys("target")),
    "phone_answer": EventText(
        gettext_noop("通话"), _phone_answer, characters=keys("caller", "target")
    ),
    "phone_answered": EventText(gettext_noop("通话"), _phone_answered),
    "whisper": EventText(
        gettext_noop("传音"), _whisper, characters=keys("actor", "target", "sender")
    ),
    "whisper_sent": EventText(gettext_noop("传音"), _whisper_sent, characters=keys("target")),
    # items made and gone
    "item_created": EventText(gettext_noop("道具"), _item_created, characters=keys("character")),
    "item_granted": EventText(gettext_noop("道具"), _item_granted),
    "items_vanished": EventText(gettext_noop("道具"), _items_vanished),
    "item_vanished": EventText(gettext_noop("道具"), _item_vanished),
    # the day's steps
    "game_created": EventText(gettext_noop("开局"), _game_created),
    "day_closed": EventText(gettext_noop("阶段切换"), _day(gettext_noop("%(day)s关门"))),
    "night_opened": EventText(gettext_noop("阶段切换"), _night_opened),
    "night_ended": EventText(gettext_noop("阶段切换"), _day(gettext_noop("%(day)s夜间行动截止"))),
    "night_closed": EventText(gettext_noop("阶段切换"), _day(gettext_noop("%(day)s夜晚结算完成"))),
    "stage": EventText(gettext_noop("结算步骤"), _stage, step=True),
    "bleeding": EventText(gettext_noop("流血"), _bleeding, characters=keys("character")),
    "places_vanished": EventText(
        gettext_noop("缩圈"),
        lambda p, ctx: _("%(places)s消失") % {"places": _places(p.get("places"))},
    ),
    "recovered": EventText(gettext_noop("恢复"), _recovered),
    "vote_weights": EventText(gettext_noop("投票"), _vote_weights, step=True),
    "shrink_drawn": EventText(gettext_noop("缩圈"), _shrink_drawn),
    "morning_report": EventText(
        gettext_noop("晨报"),
        _morning,
        characters=lambda p: ids_in(p.get("deaths")),
    ),
    "airdrop": EventText(
        gettext_noop("空投"),
        lambda p, ctx: (
            _("空投：%(items)s（地点不公开）")
            % {"items": "、".join(f"【{n}】" for n in p.get("items") or []) or _("无")}
        ),
    ),
    "game_over": EventText(
        gettext_noop("游戏结束"), _game_over, characters=lambda p: ids_in(p.get("winner"))
    ),
    "zone_open": EventText(gettext_noop("特殊区"), _zone(True)),
    "zone_closed": EventText(gettext_noop("特殊区"), _zone(False)),
    # votes
    "vote_cast": EventText(gettext_noop("投票"), _vote_cast, characters=keys("target")),
    "vote": EventText(gettext_noop("投票"), _vote_cast, characters=keys("actor", "target")),
    "vote_changed": EventText(
        gettext_noop("投票"), _vote_changed, characters=keys("actor", "from", "to", "target")
    ),
    "vote_result": EventText(gettext_noop("投票结果"), _vote_result, characters=keys("revealed")),
    "vote_reward": EventText(gettext_noop("投票结果"), _vote_reward, characters=keys("character")),
    "vote_tally": EventText(gettext_noop("投票结果"), _vote_tally),
    # the market
    "shop_buy": EventText(gettext_noop("商店"), _shop_buy, characters=ACTOR),
    "shop_bought": EventText(
        gettext_noop("商店"),
        lambda p, ctx: (
            _("%(name)s 在商店花 %(price)s 购买%(item)s")
            % {
                "name": ctx.subject(),
                "price": _money(p.get("price"), ctx),
                "item": item(p.get("item"), ctx),
            }
        ),
    ),
    "shop_sell": EventText(gettext_noop("商店"), _shop_sell, characters=ACTOR),
    "shop_sold": EventText(
        gettext_noop("商店"),
        lambda p, ctx: (
            _("%(name)s 把%(items)s卖给商店，得 %(price)s")
            % {
                "name": ctx.subject(),
                "items": items(p.get("items"), ctx),
                "price": _money(p.get("price"), ctx),
            }
        ),
    ),
    "bid": EventText(gettext_noop("拍卖行"), _bid, characters=keys("bidder")),
    "bid_placed": EventText(
        gettext_noop("拍卖行"),
        lambda p, ctx: (
            _("%(name)s 对 %(lot)s 号拍品出价 %(amount)s（已暂扣）")
            % {"name": ctx.subject(), "lot": p.get("lot"), "amount": _money(p.get("amount"), ctx)}
        ),
    ),
    "lot_listed": EventText(gettext_noop("拍卖行"), _lot_listed),
    "auction_listed": EventText(gettext_noop("拍卖行"), text_or(gettext_noop("拍卖行上架新拍品"))),
    "auction_closed": EventText(gettext_noop("拍卖行"), text_or(gettext_noop("拍卖行今日成交"))),
    "auction_result": EventText(gettext_noop("拍卖行"), _auction_result),
    "auction_settled": EventText(
        gettext_noop("拍卖行"), _auction_settled, characters=keys("winner")
    ),
    "change_given": EventText(gettext_noop("货币"), _change_given, characters=keys("character")),
    "exchanged": EventText(gettext_noop("货币"), _exchanged),
    "exchange_requested": EventText(
        gettext_noop("货币"), _exchange_requested, characters=keys("character")
    ),
    "exchange_refused": EventText(gettext_noop("货币"), _exchange_refused),
    "stall_offer": EventText(gettext_noop("摆摊"), _stall_offer, characters=keys("seller")),
    "stall_opened": EventText(gettext_noop("摆摊"), _stall_opened),
    "stall_buy": EventText(gettext_noop("摆摊"), _stall_buy, characters=keys("actor", "seller")),
    "stall_bought": EventText(gettext_noop("摆摊"), _stall_bought),
    "stall_sold": EventText(gettext_noop("摆摊"), _stall_sold),
    "stall_returned": EventText(gettext_noop("摆摊"), _stall_returned),
    "gift": EventText(gettext_noop("赠送"), _gift, characters=keys("actor", "target")),
    "gift_received": EventText(gettext_noop("赠送"), _gift_received, characters=keys("sender")),
    "gift_sent": EventText(
        gettext_noop("赠送"),
        lambda p, ctx: (
            _("%(name)s 把%(items)s赠送给 %(target)s")
            % {
                "name": ctx.subject(),
                "items": items(p.get("items"), ctx),
                "target": ctx.name(p.get("target")),
            }
        ),
        characters=keys("target"),
    ),
    "trade_offer": EventText(gettext_noop("交易"), _trade_offer, characters=keys("from", "to")),
    "trade_offered": EventText(gettext_noop("交易"), _trade_offered, characters=keys("sender")),
    "trade_proposed": EventText(gettext_noop("交易"), _trade_proposed, characters=keys("target")),
    "trade": EventText(gettext_noop("交易"), _trade, characters=keys("from", "to")),
    "trade_done": EventText(gettext_noop("交易"), _trade_done, characters=keys("partner")),
    "trade_cancelled": EventText(
        gettext_noop("交易"), _trade_cancelled, characters=keys("actor", "target", "partner")
    ),
    "director_used": EventText(gettext_noop("导演干预"), _director_used),
    # daily events and NPCs
    "day_event": EventText(gettext_noop("随机事件"), text_or(gettext_noop("今日事件"))),
    "events_today": EventText(gettext_noop("随机事件"), _events_today),
    "event_effect": EventText(
        gettext_noop("随机事件"), _event_effect, characters=keys("character")
    ),
    "villain": EventText(
        gettext_noop("随机事件"), text_or(gettext_noop("今日的恶棍")), characters=keys("character")
    ),
    "villain_gone": EventText(
        gettext_noop("随机事件"), _villain_gone, characters=keys("character")
    ),
    "villain_struck": EventText(
        gettext_noop("随机事件"), _villain_struck, characters=keys("villain", "victims")
    ),
    "twist": EventText(gettext_noop("随机事件"), _twist, characters=keys("character")),
    "event_item_exhausted": EventText(gettext_noop("随机事件"), _event_item_exhausted),
    "event_item_in_market": EventText(gettext_noop("随机事件"), _event_item_in_market),
    "reward_offered": EventText(
        gettext_noop("奖励"), _reward_offered, characters=keys("character")
    ),
    "reward_claimed": EventText(
        gettext_noop("奖励"), _reward_claimed, characters=keys("character")
    ),
    "broadcast": EventText(
        gettext_noop("随机事件"),
        text_or(gettext_noop("永不停歇的电波")),
        characters=keys("bounties"),
    ),
    "bounty": EventText(
        gettext_noop("随机事件"), text_or(gettext_noop("悬赏")), characters=keys("bounties")
    ),
    "power_ranking": EventText(
        gettext_noop("随机事件"), text_or(gettext_noop("战力排名")), characters=keys("rows")
    ),
    "nest": EventText(gettext_noop("随机事件"), text_or(gettext_noop("发现了新的奇异巢穴"))),
    "night_parade": EventText(
        gettext_noop("随机事件"), text_or(gettext_noop("百鬼夜行")), characters=keys("revenants")
    ),
    "night_parade_over": EventText(
        gettext_noop("随机事件"), text_or(gettext_noop("百鬼夜行结束")), characters=keys("returned")
    ),
    "winter_shrink": EventText(gettext_noop("随机事件"), _winter),
    "revenant_revived": EventText(
        gettext_noop("随机事件"),
        _revenant(gettext_noop("【%(event)s】%(name)s 击杀了玩家，继续留在场上")),
        characters=keys("character"),
    ),
    "revenant_fell": EventText(
        gettext_noop("随机事件"),
        _revenant(gettext_noop("【%(event)s】%(name)s 在击杀玩家之前倒下，回到原先的出局")),
        characters=keys("character"),
    ),
    "revenant_returned": EventText(
        gettext_noop("随机事件"), _revenant_returned, characters=keys("character")
    ),
    "npc_placed": EventText(gettext_noop("NPC"), _npc_placed),
    "npc_left": EventText(gettext_noop("NPC"), _npc_left),
    "npcs_left": EventText(gettext_noop("NPC"), text_or(gettext_noop("NPC 离开了"))),
    "riddle": EventText(gettext_noop("谜题"), text_or(gettext_noop("每日谜题"))),
    "riddle_answer": EventText(gettext_noop("谜题"), _riddle_answer, characters=keys("character")),
    "riddle_paid": EventText(gettext_noop("谜题"), _riddle_paid, characters=keys("paid")),
    "test_prize_earned": EventText(
        gettext_noop("测试赛"), _test_prize_earned, characters=keys("character")
    ),
    "test_match_prizes": EventText(
        gettext_noop("测试赛"), _test_match_prizes, characters=keys("characters")
    ),
    "test_match_created": EventText(
        gettext_noop("测试赛"),
        lambda p, ctx: _("创建测试赛（编号 %(number)s）") % {"number": p.get("number", "")},
    ),
    "test_match_archived": EventText(
        gettext_noop("测试赛"),
        lambda p, ctx: (
            _("测试赛结束并归档；奖励获得者：%(names)s")
            % {"names": "、".join(str(n) for n in p.get("winners") or []) or _("无")}
        ),
    ),
    # the directors
    "intervention": EventText(
        gettext_noop("导演干预"), _intervention, characters=keys("character")
    ),
    "director_adjusted": EventText(gettext_noop("导演干预"), _director_adjusted),
    "director_moved": EventText(gettext_noop("导演干预"), _director_moved),
    "director_took": EventText(gettext_noop("导演干预"), _director_took),
    "director_restored": EventText(gettext_noop("导演干预"), _director_restored),
    "setting_changed": EventText(gettext_noop("设置"), _setting),
    "engine_step": EventText(
        gettext_noop("引擎步骤"),
        _engine_step,
        step=True,
        characters=action_actor,
    ),
}


register_texts("royale", TEXTS, context=_context)

# The kinds whose player sentence ``static/js/royale.js`` writes (its ``describe``); a test keeps
# this list and the script's cases equal. Other kinds reach a player with their own ``text``.
PORTAL_KINDS = frozenset(
    {
        "airdrop",
        "announcement",
        "attack_result",
        "bleeding",
        "bomb_used",
        "day_closed",
        "dice_rolled",
        "died",
        "dropped",
        "equipped",
        "game_created",
        "game_finished",
        "game_over",
        "game_paused",
        "game_resumed",
        "gps_result",
        "hit",
        "item_broken",
        "item_granted",
        "megaphone",
        "morning_report",
        "moved",
        "night_closed",
        "night_ended",
        "night_opened",
        "phase_changed",
        "phone_answer",
        "phone_answered",
        "phone_call",
        "phone_placed",
        "picked_up",
        "places_vanished",
        "recovered",
        "red_card",
        "resting",
        "searched",
        "spawned",
        "telescope_result",
        "unequipped",
        "upgraded",
        "used",
        "vote_cast",
        "vote_changed",
        "vote_result",
        "vote_reward",
        "whisper",
        "whisper_sent",
        "window_extended",
        "zone_closed",
        "zone_open",
    }
)
register_portal_kinds("royale", PORTAL_KINDS)
