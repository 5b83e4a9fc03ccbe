"""The role game's night room in the admin: one live page per game for its directors.

Before the start: deal the roles from the seed, then adjust them, and enter the characters'
genders and the 竞拍贴's result (each with a reason). During a
night: every submission as it arrives, then the engine's draft result with its step-by-step
trace, its private feedback and effects, and approve it or override the night's eliminations,
feedback and effects (with a reason) before publishing.
The page is the directors' view (every role shown); every write goes through
``werewolf.services``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from games import admin_base as games_admin
from games.admin_base import GameStateAdmin, InterventionForm, request_director, run_form
from games.admin_labels import GameColumn
from games.engine.errors import InvalidInput
from games.engine.text import is_blank
from games.eventlog import listing
from games.models import Game
from werewolf import selectors, services
from werewolf.engine import GENDERS, get_ruleset
from werewolf.engine.ruleset import Ruleset
from werewolf.engine.state import SETUP, GameState
from werewolf.engine.views import option_words, submission
from werewolf.errors import NotSetUp
from werewolf.models import WerewolfGame

PHASE_NAMES = {
    "setup": _("未开始"),
    "night": _("夜晚"),
    "late": _("夜晚结束（待发布）"),
    "day": _("白天"),
    "over": _("已结束"),
}
STEP_STATES = {"waiting": _("等待"), "open": _("进行中"), "closed": _("已结束")}
# The draft's effects (``state.result["effects"]``), in the engine's order.
EFFECT_KEYS = ("used", "love", "protect", "longevity")
AS_DRAFTED = ""  # a 预言 result left as the engine drafted it
FAILED = "failed"  # 查验无效


def directed_game(request: HttpRequest, game_id: int) -> Game:
    """The role game if the signed-in user directs it; otherwise 404, like a missing game."""
    return games_admin.directed_game(request, game_id, kind="werewolf")


def night_url(game: Game, anchor: str = "") -> str:
    url = reverse("admin:werewolf_night", args=[game.pk])
    return f"{url}#{anchor}" if anchor else url


# --- the draft, in words ------------------------------------------------------------------------


def _names(state: GameState) -> dict[int, str]:
    return {p.id: p.name for p in state.players.values()}


def feedback_text(entry: Mapping[str, Any]) -> str:
    """One private feedback entry as its player reads it."""
    if entry.get("kind") == "note":
        return str(_("导演私信：%(text)s") % {"text": entry.get("text", "")})
    if entry.get("kind") != "divine" and entry.get("text"):  # a sentence of its own (061)
        return str(entry["text"])
    seen = entry.get("role") or _("查验无效")
    return str(
        _("查验%(target)s：%(seen)s") % {"target": entry.get("target_name", ""), "seen": seen}
    )


def draft_feedback(state: GameState) -> list[dict[str, str]]:
    """Who is told what tonight (the draft's private feedback)."""
    names = _names(state)
    return [
        {"name": names.get(int(pid), pid), "text": feedback_text(entry)}
        for pid, entries in (state.result or {}).get("feedback", {}).items()
        for entry in entries
    ]


def draft_effects(state: GameState) -> list[tuple[str, str]]:
    """The draft's effects as (form value, Chinese line): 女巫X使用救药, 情痴X爱慕Y, 守护X守卫Y,
    村长X[长生]发动."""
    rs = get_ruleset(state.ruleset)
    names = _names(state)

    def role(pid: int) -> str:
        return rs.roles[state.players[pid].role].name

    def skill(key: str) -> str:
        return rs.skills[key].name if key in rs.skills else key

    effects = (state.result or {}).get("effects", {})
    lines: list[tuple[str, str]] = []
    for key in EFFECT_KEYS:
        for entry in effects.get(key, []):
            if key == "used":
                actor, used = entry
                words = {"role": role(actor), "actor": names[actor], "skill": skill(used)}
                text = _("%(role)s%(actor)s使用%(skill)s") % words
            elif key == "love":
                actor, target = entry
                words = {"role": role(actor), "actor": names[actor], "target": names[target]}
                text = _("%(role)s%(actor)s爱慕%(target)s") % words
            elif key == "protect":
                actor, used, target = entry
                words = {
                    "role": role(actor),
                    "actor": names[actor],
                    "skill": skill(used),
                    "target": names[target],
                }
                text = _("%(role)s%(actor)s%(skill)s%(target)s") % words
            else:
                text = _("%(role)s%(name)s[长生]发动") % {"role": role(entry), "name": names[entry]}
            lines.append((json.dumps([key, entry], ensure_ascii=False), str(text)))
    return lines


# --- forms ---------------------------------------------------------------------------------------


class _StateForm(forms.Form):
    def __init__(
        self, *args: Any, state: GameState | None, game: Game | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.state = state
        self.game = game


class DealForm(_StateForm):
    """发身份: the roles dealt from the game's seed (the director may adjust them after)."""


class RolesForm(_StateForm, InterventionForm):
    """One role per character, before the start."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.state is None:
            return
        rs = get_ruleset(self.state.ruleset)
        choices = [(k, r.name) for k, r in rs.roles.items()]
        for p in self.state.players.values():
            self.fields[f"c{p.id}"] = forms.ChoiceField(
                label=p.name, choices=choices, initial=p.role
            )
        self.order_fields([*[f for f in self.fields if f != "reason"], "reason"])

    def roles(self) -> dict[int, str]:
        return {
            int(name[1:]): value for name, value in self.cleaned_data.items() if name != "reason"
        }


class AuctionForm(_StateForm, InterventionForm):
    """Before the start, per character: the 马甲's gender (性别由马甲决定) and the 竞拍贴's result
    (表演/挡刀 bought, ±; a 性别卡; the gold, if given, caps the cost). One row each."""

    COLUMNS = ("gender", "act", "block", "card", "gold")
    HEADERS = {
        "gender": _("马甲性别"),
        "act": _("表演"),
        "block": _("挡刀"),
        "card": _("性别卡"),
        "gold": _("金币（选填）"),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.columns: tuple[str, ...] = ()
        self.has_auction = False
        if self.state is None:
            return
        # A ruleset without a 竞拍贴 ([061]) has only the 马甲's gender to enter.
        self.has_auction = get_ruleset(self.state.ruleset).has_auction
        self.columns = self.COLUMNS if self.has_auction else ("gender",)
        known = (
            selectors.werewolf_auction(game=self.game)
            if self.game is not None and not self.is_bound
            else {}
        )
        number = forms.NumberInput(attrs={"class": "ww-num"})
        for p in self.state.players.values():
            now = known.get(p.id, {})
            words = {"name": p.name}
            self.fields[f"gender{p.id}"] = forms.ChoiceField(
                label=_("%(name)s 马甲性别") % words,
                choices=[("", _("未定")), *((g, g) for g in GENDERS)],
                required=False,
                initial=now.get("gender") or "",
            )
            if not self.has_auction:
                continue
            for key, label in (("act", _("%(name)s 表演")), ("block", _("%(name)s 挡刀"))):
                self.fields[f"{key}{p.id}"] = forms.IntegerField(
                    label=label % words, required=False, initial=now.get(key, 0), widget=number
                )
            self.fields[f"card{p.id}"] = forms.ChoiceField(
                label=_("%(name)s 性别卡") % words,
                choices=[("", _("无")), *((g, g) for g in GENDERS)],
                required=False,
                initial=now.get("card") or "",
            )
            self.fields[f"gold{p.id}"] = forms.IntegerField(
                label=_("%(name)s 金币") % words,
                min_value=0,
                required=False,
                initial=now.get("gold"),
                widget=number,
            )
        self.order_fields([*[f for f in self.fields if f != "reason"], "reason"])

    @property
    def headers(self) -> list[str]:
        return [str(self.HEADERS[key]) for key in self.columns]

    @property
    def title(self) -> str:
        return str(TITLES["auction"] if self.has_auction else _("马甲性别（开局前）"))

    def rows(self) -> list[dict[str, Any]]:
        """The table's rows: each character's name and its bound fields, in COLUMNS' order."""
        if self.state is None:
            return []
        return [
            {"name": p.name, "fields": [self[f"{key}{p.id}"] for key in self.columns]}
            for p in self.state.players.values()
        ]

    def genders(self) -> dict[int, str | None]:
        assert self.state is not None  # noqa: S101  (a bound form has its state)
        return {pid: self.cleaned_data[f"gender{pid}"] or None for pid in self.state.players}

    def auction(self) -> dict[int, dict[str, Any]]:
        """The entries with anything in them (a character without one keeps 0/0, no card)."""
        assert self.state is not None  # noqa: S101  (a bound form has its state)
        out: dict[int, dict[str, Any]] = {}
        if not self.has_auction:
            return out
        for pid in self.state.players:
            entry: dict[str, Any] = {
                key: self.cleaned_data[f"{key}{pid}"]
                for key in ("act", "block")
                if self.cleaned_data[f"{key}{pid}"]
            }
            if self.cleaned_data[f"card{pid}"]:
                entry["gender"] = self.cleaned_data[f"card{pid}"]
            if self.cleaned_data[f"gold{pid}"] is not None:
                entry["gold"] = self.cleaned_data[f"gold{pid}"]
            if entry:
                out[pid] = entry
        return out


class StartForm(_StateForm):
    """进入夜晚: night 1 opens now and its deadlines count from now."""


class ResolveForm(_StateForm):
    """Run the engine on the night's submissions: the draft, not yet public."""


class PublishForm(_StateForm, InterventionForm):
    """Approve the engine's draft as it is and publish it."""


class CountForm(_StateForm, InterventionForm):
    """手动计票: the day's final ballots, one per line (投票者 目标), earliest first, in place of
    the thread's count — for a forum that cannot be read, or a count the director made by
    hand. The engine weighs them with today's modifiers."""

    ballots = forms.CharField(
        label=_("最终选票（每行：投票者 目标，按投票楼层先后）"),
        widget=forms.Textarea(attrs={"rows": 6, "cols": 30, "placeholder": "演员1 演员2"}),
        max_length=4000,
    )

    def pairs(self) -> list[tuple[int, int]]:
        """The lines as ``(voter, target)`` ids; a line that is not two of the game's names is
        refused (naming it), so nothing is settled from a mistyped count."""
        assert self.state is not None  # noqa: S101  (a bound form has its state)
        ids = {p.name: p.id for p in self.state.players.values()}
        out: list[tuple[int, int]] = []
        for n, line in enumerate(self.cleaned_data["ballots"].splitlines(), start=1):
            words = line.replace("→", " ").replace("->", " ").replace("：", " ").split()
            if not words:
                continue
            if len(words) != 2 or words[0] not in ids or words[1] not in ids:
                raise InvalidInput(
                    str(_("第 %(n)d 行不是“投票者 目标”两个角色名：%(line)s"))
                    % {"n": n, "line": line.strip()[:40]},
                    message_en=f"Line {n} is not two character names (voter, target).",
                    reason="bad ballot line",
                )
            out.append((ids[words[0]], ids[words[1]]))
        return out


class OverrideForm(_StateForm, InterventionForm):
    """Replace the night's eliminations, the 预言 results, add a private note, void drafted
    effects, then publish (the engine's draft stays in the log beside what was changed)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.state is None:
            return
        living = [(p.id, p.name) for p in self.state.players.values() if p.alive]
        draft = self.state.result or {}
        hits = draft.get("hits", [])
        # The night's eliminations a director may set, in the ruleset's settlement order.
        self.causes = get_ruleset(self.state.ruleset).night_causes
        for n, cause in enumerate(self.causes):
            self.fields[f"hit{n}"] = forms.TypedMultipleChoiceField(
                label=cause,
                choices=living,
                coerce=int,
                required=False,
                widget=forms.CheckboxSelectMultiple,
                initial=[h[0] for h in hits if h[1] == cause],
            )
        names = _names(self.state)
        roles = [
            (n, n)
            for n in dict.fromkeys(r.name for r in get_ruleset(self.state.ruleset).roles.values())
        ]
        for pid, entries in draft.get("feedback", {}).items():
            for n, entry in enumerate(entries):
                if entry.get("kind") != "divine":
                    continue
                words = {
                    "actor": names.get(int(pid), pid),
                    "target": entry.get("target_name", ""),
                    "seen": entry.get("role") or _("查验无效"),
                }
                self.fields[f"fb_{pid}_{n}"] = forms.ChoiceField(
                    label=_("%(actor)s查验%(target)s（草稿：%(seen)s）") % words,
                    choices=[(AS_DRAFTED, _("按草稿")), (FAILED, _("查验无效")), *roles],
                    required=False,
                    initial=AS_DRAFTED,
                )
        self.fields["note_to"] = forms.TypedChoiceField(
            label=_("私信角色"),
            choices=[("", "—"), *((p.id, p.name) for p in self.state.players.values())],
            coerce=int,
            empty_value=None,
            required=False,
        )
        self.fields["note_text"] = forms.CharField(
            label=_("私信内容（仅该角色可见）"), max_length=500, required=False
        )
        effects = draft_effects(self.state)
        if effects:
            self.fields["effects"] = forms.MultipleChoiceField(
                label=_("今晚的效果（取消勾选即作废）"),
                choices=effects,
                required=False,
                widget=forms.CheckboxSelectMultiple,
                initial=[value for value, _label in effects],
            )
        self.order_fields([*[f for f in self.fields if f != "reason"], "reason"])

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if (data.get("note_to") is None) != is_blank(data.get("note_text", "")):
            raise forms.ValidationError(_("私信需要同时选择角色并填写内容。"))
        return data

    def hits(self) -> list[list[Any]]:
        return [
            [target, cause]
            for n, cause in enumerate(self.causes)
            for target in self.cleaned_data[f"hit{n}"]
        ]

    def feedback(self) -> dict[str, list[dict[str, Any]]]:
        """The players whose feedback the director changed, each with its whole new list."""
        assert self.state is not None  # noqa: S101  (a bound override has its state)
        drafted = (self.state.result or {}).get("feedback", {})

        def plain(entry: Mapping[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in entry.items() if k != "target_name"}  # the engine fills it

        changed: dict[str, list[dict[str, Any]]] = {}
        for pid, entries in drafted.items():
            new, edited = [], False
            for n, entry in enumerate(entries):
                choice = self.cleaned_data.get(f"fb_{pid}_{n}") or AS_DRAFTED
                if choice == AS_DRAFTED:
                    new.append(plain(entry))
                    continue
                edited = True
                seen: dict[str, Any] = {"failed": True} if choice == FAILED else {"role": choice}
                new.append({"kind": "divine", "target": entry["target"], **seen})
            if edited:
                changed[pid] = new
        to = self.cleaned_data.get("note_to")
        if to is not None:
            pid = str(to)
            mine = changed.get(pid, [plain(e) for e in drafted.get(pid, [])])
            changed[pid] = [*mine, {"kind": "note", "text": self.cleaned_data["note_text"]}]
        return changed

    def effects(self) -> dict[str, list[Any]] | None:
        """The drafted effects the director kept, or None when none was voided."""
        assert self.state is not None  # noqa: S101  (a bound override has its state)
        if "effects" not in self.fields:
            return None
        kept = set(self.cleaned_data.get("effects", []))
        drafted = (self.state.result or {}).get("effects", {})
        effects = {
            key: [
                e for e in drafted.get(key, []) if json.dumps([key, e], ensure_ascii=False) in kept
            ]
            for key in EFFECT_KEYS
        }
        return None if effects == {k: list(drafted.get(k, [])) for k in EFFECT_KEYS} else effects

    def overrides(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hits": self.hits()}
        feedback = self.feedback()
        if feedback:
            out["feedback"] = feedback
        effects = self.effects()
        if effects is not None:
            out["effects"] = effects
        return out


class SpeechForm(_StateForm, InterventionForm):
    """[096] 异常状态: a post the site flagged — a 变羊 without 咩, a 石化 with more than emoji —
    confirmed as a break of the rule; its author's non-passive skills each gain 1 cooldown."""

    post = forms.TypedChoiceField(label=_("违规发言"), coerce=int, choices=())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        post = self.fields["post"]
        assert isinstance(post, forms.TypedChoiceField)  # noqa: S101  (declared above)
        post.choices = [(b["post"], _speech_label(b)) for b in _speech_breaks(self)]


def _speech_breaks(form: _StateForm) -> list[dict[str, Any]]:
    if form.game is None or form.state is None:
        return []
    day = form.state.day
    return selectors.werewolf_speech_breaks(game=form.game, days=[d for d in (day - 1, day) if d])


def _speech_label(b: Mapping[str, Any]) -> str:
    return str(_("第 %(day)s 天 %(thread)s %(floor)s 楼 · %(name)s（%(status)s）：%(text)s")) % b


FORMS: dict[str, type[_StateForm]] = {
    "deal": DealForm,
    "roles": RolesForm,
    "auction": AuctionForm,
    "start": StartForm,
    "resolve": ResolveForm,
    "publish": PublishForm,
    "override": OverrideForm,
    "count": CountForm,
    "speech": SpeechForm,
}
TITLES = {
    "deal": _("按种子发身份"),
    "roles": _("调整身份（开局前）"),
    "auction": _("性别与竞拍结果（开局前）"),
    "start": _("开局：进入第一夜"),
    "resolve": _("结算今晚（生成草稿）"),
    "publish": _("批准并发布"),
    "override": _("修改结果并发布"),
    "count": _("手动计票（代替投票帖的统计）"),
    "speech": _("确认违反变羊/石化状态的发言（所有非被动技能冷却+1）"),
}

Run = Callable[[Game, User, Any], str]


def _deal(game: Game, who: User, form: DealForm) -> str:
    services.werewolf_setup(game=game)
    return str(_("身份已按种子发放。"))


def _roles(game: Game, who: User, form: RolesForm) -> str:
    services.werewolf_roles_set(
        game=game, director=who, roles=form.roles(), reason=form.cleaned_data["reason"]
    )
    return str(_("身份已调整。"))


def _auction(game: Game, who: User, form: AuctionForm) -> str:
    services.werewolf_auction_set(
        game=game,
        director=who,
        genders=form.genders(),
        auction=form.auction(),
        reason=form.cleaned_data["reason"],
    )
    return str(_("性别与竞拍结果已录入。"))


def _start(game: Game, who: User, form: StartForm) -> str:
    services.werewolf_start(game=game, director=who)
    return str(_("第一夜已开始。"))


def _resolve(game: Game, who: User, form: ResolveForm) -> str:
    services.werewolf_night_resolve(game=game, director=who)
    return str(_("草稿已生成，请核对后发布。"))


def _publish(game: Game, who: User, form: PublishForm) -> str:
    services.werewolf_night_publish(game=game, director=who, reason=form.cleaned_data["reason"])
    return str(_("已发布。"))


def _override(game: Game, who: User, form: OverrideForm) -> str:
    services.werewolf_night_publish(
        game=game,
        director=who,
        reason=form.cleaned_data["reason"],
        overrides=form.overrides(),
    )
    return str(_("已按修改后的结果发布。"))


def _count(game: Game, who: User, form: CountForm) -> str:
    services.werewolf_day_count(
        game=game, director=who, ballots=form.pairs(), reason=form.cleaned_data["reason"]
    )
    return str(_("今天的投票已按录入的选票结算。"))


def _speech(game: Game, who: User, form: SpeechForm) -> str:
    services.werewolf_speech_penalty(
        game=game,
        director=who,
        post_id=form.cleaned_data["post"],
        reason=form.cleaned_data["reason"],
    )
    return str(_("已确认：该角色所有非被动技能冷却+1。"))


RUNS: dict[str, Run] = {
    "deal": _deal,
    "roles": _roles,
    "auction": _auction,
    "start": _start,
    "resolve": _resolve,
    "publish": _publish,
    "override": _override,
    "count": _count,
    "speech": _speech,
}


# --- what the page shows ------------------------------------------------------------------------


def _step_state(st: Mapping[str, Any] | None) -> str:
    """A step's state in words; one closed without ever opening is not part of tonight (the
    开局夜 runs only 附身/遇难/票台, and the game nights not those)."""
    if not st:
        return ""
    if st["state"] == "closed" and st.get("deadline") is None:
        return str(_("今晚无此步骤"))
    return str(STEP_STATES.get(st["state"], st["state"]))


def _winner_name(rs: Ruleset, winner: str | None, co: Sequence[str] = ()) -> str:
    """The winning faction's name (and 096's 中立 winning beside it); "" is the end where
    every faction lost (无人胜利)."""
    if winner is None:
        return ""
    if not winner:
        return str(_("无人胜利"))
    name = rs.factions[winner].name
    if co:
        name += str(_("（%(factions)s共同胜利）") % {
            "factions": listing(rs.factions[f].name for f in co)
        })  # fmt: skip
    return name


def _titled(op: str, form: _StateForm) -> tuple[str, str, _StateForm]:
    """(op, the form's heading, the form): a form may name itself after the ruleset."""
    return op, str(getattr(form, "title", TITLES[op])), form


def _state_or_none(game: Game) -> GameState | None:
    try:
        return selectors.werewolf_state(game=game)
    except NotSetUp:
        return None


def _when(moment: float | None) -> datetime | None:
    if moment is None:
        return None
    return datetime.fromtimestamp(moment, tz=timezone.get_current_timezone())


def night_context(game: Game, state: GameState | None) -> dict[str, Any]:
    """The live panel: every role, tonight's steps and submissions, the draft and its trace."""
    if state is None:
        return {"game": game, "state": None}
    rs = get_ruleset(state.ruleset)
    names = _names(state)
    players = [
        {
            "id": p.id,
            "name": p.name,
            "role": rs.roles[p.role].name,
            "faction": rs.factions[p.faction].name,
            "alive": p.alive,
            "gender": p.gender,
            "act": p.act,
            "block": p.block,
            "skills": [rs.skills[s].name for s in p.skills],
            "statuses": [
                rs.status_names.get(key, str(_("其他状态")))
                for key, last in sorted(p.statuses.items())
                if last >= state.day
            ],
            "sheriff": state.sheriff == p.id,
        }
        for p in state.players.values()
    ]
    steps = []
    for step in rs.night_steps:
        st = state.night.get("steps", {}).get(step.key)
        subs = []
        for skill in step.skills:
            for actor, value in state.night.get("subs", {}).get(skill, {}).items():
                targets, option = submission(value)
                chosen = listing(names.get(t, "—") for t in targets)
                words = option_words(rs, rs.skills[skill], option)
                subs.append(
                    {
                        "actor": names.get(int(actor), actor),
                        "skill": rs.skills[skill].name,
                        "target": _("放弃") if value is None else f"{chosen or _('无目标')}{words}",
                    }
                )
        steps.append(
            {
                "name": step.name,
                "state": _step_state(st),
                "deadline": _when(st["deadline"]) if st and st.get("deadline") else None,
                "subs": subs,
            }
        )
    draft = state.result
    return {
        "game": game,
        "state": state,
        "auction": rs.has_auction,
        "winner_name": _winner_name(rs, state.winner, state.flags.get("co_winners", ())),
        "draft_winner_name": _winner_name(rs, draft.get("winner")) if draft else "",
        "phase_name": PHASE_NAMES.get(state.phase, state.phase),
        "players": players,
        "steps": steps,
        "leader": names.get(state.night.get("leader", 0), ""),
        "draft": draft,
        "draft_hits": [{"name": names.get(int(h[0]), h[0]), "cause": h[1]} for h in draft["hits"]]
        if draft
        else [],
        "draft_outs": [{"name": names.get(int(o[0]), o[0]), "cause": o[1]} for o in draft["outs"]]
        if draft
        else [],
        "draft_feedback": draft_feedback(state) if draft else [],
        "draft_effects": [text for _value, text in draft_effects(state)] if draft else [],
    }


def _ops(state: GameState | None, game: Game | None = None) -> list[str]:
    """The forms that make sense now (096's speech breaks whenever the site has flagged one)."""
    if state is None:
        return ["deal"]
    if state.phase == SETUP:
        return ["roles", "auction", "start"]
    ops: list[str] = []
    if state.phase == "night":
        ops = ["resolve"]
    if state.phase == "late":
        ops = ["publish", "override"]
    if state.phase == "day" and state.flags.get("voted") != state.day:
        ops = ["count"]
    if game is not None and _speech_breaks(SpeechForm(state=state, game=game)):
        ops.append("speech")
    return ops


@admin.register(WerewolfGame)
class WerewolfGameAdmin(GameColumn, GameStateAdmin):
    kind = "werewolf"
    list_display = ("game_title", "night_room")
    list_select_related = ("game",)

    @admin.display(description=_("夜晚控制室"))
    def night_room(self, obj: WerewolfGame) -> str:
        return format_html('<a href="{}">{}</a>', night_url(obj.game), _("进入"))

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        mine = [
            path("<int:game_id>/night/", wrap(self.night_view), name="werewolf_night"),
            path("<int:game_id>/night/state/", wrap(self.state_view), name="werewolf_night_state"),
            path(
                "<int:game_id>/night/<str:op>/",
                wrap(require_POST(self.act_view)),
                name="werewolf_night_act",
            ),
        ]
        return [*mine, *super().get_urls()]

    def night_view(self, request: HttpRequest, game_id: int) -> HttpResponse:
        game = directed_game(request, game_id)
        state = _state_or_none(game)
        context = night_context(game, state)
        context.update(
            {
                **self.admin_site.each_context(request),
                "title": f"{game.forum_title} · {_('夜晚控制室')}",
                "opts": self.model._meta,
                "forms": [
                    _titled(op, FORMS[op](state=state, game=game)) for op in _ops(state, game)
                ],
                "config": {
                    "game": game.pk,
                    "head": game.seq,
                    "state_url": reverse("admin:werewolf_night_state", args=[game.pk]),
                    "names": {str(c.pk): c.name for c in game.characters.all()},
                },
            }
        )
        return TemplateResponse(request, "admin/werewolf/night.html", context)

    def state_view(self, request: HttpRequest, game_id: int) -> HttpResponse:
        """The live panel alone, re-fetched whenever an event arrives."""
        game = directed_game(request, game_id)
        return render(
            request, "admin/werewolf/_night.html", night_context(game, _state_or_none(game))
        )

    def act_view(self, request: HttpRequest, game_id: int, op: str) -> HttpResponse:
        game = directed_game(request, game_id)
        if op not in RUNS:
            raise Http404
        form = FORMS[op](request.POST, state=_state_or_none(game), game=game)
        return run_form(
            request,
            form,
            lambda: RUNS[op](game, request_director(request), form),
            back=night_url(game, "forms"),
            title=TITLES[op],
        )
