"""[096]'s 亡灵圣物 and 神眷者: 藏匿, 诅咒 at the night's open and its immunities (神恩, 共鸣,
无限魔力, 全知, 龙鳞), 灾厄, 馈赠, 认主, 追踪, 七轮感应法, 戈尔贡之血, 龙息's transfer, 共鸣 (damage
flow step 5), 无限魔力's 变羊术, 全知, the 高塔 holder's notice; the 神眷者's election on day 1,
神恩 and 传承.

State: ``flags["relic"]`` = {holder, curses (诅咒次数 left), nights (full nights held by a 生灵
in a row), bonded (the holder it 认主'd and who wins by it), tracked (holders 追踪 reported),
owned (holders told of 认主), open (the holder at this night's open, after the curse),
counting (that holder was a 生灵: the night counts for 认主), told (the 高塔 holder told)}.
Who learns of a move is only whom the post names (RULINGS 096-15): a 藏匿, 馈赠 or 灾厄
recipient is not told; the directors see every move.

The passes the post lets a player choose (馈赠, 共鸣's, 灾厄, 传承) are day windows
(``cn_relic_window``): asked when the player learns of them — at once by day, at the day's open
for what the night settled — and, but for 灾厄 (kept when not passed), drawn from the seed when
forgone, expired or still open at the next day's open (RULINGS 096-15).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from . import victory
from .conan import (
    CAUSE_DAMAGE,
    cooldown,
    cooldown_add,
    flip,
    in_force,
    is_undead,
    mark_triggered,
    members,
    night_damages,
    register_damage_step,
    relic_holder,
    toggled,
)
from .day import tally
from .draft import Draft
from .errors import WindowClosed
from .hooks import register_hook
from .outcomes import Fired, open_window, register_trigger
from .ruleset import Skill, Trigger
from .skills import register_handler
from .state import CAUSE_VOTE, Player
from .steps import subs

PACK = "pack"  # the 狼群: 藏匿 names a character outside it, 追踪 tells its members
PASSES = ("gift", "resonance_pass", "calamity")  # windows that hand the relic on
WHY = {"gift": "馈赠", "resonance_pass": "共鸣", "calamity": "灾厄", "heritage": "传承"}


def relic(d: Draft) -> dict[str, Any]:
    return dict(d.flags.get("relic") or {})


def _set(d: Draft, **changes: Any) -> None:
    d.set_flag("relic", {**relic(d), **changes})


def _names(d: Draft, pids: Iterable[int]) -> str:
    return "、".join(d.name(p) for p in pids) or "无"


def _living_ids(d: Draft, *, but: Iterable[int] = ()) -> list[int]:
    skip = set(but)
    return sorted(p.id for p in d.living() if p.id not in skip)


def _tell(d: Draft, pid: int, text: str, **facts: Any) -> None:
    d.to(pid, "relic", {"text": text, **facts})


def known(d: Draft, pid: int, held: bool, why: str) -> None:
    """What ``pid`` was last told of its own holding (``flags["cn_relic_known"]``), for its
    portal: only a notice the post gives (RULINGS 096-15) or its own pass sets it, so a 藏匿 or
    馈赠 recipient's page says nothing, and a holder the relic left silently (许愿 effect 3)
    still reads what it was last told."""
    d.wp(pid).flags["cn_relic_known"] = {"held": held, "day": d.day, "why": why}


def _log(d: Draft, step: str, text: str, **facts: Any) -> None:
    """A line of the trace (at night) and of the directors' log (any time)."""
    d.note(step, text, **facts)
    d.directors("relic", {"text": text, **facts})


# --- moves ---------------------------------------------------------------------------------------


def move(d: Draft, to: int, why: str, *, notice: str | None = None) -> None:
    """The relic goes to ``to``; only a ``notice`` the post gives is told (RULINGS 096-15). From
    the 灯神 (全知) it performs one curse and one 认主 check at once."""
    r = relic(d)
    old = r.get("holder")
    if old == to:
        return
    _set(d, holder=to, nights=0, counting=False, told=None)
    src = "" if old is None else f"由{d.name(old)}"
    _log(d, "亡灵圣物", f"亡灵圣物{src}转移给{d.name(to)}（{why}）。", holder=to, why=why)
    if notice is not None:
        _tell(d, to, notice, why=why)
        known(d, to, True, why)
    if old is not None and "omniscience" in d.p(old).skills:
        d.note("全知", "圣物从灯神转移至其他角色：立即执行一次诅咒和认主判定。")
        curse(d, "全知")
        bond_check(d)


