"""A [061] player's portal shows what the engine's view gives that player only: the rosters
(妖狐/毒士 互知, the 狼王's wolf list — names, no roles), the 狼群, the ‹炼› marks, private
feedback, a skill's option and other target counts as form controls, and the 不定's one
question to the director; every other player's page shows none of it (leak checks)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
import time_machine
from django.test import Client

from games import services as game_services
from games.models import Character
from tests.conftest import api_login, bj
from tests.werewolf.players import lin_feng_day_1, lin_feng_draft
from werewolf import services, store
from werewolf.engine import get_ruleset
from werewolf.views import _options

pytestmark = pytest.mark.django_db

NIGHT_0 = bj(1, 0) - dt.timedelta(hours=2)
RULES = get_ruleset("lin_feng_061")
ROLES = list(RULES.roles)  # one of each of the 19 roles, 演员1 … 演员19 in the data's order


class Table:
    def __init__(self, director: Any) -> None:
        self.game, self.passwords = lin_feng_draft(director)
        self.director = director
        self.ids = {
            role: Character.objects.get(game=self.game, name=f"演员{n}").pk
            for n, role in enumerate(ROLES, 1)
        }
        self.names = {role: f"演员{n}" for n, role in enumerate(ROLES, 1)}
        services.werewolf_setup(game=self.game, roles={self.ids[r]: r for r in ROLES})
        game_services.game_start(game=self.game, director=director, now=NIGHT_0)
        self.clients: dict[str, Client] = {}

    def client(self, role: str) -> Client:
        if role not in self.clients:
            c = Client()
            secret = self.passwords[self.names[role]]
            assert api_login(c, self.game.number, secret).status_code == 200
            self.clients[role] = c
        return self.clients[role]

    def page(self, role: str) -> str:
        response = self.client(role).get(f"/play/{self.game.number}/me/", follow=True)
        assert response.status_code == 200
        return response.content.decode()

    def post(self, role: str, **data: Any) -> str:
        response = self.client(role).post(f"/play/{self.game.number}/me/", data, follow=True)
        assert response.status_code == 200
        return response.content.decode()

    def pages(self) -> dict[str, str]:
        return {role: self.page(role) for role in ROLES}

    def to_day_1(self) -> None:
        lin_feng_day_1(self.game, self.director, NIGHT_0)
        assert store.state_load(self.game).phase == "day"


def _section(text: str, sid: str) -> str:
    m = re.search(rf'<section[^>]*id="{sid}".*?</section>', text, re.S)
    return m.group(0) if m else ""


def _form(text: str, skill: str) -> str:
    for m in re.finditer(r"<form.*?</form>", text, re.S):
        if f'name="skill" value="{skill}"' in m.group(0):
            return m.group(0)
    return ""


@pytest.fixture
def table(director: Any) -> Table:
    return Table(director)


def test_the_drifters_ask_once_and_see_the_answer_alone(table: Table) -> None:
    pages = table.pages()
    for role, text in pages.items():
        has = 'name="op" value="ask"' in text
        assert has == (role in ("ghost", "hostage")), role
    text = table.post("ghost", op="ask", key="k-ask")
    answer = _section(text, "ww-ask")
    assert "导演答复" in answer
    assert "你当前属于不定阵营。" in answer
    assert 'value="ask"' not in answer  # one use: the button is gone
    # The second try is refused by the engine, the answer stays.
    again = table.post("ghost", op="ask", key="k-ask-2")
    assert "你当前属于不定阵营。" in _section(again, "ww-ask")
    for role, text in table.pages().items():
        if role != "ghost":
            assert "你当前属于" not in text, role
            assert "导演答复" not in text, role
    # The 人质 still has its own question.
    assert 'name="op" value="ask"' in table.page("hostage")


def test_rosters_pack_and_marks_go_to_their_holders_only(table: Table) -> None:
    table.to_day_1()
    pages = table.pages()
    fox = {"fox", "psychic", "angel"}
    poison = {"poisoner", "pillar"}
    state = store.state_load(table.game)
    for role, text in pages.items():
        roster = _section(text, "ww-roster")
        if role == "wolf_king":
            assert "狼人阵营名单" in roster
            for w in ("wolf_queen", "wolf_king", "wolf_hunter", "wolf_judge"):
                assert table.names[w] in roster
        elif role in fox | poison:
            assert "互知名单" in roster
            group = fox if role in fox else poison
            # Every member of the faction now (a 不定 placed there included), names only.
            members = [
                p.name for p in state.players.values() if p.faction == RULES.roles[role].faction
            ]
            assert {table.names[r] for r in group} <= set(members)
            for name in members:
                assert name in roster
            for r in ROLES:
                assert RULES.roles[r].name not in roster.replace("互知名单", "")
        else:
            assert roster == "", role
            assert "互知名单" not in text, role
            assert "狼人阵营名单" not in text, role
        pack = _section(text, "ww-pack")
        if role == "wolf_king":
            assert table.names["wolf_king"] in pack
        else:
            assert pack == "", role
        marks = 'id="ww-marks"' in text
        assert marks == (role == "poisoner"), role


def test_option_and_multi_target_controls_and_a_portal_submission(table: Table) -> None:
    table.to_day_1()
    with time_machine.travel(bj(3, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(3, 21, 1))
        assert store.state_load(table.game).phase == "night"
        pages = table.pages()
        for role, text in pages.items():
            verify = _form(text, "verify")
            assert (verify != "") == (role == "ranger"), role
            assert ('name="option" value="publish"' in text) == (role == "ranger"), role
            judge = _form(text, "judge")
            assert (judge != "") == (role == "wolf_judge"), role
            command = _form(text, "command")
            assert (command != "") == (role == "wolf_king"), role
        judge = _form(pages["wolf_judge"], "judge")
        assert 'type="checkbox" name="target"' in judge
        assert "须选择3名" in judge
        command = _form(pages["wolf_king"], "command")
        assert 'type="checkbox" name="target"' in command
        assert "须选择2名" in command
        whisper = _form(pages["treasure"], "whisper")
        assert 'type="text" name="option"' in whisper
        assert "<select" not in whisper
        cunning = _form(pages["fox"], "cunning")
        assert 'name="option"' in cunning
        assert "狼王" in cunning
        # <鸩毒> spends ‹炼› marks: with none yet, the 毒士 is not offered it at all.
        poisoner = store.state_load(table.game).players[table.ids["poisoner"]]
        assert poisoner.counters.get("marks", 0) == 0
        assert _form(pages["poisoner"], "zhen") == ""

        target = table.ids["wolf_queen"]
        table.post(
            "ranger", op="use_skill", skill="verify", target=str(target), option="publish", key="k"
        )
        sub = store.state_load(table.game).night["subs"]["verify"][str(table.ids["ranger"])]
        assert sub == {"targets": [target], "option": "publish"}
        two = [table.ids["fox"], table.ids["wolf_hunter"]]
        table.post(
            "wolf_king", op="use_skill", skill="command", target=[str(t) for t in two], key="c"
        )
        sub = store.state_load(table.game).night["subs"]["command"][str(table.ids["wolf_king"])]
        assert sorted(sub["targets"]) == sorted(two)
        table.post("treasure", op="use_skill", skill="whisper", option="你好", key="k-w")
        sub = store.state_load(table.game).night["subs"]["whisper"][str(table.ids["treasure"])]
        assert sub == {"targets": [], "option": "你好"}


def _night_1_published(table: Table) -> None:
    services.werewolf_deadlines_run(now=bj(3, 22, 5))
    with time_machine.travel(bj(4, 8), tick=False):
        game_services.transitions_run_due(now=bj(4, 8))
        if store.state_load(table.game).phase != "day":
            services.werewolf_night_publish(game=table.game, director=table.director, reason="")
    assert store.state_load(table.game).phase == "day"


@pytest.mark.parametrize("publish", [False, True])
def test_private_feedback_is_the_actors_and_publish_makes_it_public(
    table: Table, publish: bool
) -> None:
    table.to_day_1()
    with time_machine.travel(bj(3, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(3, 21, 1))
        data = {"op": "use_skill", "skill": "verify", "target": str(table.ids["wolf_queen"])}
        if publish:
            data["option"] = "publish"
        table.post("ranger", key="v", **data)
    _night_1_published(table)
    private = f"{table.names['wolf_queen']}属于狼人阵营。"
    public = RULES.text("verify", name=table.names["wolf_queen"], group="狼人阵营")
    with time_machine.travel(bj(4, 9), tick=False):
        pages = table.pages()
    assert private in _section(pages["ranger"], "ww-feedback")
    for role, text in pages.items():
        if role != "ranger":
            assert private not in _section(text, "ww-feedback"), role
            assert (public in text) == publish, role
            if not publish:
                assert private not in text, role


def test_the_pack_统领_builds_is_shown_to_its_members_only(table: Table) -> None:
    table.to_day_1()
    with time_machine.travel(bj(3, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(3, 21, 1))
        two = [table.ids["fox"], table.ids["wolf_hunter"]]
        table.post(
            "wolf_king", op="use_skill", skill="command", target=[str(t) for t in two], key="c"
        )
    _night_1_published(table)
    with time_machine.travel(bj(4, 9), tick=False):
        pages = table.pages()
    for role, text in pages.items():
        pack = _section(text, "ww-pack")
        if role in ("wolf_king", "wolf_hunter"):
            assert table.names["wolf_king"] in pack, role
            assert table.names["wolf_hunter"] in pack, role
        else:
            assert pack == "", role


def test_a_right_狡黠_guess_through_the_portal_offers_the_borrowed_skills_to_the_fox(
    table: Table,
) -> None:
    table.to_day_1()
    with time_machine.travel(bj(3, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(3, 21, 1))
        queen = table.ids["wolf_queen"]
        table.post(
            "fox", op="use_skill", skill="cunning", target=str(queen), option="wolf_queen", key="f"
        )
        sub = store.state_load(table.game).night["subs"]["cunning"][str(table.ids["fox"])]
        assert sub == {"targets": [queen], "option": "wolf_queen"}
        # The fox's own log reads its submission as a sentence, its guess by the role's name.
        guessed = f"已提交 狡黠 → {table.names['wolf_queen']}（猜测身份：狼后）"
        assert guessed in table.page("fox")
    _night_1_published(table)
    with time_machine.travel(bj(4, 9), tick=False):
        pages = table.pages()
    kill = RULES.skills["kill"].name
    assert kill in _section(pages["fox"], "ww-lf-self")
    assert 'id="ww-borrow"' in pages["fox"]
    # The night after day 1 is 第 1 夜 (游戏日夜晚: night n follows day n), though day 2 is open.
    assert "第 1 夜：猜测成功" in _section(pages["fox"], "ww-feedback")
    for role, text in pages.items():
        if role != "fox":
            assert 'id="ww-borrow"' not in text, role
            assert "猜测成功" not in text, role
    # Night 2: the borrowed skill's form names what may be borrowed, as its option.
    with time_machine.travel(bj(5, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(5, 21, 1))
        assert store.state_load(table.game).phase == "night"
        borrowed = _form(table.page("fox"), "borrowed")
    assert 'name="option"' in borrowed
    assert 'value="kill"' in borrowed
    assert 'type="checkbox" name="target"' in borrowed  # 0-1 targets


@pytest.mark.parametrize(("marks", "offered"), [(1, ["1"]), (2, ["1", "2"]), (5, ["1", "2", "3"])])
def test_zhen_offers_only_what_the_marks_pay_for(marks: int, offered: list[str]) -> None:
    """失去一个/两个/三个<炼>标记: the portal offers the choices the 毒士's marks cover."""
    control = _options({"lin_feng": {"marks": marks}}, RULES.skills["zhen"], RULES)
    assert control is not None
    assert [c["value"] for c in control["choices"]] == offered