def _immunity(d: Draft, pid: int) -> str | None:
    """The skill that stops a curse on ``pid`` (in the data's order): 神恩 (the 神眷者), the
    <圣物> 共鸣/无限魔力/全知, 龙鳞 when not cooling (it then cools 1 and counts as triggered)."""
    p = d.p(pid)
    for key in d.rs.skills["relic_curse"].params.get("immune", []):
        sk = d.rs.skills[key]
        if key == "grace":
            if d.sheriff == pid:
                return key
        elif key == "scales":
            if key in p.skills and cooldown(p, key) == 0:
                cooldown_add(d, pid, key, sk.cooldown or 1, "龙鳞免疫诅咒")
                mark_triggered(d, pid, key)
                return key
        elif key in p.skills and in_force(d, p, sk):
            return key
    return None


def curse(d: Draft, why: str, *, ignore_immunity: bool = False) -> bool:
    """诅咒: 若持有者不属于亡灵阵营，减少一次诅咒次数，翻转其身份；诅咒次数为0时不再生效. An
    immune holder: nothing, the count kept (RULINGS 096-11). True when it flipped the holder."""
    r = relic(d)
    holder = r.get("holder")
    left = int(r.get("curses", 0))
    if holder is None or not d.p(holder).alive:
        d.note("诅咒", f"亡灵圣物不在存活角色手中，诅咒无效果（{why}）。")
        return False
    name = d.name(holder)
    if left <= 0:
        d.note("诅咒", f"诅咒次数为0，不再生效（{why}）。", target=holder)
        return False
    if is_undead(d, holder):
        d.note("诅咒", f"持有者{name}属于亡灵阵营，诅咒无效果（{why}）。", target=holder)
        return False
    shield = None if ignore_immunity else _immunity(d, holder)
    if shield is not None:
        skill = d.rs.skills[shield].name
        d.note("诅咒", f"持有者{name}以【{skill}】免疫诅咒，诅咒次数仍为{left}。", target=holder)
        return False
    _set(d, curses=left - 1)
    how = "（无视免疫）" if ignore_immunity else ""
    text = f"诅咒{how}：{name}翻转身份，诅咒次数{left}→{left - 1}（{why}）。"
    _log(d, "诅咒", text, target=holder)
    flip(d, holder, "诅咒")
    return True


def bond_check(d: Draft) -> None:
    """认主: a 生灵 holding it through two full nights is told; a 地下城/高塔 holder wins by it
    (RULINGS 096-2), anyone else hears of it only."""
    r = relic(d)
    holder = r.get("holder")
    need = int(d.rs.skills["bond"].params["nights"])
    nights = int(r.get("nights", 0))
    if holder is None or nights < need or holder in r.get("owned", []):
        if holder is not None:
            d.note("认主", f"认主判定：{d.name(holder)}连续持有{nights}个完整夜晚，未认主。")
        return
    wins = d.p(holder).faction in d.rs.skills["bond"].params.get("wins", [])
    _set(d, owned=[*r.get("owned", []), holder], **({"bonded": holder} if wins else {}))
    _log(d, "认主", f"亡灵圣物认{d.name(holder)}为主。", target=holder, wins=wins)
    _tell(d, holder, f"你以生灵身份持有亡灵圣物连续度过了{need}个完整的夜晚，亡灵圣物认你为主。")
    known(d, holder, True, "认主")
    if wins:
        victory.check(d)


# --- windows: 馈赠, 共鸣's pass, 灾厄, 传承 ------------------------------------------------------


def _ask(d: Draft, pid: int, skill: str, *, night: bool) -> None:
    """Open ``skill``'s window for ``pid``; unchosen, it is drawn at the next day's open after
    the player is asked (a night's outs are told at the following day's open)."""
    open_window(d, pid, skill, night=night)
    draw = d.day + (2 if night else 1)
    d.windows = tuple(
        {**w, "draw": draw} if w["actor"] == pid and w["skill"] == skill else w for w in d.windows
    )


def _pending(d: Draft, pid: int, skills: Iterable[str] = ("gift", "resonance_pass")) -> bool:
    return any(w["actor"] == pid and w["skill"] in skills for w in d.windows)


def _anoint(d: Draft, pid: int, text_key: str) -> None:
    d.sheriff = pid
    text = d.rs.text(text_key, name=d.name(pid))
    d.note("神眷者", text, target=pid)
    d.public("sheriff", {"text": text, "sheriff": pid, "name": d.name(pid), "by": text_key})


def _pass(d: Draft, w: dict[str, Any], target: int) -> None:
    skill = w["skill"]
    if skill == "heritage":
        _anoint(d, target, "heritage")
        return
    old = relic_holder(d)
    move(d, target, WHY[skill])
    if old is not None and old != target:
        known(d, old, False, WHY[skill])
    if skill == "resonance_pass":
        curse(d, "共鸣转移的圣物立即执行一次诅咒")


def _draw(d: Draft, w: dict[str, Any], why: str) -> None:
    """A pass not chosen: drawn from the game's seed (RULINGS 096-15); 灾厄 not used keeps it."""
    skill, actor = w["skill"], int(w["actor"])
    if skill == "calamity":
        d.note("灾厄", f"{d.name(actor)}没有转交亡灵圣物，圣物留在其手中。")
        return
    if skill in PASSES and relic_holder(d) != actor:
        return
    pool = _living_ids(d, but=() if skill == "heritage" else (actor,))
    if not pool:
        return
    target = d.rng.choice(pool)
    name = WHY[skill]
    text = f"{d.name(actor)}未选择【{name}】的对象（{why}），由种子抽取{d.name(target)}。"
    _log(d, name, text, actor=actor, target=target, drawn_from=pool)
    _pass(d, w, target)