def test_a_drifters_role_card_never_names_the_faction_it_followed(table: Table) -> None:
    """不定阵营…随之转变，但不会收到阵营转变的通知: after 附身/遇难 (drawn from the seed here), the
    幽灵's and 人质's cards still say 不定阵营; the others' say their own."""
    table.to_day_1()
    state = store.state_load(table.game)
    for role in ("ghost", "hostage"):
        real = RULES.factions[state.players[table.ids[role]].faction].name
        assert real != "不定阵营"
        card = re.search(r'<p class="ww-role-name">.*?</p>', table.page(role), re.S)
        assert card is not None
        assert '<span class="tag">不定阵营</span>' in card.group(0), role
        assert real not in card.group(0), role
    queen = re.search(r'<p class="ww-role-name">.*?</p>', table.page("wolf_queen"), re.S)
    assert queen is not None
    assert '<span class="tag">狼人阵营</span>' in queen.group(0)


def test_a_wolf_voted_out_at_the_close_gives_the_keeper_until_the_next_nights_open(
    table: Table,
) -> None:
    """<勾魂>: 每当有狼人阵营的玩家出局时，仅在下一个游戏日夜晚开始前… A wolf voted out at day
    1's 关门 is that night's start: the 守宝人 picks during night 1 or day 2 (the portal says
    so, not a clock time), and the pick converts at night 2's open (RULINGS 061-10)."""
    table.to_day_1()
    # A 狼人阵营 role the seed's 票台 does not shield today (the 开局夜's picks are drawn).
    day_1 = store.state_load(table.game)
    stage = {p.id for p in day_1.players.values() if p.statuses.get("stage") == day_1.day}
    wolf = next(
        r
        for r in ("wolf_king", "wolf_judge", "wolf_queen", "wolf_hunter")
        if table.ids[r] not in stage
    )
    voters = [table.ids[r] for r in ("fox", "angel", "psychic")]
    with time_machine.travel(bj(3, 20, 40), tick=False):
        services.werewolf_day_count(
            game=table.game,
            director=table.director,
            ballots=[(v, table.ids[wolf]) for v in voters],
            reason="论坛无法访问，手动计票",
        )
    services.werewolf_deadlines_run(now=bj(3, 20, 51))  # the 天使 lets 偏爱 pass
    with time_machine.travel(bj(3, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(3, 21, 1))
        state = store.state_load(table.game)
        assert state.phase == "night"
        assert not state.players[table.ids[wolf]].alive
        form = _form(table.page("keeper"), "soul")
        assert "截止：下一个夜晚开始（关门）前" in form
        assert "ww-countdown" not in form
        table.post("keeper", key="s", op="use_skill", skill="soul", target=str(table.ids["fox"]))
    _night_1_published(table)
    state = store.state_load(table.game)
    assert state.players[table.ids["fox"]].faction == "fox"  # not yet: 在游戏日夜晚开始后
    assert _form(table.page("keeper"), "soul")  # still open on day 2
    close = bj(5, 21, 1)
    with time_machine.travel(close, tick=False):
        game_services.transitions_run_due(now=close)
    state = store.state_load(table.game)
    assert state.phase == "night"
    assert state.day == 2
    assert state.players[table.ids["fox"]].faction == "treasure"
    assert "勾魂成功。" in _section(table.page("keeper"), "ww-feedback")