@register_handler("cn_relic_window")
def _relic_window(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    w = next(
        (x for x in d.windows if x["actor"] == p.id and x["skill"] == sk.key and now <= x["until"]),
        None,
    )
    if w is None or (sk.key in PASSES and relic_holder(d) != p.id):
        raise WindowClosed(skill=sk.key)
    d.windows = tuple(x for x in d.windows if x is not w)
    payload = {"skill": sk.key, "name": sk.name, "target": target, "target_name": d.name(target)}
    d.to(p.id, "submitted", payload, p.id)
    d.directors("submitted", {"actor": p.id, "skill": sk.key, "target": target}, p.id)
    _pass(d, w, target)


@register_hook("cn_relic_window_closed")
def _window_closed(d: Draft, w: dict[str, Any], used: bool) -> None:
    if not used and w["skill"] in WHY:
        _draw(d, w, "放弃或超时")


@register_trigger("cn_heritage")
def _heritage(d: Draft, pid: int, t: Trigger, f: Fired) -> bool:
    """传承: the 神眷者 out learns the living and names the next (missing: the seed)."""
    living = _names(d, _living_ids(d))
    _tell(d, pid, f"【传承】你出局了。存活角色：{living}。请选择一名角色成为神眷者。")
    _ask(d, pid, "heritage", night=f.night)
    return False


# --- the night ------------------------------------------------------------------------------------


def _hide(d: Draft) -> None:
    """藏匿 (applied at night 1's open): the pack's pick, or one drawn from the seed among the
    living outside the pack (RULINGS 096-15); the recipient is not told."""
    picks = dict(d.flags.get("cn_day_picks") or {})
    pick = picks.pop("hide", None)
    d.set_flag("cn_day_picks", picks)
    pack = set(members(d, PACK))
    target = None if pick is None else int(pick["target"])
    if target is None or not d.p(target).alive or target in pack:
        pool = _living_ids(d, but=pack)
        target = d.rng.choice(pool)
        _log(d, "藏匿", f"狼人没有选择藏匿目标，由种子抽取{d.name(target)}。", target=target,
             drawn_from=pool)  # fmt: skip
    count = int(d.rs.skills["relic_curse"].params["count"])
    d.set_flag("relic", {"holder": None, "curses": count, "nights": 0, "bonded": None,
                         "tracked": [], "owned": []})  # fmt: skip
    move(d, target, "藏匿")


def elevator(d: Draft) -> list[int]:
    """The 电梯楼 as a circle of those not out (RULINGS 096-13): the day's order, else seats."""
    order = [int(i) for i in d.flags.get("elevator") or sorted(d.players)]
    return [i for i in order if i in d.players and d.p(i).alive]


def _seven_wheels(d: Draft) -> None:
    """七轮感应法: 正向 (down the list) or 逆向, by the nearest way round; a tie is 正向."""
    holder = relic_holder(d)
    if holder is None or not d.p(holder).alive:
        return
    circle = elevator(d)
    for p in d.living():
        if "seven_wheels" not in p.skills or p.id not in circle or holder not in circle:
            continue
        if holder == p.id:
            _tell(d, p.id, "【七轮感应法】亡灵圣物的持有者就是你自己。", way=None)
            known(d, p.id, True, "七轮感应法")
            continue
        i, j, n = circle.index(p.id), circle.index(holder), len(circle)
        way = "正向" if (j - i) % n <= (i - j) % n else "逆向"
        _tell(d, p.id, f"【七轮感应法】亡灵圣物持有者的位置在【{way}】。", way=way)
        d.note("七轮感应法", f"{p.name}得知圣物持有者在【{way}】。", target=p.id)


def _sheep(d: Draft) -> list[int]:
    return sorted(p.id for p in d.players.values() if "sheep" in p.statuses)


@register_hook("cn_relic_night_open")
def _night_open(d: Draft) -> None:
    """入夜: 藏匿 (night 1), 灾厄's unused windows end, the curse, 认主's count starts,
    七轮感应法."""
    if d.night.get("prelude"):
        return
    if "relic" not in d.flags:
        _hide(d)
    d.windows = tuple(w for w in d.windows if w["skill"] != "calamity")
    curse(d, "夜晚开始")
    holder = relic_holder(d)
    counting = (
        holder is not None
        and d.p(holder).alive
        and not is_undead(d, holder)
        and not _pending(d, holder)
    )
    _set(d, open=holder, counting=counting, **({} if counting else {"nights": 0}))
    _seven_wheels(d)
    d.set_night(cn_sheep_open=_sheep(d))


def _infinite_mana(d: Draft) -> None:
    """无限魔力: the 巫师 holding it from the open must make a new 变羊 each night; else one curse
    on the 巫师 that ignores immunity."""
    r = relic(d)
    wizard = r.get("holder")
    if wizard is None or r.get("open") != wizard or not d.p(wizard).alive:
        return
    if "infinite_mana" not in d.p(wizard).skills:
        return
    if set(_sheep(d)) - set(d.night.get("cn_sheep_open", [])):
        return
    d.note("无限魔力", f"巫师{d.name(wizard)}当夜没有产生新的变羊状态角色。", target=wizard)
    curse(d, "无限魔力", ignore_immunity=True)


def _omniscience(d: Draft) -> None:
    """全知: the 灯神 holding it learns the wished one's role and that night's feedback."""
    genie = relic_holder(d)
    if genie is None or "omniscience" not in d.p(genie).skills or not d.p(genie).alive:
        return
    wished = subs(d, "wish").get(str(genie))
    if wished is None:
        return
    target = int(wished)
    feedback = (d.result or {}).get("feedback", {}).get(str(target), [])
    told = [str(fb["text"]) for fb in feedback if fb.get("text")]
    said = f"当夜其反馈：{'；'.join(told)}" if told else "当夜其没有反馈"
    text = f"【全知】许愿角色{d.name(target)}的身份是{d.role_name(target)}；{said}。"
    _tell(d, genie, text, target=target)
    d.note("全知", text, target=genie)


def _resonance_passes(d: Draft) -> None:
    """共鸣: the golem spared tonight must pass the relic (its choice, asked at the day's open)."""
    for t, _actor, _skill, taken in night_damages(d):
        if taken != "resonance" or relic_holder(d) != t or _pending(d, t, ("resonance_pass",)):
            continue
        _tell(d, t, "【共鸣】你免疫了此次伤害，必须将亡灵圣物转交给一名其他角色。")
        known(d, t, True, "共鸣")
        _ask(d, t, "resonance_pass", night=True)


def _calamity(d: Draft) -> None:
    """灾厄: an undead holder learns the living and may pass it to anyone."""
    holder = relic_holder(d)
    if holder is None or not d.p(holder).alive or not is_undead(d, holder):
        return
    living = _names(d, _living_ids(d))
    text = f"【灾厄】你持有亡灵圣物。存活角色：{living}。你可以将亡灵圣物转交给任意一名角色。"
    _tell(d, holder, text)
    known(d, holder, True, "灾厄")
    open_window(d, holder, "calamity", night=True)
    d.note("灾厄", f"{d.name(holder)}得知存活角色名单，可以转交亡灵圣物。", target=holder)


@register_hook("cn_relic_night_end")
def _night_end(d: Draft) -> None:
    """夜晚结束: 无限魔力's curse, 全知, 共鸣's pass, (12) 认主, 灾厄."""
    if d.night.get("prelude") or "relic" not in d.flags:
        return
    _infinite_mana(d)
    _omniscience(d)
    _resonance_passes(d)
    r = relic(d)
    holder = r.get("holder")
    if (
        holder is not None
        and r.get("counting")
        and r.get("open") == holder
        and d.p(holder).alive
        and not is_undead(d, holder)
        and not _pending(d, holder)
    ):
        _set(d, nights=int(r.get("nights", 0)) + 1)
        bond_check(d)
    else:
        _set(d, nights=0)
    if d.winner is None:
        _calamity(d)


# --- the day --------------------------------------------------------------------------------------


@register_hook("cn_relic_day_open")
def _day_open(d: Draft) -> None:
    """开门: passes still unchosen are drawn; (13) 追踪; (13) the 高塔 holder's notice."""
    for w in list(d.windows):
        if w.get("draw") is not None and int(w["draw"]) <= d.day and w["skill"] in WHY:
            d.windows = tuple(x for x in d.windows if x is not w)
            _draw(d, w, "开门前未选择")
    r = relic(d)
    holder = r.get("holder")
    if holder is None or not d.p(holder).alive:
        return
    pack = members(d, PACK, acting=True)
    if holder not in members(d, PACK) and holder not in r.get("tracked", []):
        told = [m for m in pack if "track" in d.p(m).skills]
        if told:
            for m in told:
                _tell(d, m, f"【追踪】亡灵圣物的持有者是{d.name(holder)}。", holder=holder)
            _set(d, tracked=[*r.get("tracked", []), holder])
            d.directors("relic", {"text": f"狼群通过【追踪】得知圣物持有者是{d.name(holder)}。"})
    p = d.p(holder)
    relics = [d.rs.skills[s].name for s in p.skills if "圣物" in d.rs.skills[s].tags]
    if relics and relic(d).get("told") != holder:
        _set(d, told=holder)
        _tell(d, holder, f"你持有亡灵圣物，<圣物>技能【{'】【'.join(relics)}】生效。")
        known(d, holder, True, "圣物")


@register_hook("cn_relic_out")
def _out(d: Draft, pid: int, cause: str, night: bool) -> None:
    """The holder out: 龙息's out → the 黑龙; voted out with 戈尔贡之血 on and the 美杜莎's vote →
    the 美杜莎 (each told); else 馈赠's window."""
    if relic_holder(d) != pid:
        return
    if night and cause == CAUSE_DAMAGE:
        for t, actor, skill, taken in night_damages(d):
            breath = d.rs.skills[skill].effect == "breath"
            if t == pid and taken == "out" and breath and d.p(actor).alive:
                text = f"【龙息】{d.name(pid)}因龙息出局，其持有的亡灵圣物转移给你。"
                move(d, actor, "龙息", notice=text)
                return
    if not night and cause == CAUSE_VOTE:
        ballots = d.flags.get("day_ballots") or {}
        today = ballots.get("ballots", []) if ballots.get("day") == d.day else []
        mine = {int(v): int(t) for v, t in today}
        for q in d.living():
            if "gorgon_blood" in q.skills and toggled(q, "gorgon_blood") and mine.get(q.id) == pid:
                voted = d.name(pid)
                text = f"【戈尔贡之血】你的投票对象{voted}被投票出局，其持有的亡灵圣物转移给你。"
                move(d, q.id, "戈尔贡之血", notice=text)
                return
    known(d, pid, True, "馈赠")
    _ask(d, pid, "gift", night=night)


@register_damage_step("resonance")
def _step_resonance(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    """(5) 如果该角色是持有圣物的魔像，此次伤害无效，转交圣物并执行诅咒 — once: the relic is
    then on its way to another (its pass is asked at the day's open)."""
    t = dmg["target"]
    p = d.p(t)
    used: set[int] = spent.setdefault("resonance", set())
    if relic_holder(d) != t or "resonance" not in p.skills or t in used or _pending(d, t):
        return False
    used.add(t)
    d.note(dmg["line"], f"{p.name}持有亡灵圣物，【共鸣】：此次伤害无效，须转交圣物。", target=t)
    return True


# --- 神眷者 --------------------------------------------------------------------------------------


def _elected_day(d: Draft) -> int:
    return int(d.rs.skills["grace"].params.get("elected_day", 1))


def first_to_top(d: Draft, leaders: Iterable[int]) -> int:
    """最先高票者: of the tied, the one whose running total reached the top first, the ballots
    replayed in order (``flags["day_ballots"]``, earliest first); without them the lowest id."""
    tied = sorted(leaders)
    ballots = d.flags.get("day_ballots") or {}
    if ballots.get("day") != d.day:
        return tied[0]
    rows = [(int(v), int(t)) for v, t in ballots["ballots"]]
    final = tally(d.base, dict(rows))
    running: dict[int, Fraction] = {}
    for voter, target in rows:
        weight = tally(d.base, {voter: target}).get(target)
        if not weight:
            continue
        running[target] = running.get(target, Fraction(0)) + weight
        if target in tied and running[target] >= final.get(target, Fraction(0)):
            return target
    return tied[0]


@register_hook("cn_relic_voted_out")
def _voted_out(d: Draft, pid: int) -> bool:
    """Day 1: the top-voted is not out but becomes the 神眷者 (公示)."""
    if d.day != _elected_day(d):
        return False
    _anoint(d, pid, "chosen")
    return True


@register_hook("cn_relic_tied")
def _tied(d: Draft, leaders: list[int]) -> bool:
    """Day 1's tie: 最先高票者当选神眷者."""
    if d.day != _elected_day(d):
        return False
    _anoint(d, first_to_top(d, leaders), "chosen")
    return True


@register_hook("cn_relic_view")
def _view(d: Draft, p: Player, view: dict[str, Any]) -> dict[str, Any]:
    """The 神眷者 is public; who holds the relic is never shown (RULINGS 096-15), but the
    player's own holding as far as it was told (``known``)."""
    chosen = d.sheriff
    view["chosen"] = None if chosen is None else {"id": chosen, "name": d.name(chosen)}
    mine = p.flags.get("cn_relic_known") or {}
    # The player's own holding as it was last told (never the curse count: the post tells no
    # one the count after 光明之魂/灵能, RULINGS 096-15/16).
    view["conan_relic"] = (
        {"held": True, "day": mine["day"], "why": mine["why"]} if mine.get("held") else None
    )
    # A pass drawn from the seed at a day's open when not chosen: its deadline in words.
    draws = {
        str(w["skill"]): int(w["draw"])
        for w in d.windows
        if w["actor"] == p.id and w.get("draw") is not None
    }
    view["usable"] = [
        {**u, "closes": "day_open", "draw_day": draws[u["skill"]]}
        if u["skill"] in draws and "closes" not in u
        else u
        for u in view["usable"]
    ]
    return view
